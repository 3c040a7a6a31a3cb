"""The canvas beside its palette in a shown window, as the tests here drive it."""
import pytest
from PySide6.QtWidgets import QMainWindow, QSplitter

from gradviz.app.canvas.palette import PaletteWidget
from gradviz.app.canvas.view import CanvasView
from gradviz.app.controller import DocumentController


@pytest.fixture
def editor(qtbot):
    controller = DocumentController()
    window = QMainWindow()
    canvas = CanvasView(controller)
    palette = PaletteWidget(controller, canvas)
    split = QSplitter()
    split.addWidget(palette)
    split.addWidget(canvas)
    split.setSizes([240, 900])
    window.setCentralWidget(split)
    window.resize(1200, 800)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    messages = []
    controller.message.connect(messages.append)
    canvas._test_window = window  # keep the window alive for the test's duration
    return controller, canvas, palette, messages

