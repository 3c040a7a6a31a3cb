"""Presentation mode: the backward pass as a slide show for a classroom projector.

Full screen, the editing chrome (menus, toolbars, docks, status bar) hidden, the
high-contrast `contrast` theme on the canvas, and a caption band along the bottom with
the step's title and caption in type a student in the back row can read; before the
first step (the title slide) the lesson's title, its lead (the opening sentences that fit in
LEAD_LINES lines at the caption's full size: the whole lesson is the Lesson panel's) and the
whole graph. Type sizes grow with the screen:
the band's, and the zoom at which each step is framed (the cards' smallest numbers
`readable_px()` tall; smaller, never under the window's legible size, only where the step's
cards and its whole formula card do not fit at that size: see step_view). The
keyboard (or a presenter's clicker, which sends PageDown / PageUp) steps through the
story through the window's player. F5 or Esc ends it and puts every piece of the window back.
"""
import math

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (QApplication, QDockWidget, QFrame, QHBoxLayout, QLabel, QScrollArea,
                               QSizePolicy, QToolBar, QVBoxLayout, QWidget)

from ...render import legible
from ...render import painter as render_painter
from ..literal import kept_whole
from . import step_view
from .card_rects import whole_card
from .lessons import lesson_lead
from .timeline import set_caption

THEME = "contrast"
TITLE_PT, CAPTION_PT, HINT_PT = 30, 21, 12     # on a screen 900 pixels tall, larger above
BASE_HEIGHT = 900
LEAD_LINES = 3             # the title slide's lead, in lines of the caption's full-size type
CAPTION_FIT = (1.0, 0.9, 0.8, 0.7)   # a long caption's type, tried in turn before it scrolls
BAND_SHARE = 0.45          # of the screen's height, at most, for a step's caption
LESSON_BAND_SHARE = 0.6    # before step 1: the lesson's paragraph above an overview of the graph
READABLE_SHARE = 1 / 60      # the cards' smallest numbers: this share of the screen's height
LARGEST_SHARE = 1 / 24       # ... and at most this share, as a slide's body text is
FILL = 0.65                  # of the view's width or height, a step's cards span (step_view._close_up)
MIN_READABLE_PX = 14.0
SLIDE_FLOOR_PX = 11.0        # the least they are drawn to show every card a slide names (step_view)

NEXT_KEYS = {Qt.Key.Key_Space, Qt.Key.Key_Right, Qt.Key.Key_PageDown, Qt.Key.Key_Down,
             Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_N}
BACK_KEYS = {Qt.Key.Key_Left, Qt.Key.Key_PageUp, Qt.Key.Key_Up, Qt.Key.Key_Backspace, Qt.Key.Key_P}
EXIT_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F5}
HANDLED = NEXT_KEYS | BACK_KEYS | EXIT_KEYS | {Qt.Key.Key_Home, Qt.Key.Key_End}

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
        self.title.setFont(_font(self.title_pt, bold=True))
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)   # a name is shown as written
        self.caption = QLabel()
        self.caption.setObjectName("presentationText")
        self.caption_pt = CAPTION_PT * scale
        self.caption.setFont(_font(self.caption_pt))
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
        self.hint.setFont(_font(HINT_PT * scale))
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
        probe.setFont(_font(self.caption_pt))
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


    def fit_caption(self, width, limit):
        """The band's height at `width` with the title's and caption's type as large as lets
        them fit in `limit` pixels (down to 70 %: a lesson's paragraph on a 1280x800
        projector reads whole rather than behind a scroll bar); above that it scrolls."""
        for share in CAPTION_FIT:
            for label, font in ((self.title, _font(self.title_pt * share, bold=True)),
                                (self.caption, _font(self.caption_pt * share))):
                if label.font() != font:
                    label.setFont(font)
            height = self.height_for(width)
            if height <= limit:
                break
        return height

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


ARROWS = "→↘↓↙←↖↑↗"         # toward a card, by the eighth of the circle it lies in (y down)
MARKER_PT = 14               # a marker's type on a screen 900 pixels tall, larger above
MARKER_PAD = 12.0            # pixels between a marker and the view's edge


class EdgeMarkers(QWidget):
    """Over the canvas's view: at its edge, a small label for each card the slide's caption or
    rule card names that the view could not show with the step's cards ('← x'), an arrow
    toward it (step_view.edge_markers). Never a card cut in half instead."""

    def __init__(self, canvas, scale=1.0):
        super().__init__(canvas)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        self.font_ = _font(MARKER_PT * scale, bold=True)
        self.markers = []
        self.cards = []

    def show_markers(self, markers, geometry, cards=()):
        """Show `markers` ([(name, (dx, dy))]) over the view at `geometry` (the viewport's),
        clear of `cards` (QRectF, the widget's pixels) where the edge leaves room."""
        self.setGeometry(geometry)
        self.markers = list(markers)
        self.cards = list(cards)
        self.setVisible(bool(self.markers))
        self.raise_()
        self.update()

    def rects(self):
        """[(text, QRectF)] of the markers, in the widget's pixels: each on the view's edge
        where the way toward its card leaves the view, kept apart from the ones before."""
        metrics = QFontMetricsF(self.font_)
        out = []
        w, h = self.width(), self.height()
        for name, (dx, dy) in self.markers:
            angle = math.atan2(dy, dx)
            arrow = ARROWS[int(round(angle / (math.pi / 4))) % 8]
            text = f"{arrow} {name}" if dx < 0 or (dx == 0 and dy < 0) else f"{name} {arrow}"
            size = (metrics.horizontalAdvance(text) + 20, metrics.height() + 10)
            reach = min((w / 2 - MARKER_PAD - size[0] / 2) / abs(dx) if dx else math.inf,
                        (h / 2 - MARKER_PAD - size[1] / 2) / abs(dy) if dy else math.inf)
            centre = QPointF(w / 2 + dx * reach, h / 2 + dy * reach)
            rect = QRectF(0, 0, *size)
            rect.moveCenter(centre)
            # along its edge, nearest first, to a place that hides no card nor another marker
            across = abs(centre.x() - w / 2) >= w / 2 - MARKER_PAD - size[0] / 2 - 1
            step = (0.0, size[1] / 2) if across else (size[0] / 2, 0.0)
            tries = [rect.translated(step[0] * k * sign, step[1] * k * sign)
                     for k in range(int(max(w, h) / max(min(size), 1.0)) + 1) for sign in (1, -1)]
            inside = QRectF(0, 0, w, h).adjusted(MARKER_PAD / 2, MARKER_PAD / 2, -MARKER_PAD / 2, -MARKER_PAD / 2)
            free = [r for r in tries if inside.contains(r)
                    and not any(r.intersects(other) for other in self.cards + [o for _, o in out])]
            out.append((text, free[0] if free else rect))
        return out

    def paintEvent(self, event):
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setFont(self.font_)
        for text, rect in self.rects():
            painter.setPen(QPen(QColor("#000000"), 2.0))
            painter.setBrush(QColor("#ffffff"))
            painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
        painter.end()


def _font(points, bold=False):
    font = QFont("DejaVu Sans")
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPointSizeF(points)
    font.setBold(bold)
    return font


class PresentationMode(QObject):
    """Enter / leave presentation mode on a MainWindow (`window.player` drives the steps)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.active = False
        self.band = None
        self._saved = None
        self._fit_pending = False
        self.markers = None

    # -- the story -------------------------------------------------------------------------
    @property
    def player(self):
        return self.window.player

    @property
    def index(self):
        return self.player.index

    def steps(self):
        story = getattr(self.window.controller.result, "story", None)
        return list(getattr(story, "steps", None) or [])

    def go(self, index):
        n = len(self.steps())
        index = max(-1, min(int(index), n - 1))
        self.player.set_index(index, animate=index >= 0 and index == self.index + 1)
        self.refresh()

    def next(self):
        self.go(self.index + 1)

    def previous(self):
        self.go(self.index - 1)

    def home(self):
        """The seed, as Home is in the window; the lesson's text is one step back."""
        self.go(0 if self.steps() else -1)

    def end(self):
        self.go(len(self.steps()) - 1)

    # -- entering and leaving --------------------------------------------------------------
    def toggle(self):
        if self.active:
            self.exit()
        else:
            self.enter()
        return self.active

    def enter(self):
        if self.active:
            return
        w = self.window
        canvas = w.canvas
        self._saved = dict(
            state=w.saveState(),
            window_state=w.windowState(),
            geometry=w.normalGeometry(),
            menu=not w.menuBar().isHidden(),
            status=not w.statusBar().isHidden(),
            theme=canvas.theme_name,
            grid=canvas.grid_visible,
            transform=canvas.transform(),
            frame=canvas.frameShape(),
            centre=canvas.mapToScene(canvas.viewport().rect().center()),
            hidden=[x for x in w.findChildren(QWidget) if isinstance(x, (QDockWidget, QToolBar))
                    and x.parent() is w and not x.isHidden()],
        )
        self.active = True
        if self.player.just_opened:
            # a lesson opened from the menu shows step 1; F5 then starts at its title slide,
            # as it does for a lesson opened from the command line (auditor H38x)
            self.player.set_index(-1)
        for widget in self._saved["hidden"]:
            widget.hide()
        w.menuBar().hide()
        w.statusBar().hide()
        self.band = CaptionBand(scale=self.type_scale())
        dock = QDockWidget("Caption", w)
        dock.setObjectName("presentationCaptionDock")
        dock.setTitleBarWidget(QWidget(dock))
        dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        dock.setWidget(self.band)
        w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        dock.show()
        self._dock = dock
        self.markers = EdgeMarkers(canvas, self.type_scale())
        canvas.set_grid_visible(False)
        self._saved["numbers_px"] = canvas.numbers_px
        canvas.set_numbers_px(self.rule_px())   # a tile's numbers as tall as the rule card's, or none
        canvas.set_theme(THEME)
        canvas.setFrameShape(QFrame.Shape.NoFrame)
        canvas.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        canvas.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        QApplication.instance().installEventFilter(self)
        canvas.viewport().installEventFilter(self)
        self.player.stepChanged.connect(self._step_changed)
        w.controller.evaluated.connect(self._evaluated)
        self._saved["framing"] = self.player.framing
        self.player.framing = dict(readable_px=self.readable_px(), max_zoom=self.max_zoom(), fill=FILL,
                                   floor_px=SLIDE_FLOOR_PX, rule_px=self.rule_px())
        self._saved["readable_px"] = canvas.readable_px
        canvas.set_readable_px(self.readable_px())   # a compact card reads from the back row too
        action = getattr(w, "actions_by_name", {}).get("present")
        if action is not None:
            action.setChecked(True)
        w.showFullScreen()
        screen = w.screen()
        if screen is not None and w.geometry() != screen.geometry():
            w.setGeometry(screen.geometry())   # no window manager to honour full screen
            w.setWindowState(w.windowState() | Qt.WindowState.WindowFullScreen)
        self.refresh()
        self.schedule_fit()
        canvas.setFocus()

    def exit(self):
        if not self.active:
            return
        w, saved = self.window, self._saved
        canvas = w.canvas
        self.active = False
        QApplication.instance().removeEventFilter(self)
        canvas.viewport().removeEventFilter(self)
        self.player.stepChanged.disconnect(self._step_changed)
        w.controller.evaluated.disconnect(self._evaluated)
        self.player.framing = saved["framing"]
        canvas.set_readable_px(saved["readable_px"])
        w.removeDockWidget(self._dock)
        self._dock.deleteLater()
        self._dock = self.band = None
        self.markers.deleteLater()
        self.markers = None
        canvas.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        canvas.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        canvas.set_numbers_px(saved["numbers_px"])
        canvas.set_theme(saved["theme"])
        canvas.setFrameShape(saved["frame"])
        canvas.set_grid_visible(saved["grid"])
        w.setWindowState(saved["window_state"])
        if not saved["window_state"] & Qt.WindowState.WindowFullScreen:
            if saved["window_state"] & Qt.WindowState.WindowMaximized:
                w.showMaximized()
            else:
                # The client rectangle as it was: restoreGeometry, made to bring back a window
                # from another session, moves one whose title bar it guesses off screen (with
                # no window manager, a window at y 0 came back 25 px lower).
                w.showNormal()
                w.setGeometry(saved["geometry"])
        w.restoreState(saved["state"])
        for widget in saved["hidden"]:
            widget.show()
        w.menuBar().setVisible(saved["menu"])
        w.statusBar().setVisible(saved["status"])
        if self.player.step is None:
            canvas.setTransform(saved["transform"])
            canvas.centerOn(saved["centre"])
        else:
            self.player.frame()     # the step on screen, framed for the window
        action = getattr(w, "actions_by_name", {}).get("present")
        if action is not None:
            action.setChecked(False)
        self._saved = None

    # -- showing ---------------------------------------------------------------------------
    def caption_text(self):
        """(title, text) of the band: the step's, or the document's lesson's lead before step 0."""
        doc = self.window.controller.doc
        steps = self.steps()
        i = self.index
        if 0 <= i < len(steps):
            step = steps[i]
            title = step.title or step.kind.replace("_", " ")
            return f"{i + 1}/{len(steps)}   {title}", step.caption or ""
        lesson = getattr(doc, "lesson", "") or ""
        if self.band is not None:
            lesson = self.band.lead(lesson, self._band_width())
        if not steps:
            lesson = (lesson + "\n\n" if lesson else "") + "(This document has no backward pass to show yet.)"
        return doc.title or "Untitled", lesson

    def refresh(self):
        if self.band is not None:
            self.band.show_text(*self.caption_text())
            self._size_band()

    def _size_band(self):
        """Dock areas ignore height-for-width: give the band the height its wrapped text needs."""
        band = self.band
        width = self._band_width()
        share = BAND_SHARE if self.player.step is not None else LESSON_BAND_SHARE
        limit = int(self.window.height() * share) if self.window.height() > 200 else 10 ** 6
        height = band.fit_caption(width, limit)   # above the limit the caption scrolls
        height = max(80, min(height, limit))
        if band.height() != height or band.minimumHeight() != height:
            band.setFixedHeight(height)
            self.schedule_fit()

    def _band_width(self):
        return max(self.band.width(), self.window.width(), 400)

    def _step_changed(self, _index):
        self.refresh()
        self.schedule_fit()

    def _evaluated(self, _result):
        self.refresh()
        self.schedule_fit()

    def schedule_fit(self):
        """Fit after Qt has settled the full-screen geometry (and after the canvas's own fit)."""
        if not self._fit_pending:
            self._fit_pending = True
            QTimer.singleShot(0, self.fit)

    def screen_height(self):
        screen = self.window.screen()
        return screen.geometry().height() if screen is not None else BASE_HEIGHT

    def type_scale(self):
        """How much larger than on a 900-pixel screen the band's type is."""
        return max(1.0, self.screen_height() / BASE_HEIGHT)

    def readable_px(self):
        """How tall the cards' smallest numbers must be for the back row, in pixels."""
        return max(MIN_READABLE_PX, self.screen_height() * READABLE_SHARE)

    def rule_px(self):
        """The least size of a rule card's text: one step (step_view.LEVEL_STEP) under the
        back row's, whatever the cards' (a step too large is framed smaller, its rule card
        drawn larger than its cards): its digits (~0.73 of that) 9.2 px tall at 1280 x 800,
        11.8 px at 1920 x 1080. With the cards, an auditor measured ~7 px on lesson 14."""
        return self.readable_px() * step_view.LEVEL_STEP

    def title_floor_px(self):
        """The least size of the title slide's cards' numbers drawn in full (else compact):
        the window's legible size (READABLE_PX) grown with the screen as the band's type is,
        9 px at 1280 x 800, 10.8 px at 1920 x 1080 (lesson 26's were drawn 10.7 px tall there,
        under what the slides' rule cards and named cards keep at that size)."""
        return legible.READABLE_PX * self.type_scale()

    def max_zoom(self):
        """The largest zoom a step (or the lesson's picture) is shown at: the cards' numbers
        LARGEST_SHARE of the screen's height, as tall as a slide's body text (24 pt on a
        7.5 in slide is 1/22.5 of it), 45 px on a 1080-pixel screen (zoom 3.97 at 96 dpi),
        their names 59 px. A fixed 3.0 drew them 34 px, the size of the caption's text,
        and a graph of two cards used half of a 1920 x 1080 screen."""
        return legible.readable_zoom(self.window.canvas.logicalDpiY(), self.screen_height() * LARGEST_SHARE)

    def picture_rect(self):
        """The scene rectangle of the graph (before the first step: the lesson's picture)."""
        r = self.window.canvas.renderer
        if not r.doc.nodes:
            return QRectF()
        return QRectF(r.bounds(None))

    def fit(self):
        """Each step framed as in the window, at the presentation's readable zoom; before
        the first step the whole graph, as large as the screen allows."""
        self._fit_pending = False
        if not self.active:
            return
        self.refresh()        # the title slide's lead is measured at the band's width
        canvas = self.window.canvas
        if self.player.step is not None:
            self.player.frame()
            self.markers.show_markers(getattr(canvas, "edge_markers", []), canvas.viewport().geometry(),
                                      self._cards_in_view())
            return
        self.markers.show_markers([], canvas.viewport().geometry())
        self._fit_title()

    def _fit_title(self):
        """The title slide: the whole graph as large as the view allows (up to `max_zoom`), its
        cards drawn in full where they fit at `title_floor_px` (under the back row's: as a
        step too large is framed), laid out as the steps are (no card moves at step
        1), else as Fit to Window lays it out to read; else drawn compact, as Fit shows it.
        Measured with the cards in full: measured as short as the window had drawn them
        compact, lessons 7, 8 and 10 at 1920 x 1080 ran a card's foot under the caption band."""
        canvas = self.window.canvas
        if not canvas.renderer.doc.nodes:
            return
        floor = self.title_floor_px()
        legible_zoom = step_view.readable_zoom(canvas, floor)
        for lay_out in (self.player.lay_out, lambda: canvas.relayout_unplaced(floor)):
            lay_out()                       # (the cards in full: as tall as they are drawn)
            rect = self.picture_rect()
            view = canvas.viewport().rect()
            zoom = min(view.width() / rect.width(), view.height() / rect.height(), self.max_zoom())
            if zoom >= legible_zoom:
                shown = step_view.text_px(canvas, zoom)
                canvas.set_readable_px(min(self.readable_px(), shown * (1 - 1e-9)))   # in full
                canvas.resetTransform()
                canvas.scale(zoom, zoom)
                canvas.centerOn(rect.center())
                return
        canvas.set_readable_px(self.readable_px())   # compact cards read from the back row
        canvas.fit()

    def _cards_in_view(self):
        """The cards and the rule card the view shows (its pixels): what a marker must not hide."""
        canvas = self.window.canvas
        r = canvas.renderer
        rects = [whole_card(r, n, badge_line=True) for n in r.doc.nodes if n in r.positions]
        step = self.player.step
        formula = None if step is None else render_painter.formula_rect(r, step)
        if formula is not None:
            rects.append(formula)
        return [canvas.mapFromScene(rect).boundingRect().toRectF() for rect in rects]

    # -- keys ------------------------------------------------------------------------------
    def eventFilter(self, obj, event):
        if not self.active:
            return False
        kind = event.type()
        if kind == QEvent.Type.Resize and obj is self.window.canvas.viewport():
            self.schedule_fit()
            return False
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress,
                        QEvent.Type.KeyRelease):
            return False
        if not isinstance(obj, QWidget) or obj.window() is not self.window:
            return False
        key = event.key()
        if key not in HANDLED or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()   # the key comes to us as a KeyPress, not to a menu shortcut
            return True
        if kind == QEvent.Type.KeyRelease:
            return True      # the press stepped; its release is ours too (Space would play)
        self.handle_key(key)
        return True

    def handle_key(self, key):
        if key in EXIT_KEYS:
            self.exit()
        elif key in NEXT_KEYS:
            self.next()
        elif key in BACK_KEYS:
            self.previous()
        elif key == Qt.Key.Key_Home:
            self.home()
        elif key == Qt.Key.Key_End:
            self.end()

