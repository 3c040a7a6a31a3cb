"""How a study view lays out its plots and its words: side by side in a dock wide enough,
stacked (plots over words) in a narrow one, a square heatmap at the width or height its
square cells need, and the pieces Export View draws as a slide."""
from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSplitter, QVBoxLayout, QWidget

from .label_lines import first_sentence_bottom, line_spans

VIEW_FONT_PT = 11            # readable from the back of a lecture room
COLUMN_MIN_W = 320          # a column of banners beside a plot: ~30 characters a line
NARROW_MIN_W = 220          # the least width a view reads at, its plots stacked over its words
PLOT_MIN_H = 150            # a plot's least height, stacked: its ticks and a few cells still read
# ... and where the dock is too low for that and the words' first paragraph below: its title
# (20 px), its x axis' ticks and title (40 px) and 60 px of data between them. At 1280 x 800
# the Hessian's eigenvalues kept 60 px in view, their title and two dots (test_study_column).
PLOT_USABLE_H = 120
PLOT_MAX_H = 420            # ... and most: a taller plot only adds white around a square heatmap
PLOT_ASPECT = 0.75          # a stacked chart's height for its width
WORD_LINES = 8              # the words below stacked plots show at least this many lines (or all)
STACKED_GAP = 6             # px between stacked parts (the Hessian's 18 side by side took 36 px of plot)
BANNER_PAD = 16             # ... and a banner's padding and border, above and below
class WordColumn(QScrollArea):
    """Banners and controls in a frameless scroll area that never scrolls sideways: in a
    low dock the words scroll and the plots stay whole. Where the words are taller than the
    column, its box ends between two lines (or above a control), never through one: the
    gradient check's 'The plot and the table's last column are … (0 where both' showed the
    top half of its next line at 1280 x 800. The strip below is left blank (less than a
    line, or a control's height)."""

    def __init__(self):
        super().__init__()
        self._edge = 0          # the blank strip below the box, px
        self._watched = None
        self.keys = ()          # labels after the lead whose first sentence is key words too (a verdict)

    def setWidget(self, widget):
        super().setWidget(widget)
        widget.installEventFilter(self)      # its words rewrap, or change, as it resizes
        self._watched = widget

    def eventFilter(self, watched, event):
        if watched is self._watched and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            QTimer.singleShot(0, self, self.end_between_lines)
        return False

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.end_between_lines()

    def end_between_lines(self):
        """Move the box's lower edge up to the top of the line (or the control) it would
        cut through at the scroll position 0: its viewport ends at a line's boundary."""
        words = self.widget()
        if words is None:
            return
        full = self.height() - 2 * self.frameWidth()
        cut = full
        if words.height() > full:
            layout = words.layout()
            for item in (layout.itemAt(i) for i in range(layout.count())):
                widget, box = item.widget(), item.geometry()
                if item.spacerItem() is not None or (widget is not None and widget.isHidden()):
                    continue
                if isinstance(widget, QLabel) and widget.text():
                    spans = [(box.top() + a, box.top() + b) for a, b in line_spans(widget)]
                else:       # a control, or a row of them
                    spans = [(box.top(), box.bottom() + 1)]
                for a, b in spans:
                    if a < cut < b:
                        cut = a
        edge = max(full - cut, 0)
        if edge != self._edge:
            self._edge = edge
            self.setViewportMargins(0, 0, 0, edge)

    def lead(self):
        """(label, px above it): the column's first label with words, shown, and the height of
        what stands above it (None, 0 in a column of none)."""
        words = self.widget()
        layout = words.layout() if words is not None else None
        above = 0
        for item in (layout.itemAt(i) for i in range(layout.count() if layout else 0)):
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            if isinstance(widget, QLabel) and widget.text():
                return widget, above
            if widget is not None or item.layout() is not None:
                above += item.sizeHint().height() + layout.spacing()
        return None, 0

    def first_sentence(self, width, keys=True):
        """The height that shows the column's first sentence whole at `width` (its scroll
        bar beside the words, as when they do not show whole), or a folded banner's headline
        and the link that opens it, and down to the headline (in bold, else the first sentence)
        of its last key label shown (`keys`: the Hessian's Newton verdict, below its symmetry
        check, lay below the fold at 1440 x 900; the Jacobian's Σ check at 1024 x 768); 0 for
        a table (its words do not wrap) or a column of none."""
        label, above = self.lead()
        if label is None or not label.wordWrap():
            return 0
        bar = self.verticalScrollBar().sizeHint().width()
        key = next((k for k in self.keys[::-1] if keys and not k.isHidden() and k.text()), None)
        if key is not None:
            label, above = key, self._above(key, width - bar)
        if getattr(label, "folded", lambda: False)():     # a headline and its 'Details ▸': whole
            return above + label.heightForWidth(width - bar)
        return above + first_sentence_bottom(label, width - bar, headline=key is not None)

    def _above(self, label, width):
        """The height of what stands above `label` in the column, its words `width` px wide."""
        layout = self.widget().layout()
        above = 0
        for item in (layout.itemAt(i) for i in range(layout.count())):
            widget = item.widget()
            if widget is label:
                return above
            if widget is not None and widget.isHidden() or item.spacerItem() is not None:
                continue
            height = item.heightForWidth(width) if item.hasHeightForWidth() else -1
            above += (height if height >= 0 else item.sizeHint().height()) + layout.spacing()
        return above

    def first_label(self, width):
        """The height that shows the column's first label with words whole at `width` (a
        banner wrapped, never in a box of its own that scrolls); 0 in a column of none."""
        label, above = self.lead()
        if label is None or not label.wordWrap():
            return 0
        bar = self.verticalScrollBar().sizeHint().width()
        return above + label.heightForWidth(width - bar)

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


def word_column(*items, keys=()):
    """Banners and controls stacked beside a plot (`items`: widgets and layouts), in a
    WordColumn; `keys`, labels of them after the first whose first sentence is to be read
    without scrolling too (WordColumn.first_sentence)."""
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
    area.keys = tuple(keys)
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
    a dock wide enough (along the bottom); in a narrow one (a side column) stacked, nothing
    scrolling sideways (issue 20 §5). Stacked, the words' first sentence is in view without
    scrolling: the plots stand above the words and give up height for it (a square heatmap
    too, its cells square in a smaller square), down to PLOT_MIN_H; where the dock cannot
    show the plots at that height and the sentence below them (two plots while the story
    plays at 1280 x 800), the words stand above the plots, or, where the main plot is a
    heatmap (the matrix the study is about), below it (main_first). A table of words (the
    gradient check's) comes after the words that wrap."""

    # Stacked, the parts' least heights grew past the splitter's height: its view makes room
    # (QSplitter laid the parts over each other: at 1280 x 800 with the provenance open, the
    # Hessian's eigenvalues' title over its heatmap's readout and axis title)
    grew = Signal()

    def __init__(self):
        super().__init__(Qt.Orientation.Horizontal)
        self.setChildrenCollapsible(False)     # a part keeps its least size
        self.stacked = False
        self._floors = {}       # a part's own least size, kept across the arrangements
        self._order = None      # the parts side by side, as they were added
        self._gap = self.handleWidth()      # between the parts side by side

    def parts(self):
        return [self.widget(i) for i in range(self.count())]

    def words_least(self):
        """The least height of stacked words where the dock has room: WORD_LINES lines of the
        view's font in a banner. At 1280 x 800 beside the palette they had 90 px: the
        Jacobian's caption and two lines of its first check; 160 px show five lines of it."""
        font = self.font()
        font.setPointSizeF(VIEW_FONT_PT)        # the banners' (their style sheet sets it)
        return WORD_LINES * QFontMetrics(font).lineSpacing() + BANNER_PAD

    def stack(self, stacked):
        """Plots over words (`stacked`) or side by side."""
        if stacked == self.stacked:
            return
        self.stacked = stacked
        if self._order is None:
            self._order = self.parts()
        for part in self.parts():
            floor = self._floors.setdefault(id(part), (part.minimumWidth(), part.minimumHeight()))
            if stacked:
                least = self.words_least() if isinstance(part, WordColumn) else \
                    PLOT_USABLE_H + getattr(part, "headroom", 0)
                part.setMinimumSize(min(floor[0], NARROW_MIN_W), max(floor[1], least))
            else:
                part.setMinimumSize(*floor)
        if stacked:         # a gap side by side keeps a colour bar's title off the next plot's axis
            self._gap = self.handleWidth()
        self.setHandleWidth(min(self._gap, STACKED_GAP) if stacked else self._gap)
        self.setOrientation(Qt.Orientation.Vertical if stacked else Qt.Orientation.Horizontal)
        if not stacked:
            self._put_in_order(self._order)
            if self._shares:
                self.setSizes([100 * share for share in self._shares])
        self.fit()

    def _put_in_order(self, order):
        for i, part in enumerate(order):
            if self.widget(i) is not part:
                self.insertWidget(i, part)

    _shares = ()

    def set_shares(self, shares):
        """Side by side, the parts start at `shares` of the width (one a part)."""
        self._shares = tuple(shares)
        for i, share in enumerate(shares):
            self.setStretchFactor(i, share)
        self.setSizes([100 * share for share in shares])

    def fit(self):
        """Side by side, a table (words that do not wrap) as wide as it is: at its share of
        the width the gradient check's 'relative error' column was cut; a square heatmap as
        wide as its square (_fit_squares). Stacked, see _fit_stacked."""
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
        if self.count():
            self._fit_stacked()

    def readable_height(self, width):
        """The least height, `width` px wide, that shows every plot at PLOT_USABLE_H (its own
        least height where more), the lead words' first paragraph and the other words' least
        height, stacked as _fit_stacked puts them, nothing scrolled: what a study keeps while
        the story's provenance opens above it (StudyView.readable_height)."""
        shown = [p for p in self.parts() if not p.isHidden()]
        words = [p for p in shown if isinstance(p, WordColumn)]
        plots = [max(self._floors.get(id(p), (0, p.minimumHeight()))[1], PLOT_USABLE_H + getattr(p, "headroom", 0))
                 for p in shown if p not in words]
        lead = next((p for p in words if p.first_sentence(width)), None)
        said = [max(lead.first_sentence(width), lead.first_label(width))] if lead is not None else []
        said += [min(p.words_height(width), self.words_least()) for p in words
                 if p is not lead and p.widget() is not None and p.widget().heightForWidth(width) >= 0]
        if not self.stacked:            # side by side: the tallest of them
            return max(plots + said)
        parts = plots + said
        return sum(parts) + self.handleWidth() * max(len(parts) - 1, 0)

    def main_first(self):
        """Does the study's main plot (its first) go first where the dock is short: a heatmap,
        the matrix the study is about, does; the words, the verdict on a chart, do otherwise."""
        plots = [p for p in self.parts() if not p.isHidden() and not isinstance(p, WordColumn)]
        return bool(plots) and hasattr(plots[0], "matrix")

    def main_height(self, width):
        """Stacked, `width` px wide, the least height that shows the main plot whole where it
        goes first (a heatmap at PLOT_MIN_H, its own least height where more; at PLOT_USABLE_H a
        40 x 40 Hessian's box was 65 px) and the lead words' first sentence below it; None where
        the words go first (StudyView.main_height)."""
        if not self.main_first():
            return None
        shown = [p for p in self.parts() if not p.isHidden()]
        main = next(p for p in shown if not isinstance(p, WordColumn))
        least = max(self._floors.get(id(main), (0, main.minimumHeight()))[1], main.minimumSizeHint().height(),
                    PLOT_MIN_H + getattr(main, "headroom", 0))
        lead = next((p for p in shown if isinstance(p, WordColumn) and p.widget() is not None
                     and p.widget().heightForWidth(width) >= 0 and p.first_sentence(width)), None)
        return least + (self.handleWidth() + lead.first_sentence(width) if lead is not None else 0)

    def _fit_stacked(self):
        """Within the height the dock shows (`shows`), the plots at their stacked_height,
        shrunk only while the words below would not show their first sentence (the lead
        column's), not below PLOT_MIN_H; the words the rest, WORD_LINES where the plots leave
        them (they left BatchNorm's 42 x 35 Jacobian a 75 px box at 1280 x 800). Where the
        plots at PLOT_MIN_H leave no room for the sentence, the words go first, their first
        label whole (a banner, never cut in a box of its own that scrolls), and the plots
        below at their stacked height (the view scrolls down to them); where the main plot is
        a heatmap (main_first) and the dock shows it at PLOT_USABLE_H with that sentence below
        it, it goes before them, as tall as the dock shows less the sentence (up to its stacked
        height), the words and the other plots below it: the Hessian's 40 x 40 heatmap showed
        its top 41 px at 1280 x 800 with the provenance opened above it, under its symmetry
        banner. At 1280 x 800 with
        six studies open and the story playing, a square Jacobian kept its square's height
        and its words lay below the dock's fold, the Batch Jacobian's under two plots. Room
        left over goes half to the plots (up to PLOT_MAX_H), half to the words.
        The first plot is the study's main one: it keeps PLOT_MIN_H, the others PLOT_USABLE_H,
        and they give up height before it; where the dock cannot hold that and the lead's
        first paragraph, every plot goes down to PLOT_USABLE_H (the Hessian's eigenvalues
        showed 73 of 235 px at 1280 x 800, its words first). The lead's first paragraph
        comes before a table being whole (the table is then cut between its rows)."""
        parts, width = self.parts(), self.width()
        shown = [p for p in parts if not p.isHidden()]
        words = [p for p in shown if isinstance(p, WordColumn)]
        plots = [p for p in shown if p not in words]
        handle = self.handleWidth()
        room = self.height() - handle * max(len(shown) - 1, 0)
        shows = min(self.shown_height() or PLOT_MAX_H, self.height())
        need = {id(p): max(p.words_height(width), 1) for p in words}
        tables = [p for p in words if p.widget() is not None and p.widget().heightForWidth(width) < 0]
        lead = next((p for p in words if p not in tables and p.first_sentence(width)), None)
        sentence = lead.first_sentence(width) if lead is not None else 0
        paragraph = lead.first_label(width) if lead is not None else 0
        tables_need = sum(need[id(p)] + handle for p in tables)
        own = {id(p): self._floors.setdefault(id(p), (p.minimumWidth(), p.minimumHeight()))[1] for p in plots}
        least = {id(p): max(own[id(p)], (PLOT_MIN_H if p is plots[0] else PLOT_USABLE_H)   # the main plot's
                            + getattr(p, "headroom", 0)) for p in plots}
        plots_least = sum(least.values()) + handle * len(plots)
        if plots_least + max(sentence, paragraph) + tables_need > shows:   # short: plots at their usable height
            least = {id(p): max(own[id(p)], PLOT_USABLE_H + getattr(p, "headroom", 0)) for p in plots}
            plots_least = sum(least.values()) + handle * len(plots)
        below = plots_least + sentence <= shows
        if plots and not below and lead is not None and lead.keys and least[id(plots[0])] + handle + sentence > shows:
            # a dock too short for the heatmap and the key words too (the provenance open above
            # it): the heatmap first, and the lead's own first sentence below it
            sentence = lead.first_sentence(width, keys=False)
        # a heatmap first where the dock shows it and the lead's first sentence below it
        main = plots[0] if plots and not below and self.main_first() \
            and least[id(plots[0])] + (handle + sentence if lead is not None else 0) <= shows else None
        if lead is not None:
            rest = [p for p in words if p is not lead]
            order = plots + [lead] + rest if below else \
                [main, lead] + plots[1:] + rest if main is not None else [lead] + plots + rest
            self._put_in_order(order + [p for p in parts if p.isHidden()])
            parts = self.parts()
        # Plots over words: the plots as tall as they would be (their cells square where that
        # fits), the words WORD_LINES where the plots leave them, at least their first sentence
        plots_want = sum(min(stacked_height(p, width), shows - sentence) for p in plots) + handle * len(plots)
        # The lead's first paragraph before a table: a ten-step gradient check's table (206 px),
        # its plot and its verdict (122 px) are 16 px more than the 492 px it has at 1280 x 800
        words_room = shows - plots_least - handle * len(tables)
        first = min(paragraph, words_room) if lead is not None and below else 0
        for p in words:    # a table (its words do not wrap) whole: scrolled in a low slot it hid its side
            if p in tables:     # ... where the first paragraph leaves room; else cut between its rows
                floor = need[id(p)] if need[id(p)] <= words_room - first or not below \
                    else max(words_room - first, 0)
            elif p is lead:     # WORD_LINES where the plots and a table leave them (the table was cut)
                floor = max(sentence, first,
                            min(need[id(p)], self.words_least(), shows - plots_want - tables_need)) \
                    if below else min(max(sentence, lead.first_label(width)), need[id(p)])
            else:
                floor = min(need[id(p)], self.words_least())
            if p.minimumHeight() != floor:
                p.setMinimumHeight(floor)
        # Words first, the view scrolls down to the plots: each as tall as the dock shows
        area = self._area()
        whole = area.viewport().height() - 12 if area is not None and not below else shows
        # The main plot first: as tall as the dock shows, less the lead's first sentence below it
        first_room = shows - (sentence + handle if lead is not None else 0)
        for plot in plots:
            floor = least[id(plot)] if below else max(least[id(plot)], min(stacked_height(plot, width),
                                                                          first_room if plot is main else whole))
            if plot.minimumHeight() != floor:
                plot.setMinimumHeight(floor)
        if main is not None and lead is not None and len(plots) > 1:
            # the lead words fill the rest of what the dock shows, their box ending there between
            # two lines (WordColumn), the other plots below: none of their lines cut by the fold
            fold = min(shows - main.minimumHeight() - handle, need[id(lead)])
            if lead.minimumHeight() < fold:
                lead.setMinimumHeight(fold)
        ideal = {id(p): max(min(stacked_height(p, width), first_room if p is main else whole), p.minimumHeight())
                 for p in plots}
        want = sum(ideal.values())
        above = shows - handle * len(plots) - (lead.minimumHeight() if lead is not None else 0)
        cap = above if below else want      # the plots' height that leaves the sentence in view
        heights = {id(p): ideal[id(p)] for p in plots}
        over = want - cap       # taken from the plots after the first (the study's main plot) first:
        for p in plots[1:][::-1] + plots[:1]:     # shared alike, the Hessian's 40 x 40 H drew 93 px
            cut = max(min(over, heights[id(p)] - p.minimumHeight()), 0)
            heights[id(p)] -= cut
            over -= cut
        spare = min(room - sum(heights.values()) - sum(need.values()), 2 * (cap - sum(heights.values())))
        if spare > 0 and plots:
            for p in plots:
                heights[id(p)] = max(heights[id(p)], min(ideal[id(p)] + spare // 2 // len(plots), PLOT_MAX_H))
        left = max(room - sum(heights.values()), 0)
        total = sum(need.values()) or 1
        heights.update({id(p): max(left * need[id(p)] // total, p.minimumHeight()) for p in words})
        if main is not None and lead is not None and len(plots) > 1:    # the lead ends at the fold
            heights[id(plots[-1])] += heights[id(lead)] - lead.minimumHeight()
            heights[id(lead)] = lead.minimumHeight()
        self.setSizes([heights.get(id(p), 0) for p in parts])
        if self.minimumSizeHint().height() > self.height():
            self.grew.emit()

    def _fit_squares(self):
        """Side by side, a square heatmap exactly as wide as its square image needs at the
        dock's height (its box at its share was 430 px wider than a 15 x 15 Jacobian, an
        empty band), but never at the cost of another heatmap's floor: the width that makes
        its cells square, or its share of the width when that is less (BatchNorm's square
        norms took all but 28 px from the patch image beside them; with the patch image's
        cells square too, it took all but 20 px from the norms). The other parts share
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
        squares = [p for p in parts if wants[id(p)] is not None]
        while squares:      # each its width, or its share of the room where they want more
            weight = sum(shares.get(id(p), 1) for p in squares) or 1
            fair = {id(p): room * shares.get(id(p), 1) // weight for p in squares}
            content = [p for p in squares if wants[id(p)] <= fair[id(p)]]
            for p in content or squares:
                sizes[id(p)] = max(wants[id(p)] if content else fair[id(p)], p.minimumWidth())
            if not content:
                break
            room -= sum(sizes[id(p)] for p in content)
            squares = [p for p in squares if p not in content]
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

    def _area(self):
        """The dock's scroll area around the view (None outside one)."""
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        return area if area is not None and area.widget() is not None else None

    def shown_height(self):
        """How much of the splitter's height the dock's scroll area shows from its top
        (0 outside one)."""
        area = self._area()
        if area is None:
            return 0
        return area.viewport().height() - self.mapTo(area.widget(), QPoint(0, 0)).y() - 6

    def showEvent(self, event):
        """Stacked, the parts follow the height the dock shows, which changes without the
        view being resized where it scrolls (the story's provenance taking its height)."""
        super().showEvent(event)
        area = self._area()
        if area is not None and not area.viewport().property("refits"):
            area.viewport().setProperty("refits", True)
            area.viewport().installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Resize and self.stacked:
            self._refit_later()
        return False

    def slide_pieces(self, at):
        """(pieces, height) of the parts shown, for StudyView.slide from `at`: each plot as
        it is, each word column's labels whole, one below the other (a row of controls in
        a column is left out)."""
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


def beside_words(plots, words, shares, keys=()):
    """The plots side by side and, at their right, the words: one `word_column`, or
    several (`words` a list of tuples: a tall table beside the banners), in PlotsAndWords
    whose parts start at `shares` of its width (one a part). Side by side the plots get the
    dock's whole height, so a view fits the low dock of a 1280x800 window, and the words
    are given the width they need to show whole there. `keys`: word_column's, each in the
    column that holds it."""
    split = PlotsAndWords()
    for plot in plots:
        split.addWidget(plot)
    for column in (words if isinstance(words, list) else [words]):
        split.addWidget(word_column(*column, keys=[k for k in keys if k in column]))
    split.set_shares(shares)
    return split
