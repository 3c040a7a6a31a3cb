"""The Hessian of a scalar loss w.r.t. one variable, its checks (symmetry, eigenvalues)
and the Newton step x ← x − (H + εI)⁻¹ g applied as one undoable edit (seed 001,
"Hessian"; seed 000, a layer's Hessian).
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QLabel, QPushButton

from ...engine.errors import counted
from ...graph import catalog
from ...graph.document import CONSTANT, LAYER, VARIABLE
from ...graph.names import objective_term, taken
from ...graph.flat_newton import DAMPED_SHARE, gradient_step_words, share_text, singular_step_words
from ...story import studies
from ...story.numbers import alone, line_format
from ._base import StudyView, _html
from .choosers import PortChooser, rich_names, study_ports
from .applies import missing_roles
from .banners import banner, set_banner
from .heatmap import Heatmap
from .plot_style import DIVERGING, TEXT, CountAxis, IndexAxis, still_plot
from .jacobian_view import _shape
from .plots_and_words import PLOT_USABLE_H, PlotsAndWords, word_column

DEFAULT_EPS = 1e-3
ZERO_SHARE = studies.EIGENVALUE_RTOL  # within this share of the largest |λ|: zero
PLOT_GAP = 18          # px between the heatmap's colour bar and the eigenvalues' axis


def stored_value(doc, port):
    """(node id, weight name or None) holding the value of `port`, or None when the port
    is computed by an op and has no stored value to update."""
    node = doc.nodes.get(port.node)
    if node is None:
        return None
    if node.kind in (CONSTANT, VARIABLE) and port.index == 0:
        return node.id, None
    if node.kind == LAYER and port.index >= 1:
        names = catalog.LAYERS[node.op].weight_names(catalog.full_attrs(node))
        return node.id, names[port.index - 1]
    return None


class EpsilonBox(QDoubleSpinBox):
    """ε's box as wide as the number it shows (0.000000 at least), not as its range's widest,
    1000000.000000: so wide, at 1280 x 800 it pushed Export View… to a row of its own in a
    study beside the palette, 26 px that the Hessian's heatmap lacked."""

    def __init__(self):
        super().__init__()
        self.valueChanged.connect(self.updateGeometry)

    def sizeHint(self):
        hint = super().sizeHint()
        metrics = self.fontMetrics()
        widest = max(metrics.horizontalAdvance(self.textFromValue(v)) for v in (self.minimum(), self.maximum()))
        shown = max(metrics.horizontalAdvance(self.textFromValue(v)) for v in (0.0, self.value()))
        hint.setWidth(hint.width() - widest + shown)
        return hint

    def minimumSizeHint(self):
        return self.sizeHint()


class HessianView(StudyView):
    title = "Hessian"
    MIN_SIZE = (820, 240)
    shows_problem = True         # in the symmetry banner, with the heatmap of where

    def __init__(self, controller, parent=None):
        super().__init__(controller, parent)
        self.source_box, self.target_box = PortChooser(), PortChooser()
        self.eps_box = EpsilonBox()
        self.eps_box.setDecimals(6)
        self.eps_box.setRange(0.0, 1e6)
        self.eps_box.setSingleStep(1e-3)
        self.eps_box.setValue(DEFAULT_EPS)
        self.eps_box.setToolTip("Damping: the step solves (H + εI) u = g; where H + εI is 0 "
                                "(ε = 0 on a singular H), only along the directions where it is not")
        self.eps_box.valueChanged.connect(self._choice_changed)
        self.newton_button = QPushButton("Newton step")
        self.newton_button.setToolTip("x ← x − (H + εI)⁻¹ g, one undoable edit")
        self.newton_button.clicked.connect(self.apply_newton_step)
        # ε and the step with the choosers: in view at the dock's top (below the banners a
        # 1280 x 800 window had to scroll to them)
        self.layout_.addLayout(self.chooser_row(("Variable", self.source_box),
                                                ("loss", self.target_box),
                                                controls=((QLabel("ε"), self.eps_box),
                                                          (self.newton_button,))))
        self.layout_.addWidget(self.busy)
        self.layout_.addWidget(self.message)
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.RichText)   # the names are escaped
        self.caption.setWordWrap(True)
        self.layout_.addWidget(self.caption)

        self.split = split = PlotsAndWords()
        split.setHandleWidth(PLOT_GAP)      # the colour bar's title reads as the heatmap's
        self.heatmap = Heatmap("i", "j (flat indices)", colorbar_label="")  # named when shown
        split.addWidget(self.heatmap)
        self.eigen_plot = still_plot(CountAxis("left"), "λₖ", "k (ascending)",
                                     IndexAxis("bottom"))
        self.eigen_plot.setTitle("Eigenvalues of H", color=TEXT, size="11pt")
        self.eigen_plot.addItem(pg.InfiniteLine(0, angle=0, pen=pg.mkPen("#555555", width=1,
                                                                        style=Qt.DashLine)))
        self.eigen_curve = pg.ScatterPlotItem(size=7, pen=pg.mkPen(TEXT, width=0.8))
        self._brushes = [pg.mkBrush(c) for c in (DIVERGING[0], "#ffffff", DIVERGING[-1])]
        self.eigen_plot.addItem(self.eigen_curve)
        self.eigen_plot.setMinimumSize(220, PLOT_USABLE_H)
        split.addWidget(self.eigen_plot)
        self.symmetry = banner("info")
        self.definite = banner("info")
        self.step_text = QLabel()
        self.step_text.setTextFormat(Qt.TextFormat.RichText)   # the names are escaped
        self.step_text.setWordWrap(True)
        # the verdict on the Newton step is key words too: in view whenever its check is
        self.caption_more = QLabel()       # stacked, the caption after its first sentence
        self.caption_more.setTextFormat(Qt.TextFormat.RichText)
        self.caption_more.setWordWrap(True)
        self._caption = ("", "", "")     # stacked (above the plots, after the verdict), whole
        split.addWidget(word_column(self.symmetry, self.definite, self.caption_more, self.step_text,
                                    keys=(self.definite,)))
        split.set_shares((2, 2, 3))   # the heatmap as wide as its square; the words, to read in a low dock
        self.layout_.addWidget(split, 1)
        self._doc_for_eps = None
        self.newton_ok = False
        self.update_choosers()

    def arrange(self):
        super().arrange()
        self._show_caption()

    def _show_caption(self):
        """Stacked (a column beside the palette), the caption's first sentence (and what black
        means) stands above the plots and the rest follows the verdict in the word column:
        its four lines above took 56 px, 28 of which the 40 x 40 H, its eigenvalues and its
        verdict lacked at 1280 x 800. Side by side the whole caption stands above the plots."""
        what, rest, whole = self._caption
        stacked = self.stacked()
        whole = what if stacked else whole
        if self.caption.text() != whole:
            self.caption.setText(whole)
        more = rest if stacked else ""
        if self.caption_more.text() != more:
            self.caption_more.setText(more)
        self.caption_more.setVisible(bool(more))

    def update_choosers(self):
        doc = self.controller.doc
        self.source_box.set_ports(doc, study_ports(doc, "hessian", "sources"))
        self.target_box.set_ports(doc, study_ports(doc, "hessian", "targets"))
        if self._doc_for_eps is not doc and "newton_eps" in doc.studies.get("hessian", {}):
            self.eps_box.blockSignals(True)
            self.eps_box.setValue(float(doc.studies["hessian"]["newton_eps"]))
            self.eps_box.blockSignals(False)
        self._doc_for_eps = doc

    def job(self):
        target, source = self.target_box.port(), self.source_box.port()
        missing = missing_roles(("a loss (a target)", target), ("a variable (a source)", source))
        if missing:
            return self._show_not_applicable(missing)
        doc = self.doc_copy()
        eps = self.eps_box.value()
        t_name, s_name = rich_names(self.target_box, self.source_box)
        # the inner tape sums a target that is not a scalar: H is of Σt (graph.names)
        self._names = (objective_term(t_name, taken(self.value_of(target))), s_name)
        self._ports = (target, source)
        s_val = self.value_of(source)
        size = np.size(s_val) ** 2 if s_val is not None else 0
        return (lambda: studies.hessian_study(doc, target=target, source=source,
                                              epsilon=eps)), size

    def show_result(self, study):
        t_name, s_name = self._names
        H = study.hessian
        n = H.shape[0]
        shape = study.x_new.shape
        if shape:
            self._show_matrix(H, shape, t_name, s_name)
        else:       # a scalar: H is one number, said as one ('flat index into delta ()' was not)
            self.heatmap.clear()
            self.heatmap.setHidden(True)       # (set_matrix shows it again for entries)
            self.heatmap.describe = lambda r, c: (f"∂²{t_name}/∂{s_name}² = {alone(H[r, c])}",
                                                  f"H = {alone(H[r, c])}")
            said = (f"H = ∂²{t_name}/∂{s_name}² = {alone(H[0, 0]) if study.finite else 'NaN or infinity'}: "
                    f"{s_name} is a scalar, so H is one number, the outer tape's derivative of the "
                    f"inner tape's gradient, and its one eigenvalue.")
            self._caption = (said, "", said)
            self._show_caption()
        # one eigenvalue is said as a value (the definite banner), not plotted on a 0-wide axis
        self.eigen_plot.setVisible(study.finite and n > 1)
        self.definite.setVisible(study.finite)
        self.symmetry.setVisible(True)
        if not study.finite:
            return self._show_not_finite(study)
        scale = max(1.0, float(np.abs(H).max(initial=0)))
        sym_ok = study.symmetry_error <= 1e-5 * scale
        eig = study.eigenvalues
        zero = zero_tolerance(eig)
        step, g = np.linalg.norm(study.newton_step), np.linalg.norm(study.gradient)
        number = line_format(study.symmetry_error, eig[:1], eig[-1:], zero, step, g,
                             study.epsilon, g / study.epsilon if study.epsilon else None)
        set_banner(self.symmetry, "ok" if sym_ok else "warning",
                   f"<b>Symmetry</b> {'✓' if sym_ok else '✗'} max |H − Hᵀ| = "
                   f"{number(study.symmetry_error)}" if n > 1 else "")   # one number: none to check
        self.symmetry.setVisible(n > 1)
        sign = np.where(eig < -zero, 0, np.where(eig > zero, 2, 1))
        brushes = [self._brushes[k] for k in sign.tolist()]   # 3 brushes: 3 symbols to draw
        self.eigen_curve.setData(x=np.arange(len(eig)), y=eig, brush=brushes)
        self.eigen_plot.getAxis("bottom").count = len(eig)    # ticks at k = 0 … n-1 only
        self.eigen_plot.setXRange(-0.5, max(len(eig) - 0.5, 0.5), padding=0.02)
        kind, verdict, self.newton_ok = newton_verdict(study, zero, number)
        span = (f"one eigenvalue, H itself: λ = {number(eig[0])}" if eig.size == 1 else
                f"min {number(eig[0]) if eig.size else '–'}, max {number(eig[-1]) if eig.size else '–'}")
        # the verdict first, the numbers after it: in a low box the warning reads from its
        # start (at 1440 x 900 it showed '…need not point downhill' under the numbers)
        head, _, rest = verdict.partition(". ")     # its first sentence the headline, key words
        set_banner(self.definite, kind,
                   f"<b>{head}{'.' if rest else ''}</b>{' ' + rest if rest else ''}<br>"
                   f"{span}{f' (|λ| ≤ {number(zero)} counts as 0)' if zero > 0 else ''}")
        target = stored_value(self.controller.doc, self._ports[1])
        self.newton_button.setEnabled(target is not None and self.newton_ok)
        inverse = "(H + εI)⁺ g" if study.left_out else "(H + εI)⁻¹ g"
        self.newton_button.setToolTip(
            f"{s_name} is computed by an op: there is no stored value to update"
            if target is None else
            "H is zero: there is no Newton step to take" if not self.newton_ok else
            f"x ← x − {inverse}, one undoable edit")
        formula = (f"(H + {number(study.epsilon)}·I)⁺ g (⁺: inverted where |λ + ε| > "
                   f"{number(zero)})" if study.left_out else
                   f"(H + {number(study.epsilon)}·I)⁻¹ g")
        self.step_text.setText(
            f"Step {formula}: |step| = {number(step)}, |g| = {number(g)}. "
            f"{self._last_step or ''}")

    _last_step = ""

    def _show_matrix(self, H, shape, t_name, s_name):
        """H of a source with entries: a heatmap over flat indices, its words."""
        n = H.shape[0]
        self.heatmap.set_matrix(H, shape, shape, (f"²{t_name}", f"{s_name}"))

        def described(r, c):      # longest first: the readout shows what its width holds
            named = (f"∂²{t_name} / ∂{s_name}[{_idx(r, shape)}] ∂{s_name}[{_idx(c, shape)}] = "
                     f"{alone(H[r, c])}")
            return f"{named}    (row {r}, col {c})", named, f"H[{r}, {c}] = {alone(H[r, c])}"
        self.heatmap.describe = described
        # both axes titled alike: a lone 'i', rotated, read as a dash beside 'j: index into x'
        self.heatmap.set_labels(*((f"{k}: flat index into {s_name} {_shape(shape)}",
                                   f"{k}: index into {s_name}", f"{k} (flat index)", k) for k in "ij"))
        # subscripts as brackets: 'Hᵢⱼ' drew its ᵢ and ⱼ 3 px wide at 11 pt, a smudge
        self.heatmap.set_colorbar_label(f"∂²{t_name} / ∂{s_name}[i] ∂{s_name}[j]",
                                        f"∂²{t_name} / ∂{s_name}²",
                                        "H[i, j]")      # the caption says what H is, never cut
        what = (f"H = ∂²{t_name} / ∂{s_name}² as a {n} × {n} matrix (i, j: flat indices into "
                f"{s_name} {_shape(shape)}).")
        rest = "It is the outer tape's Jacobian of the inner tape's gradient."
        # what black means (NaN or infinity) stays beside the first sentence; the colours after
        black = bool(self.heatmap.not_finite_key())
        key = self.heatmap.colour_key()
        self._caption = (what + key, rest, f"{what} {rest}{key}") if black else \
            (what, rest + key, f"{what} {rest}{key}")
        self._show_caption()

    def _show_not_finite(self, study):
        """H holds NaN: the message above the plots says which node and rule made it (whole
        in view: at 1280 x 800 it had one line of a banner that scrolled); the heatmap
        shows the finite entries and marks the rest black, or hides when none is finite;
        symmetry is checked where H and Hᵀ are both finite; no eigenvalues and no
        Newton step exist to show."""
        set_banner(self.message, "warning",
                   f"<b>⚠ No eigenvalues, no Newton step.</b> {_html(study.warning)}")
        H = study.hessian
        pairs = np.isfinite(H) & np.isfinite(H.T)
        if pairs.any():
            gap = float(np.abs(H[pairs] - H.T[pairs]).max())
            scale = max(1.0, float(np.abs(H[pairs]).max()))
            sym_ok = gap <= 1e-5 * scale
            set_banner(self.symmetry, "ok" if sym_ok else "warning",
                       f"<b>Symmetry</b> {'✓' if sym_ok else '✗'} max |H − Hᵀ| = {alone(gap)}, "
                       f"over the {counted(int(pairs.sum()), 'entry', 'entries')} where H and "
                       f"Hᵀ are both numbers")
        else:
            self.symmetry.setVisible(False)
        self.eigen_curve.setData([], [])
        self.newton_ok = False
        self.newton_button.setEnabled(False)
        self.newton_button.setToolTip("H holds NaN or infinity: it has no eigenvalues and gives "
                                      "no Newton step")
        self.step_text.setText("")

    def clear_result(self):
        self.heatmap.clear()
        self.eigen_curve.setData([], [])
        for label in (self.symmetry, self.definite):
            set_banner(label, "info", "")
        self.newton_button.setEnabled(False)
        self.newton_ok = False
        self.step_text.setText("")
        self._caption = ("", "", "")
        self._show_caption()

    def apply_newton_step(self):
        """x ← x − (H + εI)⁻¹ g via controller.set_value: one undo step, then recompute."""
        if self._stale or self.result is None:
            self.refresh()
        study = self.result
        if study is None or not self.newton_ok:
            return
        target, source = self._ports
        where = stored_value(self.controller.doc, source)
        if where is None:
            return
        node_id, weight = where
        node = self.controller.doc.nodes[node_id]
        old = np.asarray(node.weights[weight] if weight else node.value)
        new = (old - study.newton_step.reshape(old.shape)).astype(old.dtype)
        before = self.value_of(target)
        self.controller.set_value(node_id, new, weight)
        after = self.value_of(target)
        if before is not None and after is not None and np.size(before) == 1:
            number = line_format(np.sum(before), np.sum(after))
            self._last_step = (f"Last step: {self._names[0]} {number(np.sum(before))} → "
                               f"{number(np.sum(after))}.")
        self.refresh()


def zero_tolerance(eigenvalues):
    """|λ| at or below this counts as zero: 1e-6 of the largest |λ| (float32 round-off),
    the rule the Hessian study itself uses."""
    return ZERO_SHARE * float(np.abs(eigenvalues).max(initial=0.0))


def newton_verdict(study, zero, number=alone):
    """(banner kind, words, whether a Newton step makes sense) for a Hessian study.

    With H zero, (H + εI)⁻¹ g is g/ε: a gradient step of length |g|/ε, not a Newton step.
    With H singular the same happens along the directions where H is zero: there the step
    is g/ε, as long as the gradient points along them (`study.flat_step`, the part of the
    step ε alone sets). Where H + εI itself is zero within rounding (ε = 0), the study
    inverts it only where it is not (a pseudo-inverse) and the words say so."""
    eig = study.eigenvalues
    g = float(np.linalg.norm(study.gradient))
    u = float(np.linalg.norm(study.newton_step))
    eps = study.epsilon
    n_neg = int((eig < -zero).sum())
    n_zero = int((np.abs(eig) <= zero).sum())
    if eig.size == 0 or n_zero == eig.size:
        step = (gradient_step_words(g, eps, number) if eps else
                "With ε = 0, H + εI is zero too: there is no step to take.")
        return "warning", (f"H is zero here: the loss has no curvature at this point in this "
                           f"variable (its second derivative is 0 here, which need not hold "
                           f"nearby), so there is none to use. {step}"), False
    if study.left_out:
        curved = eig.size - study.left_out
        return ("warning" if n_neg else "info"), (
            f"H is singular ({_eigenvalues(n_zero)} ≈ 0) and ε = {number(eps)} leaves H + εI "
            f"without an inverse: the step inverts it only along the {_directions(curved)} "
            f"where |λ + ε| > {number(zero)} (a pseudo-inverse) and does not move along the "
            f"{study.left_out} flat ones, where the gradient's part, "
            f"{share_text(study.flat_gradient, g)} of |g|, is left out"
            + ("; with negative eigenvalues it need not point downhill" if n_neg else "")), True
    if n_neg:
        return "warning", (f"not positive definite ({n_neg} negative). The Newton step need "
                           f"not point downhill"), True
    if n_zero == 0:
        return "ok", "positive definite: the Newton step points downhill", True
    flat = study.flat_step / u if u > 0 else 0.0
    if flat > DAMPED_SHARE:
        return "warning", (singular_step_words(n_zero, "ε", share_text(study.flat_step, u))
                           + ". Raise ε, or take a gradient step."), True
    return "info", (f"positive semi-definite: {_eigenvalues(n_zero)} ≈ 0. The gradient's part "
                    f"along them is {share_text(study.flat_gradient, g)} of |g|, and the step there "
                    f"(g/ε) {share_text(study.flat_step, u)} of |step|: the rest is a Newton step "
                    f"where H curves"), True


def _directions(n):
    return counted(n, "direction")


def _eigenvalues(n):
    return counted(n, "eigenvalue")


def _idx(flat, shape):
    return ", ".join(map(str, np.unravel_index(flat, shape))) if shape else ""
