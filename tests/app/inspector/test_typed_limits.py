"""One set of limits, enforced where the user types: what the inspector accepts, the
document can save and open again (before, a 6,000-character lesson, a 250-character
title, an 81-character or tab-holding label and a rank-9 shape were accepted, saved,
and then refused on open and on recovery)."""
from pathlib import Path

import pytest

from gradviz.app.controller import DocumentController
from gradviz.app.inspector.panel import InspectorWidget
from gradviz.graph import fileformat
from gradviz.graph.document import TEXT_LIMITS

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


@pytest.fixture
def inspector(qtbot):
    c = DocumentController()
    c.open(SAMPLES / "004_matmul_sum.json")
    w = InspectorWidget(c)
    w.confirm = lambda text: True
    qtbot.addWidget(w)
    w.resize(380, 900)
    w.show()
    yield c, w
    c.undo_stack.blockSignals(True)


def type_into(field, text):
    field.edit.setText(text)
    field.edit.setModified(True)
    field.commit()


def reopens(c):
    """The document as it is now can be saved and opened again (strictly)."""
    fileformat.loads(c.text(), strict=False)
    return True


@pytest.mark.parametrize("text, words", [("t" * (TEXT_LIMITS["title"] + 50), "at most 200"),
                                         ("a\x07bell", "control character")])
def test_a_title_over_the_limits_is_refused_where_it_is_typed(inspector, text, words):
    c, w = inspector
    before = c.doc.title
    type_into(w.page.title, text)
    assert c.doc.title == before and not c.dirty
    assert w.page.title.error.isVisible() and words in w.page.title.error.text()
    assert w.page.title.edit.text() == text      # what was typed stays, to be shortened
    type_into(w.page.title, "A fine title")
    assert c.doc.title == "A fine title" and not w.page.title.error.isVisible()
    assert reopens(c)


@pytest.mark.parametrize("text, words", [("l" * 81, "at most 80"), ("tab\there", "control")])
def test_a_label_over_the_limits_is_refused_where_it_is_typed(inspector, text, words):
    c, w = inspector
    c.set_selection(["tf_b"])
    type_into(w.page.label, text)
    assert c.doc.nodes["tf_b"].label != text and not c.dirty
    assert w.page.label.error.isVisible() and words in w.page.label.error.text()
    assert reopens(c)


def test_a_lesson_over_the_limit_is_refused_and_kept_in_the_box(inspector):
    c, w = inspector
    text = "a long lesson. " * 400   # 6,000 characters
    w.page.lesson.setPlainText(text)
    w.page._set_lesson(text)
    assert c.doc.lesson != text and not c.dirty
    assert w.page.lesson_error.isVisible() and "at most 5000" in w.page.lesson_error.text()
    w.page.refresh()
    assert w.page.lesson.toPlainText() == text   # nothing typed is lost
    w.page._set_lesson("short")
    assert c.doc.lesson == "short" and not w.page.lesson_error.isVisible()
    assert reopens(c)


def test_a_rank_9_shape_is_refused_where_it_is_typed(inspector):
    c, w = inspector
    c.set_selection(["tf_b"])
    type_into(w.page.shape, ", ".join(["1"] * 9))
    assert c.doc.nodes["tf_b"].value.ndim == 2 and not c.dirty
    assert "at most 8" in w.page.shape.error.text()
    type_into(w.page.shape, ", ".join(["1"] * 7 + ["3", "3"]))   # rank 9 again, same size
    assert c.doc.nodes["tf_b"].value.ndim == 2
    type_into(w.page.shape, "9")
    assert c.doc.nodes["tf_b"].value.shape == (9,)
    assert reopens(c)


def test_the_controller_refuses_text_the_file_would_refuse(inspector):
    c, _ = inspector
    with pytest.raises(ValueError, match="at most 5000"):
        c.set_meta(lesson="x" * 5001)
    with pytest.raises(ValueError, match="at most 80"):
        c.set_field("tf_b", "label", "y" * 81)
    assert not c.dirty
