"""The run's status beside its buttons: one line, elided with '…' where the dock is narrow,
the whole text in its tooltip. Word-wrapped, it grew into a tall narrow column in a
narrow dock (Train beside the Hessian) and squeezed the plots, and its end was cut."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from ..studies._base import set_banner

MIN_WIDTH = 120


class StatusLine(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._full = ""
        self.setWordWrap(False)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(MIN_WIDTH)
        self.say("info", "")

    def say(self, kind, text):
        set_banner(self, kind, text)

    def setText(self, text):            # set_banner's, and anyone's: the whole text is kept
        self._full = str(text)
        self._fit()

    def text(self):
        """The whole text, not what fits on screen."""
        return self._full

    def shown_text(self):
        return super().text()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit()

    def _fit(self):
        room = self.contentsRect().width() - 2 * self.margin() - 18   # the banner's padding
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(room, 0))
        super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")
