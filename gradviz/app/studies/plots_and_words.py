"""How a study view lays out its plots and its words: side by side in a dock wide enough,
stacked (plots over words) in a narrow one, a square heatmap at the width or height its
square cells need, and the pieces Export View draws as a slide."""
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSplitter, QVBoxLayout, QWidget

VIEW_FONT_PT = 11            # readable from the back of a lecture room
COLUMN_MIN_W = 320          # a column of banners beside a plot: ~30 characters a line
NARROW_MIN_W = 220          # the least width a view reads at, its plots stacked over its words
PLOT_MIN_H = 150            # a plot's least height, stacked: its ticks and a few cells still read
PLOT_MAX_H = 420            # ... and most: a taller plot only adds white around a square heatmap
PLOT_ASPECT = 0.75          # a stacked chart's height for its width
WORD_LINES = 8              # the words below stacked plots show at least this many lines (or all)
BANNER_PAD = 16             # ... and a banner's padding and border, above and below


class WordColumn(QScrollArea):
    """Banners and controls in a frameless scroll area that never scrolls sideways: in a
    low dock the words scroll and the plots stay whole."""

    def words_height(self, width):
        """The height the words take whole at `width`."""
        words = self.widget()
        if words is None:
            return 0
        height = words.heightForWidth(width)     # -1: nothing wraps (a table)
        return height if height >= 0 else words.sizeHint().height()

    def slide_pieces(self, at):
        """(pieces, height): the column's labels that have words, whole, from `at` down
        (its rows of controls left out)."""
        words = self.widget()
        layout = words.layout() if words is not None else None
        pieces, y = [], 0
        for item in (layout.itemAt(i) for i in range(layout.count() if layout else 0)):
            label = item.widget()
            if isinstance(label, QLabel) and not label.isHidden() and label.text():
                pieces.append((label, QPoint(at.x() + label.x(), at.y() + y)))
                y += label.height() + layout.spacing()
        return pieces, max(y - layout.spacing(), 0) if pieces else 0


def word_column(*items):
    """Banners and controls stacked beside a plot (`items`: widgets and layouts), in a
    WordColumn."""
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    for item in items:
        if isinstance(item, QWidget):
            layout.addWidget(item)
        else:
            layout.addLayout(item)
    layout.addStretch(1)
    area = WordColumn()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(column)
    area.setMinimumWidth(COLUMN_MIN_W)
    return area


def stacked_height(plot, width):
    """The height a plot takes at `width`, stacked over words: a heatmap as tall as makes
    its cells square (beside it its axes and colour bar), a chart PLOT_ASPECT of its width;
    within PLOT_MIN_H..PLOT_MAX_H."""
    matrix = getattr(plot, "matrix", None)
    if getattr(plot, "mode", None) == "heatmap" and matrix is not None and matrix.size:
        want = plot.height_for_width(width)
    else:
        want = width * PLOT_ASPECT
    return int(min(max(want, PLOT_MIN_H), PLOT_MAX_H))


class PlotsAndWords(QSplitter):
    """A view's plots and its words (WordColumns): side by side, the words at the right, in
    a dock wide enough (along the bottom); in a narrow one (a side column) stacked, the
    plots above the words, nothing scrolling sideways (issue 20 §5). Stacked, each plot
    gets its stacked_height while the words below keep words_least (they scroll); a square
    heatmap never less, so its cells stay square (the view scrolls down to the rest)."""

    def __init__(self):
        super().__init__(Qt.Orientation.Horizontal)
        self.setChildrenCollapsible(False)     # a part keeps its least size
        self.stacked = False
        self._floors = {}       # a part's own least size, kept across the arrangements

    def parts(self):
        return [self.widget(i) for i in range(self.count())]

    def words_least(self):
        """The least height of stacked words: WORD_LINES lines of the view's font in a banner.
        At 1280 x 800 beside the palette they had 90 px: the Jacobian's caption and two
        lines of its first check; 160 px show five lines of it."""
        font = self.font()
        font.setPointSizeF(VIEW_FONT_PT)        # the banners' (their style sheet sets it)
        return WORD_LINES * QFontMetrics(font).lineSpacing() + BANNER_PAD

    def stack(self, stacked):
        """Plots over words (`stacked`) or side by side."""
        if stacked == self.stacked:
            return
        self.stacked = stacked
        for part in self.parts():
            floor = self._floors.setdefault(id(part), (part.minimumWidth(), part.minimumHeight()))
            if stacked:
                least = self.words_least() if isinstance(part, WordColumn) else PLOT_MIN_H
                part.setMinimumSize(min(floor[0], NARROW_MIN_W), max(floor[1], least))
            else:
                part.setMinimumSize(*floor)
        self.setOrientation(Qt.Orientation.Vertical if stacked else Qt.Orientation.Horizontal)
        if not stacked and self._shares:
            self.setSizes([100 * share for share in self._shares])
        self.fit()

    _shares = ()

    def set_shares(self, shares):
        """Side by side, the parts start at `shares` of the width (one a part)."""
        self._shares = tuple(shares)
        for i, share in enumerate(shares):
            self.setStretchFactor(i, share)
        self.setSizes([100 * share for share in shares])

    def fit(self):
        """Stacked: the plots at their stacked_height, shrunk (not below PLOT_MIN_H, a square
        heatmap not at all) while the words would get less than words_least; the words the
        rest. Room left over goes half to the plots (up to PLOT_MAX_H), half to the words.
        Side by side, a table (words that do not wrap) as wide as it is: at its share of the
        width the gradient check's 'relative error' column was cut."""
        if not self.stacked:
            for part in self.parts():
                table = isinstance(part, WordColumn) and part.widget() is not None \
                    and part.widget().heightForWidth(part.width()) < 0
                if table:
                    floor = self._floors.get(id(part), (part.minimumWidth(), 0))[0]
                    least = max(floor, min(part.widget().sizeHint().width(), part.maximumWidth()))
                    if part.minimumWidth() != least:
                        part.setMinimumWidth(least)
            return self._fit_squares()
        if not self.count():
            return
        parts, width = self.parts(), self.width()
        shown = [p for p in parts if not p.isHidden()]
        words = [p for p in shown if isinstance(p, WordColumn)]
        plots = [p for p in shown if p not in words]
        room = self.height() - self.handleWidth() * max(len(shown) - 1, 0)
        need = {id(p): max(p.words_height(width), 1) for p in words}
        for p in words:    # a table (its words do not wrap) whole: scrolled in a low slot it hid its side
            fixed = p.widget() is not None and p.widget().heightForWidth(width) < 0
            least = max(min(need[id(p)], self.words_least()), need[id(p)] if fixed else 0)
            if p.minimumHeight() != least:
                p.setMinimumHeight(least)
        # Where the view scrolls down anyway (its words' least and the plots' exceed the room),
        # every plot at its stacked height, as a square heatmap always is (its cells square);
        # none taller than the dock shows below the choosers, so each can be seen whole.
        shows = self.shown_height() or PLOT_MAX_H
        scrolls = sum(p.minimumHeight() for p in words) + PLOT_MIN_H * len(plots) > shows
        for plot in plots:
            floor = self._floors.setdefault(id(plot), (plot.minimumWidth(), plot.minimumHeight()))
            square = getattr(plot, "square_width", lambda: None)() is not None
            least = min(stacked_height(plot, width), shows) if square or scrolls else PLOT_MIN_H
            least = max(floor[1], least, PLOT_MIN_H)
            if plot.minimumHeight() != least:
                plot.setMinimumHeight(least)
        floor = sum(min(n, self.words_least()) for n in need.values())
        ideal = {id(p): max(min(stacked_height(p, width), shows), p.minimumHeight()) for p in plots}
        want = sum(ideal.values())
        scale = min(1.0, (room - floor) / want) if want else 1.0
        heights = {id(p): max(int(ideal[id(p)] * scale), p.minimumHeight()) for p in plots}
        spare = room - sum(heights.values()) - sum(need.values())
        if spare > 0 and plots:
            for p in plots:
                heights[id(p)] = max(heights[id(p)], min(ideal[id(p)] + spare // 2 // len(plots), PLOT_MAX_H))
        left = max(room - sum(heights.values()), 0)
        total = sum(need.values()) or 1
        heights.update({id(p): left * need[id(p)] // total for p in words})
        self.setSizes([heights.get(id(p), 0) for p in parts])

    def _fit_squares(self):
        """Side by side, a square heatmap exactly as wide as its square image needs at the
        dock's height (its box at its share was 430 px wider than a 15 x 15 Jacobian, an
        empty band), but never at the cost of another heatmap's floor: the width that makes
        its cells square, or its share of the width when that is less (BatchNorm's square
        norms took all but 28 px from the patch image beside them). The other parts share
        the rest as set_shares says, each at least its floor."""
        parts = [p for p in self.parts() if not p.isHidden()]
        wants = {id(p): getattr(p, "square_width", lambda: None)() for p in parts}
        if all(w is None for w in wants.values()):
            return
        total = self.width() - self.handleWidth() * max(len(parts) - 1, 0)
        shares = dict(zip(map(id, self.parts()), self._shares or [1] * self.count()))
        weight = sum(shares.get(id(p), 1) for p in parts) or 1
        others = [p for p in parts if wants[id(p)] is None]
        floors = {}
        for p in others:
            natural = getattr(p, "natural_width", lambda: None)()
            own = 0 if natural is None else min(natural, total * shares.get(id(p), 1) // weight)
            floors[id(p)] = max(p.minimumWidth(), own)
        room = total - sum(floors.values())
        sizes = {}
        for p in parts:
            if wants[id(p)] is not None:
                sizes[id(p)] = max(min(wants[id(p)], room), p.minimumWidth())
                room -= sizes[id(p)]
        rest, pending = total - sum(sizes.values()), list(others)
        while pending:      # shares of the rest; a part its share would put below its floor gets the floor
            weight = sum(shares.get(id(p), 1) for p in pending) or 1
            short = [p for p in pending if rest * shares.get(id(p), 1) // weight < floors[id(p)]]
            for p in short or pending:
                sizes[id(p)] = floors[id(p)] if short else rest * shares.get(id(p), 1) // weight
            if not short:
                break
            rest -= sum(floors[id(p)] for p in short)
            pending = [p for p in pending if p not in short]
        fitted = [sizes.get(id(p), 0) for p in self.parts()]
        if fitted != self.sizes():
            self.setSizes(fitted)

    def childEvent(self, event):
        """A heatmap added follows its own refit (its axes widen once drawn)."""
        super().childEvent(event)
        child = event.child()
        if event.added() and hasattr(child, "refit") and not getattr(child, "_followed", False):
            child._followed = True
            child.refit.connect(self._refit_later)

    def _refit_later(self):
        QTimer.singleShot(0, self, self.fit)

    def shown_height(self):
        """How much of the splitter's height the dock's scroll area shows from its top
        (0 outside one)."""
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is None or area.widget() is None:
            return 0
        return area.viewport().height() - self.mapTo(area.widget(), QPoint(0, 0)).y() - 6

    def slide_pieces(self, at):
        """(pieces, height) of the parts shown, for StudyView.slide from `at`: each plot as
        it is, each word column's labels whole, one below the other (a row of controls in
        a column, the Hessian's ε and Newton step, is left out)."""
        pieces, end = [], 0
        along = 0
        for part in (p for p in self.parts() if not p.isHidden()):
            if self.stacked:
                corner = QPoint(at.x() + part.x(), at.y() + along)
            else:
                corner = QPoint(at.x() + part.x(), at.y())
            if isinstance(part, WordColumn):
                placed, height = part.slide_pieces(corner)
            else:
                placed, height = [(part, corner)], part.height()
            pieces += placed
            along += height + self.handleWidth()
            end = max(end, corner.y() - at.y() + height)
        return pieces, end

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.fit()


def beside_words(plots, words, shares):
    """The plots side by side and, at their right, the words: one `word_column`, or
    several (`words` a list of tuples: a tall table beside the banners), in PlotsAndWords
    whose parts start at `shares` of its width (one a part). Side by side the plots get the
    dock's whole height, so a view fits the low dock of a 1280x800 window, and the words
    are given the width they need to show whole there."""
    split = PlotsAndWords()
    for plot in plots:
        split.addWidget(plot)
    for column in (words if isinstance(words, list) else [words]):
        split.addWidget(word_column(*column))
    split.set_shares(shares)
    return split
