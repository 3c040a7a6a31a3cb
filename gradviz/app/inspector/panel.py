"""The inspector: the selected node's properties, or the document's when nothing is selected.

Every change is one controller call, so one undo step, and the engine recomputes.
Pages are rebuilt only when what they show changes in structure (another node, other
attributes, other outputs); otherwise `refresh` updates the widgets in place, leaving
alone a field the user is still typing in.

The pages are in inspector_node and inspector_document, their fields in inspector_fields.
"""
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QFrame, QMessageBox, QScrollArea, QVBoxLayout, QWidget

from .document_page import DocumentPage
from .fields import attr_text, parse_attr
from .node_page import NodePage

__all__ = ["InspectorWidget", "NodePage", "DocumentPage", "attr_text", "parse_attr"]


class InspectorWidget(QWidget):
    """The right-hand dock's content. `confirm(text) -> bool` asks before a lossy change."""

    def __init__(self, controller, parent=None, after_repaint=None, keep_in_view=None):
        """`after_repaint(callback)`: when given (the canvas'), a new result's page refresh
        waits until the canvas has shown the result. `keep_in_view(node_id)`: the rectangles
        (QRect, global; the node's card first, then the canvas) that a dialog editing the node
        (the Random fill) should not cover."""
        super().__init__(parent)
        self.controller = controller
        self._after_repaint = after_repaint
        self.keep_in_view = keep_in_view or (lambda node_id: [])
        self.confirm = self._ask
        self.page = None
        self._retired = []
        self._syncing = False
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)
        # The pages take turns inside one holder: taking a page out of the scroll area
        # (QScrollArea.takeWidget) made it a top-level widget, 13 ms on every new page.
        holder = QWidget()
        self._pages = QVBoxLayout(holder)
        self._pages.setContentsMargins(0, 0, 0, 0)
        self.scroll.setWidget(holder)
        self.setMinimumWidth(300)
        # A page shows the document, never which of its nodes are selected: a new selection
        # with the same page key needs nothing (`evaluated` refreshes after an edit).
        controller.selectionChanged.connect(self._selection_changed)
        controller.documentReplaced.connect(self.sync)
        controller.evaluated.connect(self._evaluated)
        self.sync()

    def _selection_changed(self, *_):
        # The page of a node just added (about 15 ms of widgets at 100 nodes) waits until
        # the canvas has shown the node; a node the user picks gets its page at once.
        if self.controller.selecting_new:
            if not self.after_repaint(self._show_new):
                self._show_new()
            return
        self.sync(refresh=False)

    def _show_new(self):
        """A node just added: its page, scrolled to its values once laid out (at 1024 x 768
        a new constant's page opened at its title, its grid below the dock's fold)."""
        self.sync()
        QTimer.singleShot(0, self, self.show_values)

    def _evaluated(self, *_):
        if not self.after_repaint(self.sync):
            self.sync()

    def after_repaint(self, callback):
        """Queue `callback` for when the canvas has painted; False (and nothing queued) when
        this inspector has no canvas to wait for."""
        if self._after_repaint is None:
            return False
        self._after_repaint(callback)
        return True

    def _ask(self, text):
        return QMessageBox.question(self, "gradviz", text) == QMessageBox.Yes

    def sync(self, *_, refresh=True):
        """Show the page for the current selection; rebuild only when its structure changed."""
        if self._syncing:
            QTimer.singleShot(0, self, lambda: self.sync(refresh=refresh))
            return
        self._syncing = True
        try:
            c = self.controller
            sel = [n for n in c.selection if n in c.doc.nodes]
            cls = NodePage if len(sel) == 1 else DocumentPage
            key = cls.key_for(c, sel)
            if self.page is None or self.page.key != key:
                self._replace(cls(self, sel, key))
            elif refresh:
                self.page.refresh()
        finally:
            self._syncing = False

    def _replace(self, page):
        old, self.page = self.page, page
        if old is not None:
            old.hide()
            self._pages.removeWidget(old)
            old.deleteLater()
            self._retired = [old]  # deleted by the event loop, not under a running slot
        self._pages.addWidget(page)
        page.show()  # now, not from the layout's queued show: focus may move into it at once
        page.refresh()
        self.scroll.verticalScrollBar().setValue(0)  # a new page starts at its title

    def show_values(self):
        """Scroll the node's page so its value (the tools row and the grid) is in view, as
        little as that takes, its top first where the dock is lower than the value's box
        (beside a study at 1280 x 800 the grid and 'Random…' lay below the fold)."""
        editor = getattr(self.page, "value_editor", None)
        if editor is None or not editor.isVisible():
            return
        box = editor.parentWidget()
        top = box.mapTo(self.scroll.widget(), QPoint(0, 0)).y()
        bar, shown = self.scroll.verticalScrollBar(), self.scroll.viewport().height()
        if top + box.height() > bar.value() + shown:
            bar.setValue(top if box.height() > shown else top + box.height() - shown)

