"""The labels along a step's arrows (the seed's word, the cotangent pills) in presentation
mode: as large as the cards beside them draw them, never smaller than the slide's least type
(the back row's size; on a slide drawn smaller to show every card its caption names, that
slide's size, at least 11 px: tests/app/player/test_step_framing).

Held at one size on screen (a compact card's type), they were a third of the size of the
cards beside them once presentation mode zoomed a small graph in: lesson 5's
"cotangent (2,)" 32 px tall beside cards drawn at zoom 3 on a 1920x1080 screen (auditor)."""
import pytest
from PySide6.QtCore import QCoreApplication

from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render.legible import READABLE_PX
from gradviz.render.story_overlay import PILL_H, SEED_H, pill_font, seed_font

EPS = 1e-6
# small graphs that presentation mode zooms in on, and one it shows from further out
LESSONS = ["002_vjp_output_gradients", "003_matmul_gradient", "001_higher_order", "nets_5_tiny_cnn"]


@pytest.fixture
def window(open_window):
    return open_window()


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_step_labels_scale_with_the_cards_and_stay_legible(window, present, size):
    w = window
    c = w.canvas
    zoomed_in = 0
    for name in LESSONS:
        assert w.open_sample(SAMPLES_DIR / f"{name}.json", ask=False)
        p = present(w, size)
        dpi_px = c.logicalDpiY() / 72
        for step in w.player.steps:
            p.go(step.index)
            w.player.finish_animation()
            QCoreApplication.processEvents()
            zoom, r = c.transform().m11(), c.renderer
            least = READABLE_PX * c.compact_scale()  # the slide's least type (px): the back row's,
            # or less (down to 11 px) on a slide that shows a card its caption names (step_view)
            zoomed_in += zoom > c.compact_scale()
            for label, rect in r.label_rects(step):
                font, box_h = (seed_font(), SEED_H) if label == "seed" else (pill_font(), PILL_H)
                scale = rect.height() / box_h                     # scene units per label unit
                px = font.pointSizeF() * dpi_px * scale * zoom    # its type's size on screen
                where = (name, step.index + 1, label, round(zoom, 2))
                assert scale >= 1 - EPS, where                    # to scale with the cards
                assert px >= least - EPS, where                   # and legible from the back
                assert scale <= max(1.0, c.compact_scale() / zoom) + EPS, where   # no larger
        p.exit()
    assert zoomed_in      # the lessons include steps framed closer than the labels' least size
