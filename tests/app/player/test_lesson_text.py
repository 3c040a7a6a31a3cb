"""The lesson's text reads outside presentation mode (a Lesson panel that follows the
lesson and the step) and a long lesson is never cut off in presentation mode (issue 20 §5)."""
import pytest

from gradviz.app.player import presentation
from gradviz.app.player.lessons import lesson_entries, open_lesson
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.graph import fileformat

LONG = "001_input_gradient_regularization.json"


@pytest.fixture
def window(open_window):
    return open_window()


def _words(text):
    return " ".join(text.split())


def test_a_lesson_opens_with_its_text_in_the_lesson_panel(window, qtbot):
    w = window
    entry = next(e for e in lesson_entries() if e.path.name == LONG)
    assert open_lesson(w, entry, ask=False)
    qtbot.wait(50)
    panel = w.lesson_panel
    assert w.lesson_dock.isVisible() and not w.lesson_dock.visibleRegion().isEmpty()  # in front
    shown = _words(panel.toPlainText())
    assert _words(w.controller.doc.lesson) in shown and w.controller.doc.title in shown
    step = w.player.step
    assert f"Step 1/{len(w.player.steps)}" in shown and _words(step.caption) in shown
    w.player.set_index(4)
    shown = _words(panel.toPlainText())
    assert f"Step 5/{len(w.player.steps)}" in shown and _words(w.player.step.caption) in shown
    assert _words(w.controller.doc.lesson) in shown                 # the lesson stays
    assert panel.font().pointSizeF() >= 11                           # readable, not the edit box's
    assert "Lesson" in [a.text() for a in w.backprop_menu.actions()]


def test_the_lesson_panel_scrolls_and_forgets_the_lesson_before(window, qtbot):
    w = window
    doc = fileformat.load(str(SAMPLES_DIR / LONG), strict=False)
    doc.lesson = "\n\n".join([doc.lesson] * 4)
    w.controller.set_document(doc)
    w.lesson_dock.show()
    w.lesson_dock.raise_()
    qtbot.wait(50)
    panel = w.lesson_panel
    assert panel.verticalScrollBar().maximum() > 0                  # it scrolls, nothing is cut
    assert panel.toPlainText().count("square's rule 2x") == 4
    assert w.new_document()
    qtbot.wait(20)
    assert "square's rule" not in panel.toPlainText() and "Untitled" in panel.toPlainText()


@pytest.mark.parametrize("copies", [1, 4])
def test_presentation_mode_never_cuts_a_long_lesson(window, qtbot, copies):
    w = window
    doc = fileformat.load(str(SAMPLES_DIR / LONG), strict=False)
    doc.lesson = "\n\n".join([doc.lesson] * copies)
    w.controller.set_document(doc)
    w.player.set_index(-1)
    w.presentation.enter()
    qtbot.wait(200)
    band = w.presentation.band
    caption = band.caption
    assert band.height() <= presentation.LESSON_BAND_SHARE * w.height() + 1   # before step 1
    # The whole text is laid out (wrapped, not clipped): what does not fit scrolls.
    assert caption.height() >= caption.heightForWidth(caption.width()) - 1
    bar = band.scroll.verticalScrollBar()
    fits = caption.heightForWidth(caption.width()) <= band.scroll.viewport().height()
    assert (bar.maximum() == 0) == fits
    if copies > 1:
        assert not fits and bar.isVisible()
