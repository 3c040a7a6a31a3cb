"""The run's status under its buttons, across the dock: the whole text, wrapped to the
lines it needs (whole_label.WholeLabel), never cut. Two lines with '…' after them cut the
advice of the longest messages ('…choose parameters the …' when the loss does not depend
on a Variable; '…a run starts from them, its …' after an Undo at 1280 x 800); one elided
line had cut 'Undo puts the Variables ba…'."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSizePolicy

from ..studies.banners import set_banner
from ..whole_label import WholeLabel

MIN_WIDTH = 120
PADDING = "3px 8px"   # two lines beside the buttons, little taller than the buttons


class StatusLine(WholeLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(MIN_WIDTH)
        self.say("info", "")

    def say(self, kind, text):
        set_banner(self, kind, text, PADDING)
