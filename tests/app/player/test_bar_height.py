"""The player bar's height is set before the window lays it out, never a turn of the event
loop later: measured on 181fa406, a new window resized to 1280 x 800 and shown gave its bar
108 px for one turn, then 92 (the caption fitted at the unshown window's 640 px was three
lines tall, and the bar's row kept that size hint until its posted relayout), so the canvas
jumped 16 px on the first frames (there the story was told before the window showed: a
card's measure told it, fixed in d054c58b; a story ready before the window shows is what
this test makes)."""
from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QToolBar


class _Heights(QObject):
    """The heights a widget is resized to, in order."""

    def __init__(self, widget):
        super().__init__()
        self.seen = []
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Resize:
            self.seen.append(event.size().height())
        return False


def test_the_bar_has_its_height_when_the_window_shows(open_window, qtbot):
    w = open_window(None, shown=False)
    qtbot.waitUntil(lambda: bool(w.player.steps))   # told while the window is 640 px wide
    toolbar = w.findChild(QToolBar, "playerBar")
    heights = _Heights(toolbar)
    w.resize(1280, 800)
    w.show()
    for _ in range(5):
        QCoreApplication.processEvents()
    assert heights.seen
    assert set(heights.seen) == {toolbar.height()}, heights.seen
