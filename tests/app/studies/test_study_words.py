"""A stacked study's words read at a glance (issue 20 §5): at 1280 x 800 and 1440 x 900, one
study open or all six with the story playing, the first sentence of the words that say what
the plot is lies in the dock's view without scrolling, and a square matrix keeps square cells.

Walk-through at 1280 x 800: a square heatmap kept its square's height, so the words went
below the dock's fold; with six studies open and the story playing a study's words had
three lines in their own scroll box, or none in view; the Hessian's ε lay below its
banners, reached by scrolling (auditor, issue 20 §5)."""
import numpy as np
import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QRegion
from PySide6.QtWidgets import QLabel

from gradviz.app.studies.plots_and_words import first_sentence_bottom
from gradviz.app.window.main_window import STUDY_TITLES
from test_study_docks import _open, window
from test_study_plots import _settled

_ = window   # the fixture, shared with test_study_docks

# Each study as a lesson that asks for it opens it (the chain and the norms: any lesson; the
# square Jacobian of 004's matmul), and its labels whose first sentence says what it shows.
OPENED_FROM = (("Jacobian", "001_dense_jacobian"), ("Jacobian", "004_matmul_sum"),
               ("Batch Jacobian", "001_batchnorm_pitfall"), ("Hessian", "001_hessian_newton"),
               ("Hessian", "000_layer_hessian"), ("Forward vs reverse", "001_hessian_newton"),
               ("Gradient norms", "nets_2_sigmoid_chain"), ("Gradient check", "nets_3_gradient_check"))
CONTROLS = {"Hessian": ("eps_box", "newton_button")}     # whole in view, as the words
WORDS = {"Jacobian": ("caption",), "Batch Jacobian": ("check",), "Hessian": ("caption", "symmetry"),
         "Forward vs reverse": ("totals",), "Gradient norms": ("summary",), "Gradient check": ("verdict",)}


def test_first_sentence_bottom_is_where_the_first_sentence_ends(qtbot):
    """The measure the test below relies on: a label of two sentences ends its first where a
    label of that sentence alone ends, wrapped at the same width."""
    both, alone = QLabel(), QLabel()
    for label, text in ((both, "The gradient is a product of Jacobians, one per op on the path. "
                                "Forward mode multiplies from the input side."),
                        (alone, "The gradient is a product of Jacobians, one per op on the path.")):
        qtbot.addWidget(label)
        label.setWordWrap(True)
        label.setStyleSheet("QLabel { padding: 6px 8px; border: 1px solid gray; }")
        label.setText(text)
        label.resize(180, label.heightForWidth(180))
        label.show()
    assert first_sentence_bottom(both, 180) == pytest.approx(alone.heightForWidth(180) - 7, abs=1)
    assert first_sentence_bottom(both, 180) < both.heightForWidth(180) - 20


def _faults(qtbot, w, title):
    """What keeps the study `title` from reading at a glance: a label whose first sentence is
    not whole in view (or the dock or its words scrolled), a square matrix's cells not square."""
    dock = w.study_docks[title]
    dock.raise_()
    view = dock.view
    qtbot.waitUntil(lambda: view.result is not None or bool(view.error or view.not_applicable), timeout=8000)
    qtbot.wait(150)
    faults = []
    assert view.result is not None, (title, view.error or view.not_applicable)
    if dock.widget().verticalScrollBar().value():
        faults.append("the dock is scrolled")
    for name in WORDS[title]:
        label = getattr(view, name)
        bottom = first_sentence_bottom(label, label.width())
        sentence = QRegion(QRect(0, 0, label.width(), bottom))
        shown = label.visibleRegion()
        if not label.isVisible() or shown.intersected(sentence) != sentence:
            faults.append(f"{name}: {bottom} px of its first sentence, "
                          f"{shown.boundingRect().height()} px in view")
    for name in CONTROLS.get(title, ()):
        control = getattr(view, name)
        if not control.isVisible() or control.visibleRegion() != QRegion(control.rect()):
            faults.append(f"{name}: {control.visibleRegion().boundingRect().height()} of "
                          f"{control.height()} px in view")
    for heatmap in (getattr(view, "heatmap", None), getattr(view, "norms", None)):
        if heatmap is not None and heatmap.mode == "heatmap" and len(set(heatmap.matrix.shape)) == 1:
            _box, image, _gaps = _settled(qtbot, heatmap)
            if abs(image.width() - image.height()) > 2:
                faults.append(f"cells not square: {image.width():.0f} x {image.height():.0f}")
    return faults


@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)])
def test_a_studys_first_sentence_is_in_view_with_one_open(qtbot, window, size):
    w = None
    found = {}
    for title, sample in OPENED_FROM:
        if w is None:
            w = window(sample, size)
        else:
            for dock in w.study_docks.values():
                dock.close()
            w.controller.open(f"samples/{sample}.json")
        _open(qtbot, w, title)
        found[title, sample] = _faults(qtbot, w, title)
    assert not any(found.values()), found


@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)])
def test_a_studys_first_sentence_is_in_view_with_six_open_and_the_story_playing(qtbot, window, size):
    w = window("001_hessian_newton", size)
    for title in STUDY_TITLES:
        _open(qtbot, w, title)
    found = {}
    for title, sample in OPENED_FROM:
        w.controller.open(f"samples/{sample}.json")
        w.player.set_index(2)
        found[title, sample] = _faults(qtbot, w, title)
    assert not any(found.values()), found


def _whole_in_view(widget):
    return widget.isVisible() and widget.visibleRegion() == QRegion(widget.rect())


def _op_types_shown(w, view):
    """The op types (Pow, EuclideanNorm) a study view or the status bar's warning writes."""
    from op_types import op_type_names
    texts = [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view)]
    return op_type_names(*texts, w.problems_label.toolTip(), w.statusBar().currentMessage())


@pytest.mark.parametrize("size, stacked", [((1280, 800), False), ((1280, 800), True), ((1440, 900), False)])
def test_a_hessian_holding_nan_says_where_whole_in_view(qtbot, window, size, stacked):
    """Lesson 14 with pow, every entry of H NaN: the warning that names the node and rule is
    whole in the dock's view, with ε and the Newton step, and no grey square stands for H.
    At 1280 x 800 an all-grey heatmap took the dock and the warning had one line of a banner
    that scrolled (auditor, issue 20 §1)."""
    from lesson_variants import pow_pitfall_doc
    w = window("001_input_gradient_regularization", size)
    w.controller.set_document(pow_pitfall_doc())
    for title in STUDY_TITLES if stacked else ("Hessian",):
        _open(qtbot, w, title)
    dock = w.study_docks["Hessian"]
    dock.raise_()
    view = dock.view
    qtbot.waitUntil(lambda: view.result is not None, timeout=60000)
    qtbot.wait(150)
    assert not view.result.finite and dock.widget().verticalScrollBar().value() == 0
    assert "where the rule of y_sq (pow) is differentiated again" in view.message.text()
    for widget in (view.message, view.eps_box, view.newton_button):
        assert _whole_in_view(widget), (widget, widget.visibleRegion().boundingRect(), widget.rect())
    bottom = first_sentence_bottom(view.caption, view.caption.width())
    assert view.caption.visibleRegion().intersected(QRect(0, 0, view.caption.width(), bottom)) \
        == QRegion(QRect(0, 0, view.caption.width(), bottom))
    assert not view.heatmap.isVisible() and not view.eigen_plot.isVisible()
    assert not _op_types_shown(w, view)


def test_a_jacobian_holding_nan_says_where_whole_in_view(qtbot, window):
    """nets_4 (softmax, then log): J of ce w.r.t. logits is NaN in each entry; its warning
    was squeezed below its words' height (its last line cut) and an empty line plot stood
    for J."""
    w = window("nets_4_softmax_then_log", (1280, 800))
    view = _open(qtbot, w, "Jacobian").view
    assert view.result is not None and not np.isfinite(view.result.jacobian).any()
    assert "in the cotangent of p, from the rule of log_p (log)" in view.message.text()
    assert _whole_in_view(view.message), view.message.visibleRegion().boundingRect()
    assert not view.heatmap.isVisible()
    assert "Every entry is NaN or infinity: there is nothing to draw." in view.caption.text()
    assert not _op_types_shown(w, view)


def test_a_square_heatmap_narrowed_below_its_slack_measures_its_room_again(qtbot, tmp_path):
    """At 1920 x 1080 (the dock along the bottom, side by side) a square heatmap puts the
    room its image does not take beside the colour bar (its slack). With H partly NaN the
    eigenvalue plot is hidden: the heatmap was first given 2/5 of the width, then narrowed
    to its square's width, below its slack; the layout overflowed, its width for square
    cells came out -226 and the splitter drew it 68 px wide."""
    from PySide6.QtCore import QSettings
    from gradviz.app import create_window
    from lesson_variants import partly_nan_hessian_doc
    w = create_window(None, offer_recovery=False,
                      settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1920, 1080)
    w.show()
    qtbot.wait(500)
    w.controller.set_document(partly_nan_hessian_doc())
    view = _open(qtbot, w, "Hessian").view
    assert not view.stacked() and not view.eigen_plot.isVisible() and view.heatmap.isVisible()
    box = view.heatmap.plot.getViewBox()
    qtbot.waitUntil(lambda: abs(box.width() - box.height()) <= 2, timeout=3000)
    assert box.height() > 100 and view.heatmap.width() >= view.heatmap.square_width() > 150
