"""Element provenance: click an entry of the current step's cotangent or gradient to see
the sum of products it came from, with numbers, and the entries that made it.

The numbers come from `Story.step_provenance` (the story layer); this panel lays them
out and highlights the contributing entries here and on the canvas's formula card.
"""
import re

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QScrollArea, QSizePolicy,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from ..render import preview

MAX_CELLS = 40                       # rows / columns shown in a grid
ENTRY = re.compile(r"^\(?(-?[A-Za-z_][\w]*)\[([\d,\s]*)\]\)?$")
SHOWN = {"seed": "seed (the cotangent of the target)", "visit": "upstream cotangent",
         "contribution": "contribution", "fan_in": "sum of the paths",
         "accumulate": "gradient", "unconnected": "gradient"}
CARD_LABEL = {"seed": "seed", "visit": "upstream", "contribution": "contribution",
              "fan_in": "sum", "accumulate": "gradient"}


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
    from ..story.local import _defining_step
    tensor = step._tensor if step.kind != "visit" else getattr(step._op, "outputs", [None])[0]
    return _defining_step(story, tensor, step.index) or step


class TensorGrid(QTableWidget):
    """A small read-only grid of numbers; a click emits the entry's flat index."""

    entryClicked = Signal(int)

    def __init__(self, title="", parent=None):
        super().__init__(parent)
        self.title = title
        self.array = None
        self.highlighted = []
        self._cols = 1
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setMinimumSectionSize(24)
        font = QFont("DejaVu Sans Mono")
        font.setStyleHint(QFont.StyleHint.Monospace)
        font.setPointSizeF(9.5)
        self.setFont(font)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.cellClicked.connect(self._clicked)

    def set_array(self, array):
        self.array = None if array is None else np.asarray(array)
        self.highlighted = []
        self.clear()
        if self.array is None or self.array.size == 0:
            self.setRowCount(0)
            self.setColumnCount(0)
            self.setFixedHeight(0)
            return
        a2 = preview.as_2d(self.array)
        rows, cols = min(a2.shape[0], MAX_CELLS), min(a2.shape[1], MAX_CELLS)
        self._cols = a2.shape[1]
        self.setRowCount(rows)
        self.setColumnCount(cols)
        self.setVerticalHeaderLabels([str(r) for r in range(rows)])      # numpy's indices
        self.setHorizontalHeaderLabels([str(c) for c in range(cols)])
        fmt = preview.number_format(a2)
        for r in range(rows):
            for c in range(cols):
                v = a2[r, c].item()
                item = QTableWidgetItem(fmt(v))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(f"{self.title}[{self._index_text(r * self._cols + c)}] = {v:.8g}")
                self.setItem(r, c, item)
        self.resizeColumnsToContents()
        self.resizeRowsToContents()
        height = self.horizontalHeader().height() + sum(self.rowHeight(r) for r in range(min(rows, 8)))
        self.setFixedHeight(int(height + 2 * self.frameWidth() + (18 if rows > 8 or cols > 8 else 0)))

    def _index_text(self, flat):
        shape = np.shape(self.array)
        return ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) if shape else ""

    def text_at(self, flat):
        r, c = divmod(int(flat), self._cols)
        item = self.item(r, c)
        return None if item is None else item.text()

    def _clicked(self, r, c):
        self.entryClicked.emit(r * self._cols + c)

    def set_highlight(self, flats, colour="#f4a100"):
        for flat in self.highlighted:
            item = self.item(*divmod(flat, self._cols))
            if item is not None:
                item.setBackground(QBrush())
        self.highlighted = []
        fill = QColor(colour)
        fill.setAlpha(110)
        for flat in flats:
            item = self.item(*divmod(int(flat), self._cols))
            if item is not None:
                item.setBackground(QBrush(fill))
                self.highlighted.append(int(flat))


class ProvenancePanel(QWidget):
    """The current step's cotangent / gradient as a clickable grid, and where an entry came from."""

    def __init__(self, controller, player, canvas=None, parent=None):
        super().__init__(parent)
        self.setObjectName("provenancePanel")
        self.controller = controller
        self.player = player
        self.canvas = canvas if canvas is not None else getattr(player, "canvas", None)
        self.step = None
        self.entry = None
        self.provenance = None
        self.sources = {}          # name -> TensorGrid of the entries a sum draws on

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

        player.stepChanged.connect(self._step_changed)
        self._step_changed(player.index)

    @property
    def story(self):
        return getattr(self.controller.result, "story", None)

    def _step_changed(self, index):
        step = self.player.step
        same = (self.step is not None and step is not None and self.step.index == step.index
                and self.step.kind == step.kind)
        entry = self.entry if same else None
        self.step = step
        self.entry = None
        self.provenance = None
        self.grid.set_array(shown_array(step))
        self._clear_sources()
        self.sum_label.clear()
        self.numbers_label.clear()
        if step is None:
            self.heading.setText("<b>Element provenance</b><br>Step through the backward pass "
                                 "(→ or Space); then click an entry of a cotangent or gradient "
                                 "to see the products it sums.")
            return
        what = SHOWN.get(step.kind, step.kind)
        where = step.port.node if step.port is not None else step.node
        array = shown_array(step)
        if array is None:
            text = {"cut": "No cotangent flows through a cut edge.",
                    "unconnected": "The source is not connected to the target: its gradient "
                                   "is None (or zeros, per the tape setting)."}.get(
                step.kind, "This step has no numbers.")
            self.heading.setText(f"<b>{step.title}</b><br>{text}")
            return
        self.heading.setText(f"<b>{step.title}</b><br>{what} of <b>{where}</b> "
                             f"({preview.shape_text(array)}): click an entry")
        self.grid.title = where
        if entry is not None and entry < array.size:
            self.select_entry(entry)

    def _clear_sources(self):
        while self.sources_box.count():
            item = self.sources_box.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.sources = {}
        if self.canvas is not None:
            self.canvas.set_highlight({})

    def _add_source(self, name, caption, array, flats):
        label = QLabel(caption)
        label.setWordWrap(True)
        grid = TensorGrid(name)
        grid.set_array(array)
        grid.set_highlight(flats)
        self.sources_box.addWidget(label)
        self.sources_box.addWidget(grid)
        self.sources[name] = grid
        return grid

    def select_entry(self, flat):
        """Explain entry `flat` of the step's array: its sum of products, highlighted."""
        step, story = self.step, self.story
        if step is None or story is None or shown_array(step) is None:
            return None
        flat = int(flat)
        self._clear_sources()
        self.entry = flat
        self.grid.set_highlight([flat])
        try:
            prov = story.step_provenance(step, flat)
        except (ValueError, KeyError, IndexError) as e:
            self.sum_label.setText(str(e))
            self.numbers_label.clear()
            return None
        self.provenance = prov
        self.sum_label.setText(prov.text())
        self.numbers_label.setText(prov.numbers() if prov.terms else "")
        cells = {CARD_LABEL.get(step.kind, "upstream"): [flat]}
        origin = origin_step(story, step)
        if prov.kind == "fan_in":
            for (label, array), term in zip(origin.terms, prov.terms):
                self._add_source(label, f"path <b>{label}</b> = {term.product:.8g}", array, [flat])
            for k in range(len(origin.terms)):
                cells.setdefault(f"path {k + 1}", []).append(flat)
        elif prov.kind == "contribution":
            wanted = {}
            for term in prov.terms:
                for piece in term.label.split("·"):
                    parsed = parse_entry(piece)
                    if parsed is not None:
                        wanted.setdefault(parsed[0], []).append(parsed[1])
            for name, indices in wanted.items():
                array = self._operand(origin, name)
                if array is None:
                    continue
                flats = [int(np.ravel_multi_index(i, array.shape)) if array.ndim else 0
                         for i in indices if len(i) == array.ndim]
                role = "upstream cotangent" if name.startswith("grad") else "operand"
                self._add_source(name, f"{role} <b>{name}</b> {preview.shape_text(array)}: "
                                       "the entries this sum uses", array, flats)
                if origin is step:
                    key = "upstream" if name.startswith("grad") else name
                    cells.setdefault(key, []).extend(flats)
        if self.canvas is not None:
            self.canvas.set_highlight(cells)
        return prov

    @staticmethod
    def _operand(step, name):
        ops = step.operands or {}
        if name in ops:
            value = ops[name]
        elif name.startswith("grad") and isinstance(ops.get("grad"), list):
            k = int(name[4:] or 0)
            value = ops["grad"][k] if k < len(ops["grad"]) else None
        else:
            return None
        return None if value is None or isinstance(value, list) else np.asarray(value)
