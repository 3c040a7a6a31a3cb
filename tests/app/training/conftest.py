"""The Train dock's tests open a window with its panel shown."""
import pytest

from train_dock_util import SAMPLE


@pytest.fixture
def panel(qtbot, open_window):
    def make(path=SAMPLE):
        w = open_window(path)
        w.train_dock.toggleViewAction().trigger()
        qtbot.waitUntil(lambda: w.train_dock.panel is not None)
        return w, w.train_dock.panel
    return make
