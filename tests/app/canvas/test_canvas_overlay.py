"""The canvas' story overlay: cards drawn at the player's step (a source's gradient is
pending until its accumulation step), the static part recorded once per step."""
import pytest
from PySide6.QtCore import QPointF
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
    w.canvas.resetTransform()      # the cards drawn in full, as the player's steps draw them
    w.canvas.viewport().grab()     # (not compact: a compact card is shorter)
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


def test_the_formula_cards_tiles_write_their_numbers_when_zoomed_in(open_window, monkeypatch):
    """Issue 21 §1: the canvas recorded the formula card once at 1:1 and replayed it at every
    zoom, so its tile pictures never wrote their numbers. It records the card once per
    band of zooms that draw the same numbers (kept while the step is shown); replayed, the
    cells stay one colour each (no smoothing across cells) until their numbers read."""
    import math

    import numpy as np

    from gradviz.graph import Port
    from gradviz.render.painter import Renderer, formula_pictures
    w = open_window(SAMPLES_DIR / "nets_5_tiny_cnn.json", shown=False)
    p = w.player
    p.set_index(next(s.index for s in p.steps if s.kind == "contribution" and s.port == Port("filters_w")))
    p.finish_animation()
    overlay = w.canvas.step_overlay
    label, array, box, shown = next(a for a in formula_pictures(w.canvas.renderer, p.step) if a[0] == "contribution")
    assert shown.kind == "tiles"
    flat = int(np.argmax(np.abs(array)))
    cell = shown.cell_rect(box.left(), box.top(), flat)
    recorded = []
    paint_formula = Renderer._paint_formula
    monkeypatch.setattr(Renderer, "_paint_formula", lambda self, *a: (recorded.append(a[-1]), paint_formula(self, *a)))

    def colours(zoom):
        """The colours of the cell, the overlay painted as the canvas paints it at `zoom`."""
        image = QImage(math.ceil(cell.width() * zoom), math.ceil(cell.height() * zoom), QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        painter.scale(zoom, zoom)
        painter.translate(-cell.left(), -cell.top())
        overlay.paint(painter, None)
        painter.end()
        inner = image.copy(image.rect().adjusted(2, 2, -2, -2))
        return {inner.pixel(x, y) for x in range(inner.width()) for y in range(inner.height())}

    assert len(colours(2.0)) == 1                       # below the band: the cell's colour alone
    assert len(colours(4.0)) > 2                        # its number, at 4x
    assert 2.5 < shown.numbers_from < 4
    assert len(colours(2.0)) == 1 and len(colours(4.0)) > 2
    band = w.canvas.renderer.formula_layout(p.step).number_band
    if band(2.5) == band(2.0):
        colours(2.5)
    assert recorded == [2.0, 4.0]                       # one recording per band


def test_hovering_an_entry_of_the_formula_cards_pictures_names_it_and_its_number(open_window):
    """Issue 21 §1, numbers on hover: a rule card's tiles write their numbers only far zoomed
    in; hovering any entry of its pictures (operands, results and the rule's own pictures)
    says which entry it is and its number in full, as hovering a card's does. The overlay
    takes the cursor over its formula card alone, so the cards around keep theirs."""
    import numpy as np
    from PySide6.QtWidgets import QGraphicsSceneHoverEvent

    from gradviz.graph import Port
    from gradviz.story.formatting import number
    w = open_window(SAMPLES_DIR / "nets_5_tiny_cnn.json", shown=False)
    p = w.player
    p.set_index(next(s.index for s in p.steps if s.kind == "contribution" and s.port == Port("filters_w")))
    p.finish_animation()
    overlay, r = w.canvas.step_overlay, w.canvas.renderer
    card = r._formula_rect(p.step)
    layout = r.formula_layout(p.step)

    def hover(point):
        event = QGraphicsSceneHoverEvent()
        event.setPos(point)
        overlay.hoverMoveEvent(event)
        return overlay.toolTip()

    seen = {}
    for part, shown, top, x, _ in layout.placed:
        if part[0] not in ("array", "picture") or len(part) > 3 and part[0] == "array":
            continue
        array = np.asarray(part[1])
        flat = int(np.argmax(np.abs(array)))
        cell = shown.cell_rect(card.left() + x, card.top() + top, flat)
        index = ",".join(str(int(i)) for i in np.unravel_index(flat, array.shape))
        seen[part[2]] = (hover(cell.center()), f"[{index}] = {number(array.flat[flat], 8)}")
    assert seen["contribution"][0] == "contribution" + seen["contribution"][1]
    assert seen["upstream"][0] == "upstream" + seen["upstream"][1]
    assert seen["input (image x)"][0] == "input (image x)" + seen["input (image x)"][1]   # ", zero-padded" if padded
    assert hover(card.topLeft() + QPointF(8, 8)) == ""                  # its title: no entry
    node = r.rect(p.step.node)
    outside = QPointF(node.center().x(), node.top() + 4)
    assert overlay.boundingRect().contains(outside) and not card.contains(outside)
    assert not overlay.contains(outside) and overlay.contains(card.center())


def test_the_active_cards_ring_leaves_its_ports_names_readable(open_window):
    """Batchnorm lesson, step 1: the ring around the target layer2 passed over the start of
    its ports' names (output, kernel, bias) on the canvas; it goes under them now."""
    w = open_window(SAMPLES_DIR / "001_batchnorm_pitfall.json", shown=False)
    w.player.set_index(0)
    w.player.finish_animation()
    overlay, r = w.canvas.step_overlay, w.canvas.renderer
    overlay.pictures()
    names = r.port_labels(w.player.step.node)
    assert [name for _, name, _ in names] == ["output", "kernel", "bias"]
    ring = r.rect(w.player.step.node).adjusted(-12, -12, 12, 12)
    assert all(ring.intersects(rect) for rect, _, _ in names)      # the ring passes there
    assert not any(overlay._under.intersects(rect.adjusted(0.5, 0.5, -0.5, -0.5)) for rect, _, _ in names)
