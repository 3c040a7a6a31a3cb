"""The study views are docks of the main window, created when first shown."""
import sys

from gradviz.app import main_window
from gradviz.app.views import VIEWS


def test_the_window_names_every_view_in_order():
    assert main_window.STUDY_TITLES == tuple(title for title, _ in VIEWS)


def test_a_study_dock_builds_its_view_when_shown(qtbot, tmp_path):
    from gradviz.app import create_window
    from PySide6.QtCore import QSettings
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = create_window("samples/001_hessian_newton.json", offer_recovery=False,
                           settings=settings)
    qtbot.addWidget(window)
    window.show()
    dock = window.study_docks["Hessian"]
    assert not dock.isVisible() and getattr(dock, "view", None) is None
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: getattr(dock, "view", None) is not None)
    assert type(dock.view).__name__ == "HessianView"
    assert "pyqtgraph" in sys.modules
