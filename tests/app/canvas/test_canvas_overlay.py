"""The canvas' story overlay: cards drawn at the player's step (a source's gradient is
pending until its accumulation step), the static part recorded once per step."""
import pytest
from PySide6.QtGui import QColor, QImage, QPainter

from app_ui import item_image
from gradviz.app.window.main_window import SAMPLES_DIR


@pytest.fixture
def window(open_window):
    """Seed 004 in the main window, not shown (conftest's open_window)."""
    return open_window(SAMPLES_DIR / "004_matmul_sum.json", shown=False)


def _card(w, nid):
    return item_image(w.canvas.node_items[nid])


def test_source_card_waits_for_its_accumulation_step(window):
    w = window
    source = w.controller.doc.sources[0]
    final = next(s.index for s in w.player.steps if s.kind == "accumulate" and s.port == source)
    plain = _card(w, source.node)
    w.player.set_index(0)
    assert w.canvas.renderer.pending_ports() == {source}
    seed = _card(w, source.node)
    assert seed != plain
    w.player.set_index(final)
    assert w.canvas.renderer.pending_ports() == frozenset()
    assert _card(w, source.node) == plain
    w.canvas.set_step(None)
    assert w.canvas.renderer.story_index is None


def test_overlay_frames_differ_only_by_the_moving_arrow(window):
    w = window
    w.player.set_index(2)
    w.player.finish_animation()
    overlay = w.canvas.step_overlay
    step = overlay.step
    r = w.canvas.renderer
    assert overlay.moving == r.moving_rect(step)
    rect = overlay.boundingRect()

    def frame(progress):
        overlay.progress = progress
        return item_image(overlay)

    half, full = frame(0.5), frame(1.0)
    assert half != full
    moving = overlay.moving.translated(-rect.left(), -rect.top()).toAlignedRect()
    outside = QImage(half)
    painter = QPainter(outside)
    painter.fillRect(moving, QColor("black"))
    painter.end()
    other = QImage(full)
    painter = QPainter(other)
    painter.fillRect(moving, QColor("black"))
    painter.end()
    assert outside == other          # nothing changes outside the rectangle the view repaints
