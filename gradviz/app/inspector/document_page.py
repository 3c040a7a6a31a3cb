"""The inspector page of the document: title, lesson, tape, targets, sources, seeds, gradients."""
import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QStyle, QVBoxLayout,
                               QWidget)

from ...graph.cut_paths import none_why
from ...graph.document import Port, text_problem
from ...graph.names import objective_name, objective_note, port_names, unique_names
from ...graph.ports import parse_port, port_text
from .fields import (MUTED, LessonEdit, LineField, Page, blocked, bold_label, display_text,
                               column_group, group, muted_label, output_count, problems_label,
                               show_problems)
from .tensor_editor import TensorEditor
from ..literal import mnemonic_free


def check_row_height(widget):
    """A row of a list of ticks, tall enough for its box and a line of its font with room
    for descenders (rows of the style's 14 px overlapped their boxes and cut 'tf_t'
    to 'tf t')."""
    style = widget.style()
    box = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorHeight, None, widget)
    return max(box, widget.fontMetrics().height()) + 6


class DocumentPage(Page):
    """Nothing (or several nodes) selected: title, lesson, tape, targets, sources, seeds."""

    @staticmethod
    def key_for(controller, selection):
        doc = controller.doc
        outputs = tuple((n.id, output_count(n)) for n in doc.nodes.values())
        return ("doc", len(selection), outputs, tuple(doc.targets), tuple(doc.sources))

    def __init__(self, inspector, selection, key):
        super().__init__(inspector, key)
        c, doc = self.controller, self.controller.doc
        if len(selection) > 1:
            note = QLabel(f"{len(selection)} nodes selected. Select one node to edit it.")
            note.setStyleSheet(MUTED)
            self.layout_.addWidget(note)

        box, form = group("Document")
        self.title = LineField(display_text("title"), self._set_title, "Untitled")
        form.addRow("Title", self.title)
        self.lesson = LessonEdit()
        self.lesson.setPlaceholderText("What this graph teaches (shown with the story)")
        self.lesson.setFixedHeight(90)
        self.lesson.committed.connect(self._set_lesson)
        self.lesson_error = problems_label()
        self.lesson_error.hide()
        lesson_box = QWidget()
        lesson_column = QVBoxLayout(lesson_box)
        lesson_column.setContentsMargins(0, 0, 0, 0)
        lesson_column.setSpacing(1)
        lesson_column.addWidget(self.lesson)
        lesson_column.addWidget(self.lesson_error)
        form.addRow("Lesson", lesson_box)
        self.layout_.addWidget(box)

        # tape
        box, form = group("Tape")
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
        names = unique_names(doc)
        self.stop_list = self._check_list(
            [(names[n], n) for n in doc.nodes], "Nodes evaluated inside `with tape.stop_recording():`")
        self.stop_list.itemChanged.connect(self._stop_changed)
        form.addRow(QLabel("stop_recording around:"))
        form.addRow(self.stop_list)
        self.layout_.addWidget(box)

        # targets and sources
        ports = [Port(n.id, i) for n in doc.nodes.values() for i in range(output_count(n))]
        shown = port_names(doc, [*ports, *doc.targets, *doc.sources])
        self.shown = shown
        box, form = group("tape.gradient(targets, sources)")
        self.target_list = self._check_list([(shown[p], port_text(p)) for p in ports],
                                            "Outputs to differentiate")
        self.source_list = self._check_list([(shown[p], port_text(p)) for p in ports],
                                            "Outputs to differentiate with respect to")
        self.target_list.itemChanged.connect(lambda it: self._role_changed("targets", it))
        self.source_list.itemChanged.connect(lambda it: self._role_changed("sources", it))
        lists = QHBoxLayout()
        for title, w in (("Targets", self.target_list), ("Sources", self.source_list)):
            col = QVBoxLayout()
            col.addWidget(bold_label(title))
            col.addWidget(w)
            lists.addLayout(col)
        form.addRow(lists)
        self.layout_.addWidget(box)

        # output_gradients
        self.seed_editors = {}
        if doc.targets:
            box, v = column_group("output_gradients")
            hint = muted_label("The seed of the backward pass per target: the v of vᵀJ.")
            v.addWidget(hint)
            for port in doc.targets:
                ones = QCheckBox(f"{mnemonic_free(shown[port])}: use ones (default)")
                editor = TensorEditor(box, fixed_shape=True)
                editor.subject = lambda p=port: (f"the seed of {self.shown[p]}",
                                                 inspector.keep_in_view(p.node))
                ones.toggled.connect(lambda on, p=port: self._seed_toggled(p, on))
                editor.valueEdited.connect(lambda a, p=port: c.set_output_gradient(p, a))
                v.addWidget(ones)
                v.addWidget(editor)
                self.seed_editors[port] = (ones, editor)
            self.layout_.addWidget(box)

        # gradients
        self.grad_views, self.grad_headings = {}, {}
        if doc.sources:
            box, v = column_group("Gradients")
            self.objective_note = muted_label()   # what ❬v, y❭ or Σy means (refresh)
            self.objective_note.setWordWrap(True)
            v.addWidget(self.objective_note)
            for port in doc.sources:
                heading = bold_label("")   # ∂(what the tape differentiates) / ∂source (refresh)
                view = TensorEditor(box, read_only=True)
                none = muted_label()
                for w in (heading, view, none):
                    v.addWidget(w)
                self.grad_views[port] = (view, none)
                self.grad_headings[port] = heading
            self.layout_.addWidget(box)

        self.problems = problems_label()
        self.layout_.addWidget(self.problems)
        self.finish()

    def _check_list(self, names, tip):
        """A list of (name shown, key) items to tick: the reader's names, the file's keys."""
        w = QListWidget()
        w.setToolTip(tip)
        row = check_row_height(w)
        for name, key in names:
            item = QListWidgetItem(name)
            item.setData(Qt.UserRole, key)
            item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Unchecked)
            item.setSizeHint(QSize(w.fontMetrics().horizontalAdvance(name) + 2 * row, row))
            w.addItem(item)
        rows = max(1, min(len(names), 6))
        w.setFixedHeight(rows * row + 2 * w.frameWidth())
        return w

    def _set_title(self, text):
        if text != self.controller.doc.title:
            self.controller.set_meta(title=text)

    def _set_lesson(self, text):
        """A lesson over the limit stays in the box (nothing typed is lost), with the
        reason under it, and is not put in the document."""
        problem = text_problem("lesson", text)
        self.lesson_error.setText(problem[0].upper() + problem[1:] if problem else "")
        self.lesson_error.setVisible(bool(problem))
        if not problem and text != self.controller.doc.lesson:
            self.controller.set_meta(lesson=text)

    def _stop_changed(self, item):
        ids = [self.stop_list.item(i).data(Qt.UserRole) for i in range(self.stop_list.count())
               if self.stop_list.item(i).checkState() == Qt.Checked]
        if ids != list(self.controller.doc.tape.stop_recording):
            self.controller.set_tape(stop_recording=ids)

    def _role_changed(self, role, item):
        port = parse_port(item.data(Qt.UserRole), role)
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
            self.controller.message.emit(f"'{self.shown.get(port, port_text(port))}' has no value yet: its "
                                         "output_gradients shape is unknown")
            blocked(self.seed_editors[port][0], self.seed_editors[port][0].setChecked, True)
            return
        dtype = dtype if dtype.kind == "f" else np.float32
        self.controller.set_output_gradient(port, np.ones(shape, dtype))

    def refresh(self):
        doc, result = self.controller.doc, self.controller.result
        self.title.show_text(doc.title)
        if (not self.lesson.hasFocus() and not self.lesson_error.isVisible()
                and self.lesson.toPlainText() != doc.lesson):
            self.lesson.setPlainText(doc.lesson)
        blocked(self.persistent, self.persistent.setChecked, doc.tape.persistent)
        blocked(self.watch_accessed, self.watch_accessed.setChecked,
                 doc.tape.watch_accessed_variables)
        stop = set(doc.tape.stop_recording)
        self._checks(self.stop_list, lambda t: t in stop)
        targets = {port_text(p) for p in doc.targets}
        sources = {port_text(p) for p in doc.sources}
        self._checks(self.target_list, lambda t: t in targets)
        self._checks(self.source_list, lambda t: t in sources)
        for port, (ones, editor) in self.seed_editors.items():
            given = doc.output_gradients.get(port)
            blocked(ones, ones.setChecked, given is None)
            editor.setVisible(given is not None)
            if given is not None:
                editor.set_array(given)
        ev = result.evaluation
        values = None if ev is None else ev.values
        objective = objective_name(doc, values, self._named)
        if self.grad_views:
            note = objective_note(doc, values, self._named)
            self.objective_note.setText(note)
            self.objective_note.setVisible(bool(note))
        for port, heading in self.grad_headings.items():
            heading.setText(f"∂{objective} / ∂{self.shown[port]}" if doc.targets
                            else f"Gradient of {self.shown[port]}: no target yet")
        for port, (view, none) in self.grad_views.items():
            grad = None if ev is None else ev.gradients.get(port)
            view.setVisible(grad is not None)
            none.setVisible(grad is None)
            if grad is not None:
                view.set_array(grad)
            elif ev is not None and port in ev.gradients:
                none.setText(none_why(doc, ev.values, port))
            else:
                none.setText("Not computed" + (": see the problems below." if result.problems
                                               else "."))
        show_problems(self.problems, result.problems[:8], with_place=True)

    def _named(self, doc, port):
        """A port's name as this page's lists write it (unique: x, x_1)."""
        return self.shown.get(port) or port_text(port)

    def _checks(self, w, checked):
        """Tick the items `checked` accepts; only the items whose tick changes are touched
        (a 100-node document has 300 of them, refreshed on every edit)."""
        def apply():
            for i in range(w.count()):
                item = w.item(i)
                state = Qt.Checked if checked(item.data(Qt.UserRole)) else Qt.Unchecked
                if item.checkState() != state:
                    item.setCheckState(state)
        blocked(w, apply)
