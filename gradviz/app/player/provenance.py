"""Element provenance: click an entry of a cotangent or gradient (in this dock's grid, on
the canvas's formula card or on a card's gradient) to see the sum of products it came
from, with numbers, and the entries that made it.

The numbers come from `Story.step_provenance` (the story layer); this panel lays them
out and highlights the contributing entries here and on the canvas.
"""
import re
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from ...graph.document import Port
from ...graph.operands import input_word, operand_heading
from ...render import preview, tiles
from ...story.local import _defining_step
from ...story.model import number_spec, path_name
from .canvas_entries import CARD_LABEL, CanvasClicks, EntryRings, gradient_boxes
from .tensor_grid import TensorGrid

SUM_LINES = 3                        # the lines of an entry's sum the panel keeps room for
ENTRY = re.compile(r"^\(?(-?[A-Za-z_][\w]*)\[([\d,\s]*)\]\)?$")
SHOWN = {"seed": "seed (the cotangent of the target)", "visit": "upstream cotangent",
         "contribution": "contribution", "fan_in": "sum of the paths",
         "accumulate": "gradient", "unconnected": "gradient",
         "update": "gradient g (the backward pass gave it, the update uses it)"}


def shown_array(step):
    """The array a step is about: its cotangent, or the total of a fan-in / accumulation."""
    if step is None:
        return None
    if step.kind in ("fan_in", "accumulate") and step.total is not None:
        return np.asarray(step.total)
    return None if step.cotangent is None else np.asarray(step.cotangent)


def parse_entry(text):
    """'grad[0,1]' -> ('grad', (0, 1)); None for '1', 'J[..; ..]' and the like."""
    m = ENTRY.match(text.strip())
    if not m:
        return None
    idx = tuple(int(i) for i in m.group(2).split(",") if i.strip())
    return m.group(1), idx


def origin_step(story, step):
    """The step that defined the cotangent a visit / accumulate step shows."""
    if step.kind not in ("visit", "accumulate", "unconnected"):
        return step
    tensor = step._tensor if step.kind != "visit" else getattr(step._op, "outputs", [None])[0]
    return _defining_step(story, tensor, step.index) or step


def path_label(story, index):
    """The name of one path into a fan-in: the contribution step and which input of its op
    it went through, as the canvas labels the port ('y → x, input b'), so two paths through
    one op differ; a title that says it already ('y → x (input b)') is not told it twice;
    an op of one input has no port to name."""
    step = story.steps[index]
    if step.kind == "seed":
        return "seed"
    if step.kind != "contribution" or step.input_index is None:
        return step.title
    slot = input_word(step._op, step.input_index, story.naming, "") if step._op is not None else ""
    return step.title if not slot or step.title.endswith(f"({slot})") else f"{step.title}, {slot}"


@dataclass
class Subject:
    """What the grid shows: an array of cotangent entries and how to explain one of them."""

    heading: str               # rich text above the grid
    name: str                  # what an entry is called: c[1,2]
    array: np.ndarray
    step: object               # the story step whose provenance explains an entry
    card_label: str = None     # the formula card's array it is (rings on the canvas)
    node: Port = None          # or the port whose gradient a card shows


class ProvenancePanel(QWidget):
    """The current step's cotangent / gradient as a clickable grid, and where an entry came from."""

    def __init__(self, controller, player, canvas=None, parent=None):
        super().__init__(parent)
        self.setObjectName("provenancePanel")
        self.controller = controller
        self.player = player
        self.canvas = canvas if canvas is not None else getattr(player, "canvas", None)
        self.step = None
        self.subject = None
        self.entry = None
        self.provenance = None
        self.sources = {}          # name -> TensorGrid of the entries a sum draws on
        self.rings = None

        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.grid = TensorGrid("entry")
        self.grid.setToolTip("Click an entry to see the sum of products it came from")
        self.grid.entryClicked.connect(self.select_entry)
        self.sum_label = QLabel()
        self.sum_label.setObjectName("provenanceSum")
        self.sum_label.setWordWrap(True)
        self.sum_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        mono = QFont("DejaVu Sans Mono")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        mono.setPointSizeF(10)
        self.sum_label.setFont(mono)
        self.numbers_label = QLabel()
        self.numbers_label.setObjectName("provenanceNumbers")
        self.numbers_label.setWordWrap(True)
        self.numbers_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.numbers_label.setFont(mono)
        self.sources_box = QVBoxLayout()
        self.sources_box.setContentsMargins(0, 0, 0, 0)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.grid)
        layout.addWidget(self.sum_label)
        layout.addWidget(self.numbers_label)
        layout.addLayout(self.sources_box)
        layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

        self.clicks = CanvasClicks(self, self.canvas) if self.canvas is not None else None
        player.stepChanged.connect(self._step_changed)
        self._step_changed(player.index)

    @property
    def story(self):
        return getattr(self.controller.result, "story", None)

    def least_height(self):
        """The height that shows the step's heading and its whole grid, and SUM_LINES lines of
        an entry's sum below: a story step's provenance read without scrolling (at 1280 x 800
        beside a study it had 140 px, four of a 5 x 3 cotangent's rows and no sum)."""
        body = self.heading.parentWidget()
        margins, spacing = body.layout().contentsMargins(), body.layout().spacing()
        width = max(self.width(), body.minimumSizeHint().width()) - margins.left() - margins.right()
        sum_lines = SUM_LINES * self.sum_label.fontMetrics().lineSpacing()
        return (margins.top() + self.heading.heightForWidth(width) + spacing + self.grid.height()
                + spacing + sum_lines + margins.bottom())

    # -- what the grid shows ---------------------------------------------------------------
    def _step_changed(self, index):
        step = self.player.step
        same = (self.step is not None and step is not None and self.step.index == step.index
                and self.step.kind == step.kind)
        entry = self.entry if same and self.subject is not None \
            and self.subject.card_label == CARD_LABEL.get(step.kind) else None
        self.step = step
        self.subject = None
        self._reset()
        if step is None:
            self.grid.set_array(None)
            self.heading.setText("<b>Element provenance</b><br>Step through the backward pass "
                                 "(→ or Space); then click an entry of a cotangent or gradient, "
                                 "here or on the canvas, to see the products it sums.")
            return
        array = shown_array(step)
        if array is None:
            text = {"cut": "No cotangent flows through a cut edge.",
                    # the step's own words: why (no edge path, a cut on every path, unwatched)
                    "unconnected": step.caption}.get(step.kind, "This step has no numbers.")
            self.heading.setText(f"<b>{_html(step.title)}</b><br>{text}")
            self.grid.set_array(None)
            return
        where = _reader_name(step)
        what = SHOWN.get(step.kind, step.kind)
        final = getattr(self.story, "_final", {}).get(step.port) if step.kind == "update" else None
        self._show_subject(Subject(     # an update's g: its entries sum as the gradient's do
            f"<b>{_html(step.title)}</b><br>{what} of <b>{_html(where)}</b> "
            f"({preview.shape_text(array)}): click an entry", where, array,
            step if final is None else self.story.steps[final],
            card_label=CARD_LABEL.get(step.kind, "upstream")))
        if entry is not None and entry < array.size:
            self.select_entry(entry)

    def _show_subject(self, subject):
        self.subject = subject
        self._reset()
        self.grid.title = subject.name
        port = subject.node or getattr(subject.step, "port", None)
        renderer = getattr(self.canvas, "renderer", None)
        filters = renderer is not None and subject.card_label != "upstream" \
            and renderer.tensor_role(port) == tiles.FILTER
        self.grid.set_array(subject.array, tiles.FILTER if filters else None, number_spec(self.story))
        self.heading.setText(subject.heading + _factor_note(self.grid))

    def _reset(self):
        self.entry = None
        self.provenance = None
        self.sum_label.clear()
        self.numbers_label.clear()
        self._clear_sources()

    def _clear_sources(self):
        while self.sources_box.count():
            item = self.sources_box.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.sources = {}
        if self.canvas is not None:
            self.canvas.set_highlight({})
        if self.rings is not None:
            self.rings.set_rects([])

    def _add_source(self, name, caption, array, flats):
        grid = TensorGrid(name)
        grid.set_array(array, tiles.FILTER if name == "filters" else None, number_spec(self.story))
        label = QLabel(caption + _factor_note(grid))
        label.setWordWrap(True)
        grid.set_highlight(flats)
        self.sources_box.addWidget(label)
        self.sources_box.addWidget(grid)
        self.sources[name] = grid
        return grid

    # -- clicks on the canvas ----------------------------------------------------------------
    def click_canvas(self, where, name, flat):
        """An entry clicked on the canvas: ('card', label, flat) or ('node', port, flat)."""
        subject = self._card_subject(name) if where == "card" else self._node_subject(name)
        if subject is None:
            return None
        self._show_subject(subject)
        return self.select_entry(flat)

    def _card_subject(self, label):
        step, story = self.step, self.story
        if step is None or story is None:
            return None
        if label == CARD_LABEL.get(step.kind):
            self._step_changed(step.index)
            return self.subject
        paths = [path_name(step, k) for k in range(len(step.contributions or []))]
        if step.kind == "fan_in" and label in paths:
            k = paths.index(label)
            if k >= len(step._sources):
                return None
            source = story.steps[step._sources[k]]
            array = np.asarray(step.contributions[k])
            return Subject(f"<b>{_html(step.title)}</b><br>path {k + 1}, {_html(label)}: "
                           f"{_html(path_label(story, source.index))} "
                           f"({preview.shape_text(array)}): click an entry",
                           _reader_name(step),
                           array, source, card_label=label)
        if label == "upstream" and step.kind in ("contribution", "cut"):
            visit = next((s for s in reversed(story.steps[:step.index])
                          if s.kind == "visit" and s._op is step._op), None)
            grad = step.operands.get("grad")
            if visit is None or grad is None or isinstance(grad, list):
                return None
            array = np.asarray(grad)
            return Subject(f"<b>{_html(step.title)}</b><br>upstream cotangent: the cotangent "
                           f"of {_html(visit.title.removeprefix('Visit '))}'s output "
                           f"({preview.shape_text(array)}): click an entry",
                           step.node, array, visit, card_label=label)
        return None

    def _node_subject(self, port):
        story = self.story
        boxes = gradient_boxes(self.canvas.renderer, port.node) if self.canvas is not None else []
        box = next((b for b in boxes if b.port == port), None)
        final = story._final.get(port) if story is not None else None
        if box is None or final is None:
            return None
        name = _reader_name(story.steps[final])
        return Subject(f"<b>gradient of {_html(name)}</b> on its card "
                       f"({preview.shape_text(box.array)}): what tape.gradient returns; click an "
                       f"entry", name, box.array, story.steps[final], node=port)

    # -- one entry ----------------------------------------------------------------------------
    def select_entry(self, flat):
        """Explain entry `flat` of the grid's array: its sum of products, highlighted."""
        subject, story = self.subject, self.story
        if subject is None or story is None:
            return None
        flat = int(flat)
        self._clear_sources()
        self.entry = flat
        self.grid.set_highlight([flat])
        try:
            prov = story.step_provenance(subject.step, flat)
        except (ValueError, KeyError, IndexError) as e:
            self.sum_label.setText(str(e))
            self.numbers_label.clear()
            return None
        self.provenance = prov
        origin = origin_step(story, subject.step)
        labels = [path_label(story, i) for i in origin._sources] \
            if prov.kind == "fan_in" and len(origin._sources) == len(prov.terms) else None
        self.sum_label.setText(_sum_text(prov, labels))
        self.numbers_label.setText(prov.numbers() if prov.says_more() else "")
        cells = {subject.card_label: [flat]} if subject.card_label else {}
        here = origin is self.step and subject.card_label == CARD_LABEL.get(self.step.kind)
        if prov.kind == "fan_in":
            for k, ((_, array), term) in enumerate(zip(origin.terms, prov.terms)):
                name = labels[k] if labels else term.label
                path = path_name(origin, k)
                self._add_source(path, f"path {k + 1}, {_html(path)}: <b>{_html(name)}</b> = "
                                 f"{prov.product(term)}", array, [flat])
                if here:
                    cells.setdefault(path, []).append(flat)
        elif prov.kind == "contribution":
            self._contribution_sources(prov, origin, cells if here else None)
        if self.canvas is not None:
            self.canvas.set_highlight(cells)
            self._ring_node(subject, flat)
        return prov

    def _contribution_sources(self, prov, origin, cells):
        """The tensors whose entries the sum uses, headed as the rule card heads them: the
        upstream by the card's word for it (g beside a node called grad), an operand as
        'b (grad)'."""
        wanted = {}
        for term in prov.terms:
            for piece in term.label.split("·"):
                parsed = parse_entry(piece)
                if parsed is not None:
                    wanted.setdefault(parsed[0], []).append(parsed[1])
        for name, indices in wanted.items():
            upstream = _upstream_index(name, prov.grad_word)
            array = self._operand(origin, name, upstream)
            if array is None:
                continue
            flats = [int(np.ravel_multi_index(i, array.shape)) if array.ndim else 0
                     for i in indices if len(i) == array.ndim]
            if upstream is not None:
                heading = f"upstream cotangent <b>{_html(name)}</b>"
            else:
                node = (origin.operand_nodes or {}).get(name, "")
                heading = f"operand <b>{_html(operand_heading(name, node))}</b>"
            self._add_source(name, f"{heading} {preview.shape_text(array)}: "
                                   "the entries this sum uses", array, flats)
            if cells is not None:
                cells.setdefault("upstream" if upstream is not None else name, []).extend(flats)

    def _ring_node(self, subject, flat):
        if subject.node is None:
            return
        box = next((b for b in gradient_boxes(self.canvas.renderer, subject.node.node)
                    if b.port == subject.node), None)
        rect = box.cell(flat) if box is not None else None
        if rect is None:
            return
        if self.rings is None or self.rings.scene() is not self.canvas.scene():
            self.rings = EntryRings(self.canvas.highlight_colour())
            self.canvas.scene().addItem(self.rings)
        self.rings.set_rects([rect])

    @staticmethod
    def _operand(step, name, upstream=None):
        """The array of `name` in a contribution's sum: an operand of the rule, or (upstream,
        its output's index) the upstream cotangent, which the step keeps under 'grad'."""
        ops = step.operands or {}
        if upstream is not None:
            value = ops.get("grad")
            if isinstance(value, list):
                value = value[upstream] if upstream < len(value) else None
        elif name in ops and name != "grad":
            value = ops[name]
        else:
            return None
        return None if value is None or isinstance(value, list) else np.asarray(value)


def _upstream_index(name, word):
    """Which output's upstream `name` is in a sum whose rule calls the upstream `word`
    ('grad', or 'grad1' of an op's second output), or None for an operand."""
    m = re.fullmatch(rf"{re.escape(word)}(\d*)", name)
    return int(m.group(1) or 0) if m else None


def _sum_text(prov, labels=None):
    """prov.text(), with each path of a fan-in named by `labels` (its input slot)."""
    if prov.kind != "fan_in" or not labels:
        return prov.text()
    parts = [f"{prov.product(t)} [{label}]" for t, label in zip(prov.terms, labels)]
    return f"{prov.subject} = " + " + ".join(parts) + f" = {prov.num(prov.value)}"


def _factor_note(grid):
    """What a grid whose numbers are written divided by a power of ten says of them."""
    return f"<br>entries {grid.factor}, as on the cards" if grid.factor else ""


def _reader_name(step):
    """The name the canvas gives the tensor of a step (its node's label), not the node id."""
    if step.tensor_name:
        return step.tensor_name
    return step.port.node if step.port is not None else step.node


def _html(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
