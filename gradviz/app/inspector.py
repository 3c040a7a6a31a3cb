"""The inspector: the selected node's properties, or the document's when nothing is selected.

Every change is one controller call, so one undo step, and the engine recomputes.
Pages are rebuilt only when what they show changes in structure (another node, other
attributes, other outputs); otherwise `refresh` updates the widgets in place, leaving
alone a field the user is still typing in.
"""
import json

import numpy as np

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QFrame, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QMessageBox, QPlainTextEdit, QPushButton, QScrollArea, QSpinBox,
                               QVBoxLayout, QWidget)

from ..graph import catalog
from ..graph.build import n_outputs
from ..graph.document import CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Port
from ..graph.fileformat import port_text
from ..graph.tensors import DTYPES
from .tensor_editor import ERROR_STYLE, TensorEditor, shape_text

MUTED = "color: palette(placeholder-text);"


# -- attribute text <-> values (no eval) ------------------------------------------------------
def _int(text):
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        raise ValueError(f"'{t[:20]}' is not a whole number") from None


def _int_list(text):
    t = text.strip().strip("[]()").strip()
    if not t:
        return []
    return [_int(p) for p in t.replace(";", ",").split(",") if p.strip()] if "," in t or ";" in t \
        else [_int(p) for p in t.split()]


def attr_text(kind, value):
    """How an attribute reads in its line edit."""
    if value is None:
        return ""
    if kind in ("axis", "ints"):
        return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    if kind == "index":
        parts = []
        for k in value:
            if isinstance(k, list):
                s = ["" if x is None else str(x) for x in k]
                parts.append(":".join(s[:2]) + (f":{s[2]}" if s[2] else ""))
            else:
                parts.append(str(k))
        return ", ".join(parts)
    if kind == "paddings":
        return "; ".join(f"{a}, {b}" for a, b in value)
    if kind == "float":
        return repr(float(value))
    return str(value)


def parse_attr(kind, text):
    """The value of a line-edited attribute; ValueError with a message in words."""
    t = text.strip()
    if kind == "float":
        try:
            v = float(t)
        except ValueError:
            raise ValueError(f"'{t[:20]}' is not a number") from None
        if not np.isfinite(v):
            raise ValueError("must be a finite number")
        return v
    if kind == "int":
        return _int(t)
    if kind == "axis":
        if t.lower() in ("", "none", "null"):
            return None
        if any(c in t for c in ",[( "):
            return _int_list(t)
        return _int(t)
    if kind == "ints":
        return _int_list(t)
    if kind == "index":
        out = []
        for part in (p.strip() for p in t.strip("[]").split(",")):
            if not part:
                raise ValueError("an index entry is empty")
            if part == "...":
                out.append("...")
            elif ":" in part:
                bits = part.split(":")
                if len(bits) > 3:
                    raise ValueError(f"'{part}' has too many ':' (start:stop:step)")
                bits = [None if not b.strip() else _int(b) for b in bits]
                out.append(bits + [None] * (3 - len(bits)))
            else:
                out.append(_int(part))
        return out
    if kind == "paddings":
        if t.startswith("["):
            try:
                v = json.loads(t)
            except json.JSONDecodeError:
                raise ValueError("write pairs such as '1, 1; 0, 2' or [[1, 1], [0, 2]]") from None
            return v
        rows = [r for r in t.split(";") if r.strip()]
        out = []
        for r in rows:
            pair = _int_list(r)
            if len(pair) != 2:
                raise ValueError(f"'{r.strip()}' is not a pair 'before, after'")
            out.append(pair)
        return out
    return text


PLACEHOLDERS = {"axis": "None (all axes)", "ints": "e.g. 2, 3", "index": "e.g. 0, 1:3, ...",
                "paddings": "before, after; …  e.g. 1, 1; 0, 2"}


# -- small widgets ----------------------------------------------------------------------------
class LineField(QWidget):
    """A line edit that commits on Enter / focus out, with an inline error in words."""

    def __init__(self, parse, commit, placeholder="", parent=None):
        super().__init__(parent)
        self._parse, self._commit = parse, commit
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText(placeholder)
        self.error = QLabel(self)
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.edit)
        layout.addWidget(self.error)
        self._shown = ""
        self.edit.editingFinished.connect(self.commit)

    def show_text(self, text):
        """Show the document's value unless the user is typing something else."""
        if self.edit.isModified():
            return
        self._shown = text
        if self.edit.text() != text:
            self.edit.setText(text)
            self.edit.setCursorPosition(0)
        self.edit.setModified(False)

    def commit(self):
        text = self.edit.text()
        if text == self._shown and not self.error.isVisible():
            return
        try:
            value = self._parse(text)
        except ValueError as e:
            self.set_error(str(e))
            return
        self.edit.setModified(False)  # so the refresh after the edit shows the document's text
        problem = self._commit(value)
        self.set_error(problem or "")
        if problem:
            self.edit.setModified(True)

    def reset(self, text):
        """Drop what was typed and show `text`."""
        self.edit.setModified(False)
        self.show_text(text)

    def set_error(self, text):
        self.error.setText(text)
        self.error.setVisible(bool(text))
        self.edit.setStyleSheet("QLineEdit { border: 1px solid #c62828; }" if text else "")


class LessonEdit(QPlainTextEdit):
    """Multi-line text that commits when it loses focus."""

    committed = Signal(str)

    def focusOutEvent(self, event):
        super().focusOutEvent(event)
        self.committed.emit(self.toPlainText())


def _blocked(widget, fn, *args):
    old = widget.blockSignals(True)
    try:
        fn(*args)
    finally:
        widget.blockSignals(old)


def _heading(text):
    label = QLabel(text)
    f = label.font()
    f.setBold(True)
    label.setFont(f)
    return label


def _group(title):
    box = QGroupBox(title)
    form = QFormLayout(box)
    form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
    form.setLabelAlignment(Qt.AlignRight | Qt.AlignVCenter)
    form.setContentsMargins(8, 6, 8, 8)
    form.setVerticalSpacing(5)
    return box, form


def _kind_text(node):
    if node.kind == OP:
        return f"op · {node.op}"
    if node.kind == LAYER:
        return f"layer · keras.layers.{node.op}"
    if node.kind == CUSTOM_GRADIENT:
        return f"custom gradient · {node.op}"
    return {CONSTANT: "constant · tf.constant", VARIABLE: "variable · tf.Variable"}[node.kind]


def _doc_of(node):
    if node.kind == OP and node.op in catalog.OPS:
        spec = catalog.OPS[node.op]
        return f"{node.op}({', '.join(spec.inputs)}): {spec.doc}"
    if node.kind == LAYER and node.op in catalog.LAYERS:
        return f"keras.layers.{node.op}: {catalog.LAYERS[node.op].doc}"
    if node.kind == CUSTOM_GRADIENT and node.op in catalog.CUSTOM_RULES:
        return f"tf.custom_gradient, identity forward; backward: {catalog.CUSTOM_RULES[node.op][1]}"
    if node.kind == VARIABLE:
        return "a tf.Variable: a trainable variable is watched automatically"
    return "a tf.constant: its gradient is computed only when it is watched"


def _outputs(node):
    try:
        return n_outputs(node)
    except (KeyError, ValueError, TypeError):
        return 1


def _output_name(node, i):
    if node.kind == LAYER and i > 0 and node.op in catalog.LAYERS:
        names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        if i - 1 < len(names):
            return f"output {i} ({names[i - 1]})"
    return f"output {i}"


def _fresh_weight(name, shape, seed=0):
    """Keras' initial values: glorot-uniform kernel, zero bias/beta/mean, unit gamma/variance."""
    if name == "kernel":
        limit = np.sqrt(6.0 / max(1, sum(shape)))
        return np.random.default_rng(seed).uniform(-limit, limit, shape).astype(np.float32)
    fill = 1.0 if name in ("gamma", "moving_variance") else 0.0
    return np.full(shape, fill, np.float32)


def _resized(array, shape, fill=0.0):
    """`array` cut or padded (with `fill`) to `shape`, keeping the overlapping block."""
    out = np.full(shape, fill, array.dtype)
    if array.ndim == len(shape):
        block = tuple(slice(0, min(a, b)) for a, b in zip(array.shape, shape))
        out[block] = array[block]
    return out


# -- the widget -------------------------------------------------------------------------------
class InspectorWidget(QWidget):
    """The right-hand dock's content. `confirm(text) -> bool` asks before a lossy change."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.confirm = self._ask
        self.page = None
        self._retired = []
        self._syncing = False
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)
        self.setMinimumWidth(300)
        controller.selectionChanged.connect(self.sync)
        controller.documentReplaced.connect(self.sync)
        controller.evaluated.connect(self.sync)
        self.sync()

    def _ask(self, text):
        return QMessageBox.question(self, "gradviz", text) == QMessageBox.Yes

    def sync(self, *_):
        """Show the page for the current selection; rebuild only when its structure changed."""
        if self._syncing:
            QTimer.singleShot(0, self.sync)
            return
        self._syncing = True
        try:
            c = self.controller
            sel = [n for n in c.selection if n in c.doc.nodes]
            cls = NodePage if len(sel) == 1 else DocumentPage
            key = cls.key_for(c, sel)
            if self.page is None or self.page.key != key:
                self._replace(cls(self, sel, key))
            else:
                self.page.refresh()
        finally:
            self._syncing = False

    def _replace(self, page):
        old = self.scroll.takeWidget()
        self.scroll.setWidget(page)
        self.page = page
        page.refresh()
        if old is not None:
            old.hide()
            old.deleteLater()
            self._retired = [old]  # deleted by the event loop, not under a running slot


class _Page(QWidget):
    def __init__(self, inspector, key):
        super().__init__()
        self.inspector = inspector
        self.controller = inspector.controller
        self.key = key
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(8, 8, 8, 8)
        self.layout_.setSpacing(8)

    def finish(self):
        self.layout_.addStretch(1)


# -- one node ---------------------------------------------------------------------------------
class NodePage(_Page):
    """The selected node: header, label, attributes, value/weights, roles, results."""

    @staticmethod
    def key_for(controller, selection):
        node = controller.doc.nodes[selection[0]]
        _, kinds = catalog.defaults_and_kinds(node)
        missing = ()
        if node.kind == LAYER and node.op in catalog.LAYERS:
            names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
            missing = tuple(n for n in names if n not in node.weights)
        return ("node", node.id, node.kind, node.op, tuple(sorted(kinds.items())),
                tuple(node.weights), missing, _outputs(node))

    def __init__(self, inspector, selection, key):
        super().__init__(inspector, key)
        self.node_id = selection[0]
        node = self.node
        c = self.controller

        # header
        self.title = QLabel()
        f = self.title.font()
        f.setPointSizeF(f.pointSizeF() * 1.25)
        f.setBold(True)
        self.title.setFont(f)
        self.title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.subtitle = QLabel(_kind_text(node))
        self.subtitle.setToolTip(_doc_of(node))
        self.title.setToolTip(_doc_of(node))
        self.doc_label = QLabel(_doc_of(node))
        self.doc_label.setWordWrap(True)
        self.doc_label.setStyleSheet(MUTED)
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(ERROR_STYLE)
        self.problems.setTextInteractionFlags(Qt.TextSelectableByMouse)
        for w in (self.title, self.subtitle, self.doc_label, self.problems):
            self.layout_.addWidget(w)

        # properties
        box, form = _group("Properties")
        self.label = LineField(lambda t: t.strip(), self._set_label, node.op or node.id)
        form.addRow("Label", self.label)
        self.watched = self.trainable = None
        if node.kind in (CONSTANT, VARIABLE, LAYER):
            self.watched = QCheckBox("Watched  (tape.watch)")
            self.watched.setToolTip("Call tape.watch() on this tensor so the tape records its "
                                    "uses, even when it is a constant")
            self.watched.toggled.connect(lambda v: c.set_field(self.node_id, "watched", v))
            form.addRow("", self.watched)
        if node.kind in (VARIABLE, LAYER):
            self.trainable = QCheckBox("Trainable")
            self.trainable.setToolTip("A trainable variable is watched automatically when "
                                      "watch_accessed_variables is on")
            self.trainable.toggled.connect(lambda v: c.set_field(self.node_id, "trainable", v))
            form.addRow("", self.trainable)
        self.shape = self.dtype = None
        if node.kind in (CONSTANT, VARIABLE):
            self.shape = LineField(_int_list, self._set_shape, "e.g. 2, 3 (empty: a scalar)")
            self.dtype = QComboBox()
            self.dtype.addItems(DTYPES)
            self.dtype.activated.connect(lambda i: self._set_dtype(self.dtype.itemText(i)))
            row = QHBoxLayout()
            row.setSpacing(6)
            row.addWidget(self.shape, 1)
            row.addWidget(self.dtype, 0, Qt.AlignTop)
            form.addRow("Shape", row)
        self.layout_.addWidget(box)

        # attributes
        self.attr_widgets = {}
        defaults, kinds = catalog.defaults_and_kinds(node)
        if node.kind == CUSTOM_GRADIENT or defaults:
            box, form = _group("Attributes")
            if node.kind == CUSTOM_GRADIENT:
                self.rule = QComboBox()
                for name, (_, doc, _) in catalog.CUSTOM_RULES.items():
                    self.rule.addItem(name)
                    self.rule.setItemData(self.rule.count() - 1, doc, Qt.ToolTipRole)
                self.rule.activated.connect(lambda i: self._set_rule(self.rule.itemText(i)))
                form.addRow("Rule", self.rule)
            for name in defaults:
                w = self._attr_editor(name, kinds[name])
                self.attr_widgets[name] = w
                label = QLabel(name)
                label.setToolTip(f"{name} ({kinds[name]}); default {defaults[name]!r}")
                form.addRow(label, w)
            self.layout_.addWidget(box)

        # value / weights
        self.value_editor = None
        self.weight_box = None
        if node.kind in (CONSTANT, VARIABLE):
            box = QGroupBox("Value")
            v = QVBoxLayout(box)
            v.setContentsMargins(8, 6, 8, 8)
            self.value_editor = TensorEditor(box)
            self.value_editor.valueEdited.connect(lambda a: c.set_value(self.node_id, a))
            v.addWidget(self.value_editor)
            self.layout_.addWidget(box)
        elif node.kind == LAYER and node.op in catalog.LAYERS:
            self._layer_weights()

        # roles
        box = QGroupBox("Gradient roles")
        grid = QFormLayout(box)
        grid.setContentsMargins(8, 6, 8, 8)
        self.role_boxes = {}
        for i in range(_outputs(node)):
            port = Port(self.node_id, i)
            row = QHBoxLayout()
            for role, text, tip in (
                    ("targets", "Target", "tape.gradient(target, …): differentiate this output"),
                    ("sources", "Source", "tape.gradient(…, source): the gradient with respect "
                                          "to this output")):
                cb = QCheckBox(text)
                cb.setToolTip(tip)
                cb.toggled.connect(lambda _, r=role, p=port: c.toggle_port(r, p))
                self.role_boxes[(role, i)] = cb
                row.addWidget(cb)
            row.addStretch(1)
            grid.addRow(_output_name(node, i) if _outputs(node) > 1 else "", row)
        self.layout_.addWidget(box)

        # results
        box = QGroupBox("Result")
        v = QVBoxLayout(box)
        v.setContentsMargins(8, 6, 8, 8)
        self.result_port = QComboBox()
        for i in range(_outputs(node)):
            self.result_port.addItem(_output_name(node, i), i)
        self.result_port.currentIndexChanged.connect(lambda _: self.refresh())
        self.result_port.setVisible(_outputs(node) > 1)
        v.addWidget(self.result_port)
        self.value_heading = _heading("Value")
        self.value_view = TensorEditor(box, read_only=True)
        self.value_none = QLabel()
        self.value_none.setStyleSheet(MUTED)
        self.value_none.setWordWrap(True)
        self.grad_heading = _heading("Gradient")
        self.grad_view = TensorEditor(box, read_only=True)
        self.grad_none = QLabel()
        self.grad_none.setStyleSheet(MUTED)
        self.grad_none.setWordWrap(True)
        show_value = node.kind not in (CONSTANT, VARIABLE)
        for w in (self.value_heading, self.value_view, self.value_none):
            w.setVisible(show_value)
            v.addWidget(w)
        for w in (self.grad_heading, self.grad_view, self.grad_none):
            v.addWidget(w)
        self.layout_.addWidget(box)
        self.finish()

    @property
    def node(self):
        return self.controller.doc.nodes[self.node_id]

    # -- editors -----------------------------------------------------------------------
    def _attr_editor(self, name, kind):
        c, nid = self.controller, self.node_id
        if kind == "bool":
            w = QCheckBox()
            w.toggled.connect(lambda v: self._set_attr(name, bool(v)))
            return w
        if kind == "int":
            w = QSpinBox()
            w.setRange(1 if name in ("units", "num") else -1_000_000, 1_000_000)
            w.setKeyboardTracking(False)
            w.valueChanged.connect(lambda v: self._set_attr(name, int(v)))
            return w
        if (name == "activation" and self.node.kind == LAYER) or kind == "dtype":
            w = QComboBox()
            w.addItems(catalog.ACTIVATIONS if kind != "dtype" else DTYPES[:-1])
            w.activated.connect(lambda i: self._set_attr(name, w.itemText(i)))
            return w

        def commit(value):
            problem = catalog.check_attr(kind, value)
            if problem:
                return problem
            if value != catalog.full_attrs(c.doc.nodes[nid]).get(name):
                self._set_attr(name, value)
            return None
        return LineField(lambda t: parse_attr(kind, t), commit, PLACEHOLDERS.get(kind, ""))

    def _set_attr(self, name, value):
        node = self.node
        old = catalog.full_attrs(node).get(name)
        if old == value and type(old) is type(value):
            return
        if node.kind == LAYER and name in ("units", "use_bias"):
            return self._set_layer_attr(name, value)
        self.controller.set_attr(self.node_id, name, value)

    def _set_label(self, text):
        if text != self.node.label:
            self.controller.set_field(self.node_id, "label", text)

    def _set_rule(self, rule):
        if rule == self.node.op:
            return

        def change(doc):
            node = doc.nodes[self.node_id]
            node.op = rule
            node.attrs = dict(catalog.CUSTOM_RULES[rule][0])
        self.controller.edit(f"Set {self.node_id} rule", change)

    def _set_shape(self, shape):
        node = self.node
        old = node.value
        shape = tuple(shape)
        if shape == old.shape:
            return None
        if any(n < 1 for n in shape):
            return "every axis needs at least one entry"
        size = int(np.prod(shape))
        if size > 1_000_000:
            return f"{size} values is too many for the editor (at most 1000000)"
        if size == old.size:
            text = (f"Reshape {node.id} from {shape_text(old.shape)} to {shape_text(shape)}? "
                    "The values are kept in row-major order.")
            new = old.reshape(shape)
        else:
            new = _resized(old, shape)
            kept = int(np.prod([min(a, b) for a, b in zip(old.shape, shape)])) \
                if old.ndim == len(shape) else 0
            text = (f"Resize {node.id} from {shape_text(old.shape)} to {shape_text(shape)}? "
                    f"{kept} of its {old.size} values are kept, "
                    f"{size - kept} new entries are set to 0.")
        if not self.inspector.confirm(text):
            self.shape.reset(attr_text("ints", list(old.shape)))
            return None
        self.controller.set_value(self.node_id, new)
        return None

    def _set_dtype(self, dtype):
        old = self.node.value
        if dtype == old.dtype.name:
            return
        new = old.astype(dtype)
        if not np.array_equal(new.astype(np.float64), old.astype(np.float64), equal_nan=True):
            if not self.inspector.confirm(
                    f"Converting {self.node_id} from {old.dtype.name} to {dtype} changes some "
                    "values (fractions are cut, nan becomes 0 or garbage). Convert anyway?"):
                _blocked(self.dtype, self.dtype.setCurrentText, old.dtype.name)
                return
        self.controller.set_value(self.node_id, new)

    # -- layers ------------------------------------------------------------------------
    def _layer_weights(self):
        node, c = self.node, self.controller
        box = QGroupBox("Weights")
        v = QVBoxLayout(box)
        v.setContentsMargins(8, 6, 8, 8)
        self.weight_box = box
        names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        self.weight_names = [n for n in names if n in node.weights]
        missing = [n for n in names if n not in node.weights]
        self.weight_missing = QLabel()
        self.weight_missing.setWordWrap(True)
        self.build_weights = QPushButton("Create weights")
        self.build_weights.clicked.connect(self._create_weights)
        self.input_width = QSpinBox()
        self.input_width.setRange(1, 4096)
        shape = self._input_shape()
        self.input_width.setValue(shape[-1] if shape else 2)
        self.input_width.setToolTip("The size of the input's last axis (features)")
        build_row = QHBoxLayout()
        build_row.addWidget(QLabel("for input features"))
        build_row.addWidget(self.input_width)
        build_row.addWidget(self.build_weights, 1)
        self.build_row = QWidget()
        self.build_row.setLayout(build_row)
        build_row.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.weight_missing)
        v.addWidget(self.build_row)
        self.weight_missing.setVisible(bool(missing))
        self.build_row.setVisible(bool(missing))
        if missing:
            self.weight_missing.setText(f"Missing weights: {', '.join(missing)}. Create them "
                                        "(Keras' initial values) for the input's width; the "
                                        "layer can be connected once it has weights.")
            self.weight_missing.setStyleSheet(ERROR_STYLE)
        self.weight_choice = QComboBox()
        self.weight_choice.addItems(self.weight_names)
        self.weight_editor = TensorEditor(box, fixed_shape=True)
        self.weight_choice.currentIndexChanged.connect(lambda _: self.refresh())
        self.weight_editor.valueEdited.connect(
            lambda a: c.set_value(self.node_id, a, weight=self.weight_choice.currentText()))
        row = QHBoxLayout()
        row.addWidget(QLabel("Weight"))
        row.addWidget(self.weight_choice, 1)
        v.addLayout(row)
        v.addWidget(self.weight_editor)
        self.weight_choice.setVisible(bool(self.weight_names))
        self.weight_editor.setVisible(bool(self.weight_names))
        self.layout_.addWidget(box)

    def _input_shape(self):
        ev = self.controller.result.evaluation
        edges = self.controller.doc.inputs_of(self.node_id)
        if ev is None or not edges or edges[0].src not in ev.values:
            return None
        return tuple(np.shape(ev.values[edges[0].src]))

    def _fitted_weights(self, node, attrs, input_shape):
        spec = catalog.LAYERS[node.op]
        shapes = spec.weight_shapes(attrs, input_shape) if input_shape else None
        if shapes is None:
            return None
        out = {}
        for name in spec.weight_names(attrs):
            old = node.weights.get(name)
            if old is None:
                out[name] = _fresh_weight(name, shapes[name])
            elif old.shape != shapes[name]:
                fill = 1.0 if name in ("gamma", "moving_variance") else 0.0
                out[name] = _resized(old, shapes[name], fill)
            else:
                out[name] = old
        return out

    def _create_weights(self):
        node = self.node
        shape = self._input_shape() or (self.input_width.value(),)
        weights = self._fitted_weights(node, catalog.full_attrs(node), shape)
        if weights is None:
            self.weight_missing.setText("The layer's input needs at least one axis.")
            return

        def change(doc):
            doc.nodes[self.node_id].weights = weights
        self.controller.edit(f"Create {self.node_id} weights", change)

    def _set_layer_attr(self, name, value):
        """units / use_bias change the weights' shapes: resize them in the same edit."""
        node = self.node
        attrs = {**catalog.full_attrs(node), name: value}
        weights = self._fitted_weights(node, attrs, self._input_shape())

        def change(doc):
            n = doc.nodes[self.node_id]
            n.attrs[name] = value
            if weights is not None:
                n.weights = weights
        self.controller.edit(f"Set {self.node_id}.{name}", change)

    # -- refresh -----------------------------------------------------------------------
    def refresh(self):
        if self.node_id not in self.controller.doc.nodes:
            return
        node, result = self.node, self.controller.result
        self.title.setText(node.label or node.id)
        if node.label:
            self.title.setText(f"{node.label}  <span style='font-weight:normal'>({node.id})"
                               "</span>")
        self.label.show_text(node.label)
        self.label.edit.setPlaceholderText(node.id)
        problems = result.node_problems.get(self.node_id, [])
        self.problems.setText("\n".join(f"⚠ {p}" for p in problems))
        self.problems.setVisible(bool(problems))
        if self.watched is not None:
            _blocked(self.watched, self.watched.setChecked, node.watched)
        if self.trainable is not None:
            _blocked(self.trainable, self.trainable.setChecked, node.trainable)
        if self.shape is not None and node.value is not None:
            self.shape.show_text(attr_text("ints", list(node.value.shape)))
            _blocked(self.dtype, self.dtype.setCurrentText, node.value.dtype.name)
        if node.kind == CUSTOM_GRADIENT:
            _blocked(self.rule, self.rule.setCurrentText, node.op)
        _, kinds = catalog.defaults_and_kinds(node)
        attrs = catalog.full_attrs(node)
        for name, w in self.attr_widgets.items():
            value = attrs.get(name)
            if isinstance(w, QCheckBox):
                _blocked(w, w.setChecked, bool(value))
            elif isinstance(w, QSpinBox):
                if not w.hasFocus() and isinstance(value, int):
                    _blocked(w, w.setValue, value)
            elif isinstance(w, QComboBox):
                _blocked(w, w.setCurrentText, str(value))
            else:
                w.show_text(attr_text(kinds[name], value))
        if self.value_editor is not None and node.value is not None:
            self.value_editor.set_array(node.value)
        if self.weight_box is not None and self.weight_names:
            name = self.weight_choice.currentText()
            if name in node.weights:
                self.weight_editor.set_array(node.weights[name])
        for (role, i), cb in self.role_boxes.items():
            _blocked(cb, cb.setChecked, Port(self.node_id, i) in getattr(self.controller.doc, role))
        self._refresh_result()

    def _refresh_result(self):
        node, result, doc = self.node, self.controller.result, self.controller.doc
        port = Port(self.node_id, self.result_port.currentData() or 0)
        ev = result.evaluation
        value = None if ev is None else ev.values.get(port)
        if node.kind not in (CONSTANT, VARIABLE):
            self.value_view.setVisible(value is not None)
            self.value_none.setVisible(value is None)
            if value is not None:
                self.value_view.set_array(value)
            else:
                self.value_none.setText("Not computed: the document cannot run this node yet.")
        grad, heading, why = None, "Gradient", ""
        targets = ", ".join(port_text(p) for p in doc.targets) or "the target"
        if port in doc.sources:
            heading = f"Gradient  d({targets}) / d({port_text(port)})"
            if ev is not None and port in ev.gradients:
                grad = ev.gradients[port]
                why = "None: this source is not connected to the target (TF returns None)."
            else:
                why = "Not computed: see the problems above." if result.problems else \
                    "Not computed yet."
        else:
            story = result.story
            step = None
            if story is not None and port in getattr(story, "_final", {}):
                step = story.steps[story._final[port]]
            if step is not None:
                heading = f"Cotangent  d({targets}) / d({port_text(port)})"
                grad = step.total if step.total is not None else step.cotangent
            elif not doc.targets:
                why = "No target yet: tick 'Target' on the output to differentiate."
            elif port in doc.targets:
                why = "This is the target; it is seeded with output_gradients (ones by default)."
            else:
                why = ("No gradient: tick 'Source' to ask the tape for the gradient with "
                       "respect to this output" + ("" if story else ", once the document runs")
                       + ".")
        self.grad_heading.setText(heading)
        self.grad_view.setVisible(grad is not None)
        self.grad_none.setVisible(grad is None)
        self.grad_none.setText(why)
        if grad is not None:
            self.grad_view.set_array(grad)


# -- the document -----------------------------------------------------------------------------
class DocumentPage(_Page):
    """Nothing (or several nodes) selected: title, lesson, tape, targets, sources, seeds."""

    @staticmethod
    def key_for(controller, selection):
        doc = controller.doc
        outputs = tuple((n.id, _outputs(n)) for n in doc.nodes.values())
        return ("doc", len(selection), outputs, tuple(doc.targets), tuple(doc.sources))

    def __init__(self, inspector, selection, key):
        super().__init__(inspector, key)
        c, doc = self.controller, self.controller.doc
        if len(selection) > 1:
            note = QLabel(f"{len(selection)} nodes selected. Select one node to edit it.")
            note.setStyleSheet(MUTED)
            self.layout_.addWidget(note)

        box, form = _group("Document")
        self.title = LineField(lambda t: t.strip(), self._set_title, "Untitled")
        form.addRow("Title", self.title)
        self.lesson = LessonEdit()
        self.lesson.setPlaceholderText("What this graph teaches (shown with the story)")
        self.lesson.setFixedHeight(90)
        self.lesson.committed.connect(self._set_lesson)
        form.addRow("Lesson", self.lesson)
        self.layout_.addWidget(box)

        # tape
        box, form = _group("Tape")
        self.persistent = QCheckBox("persistent")
        self.persistent.setToolTip("GradientTape(persistent=True): gradient() may be called "
                                   "more than once")
        self.persistent.toggled.connect(lambda v: c.set_tape(persistent=v))
        self.watch_accessed = QCheckBox("watch_accessed_variables")
        self.watch_accessed.setToolTip("Trainable variables are watched automatically when "
                                       "they are read inside the tape")
        self.watch_accessed.toggled.connect(lambda v: c.set_tape(watch_accessed_variables=v))
        form.addRow(self.persistent)
        form.addRow(self.watch_accessed)
        self.stop_list = self._check_list(
            [n for n in doc.nodes], "Nodes evaluated inside `with tape.stop_recording():`")
        self.stop_list.itemChanged.connect(self._stop_changed)
        form.addRow(QLabel("stop_recording around:"))
        form.addRow(self.stop_list)
        self.layout_.addWidget(box)

        # targets and sources
        ports = [Port(n.id, i) for n in doc.nodes.values() for i in range(_outputs(n))]
        box, form = _group("tape.gradient(targets, sources)")
        self.target_list = self._check_list([port_text(p) for p in ports],
                                            "Outputs to differentiate")
        self.source_list = self._check_list([port_text(p) for p in ports],
                                            "Outputs to differentiate with respect to")
        self.target_list.itemChanged.connect(lambda it: self._role_changed("targets", it))
        self.source_list.itemChanged.connect(lambda it: self._role_changed("sources", it))
        lists = QHBoxLayout()
        for title, w in (("Targets", self.target_list), ("Sources", self.source_list)):
            col = QVBoxLayout()
            col.addWidget(_heading(title))
            col.addWidget(w)
            lists.addLayout(col)
        form.addRow(lists)
        self.layout_.addWidget(box)

        # output_gradients
        self.seed_editors = {}
        if doc.targets:
            box = QGroupBox("output_gradients")
            v = QVBoxLayout(box)
            v.setContentsMargins(8, 6, 8, 8)
            hint = QLabel("The seed of the backward pass per target: the v of v·J.")
            hint.setWordWrap(True)
            hint.setStyleSheet(MUTED)
            v.addWidget(hint)
            for port in doc.targets:
                ones = QCheckBox(f"{port_text(port)}: use ones (default)")
                editor = TensorEditor(box, fixed_shape=True)
                ones.toggled.connect(lambda on, p=port: self._seed_toggled(p, on))
                editor.valueEdited.connect(lambda a, p=port: c.set_output_gradient(p, a))
                v.addWidget(ones)
                v.addWidget(editor)
                self.seed_editors[port] = (ones, editor)
            self.layout_.addWidget(box)

        # gradients
        self.grad_views = {}
        if doc.sources:
            box = QGroupBox("Gradients")
            v = QVBoxLayout(box)
            v.setContentsMargins(8, 6, 8, 8)
            for port in doc.sources:
                heading = _heading(f"d({', '.join(port_text(p) for p in doc.targets) or '?'})"
                                   f" / d({port_text(port)})")
                view = TensorEditor(box, read_only=True)
                none = QLabel()
                none.setStyleSheet(MUTED)
                none.setWordWrap(True)
                for w in (heading, view, none):
                    v.addWidget(w)
                self.grad_views[port] = (view, none)
            self.layout_.addWidget(box)

        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(ERROR_STYLE)
        self.problems.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.layout_.addWidget(self.problems)
        self.finish()

    def _check_list(self, names, tip):
        w = QListWidget()
        w.setToolTip(tip)
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Unchecked)
            w.addItem(item)
        rows = max(1, min(len(names), 6))
        w.setFixedHeight(rows * 20 + 6)
        return w

    def _set_title(self, text):
        if text != self.controller.doc.title:
            self.controller.set_meta(title=text)

    def _set_lesson(self, text):
        if text != self.controller.doc.lesson:
            self.controller.set_meta(lesson=text)

    def _stop_changed(self, item):
        ids = [self.stop_list.item(i).text() for i in range(self.stop_list.count())
               if self.stop_list.item(i).checkState() == Qt.Checked]
        if ids != list(self.controller.doc.tape.stop_recording):
            self.controller.set_tape(stop_recording=ids)

    def _role_changed(self, role, item):
        from ..graph.fileformat import parse_port
        port = parse_port(item.text(), role)
        checked = item.checkState() == Qt.Checked
        if checked != (port in getattr(self.controller.doc, role)):
            self.controller.toggle_port(role, port)

    def _target_shape(self, port):
        ev = self.controller.result.evaluation
        if ev is not None and port in ev.values:
            return np.shape(ev.values[port]), np.asarray(ev.values[port]).dtype
        return None, None

    def _seed_toggled(self, port, use_ones):
        if use_ones:
            self.controller.set_output_gradient(port, None)
            return
        shape, dtype = self._target_shape(port)
        if shape is None:
            self.controller.message.emit(f"'{port_text(port)}' has no value yet: its "
                                         "output_gradients shape is unknown")
            _blocked(self.seed_editors[port][0], self.seed_editors[port][0].setChecked, True)
            return
        dtype = dtype if dtype.kind == "f" else np.float32
        self.controller.set_output_gradient(port, np.ones(shape, dtype))

    def refresh(self):
        doc, result = self.controller.doc, self.controller.result
        self.title.show_text(doc.title)
        if not self.lesson.hasFocus() and self.lesson.toPlainText() != doc.lesson:
            self.lesson.setPlainText(doc.lesson)
        _blocked(self.persistent, self.persistent.setChecked, doc.tape.persistent)
        _blocked(self.watch_accessed, self.watch_accessed.setChecked,
                 doc.tape.watch_accessed_variables)
        stop = set(doc.tape.stop_recording)
        self._checks(self.stop_list, lambda t: t in stop)
        targets = {port_text(p) for p in doc.targets}
        sources = {port_text(p) for p in doc.sources}
        self._checks(self.target_list, lambda t: t in targets)
        self._checks(self.source_list, lambda t: t in sources)
        for port, (ones, editor) in self.seed_editors.items():
            given = doc.output_gradients.get(port)
            _blocked(ones, ones.setChecked, given is None)
            editor.setVisible(given is not None)
            if given is not None:
                editor.set_array(given)
        ev = result.evaluation
        for port, (view, none) in self.grad_views.items():
            grad = None if ev is None else ev.gradients.get(port)
            view.setVisible(grad is not None)
            none.setVisible(grad is None)
            if grad is not None:
                view.set_array(grad)
            elif ev is not None and port in ev.gradients:
                none.setText("None: not connected to the target (TF returns None).")
            else:
                none.setText("Not computed" + (": see the problems below." if result.problems
                                               else "."))
        problems = [str(p) for p in result.problems]
        self.problems.setText("\n".join(f"⚠ {p}" for p in problems[:8]))
        self.problems.setVisible(bool(problems))

    def _checks(self, w, checked):
        _blocked(w, lambda: [w.item(i).setCheckState(Qt.Checked if checked(w.item(i).text())
                                                     else Qt.Unchecked)
                             for i in range(w.count())])
