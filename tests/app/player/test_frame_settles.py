"""A step's view is a function of the step and the viewport alone: the framing weighs the
arrow labels at the size the zoom it frames gives them (`labels_at`), not at the zoom the
view had before. Weighed at the zoom shown, a frame that changed the zoom changed the labels'
size and the next frame moved the view again: nets_4_softmax_cross_entropy's first step
at 1280 x 800 crept toward a limit it never reached (zoom 1.52481 after walking nets_3,
1.52318 opened first, 1.52309 framed again), and framed from a view zoomed out (its cards
drawn compact: their type smaller) it showed at 1.11, then 1.60."""
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QTransform

from gradviz.app.window.main_window import SAMPLES_DIR


def test_a_slide_framed_again_from_another_zoom_is_framed_the_same(open_window, present):
    w = open_window(SAMPLES_DIR / "nets_4_softmax_cross_entropy.json", size=(1280, 800))
    p, c = w.player, w.canvas
    QCoreApplication.processEvents()
    present(w, (1280, 800))
    w.presentation.go(0)
    p.finish_animation()
    for _ in range(3):
        QCoreApplication.processEvents()
        while w.presentation._fit_pending:
            QCoreApplication.processEvents()

    def view():
        return c.transform().m11(), c.mapToScene(c.viewport().rect().center()), c.renderer.docked_formula()
    shown = view()
    p._framed_as = None
    p.frame()                                    # framed again as it is: nothing moves
    assert view() == shown
    for zoom in (0.4, 3.0):                      # ... and from a view zoomed out or in
        c.setTransform(QTransform.fromScale(zoom, zoom))
        p._framed_as = None
        p.frame()
        assert view() == shown
