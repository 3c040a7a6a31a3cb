"""A node renamed during the story, then a card dragged (issue 20 §1, §2): every view of the
story (the step chips, the step's name and caption, the rule card, the provenance, the
lesson panel) says the node's current name. An auditor renamed m to 'prod' at a step and
dragged a card: the chips and the caption went back to 'Visit m', 'm → tanh' while the
card read prod. The controller reused, for the move, the story of the last evaluation,
told with the names it was evaluated with, not those of the rename since."""
from PySide6.QtCore import QCoreApplication, QPoint, Qt

from gradviz.app.player import framing_names
from gradviz.app.player.lessons import lesson_entries, open_lesson
from gradviz.app.player.timeline import chip_texts
from gradviz.app.literal import mnemonic_free
from gradviz.story import build

from app_ui import click_card, drag_card, settle


def _settle(qtbot, w):
    for _ in range(3):
        QCoreApplication.processEvents()
        qtbot.wait(30)
        w.player.finish_animation()
    settle(w.canvas)
    QCoreApplication.processEvents()


def _rename(qtbot, w, nid, name):
    """Select the card, type the name into the inspector's Label box key by key, Enter."""
    click_card(qtbot, w.canvas, nid)
    _settle(qtbot, w)
    edit = w.inspector.page.label.edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, name)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert w.controller.doc.nodes[nid].label == name


def _assert_current_names(w, where):
    """Every view of the story says what a story told afresh from the document says."""
    fresh = build(w.controller.doc).steps
    player = w.player
    assert [(s.title, s.caption) for s in player.steps] == [(s.title, s.caption) for s in fresh], where
    chips = chip_texts([s.title for s in fresh])
    for i, s in enumerate(fresh):
        assert player.timeline.text_of(i) == f"{i + 1}  {mnemonic_free(chips[i])}", where
        assert s.title in player.timeline.chips[i].toolTip(), where
    step = fresh[player.index]
    assert player.caption.plain == step.caption, where
    assert player.step_name(player.step) == f"{step.index + 1}/{len(fresh)}  {step.title}", where
    r = w.canvas.renderer
    shown = framing_names.card_texts(r, player.step)
    assert shown == framing_names.card_texts(r, step), where


def test_a_drag_after_a_rename_keeps_the_new_name_in_every_view(open_window, qtbot):
    """Two renames, each typed and then followed by a drag (the second drag reused the story
    of the evaluation made before both, by the auditor's account one with a half-typed name)."""
    w = open_window(None, size=(1280, 800))
    entry = next(e for e in lesson_entries() if e.path.stem == "004_matmul_sum")
    assert open_lesson(w, entry, ask=False)
    _settle(qtbot, w)
    w.player.set_index(2)
    _settle(qtbot, w)
    for nid, name in [("tf_t", "prod"), ("tf_b", "prod2")]:
        _rename(qtbot, w, nid, name)
        _settle(qtbot, w)
        _assert_current_names(w, f"after renaming {nid} to {name}")
        drag_card(qtbot, w.canvas, "y_tf", QPoint(30, 40))
        _settle(qtbot, w)
        _assert_current_names(w, f"after renaming {nid} to {name} and a drag")
        assert w.player.index == 2
