"""Every study view at 1280 x 800 and 1920 x 1080 in the window (issue 20 §5): no label cut
by its widget or by the dock's edge, tick labels at a regular step, the Hessian's matrix as large as its plot allows. Measured
on the widgets as laid out, not on the texts set."""
import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QScrollArea

from app_ui import tick_labels
from gradviz.app.studies.plots_and_words import PlotsAndWords
from test_study_docks import _open, window

_ = window   # the fixture, shared with test_study_docks

CASES = [("Jacobian", "001_dense_jacobian"), ("Batch Jacobian", "001_batchnorm_pitfall"),
         ("Hessian", "001_input_gradient_regularization"), ("Hessian", "001_hessian_newton"),
         ("Forward vs reverse", "001_hessian_newton"), ("Gradient norms", "nets_2_sigmoid_chain"),
         ("Gradient check", "nets_3_gradient_check"), ("Jacobian", "001_sigmoid_jacobian"),
         ("Jacobian", "nets_6_attention")]


def drawn_ticks(axis):
    """[(value, rect)] of the number labels the axis writes, as it would paint them."""
    out = []
    for rect, text in tick_labels(axis):
        try:
            out.append((float(text.replace(",", "").replace("−", "-")), rect))
        except ValueError:
            pass
    return out


def cut_labels(view):
    """What the view writes that its widget cuts: ['where: text']."""
    cut = []
    for label in view.findChildren(QLabel):
        if not label.isVisibleTo(view) or not label.text().strip() or label.width() <= 0:
            continue
        if label.wordWrap():
            if label.height() < label.heightForWidth(label.width()) - 1:
                cut.append(f"label (wrapped): {label.text()[:40]}")
        elif label.sizeHint().width() > label.width() + 1:
            cut.append(f"label: {label.text()[:40]}")
    for graphics in view.findChildren(pg.GraphicsView):
        if not graphics.isVisibleTo(view):
            continue
        seen = graphics.mapToScene(graphics.viewport().rect()).boundingRect().adjusted(-2, -2, 2, 2)
        for item in graphics.scene().items():
            if not item.isVisible():
                continue
            if isinstance(item, pg.AxisItem) and item.label.isVisible() and item.labelText:
                margin = item.label.document().documentMargin()   # around the text
                box = item.label.mapRectToScene(
                    item.label.boundingRect().adjusted(margin, margin, -margin, -margin))
                along = box.height() if item.orientation in ("left", "right") else box.width()
                length = item.sceneBoundingRect().height() if item.orientation in (
                    "left", "right") else item.sceneBoundingRect().width()
                if not seen.contains(box) or along > length + 2:
                    cut.append(f"axis title: {item.labelText} {along:.0f} px on {length:.0f}")
                cut += untrue_title(item)
            elif isinstance(item, pg.LabelItem) and item.text:
                if not seen.contains(item.sceneBoundingRect()):
                    cut.append(f"title: {item.text}")
    return cut


# Unicode's subscript letters: DejaVu Sans draws ᵢ and ⱼ 3 px wide at 11 pt, where the
# Hessian's colour bar title 'Hᵢⱼ' read as a smudge (issue 20 §5, auditor at 1920 x 1080);
# the eigenvalues' 'λₖ' has its ₖ 6 px wide
SUBSCRIPT_LETTERS = set("ₐₑₒₓₔₕₖₗₘₙₚₛₜᵢᵣᵤᵥᵦᵧᵨᵩᵪⱼ")
LEAST_GLYPH_W = 5       # px


def untrue_title(axis):
    """An axis title shown that is not true as written, or not readable: a name cut ('…')
    that its whole form does not have (the Jacobian's colour bar read '∂layer / ∂layer…' for
    ∂layer / ∂layer.kernel, another name), or subscript letters drawn a few pixels wide."""
    shown, forms = axis.labelText, getattr(axis, "title_forms", (axis.labelText,))
    out = []
    if "…" in shown and "…" not in forms[0]:
        out.append(f"axis title cut: {shown} (of {forms[0]})")
    metrics = QFontMetrics(axis.label.font())
    narrow = [c for c in SUBSCRIPT_LETTERS & set(shown) if metrics.horizontalAdvance(c) < LEAST_GLYPH_W]
    if narrow:
        out.append(f"axis title with subscript letters {''.join(narrow)} under {LEAST_GLYPH_W} px: {shown}")
    return out


def irregular_ticks(view):
    """Axes whose tick labels skip a step (0 10 30: one left out for want of room)."""
    out = []
    for graphics in view.findChildren(pg.GraphicsView):
        if not graphics.isVisibleTo(view):
            continue
        for item in graphics.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible() and item.style["showValues"]:
                values = sorted(v for v, _ in drawn_ticks(item))
                if item.logMode or type(item).__name__ == "LogAxis":
                    values = list(np.log10(np.abs(values)))
                steps = np.diff(values)
                if steps.size >= 2 and not np.allclose(steps, steps[0], rtol=1e-6):
                    out.append((item.orientation, item.labelText, values))
    return out


def scroll_bars(dock):
    """The scroll bars shown in a study dock: its own (the view taller than the dock) and
    those of the words' columns beside the plots ('where: vertical')."""
    out = []
    for area in dock.findChildren(QAbstractScrollArea):
        if not isinstance(area, QScrollArea) or not area.isVisibleTo(dock):
            continue
        for bar, side in ((area.verticalScrollBar(), "vertical"), (area.horizontalScrollBar(), "horizontal")):
            if bar.isVisibleTo(dock) and bar.maximum() > 0:
                out.append(f"{area.objectName() or type(area.widget()).__name__}: {side}")
    return out


def shown_rect(widget, across=False):
    """The part of the screen where `widget` shows: its rect clipped by every scroll area
    it lies in (the dock's, a column of banners), in global coordinates; `across`: by
    their sides only."""
    clip = _across if across else (lambda rect: rect)
    rect = QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            port = parent.viewport()
            rect = rect.intersected(clip(QRect(port.mapToGlobal(QPoint(0, 0)), port.size())))
        parent = parent.parentWidget()
    return rect


def _across(rect):
    """`rect` as tall as anything: compared across only (a column scrolls down, never sideways)."""
    return QRect(rect.left(), -10 ** 6, rect.width(), 2 * 10 ** 6) if rect.width() > 0 else rect


def outside_the_dock(view, across=False):
    """What the view writes that the dock does not show whole (walk-through at 1280 x 800:
    the Jacobian's x-axis title and the gradient norms' tick labels below the dock's edge):
    every label, axis title, tick label and plot title must lie in the dock's visible area,
    banners in a column of words (word_column) too. `across`: a view stacked in a narrow
    column scrolls down to its words and its next plots; nothing may lie past its sides."""
    clip = _across if across else (lambda rect: rect)
    out = []
    for label in view.findChildren(QLabel):
        if not label.isVisibleTo(view) or not label.text().strip():
            continue
        whole = QRect(label.mapToGlobal(QPoint(0, 0)), label.size())
        if not clip(shown_rect(label, across)).contains(whole.adjusted(1, 1, -1, -1)):
            out.append(f"label: {label.text()[:40]}")
    for graphics in view.findChildren(pg.GraphicsView):
        if not graphics.isVisibleTo(view):
            continue
        seen = clip(shown_rect(graphics, across))

        def on_screen(scene_rect):
            r = graphics.mapFromScene(scene_rect).boundingRect()
            return QRect(graphics.mapToGlobal(r.topLeft()), r.size()).adjusted(1, 1, -1, -1)
        for item in graphics.scene().items():
            if not item.isVisible():
                continue
            if isinstance(item, pg.AxisItem):
                if item.label.isVisible() and item.labelText:
                    margin = item.label.document().documentMargin()
                    box = item.label.mapRectToScene(
                        item.label.boundingRect().adjusted(margin, margin, -margin, -margin))
                    if not seen.contains(on_screen(box)):
                        out.append(f"axis title: {item.labelText}")
                for rect, text in tick_labels(item):
                    if not seen.contains(on_screen(item.mapRectToScene(rect))):
                        out.append(f"tick label: {text}")
            elif isinstance(item, pg.LabelItem) and item.text:
                if not seen.contains(on_screen(item.sceneBoundingRect())):
                    out.append(f"title: {item.text}")
    return out


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080), "1280 x 800, tabbed"])
@pytest.mark.parametrize("title, sample", CASES)
def test_no_study_view_cuts_a_label_or_scrolls(qtbot, window, title, sample, size):
    """Labels whole and inside the dock, ticks regular, no scroll bar, no legend over the
    data: the Batch Jacobian view needed 330 px and scrolled in the 268 px dock of a
    1280 x 800 window, its x axis cut off; the Jacobian's x-axis title and the gradient
    norms' tick labels fell below the dock's edge; the forward-vs-reverse legend covered
    the J7 bar. Tabbed, a tab bar takes 26 px of the dock's height.
    At 1280 x 800 a study is now a tab beside the palette (a bottom dock left the story
    too little height, dock_room.STORY_HEIGHT), 340 px wide, its plots stacked over its
    words: there the view and its words may scroll down, never sideways, and its first
    plot shows whole."""
    tabbed = isinstance(size, str)
    w = window(sample, (1280, 800) if tabbed else size)
    if tabbed:
        _open(qtbot, w, "Gradient check" if title == "Gradient norms" else "Gradient norms")
    dock = _open(qtbot, w, title)
    view = dock.view
    qtbot.wait(100)
    assert view.stacked() == (size != (1920, 1080))
    assert cut_labels(view) == []
    assert irregular_ticks(view) == []
    bars = scroll_bars(dock)
    if view.stacked():
        assert [bar for bar in bars if bar.endswith("horizontal")] == []
        assert view.width() <= dock.widget().viewport().width()
        first = view.findChildren(PlotsAndWords)[0].widget(0)
        assert shown_rect(first) == QRect(first.mapToGlobal(QPoint(0, 0)), first.size())
    else:
        assert bars == []
    assert outside_the_dock(view, across=view.stacked()) == []
    assert legend_overlaps(view) == []


def test_the_hessian_fills_its_plot(qtbot, window):
    """Walk-through (lesson 14, 1280 x 800): the 50 x 50 Hessian drew 114 px wide in a
    330 px plot, its ticks '0 10 30'. Square cells, and the plot no wider than they need:
    along the bottom (1920 x 1080). At 1280 x 800 the study is now stacked in a 340 px
    column beside the palette (dock_room.STORY_HEIGHT), where the plot is the column's
    width: there the matrix fills its plot's height or its width, whichever bounds it.
    There it shares the column with the eigenvalues' plot, both whole in view (at least 132
    px wide while the eigenvalues lay below the fold; 124 px, 2.5 px a cell, with them in
    view: test_study_column), so it is at least 120 px there."""
    for size in ((1920, 1080), (1280, 800)):
        w = window("001_input_gradient_regularization", size)
        view = _open(qtbot, w, "Hessian").view
        qtbot.wait(100)
        box = view.heatmap.plot.getViewBox()
        image = view.heatmap.image.mapRectToScene(view.heatmap.image.boundingRect())
        assert abs(image.width() - image.height()) <= 2                       # square cells
        tall, wide = image.height() >= box.height() - 2, image.width() >= box.width() - 2
        assert (tall or wide) if view.stacked() else (tall and wide), (size, image, box.size())
        assert view.stacked() == (size == (1280, 800))
        assert image.width() >= (132 if size == (1920, 1080) else 120)


def legend_overlaps(view):
    """What a plot's legend covers: a bar, a marker, a stretch of a line or a label of
    the data (walk-through at 1280 x 800: the forward-vs-reverse legend over the J7 bar)."""
    out = []
    for graphics in view.findChildren(pg.GraphicsView):
        if not graphics.isVisibleTo(view):
            continue
        items = [i for i in graphics.scene().items() if i.isVisible()]
        for legend in (i for i in items if isinstance(i, pg.LegendItem)):
            box = legend.sceneBoundingRect()
            for item in items:
                out += [f"{type(item).__name__} at {where}" for where in _covered(item, box)]
    return out


def _covered(item, box):
    """The places of `item`'s data that lie in the scene rect `box`."""
    vb = item.getViewBox() if hasattr(item, "getViewBox") else None
    if vb is None or isinstance(item, (pg.LegendItem, pg.ViewBox)) or _in_legend(item):
        return []
    if isinstance(item, pg.BarGraphItem):
        xs, heights, width = item.opts["x"], item.opts["height"], item.opts["width"]
        return [f"x={x:g}" for x, h in zip(np.atleast_1d(xs), np.atleast_1d(heights))
                if vb.mapViewToScene(QRectF(x - width / 2, 0, width, h)).boundingRect()
                .normalized().intersects(box)]
    if isinstance(item, pg.TextItem):
        return [item.toPlainText()] if item.sceneBoundingRect().intersects(box) else []
    if isinstance(item, pg.PlotCurveItem) or isinstance(item, pg.ScatterPlotItem):
        x, y = item.getData()
        if x is None or not len(x):
            return []
        if isinstance(item, pg.PlotCurveItem) and len(x) > 1:   # along the line, not only its points
            t = np.linspace(0, 1, 12)[:, None]
            x = (x[:-1] + t * np.diff(x)).ravel()
            y = (y[:-1] + t * np.diff(y)).ravel()
        points = [vb.mapViewToScene(QPointF(float(a), float(b))) for a, b in zip(x, y)
                  if np.isfinite(a) and np.isfinite(b)]
        return [f"({p.x():.0f}, {p.y():.0f})" for p in points if box.contains(p)][:3]
    return []


def _in_legend(item):
    parent = item.parentItem()
    while parent is not None:
        if isinstance(parent, pg.LegendItem):
            return True
        parent = parent.parentItem()
    return False


@pytest.mark.parametrize("width", [1100, 760])
def test_the_chain_legend_never_widens_its_plot(qtbot, width):
    """docs/view-chain.png (Export View at 1100 px): the legend's row, two entries side
    by side, was wider than the plot, so the plot drew past its widget: 'reverse: vector ·'
    and J8 cut off. A narrow plot stacks the entries; every bar, tick and entry shows."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies import ChainCostView
    controller = DocumentController()
    view = ChainCostView(controller)
    qtbot.addWidget(view)
    view.resize(width, 500)
    view.show()
    controller.open("samples/001_hessian_newton.json")
    view.refresh()
    qtbot.wait(100)
    assert outside_the_dock(view) == []
    shown = shown_rect(view.plot)
    box = view.legend.sceneBoundingRect()
    seen = QRect(view.plot.mapToGlobal(view.plot.mapFromScene(box).boundingRect().topLeft()),
                 view.plot.mapFromScene(box).boundingRect().size())
    assert shown.contains(seen.adjusted(1, 1, -1, -1)), (shown, seen)
