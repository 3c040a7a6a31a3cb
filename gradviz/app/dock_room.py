"""How the docks along the bottom share the window's height with the canvas.

The canvas keeps CANVAS_MIN_HEIGHT however the docks are dragged or a remembered layout
asks: at the readable zoom (the cards' digits 9 px) a story step's card with its rule card
needs 305 px of viewport for half of the 498 steps of samples/, and 57% of them fit in the
344 px a 360 px canvas shows (its scroll bar takes 16); at 284 px (the Hessian dock at
1280 x 800 before) only 26% did, the rest docked their rule card over other cards. A bottom
dock opens at BOTTOM_SHARE of the height it shares with the canvas, or as tall as its
content needs, never more than leaves the canvas its minimum; at 1280 x 800 that is about
280 px. Its title bar stands at its left side (as napari's bottom docks do): a bottom dock
is wide and short, and a title row would take 22 of its few pixels.

A study dock goes along the bottom only where it leaves the canvas STORY_HEIGHT; elsewhere
the studies are tabs beside the palette, and the canvas keeps the size the story is framed in
(below).

Along the bottom the tabs of docks tabbed together stand in a row above them, where six study
titles read whole at 1280 px; down the side they were cut to "Gradi…", 44 px a tab. The dock
itself, its title bar and its tabs' titles, is dock_widget's.

A study in front beside the palette takes its column's height while the graph is edited: the
inspector, provenance and code above it fold to their title bar (which says how they open)
and tabs, and open where the user returns to them: their tab, their title bar, their
separator dragged, a selected node, the story played (the provenance, where the study keeps
the height it reads at). At 70% of the column a study showed 380 px at 1280 x 800 and
scrolled its plot or its table below the fold.
"""
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QTabBar, QTabWidget, QToolBar

from .dock_widget import ACROSS, Dock

CANVAS_MIN_HEIGHT = 360
BOTTOM_SHARE = 0.45
# The canvas height every step of every sample is framed in with a study along the bottom
# (measured over samples/ with the Jacobian open, test_step_framing's checks): at 1280 x 800
# the bottom dock left 376 px and 21 steps of 5 samples unframed (attention's fan-in showed
# none of V, K, Q); at 1920 x 1080, 500 px and 3 steps of attention, and still at 608 px;
# 618 px framed them all, so 630 leaves a margin. At 1920 x 1080 that is a 280 px study
# dock; at 1280 x 800 (634 px in all) there is no such room, and the studies go beside
# the palette, where the canvas keeps its size.
STORY_HEIGHT = 630
STUDY_LEAST_HEIGHT = 266     # a study view's least height (240) and its row of tabs
STUDY_SHARE = 0.7            # a study below the inspector takes this share of their column
INSPECTOR_SHARE = 0.5        # the inspector's share of that column when no study is in front
CODE_SHARE = 0.7             # the Code's share of it, in front above the palette or the lesson


def tabs_above(window):
    """Tabbed docks along the bottom (the studies, Train) list their tabs in a row above
    them: 26 px of their height, and every title whole."""
    for area in ACROSS:
        window.setTabPosition(area, QTabWidget.TabPosition.North)


def studies_fit_below(room):
    """Can a study dock share `room` px of height with the canvas, the canvas keeping the
    height the story is framed in?"""
    return room - STUDY_LEAST_HEIGHT >= STORY_HEIGHT


def squeezing_studies(window, docks):
    """The docks of `docks` shown along the bottom (or top) while the canvas is lower than
    STORY_HEIGHT: where a study opened here would not have gone (a layout remembered from
    a larger window, or dragged there)."""
    if window.centralWidget().height() >= STORY_HEIGHT:
        return []
    return [d for d in docks if d.isVisible() and not d.isFloating() and window.dockWidgetArea(d) in ACROSS]


def tab_beside(window, docks, anchor):
    """`docks` as tabs in `anchor`'s group, in their order (those hidden stay hidden)."""
    area = window.dockWidgetArea(anchor)
    for dock in docks:
        hidden = dock.isHidden()
        window.addDockWidget(area, dock)
        window.tabifyDockWidget(anchor, dock)
        dock.setHidden(hidden)
        anchor = dock


def open_bottom(window, dock, need=0, canvas_least=CANVAS_MIN_HEIGHT):
    """Size `dock`, just shown along the bottom (or top), to BOTTOM_SHARE of the height it
    shares with the canvas, taller if its content `need`s it, and never so tall that the
    canvas is left below `canvas_least` (nor CANVAS_MIN_HEIGHT). A floating dock or one at
    a side is left alone."""
    if dock.isFloating() or not dock.isVisible() or window.dockWidgetArea(dock) not in ACROSS:
        return
    window.layout().activate()          # the heights as the shown dock leaves them
    room = window.centralWidget().height() + dock.height()
    least = max(canvas_least, CANVAS_MIN_HEIGHT)
    want = min(max(int(room * BOTTOM_SHARE), need), room - least)
    if dock.height() < want or window.centralWidget().height() < least:
        window.resizeDocks([dock], [want], Qt.Orientation.Vertical)
        window.layout().activate()
        tabs = want - dock.height()     # a tabbed dock's group holds its tab bar too
        if tabs > 0:
            window.resizeDocks([dock], [want + tabs], Qt.Orientation.Vertical)


class TabClicks(QObject):
    """A click on the tab in front of its row, which Qt reports nowhere (tabifiedDockWidget-
    Activated says only a change of tab), yet is where the user returns to a folded dock, or
    to a study whose column the inspector was given: `clicked(dock)` hears of it."""

    def __init__(self, window, clicked):
        super().__init__(window)
        self.window, self.clicked = window, clicked

    def watch(self):
        for bar in self.window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if not bar.property("clicksWatched"):
                bar.setProperty("clicksWatched", True)
                bar.installEventFilter(self)

    def eventFilter(self, bar, event):
        if event.type() == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton:
            index = bar.tabAt(event.position().toPoint())
            text = bar.tabText(index) if index >= 0 and index == bar.currentIndex() else None
            dock = next((d for d in self.window.children() if isinstance(d, Dock) and in_front(d)
                         and text in d.forms), None)
            if dock is not None:
                QTimer.singleShot(0, dock, lambda: self.clicked(dock))
        return False


def drop_retired_tab_bars(window):
    """Delete now the tab bars of `window` that Qt has let go of (restoreState, tabify, a dock
    moved; call it where they were let go of, outside an event handler or in the same one):
    Qt deletes them later (deleteLater), and until then they stay shown where they were last
    laid out. Those let go of while the window was built wait for an event loop to start:
    a script that shows the window and processes its events, never running the loop, painted
    them over the docks ('Palette | Lesson' twice over the lesson's text, 'Train' at (0, 0)).
    A bar still in use has no deletion pending and stays."""
    for bar in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
        QCoreApplication.sendPostedEvents(bar, QEvent.Type.DeferredDelete)


def restore_docks(window, state):
    """`window.restoreState(state)`, without the tab bars it lets go of (drop_retired_tab_bars)."""
    restored = window.restoreState(state)
    drop_retired_tab_bars(window)
    return restored


def in_front(dock):
    """True when `dock` is shown and the visible tab of its group (or not tabbed)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def front_action(window, dock, opened=None):
    """A ticked-when-open entry (menu, shortcut, toolbar button) for `dock` that shows it and
    brings it in front of its tabs; it closes the dock only when the dock is in front, where
    the user sees what the press closes. Qt's toggleViewAction closed a dock that was open
    behind another tab (Ctrl+Alt+1 on a Jacobian behind the Gradient check made it vanish).
    `opened(dock)` runs once the shown dock has its place (sizing it, say)."""
    action = QAction(getattr(dock, "title", dock.windowTitle()), window)
    action.setCheckable(True)
    toggle = dock.toggleViewAction()
    action.setChecked(toggle.isChecked())
    toggle.toggled.connect(action.setChecked)

    def pressed(_checked):
        if in_front(dock):
            dock.close()
        else:
            dock.show()
            dock.raise_()
            if opened is not None:
                QTimer.singleShot(0, dock, lambda: opened(dock))
        action.setChecked(toggle.isChecked())
    action.triggered.connect(pressed)
    return action


def not_restored_text(titles, canvas):
    """The status line that says why a remembered layout was not restored, in one line at
    1280 x 800: `titles` the studies along the bottom, `canvas` the height they leave it."""
    what = f"its {titles[0]}" if len(titles) == 1 else f"its {len(titles)} studies"
    return (f"Saved layout not restored: in this window {what} along the bottom would leave the "
            f"graph {canvas} px tall, and a story step needs {STORY_HEIGHT} px.")


class StudyPlacement:
    """Where the main window puts its study docks (mixed into it): a study placed before it
    shows, along the bottom where the canvas keeps STORY_HEIGHT, else beside the palette
    sharing the inspector's column; a remembered layout that would squeeze the canvas is
    refused, and the studies it held open again where they fit. The window holds the docks
    (study_docks, palette_dock, inspector_dock, provenance_dock, code_dock, train_dock), the
    player and the provenance panel, and makes a study's view (_create_study_view)."""

    def show_study(self, title):
        """Open the study dock `title` and bring it to the front, as its menu entry does.
        Placed before it shows: callers open several in a row (a layout not restored, the
        studies a document computes), and a study joins the others where they are once one
        is open, so placing them later left every one where the first run's layout keeps
        the tabs, along the bottom (six tabs 68 px tall over a 508 px canvas at 1280 x 800)."""
        dock = self.study_docks[title]
        self._place_studies(dock)
        dock.show()
        dock.raise_()
        self._create_study_view(title)
        QTimer.singleShot(0, dock, lambda: self._study_opened(dock))

    def _study_opened(self, dock):
        """A study the user opens comes to the front of its tabs: along the bottom at its share
        of the height, never leaving the canvas less than the story is framed in; where the
        window has no such room (1280 x 800, 1920 x 1080), as a tab beside the palette, the
        canvas keeping its size (dock_room.STORY_HEIGHT)."""
        self._place_studies(dock)
        dock.raise_()
        open_bottom(self, dock, dock.view.minimumHeight(), STORY_HEIGHT)

    def _place_studies(self, dock):
        """The first study opened puts the study tabs where the window has room for them:
        along the bottom, or beside the palette. While another is open they join it where it
        is (the user may have moved it); a floating one is left alone."""
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        if dock.isFloating() or any(not d.isHidden() for d in self.study_docks.values() if d is not dock):
            return
        at_bottom = self.dockWidgetArea(dock) == bottom
        below = studies_fit_below(self._bottom_room())
        if below == at_bottom:
            return
        docks = list(self.study_docks.values())
        if below:      # beside Train where it is along the bottom, as they were built
            train = getattr(self, "train_dock", None)
            if train is None or train.isFloating() or self.dockWidgetArea(train) != bottom:
                self.addDockWidget(bottom, docks[0])
                train, docks = docks[0], docks[1:]
            tab_beside(self, docks, train)
        else:
            anchor = next((d for d in (self.palette_dock, self.inspector_dock) if not d.isFloating()), None)
            if anchor is None:
                self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, docks[0])
                anchor, docks = docks[0], docks[1:]
            tab_beside(self, docks, anchor)
            dock.show()
            self._share_column(dock, self._study_share())
        dock.show()

    def _bottom_room(self):
        """The height the canvas shares with the docks along the bottom: from the canvas'
        top to the player bar (or the status bar), whatever those docks show now."""
        self.layout().activate()
        ends = [bar.geometry().top() for bar in self.findChildren(QToolBar) if bar.isVisible()
                and self.toolBarArea(bar) == Qt.ToolBarArea.BottomToolBarArea]
        ends.append(self.statusBar().geometry().top() if self.statusBar().isVisible() else self.height())
        return min(ends) - self.centralWidget().geometry().top()

    def _tab_in_front(self, dock):
        """A tab brought to the front below the inspector shares the column by what it is: a
        study takes the column, the docks above it folded (_share_column), the palette or the
        lesson gives the inspector its share back (it kept 174 px of a 576 px column at
        1280 x 800 once a study had been opened there); a folded dock above brought to the
        front by the user opens (_open_folded), not one the story brings there. Shared once
        the tabs have changed: laid out while they change, a study opened beside another kept
        a stale height and scrolled its words."""
        if dock in self.study_docks.values():
            QTimer.singleShot(0, dock, lambda: self._share_column(dock, self._study_share()))
        elif dock in (self.palette_dock, self.lesson_dock):
            QTimer.singleShot(0, dock, lambda: self._share_column(dock, 1 - INSPECTOR_SHARE))
        elif getattr(dock, "folded", False) and not self._raised_for_story:
            QTimer.singleShot(0, dock, lambda: self._open_folded(dock))
        elif dock is self.code_dock or self._lent_to_code:
            QTimer.singleShot(0, dock, lambda: self._code_room(dock))

    _lent_to_code = False       # the Code in front has the column's CODE_SHARE (_code_room)

    def _study_share(self):
        """The share of the column a study brought in front takes: all of it (STUDY_SHARE, the
        docks above folded), but while the graph is edited with a node selected the inspector
        keeps its share, as a node selected beside a study gives it (_selection_changed):
        at 1280 x 800 opening the Hessian with layer1 selected folded the inspector, and
        the user lost the values they were editing. Clearing the selection gives the study
        the column (_lent_to_inspector)."""
        if self.player.index >= 0 or not self.controller.selection or self.inspector_dock.isFloating() \
                or not self.inspector_dock.toggleViewAction().isChecked():
            return STUDY_SHARE
        self._lent_to_inspector = True
        return 1 - INSPECTOR_SHARE

    def _code_room(self, dock):
        """The Code in front above the palette or the lesson (a 1280 x 800 or 1440 x 900
        window) takes CODE_SHARE of their column: at the inspector's half it showed 13
        lines of the script at 1280 x 800, 40 characters wide. The column is beside the
        canvas, which keeps its size. The inspector or provenance in front again gets its
        share back. Over a study in front below, the Code takes CODE_SHARE of that column too
        (_share_column), whether or not a story step is selected: with one, it kept the
        provenance's height, 6 lines of the script at 1280 x 800; the inspector back in front
        gets its half, the provenance the height the story's step needs (_resize_for_step)."""
        code = self.code_dock
        study = self._study_in_column()
        if (study is not None and in_front(dock) and not code.isFloating() and not getattr(code, "folded", False)
                and self.dockWidgetArea(code) == self.dockWidgetArea(study)):
            self._lent_to_code = dock is code
            if dock is code:
                self._share_column(study, 1 - CODE_SHARE, study_first=False)
            elif dock is self.provenance_dock and self.player.index >= 0:
                self._resize_for_step()
            else:
                self._share_column(study, 1 - INSPECTOR_SHARE, study_first=False)
            return
        below = next((d for d in (self.palette_dock, self.lesson_dock) if in_front(d)
                      and not d.isFloating() and not code.isFloating()
                      and self.dockWidgetArea(d) == self.dockWidgetArea(code)
                      and d.geometry().top() > code.geometry().top()), None)
        if below is None or getattr(code, "folded", False) or not in_front(dock):
            return
        share = CODE_SHARE if dock is code else INSPECTOR_SHARE
        self._lent_to_code = dock is code
        self.layout().activate()
        room = dock.height() + below.height()
        self.resizeDocks([dock, below], [int(room * share), room - int(room * share)],
                         Qt.Orientation.Vertical)

    _raised_for_story = False   # the provenance (inspector) brought in front as the story starts (ends)

    def _column_above(self):
        """The docks tabbed above a study in its column (inspector, provenance, code)."""
        return (self.inspector_dock, self.provenance_dock, self.code_dock)

    def _study_in_column(self):
        """The study in front below the inspector, in its column (None where there is none)."""
        area = self.dockWidgetArea(self.inspector_dock)
        if self.inspector_dock.isFloating():
            return None
        return next((d for d in self.study_docks.values() if in_front(d) and not d.isFloating()
                     and self.dockWidgetArea(d) == area), None)

    def _study_went_behind(self, visible):
        """A study closed or behind another tab leaves nothing for the docks above to fold
        for: they open, once the tabs have changed, unless another study is in front."""
        if not visible and any(d.folded for d in self._column_above()):
            QTimer.singleShot(0, self, lambda: self._study_in_column() is None and self._open_folded(
                self.inspector_dock))

    def _open_folded(self, dock, dragged=False):
        """The user returns to a dock folded above a study (its tab, its title bar, its
        separator dragged down): it opens at its share of the column (the provenance at the
        height that shows its step while the story plays; the Code at CODE_SHARE, story or
        not, where it showed 14 lines at the inspector's half, 6 at the provenance's), or as
        tall as it was dragged."""
        study = self._study_in_column()
        if dragged or study is None:
            for above in self._column_above():
                above.fold(False)
            self._column_dragged = dragged
            return
        share = 1 - CODE_SHARE if dock is self.code_dock and in_front(dock) else \
            STUDY_SHARE if self.player.index >= 0 else 1 - INSPECTOR_SHARE
        self._share_column(study, share, study_first=False)

    _column_dragged = False     # the user dragged the column's separator: the steps leave it
    _provenance_chosen = False  # the user opened the provenance above the study (study_first False)

    def _step_in_column(self, index):
        """A story step changes what the provenance above a study must show (the Newton lesson
        at 1280 x 800, the gradient norms below it: 133 px at step 1, 287 at step 3, where it
        kept the 152 px it had at the story's start): it is sized again for each step, once
        the step is shown (_resize_for_step)."""
        if index >= 0 and not self._column_dragged:
            QTimer.singleShot(0, self, self._resize_for_step)

    def _resize_for_step(self):
        """The provenance open above a study in its column while the story plays: as tall as
        its step needs, without squeezing the study below its readable height (or, where the
        user opened it over a study that had the column, its main height); neither folds nor
        opens at a step."""
        study = self._study_in_column()
        if (study is None or self.player.index < 0 or self._column_dragged
                or not in_front(self.provenance_dock) or self.provenance_dock.folded):
            return
        self._share_column(study, study_first=not self._provenance_chosen, refold=False)

    def _share_column(self, dock, share=STUDY_SHARE, study_first=True, refold=True):
        """A study beside the palette below the inspector (a 1280 x 800 or 1440 x 900 window)
        takes the column's height while the graph is edited: the inspector, provenance and
        code above it fold to their title bar and tabs (Dock.fold), opened again by a click
        on either, a selected node, or the story. At STUDY_SHARE of the column (272 px of
        content at 1280 x 800) a study scrolled its plot or its verdict below the fold: the
        gradient check showed its first sentence and not its plot with four studies open.
        Other docks in front below (`share` < STUDY_SHARE) give the inspector its share.
        While the story is played with the provenance in front above it, the provenance
        keeps the height that shows its step whole (ProvenancePanel.least_height) and the
        study the rest: the provenance had 140 px there, four rows of a 5 x 3 cotangent and
        no room for an entry's sum. Where the study would then scroll (its readable_height), the
        provenance stays folded, its title bar saying how it opens, and the study keeps its
        column, unless the user opened the provenance (`study_first` False): stepping the story
        at 1280 x 800 gave the provenance 295 px and left the Batch Jacobian its warning and the
        top 90 px of its plot, the rest scrolled. Opened so, the provenance leaves the study its
        main height (StudyView.main_height: its heatmap whole, first), its own lower part
        scrolling where both do not fit: the Hessian's heatmap lay below the fold at 1280 x 800.
        `refold` False (a story step, _resize_for_step): the docks above neither fold nor open."""
        area = self.dockWidgetArea(dock)
        if self.inspector_dock.isFloating() or self.dockWidgetArea(self.inspector_dock) != area:
            return
        idle = dock.folded      # a study with nothing to show: the column goes above, but its title bar
        for tab in self.tabifiedDockWidgets(dock):
            if isinstance(tab, Dock) and not tab.folded:
                tab.lend_height(idle)
        self.layout().activate()
        above = next((d for d in self._column_above() if in_front(d)), self.inspector_dock)
        room = above.height() + dock.height()       # the two docks' (their tab rows aside)
        story = self.player.index >= 0 and above is self.provenance_dock
        bar = above.height() if above.folded else above.height() - above.widget().height()   # its title bar
        view = getattr(dock, "view", None) if not idle else None
        least = None if view is None else view.readable_height() if study_first else view.main_height()
        if least is not None:       # the study's readable height, its title bar, and a pixel (a share
            keep = least + dock.height() - dock.widget().viewport().height() + 1
        crowded = (story and refold and study_first and least is not None
                   and room - keep < self.provenance.least_height() + bar)
        self._provenance_chosen, self._column_dragged = story and not study_first, False
        fold = dock in self.study_docks.values() and not idle and refold and (
            share >= STUDY_SHARE and self.player.index < 0 or crowded)
        for each in self._column_above():
            each.fold(fold)
        self._tab_clicks.watch()
        self.layout().activate()
        top = 1 if fold else room - 1 if idle else room - int(room * share)
        if story and not fold:
            top = max(top, min(self.provenance.least_height() + bar, int(room * share)))
            if least is not None:       # within one of it is left as it is, below)
                top = min(top, room - keep)
        if abs(above.height() - top) <= 1 or min(top, room - top) <= 0:   # shared so, or not laid out
            return
        self.resizeDocks([above, dock], [top, room - top], Qt.Orientation.Vertical)
        self.layout().activate()
        short = 0 if fold or idle else top - above.height()   # Qt shares what it was asked by the docks' least sizes
        if short and min(top + short, room - top - short) > 0:
            self.resizeDocks([above, dock], [top + short, room - top - short], Qt.Orientation.Vertical)

    def _study_settled(self, dock):
        """A study in the column that shows nothing though nothing is wrong (it does not apply
        here, the document is empty) folds to its title bar, which says why, and the docks
        above take the column: after File ▸ New at 1280 x 800 'does not apply here' kept half
        of it and a new constant's value grid showed its header row. A click on its title bar
        opens it (for the same reason it stays open); once it shows a study it opens and
        takes the column again. Along the bottom, or floating, it stays as it is."""
        words = dock.view.idle_words()
        dock.say_folded(words)
        if not words:
            dock.kept_open = ""
            if dock.folded:
                dock.fold(False)
                if self._study_in_column() is dock:
                    self._share_column(dock, self._study_share())
            return
        if dock.folded or getattr(dock, "kept_open", "") == words or self._study_in_column() is not dock:
            return
        dock.unfolded = self._open_idle_study
        dock.fold(True)
        self._share_column(dock)

    def _open_idle_study(self, dock, dragged=False):
        """The user opens a study folded for showing nothing: it says why in full, and its
        choosers; it takes the column unless its separator was dragged."""
        dock.kept_open = dock.view.idle_words()
        dock.fold(False)
        if not dragged:
            self._share_column(dock)

    @property
    def _tab_clicks(self):
        watcher = getattr(self, "_tab_clicks_", None)
        if watcher is None:
            watcher = self._tab_clicks_ = TabClicks(self, self._tab_clicked)
            for above in self._column_above():
                above.unfolded = self._open_folded
        return watcher

    def _tab_clicked(self, dock):
        """The tab in front clicked: a folded dock opens; a study takes its column again."""
        if dock.folded:
            (dock.unfolded or self._open_folded)(dock)
        elif dock in self.study_docks.values():
            self._share_column(dock)

    def _hold_restored_layout(self):
        """A remembered layout that puts a study along the bottom with the canvas lower than
        the story is framed in (STORY_HEIGHT, the rule a study opened here follows) is not
        restored: a Hessian dragged to the bottom of a 1920 x 1080 window came back there at
        1280 x 800 with the canvas 300 px tall. The window takes the layout of a first run
        for its size, the studies that were open open again where they fit, and the status
        bar says why (a user who arranged the docks sees they were not forgotten).
        The layout is measured as it comes back at the window's restored size: restored
        while the window was still coming back, a Hessian saved 268 px tall over a 360 px
        canvas at 1280 x 800 got 236 px, and the message said 392."""
        restore_docks(self, self._saved_state)      # at the window's size now
        self.layout().activate()
        squeezed = squeezing_studies(self, self.study_docks.values())
        if not squeezed:
            study = self._study_in_column()
            if study is not None:           # it takes the column again, the docks above folded
                self._share_column(study)
            return
        canvas = self.centralWidget().height()
        self.reset_dock_layout()
        self.show_message(not_restored_text([d.title for d in squeezed], canvas), 20000)

    def reset_dock_layout(self):
        """View ▸ Reset Window Layout, and a remembered layout refused: the docks as a first
        run places them for this window's size (a layout saved in a 1280 px window kept the
        palette under the inspector at 1920); the studies that were open open again where
        they fit, the one in front last so that it ends in front."""
        front = [d for d in self.study_docks.values() if in_front(d)]
        shown = [d.title for d in self.study_docks.values() if not d.isHidden() and d not in front] \
            + [d.title for d in front]
        restore_docks(self, self._built_state)
        self._first_dock_layout()
        self.inspector_dock.raise_()
        self.palette_dock.raise_()
        for title in shown:
            self.show_study(title)
