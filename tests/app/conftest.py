"""Fixtures for tests that drive the real main window with key and mouse events."""
import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from gradviz.app import create_window
from gradviz.app.collector import GuiThreadCollector


@pytest.fixture(autouse=True)
def collect_on_the_gui_thread(qapp):
    """As in the app (app/collector.py): garbage is collected on this thread only, never on
    a worker a test starts (a study's job, the recovery writer, the numba loader), where
    finalizing a closed window crashed the suite (a segfault in tests/app/training) and
    docs/screenshots.py."""
    collector = GuiThreadCollector()
    yield
    collector.stop()


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """QSettings and recovery files in tmp_path; message boxes answer from `answers`
    (a list of StandardButtons; Discard / Ok when empty) and are recorded in `asked`."""
    QCoreApplication.setOrganizationName("gradviz-tests")
    QCoreApplication.setApplicationName("gradviz-window")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "cfg"))
    monkeypatch.setenv("GRADVIZ_RECOVERY_DIR", str(tmp_path / "recovery"))
    env = type("Env", (), {})()
    env.asked, env.answers, env.warnings = [], [], []

    def question(parent, title, text, *args, **kwargs):
        env.asked.append(text)
        return env.answers.pop(0) if env.answers else QMessageBox.StandardButton.Discard

    def warning(parent, title, text, *args, **kwargs):
        env.warnings.append(text)
        return QMessageBox.StandardButton.Ok
    monkeypatch.setattr(QMessageBox, "question", question)
    monkeypatch.setattr(QMessageBox, "warning", warning)
    env.tmp = tmp_path
    yield env
    QSettings().clear()


@pytest.fixture
def open_window(qtbot, app_env):
    """open_window(path=None, shown=True, size=(1280, 800)): the real MainWindow, shown and
    active; closed without questions, its player stopped, when the test ends."""
    windows = []

    def make(path=None, shown=True, offer_recovery=False, size=(1280, 800)):
        w = create_window(None if path is None else str(path), offer_recovery=offer_recovery)
        qtbot.addWidget(w)
        windows.append(w)
        w.inspector.confirm = lambda text: app_env.asked.append(text) or True
        if shown:
            w.resize(*size)
            w.show()
            qtbot.waitExposed(w)
            w.activateWindow()
            qtbot.waitUntil(lambda: QApplication.activeWindow() is w)
        return w
    yield make
    for w in windows:
        w.player.pause()
        for other in [w] + list(w.other_windows):
            other.controller.undo_stack.setClean()  # teardown never asks
            other.close()
