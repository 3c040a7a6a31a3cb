"""The run's status under its buttons, across the dock: the whole text, wrapped to two
lines at most; only a text longer than two lines ends in '…', whole in its tooltip. One
elided line cut what mattered ('Undo puts the Variables ba…' at 1280 x 800); an unbounded
wrap grew into a tall column that squeezed the plots."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from ..studies.banners import set_banner

MIN_WIDTH = 120
LINES = 2
PADDING = "3px 8px"   # two lines beside the buttons, little taller than the buttons


class StatusLine(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._full = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(MIN_WIDTH)
        self.say("info", "")

    def say(self, kind, text):
        set_banner(self, kind, text, PADDING)

    def setText(self, text):            # set_banner's, and anyone's: the whole text is kept
        self._full = str(text)
        self._fit()

    def text(self):
        """The whole text, not what fits on screen."""
        return self._full

    def shown_text(self):
        return super().text()

    def lines_shown(self):
        """How many lines the shown text takes at this width."""
        return max(1, round((self._text_height(self.shown_text())) / self.fontMetrics().lineSpacing()))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit()

    def _room(self):
        return max(self.contentsRect().width() - 2 * self.margin() - 18, 1)   # the padding, and some

    def _text_height(self, text):
        flags = int(Qt.TextFlag.TextWordWrap)
        return self.fontMetrics().boundingRect(0, 0, self._room(), 10 ** 6, flags, text).height()

    def _fit(self):
        """The whole text if it takes two lines or fewer; else as many words as do, and '…'."""
        most = LINES * self.fontMetrics().lineSpacing() + 1
        shown = self._full
        if self._text_height(shown) > most:
            words = self._full.split(" ")
            low, high = 0, len(words)      # the most words that fit with '…' after them
            while low < high:
                mid = (low + high + 1) // 2
                if self._text_height(" ".join(words[:mid]) + " …") <= most:
                    low = mid
                else:
                    high = mid - 1
            shown = " ".join(words[:low]) + " …"
        if shown != super().text():
            super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")
