"""The Jacobian of a target w.r.t. a source, as a matrix, with its two checks:
summed over the target's axes it is the gradient, and Jᵀv is the VJP that
output_gradients asks for (seed 001, "Jacobians"; seed 002).
"""
import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ...graph.tensors import dims as _shape
from ...story import studies
from ...story.numbers import line_format, writer
from ._base import StudyView, check_mark, compared, preview
from .choosers import PortChooser, rich_names, study_ports
from .applies import missing_roles
from .banners import banner, set_banner
from .heatmap import Heatmap
from .plots_and_words import beside_words

CHECK_TOLERANCE = 1e-5


class JacobianView(StudyView):
    title = "Jacobian"
    MIN_SIZE = (560, 240)

    def __init__(self, controller, parent=None):
        super().__init__(controller, parent)
        self.target_box, self.source_box = PortChooser(), PortChooser()
        self.layout_.addLayout(self.chooser_row(("Target", self.target_box),
                                                ("w.r.t. source", self.source_box)))
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.RichText)   # the names are escaped
        self.caption.setWordWrap(True)
        self.layout_.addWidget(self.busy)
        self.layout_.addWidget(self.message)
        self.heatmap = Heatmap("target index (flattened)", "source index (flattened)",
                               colorbar_label="")   # named by the study shown
        self.sum_check, self.vjp_check = banner("info"), banner("info")
        # the sum's check is key words: at 1024 x 768 it lay below the fold under the caption
        self.layout_.addWidget(beside_words((self.heatmap,), (self.caption, self.sum_check,
                                                              self.vjp_check), (2, 3),
                                            keys=(self.sum_check,)), 1)
        self.update_choosers()

    def update_choosers(self):
        doc = self.controller.doc
        self.target_box.set_ports(doc, study_ports(doc, "jacobian", "targets"))
        self.source_box.set_ports(doc, study_ports(doc, "jacobian", "sources"))

    def cotangent(self, target):
        """v for the Jᵀv check: the document's output_gradients for the target, else ones."""
        v = self.controller.doc.output_gradients.get(target)
        if v is not None:
            return np.asarray(v), "the document's output_gradients"
        value = self.value_of(target)
        if value is None:
            return None, "ones"
        return np.ones(np.shape(value), np.asarray(value).dtype), "ones (no output_gradients set)"

    def job(self):
        target, source = self.target_box.port(), self.source_box.port()
        missing = missing_roles(("a target", target), ("a source", source))
        if missing:
            return self._show_not_applicable(missing)
        doc = self.doc_copy()
        v, self._v_text = self.cotangent(target)
        t_val, s_val = self.value_of(target), self.value_of(source)
        size = (np.size(t_val) * np.size(s_val)) if t_val is not None and s_val is not None else 0
        self._names = rich_names(self.target_box, self.source_box)
        self._shapes = (np.shape(t_val), np.shape(s_val))
        return (lambda: studies.jacobian_study(doc, target=target, source=source, v=v)), size

    def show_result(self, study):
        t_name, s_name = self._names
        s_shape = study.gradient.shape
        J = study.jacobian
        t_shape = J.shape[:J.ndim - len(s_shape)]
        t_size, s_size = int(np.prod(t_shape, dtype=int)), int(np.prod(s_shape, dtype=int))
        self.heatmap.set_matrix(J.reshape(t_size, s_size), t_shape, s_shape, (t_name, s_name))
        # every form true as written: a name cut to 'layer…' read as another name
        self.heatmap.set_labels((f"{t_name} index", "index"),
                                (f"{s_name} index (flat indices; shapes above)",
                                 f"{s_name} index", "index"))
        self.heatmap.set_colorbar_label(f"∂{t_name} / ∂{s_name}",
                                        "J[i, j]")      # the caption says what J is, never cut
        self.caption.setText(
            f"J = ∂{t_name}/∂{s_name} has shape {_shape(J.shape)}; shown as a "
            f"{t_size} × {s_size} matrix, one row per element of {t_name}, one column per "
            f"element of {s_name}.{self.heatmap.colour_key()}")
        number = line_format(study.max_difference, study.vjp_difference)
        # the two sides of a check in one card format, the one their cards use: 0.034, never
        # 3.359×10⁻² beside 0.220 because a difference of 10⁻⁸ shares the line
        sides = writer(np.concatenate([np.ravel(study.summed), np.ravel(study.gradient)]))
        vjps = writer(np.concatenate([np.ravel(study.jtv), np.ravel(study.vjp)]))
        tolerance = CHECK_TOLERANCE * max(1.0, float(np.abs(J[np.isfinite(J)]).max(initial=0)))
        ok, difference = compared(study.summed, study.gradient, tolerance, number)
        set_banner(self.sum_check, "ok" if ok else "warning",
                   f"<b>Σ over target axes = gradient {check_mark(ok)}</b> "
                   f"Summing J over the axes of {t_name} gives {preview(study.summed, number=sides)}; "
                   f"tape.gradient({t_name}, {s_name}) gives {preview(study.gradient, number=sides)}."
                   f"<br>{difference}")
        ok_v, difference = compared(study.jtv, study.vjp, tolerance, number)
        set_banner(self.vjp_check, "ok" if ok_v else "warning",
                   f"<b>Jᵀv = VJP {check_mark(ok_v)}</b> "
                   f"With v = {self._v_text}, contracting J with v gives {preview(study.jtv, number=vjps)}; "
                   f"tape.gradient(…, output_gradients=v) gives {preview(study.vjp, number=vjps)}."
                   f"<br>{difference}")

    def clear_result(self):
        self.heatmap.clear()
        for label in (self.sum_check, self.vjp_check):
            set_banner(label, "info", "")
        self.caption.setText("")

