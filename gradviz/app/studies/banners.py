"""The banners over a study's plots: a coloured box of rich text that keeps the height its
words need (WholeLabel) and, where its detail would take too many lines, shows its headline
with 'Details ▸' (Banner). The studies and the Train dock say their verdicts in them."""
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel

from ..whole_label import WholeLabel
from .plot_colours import banner_sheet, follow_banner
from .plots_and_words import PlotsAndWords


FOLD_LINES = 4      # a banner with a detail longer than this at its width shows its headline first


class Banner(WholeLabel):
    """A banner that can read as its headline, its detail a click away: where the words
    with their detail would take more than FOLD_LINES lines at the banner's width, it shows
    the headline and 'Details ▸', and the whole text (with 'Less ◂') once clicked; the
    choice holds for the texts after it. In a 340 px column at 1280 x 800 the Batch
    Jacobian's warning took nine lines and pushed both its plots below the dock's fold.
    `whole`: never squeezed below its words' height (WholeLabel)."""

    def __init__(self, whole=False):
        super().__init__()
        self.whole = whole
        self.head, self.detail = "", ""
        self.opened = False
        self.for_slide = False      # drawn for Export View: whole, without a link
        self._width = -1
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.LinksAccessibleByMouse
                                     | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.linkActivated.connect(self._toggle)

    def setText(self, text):
        self.set_parts(text)

    def set_parts(self, head, detail=""):
        self.head, self.detail = head, detail
        self._width = -1
        self._show()

    def whole_text(self):
        """The headline and its detail, whatever the banner shows now."""
        return f"{self.head} {self.detail}" if self.detail else self.head

    def folded(self):
        """True while the banner shows its headline alone."""
        return bool(self.detail) and not self.opened and not self.for_slide and self._long()

    def _long(self):
        probe = QLabel()
        probe.setWordWrap(True)
        probe.setTextFormat(Qt.TextFormat.RichText)
        probe.setStyleSheet(self.styleSheet())
        probe.setFont(self.font())
        probe.setText(self.whole_text())
        probe.ensurePolished()
        lines = probe.heightForWidth(max(self.width(), 1)) / max(self.fontMetrics().lineSpacing(), 1)
        return lines > FOLD_LINES + 1     # the padding and border take about a line

    def _show(self):
        if not self.detail or self.for_slide:
            text = self.whole_text()
        elif self.folded():
            text = f"{self.head} <a href='open'>Details ▸</a>"
        else:
            text = f"{self.whole_text()} <a href='close'>Less ◂</a>" if self._long() else self.whole_text()
        if text != self.text():
            QLabel.setText(self, text)
            self._hold()
            refit = self.parentWidget()
            while refit is not None and not isinstance(refit, PlotsAndWords):
                refit = refit.parentWidget()
            if refit is not None:
                QTimer.singleShot(0, refit, refit.fit)     # the words' height has changed

    def _toggle(self, link):
        self.opened = link == "open"
        self._show()

    def resizeEvent(self, event):
        QLabel.resizeEvent(self, event)
        if self.detail and event.size().width() != self._width:
            self._width = event.size().width()
            self._show()
        self._hold()

    def _hold(self):
        if self.whole:
            super()._hold()


def banner(kind="info", whole=False):
    """A coloured box of rich text (`kind`: info, ok, warning, error; a Banner); `whole`:
    never squeezed below its words' height (WholeLabel)."""
    label = Banner(whole)
    label.setWordWrap(True)
    label.setTextFormat(Qt.RichText)
    set_banner(label, kind, "")
    return label


def set_banner(label, kind, html, padding="6px 8px", detail=""):
    """`label` as a banner of `kind` saying `html`, then `detail` (shown on a click where the
    two are long: Banner)."""
    label.setStyleSheet(banner_sheet(kind, padding))     # in the window's theme
    label.setProperty("kind", kind)
    label.setProperty("banner_padding", padding)
    follow_banner(label)                              # plot_colours.use restyles it
    if isinstance(label, Banner):
        label.set_parts(html, detail)
    else:
        label.setText(f"{html} {detail}" if detail else html)
    label.setVisible(bool(html))
