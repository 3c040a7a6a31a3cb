"""Helpers that drive the editor's widgets with real mouse and key events (for the tests)."""
import time

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QGraphicsItem, QLabel, QWidget
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QTextDocument

from gradviz.app.literal import WORD_JOINER

Key, Mod = Qt.Key, Qt.KeyboardModifier


def double_click_entry(palette, title):
    item = palette.entry_item(title)
    assert item is not None, title
    palette.tree.scrollToItem(item)
    vp = palette.tree.viewport()
    pos = QPointF(palette.tree.visualItemRect(item).center())
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    # The event sequence of a real double-click (QTest's mouseDClick skips the first release).
    for kind, buttons in ((QEvent.Type.MouseButtonPress, left), (QEvent.Type.MouseButtonRelease, none),
                          (QEvent.Type.MouseButtonDblClick, left), (QEvent.Type.MouseButtonRelease, none)):
        QApplication.sendEvent(vp, QMouseEvent(kind, pos, vp.mapToGlobal(pos), left, buttons,
                                               Qt.KeyboardModifier.NoModifier))


def add_by_palette(controller, palette, title):
    """Double-click a palette entry; returns the new node's id once the window has shown
    it (the canvas paints the card, then the inspector builds the node's page)."""
    before = set(controller.doc.nodes)
    double_click_entry(palette, title)
    ids = [n for n in controller.doc.nodes if n not in before]
    assert len(ids) == 1, (title, ids)
    settle(palette.canvas)
    return ids[0]


def mouse_move_event(pos, button):
    """A mouse move with `button` held, for a widget's mouseMoveEvent."""
    return QMouseEvent(QEvent.Type.MouseMove, QPointF(pos), QPointF(pos), Qt.MouseButton.NoButton,
                       button, Qt.KeyboardModifier.NoModifier)


def card_as_drawn(canvas, nid):
    """The scene rectangle card `nid` takes on the canvas at its zoom: the card, and where
    it is drawn compact, the plate of its name that may stand out of a small card."""
    from gradviz.render import compact
    rect = canvas.renderer.rect(nid)
    if canvas.compact:
        side, down = compact.overhang(canvas.renderer.cards[nid], canvas.controller.doc.nodes[nid],
                                      canvas.zoom_level(), canvas.logicalDpiY(), canvas.compact_scale())
        rect = rect.adjusted(-side, 0, side, down)
    return rect


def settle(canvas, seconds=5):
    """Run the event loop until the canvas has painted and what waits for that paint ran."""
    end = time.monotonic() + seconds
    while canvas.waiting_for_paint:
        assert time.monotonic() < end, "the canvas never painted"
        QApplication.processEvents()


def _layout(widget):
    """What the event loop may still change of `widget` and what it holds: each widget's
    geometry and visibility, each label's text, each scroll area's scroll."""
    state = []
    for w in [widget] + widget.findChildren(QWidget):
        state.append((w.isVisible(), w.geometry().getRect()))
        if isinstance(w, QLabel):
            state.append(w.text())
        elif isinstance(w, QAbstractScrollArea):
            state.append((w.horizontalScrollBar().value(), w.verticalScrollBar().value()))
    return state


def laid_out(qtbot, widget, rounds=3, timeout=5000):
    """Run the event loop until `widget` (a window) has laid itself out: its widgets'
    geometry, visibility, text and scroll the same over `rounds` turns of the loop, where
    what a layout, a paint or a resize queues (their zero-delay timers: a study's parts and
    word columns refit, the dock room shares the column) has run. What a fixed
    qtbot.wait(150) waited for, no longer than that takes."""
    end = time.monotonic() + timeout / 1000
    state, same = _layout(widget), 0
    while same < rounds:
        assert time.monotonic() < end, "the window never stopped laying itself out"
        qtbot.wait(1)
        now = _layout(widget)
        same = same + 1 if now == state else 0
        state = now


def wait_idle(qtbot, window, timeout=10000):
    """Until `window`'s player has taken its story and framed its step and its canvas has
    painted (the player's story and frame timers, the canvas's wait for a paint): what a
    fixed qtbot.wait of a few hundred ms waited for, no longer than that takes."""
    player, canvas = window.player, window.canvas
    qtbot.waitUntil(lambda: player._waiting is None and not player._story_timer.isActive()
                    and not player._frame_timer.isActive() and not canvas.waiting_for_paint,
                    timeout=timeout)


def drag_port(qtbot, canvas, src_port_item, dst_port_item):
    """Press on one port, move across the canvas, release on the other."""
    vp = canvas.viewport()
    a = canvas.mapFromScene(src_port_item.scenePos())
    b = canvas.mapFromScene(dst_port_item.scenePos())
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=a)
    for k in range(1, 6):
        p = QPoint(round(a.x() + (b.x() - a.x()) * k / 5), round(a.y() + (b.y() - a.y()) * k / 5))
        qtbot.mouseMove(vp, p)
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=b)


def drag_card(qtbot, canvas, nid, by):
    """Press on the card's header, move by the QPoint `by` in two steps, release."""
    vp = canvas.viewport()
    a = canvas.mapFromScene(canvas.node_items[nid].scenePos() + QPointF(20, 8))
    b = a + by
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=a)
    qtbot.mouseMove(vp, (a + b) / 2)
    qtbot.mouseMove(vp, b)
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=b)


def click_card(qtbot, canvas, nid):
    item = canvas.scene_item(nid)
    header = item.scenePos() + QPointF(min(30.0, item.card.width / 2), 8)
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=canvas.mapFromScene(header))


def type_keys(qtbot, keys):
    """Type into whatever has focus. Each item: text, a Key, or (Key, modifiers)."""
    def target():
        widget = QApplication.focusWidget() or QApplication.activeWindow()
        assert widget is not None, "no widget has the keyboard focus"
        return widget
    for k in keys:
        if isinstance(k, str):
            for ch in k:  # one by one to the focus widget: the first key may open an editor
                qtbot.keyClicks(target(), ch)
        elif isinstance(k, tuple):
            qtbot.keyClick(target(), k[0], k[1])
        else:
            qtbot.keyClick(target(), k)
        QApplication.processEvents()  # as between a user's key presses: Enter commits queued


def click_cell(qtbot, grid, row, col):
    rect = grid.visualRect(grid.model().index(row, col))
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def type_matrix(qtbot, grid, values):
    """Click the first cell, then type every row: value Tab value … Enter."""
    click_cell(qtbot, grid, 0, 0)
    keys = []
    for row in values:
        for j, v in enumerate(row):
            keys += [str(v), Key.Key_Tab if j < len(row) - 1 else Key.Key_Return]
    type_keys(qtbot, keys)


def type_field(qtbot, line_edit, text):
    """Click a line edit, replace its text by typing, press Enter."""
    qtbot.mouseClick(line_edit, Qt.MouseButton.LeftButton)
    type_keys(qtbot, [(Key.Key_A, Mod.ControlModifier), text, Key.Key_Return])


def shown_text(label):
    """The plain text a rich-text label shows (a quotient's invisible word joiner, which
    keeps dz/dx on one line, is no character it shows: literal.kept_whole)."""
    doc = QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText().replace(WORD_JOINER, "")


def item_image(item):
    """A scene item and its children (a card's numbers and ports) painted on white, as the
    scene paints them, as an image to compare pixel for pixel."""
    rect = item.boundingRect()
    image = QImage(round(rect.width()), round(rect.height()), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.translate(-rect.left(), -rect.top())
    _paint_tree(painter, item)
    painter.end()
    return image


def _paint_tree(painter, item):
    item.paint(painter, None)
    for child in item.childItems():
        if child.isVisible() and not child.flags() & QGraphicsItem.GraphicsItemFlag.ItemHasNoContents:
            painter.save()
            painter.translate(child.pos())
            _paint_tree(painter, child)
            painter.restore()


def tick_labels(axis):
    """[(rect, text)] of the tick labels a pyqtgraph axis writes, as it would paint them."""
    image = QImage(10, 10, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [] if specs is None else [(rect, text) for rect, _, text in specs[2]]


def cut_columns(grid):
    """The columns a table's viewport shows in part with some of their numbers' ink (their
    numbers are right-aligned: a sliver of a column's blank left margin is no cut); a
    number cut there reads as another."""
    width, model = grid.viewport().width(), grid.model()
    metrics = grid.fontMetrics()
    cut = []
    for c in range(grid.horizontalHeader().count()):
        left = grid.columnViewportPosition(c)
        right = left + grid.columnWidth(c)
        texts = [str(model.data(model.index(r, c)) or "") for r in range(model.rowCount())]
        ink = right - max(metrics.horizontalAdvance(t) for t in texts) - 3   # its widest number's left
        if (left < 0 < right) or (ink < width < right):
            cut.append((c, left, right, width))
    return cut


def settle_presentation(w):
    """Run the event loop until the presentation has done its queued refits (three rounds:
    a refit can queue another)."""
    for _ in range(3):
        QApplication.processEvents()
        while w.presentation._fit_pending:
            QApplication.processEvents()
