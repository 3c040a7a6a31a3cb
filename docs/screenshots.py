"""Regenerate the pictures in docs/ from the real app (the README shows them).

    xvfb-run -a -s "-screen 0 1440x900x24" .venv/bin/python docs/screenshots.py

Settings and recovery files go to a temporary directory, so your own are untouched.
"""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # draw this checkout, not an installed copy
os.environ["GRADVIZ_RECOVERY_DIR"] = tempfile.mkdtemp()
from PySide6.QtCore import QCoreApplication, QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

QCoreApplication.setOrganizationName("gradviz-docs")
QCoreApplication.setApplicationName("gradviz-docs")
QSettings.setDefaultFormat(QSettings.Format.IniFormat)
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
app = QApplication.instance() or QApplication(sys.argv[:1])
from gradviz.app.collector import collect_on_gui_thread  # noqa: E402
collect_on_gui_thread(app)   # as the app: no worker finalizes a window (a crash)

from gradviz.app import create_window, export_dialog  # noqa: E402
from gradviz.app import studies as views  # noqa: E402
from gradviz.app.controller import DocumentController  # noqa: E402
from gradviz.render import painter as render_painter  # noqa: E402
from gradviz.render.animation import frames  # noqa: E402
from gradviz.render.animation_files import write_animation  # noqa: E402
from gradviz import bundled  # noqa: E402
from gradviz.graph import fileformat  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS, SAMPLES = ROOT / "docs", ROOT / "samples"


def wait(ms=300):
    """Run the event loop for `ms` (QTest.qWait also runs deleteLater, as the real app does:
    processEvents alone would leave the tab bars Qt retires after restoreState painted)."""
    QTest.qWait(ms)


def window(sample, size):
    w = create_window(str(SAMPLES / sample), offer_recovery=False)
    w.resize(*size)
    w.show()
    wait(500)
    lesson = bundled.lesson_at(SAMPLES / sample)   # as the app says it when a lesson opens
    w.show_message(f"Lesson {lesson.number}: {w.controller.doc.title}" if lesson else w.controller.doc.title)
    return w


def close(w):
    w.controller.undo_stack.setClean()
    w.close()


def export_view(cls, sample, path, size=(1100, 760)):
    """A study view of `sample`, as File > Export View writes it."""
    controller = DocumentController()
    view = cls(controller)
    view.resize(*size)
    view.show()
    controller.open(str(SAMPLES / f"{sample}.json"))
    view.refresh()
    wait(400)
    export_dialog.export_widget(view, str(path), scale=1.0)
    view.close()


def main():
    # The editor: seed 004 with tf_t selected (its grid and the gradient the inspector shows).
    w = window("004_matmul_sum.json", (1280, 800))
    w.controller.set_selection(["tf_t"])
    wait()
    w.grab().save(str(DOCS / "app-main.png"))
    close(w)

    # The player: seed 004, step 3/4, one entry of the contribution clicked on the card.
    w = window("004_matmul_sum.json", (1440, 900))
    p, c = w.player, w.canvas
    p.set_index(2)
    p.finish_animation()
    wait()
    array, box = next((a, b) for label, a, b in render_painter.formula_arrays(c.renderer, p.step)
                      if label == "contribution")
    cell = render_painter.entry_rect(array, box.left(), box.top(), 4,
                                     render_painter.formula_spec(c.renderer, p.step, array))
    QTest.mouseClick(c.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     c.mapFromScene(cell.center()))
    wait()
    w.grab().save(str(DOCS / "app-player.png"))
    close(w)

    # Presentation mode: seed 003 on the step where stop_gradient cuts the edge.
    w = window("003_stop_gradient_product.json", (1280, 800))
    w.presentation.enter()
    wait(400)
    cut = next(s.index for s in w.player.steps if s.kind == "cut")
    w.presentation.go(cut)
    w.player.finish_animation()
    wait(400)
    w.grab().save(str(DOCS / "app-presentation.png"))
    w.presentation.exit()
    close(w)

    # The study views, as File > Export View writes them.
    for name, cls, sample in (("view-jacobian", views.JacobianView, "001_dense_jacobian"),
                              ("view-batch-jacobian", views.BatchJacobianView, "001_batchnorm_pitfall"),
                              ("view-hessian", views.HessianView, "001_hessian_newton"),
                              ("view-chain", views.ChainCostView, "001_hessian_newton")):
        export_view(cls, sample, DOCS / f"{name}.png")

    # The whole backward pass of seed 004 as an animated GIF.
    doc = fileformat.load(SAMPLES / "004_matmul_sum.json")
    write_animation(list(frames(doc, scale=1.0)), str(DOCS / "animation-004.gif"), fps=4.0)
    print("wrote", ", ".join(sorted(p.name for p in DOCS.glob("*.png")) + ["animation-004.gif"]))


if __name__ == "__main__":
    main()
