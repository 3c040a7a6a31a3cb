"""The Train room: an optimizer run on the document, its curves and its landscape.

The panel (and pyqtgraph) is created the first time its dock is shown, so start-up does
not pay for it."""
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget

from ..dock_room import front_action, open_bottom

MIN_SIZE = (640, 200)   # below this the controls, a plot and its ticks no longer read


def add_train_dock(window):
    """The Train dock along the bottom, hidden until View ▸ Train (Ctrl+Shift+T) opens it."""
    dock = window._dock("Train", "trainDock", QWidget(), Qt.DockWidgetArea.BottomDockWidgetArea)
    dock.panel = None

    def create(visible):
        if visible and dock.panel is None:
            from .panel import TrainPanel  # pyqtgraph: loaded when the dock first shows
            dock.panel = TrainPanel(window.controller)
            dock.panel.storyWanted.connect(lambda: window.player.set_index(0))
            session = dock.panel.session      # the player waits for the run's last values
            session.started.connect(lambda: window.player.hold_stories(True))
            session.stopped.connect(lambda *_: window.player.hold_stories(False))
            session.started.connect(lambda: window.canvas.hold_sizes(True))
            session.stopped.connect(lambda *_: window.canvas.hold_sizes(False))
            session.after_paint = window.canvas.after_repaint   # the worker waits for it
            holder = _HoldOnInput(session, dock.panel)
            for widget in (window.canvas, window.canvas.viewport()):   # keys, the mouse
                widget.installEventFilter(holder)
            dock.panel.setMinimumSize(*MIN_SIZE)
            dock.setWidget(dock.panel)
            QTimer.singleShot(0, dock, lambda: open_bottom(window, dock, MIN_SIZE[1]))
    dock.visibilityChanged.connect(create)
    window.controller.documentReplaced.connect(lambda: _lesson_layout(window, dock))
    dock.stopper = _StopOnClose(window, dock)
    # A tab beside the study docks, not a column that squeezes them and itself until
    # their words are cut (Train beside the Jacobian at 1280 x 800).
    studies = list(getattr(window, "study_docks", {}).values())
    if studies:
        window.tabifyDockWidget(studies[-1], dock)
    dock.hide()
    dock.toggleViewAction().triggered.connect(
        lambda shown: shown and QTimer.singleShot(0, dock, lambda: opened(window, dock)))
    action = front_action(window, dock, lambda d: opened(window, d))
    action.setShortcut(QKeySequence("Ctrl+Shift+T"))
    action.setToolTip("Train the document's Variables with SGD, RMSprop, Adam or Newton")
    window.view_menu.addAction(action)
    return dock


def opened(window, dock):
    """Opened by the user: in front of the study tabs, as tall as the canvas allows."""
    dock.raise_()
    open_bottom(window, dock, MIN_SIZE[1])


def _lesson_layout(window, dock):
    """A lesson (or File ▸ New) opens in its own layout: Train, docked along the bottom where
    it takes the canvas all but its least height (CANVAS_MIN_HEIGHT, 360 px at 1280 x 800),
    stays open only for a document with a training preset (lessons 21 to 24). Left
    open over the gradient check (lesson 29) it drew that lesson's vectors compact, colour
    strips without a number. A file of the user's keeps the docks as the user left them,
    as does Train floating (it takes no height from the canvas). The canvas has its new
    height before the new document is laid out and fitted."""
    controller = window.controller
    if dock.isHidden() or dock.isFloating() or controller.path or controller.doc.training:
        return
    dock.close()
    window.layout().activate()


class _HoldOnInput(QObject):
    """A press, drag, wheel or key on the canvas holds the run's worker until the canvas
    has painted what it did (TrainingSession.hold_worker)."""

    INPUT = {QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
             QEvent.Type.MouseButtonDblClick, QEvent.Type.Wheel, QEvent.Type.KeyPress}

    def __init__(self, session, parent):
        super().__init__(parent)
        self.session = session

    def eventFilter(self, obj, event):
        kind = event.type()
        if kind in self.INPUT or kind == QEvent.Type.MouseMove and event.buttons():
            self.session.hold_worker()
        return False


class _StopOnClose(QObject):
    """A run stops when its window closes (or the application quits): the worker would
    otherwise go on computing for a window that is gone."""

    def __init__(self, window, dock):
        super().__init__(window)
        self.dock = dock
        window.installEventFilter(self)
        QCoreApplication.instance().aboutToQuit.connect(self.stop)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Close:
            self.stop()
        return False

    def stop(self):
        panel = getattr(self.dock, "panel", None)
        if panel is not None:
            panel.session.pause()
            panel.landscape.cancel()
