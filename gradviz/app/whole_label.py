"""A label of words that wrap and keep the height they need (studies' banners, the
inspector's inline errors): Qt gives a wrapped label the height of its size hint's width,
so at a narrower width its last lines were cut."""
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel


class WholeLabel(QLabel):
    """A label of words that wrap, never squeezed below the height they need at its width:
    a view's message (the node and rule where a NaN starts) stays whole and the dock
    scrolls to the plots below it (at 1280 x 800 the Jacobian's NaN warning lost its last
    line to the plots)."""

    def setText(self, text):
        super().setText(text)
        self._hold()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._hold()

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._hold()

    def _hold(self):
        need = self.heightForWidth(self.width()) if self.text() else 0
        if need != self.minimumHeight():
            self.setMinimumHeight(max(need, 0))
