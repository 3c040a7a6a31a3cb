"""What the study docks share: lazy, debounced recomputation off the document's result,
port choosers, and a busy bar with Cancel for studies that run in a worker.

A view recomputes only while it is visible: `controller.evaluated` marks it stale and
(when shown) starts a short debounce timer, so dragging a value or undoing in a burst
costs one study, not one per edit. `refresh()` computes now (tests call it).
"""
import copy
import html
import re

import numpy as np
from PySide6.QtCore import QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QAbstractSpinBox, QApplication, QComboBox, QFrame, QHBoxLayout,
                               QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget)

from ...engine.errors import counted
from ...graph.errors import DocumentError
from ...graph.tensors import dims
from ...story.numbers import writer
from .. import worker
from ..evaluation import worded
from ..export_dialog import Slide, export_view_dialog
from .applies import graph_error
from .banners import Banner, banner, set_banner
from .choosers import ChooserRow, PortChooser
from .plots_and_words import NARROW_MIN_W, VIEW_FONT_PT, PlotsAndWords, WordColumn

DEBOUNCE_MS = 120
LOW_VIEW = 2.5            # a view this many times as wide as it is tall puts its choosers beside the plots
WORKER_ELEMENTS = 200_000    # studies with more matrix entries than this go to the worker

def compared(a, b, tolerance, number):
    """(agrees, words) for a check that two arrays are equal, as a banner ends it: 'max
    |difference| = 0'; where they hold NaN or infinity, over the entries where both are
    numbers and whether the others are the same entries ('max |difference| = nan' beside ✗
    said nothing of either). They agree when their numbers do and their NaN stand alike;
    `agrees` is None when no entry of both is a number (nothing was checked)."""
    a, b = np.asarray(a), np.asarray(b)
    both = np.isfinite(a) & np.isfinite(b)
    gap = float(np.abs(a[both] - b[both]).max(initial=0))
    if both.all():
        return gap <= tolerance, f"max |difference| = {number(gap)}"
    same = bool(np.array_equal(np.isfinite(a), np.isfinite(b)))
    stand = ("the same" if same else "different") + " entries of each hold NaN or infinity"
    if not both.any():
        return None, ("Nothing to compare: every entry of both is NaN or infinity" if same else
                      "Nothing to compare: no entry is a number in both")
    return gap <= tolerance and same, (f"max |difference| = {number(gap)} over the "
                                       f"{counted(int(both.sum()), 'entry', 'entries')} where "
                                       f"both are numbers; {stand}")


def check_mark(agrees):
    """✓, ✗, or – for a check with nothing to compare (compared)."""
    return "–" if agrees is None else "✓" if agrees else "✗"


def preview(array, n=4, number=None):
    """The first `n` numbers of `array`, written by `number`; by default as its card writes
    the tensor (story.numbers.writer: 0.034 beside 0.220, never 3.359×10⁻² where the card
    shows 0.034)."""
    flat = np.asarray(array).ravel()
    number = number or writer(flat)
    items = ", ".join(number(v) for v in flat[:n])
    return f"[{items}{', …' if flat.size > n else ''}]"


SLIDE_SIZE = (1280, 720)     # Export View's slide of a view whose dock is a strip
SLIDE_MAX_ASPECT = 2.2       # wider than this times its height, a view is a strip


class StudyView(QWidget):
    """Base of the study docks: subclasses implement `job()` and `show_result()`."""

    title = "study"
    # The width its plots and words need side by side (narrower, they stack: PlotsAndWords)
    # and the least height (below it the view scrolls, vertically).
    MIN_SIZE = (560, 240)
    # Why the study cannot be computed or used ('' when it can): the status bar shows it,
    # so a failed study never sits beside "✓ no problems".
    problemChanged = Signal(str)
    # The view has settled on what it shows: a study, or why it has none (idle_words); once
    # per burst of changes (a study that does not apply is first an error, then not).
    settled = Signal()
    shows_problem = False        # True: show_result shows a NaN warning itself (no banner)

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setMinimumSize(NARROW_MIN_W, self.MIN_SIZE[1])
        self.result = None           # the last study shown
        self.error = ""
        self.problem = ""
        self.not_applicable = ""     # why the study does not apply to this document ('' when it does)
        self._stale = True
        self._task = None
        self._generation = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh)
        self._settling = QTimer(self)
        self._settling.setSingleShot(True)
        self._settling.setInterval(0)
        self._settling.timeout.connect(self.settled)
        controller.evaluated.connect(self._invalidate)
        controller.documentReplaced.connect(self._document_replaced)

        font = self.font()
        font.setPointSizeF(max(font.pointSizeF(), VIEW_FONT_PT))
        self.setFont(font)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(6, 6, 6, 6)
        self.layout_.setSpacing(6)
        self.busy = QFrame()
        busy = QHBoxLayout(self.busy)
        busy.setContentsMargins(0, 0, 0, 0)
        self.busy_label = QLabel("Computing…")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setMaximumHeight(14)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        busy.addWidget(self.busy_label)
        busy.addWidget(self.progress, 1)
        busy.addWidget(self.cancel_button)
        self.busy.hide()
        self.message = banner("error", whole=True)

    def heightForWidth(self, width):
        """None: in its dock's scroll area a view fills the height it is given and scrolls
        only below its minimum (its wrapped words' preferred height would make it taller
        than the dock and scroll the plots away)."""
        return -1

    # -- choosers ------------------------------------------------------------------------
    def chooser_row(self, *pairs, controls=()):
        """The top row: the choosers, the view's `controls` (groups of widgets that stay
        together: the Hessian's ε, its Newton step), then Export View… at the right (in
        rows where narrow), all in view where the dock shows the view's top."""
        groups = []
        for text, widget in pairs:
            groups.append([QLabel(text), widget])
            if isinstance(widget, QComboBox):
                widget.currentIndexChanged.connect(self._choice_changed)
        groups += [list(group) for group in controls]
        self.export_button = QPushButton("Export View…")
        self.export_button.setToolTip(f"Save this {self.title} view as a PNG, SVG or PDF picture")
        self.export_button.clicked.connect(self.export_view)
        groups.append([self.export_button])
        self.choosers = ChooserRow(groups)
        return self.choosers

    # -- arrangement -------------------------------------------------------------------
    def stacked(self):
        """True where the view is narrower than its plots and words need side by side."""
        return self.width() < self.MIN_SIZE[0]

    def arrange(self):
        """Plots beside or over the words, and the choosers in as many rows as the width
        needs, for the view's width now."""
        stacked = self.stacked()
        for split in self.findChildren(PlotsAndWords):
            if not getattr(split, "_followed_by_view", False):
                split._followed_by_view = True
                split.grew.connect(self._hold_parts)
            split.stack(stacked)
            split.fit()
        # Stacked, the view is as tall as its parts' least heights say (its dock scrolls down
        # to them); side by side its least height keeps the plots readable, below the message
        # (at 1920 x 1080 a NaN warning of two lines left the Hessian's plot 70 px).
        margins = self.layout_.contentsMargins()
        message = (self.message.heightForWidth(self.width() - margins.left() - margins.right())
                   + self.layout_.spacing() if self.message.isVisibleTo(self) else 0)
        self.setMinimumHeight(self.stacked_least() if stacked else self.MIN_SIZE[1] + message)
        choosers = getattr(self, "choosers", None)
        if choosers is not None:
            column = self._place_choosers(stacked)
            margins = self.layout_.contentsMargins()
            choosers.wrap(column.viewport().width() if column is not None
                          else self.width() - margins.left() - margins.right())

    def _place_choosers(self, stacked):
        """Side by side (along the bottom), the choosers head the words at the right and the
        plots take the view's whole height: above them they took 36 of the 278 px a study had
        at 1920 x 1080, where the Hessian's 40 x 40 H drew a 168 px box. Stacked (a column),
        they stand above the plots, and so they do in a view whose plots are as wide as they
        are tall without them (Export View at 1100 x 760: heading the words they held the
        column 590 px wide, and the Hessian's H was drawn 209 px wide, not 390). Returns the
        column of words they head (None above)."""
        split = self.findChild(PlotsAndWords)
        columns = [p for p in split.parts() if isinstance(p, WordColumn)] if split is not None else []
        low = self.width() >= LOW_VIEW * self.height()      # along the bottom: height is scarce
        column = columns[-1] if columns and not stacked and low and columns[-1].widget() is not None else None
        home = self.layout_ if column is None else column.widget().layout()
        if self.choosers.parent() is not home:
            self.choosers.parent().removeItem(self.choosers)
            self.choosers.setParent(None)
            home.insertLayout(0, self.choosers)
        return column

    def stacked_least(self):
        """Stacked, the view's least height at its width: each part of its layout at its least
        height, wrapped words at the height their lines take. The layout's own least height
        counts a wrapped caption as one line, so the view was given 42 px less than its plots'
        least heights and the splitter laid them over each other (the Hessian at 1280 x 800,
        the provenance open: its eigenvalues' title over the heatmap's readout)."""
        layout, width = self.layout_, self.width()
        margins = layout.contentsMargins()
        inner = width - margins.left() - margins.right()
        heights = []
        for i in range(layout.count()):
            item = layout.itemAt(i)
            if item.isEmpty():
                continue
            least = item.minimumSize().height()
            if item.hasHeightForWidth():
                least = max(least, item.heightForWidth(inner))
            heights.append(least)
        return sum(heights) + layout.spacing() * max(len(heights) - 1, 0) + margins.top() + margins.bottom()

    def _hold_parts(self):
        if self.stacked() and self.minimumHeight() < self.stacked_least():
            self.setMinimumHeight(self.stacked_least())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.arrange()

    def readable_height(self):
        """The least height that shows what stands above the plots (the choosers, a message),
        the words' first sentence and every plot at PLOT_USABLE_H without scrolling, at the
        view's width: what a study in front keeps of its column while the story plays
        (dock_room.StudyPlacement._share_column)."""
        split = self.findChild(PlotsAndWords)
        if split is None or split.isHidden():
            return self.minimumSizeHint().height()
        below = self.layout_.contentsMargins().bottom()
        return split.mapTo(self, QPoint(0, 0)).y() + split.readable_height(split.width()) + below

    def main_height(self):
        """The least height that shows what stands above the plots and, stacked, the main plot
        whole where it goes first in a short dock, the words' first sentence below it (a
        heatmap: PlotsAndWords.main_height): what a study keeps of its column beside a
        provenance the user opened while the story plays (dock_room.StudyPlacement.
        _share_column); None where its words go first."""
        split = self.findChild(PlotsAndWords)
        if split is None or split.isHidden() or not split.stacked:
            return None
        least = split.main_height(split.width())
        if least is None:
            return None
        return split.mapTo(self, QPoint(0, 0)).y() + least + self.layout_.contentsMargins().bottom()

    def export_view(self):
        return export_view_dialog(self.window(), self)

    def slide(self):
        """The view as Export View writes it, like a slide: its message and captions, its
        plots as they are on screen and the whole of its words below or beside them (not
        the part a low dock scrolls to), without its choosers, buttons, spin boxes or scroll
        bars. At 1280 x 800 the stacked Jacobian's picture held its choosers, a scroll bar
        and its words cut after four lines. A view in a dock far wider than tall (along the
        bottom at 1920 x 1080: a 3796 x 448 strip, its heatmaps squashed) is drawn by a
        twin laid out at SLIDE_SIZE instead; a view with a banner folded to its headline, by
        a twin of its size whose banners say their detail too (Banner.for_slide)."""
        folded = any(b.folded() for b in self.findChildren(Banner) if b.isVisibleTo(self))
        strip = self.width() > SLIDE_MAX_ASPECT * self.height()
        if self.result is not None and (folded or strip):
            twin = self._twin(QSize(*SLIDE_SIZE) if strip else self.size())
            slide = twin._slide_here()
            slide.owner = twin        # alive while the slide is drawn; deleted after
            return slide
        return self._slide_here()

    def _twin(self, size):
        """A view like this one, the same choices and result, laid out at `size` off
        screen (Export View's slide of a view whose dock is a strip)."""
        twin = type(self)(self.controller)
        twin.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        for shown in twin.findChildren(Banner):
            shown.for_slide = True
        for kind in (QComboBox, QAbstractSpinBox):
            for mine, theirs in zip(self.findChildren(kind), twin.findChildren(kind)):
                theirs.blockSignals(True)
                if isinstance(mine, QComboBox):
                    theirs.setCurrentIndex(mine.currentIndex())
                else:
                    theirs.setValue(mine.value())
                theirs.blockSignals(False)
        twin._stale = False
        twin.resize(size)
        twin.show()
        twin.job()                # what a view keeps of its choices (names, shapes), not run
        twin._generation += 1
        twin._done(twin._generation, self.result)
        for _ in range(3):        # its layout, then the heatmaps' queued refits
            QApplication.sendPostedEvents()
            QApplication.processEvents()
        return twin

    def _slide_here(self):
        margins = self.layout_.contentsMargins()
        spacing = self.layout_.spacing()
        pieces, y = [], margins.top()
        for item in (self.layout_.itemAt(i) for i in range(self.layout_.count())):
            widget = item.widget()
            if widget is None or widget.isHidden():
                continue                # the choosers' rows, the room below
            if isinstance(widget, PlotsAndWords):
                placed, height = widget.slide_pieces(QPoint(widget.x(), y))
            elif isinstance(widget, QLabel) and widget.text():
                placed, height = [(widget, QPoint(widget.x(), y))], widget.height()
            else:
                continue                # the busy bar: a control
            pieces += placed
            y += height + spacing
        height = y - spacing + margins.bottom() if pieces else self.height()
        return Slide(QSize(self.width(), height), pieces, self.palette().color(QPalette.ColorRole.Window),
                     self.logicalDpiX(), f"{self.title} — gradviz")

    def _choice_changed(self):
        self._stale = True
        self._timer.start(0)

    def _document_replaced(self):
        """File ▸ New, Open or another lesson: the study shown (or running) is of a document
        gone; nothing of it stays on screen while the new one's is computed."""
        self.cancel()
        self.result, self.error, self.not_applicable = None, "", ""
        self.clear_result()
        self._show_results(False)
        set_banner(self.message, "info", "")
        self.update_choosers()
        self._stale = True

    def update_choosers(self):
        pass

    def result_widgets(self):
        """What shows a computed study: every widget of the view's column but the busy bar
        and the message (the choosers are a row of their own)."""
        items = (self.layout_.itemAt(i) for i in range(self.layout_.count()))
        return [item.widget() for item in items
                if item.widget() is not None and item.widget() not in (self.busy, self.message)]

    def _show_results(self, shown):
        """Hidden while there is no study to show (it cannot be computed, the document is
        empty or was replaced): no plot, colour bar, axis title or tick of another study
        stays beside the message that says why."""
        for widget in self.result_widgets():
            widget.setVisible(shown)
        if not self._rest_added:      # below the column: the room the hidden plots leave
            self.layout_.addStretch(0)
            self._rest_added = True
        self.arrange()

    _rest_added = False

    # -- lazy, debounced recomputation -------------------------------------------------
    def _invalidate(self, *_):
        self._stale = True
        if self.isVisible():
            self._timer.start()

    def showEvent(self, event):
        super().showEvent(event)
        if self._stale:
            self._timer.start(0)

    def hideEvent(self, event):
        """A closed dock (or window) stops its study; it is computed again when shown."""
        super().hideEvent(event)
        if self._task is not None:
            self.cancel()
            self._stale = True

    def refresh(self):
        """Compute the study for the current document and show it."""
        self._timer.stop()
        self._stale = False
        self.cancel()
        self.update_choosers()
        if not self.controller.doc.nodes:   # File ▸ New: nothing to study, and nothing wrong
            self.result, self.error, self.not_applicable = None, "", ""
            self.clear_result()
            self._show_results(False)
            set_banner(self.message, "info", "The document is empty: build a graph or open a "
                       "lesson, and its study shows here.")
            return self._set_problem("")
        try:
            job = self.job()
        except DocumentError as e:
            return self._show_error(str(e))
        if job is None:
            return
        fn, size = job
        self._generation += 1
        generation = self._generation
        if size <= WORKER_ELEMENTS:
            try:
                result = fn()
            except Exception as e:  # noqa: BLE001 (the refusal is shown in words)
                return self._show_error(self._reason(e))
            return self._done(generation, result)
        self.busy.show()
        self.busy_label.setText(f"Computing the {self.title.lower()}…")

        def work(job):
            job.report(0.0, "started")
            return fn()
        task = worker.run_job(work)
        task.progress.connect(lambda f, text: self.progress.setValue(int(100 * f)))
        task.finished.connect(lambda r: self._done(generation, r))
        # worded as in process: the input as the canvas labels it, not the engine's raw text
        task.failed.connect(lambda e: generation == self._generation
                            and self._show_error(self._reason(e)))
        self._task = task

    def cancel(self):
        if self._task is not None:
            self._task.cancel()      # it stops at the engine's next checkpoint
            self._task = None
        self._generation += 1
        self.busy.hide()

    def _done(self, generation, result):
        if generation != self._generation:
            return
        self._task = None
        self.busy.hide()
        self.error = ""
        set_banner(self.message, "error", "")
        self.result, self.not_applicable = result, ""
        matrix = getattr(result, "jacobian", getattr(result, "hessian", None))
        if matrix is not None and np.size(matrix) == 0:
            return self._show_empty(np.shape(matrix))
        self._show_results(True)     # before show_result: it hides the banners it leaves empty
        self.show_result(result)
        nan = getattr(result, "problem", "")   # where its NaN or infinity first appears
        if nan and not self.shows_problem:
            set_banner(self.message, "warning", f"<b>⚠ Its numbers hold NaN or infinity.</b> "
                                                f"{_html(nan)}")
        self.arrange()               # its words' new lengths, the choosers' new names, the message
        self._set_problem(self.problem_of(result))

    def _show_empty(self, shape):
        """An empty target or source (a 0 in its shape): the study is an empty array, and
        there is no matrix to draw; say so instead."""
        self.clear_result()
        self._show_results(False)
        set_banner(self.message, "info", f"The {self.title} is empty, shape "
                                         f"{dims(tuple(shape))}: the target or the source has no "
                                         "elements, so there is nothing to show.")
        self._set_problem("")

    def _reason(self, e):
        """Why the study failed, in words: an engine's refusal as it says it; a KeyError of
        a value the graph never computed, as the graph's own error that stopped it."""
        if isinstance(e, DocumentError):   # its node and input named as the canvas names them
            return worded(e, self.controller.doc)
        return graph_error(self.controller, self.chosen_ports()) or worded(e, self.controller.doc)

    def chosen_ports(self):
        """The ports the view's choosers pick (its target and source): what the study is
        computed from; the document's targets and sources for a view without choosers."""
        chosen = [box.port() for box in self.findChildren(PortChooser) if box.port() is not None]
        doc = self.controller.doc
        return chosen or [*doc.targets, *doc.sources]

    def _show_not_applicable(self, text):
        """The document lacks what the study needs (a batch axis, a target): said in words,
        no plot, and no warning in the status bar, for nothing is wrong with the document."""
        self._show_error(text)
        self.error, self.not_applicable = "", text
        set_banner(self.message, "info", f"<b>The {self.title} study does not apply here:</b> "
                                         f"{_html(text)}")
        self._set_problem("")

    def _show_error(self, text):
        self.not_applicable = ""
        self._task = None
        self.busy.hide()
        self.error = text
        self.result = None
        set_banner(self.message, "error", f"<b>Cannot compute the {self.title} study.</b> "
                                          f"{_html(text)}")
        self.clear_result()
        self._show_results(False)
        self._set_problem(text)

    def _set_problem(self, text):
        if text != self.problem:
            self.problem = text
            self.problemChanged.emit(text)
        self._settling.start()

    def idle_words(self):
        """Why the view shows no study though nothing is wrong, in a sentence for its folded
        dock's title ('' while it shows one, or an error): the study does not apply here (its
        first clause: what it needs), or the document is empty."""
        if self.not_applicable:
            why = re.split(r"[:;]|[.](?=\s|$)", self.not_applicable, maxsplit=1)[0]
            return f"The {self.title} study does not apply here: {why}."
        if self.result is None and not self.error and not self.controller.doc.nodes and not self._stale:
            return f"{self.title}: the document is empty."
        return ""

    def doc_copy(self):
        """A private copy of the document: the study may run while the user keeps editing."""
        return copy.deepcopy(self.controller.doc)

    def value_of(self, port):
        ev = self.controller.result.evaluation
        return None if ev is None else ev.values.get(port)

    # -- for subclasses --------------------------------------------------------------------
    def job(self):
        """(callable computing the study, its size in matrix entries), or None."""
        raise NotImplementedError

    def show_result(self, result):
        raise NotImplementedError

    def clear_result(self):
        pass

    def problem_of(self, result):
        """What the status bar must say about a computed study ('' when nothing): by default
        where its NaN or infinity first appears (a Hessian, a Jacobian holding one)."""
        return getattr(result, "problem", "")




def _html(text):
    return html.escape(str(text), quote=False)

