"""The lesson's text reads outside presentation mode (a Lesson panel that follows the
lesson and the step, issue 20 §5); presentation mode's title slide shows its lead."""
import pytest

from gradviz.app.literal import WORD_JOINER
from gradviz.app.player import presentation
from gradviz.app.player.lessons import lesson_entries, open_lesson
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.graph import fileformat

LONG = "001_input_gradient_regularization.json"


@pytest.fixture
def window(open_window):
    return open_window()


def _words(text):
    """The words `text` shows: a quotient's invisible word joiner (it keeps dz/dx on one
    line, literal.kept_whole) is no character of them."""
    return " ".join(text.replace(WORD_JOINER, "").split())


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
def test_the_title_slide_shows_the_lessons_lead_and_the_panel_keeps_it_whole(window, qtbot, present, copies):
    """Before step 1 the band shows the lesson's lead in full-size type, however long the
    lesson, and the Lesson panel holds all of it. (This test asserted before that the band
    laid out the whole lesson and scrolled the rest: a title slide is read from the back of
    the room, not scrolled; the attention lesson's was a wall of 16.8 pt text.)"""
    w = window
    doc = fileformat.load(str(SAMPLES_DIR / LONG), strict=False)
    doc.lesson = "\n\n".join([doc.lesson] * copies)
    w.controller.set_document(doc)
    w.player.set_index(-1)
    p = present(w, (1280, 800))
    band = p.band
    caption = band.caption
    first = _words(doc.lesson).split(". ")[0]
    assert caption.plain.startswith(first) and len(caption.plain) < len(_words(doc.lesson)) / copies
    assert caption.font().pointSizeF() == band.caption_pt
    assert caption.height() >= caption.heightForWidth(caption.width()) - 1     # nothing clipped
    assert band.scroll.verticalScrollBar().maximum() == 0                      # nor scrolled
    assert band.height() <= 0.4 * w.height()
    p.exit()
    w.lesson_dock.show()
    assert _words(doc.lesson) in _words(w.lesson_panel.toPlainText())
