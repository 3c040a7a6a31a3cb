"""Studies beside the palette at laptop and projector sizes (H45 audit, issue 20 §5). The
study's main heatmap is drawn as tall as the dock leaves it below the other plots (each at
USABLE_PLOT_H at least) and the key words, its verdict that the banners open with, up to
its square's height; all of them in view without scrolling (unread, as at 1280 x 800 in
test_study_column), at 1024 x 768 too.

Measured on main before (lesson 17; lesson 14 the same): the Hessian's 40 x 40 H was a
164 / 196 / 271 px box at 1024 x 768 / 1280 x 800 / 1440 x 900 over its eigenvalues, and its
verdict on the Newton step ('positive semi-definite …') lay below the fold at all three.
Now 169 / 201 / 271 (lesson 14: 186 / 218 / 271) with the verdict's headline in view:
Export View… beside ε and, stacked, the caption's first sentence alone above the plots (the
rest after the verdict) gave back 54 px; the symmetry and the verdict's headline took 49 (at
1280 x 800 the square's 271 px, the eigenvalues' 120, those words and the caption's first
sentence are 70 px more than the dock shows)."""
import pytest
from PySide6.QtCore import QRect

from app_ui import laid_out
from gradviz.app.studies import _base
from gradviz.app.studies.label_lines import first_sentence_bottom
from gradviz.app.studies.plots_and_words import PlotsAndWords, WordColumn, stacked_height
from test_study_column import _in_view, cut_lines, unread
from test_study_docks import _open, window
from test_study_stale import _settled

_ = window   # the fixture, shared with test_study_docks

# where the dock cannot show its square with the rest in view, at least as tall as on main
# before, where the verdict lay below the fold
MAIN_PLOT_H = {(1024, 768): 164, (1280, 800): 196}
KEYS = {"Hessian": ("symmetry", "definite"), "Jacobian": ("sum_check",)}   # the verdicts


def _headline_in_view(label):
    """Are the lines of the banner `label`'s headline, its words in bold first, whole in view?
    Measured where the label lays them out (first_sentence_bottom, as test_study_words
    measures a first sentence): a QLabel of the headline alone, wrapped at the banner's
    width, took a line more than the banner draws it in ('not positive definite (7
    negative).' at 1280 x 800, one line on screen)."""
    bottom = min(first_sentence_bottom(label, label.width(), headline=True), label.height())
    return _in_view(label, QRect(0, 0, label.width(), bottom))


@pytest.mark.parametrize("size, sample, title", [
    ((1024, 768), "001_hessian_newton", "Hessian"),
    ((1024, 768), "001_input_gradient_regularization", "Hessian"),
    ((1024, 768), "001_batchnorm_pitfall", "Jacobian"),
    ((1280, 800), "001_hessian_newton", "Hessian"),
    ((1280, 800), "001_input_gradient_regularization", "Hessian"),
    ((1440, 900), "001_hessian_newton", "Hessian")])
def test_a_study_draws_its_heatmap_square_and_its_verdict_in_view(qtbot, window, monkeypatch, size, sample, title):
    monkeypatch.setattr(_base, "DEBOUNCE_MS", 0)
    w = window(sample, size)
    dock = _open(qtbot, w, title)
    view = dock.view
    _settled(qtbot, view)
    laid_out(qtbot, w)
    assert dock.widget().verticalScrollBar().value() == 0
    split = view.findChild(PlotsAndWords)
    main = next(p for p in split.parts() if not isinstance(p, WordColumn) and p.isVisible())
    square = min(stacked_height(main, main.width()), split.height())
    least = min(square, MAIN_PLOT_H.get(size, square))
    assert _in_view(main) and main.height() >= least - 2, (main.height(), square)
    assert not unread(w, title), unread(w, title)     # the eigenvalues too, at USABLE_PLOT_H
    for name in KEYS[title]:
        label = getattr(view, name)
        assert label.isVisible() and _headline_in_view(label), (name, label.text()[:60])
    assert not cut_lines(view), cut_lines(view)
