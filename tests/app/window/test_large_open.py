"""Opening a document of large tensors never leaves the window frozen without a sign
(issue 20): three 1000 x 1000 tensors showed a busy dialog while the file was read, then
about 12 s of frozen window (evaluation, cards, fit) after it closed. Now the document is
evaluated off the UI thread with the read, and showing it (the cards, the first paint and
the work that waits for it) runs under the busy dialog, which closes when the window is
usable. These tests count and watch; they time nothing."""
import threading

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QProgressDialog

from gradviz.app import evaluation
from gradviz.app.inspector import tensor_editor
from gradviz.app.window import files
from gradviz.graph import fileformat
from gradviz.graph.document import Document, Node, Port


@pytest.fixture
def mlp_file(tmp_path):
    """x @ W1 -> relu -> @ W2 -> reduce_sum, its gradients for W1 and W2 (small: the busy
    path is taken whatever the reading took, BUSY_AFTER = 0)."""
    rng = np.random.default_rng(0)
    d = Document(title="mlp")
    d.add(Node("x", "constant", value=rng.standard_normal((6, 5)).astype(np.float32)))
    d.add(Node("W1", "variable", value=rng.standard_normal((5, 4)).astype(np.float32)))
    d.add(Node("W2", "variable", value=rng.standard_normal((4, 3)).astype(np.float32)))
    for nid, op in (("h", "matmul"), ("a", "nn.relu"), ("o", "matmul"), ("loss", "reduce_sum")):
        d.add(Node(nid, "op", op=op))
    for src, dst, port in (("x", "h", 0), ("W1", "h", 1), ("h", "a", 0), ("a", "o", 0),
                           ("W2", "o", 1), ("o", "loss", 0)):
        d.connect(src, dst, 0, port)
    d.targets, d.sources = [Port("loss")], [Port("W1"), Port("W2")]
    path = tmp_path / "mlp.gradviz.json"
    fileformat.save(d, str(path))
    return path


def busy_now():
    """Is a busy dialog shown, with the wait cursor?"""
    dialogs = [w for w in QApplication.topLevelWidgets()
               if isinstance(w, QProgressDialog) and w.isVisible()]
    return bool(dialogs) and QApplication.overrideCursor() is not None


def test_a_long_open_evaluates_off_the_ui_thread_and_stays_busy_until_the_window_is_usable(
        open_window, mlp_file, monkeypatch):
    monkeypatch.setattr(files, "BUSY_AFTER", 0.0, raising=False)
    w = open_window()
    threads, evaluate = [], evaluation.evaluate

    def watched(*args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return evaluate(*args, **kwargs)
    monkeypatch.setattr(evaluation, "evaluate", watched)
    seen = []   # busy or not, as the window shows the new document
    w.controller.evaluated.connect(lambda result: seen.append(("evaluated", busy_now())))
    assert w.load_path(str(mlp_file))
    assert threads == [False], "the document was evaluated on the UI thread"
    assert seen and all(busy for _, busy in seen), seen
    assert not w.canvas.waiting_for_paint, "work waited for the canvas's paint after the dialog"
    assert not busy_now() and QApplication.overrideCursor() is None
    assert w.controller.doc.title == "mlp" and w.controller.result.evaluation is not None
    # the status bar's 'recomputed in' counts the evaluation made off the UI thread
    assert w.controller.result.elapsed_ms >= w.controller._basis.result.elapsed_ms > 0


def test_the_inspector_s_thumbnail_of_a_large_tensor_colours_only_what_it_shows(
        qtbot, monkeypatch):
    sizes = []

    class Counted(tensor_editor.QImage):
        def __init__(self, data, width, height, *rest):
            sizes.append((width, height))
            super().__init__(data, width, height, *rest)
    monkeypatch.setattr(tensor_editor, "QImage", Counted)
    grid = np.arange(1000 * 700, dtype=np.float32).reshape(1000, 700)   # rows grow downwards
    pixmap = tensor_editor._heatmap(grid)
    assert (pixmap.width(), pixmap.height()) == (240, 96)
    assert sizes == [(240, 96)], sizes
    picture = pixmap.toImage()
    # the scale is the whole tensor's: the last row is the reddest, the first white
    top, bottom = picture.pixelColor(0, 0), picture.pixelColor(239, 95)
    assert (top.red(), top.green(), top.blue()) == (255, 255, 255)
    assert (bottom.red(), bottom.green(), bottom.blue()) == (255, 105, 100)
