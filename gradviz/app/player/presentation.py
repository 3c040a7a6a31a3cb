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
from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer
from PySide6.QtWidgets import QApplication, QDockWidget, QFrame, QToolBar, QWidget

from ...render import legible
from ...render import painter as render_painter
from . import framing
from .framing_dock import LEVEL_STEP
from .caption_band import TITLE_LINES, CaptionBand
from .card_rects import whole_card
from .edge_markers import EdgeMarkers

THEME = "contrast"
BASE_HEIGHT = 900
BAND_SHARE = 0.45          # of the screen's height, at most, for a step's caption
LESSON_BAND_SHARE = 0.6    # before step 1: the lesson's paragraph above an overview of the graph
READABLE_SHARE = 1 / 60      # the cards' smallest numbers: this share of the screen's height
LARGEST_SHARE = 1 / 24       # ... and at most this share, as a slide's body text is
FILL = 0.65                  # of the view's width or height, a step's cards span (framing_step._close_up)
MIN_READABLE_PX = 14.0
SLIDE_FLOOR_PX = 11.0        # the least they are drawn to show every card a slide names (framing_slides)

NEXT_KEYS = {Qt.Key.Key_Space, Qt.Key.Key_Right, Qt.Key.Key_PageDown, Qt.Key.Key_Down,
             Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_N}
BACK_KEYS = {Qt.Key.Key_Left, Qt.Key.Key_PageUp, Qt.Key.Key_Up, Qt.Key.Key_Backspace, Qt.Key.Key_P}
EXIT_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F5}
HANDLED = NEXT_KEYS | BACK_KEYS | EXIT_KEYS | {Qt.Key.Key_Home, Qt.Key.Key_End}


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
        canvas.set_before_story(True)     # the title slide tells no gradient before the steps do
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
        canvas.set_before_story(False)
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
        lines = TITLE_LINES if self.player.step is not None else None     # a step's title
        height = band.fit_caption(width, limit, lines)     # above the limit the caption scrolls
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
            QTimer.singleShot(0, self, self.fit)

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
        """The least size of a rule card's text: one step (framing_dock.LEVEL_STEP) under the
        back row's, whatever the cards' (a step too large is framed smaller, its rule card
        drawn larger than its cards): its digits (0.76 of that) 9.6 px tall at 1280 x 800,
        12.3 px at 1920 x 1080. With the cards, an auditor measured ~7 px on lesson 14."""
        return self.readable_px() * LEVEL_STEP

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
        legible_zoom = framing.readable_zoom(canvas, floor)
        for lay_out in (self.player.lay_out, lambda: canvas.relayout_unplaced(floor)):
            lay_out()                       # (the cards in full: as tall as they are drawn)
            rect = self.picture_rect()
            view = canvas.viewport().rect()
            zoom = min(view.width() / rect.width(), view.height() / rect.height(), self.max_zoom())
            if zoom >= legible_zoom:
                shown = framing.text_px(canvas, zoom)
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

