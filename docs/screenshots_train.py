"""Regenerate docs/train-*.png: the Train dock on each training lesson, from the real app.

    Xvfb :99 -screen 0 1440x900x24 &  DISPLAY=:99 .venv/bin/python docs/screenshots_train.py

The window is grabbed from the screen (the plots are OpenGL-free pyqtgraph widgets, the
canvas a QGraphicsView), so it needs an X display. Settings and recovery files go to a
temporary directory, so your own are untouched.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ["GRADVIZ_RECOVERY_DIR"] = tempfile.mkdtemp()
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from PySide6.QtCore import QCoreApplication, QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

QCoreApplication.setOrganizationName("gradviz-docs")
QCoreApplication.setApplicationName("gradviz-docs-train")
QSettings.setDefaultFormat(QSettings.Format.IniFormat)
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
app = QApplication.instance() or QApplication(sys.argv[:1])
from gradviz.app.collector import collect_on_gui_thread  # noqa: E402
collect_on_gui_thread(app)   # as the app: no worker finalizes a window (a crash)

from gradviz.app import create_window  # noqa: E402
from gradviz.render import legible  # noqa: E402

DOCK_H = 420    # the Train dock's height: the plots readable, and room for the cards

# (lesson, optimizer, fields, steps, tab (0 curves, 1 landscape, 2 step 3, "player": step 3
# opened in the player at its update card), log scale, picture)
CASES = [
    ("train_1_gd_bowl", "sgd", {"learning_rate": "0.3"}, 20, 1, False, "train-bowl-oscillating.png"),
    ("train_2_valley", "sgd", {"learning_rate": "0.02", "momentum": "0.9"}, 100, 1, False,
     "train-valley-momentum.png"),
    ("train_2_valley", "adam", {"learning_rate": "0.1"}, 100, 0, True, "train-valley-adam-curves.png"),
    ("train_3_newton", "newton", {}, 3, 0, False, "train-newton.png"),
    ("train_4_inverse", "adam", {"learning_rate": "0.05"}, 200, 1, False, "train-inverse.png"),
    ("train_3_newton", "adam", {"learning_rate": "0.01"}, 5, 2, False, "train-step.png"),
    ("train_3_newton", "adam", {"learning_rate": "0.01"}, 5, "player", False,
     "train-update-card.png"),
]


def readable_fit(canvas):
    """Fit the graph, but never below the zoom at which the cards' numbers can be read (a
    picture of compact cards shows colours, not the values the run changed)."""
    canvas.fit()
    readable = legible.readable_zoom(canvas.logicalDpiY())
    if canvas.zoom_level() < readable:         # the graph from its top-left card (inputs)
        canvas.zoom_by(readable / canvas.zoom_level(), anchor_under_mouse=False)
        rects = [canvas.renderer.rect(nid) for nid in canvas.node_items]
        left, top = min(r.left() for r in rects) - 20, min(r.top() for r in rects) - 40
        view = canvas.visible_rect()
        canvas.centerOn(left + view.width() / 2, top + view.height() / 2)


def pump(seconds):
    """Run the event loop (QTest.qWait also runs deleteLater, as the real app does)."""
    QTest.qWait(int(seconds * 1000))


def until(done):
    while not done():
        QTest.qWait(10)


def shoot(lesson, optimizer, fields, steps, tab, log, picture):
    w = create_window(str(ROOT / "samples" / f"{lesson}.json"), offer_recovery=False)
    w.resize(1440, 900)
    w.move(0, 0)
    w.show()
    pump(0.5)
    w.show_message(f"Lesson {lesson}: {w.controller.doc.title}")   # no machine path
    w.train_dock.show()     # (the layout saved by the previous window may show it already)
    pump(1.0)
    panel = w.train_dock.panel
    panel.optimizer_box.setCurrentIndex(panel.optimizer_box.findData(optimizer))
    for key, text in fields.items():
        panel.fields[key].setText(text)
    panel.log_box.setChecked(log)
    panel.run(steps)
    until(lambda: not panel.session.running)
    panel.tabs.setCurrentIndex(2 if tab == "player" else tab)
    if tab in (2, "player"):
        panel.step_view.step_box.setValue(3)     # an earlier step, computed again
    pump(0.3)
    if tab == 1:
        panel.landscape.draw()
        until(lambda: panel.landscape.job is None)
    if tab == "player":                          # the backward pass, then the update's card
        panel.step_view.open_button.click()
        w.resizeDocks([w.train_dock], [300], Qt.Orientation.Vertical)   # room for the canvas
        pump(0.5)
        w.player.last()
    else:
        w.resizeDocks([w.train_dock], [DOCK_H], Qt.Orientation.Vertical)
        pump(0.3)
        readable_fit(w.canvas)
    pump(1.0)
    subprocess.run(["import", "-window", "root", "-crop", "1440x900+0+0",
                    str(ROOT / "docs" / picture)], check=True)
    print(picture, "|", panel.status.text())
    w.controller.undo_stack.setClean()
    w.close()
    pump(0.2)


if __name__ == "__main__":
    for case in CASES:
        shoot(*case)
