"""The active step's ring stays whole beside its card's ports' names (auditor, issue 20):
clipped off the names, a box the size of each name ('output', 'kernel', 'bias') cut the
ring's glow, in F5 as in the editor. The names are written again over the ring instead."""
from PySide6.QtCore import QCoreApplication, QPointF
from PySide6.QtGui import QImage, QPainter

from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.story_overlay import GLOW, RING


def test_the_ring_is_whole_beside_its_card_s_port_names(open_window):
    w = open_window(None, size=(1920, 1080))
    assert w.open_sample(SAMPLES_DIR / "001_dense_jacobian.json", ask=False)
    QCoreApplication.processEvents()
    p, c = w.player, w.canvas
    p.set_index(0)
    p.finish_animation()
    c.viewport().grab()                       # (a paint decides compact or not)
    assert not c.compact
    r, step = c.renderer, p.step
    names = r.port_labels(step.node)
    assert [name for _, name, _ in names] == ["output", "kernel", "bias"]
    ring, _ = c.step_overlay.pictures()
    card = r.rect(step.node)
    image = QImage(int(card.width()) + 80, int(card.height()) + 80, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.translate(40 - card.left(), 40 - card.top())
    painter.drawPicture(0, 0, ring)
    painter.end()
    glow = card.right() + RING + 1.5 + (GLOW - 1.5) / 2      # past the ring's line, in its glow
    for rect, name, _ in names:
        assert rect.left() < glow < rect.right()             # (the name's box reaches into the glow)
        at = QPointF(glow - card.left() + 40, rect.center().y() - card.top() + 40).toPoint()
        assert image.pixelColor(at).alpha() > 0, f"the ring's glow cut at {name}"
