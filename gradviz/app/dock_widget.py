"""The dock itself, apart from where it goes (dock_room): its title bar, folded or along the
bottom, and the titles its tabs show. dock_room's placement of the docks in the window
builds on these, and the window makes its docks from Dock.

Docks tabbed together name themselves once, on their tabs: a tabbed dock's title bar keeps
its buttons and leaves out the title ("Jacobian" on the tab and again down the side read
as two things).

Where a row of tabs has no room for every title whole (the six studies beside the palette
and the lesson, a 340 px column at 1280 x 800: 765 px of tabs), a study's tab takes a
shorter title, a word (Check) where the row holds it, else the sign its view writes (J, H,
‖g‖ …), the tab in front first, and its title bar names it whole; every tab is in view at
once, none behind the row's scroll arrows (Palette and Lesson were). With the signs alone,
four studies beside the palette read 'J', 'J[b]', 'H', '≈'; as words they fit that row.
"""
import shiboken6
from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtWidgets import (QApplication, QDockWidget, QHBoxLayout, QLabel, QSizePolicy, QStyle,
                               QStyleOptionDockWidget, QStylePainter, QTabBar, QToolButton, QWidget)

SHORT_TAB_PADDING = "QTabBar::tab { padding: 6px 6px; }"   # a row of short titles: 12 px a tab less
FOLD_DRAG = 24               # a folded dock's separator dragged this far down opens it
ACROSS = (Qt.DockWidgetArea.BottomDockWidgetArea, Qt.DockWidgetArea.TopDockWidgetArea)


def title_bar_follows_area(window, dock):
    """A dock along the bottom or top gets its title bar at its side, elsewhere at its top."""
    def place(area):
        features = dock.features() & ~QDockWidget.DockWidgetFeature.DockWidgetVerticalTitleBar
        if area in ACROSS and not dock.isFloating():
            features |= QDockWidget.DockWidgetFeature.DockWidgetVerticalTitleBar
        dock.setFeatures(features)
    dock.dockLocationChanged.connect(place)
    dock.topLevelChanged.connect(lambda _floating: place(window.dockWidgetArea(dock)))
    place(window.dockWidgetArea(dock))


class Dock(QDockWidget):
    """A dock whose title bar leaves out the title while a tab beside it shows it whole."""

    folded = False          # its content put away for a study below it (fold)
    unfolded = None         # called when the user opens it folded (a click, a drag)
    fold_words = ""         # what its folded title bar says, where not how it opens (a study's why)

    def __init__(self, title, window, *shorter):
        super().__init__(title, window)
        self.title = title                  # its name, whatever its tab shows
        self.forms = (title, *shorter)      # its tab's, longest first, as the row has room
        self._pressed = None
        self.visibilityChanged.connect(self._group_changed)
        self.topLevelChanged.connect(lambda _floating: self._group_changed(True))

    def fold(self, folded):
        """Put the dock's content away (`folded`), leaving its title bar, which says how it
        opens, and its tab; or bring it back. Its least height is then its title bar's, so
        a study below it in a short column takes the column's height (StudyPlacement)."""
        if folded == self.folded or self.widget() is None:
            return
        self.folded = folded
        self.lend_height(folded)
        self._title_words()
        self.update()

    _lent = None        # (content, its size policy) while its least height is lent

    def lend_height(self, lent):
        """Its content's least height none (`lent`), its width kept (the column's), its
        separator free: a folded dock's, and the tabs' beside a folded one (their group is as
        tall as the tallest least height of its docks); or its own again."""
        content = self.widget()
        if content is None or lent == (self._lent is not None):
            return
        if lent:
            self._lent = (content, content.sizePolicy())
            content.setSizePolicy(self._lent[1].horizontalPolicy(), QSizePolicy.Policy.Ignored)
        else:
            before, policy = self._lent
            self._lent = None
            if before is content:       # (a study's view replaces the dock's first, empty content)
                content.setSizePolicy(policy)

    def say_folded(self, words):
        """What the title bar says while folded: `words` (a study's why) and how it opens; ''
        for the title alone."""
        self.fold_words = words
        self._title_words()

    def _title_words(self):
        """A folded title bar that says more than a line holds wraps (FoldedTitle)."""
        wrapped = self.folded and bool(self.fold_words)
        bar = self.titleBarWidget()
        if wrapped and not isinstance(bar, FoldedTitle):
            self.setTitleBarWidget(FoldedTitle(self))
        elif not wrapped and isinstance(bar, FoldedTitle):
            self.setTitleBarWidget(None)
            bar.deleteLater()
        elif wrapped:
            bar.say(self.folded_title())

    def folded_title(self):
        if self.fold_words:
            return f"▸ {self.fold_words} Click to open it."
        return f"▸ Click to open the {self.title}"

    def event(self, event):
        """A click on a folded dock's title bar (not a drag) opens it."""
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and self.folded:
            self._pressed = event.position().toPoint()
        elif kind == QEvent.Type.MouseButtonRelease and self.folded and self._pressed is not None:
            moved = (event.position().toPoint() - self._pressed).manhattanLength()
            self._pressed = None
            handled = super().event(event)
            if moved < QApplication.startDragDistance() and not self.isFloating() and self.unfolded:
                QTimer.singleShot(0, self, lambda: self.unfolded(self))
            return handled
        return super().event(event)

    def _group_changed(self, _shown):
        """A dock shown or hidden makes its tab group's title bars show or leave out titles
        (not while the window is being destroyed: its docks hide as it goes), and its row's
        tabs take the titles that fit (fit_tab_titles, once the docks have their places)."""
        window = self.parentWidget()
        if window is not None and shiboken6.isValid(window):
            for dock in window.children():      # a dock's parent is the window: no search below
                if isinstance(dock, Dock):
                    dock.update()
            QTimer.singleShot(0, window, lambda: fit_tab_titles(window))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        grown = event.size().height() - event.oldSize().height()
        if (self.folded and event.oldSize().height() > 0 and grown >= FOLD_DRAG and self.unfolded
                and QApplication.mouseButtons() & Qt.MouseButton.LeftButton):
            self.unfolded(self, dragged=True)        # its separator dragged down: open, as tall
        if event.oldSize().width() != event.size().width():     # its row of tabs as wide
            window = self.parentWidget()
            QTimer.singleShot(0, window, lambda: fit_tab_titles(window))

    def tabbed(self):
        """True while the dock sits in a tab group with another dock shown: its tab names it."""
        window = self.parentWidget()
        return (not self.isFloating() and not self.isHidden()
                and any(not other.isHidden() for other in window.tabifiedDockWidgets(self)))

    def paintEvent(self, event):
        if self.titleBarWidget() is not None or self.isFloating():
            return super().paintEvent(event)
        option = QStyleOptionDockWidget()
        self.initStyleOption(option)
        # the buttons and the bar, as QDockWidget paints them; the title whole unless its tab
        # shows it whole (a dock split out of a row of short tabs kept '≈' for its title)
        option.title = "" if self.tabbed() and self.windowTitle() == self.title else self.title
        if self.folded:
            option.title = self.folded_title()
        QStylePainter(self).drawControl(QStyle.ControlElement.CE_DockWidgetTitle, option)


class FoldedTitle(QWidget):
    """A folded dock's title bar of words that wrap (a study that does not apply says why, in
    a 340 px column two or three lines), its close button at the right; a click on it (not a
    drag) reaches the dock, which opens (Dock.event)."""

    def __init__(self, dock):
        super().__init__(dock)
        self.dock = dock
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 3, 3, 3)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.PlainText)
        self.words.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        row.addWidget(self.words, 1, Qt.AlignmentFlag.AlignTop)
        close = QToolButton()
        close.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_TitleBarCloseButton))
        close.setAutoRaise(True)
        close.setToolTip(f"Close the {dock.title}")
        close.clicked.connect(dock.close)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.say(dock.folded_title())

    def say(self, words):
        if words != self.words.text():
            self.words.setText(words)
            self.words.setToolTip(words)
            self.updateGeometry()

    def sizeHint(self):
        """As tall as its words wrapped at the dock's width (a dock asks its title bar's
        height of its size hint alone)."""
        return QSize(self.dock.width(), self.heightForWidth(max(self.dock.width(), 1)))

    def minimumSizeHint(self):
        return self.sizeHint()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.updateGeometry()       # its height for its new width


def fit_tab_titles(window):
    """Each row of dock tabs shows its docks' titles where they fit whole in the row's width;
    else, with tighter padding, each tab the longest of its forms (title, word, sign) that
    the row holds: every tab's word where they fit, the tab in front first, then the title
    of the tab in front and of the others in turn. A dock not in a row has its title, and
    each short tab's tooltip is its title. No title is ever elided."""
    if not shiboken6.isValid(window):
        return
    docks = [d for d in window.children() if isinstance(d, Dock)]
    for dock in docks:
        if not dock.tabbed() and dock.windowTitle() != dock.title:
            dock.setWindowTitle(dock.title)     # floated or split out of its row
    for bar in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
        bar.setElideMode(Qt.TextElideMode.ElideNone)
        bar.setUsesScrollButtons(True)       # only should the signs not fit either
        if not bar.isVisible() or not bar.count():
            continue
        texts = [bar.tabText(i) for i in range(bar.count())]
        row = [next((d for d in docks if text in d.forms and not d.isHidden()), None) for text in texts]
        if None in row or not any(len(d.forms) > 1 for d in row):
            continue
        room = min(d.width() for d in row)
        metrics = bar.fontMetrics()
        whole = sum(_tab_overhead(bar, "") + metrics.horizontalAdvance(d.title) for d in row)
        short = whole > room
        bar.setStyleSheet(SHORT_TAB_PADDING if short else "")
        chosen = [0] * len(row) if not short else _shortest_fitting(
            [d.forms for d in row], bar.currentIndex(), room, metrics, _tab_overhead(bar, SHORT_TAB_PADDING))
        for dock, form in zip(row, chosen):
            wanted = dock.forms[form]
            if dock.windowTitle() != wanted:
                dock.setWindowTitle(wanted)
        for i, dock in enumerate(row):
            bar.setTabToolTip(i, dock.title)


def _shortest_fitting(forms, front, room, metrics, overhead):
    """Which form of each tab (an index into its `forms`, longest first) a row `room` px wide
    shows: each at its last form, then each in turn (`front` first) at its word, then at
    its title, where the row still holds it."""
    chosen = [len(f) - 1 for f in forms]
    order = ([front] if 0 <= front < len(forms) else []) + [i for i in range(len(forms)) if i != front]

    def width():
        return sum(overhead + metrics.horizontalAdvance(f[k]) for f, k in zip(forms, chosen))
    for goal in (1, 0):
        for i in order:
            if chosen[i] > goal:
                before, chosen[i] = chosen[i], goal
                if width() > room:
                    chosen[i] = before
    return chosen


def _tab_overhead(bar, sheet):
    """A tab's width beyond its title's in the rows' own style with the style sheet `sheet`."""
    probe = QTabBar()
    probe.setFont(bar.font())
    probe.setStyleSheet(sheet)
    probe.addTab("x")
    probe.ensurePolished()          # the style sheet's padding in its size hint
    return probe.tabSizeHint(0).width() - probe.fontMetrics().horizontalAdvance("x")
