"""batch_jacobian and the assumption it makes: example b of the target depends only on
example b of the source. The full Jacobian is drawn as the seed's `plot_as_patches`
(one small (batch, batch) square per target/source element pair), next to the norm
of every (target example, source example) block, and a banner says whether the
off-diagonal blocks vanish (seed 001, "Batch Jacobian"; the BatchNormalization pitfall).
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QGraphicsRectItem, QLabel

from ...engine.errors import counted
from ...story import studies
from ...story.numbers import alone, line_format
from ._base import StudyView, compared
from .choosers import PortChooser, rich_names, study_ports
from .applies import missing_roles
from .banners import banner, set_banner
from .heatmap import Heatmap
from .plots_and_words import beside_words


def patches(jacobian, t_rank):
    """The seed's plot_as_patches image of J (B, *t, B, *s): reshape to (B, T, B, S),
    transpose [1, 0, 3, 2], pad each (B, B) slice by one cell on every side, reshape to
    (T·(B+2), S·(B+2)).

    The padding is NaN (drawn as the grey background: Heatmap's `gaps`, where an entry of
    J that is NaN is black) rather than the seed's -lim, so the gutters cannot be mistaken
    for large negative entries.
    """
    return _patches(as_blocks(jacobian, t_rank))


def _patches(j):
    j = np.transpose(j, (1, 0, 3, 2))
    j = np.pad(j, ((0, 0), (1, 1), (0, 0), (1, 1)), constant_values=np.nan)
    s = j.shape
    return j.reshape(s[0] * s[1], s[2] * s[3])


def as_blocks(jacobian, t_rank):
    """(B, *t, B, *s) -> (B, T, B, S)."""
    J = np.asarray(jacobian)
    b = J.shape[0]
    return J.reshape(b, int(np.prod(J.shape[1:t_rank], dtype=int)), J.shape[t_rank], -1)


class BatchJacobianView(StudyView):
    title = "Batch Jacobian"
    MIN_SIZE = (880, 240)

    def __init__(self, controller, parent=None):
        super().__init__(controller, parent)
        self.target_box, self.source_box = PortChooser(), PortChooser()
        self.layout_.addLayout(self.chooser_row(("Target", self.target_box),
                                                ("w.r.t. source", self.source_box)))
        self.layout_.addWidget(self.busy)
        self.layout_.addWidget(self.message)
        self.check = banner("info")
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.RichText)   # the names are escaped
        self.caption.setWordWrap(True)
        # each patch a (batch, batch) square, as the caption says; the colour bar is named
        # by the study shown
        self.heatmap = Heatmap("target element i, then example b",
                               "source element j, then example c",
                               colorbar_label="", square_cells=True)
        self.norms = Heatmap(("example b", "b"), ("source example c", "example c", "c"),
                             colorbar_label="‖ block ‖", lines=False)  # the diagonal is the point
        self._marker = QGraphicsRectItem()
        self._marker.setPen(pg.mkPen("#000000", width=3))
        self._marker.setZValue(10)
        self._marker.hide()
        self.norms.plot.addItem(self._marker)
        self.layout_.addWidget(beside_words((self.heatmap, self.norms), (self.check, self.caption),
                                            (3, 2, 4)), 1)
        self.update_choosers()

    _caption_of = None      # (J's shape, target name, source name, marked block words or '')

    def _write_caption(self):
        """The caption names the plots by where they are: side by side (left, middle) or
        stacked (top, below it); stacked at 1280 x 800 it said 'Left' of the upper plot.
        It says what the black box on the block sizes marks, in the check's words."""
        if self._caption_of is None:
            return
        shape, t_name, s_name, marked = self._caption_of
        first, second = ("Top", "Below it") if self.stacked() else ("Left", "Middle")
        black = "; ".join(f"in {where}, {key}" for where, key in
                          (("J", self.heatmap.not_finite_key()), ("the block sizes", self.norms.not_finite_key()))
                          if key)
        box = (f" The black box marks the largest block off the diagonal, {marked}: the one "
               f"the check names." if marked else "")
        self.caption.setText(
            f"{first}: the full Jacobian J {shape} as the seed's plot_as_patches, one "
            f"(batch, batch) square ∂{t_name}[b, i] / ∂{s_name}[c, j] per pair (i, j), b down, "
            f"c across. {second}: the size ‖∂{t_name}[b] / ∂{s_name}[c]‖ of each (b, c) block."
            f"{box} Independent examples light up only the diagonal."
            + (f" {black[0].upper()}{black[1:]}." if black else ""))

    def arrange(self):
        super().arrange()
        self._write_caption()

    def update_choosers(self):
        doc = self.controller.doc
        self.target_box.set_ports(doc, study_ports(doc, "batch_jacobian", "targets"))
        self.source_box.set_ports(doc, study_ports(doc, "batch_jacobian", "sources"))

    @property
    def warning(self):
        """The warning, headline and detail, '' when the examples are independent."""
        return self.check.whole_text() if self.check.property("kind") == "warning" else ""

    def job(self):
        target, source = self.target_box.port(), self.source_box.port()
        missing = missing_roles(("a target", target), ("a source", source))
        if missing:
            return self._show_not_applicable(f"{missing.removesuffix('.')}, both with a leading "
                                             "batch axis.")
        t_val, s_val = self.value_of(target), self.value_of(source)
        if t_val is not None and s_val is not None:
            t_shape, s_shape = np.shape(t_val), np.shape(s_val)
            if len(t_shape) < 2 or len(s_shape) < 2 or t_shape[0] != s_shape[0]:
                t_name, s_name = self.target_box.currentText(), self.source_box.currentText()
                self._show_not_applicable(
                    f"batch_jacobian needs a target and a source with the same leading (batch) "
                    f"axis and at least one more; {t_name} has shape {t_shape} and {s_name} "
                    f"{s_shape}. Lessons with a batch of examples (the BatchNormalization "
                    f"pitfall) show it.")
                return None
        doc = self.doc_copy()
        self._names = rich_names(self.target_box, self.source_box)
        self._t_rank = np.ndim(t_val) if t_val is not None else 2
        size = np.size(t_val) * np.size(s_val) if t_val is not None else 0
        return (lambda: studies.batch_jacobian_study(doc, target=target, source=source)), size

    def show_result(self, study):
        t_name, s_name = self._names
        J = study.jacobian
        b = J.shape[0]
        blocks = as_blocks(J, self._t_rank)
        T, S = blocks.shape[1], blocks.shape[3]
        image = _patches(blocks)
        self.heatmap.set_matrix(image, gaps=np.isnan(_patches(np.zeros_like(blocks))))
        self.heatmap.describe = lambda row, col: _patch_text(blocks, row, col, self._names)
        # every form true as written: a name cut to 'layer…' read as another name
        self.heatmap.set_labels((f"{t_name} element i", "element i", "i"),
                                (f"{s_name} element j (each band: {'the ' if b > 1 else ''}"
                                 f"{counted(b, 'example')})", f"{s_name} element j",
                                 "element j", "j"))
        _band_ticks(self.heatmap, T, S, b)
        norms = np.linalg.norm(blocks, axis=(1, 3))
        self.norms.set_matrix(norms, (b,), (b,), (f"{t_name}", f"{s_name}"), nonnegative=True)
        # one format for the check, the caption and the hover: the boxed block reads alike
        number = line_format(norms, study.largest, study.block_difference, study.tolerance)
        marked = study.location if study.warning else None

        def block(r, c):
            return f"‖∂{t_name}[{r}] / ∂{s_name}[{c}]‖ = {number(norms[r, c])}"

        def hovered(r, c):        # longest first: the readout shows what its width holds
            if r == c:
                return block(r, c), f"b {r}, c {c}: {number(norms[r, c])}"
            boxed = (r, c) == marked
            return (block(r, c) + ("  (off the diagonal, the black box: the largest there)" if boxed
                                   else "  (off the diagonal)"),
                    block(r, c) + ("  (the black box)" if boxed else ""), block(r, c),
                    f"b {r}, c {c}: {number(norms[r, c])}")
        self.norms.describe = hovered
        self.heatmap.set_colorbar_label(f"∂ {t_name}[b, i] / ∂ {s_name}[c, j]",
                                        f"∂{t_name}[b, i] / ∂{s_name}[c, j]",
                                        f"∂{t_name} / ∂{s_name}",
                                        "J")      # the caption says what J is, never cut
        self.norms.set_colorbar_label(f"‖ ∂ {t_name}[b] / ∂ {s_name}[c] ‖",
                                      f"‖∂{t_name}[b] / ∂{s_name}[c]‖",
                                      "‖ block ‖",
                                      "‖·‖")    # 120 px below the main plot, upright ('norm' said
        # no more than a norm, turned '‖J‖' read as '≡'); the caption says whose, never cut
        self._mark(marked)
        self._caption_of = (tuple(J.shape), t_name, s_name, marked and block(*marked))
        self._write_caption()
        if study.warning:
            r, c = study.location
            set_banner(self.check, "warning",
                       f"<b>⚠ The examples are not independent:</b> example {r} of {t_name} "
                       f"depends on example {c} of {s_name} (the black box).",
                       detail=f"The largest off-diagonal block is {block(r, c)} (tolerance "
                       f"{number(study.tolerance)}). batch_jacobian still returns shape "
                       f"{tuple(study.batch_jacobian.shape)}, but it is off by up to "
                       f"{number(study.block_difference)} from the true per-example Jacobians: "
                       f"a layer mixes the batch (BatchNormalization in training does, through "
                       f"the batch mean and variance). Use jacobian instead.")
        else:
            not_numbers = int((~np.isfinite(study.off_diagonal)).sum())
            where, held = ((" where it is a number",
                            f"; {counted(not_numbers, 'block holds', 'blocks hold')} NaN or "
                            f"infinity, where a zero cotangent met ∞") if not_numbers else ("", ""))
            set_banner(self.check, "ok",
                       f"<b>✓ The examples are independent:</b> every off-diagonal block is zero"
                       f"{where}",
                       detail=f"(largest norm {number(study.largest)}{held}), so batch_jacobian's "
                       f"{tuple(study.batch_jacobian.shape)} equals the diagonal blocks "
                       f"({compared(study.blocks, study.batch_jacobian, np.inf, number)[1]}).")

    def _mark(self, location):
        """Outline the largest off-diagonal block in the norm matrix."""
        if location is None:
            self._marker.hide()
            return
        r, c = location
        self._marker.setRect(QRectF(c - 0.5, r - 0.5, 1, 1))
        self._marker.show()

    def clear_result(self):
        self._marker.hide()
        self.heatmap.clear()
        self.norms.clear()
        set_banner(self.check, "info", "")
        self._caption_of = None
        self.caption.setText("")


def _band_ticks(heatmap, T, S, b):
    """Tick each band of the patch image at its centre with the element index."""
    step = b + 2
    for axis, n in (("left", T), ("bottom", S)):
        every = max(1, n // 12)
        ticks = [((k * step + (step - 1) / 2), str(k)) for k in range(0, n, every)]
        heatmap.plot.getAxis(axis).setTicks([ticks, []])


def _patch_text(blocks, row, col, names):
    step = blocks.shape[0] + 2
    i, b = divmod(row, step)
    j, c = divmod(col, step)
    b, c = b - 1, c - 1
    if not (0 <= b < blocks.shape[0] and 0 <= c < blocks.shape[0]):
        return " "
    value = alone(blocks[b, i, c, j])      # longest first: the readout shows what its width holds
    named = f"∂ {names[0]}[{b}, {i}] / ∂ {names[1]}[{c}, {j}] = {value}"
    return (f"{named}    (example {b} ← example {c}{', off the diagonal' if b != c else ''})",
            f"{named}    (example {b} ← example {c})", named, f"b {b}, i {i}, c {c}, j {j}: {value}")
