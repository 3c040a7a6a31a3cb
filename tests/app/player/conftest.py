"""Presentation mode on a screen of a given size, in the test platform's smaller screen."""
import pytest
from PySide6.QtCore import QCoreApplication, Qt

from gradviz.app.player import presentation


@pytest.fixture
def present(monkeypatch):
    """present(w, size): `w` in presentation mode as on a screen of `size` (the caption band
    and the zooms computed for that screen's height), its window that size. The test
    platform's full-screen state comes back once events run and shrank a 1920 x 1080 window
    to 961 x 832 (a 961 x 360 canvas): the geometry is set until it holds."""
    def enter(w, size):
        monkeypatch.setattr(presentation.PresentationMode, "screen_height", lambda self: size[1])
        w.presentation.enter()
        w.setWindowState(Qt.WindowState.WindowNoState)    # the test screen is smaller
        for _ in range(10):     # (a band fitted to the narrower window is taller for a while)
            w.setGeometry(0, 0, *size)
            for _ in range(3):
                QCoreApplication.processEvents()
                while w.presentation._fit_pending:
                    QCoreApplication.processEvents()
            if w.size().toTuple() == tuple(size):
                break
        assert w.size().toTuple() == tuple(size)
        return w.presentation
    return enter


@pytest.fixture(scope="session")
def walks():
    """The misses of the walks that several tests check, by walk (shared_walks.py)."""
    return {}
