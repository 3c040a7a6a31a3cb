"""The gradient check: the backward pass's number for one entry of a source beside central
differences of the forward pass at step sizes from 0.1 down, as a table (the digits that
agree in bold) and as the relative error against h on log-log axes.

A correct rule draws a V: the error falls as h² (a line of slope 2) until rounding takes
over and it rises again; the bottom of the V is the best step. A wrong rule draws a flat
line: its error does not depend on h. The numbers come from graph.gradient_check.
"""
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QComboBox, QLabel

from ...graph.gradient_check import (difference_text, gradient_check, largest_entry,
                                     loss_symbol, relative_error)
from ...story.numbers import (alone, exponent, factor_text, h_text, line_format, number_format,
                              power_text)
from . import plot_colours
from ._base import StudyView, _html
from .choosers import PortChooser, rich_names, study_ports
from .applies import graph_error, missing_roles
from .banners import banner, set_banner
from .plot_style import DIVERGING, TEXT, relabel, style_plot, still_plot
from .chain_view import fit_legend, legend_row
from .norms_view import LogAxis
from .plots_and_words import COLUMN_MIN_W, beside_words

LINE = DIVERGING[-2]          # the measured errors, in the backward pass's red
SLOPE = DIVERGING[1]          # the h² guide, in blue
GUIDE_LABEL = "∝ {}² (truncation alone)"   # the step's letter, renamed beside a node h
STEP_AXIS = "step size {} (log scale)"
GUIDE_SLOPE = 2.0             # its slope on log-log axes: the error falls 100 times per 10 times smaller h
ERROR_LABEL = "relative error of {}"   # of the central difference, by its letter
EXACT_LABEL = "0 (exact)"     # beside a step whose error is 0, drawn on the plot's floor
EXACT_GAP = 6                 # px between two of those labels
ENTRY_LIMIT = 200             # entries a chooser offers (the first ones of a large source)


class GradientCheckView(StudyView):
    title = "Gradient check"
    MIN_SIZE = (560, 240)

    def __init__(self, controller, parent=None):
        super().__init__(controller, parent)
        self.source_box = PortChooser()
        self.entry_box = QComboBox()
        self.entry_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.layout_.addLayout(self.chooser_row(("Source", self.source_box),
                                                ("entry", self.entry_box)))
        self.layout_.addWidget(self.busy)
        self.layout_.addWidget(self.message)
        self.verdict = banner("info")
        self.plot = still_plot(LogAxis("left"), ("relative error", "rel. error", "error"),
                               STEP_AXIS.format("h"))
        self.plot.setAxisItems({"bottom": LogAxis("bottom")})
        style_plot(self.plot.getPlotItem())
        relabel(self.plot.getAxis("bottom"), STEP_AXIS.format("h"))
        self.guide = pg.PlotDataItem([], [], pen=pg.mkPen(SLOPE, width=2, style=Qt.PenStyle.DashLine))
        self.line = pg.PlotDataItem([], [], pen=pg.mkPen(LINE, width=2), symbol="o",
                                    symbolSize=9, symbolBrush=LINE, symbolPen=pg.mkPen(TEXT))
        self.best = pg.ScatterPlotItem([], [], size=18, symbol="o", brush=None,
                                       pen=pg.mkPen(TEXT, width=2))
        # A step whose error is exactly 0 (a log axis has no place for it): a triangle on the
        # plot's floor, pointing down past it, and the words "0 (exact)" above it.
        self.exact = pg.ScatterPlotItem([], [], size=12, symbol="t", brush=LINE, pen=pg.mkPen(TEXT))
        self.exact_labels = []
        for item in (self.line, self.exact, self.best, self.guide):   # the dashed guide over the errors' line
            self.plot.addItem(item)
        # Above the plot, never over its points (inside, it covered them in a narrow column).
        self._step_letter = "h"     # the check's (another beside a node named h)
        self.legend = legend = legend_row(self.plot)
        legend.addItem(self.line, ERROR_LABEL.format("c"))
        legend.addItem(self.guide, GUIDE_LABEL.format("h"))
        self.plot.installEventFilter(self)      # its columns follow the plot's width
        self.plot.getViewBox().sigResized.connect(self._label_exact)   # the runs its width joins
        self.table = QLabel()
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.table.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explanation = QLabel()
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)   # names as written
        self.explanation.setWordWrap(True)
        split = beside_words((self.plot,), [(self.table,), (self.verdict, self.explanation)],
                             (3, 2, 2))
        self.table_column = split.widget(1)    # as wide as the table: the rest to the words
        self.layout_.addWidget(split, 1)
        self.source_box.currentIndexChanged.connect(self._source_changed)
        self.update_choosers()

    def eventFilter(self, watched, event):
        if watched is self.plot and event.type() == QEvent.Type.Resize:
            fit_legend(self.legend, event.size().width())
        return super().eventFilter(watched, event)

    # -- choosers ------------------------------------------------------------------------
    def update_choosers(self):
        doc = self.controller.doc
        self.source_box.set_ports(doc, study_ports(doc, "gradient_check", "sources"))
        self._fill_entries()

    def _source_changed(self):
        self._fill_entries(keep=False)

    def _fill_entries(self, keep=True):
        """Every entry of the chosen source ('w[0]', 'w[1]', …); the study's own index or the
        entry of the largest gradient is chosen first, then the user's choice is kept."""
        source = self.source_box.port()
        value = None if source is None else self.value_of(source)
        shape = () if value is None else np.shape(value)
        current = self.entry_box.currentData() if keep else None
        entries = [tuple(int(i) for i in ix) for _, ix in zip(range(ENTRY_LIMIT), np.ndindex(*shape))]
        self.entry_box.blockSignals(True)
        self.entry_box.clear()
        name = self.source_box.currentText()
        for ix in entries:
            self.entry_box.addItem(name + (f"[{', '.join(map(str, ix))}]" if ix else ""), ix)
        chosen = current if current in entries else self._first_entry(source, shape)
        if chosen in entries:
            self.entry_box.setCurrentIndex(entries.index(chosen))
        self.entry_box.blockSignals(False)

    def _first_entry(self, source, shape):
        doc = self.controller.doc
        spec = doc.studies.get("gradient_check", {})
        if "index" in spec and study_ports(doc, "gradient_check", "sources")[:1] == [source]:
            return tuple(int(i) for i in np.atleast_1d(spec["index"])) if shape else ()
        ev = self.controller.result.evaluation
        return largest_entry(None if ev is None else ev.gradients.get(source), shape)

    def chosen_ports(self):
        """The loss (the document's targets: no chooser picks it) and the chosen source."""
        return [*self.controller.doc.targets, *super().chosen_ports()]

    # -- the study -----------------------------------------------------------------------
    def job(self):
        source, index = self.source_box.port(), self.entry_box.currentData()
        missing = missing_roles(("a loss (a target)", self.controller.doc.targets),
                                ("a source (a Variable or a watched constant)", source))
        if missing:
            return self._show_not_applicable(missing)
        if index is None:     # the source has no value: the graph stops before it, or it is empty
            return self._show_error(graph_error(self.controller, self.chosen_ports()) or
                                    f"{self.source_box.currentText()} has no elements to check")
        doc = self.doc_copy()
        ev = self.controller.result.evaluation
        elements = 0 if ev is None else sum(int(np.size(v)) for v in ev.values.values())
        return (lambda: gradient_check(doc, source, index)), 40 * elements

    def show_result(self, check):
        set_banner(self.verdict, "ok" if check.passed else "info" if check.undecided else "warning",
                   f"<b>∂{_html(check.loss_name)} / ∂{_html(check.entry_name)}</b>: "
                   f"backward pass {long_number(check.backward)(check.backward)}. "
                   f"{_html(check.verdict(_verdict_format(check)))}")
        rows = [r for r in steps_down(check) if r.relative > 0]     # drawn, largest h first
        exact = [r for r in check.rows if r.relative == 0]
        logs_h = np.log10([r.h for r in rows]) if rows else np.zeros(0)
        logs_e = np.log10([r.relative for r in rows]) if rows else np.zeros(0)
        self.line.setData(logs_h, logs_e)
        self._step_letter = check.letters["h"]
        relabel(self.plot.getAxis("bottom"), STEP_AXIS.format(self._step_letter))
        guide = guide_drawn(check)
        self._show_guide(guide)
        for sample, label in self.legend.items:     # its letters, renamed beside a node c or h
            if sample.item is self.line:
                label.setText(ERROR_LABEL.format(check.letters["c"]))
            elif sample.item is self.guide:
                label.setText(GUIDE_LABEL.format(self._step_letter))
        floor = self._set_ranges(logs_h, logs_e, exact)
        if guide:
            self._draw_guide(rows[0])
        self._show_exact(exact, floor, exact_runs(check.rows))
        best = check.best if check.passed else None   # a failing check has no best step
        if best is not None and (best.relative > 0 or best in exact):
            self.best.setData([np.log10(best.h)], [np.log10(best.relative) if best.relative else floor])
        else:
            self.best.setData([], [])
        self.table.setText(_table(check))
        self.table_column.setMaximumWidth(max(self.table.sizeHint().width() + 12, COLUMN_MIN_W))
        self.explanation.setText(explanation(check))

    def _set_ranges(self, logs_h, logs_e, exact):
        """The axes' ranges over the drawn errors and the steps of error 0; the log10 of the
        floor where those are drawn (a decade below the smallest drawn error)."""
        xs = np.concatenate([logs_h, np.log10([r.h for r in exact])])
        if not xs.size:
            return 0.0
        if logs_e.size:
            low = max(min(logs_e.min(), logs_e.max() - 1), -17)
            bottom, top = np.floor(low) - 0.3, np.ceil(logs_e.max()) + 0.3
            bottom -= 0.5 if exact else 0.0     # room for the triangles and their words
        else:                                   # every error is 0: the floor alone
            bottom, top = -17.3, -15.7
        self.plot.setYRange(bottom, top, padding=0)
        floor = bottom + 0.25
        self.plot.setXRange(xs.min() - 0.3, xs.max() + 0.3, padding=0)
        return floor

    def _draw_guide(self, first):
        """The h² guide through the largest step (`first`), where truncation alone would go,
        across the whole h range the plot shows, cut where it leaves the plot's error range.
        Drawn only over the steps, it hid under the errors' line where they fall as h² and
        showed as a stub where they part, or ran off the bottom; it is drawn over that line."""
        (left, right), (bottom, top) = self.plot.getViewBox().viewRange()
        through = math.log10(first.relative) - GUIDE_SLOPE * math.log10(first.h)   # log e = through + 2 log h
        low, high = max(left, (bottom - through) / GUIDE_SLOPE), min(right, (top - through) / GUIDE_SLOPE)
        if low < high:
            self.guide.setData([low, high], [through + GUIDE_SLOPE * low, through + GUIDE_SLOPE * high])
        else:
            self.guide.setData([], [])

    def _show_exact(self, exact, floor, runs=()):
        """Each step of error 0 as a triangle on the plot's floor, with "0 (exact)" above each
        run of neighbouring such steps (`runs`, their log10 h)."""
        self._exact_at = (list(runs), floor)
        self.exact.setData([math.log10(r.h) for r in exact], [floor] * len(exact))
        self._label_exact()

    def _label_exact(self):
        """The words "0 (exact)" over the triangles: one label over each run of neighbouring
        steps of error 0, and over runs whose labels would touch at the plot's width now
        (label_runs), so no two overlap. On a graph of gradient zero the five labels stood
        on one another in the docked column."""
        for label in self.exact_labels:
            self.plot.removeItem(label)
        self.exact_labels = []
        runs, floor = getattr(self, "_exact_at", ([], 0.0))
        if not runs:
            return
        box = self.plot.getViewBox()
        (left, right), _ = box.viewRange()
        per_unit = box.width() / (right - left) if right > left else 0.0
        probe = pg.TextItem(EXACT_LABEL)
        wide = probe.boundingRect().width() / per_unit if per_unit > 0 else right - left
        for x in label_runs(runs, wide, EXACT_GAP / max(per_unit, 1e-9), (left, right)):
            label = pg.TextItem(EXACT_LABEL, color=plot_colours.ink(), anchor=(0.5, 1.2))
            label.setPos(x, floor)
            self.plot.addItem(label)
            self.exact_labels.append(label)

    def _show_guide(self, shown):
        """The h² guide and its legend entry, only where truncation shows: where the error
        only grows as h shrinks (a loss with no third derivative along the entry), a line
        falling as h² through the largest step would say what the points contradict."""
        listed = any(sample.item is self.guide for sample, _ in self.legend.items)
        if not shown:
            self.guide.setData([], [])
            if listed:
                self.legend.removeItem(self.guide)
        elif not listed:
            self.legend.addItem(self.guide, GUIDE_LABEL.format(self._step_letter))
        fit_legend(self.legend, self.plot.width())

    def problem_of(self, check):
        """A failing check is a problem of the document: the status bar says so (not one
        that cannot measure the gradient: that says nothing of the rule)."""
        return check.summary() if check.failed else ""

    def clear_result(self):
        for item in (self.guide, self.line, self.best):
            item.setData([], [])
        self._show_exact([], 0.0)
        set_banner(self.verdict, "info", "")
        self.table.setText("")
        self.explanation.setText("")


def exact_runs(rows):
    """The log10 h of the steps of error 0, in runs of neighbouring steps (sorted by h)."""
    runs, previous = [], False
    for row in sorted(rows, key=lambda r: r.h):
        exact = row.relative == 0
        if exact:
            if previous:
                runs[-1].append(math.log10(row.h))
            else:
                runs.append([math.log10(row.h)])
        previous = exact
    return runs


def label_runs(runs, wide, gap, span):
    """The centres of labels `wide` across, one over each of `runs` (lists of sorted x, in
    order), kept inside `span` (left, right): runs whose labels would come closer than
    `gap` share one label, over the middle of them, until no two labels overlap."""
    left, right = span
    runs = [list(run) for run in runs]

    def centre(run):
        return min(max((run[0] + run[-1]) / 2, left + wide / 2), right - wide / 2)
    i = 0
    while i < len(runs) - 1:
        if centre(runs[i + 1]) - centre(runs[i]) < wide + gap:
            runs[i:i + 2] = [runs[i] + runs[i + 1]]
            i = max(i - 1, 0)       # the joined run's label may now touch the one before
        else:
            i += 1
    return [centre(run) for run in runs]


def guide_drawn(check):
    """Whether the plot draws the h² guide (and the words speak of it): through the largest
    step with an error the log axis can draw, unless the check passes with rounding from
    the largest step on, where truncation does not show."""
    drawable = any(r.relative > 0 and np.isfinite(r.relative) for r in check.rows)
    return drawable and not check.undecided and not (check.passed and shape(check) == "rounding")


def steps_down(check):
    """The rows of finite error, largest h first (a document's own steps may come in any order)."""
    return sorted((r for r in check.rows if math.isfinite(r.relative)), key=lambda r: -r.h)


def shape(check):
    """Where the best step lies, by what the errors mean, not by which row happens to be the
    least (among errors of rounding's size that is chance: on another CPU lesson 1's error
    at h = 0.01 came out 0, and the view drew a V): 'rounding' where truncation does not show,
    the error at the largest h within the forward pass's rounding (GradientCheck.rounding,
    about ε·|L|/h; truncation then stays below it at every smaller h), or no smaller h doing
    better; 'v' where it is above it (truncation) and rounding takes over at a smaller h, the
    best step; 'truncation' where the best step is the smallest and its error is still above
    its rounding. None without a best step."""
    best, rows = check.best, steps_down(check)
    if best is None or len(rows) < 2:
        return None
    first, last = rows[0], rows[-1]
    if best is first or not first.error > check.rounding(first):
        return "rounding"
    return "truncation" if best is last and last.error > check.rounding(last) else "v"


def explanation(check):
    """The words under the plot, saying what it draws: the relative error's formula with the
    user's names for the loss and the entry, and, as the numbers show it, the best step
    ringed at the bottom of the V, or at an end of the steps where there is no V, or, where
    its error is 0, that the log axis cannot draw it."""
    best = check.best if check.passed else None
    where_v = shape(check) if best is not None else None
    h = check.letters["h"]      # the step's letter (another beside a node named h)
    if check.undecided:
        where = (f"Here rounding alone is above {alone(check.tolerance)} of the gradient at every "
                 f"{h} (the verdict above), so no {h} is ringed, and the line says nothing of the "
                 "rule.")
    elif best is None:
        where = (f"For a correct rule the best {h} is where they meet, the bottom of a V; here no "
                 f"{h} brings the error below {alone(check.tolerance)}, so none is ringed.")
    elif where_v == "rounding":
        where = _rounding_words(check, best, h)
    elif where_v == "truncation":
        where = (f"Here the error still falls at the smallest {h} = {h_text(best.h)}: rounding "
                 f"has not caught up with truncation yet, so the best {h} is the smallest (ringed) "
                 "and "
                 "the V's rising arm lies beyond the steps tried.")
    else:
        where = f"The best {h} is where they meet, the bottom of the V (ringed)."
    if best is not None and best.relative == 0:
        where += (f" The ringed {h} = {h_text(best.h)} gives error 0, which a log axis has no "
                  f"place for: it is drawn as the triangle on the plot's floor, marked "
                  f"“{EXACT_LABEL}”.")
    guide = " (the dashed line of slope 2)" if guide_drawn(check) else ""
    backward = long_number(check.backward)(check.backward)
    c, b = check.letters["c"], check.letters["b"]
    return (f"The plot and the table's last column are the relative error {relative_error(check)} "
            f"(0 where both are 0), where {b} = {backward} is the backward pass's "
            f"∂{check.loss_name} / ∂{check.entry_name} and {c} is the central difference "
            f"{difference_text(check)} at each step {h}. Central differences only run the "
            "forward pass, so they check every rule the backward pass used. Their error has two "
            f"parts: truncation, about {h}²/6 times the third derivative, which falls 100 times "
            f"for each 10 times smaller {h}{guide}, and rounding, about "
            f"ε·|{loss_symbol(check)}|/{h}, which grows as {h} shrinks ({check.dtype}: ε = "
            f"{alone(np.finfo(check.dtype).eps)}). {where} A wrong "
            f"rule gives an error that does not fall with {h} at all: a flat line"
            + (f", where {h} resolves the gradient." if check.undecided else ".")
            + (f" In float32 rounding takes over at far larger {h} than in float64 (ε = "
               f"{alone(np.finfo(np.float64).eps)}): gradient checks are usually run in float64."
               if check.dtype == "float32" else ""))


def _rounding_words(check, best, h):
    """Where truncation does not show (shape 'rounding'): why the best step is where it is."""
    first, second = steps_down(check)[:2]
    little = (f"no V and no {h}² line show (a loss with little third derivative along this "
              "entry, or none, as a matmul summed, has little truncation to show).")
    if best is first and best.relative > 0:
        return (f"Here no smaller {h} does better than the largest, {h} = {h_text(best.h)}: by "
                f"{h} = {h_text(second.h)} the error is already at least 100 times its truncation "
                f"part, so it is rounding, and the best {h} is the largest step tried (ringed); "
                + little)
    return (f"Here truncation does not show: already at the largest {h}, {h} = "
            f"{h_text(first.h)}, the error is within what rounding alone gives (about "
            f"ε·|{loss_symbol(check)}|/{h}), and truncation shrinks 100 times for each 10 times "
            f"smaller {h} while rounding grows, so the errors scatter with rounding and the "
            f"least of them, at {h} = {h_text(best.h)} (ringed), is where rounding happened to "
            "land lowest; " + little)


def _table(check):
    """The rows as rich text: each central difference with the significant digits it shares
    with the backward pass's number in bold; the best step marked when the check passes."""
    write = long_number(check.backward)
    backward = write(check.backward)
    gap = "style='padding-left:5px'"     # between the columns (narrow: whole in a 340 px column)
    c, b = (_html(check.letters[k]) for k in "cb")
    head = (f"<tr><th align=right>{_html(check.letters['h'])}</th>"
            f"<th align=right {gap}>central<br>difference {c}</th>"
            f"<th align=right {gap}>relative<br>error</th></tr>"
            f"<tr><td align=right>backward {b}</td><td align=right {gap}><b>{_html(backward)}</b></td>"
            "<td></td></tr>")
    body = []
    best = check.best if check.passed else None
    for r in check.rows:
        text = write(r.difference)
        same = _agreeing(text, r.agreeing_digits)
        cell = f"<b>{_html(text[:same])}</b>{_html(text[same:])}"
        mark = " ◀ best" if r is best else ""
        body.append(f"<tr><td align=right>{h_text(r.h)}</td><td align=right {gap}>{cell}</td>"
                    f"<td align=right {gap}>{alone(r.relative)}{mark}</td></tr>")
    return f"<table cellspacing=0 cellpadding=1>{head}{''.join(body)}</table>"   # whole in a low dock


def long_number(backward, digits=10):
    """A function writing the backward pass's number and its central differences with
    `digits` significant digits of the backward's, in one fixed-point form for the column
    (the agreeing digits line up), beyond the ordinary magnitudes divided by the
    backward's power of ten, that power after each (1.413016497×10⁻⁵), never e-notation."""
    power = exponent((abs(backward), abs(backward), False, False))
    scaled = abs(backward) / 10.0 ** power
    lead = math.floor(math.log10(scaled)) if scaled > 0 and math.isfinite(scaled) else 0
    decimals = min(max(digits - 1 - lead, 0), 15)
    fixed = number_format(None, spec=f"%.{decimals}f")
    return lambda x: fixed(x / 10.0 ** power) + factor_text(power)


def _verdict_format(check):
    best = check.best
    said = [check.backward, check.loss] if check.undecided else []   # numbers its words write
    return line_format(*([] if best is None else [best.h, best.relative, check.typical_relative]),
                       check.tolerance, *said)


def _agreeing(text, digits):
    """How many leading characters of the written number `text` hold its first `digits`
    significant digits (the power of ten after × is none of them; all of it when every
    written digit agrees): what agrees with the backward pass's number to `digits` digits
    by the relative error, not by the text (0.999999046 agrees with 1.000000000 to 6
    digits while sharing no character but the point)."""
    if digits <= 0:
        return 0
    mantissa, seen = text.split("×")[0], 0
    for n, c in enumerate(mantissa):
        seen += c in "123456789" or (c == "0" and seen > 0)
        if seen == digits:
            return n + 1 if n + 1 < len(mantissa) else len(text)
    return len(text)
