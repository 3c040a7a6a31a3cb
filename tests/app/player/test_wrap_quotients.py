"""A wrapped title or caption breaks at spaces, never inside a quotient (issue 20 §1): F5
at 1920 wrapped lesson 32's title 'dloss/dx = dloss/dout · dout/' then 'dx', and lesson 8's
caption 'dz/' then 'dx'. Qt's word wrap may break after any '/': titles and captions join it
to what follows with an invisible word joiner (literal.kept_whole)."""
from pathlib import Path

import pytest
from PySide6.QtGui import QFont, QTextDocument

from gradviz.app.literal import WORD_JOINER, kept_whole
from gradviz.app.player.timeline import caption_html
from gradviz.graph import load

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
TITLE = "The gradient by parts: dloss/dx = dloss/dout · dout/dx"
CAPTION = ("y_sq = y * y is computed inside tape.stop_recording(), so the tape never sees it: "
           "z = x_sq + y_sq gives dz/dx = 2x = 4, and dz/dy is None (not zero: unconnected).")


def lines(text, width, rich):
    """The lines Qt wraps `text` into at `width` px (as a word-wrapped QLabel lays it out)."""
    doc = QTextDocument()
    font = QFont("DejaVu Sans")
    font.setPointSizeF(20)
    doc.setDefaultFont(font)
    doc.setHtml(text) if rich else doc.setPlainText(text)
    doc.setTextWidth(width)
    doc.setDocumentMargin(0)
    doc.size()   # lays it out
    out, block = [], doc.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            out.append(block.text()[line.textStart():line.textStart() + line.textLength()])
        block = block.next()
    return [line.replace(WORD_JOINER, "") for line in out]   # a line keeps its trailing space


def _broken(text, rich, shown, step=7):
    """The widths at which a line of `shown` (`text` as a label gets it) ends after a '/'."""
    return [w for w in range(160, 1400, step)
            if any(line.endswith("/") for line in lines(shown, w, rich)[:-1])]


@pytest.mark.parametrize("text", [TITLE, CAPTION])
def test_no_line_ends_inside_a_quotient(qapp, text):
    assert _broken(text, False, text), "the check must see Qt break after '/' unguarded"
    assert not _broken(text, False, kept_whole(text))
    assert not _broken(text, True, caption_html(text))
    assert lines(caption_html(text), 4000, True) == [text]    # nothing else changes
    assert kept_whole(text).replace(WORD_JOINER, "") == text


def test_every_lesson_title_and_caption_keeps_its_quotients_whole(qapp):
    texts = []
    for path in sorted(SAMPLES.glob("*.json")):
        doc = load(path)
        texts += [doc.title, *doc.lesson.split("\n")] if doc.lesson else [doc.title]
    texts = [t for t in texts if "/" in t]
    assert texts
    for text in texts:
        assert not _broken(text, True, caption_html(text), step=31), text
        assert not _broken(text, False, kept_whole(text), step=31), text
