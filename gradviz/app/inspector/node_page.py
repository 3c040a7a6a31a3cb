"""The inspector page of one node: header, label, attributes, value or weights, roles, results."""
import html

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel,
                               QPushButton, QSpinBox, QWidget)

from ...engine.errors import counted
from ...engine.layers import glorot_limit
from ...graph import catalog
from ...graph.cut_paths import none_why
from ...graph.document import CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Port
from ...graph.names import node_name, objective_name, objective_note, port_names
from ...graph.tensors import DTYPES, MAX_RANK, dims
from ...render.port_labels import with_port_names
from ...story import dead_units
from .fields import (MUTED, PLACEHOLDERS, LineField, display_text, Page, attr_text, blocked,
                               bold_label, column_group, group, int_list, muted_label, output_count,
                               parse_attr, problems_label, show_problems)
from ..theme import ERROR_STYLE, WARN_STYLE
from .tensor_editor import TensorEditor


def _kind_text(node):
    if node.kind == OP:
        return f"op · {node.op}"
    if node.kind == LAYER:
        return f"layer · keras.layers.{node.op}"
    if node.kind == CUSTOM_GRADIENT:
        return f"custom gradient · {node.op}"
    return {CONSTANT: "constant · tf.constant", VARIABLE: "variable · tf.Variable"}[node.kind]


def _doc_of(node, doc):
    """What the node is, its op's operands named as its ports are (port_labels)."""
    if node.kind == OP and node.op in catalog.OPS:
        spec = catalog.OPS[node.op]
        return with_port_names(node, doc, f"{node.op}({', '.join(spec.inputs)}): {spec.doc}")
    if node.kind == LAYER and node.op in catalog.LAYERS:
        return f"keras.layers.{node.op}: {catalog.LAYERS[node.op].doc}"
    if node.kind == CUSTOM_GRADIENT and node.op in catalog.CUSTOM_RULES:
        return f"tf.custom_gradient, identity forward; backward: {catalog.CUSTOM_RULES[node.op][1]}"
    if node.kind == VARIABLE:
        return "a tf.Variable: a trainable variable is watched automatically"
    return "a tf.constant: its gradient is computed only when it is watched"


def _output_name(node, i):
    if node.kind == LAYER and i > 0 and node.op in catalog.LAYERS:
        names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        if i - 1 < len(names):
            return f"output {i} ({names[i - 1]})"
    return f"output {i}"


POSITIVE_INTS = ("units", "num", "input_dim", "output_dim")


def _fresh_weight(name, shape, seed=0):
    """Keras' initial values: glorot-uniform kernel, uniform(±0.05) embeddings, zero
    bias/beta/mean, unit gamma/variance."""
    if name == "kernel":
        limit = glorot_limit(shape)
        return np.random.default_rng(seed).uniform(-limit, limit, shape).astype(np.float32)
    if name == "embeddings":
        return np.random.default_rng(seed).uniform(-0.05, 0.05, shape).astype(np.float32)
    return np.full(shape, _initial_fill(name), np.float32)


def _initial_fill(name):
    return 1.0 if name in ("gamma", "moving_variance") else 0.0


def _resized(array, shape, fill=0.0):
    """`array` cut or padded (with `fill`) to `shape`, keeping the overlapping block."""
    out = np.full(shape, fill, array.dtype)
    if array.ndim == len(shape):
        block = tuple(slice(0, min(a, b)) for a, b in zip(array.shape, shape))
        out[block] = array[block]
    return out



def _no_gradient_why(node, name, ran):
    """Why a tensor that is neither target nor source shows no gradient, in the user's name:
    a constant reaches the tape only when watched (TF returns None for an unwatched one)."""
    if node.kind == CONSTANT and not node.watched:
        ask = f"tick 'Watched' and 'Source' to ask the tape for the gradient with respect to {name}"
    else:
        ask = f"tick 'Source' to ask the tape for the gradient with respect to {name}"
    return f"No gradient: {ask}" + ("" if ran else ", once the document runs") + "."

class NodePage(Page):
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
                tuple(node.weights), missing, output_count(node))

    def __init__(self, inspector, selection, key):
        super().__init__(inspector, key)
        self.node_id = selection[0]
        node = self.node
        c = self.controller

        # header
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)   # the name is escaped: shown as written
        f = self.title.font()
        f.setPointSizeF(f.pointSizeF() * 1.25)
        f.setBold(True)
        self.title.setFont(f)
        self.title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.subtitle = QLabel(_kind_text(node))
        self.doc_label = muted_label()
        self._show_doc(node)
        self.problems = problems_label()
        self.relu_units = muted_label()    # a relu's dead (or, one example's, off) units
        self.relu_units.setWordWrap(True)
        self.relu_units.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.relu_units.hide()
        for w in (self.title, self.subtitle, self.doc_label, self.problems, self.relu_units):
            self.layout_.addWidget(w)

        # properties
        box, form = group("Properties")
        self.label = LineField(display_text("label"), self._set_label)
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
            self.shape = LineField(int_list, self._set_shape, "e.g. 2, 3 (empty: a scalar)")
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
            box, form = group("Attributes")
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
            box, v = column_group("Value")
            self.value_editor = TensorEditor(box)
            self.value_editor.confirm = lambda text: self.inspector.confirm(text)
            self.value_editor.subject = lambda: (node_name(self.node),
                                                 self.inspector.keep_in_view(self.node_id))
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
        for i in range(output_count(node)):
            port = Port(self.node_id, i)
            row = QHBoxLayout()
            for role, text, tip in (
                    ("targets", "Target", "tape.gradient(target, …): differentiate this output"),
                    ("sources", "Source", "tape.gradient(…, source): the gradient with respect "
                                          "to this tensor")):
                cb = QCheckBox(text)
                cb.setToolTip(tip)
                cb.toggled.connect(lambda _, r=role, p=port: c.toggle_port(r, p))
                self.role_boxes[(role, i)] = cb
                row.addWidget(cb)
            row.addStretch(1)
            grid.addRow(_output_name(node, i) if output_count(node) > 1 else "", row)
        self.layout_.addWidget(box)

        # results
        box, v = column_group("Result")
        self.result_port = QComboBox()
        for i in range(output_count(node)):
            self.result_port.addItem(_output_name(node, i), i)
        self.result_port.currentIndexChanged.connect(lambda _: self.refresh())
        v.addWidget(self.result_port)  # parented first: a parentless widget shown is a window
        self.result_port.setVisible(output_count(node) > 1)
        self.value_heading = bold_label("Value")
        self.value_view = TensorEditor(box, read_only=True)
        self.value_none = muted_label()
        self.grad_heading = bold_label("Gradient")
        self.grad_note = muted_label()   # what ❬v, y❭ or Σy in the heading means
        self.grad_note.setWordWrap(True)
        self.grad_view = TensorEditor(box, read_only=True)
        self.grad_none = muted_label()
        show_value = node.kind not in (CONSTANT, VARIABLE)
        for w in (self.value_heading, self.value_view, self.value_none):
            v.addWidget(w)
            w.setVisible(show_value)
        for w in (self.grad_heading, self.grad_note, self.grad_view, self.grad_none):
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
            w.setRange(1 if name in POSITIVE_INTS else -1_000_000, 1_000_000)
            w.setKeyboardTracking(False)
            w.valueChanged.connect(lambda v: self._set_attr(name, int(v)))
            return w
        menu = catalog.choices(self.node.op, name)
        if menu or kind == "dtype":
            w = QComboBox()
            w.addItems(menu or DTYPES[:-1])
            w.activated.connect(lambda i: self._set_attr(name, w.itemText(i)))
            return w

        def commit(value):
            # The kind and the range the file format checks, so a saved file opens again.
            problem = catalog.check_attr(kind, value) or \
                catalog.attr_problem(c.doc.nodes[nid].op, name, value)
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
        if node.kind == LAYER and name in ("units", "use_bias", "filters", "kernel_size",
                                           "input_dim", "output_dim", "center", "scale"):
            return self._set_layer_attr(name, value)
        self.controller.set_attr(self.node_id, name, value)

    def _set_label(self, text):
        """A label typed. The name shown left as it is, or emptied where the node has no
        label (it is named by its id), sets nothing and shows the name again."""
        node = self.node
        if text in (node_name(node), node.label):
            self.label.reset(node_name(node))
            return
        self.controller.set_field(self.node_id, "label", text)

    def _set_rule(self, rule):
        if rule == self.node.op:
            return

        def change(doc):
            node = doc.nodes[self.node_id]
            node.op = rule
            node.attrs = dict(catalog.CUSTOM_RULES[rule][0])
        self.controller.edit(f"Set {self.controller.name(self.node_id)} rule", change)

    def _set_shape(self, shape):
        node = self.node
        old = node.value
        shape = tuple(shape)
        if shape == old.shape:
            return None
        if any(n < 1 for n in shape):
            return "every axis needs at least one entry"
        if len(shape) > MAX_RANK:
            return f"{len(shape)} axes: a tensor in a document has at most {MAX_RANK}"
        size = int(np.prod(shape))
        if size > 1_000_000:
            return f"{counted(size, 'value')} is too many for the editor (at most 1000000)"
        if size == old.size:
            text = (f"Reshape {self.controller.name(self.node_id)} from {dims(old.shape)} to {dims(shape)}? "
                    "The values are kept in row-major order.")
            new = old.reshape(shape)
        else:
            new = _resized(old, shape)
            kept = int(np.prod([min(a, b) for a, b in zip(old.shape, shape)])) \
                if old.ndim == len(shape) else 0
            text = (f"Resize {self.controller.name(self.node_id)} from {dims(old.shape)} to {dims(shape)}? "
                    f"{kept} of its {counted(old.size, 'value')} {'is' if kept == 1 else 'are'} kept, "
                    f"{counted(size - kept, 'new entry', 'new entries')} "
                    f"{'is' if size - kept == 1 else 'are'} set to 0.")
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
                    f"Converting {self.controller.name(self.node_id)} from {old.dtype.name} to {dtype} changes some "
                    "values (fractions are cut, nan becomes 0 or garbage). Convert anyway?"):
                blocked(self.dtype, self.dtype.setCurrentText, old.dtype.name)
                return
        self.controller.set_value(self.node_id, new)

    # -- layers ------------------------------------------------------------------------
    def _layer_weights(self):
        node, c = self.node, self.controller
        box, v = column_group("Weights")
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
        self.weight_editor.subject = lambda: (
            f"{node_name(self.node)}'s {self.weight_choice.currentText()}",
            self.inspector.keep_in_view(self.node_id))
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
                out[name] = _resized(old, shapes[name], _initial_fill(name))
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
        self.controller.edit(f"Create {self.controller.name(self.node_id)} weights", change)

    def _set_layer_attr(self, name, value):
        """units, filters, kernel_size, use_bias, input_dim, output_dim, center, scale change
        the weights' shapes or names: resize or make them in the same edit."""
        node = self.node
        attrs = {**catalog.full_attrs(node), name: value}
        weights = self._fitted_weights(node, attrs, self._input_shape())

        def change(doc):
            n = doc.nodes[self.node_id]
            n.attrs[name] = value
            if weights is not None:
                n.weights = weights
        self.controller.edit(f"Set {self.controller.name(self.node_id)}.{name}", change)

    def _show_doc(self, node):
        text = _doc_of(node, self.controller.doc)   # a rename elsewhere may rename an operand
        for widget in (self.subtitle, self.title):
            widget.setToolTip(text)
        self.doc_label.setText(text)

    # -- refresh -----------------------------------------------------------------------
    def refresh(self):
        if self.node_id not in self.controller.doc.nodes:
            return
        node, result = self.node, self.controller.result
        self._show_doc(node)
        # The node's name as the canvas writes it (its op is in the line below); ids are internal.
        self.title.setText(html.escape(node_name(node), quote=False))
        self.label.show_text(node_name(node))   # the name the canvas writes, as text (not a grey hint)
        show_problems(self.problems, result.node_problems.get(self.node_id, []))
        if self.watched is not None:
            blocked(self.watched, self.watched.setChecked, node.watched)
        if self.trainable is not None:
            blocked(self.trainable, self.trainable.setChecked, node.trainable)
        if self.shape is not None and node.value is not None:
            self.shape.show_text(attr_text("ints", list(node.value.shape)))
            blocked(self.dtype, self.dtype.setCurrentText, node.value.dtype.name)
        if node.kind == CUSTOM_GRADIENT:
            blocked(self.rule, self.rule.setCurrentText, node.op)
        _, kinds = catalog.defaults_and_kinds(node)
        attrs = catalog.full_attrs(node)
        for name, w in self.attr_widgets.items():
            value = attrs.get(name)
            if isinstance(w, QCheckBox):
                blocked(w, w.setChecked, bool(value))
            elif isinstance(w, QSpinBox):
                if not w.hasFocus() and isinstance(value, int):
                    blocked(w, w.setValue, value)
            elif isinstance(w, QComboBox):
                blocked(w, w.setCurrentText, str(value))
            else:
                w.show_text(attr_text(kinds[name], value))
        if self.value_editor is not None and node.value is not None:
            self.value_editor.set_array(node.value)
        if self.weight_box is not None and self.weight_names:
            name = self.weight_choice.currentText()
            if name in node.weights:
                self.weight_editor.set_array(node.weights[name])
        for (role, i), cb in self.role_boxes.items():
            blocked(cb, cb.setChecked, Port(self.node_id, i) in getattr(self.controller.doc, role))
        self._refresh_result()

    def _show_relu_units(self, node, value):
        """What the card's '⚠ dead relu …' (or '✕ relu off for this example …') says, in words
        that name the node: amber where it is a warning (dead for the whole batch)."""
        text = dead_units.in_words(node_name(node), value) \
            if value is not None and dead_units.is_relu_node(node) else ""
        warning = bool(text) and bool(dead_units.warning(value))
        self.relu_units.setText(("⚠ " if warning else "") + text)
        self.relu_units.setStyleSheet(WARN_STYLE if warning else MUTED)
        self.relu_units.setVisible(bool(text))

    def _refresh_later(self):
        if self.inspector.page is self:
            self._refresh_result(story_now=True)

    def _refresh_result(self, story_now=False):
        """The value and the gradient (a cotangent from the story for a node that is not a
        source). `story_now`: the canvas has painted, the story may be assembled."""
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
        self._show_relu_units(node, None if ev is None else ev.values.get(Port(self.node_id, 0)))
        grad, heading, why, note = None, "Gradient", "", ""
        shown = port_names(doc, [*doc.targets, port])   # the reader's names, not ids
        values = None if ev is None else ev.values
        objective = objective_name(doc, values, lambda _, p: shown[p])
        objective_words = objective_note(doc, values, lambda _, p: shown[p])
        if port in doc.sources:
            if doc.targets:
                heading = f"Gradient  ∂{objective} / ∂{shown[port]}"
                note = objective_words
            if ev is not None and port in ev.gradients:
                grad = ev.gradients[port]
                why = none_why(doc, ev.values, port)
            else:
                why = "Not computed: see the problems above." if result.problems else \
                    "Not computed yet."
        else:
            story = None
            if story_now or result.story_ready or not self.inspector.after_repaint(self._refresh_later):
                story = result.story   # (assembling it waits until the canvas has painted)
            step = None
            if story is not None and port in getattr(story, "_final", {}):
                step = story.steps[story._final[port]]
            if step is not None:
                heading = f"Cotangent  ∂{objective} / ∂{shown[port]}"
                note = objective_words
                grad = step.total if step.total is not None else step.cotangent
            elif not doc.targets:
                why = "No target yet: tick 'Target' on the output to differentiate."
            elif port in doc.targets:
                why = "This is the target; it is seeded with output_gradients (ones by default)."
            elif story is None and result.evaluation is not None and not result.story_ready:
                why = "…"    # the cotangent follows in a moment
            else:
                why = _no_gradient_why(node, shown[port], ran=story is not None)
        self.grad_heading.setText(heading)
        self.grad_note.setText(note)
        self.grad_note.setVisible(bool(note))
        self.grad_view.setVisible(grad is not None)
        self.grad_none.setVisible(grad is None)
        self.grad_none.setText(why)
        if grad is not None:
            self.grad_view.set_array(grad)


