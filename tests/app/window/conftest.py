"""Fixtures of the main window's file and recovery tests."""
import shutil

import pytest

from gradviz.app import create_window
from gradviz.app.window.main_window import SAMPLES_DIR, SEED_SAMPLE


@pytest.fixture
def make_window(qtbot, app_env):
    """make_window(path=None, offer_recovery=True): a main window, not shown; at teardown
    its changes count as saved (no question) and its autosave has finished."""
    windows = []

    def make(path=None, offer_recovery=True):
        w = create_window(path, offer_recovery=offer_recovery)
        qtbot.addWidget(w)
        windows.append(w)
        return w
    yield make
    for w in windows:
        w.controller.undo_stack.setClean()  # teardown never asks
        w.autosaver.wait()


@pytest.fixture
def seed_copy(tmp_path):
    """A copy of the seed sample that a test may edit and save."""
    path = tmp_path / "seed.gradviz.json"
    shutil.copy(SAMPLES_DIR / SEED_SAMPLE, path)
    return path
