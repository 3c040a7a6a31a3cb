"""Presentation mode's caption band: the step's title and caption (before the first step the
lesson's title and lead) along the bottom of the screen, large and high-contrast, its type
fitted to the band's room before it scrolls; and the type slides are written in."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from ..literal import kept_whole
from .lessons import lesson_lead
from .timeline import set_caption

TITLE_PT, CAPTION_PT, HINT_PT = 30, 21, 12     # on a screen 900 pixels tall, larger above
LEAD_LINES = 3             # the title slide's lead, in lines of the caption's full-size type
CAPTION_FIT = (1.0, 0.9, 0.8, 0.7)   # a long caption's type, tried in turn before it scrolls
TITLE_LINES = 2            # a step's title takes at most this many lines, in smaller type if it must

HINT = "Space / →  next     ←  back     Esc  leave"


class CaptionBand(QWidget):
    """The bottom band: the step's title and caption (or the lesson), large and high-contrast."""

    def __init__(self, parent=None, scale=1.0):
        super().__init__(parent)
        self.setObjectName("presentationCaption")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(
            "#presentationCaption { background: #ffffff; border-top: 5px solid #000000; }"
            "QLabel { color: #000000; background: transparent; }"
            "QLabel#presentationHint { color: #3d3d3d; }")
        self.title = QLabel()
        self.title.setObjectName("presentationTitle")
        self.title_pt = TITLE_PT * scale
        self.title.setFont(slide_font(self.title_pt, bold=True))
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)   # a name is shown as written
        self.caption = QLabel()
        self.caption.setObjectName("presentationText")
        self.caption_pt = CAPTION_PT * scale
        self.caption.setFont(slide_font(self.caption_pt))
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # A lesson longer than the band scrolls (wheel or scroll bar): never cut off unseen.
        self.scroll = QScrollArea()
        self.scroll.setObjectName("presentationScroll")
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scroll.setWidget(self.caption)
        self.scroll.viewport().setAutoFillBackground(False)
        self.scroll.setMinimumHeight(1)   # a short band squeezes the caption: it scrolls
        self.hint = QLabel(HINT)
        self.hint.setObjectName("presentationHint")
        self.hint.setFont(slide_font(HINT_PT * scale))
        self.hint.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        top = QHBoxLayout()
        top.setSpacing(24)
        top.addWidget(self.title, 1)
        top.addWidget(self.hint, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(int(40 * scale), int(14 * scale), int(40 * scale), int(18 * scale))
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.scroll, 1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def show_text(self, title, caption):
        """Show `title` and `caption`; a new caption starts at its top (the same one keeps
        where it was scrolled to)."""
        self.title.setText(kept_whole(title))   # wrapped at spaces, never inside dout/dx
        if caption != getattr(self.caption, "plain", None):
            set_caption(self.caption, caption)
            self.scroll.verticalScrollBar().setValue(0)
        self.scroll.setVisible(bool(caption))

    def lead(self, text, width):
        """The title slide's text: the lesson's lead (`lesson_lead`, its opening sentences)
        in at most LEAD_LINES lines of the caption's full-size type at the band's `width`, a
        few lines read from the back of the room rather than the whole lesson in small type."""
        probe = QLabel()
        probe.setFont(slide_font(self.caption_pt))
        probe.setWordWrap(True)
        probe.setTextFormat(Qt.TextFormat.RichText)
        m = self.layout().contentsMargins()
        inner = width - m.left() - m.right() - self.scroll.verticalScrollBar().sizeHint().width()
        room = QFontMetricsF(probe.font()).lineSpacing() * (LEAD_LINES + 0.5)

        def fits(candidate):
            set_caption(probe, candidate)
            return probe.heightForWidth(max(1, inner)) <= room
        return lesson_lead(text, fits, whole_sentences=True)

    def height_for(self, width):
        """The height the band needs to show all its text at `width` (no scrolling)."""
        layout = self.layout()
        m = layout.contentsMargins()
        inner = width - m.left() - m.right()
        top = layout.itemAt(0).layout()
        title_w = inner - top.spacing() - self.hint.sizeHint().width()
        self._hold_title(title_w)
        # measured here, not by the row's layout, which keeps a height for the last title
        height = m.top() + m.bottom() + max(self.title.minimumHeight(), self.hint.sizeHint().height())
        if self.scroll.isVisibleTo(self):
            bar = self.scroll.verticalScrollBar().sizeHint().width()
            height += layout.spacing() + self.caption.heightForWidth(inner - bar)
        return height


    def fit_caption(self, width, limit, title_lines=TITLE_LINES):
        """The band's height at `width` with the title's and caption's type as large as lets
        them fit in `limit` pixels (down to 70 %: a lesson's paragraph on a 1280x800
        projector reads whole rather than behind a scroll bar); above that it scrolls.
        The title's type is also as large as keeps it to `title_lines` lines (on a 1024 x 768
        screen lesson 14's longer step titles wrapped to three lines of 30 pt); None (a
        lesson's title slide): its full type."""
        title_share = CAPTION_FIT[0]
        if title_lines is not None:
            for title_share in CAPTION_FIT:     # (the least where none keeps to them)
                self._set_font(self.title, slide_font(self.title_pt * title_share, bold=True))
                if self._title_lines(width) <= title_lines:
                    break
        for share in CAPTION_FIT:
            self._set_font(self.title, slide_font(self.title_pt * min(share, title_share), bold=True))
            self._set_font(self.caption, slide_font(self.caption_pt * share))
            height = self.height_for(width)
            if height <= limit:
                break
        return height

    @staticmethod
    def _set_font(label, font):
        if label.font() != font:
            label.setFont(font)

    def _title_lines(self, width):
        """How many lines the title wraps to in the band `width` wide, in its type now."""
        self.height_for(width)
        return round(self.title.minimumHeight() / QFontMetricsF(self.title.font()).lineSpacing())

    def _hold_title(self, width):
        """The title as tall as its wrapped text at `width`: a short band squeezes the
        caption (it scrolls), never the title, whose foot holds the underscores (a title
        cut there read 'c stopped' for 'c_stopped')."""
        held = self.title.minimumHeight()
        self.title.setMinimumHeight(0)         # QLabel's height for a width counts it in
        need = self.title.heightForWidth(max(1, width))
        self.title.setMinimumHeight(need if need > 0 else held)

    def resizeEvent(self, event):
        layout = self.layout()
        m = layout.contentsMargins()
        top = layout.itemAt(0).layout()
        self._hold_title(event.size().width() - m.left() - m.right() - top.spacing()
                         - self.hint.sizeHint().width())
        super().resizeEvent(event)


def slide_font(points, bold=False):
    """The sans type of the slides' text, `points` large."""
    font = QFont("DejaVu Sans")
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPointSizeF(points)
    font.setBold(bold)
    return font
