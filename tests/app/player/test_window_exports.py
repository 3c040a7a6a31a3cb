"""Export Step and Export Animation from the window: the File menu's entries, the dialogs,
the files they write, cancelling, and the UI thread never waiting for numba's GIF kernel
(split from test_presentation.py, whose window fixture these share)."""
import struct

import numpy as np
import pytest
from PySide6.QtGui import QImage, QImageReader
from PySide6.QtWidgets import QFormLayout

from gradviz.app import export_dialog
from gradviz.render import animation, animation_files, png
from test_presentation import temp_settings, window

_ = temp_settings, window   # the fixtures, shared with test_presentation


def test_export_step_writes_the_current_step(window, tmp_path):
    w = window
    w.player.set_index(2)
    for suffix in ("png", "svg", "pdf"):
        path = export_dialog.export_step_dialog(w, dict(path=str(tmp_path / f"step.{suffix}"),
                                                        theme="contrast", scale=1.0))
        assert path is not None and (tmp_path / f"step.{suffix}").stat().st_size > 1000
    from gradviz.render import Renderer, render_image
    image = QImage(str(tmp_path / "step.png"))
    r = Renderer(w.controller.doc, w.controller.result.evaluation, w.controller.result.story, "contrast",
                 positions=dict(w.canvas.positions))
    want = render_image(r, 2, scale=1.0)
    assert image.size() == want.size()
    assert np.array_equal(animation_files._rgb(image), animation_files._rgb(want))
    assert "3/4" in (tmp_path / "step.svg").read_text(encoding="utf-8")


def test_export_animation_kinds(window, tmp_path):
    w = window
    opts = dict(fps=4, scale=0.5, frames_per_step=3, hold=2, theme="contrast")
    # every frame of the plan at 4 frames a second: the camera's glides before each step too
    expected = animation.frame_count(w.controller.result.story, 3, 2,
                                     glide=animation.frames_for(animation.GLIDE_SECONDS, 4))
    n = export_dialog.export_animation_dialog(w, dict(path=str(tmp_path / "a.gif"), kind="gif", **opts))
    assert 1 < n < expected
    assert (tmp_path / "a.gif").read_bytes()[:6] == b"GIF89a"
    n = export_dialog.export_animation_dialog(w, dict(path=str(tmp_path / "a.png"), kind="apng", **opts))
    chunks = png.chunks((tmp_path / "a.png").read_bytes())
    assert struct.unpack(">II", chunks[1][1])[0] == n
    n = export_dialog.export_animation_dialog(w, dict(path=str(tmp_path / "seq"), kind="sequence", **opts))
    assert n == expected == len(list((tmp_path / "seq").glob("*.png")))


def test_export_animation_cancel_leaves_nothing(window, tmp_path, monkeypatch):
    w = window
    calls = []

    def cancel_at_5(i, total):
        calls.append(i)
        return i < 5

    with pytest.raises(animation.Cancelled):
        export_dialog.export_animation(w, tmp_path / "c.gif", "gif", scale=0.5, progress=cancel_at_5)
    with pytest.raises(animation.Cancelled):
        export_dialog.export_animation(w, tmp_path / "seq", "sequence", scale=0.5, progress=cancel_at_5)
    assert not (tmp_path / "c.gif").exists()
    assert list((tmp_path / "seq").glob("*.png")) == []
    assert max(calls) == 5
    # The dialog path: the progress dialog's Cancel.
    monkeypatch.setattr(export_dialog.QProgressDialog, "wasCanceled", lambda self: True)
    assert export_dialog.export_animation_dialog(
        w, dict(path=str(tmp_path / "d.gif"), kind="gif", scale=0.5)) is None
    assert not (tmp_path / "d.gif").exists()


def test_export_dialogs_build(window, qtbot):
    w = window
    w.player.set_index(1)
    d = export_dialog.ExportStepDialog(w)
    qtbot.addWidget(d)
    assert d.options()["path"].endswith("_step02.png")
    d.format.setCurrentIndex(d.format.findData("svg"))
    assert d.options()["path"].endswith(".svg") and not d.scale.isEnabled()
    a = export_dialog.ExportAnimationDialog(w)
    qtbot.addWidget(a)
    assert "4 steps" in a.estimate.text()
    a.kind.setCurrentIndex(a.kind.findData("apng"))
    assert a.options()["path"].endswith(".png")
    a.kind.setCurrentIndex(a.kind.findData("sequence"))
    assert not a.options()["path"].endswith(".png")
    assert set(a.options()) == {"path", "kind", "fps", "scale", "frames_per_step", "hold", "theme"}


def test_the_animation_dialog_says_what_the_file_will_hold(window, qtbot, tmp_path):
    """The dialog said '4 steps, 321 frames, 12.8 s' for a GIF of 61 frames: a GIF or
    APNG stores a held stretch once with its delay. It names the steps and how long the
    file plays (the sum of the GIF's delays) and no frame count; a PNG sequence, where
    every frame is a picture, counts the pictures."""
    a = export_dialog.ExportAnimationDialog(window)
    qtbot.addWidget(a)
    a.fps.setValue(10)
    a.motion.setValue(0.3)
    a.hold.setValue(0.5)
    options = a.options()
    count = animation.frame_count(window.controller.result.story, options["frames_per_step"],
                                  options["hold"], glide=animation.frames_for(animation.GLIDE_SECONDS, 10))
    written = export_dialog.export_animation(window, tmp_path / "a.gif", "gif", fps=10, scale=0.25,
                                             frames_per_step=options["frames_per_step"], hold=options["hold"])
    assert written < count
    reader = QImageReader(str(tmp_path / "a.gif"))
    delays = []
    while reader.canRead() and len(delays) < written:
        reader.read()
        delays.append(reader.nextImageDelay())
    assert len(delays) == written
    seconds = sum(delays) / 1000
    assert seconds == pytest.approx(count / 10)
    assert a.estimate.text() == f"4 steps, plays {seconds:.1f} s"
    a.kind.setCurrentIndex(a.kind.findData("apng"))
    assert a.estimate.text() == f"4 steps, plays {seconds:.1f} s"
    a.kind.setCurrentIndex(a.kind.findData("sequence"))
    assert a.estimate.text() == f"4 steps, {count} pictures, plays {seconds:.1f} s"


def _gif_delays(path):
    """The delay of each frame of a GIF, in hundredths of a second, read from its Graphic
    Control Extensions (0x21 0xF9 0x04, packed byte, delay little-endian): the file's own
    numbers, not a reader's."""
    data, delays, at = path.read_bytes(), [], 0
    while (at := data.find(b"\x21\xf9\x04", at)) >= 0:
        delays.append(struct.unpack_from("<H", data, at + 4)[0])
        at += 8
    return delays


def test_the_hold_the_dialog_states_is_the_least_each_step_stands_still(window, qtbot, tmp_path):
    """The dialog said 'Hold each step: 1.6 s' where the GIF held its steps 1.64, 2.4, 2.4
    and 2.04 s: the finished picture also stands through the last frame of the motion, and
    longer where nothing changes. It says 'at least', and why more: every still stretch of
    the file lasts at least the hold, one stretch per step and one before the story."""
    a = export_dialog.ExportAnimationDialog(window)
    qtbot.addWidget(a)
    assert a.findChild(QFormLayout).labelForField(a.hold).text() == "Hold each step at least:"
    assert "stays longer where the picture does not change" in a.hold.toolTip()
    options = a.options()
    fps, hold = options["fps"], a.hold.value()
    export_dialog.export_animation(window, tmp_path / "h.gif", "gif", fps=fps, scale=0.25,
                                   frames_per_step=options["frames_per_step"], hold=options["hold"])
    delays = _gif_delays(tmp_path / "h.gif")
    # the stretches that stand still to be read; the others are motion and the camera's
    # glide (0.04 s frames, a glide's still start merged: 0.36 s)
    stills = [d for d in delays if d >= 50 * hold]
    steps = len(window.controller.result.story.steps)
    assert len(stills) == steps + 1, (stills, steps)
    assert min(stills) >= round(hold * 100), stills
    assert max(stills) > round(hold * 100), stills   # so 'at least' is said, not '='


def test_file_menu_has_the_export_actions(window):
    w = window
    file_menu = w.menuBar().actions()[0].menu()
    texts = [a.text().replace("&", "") for a in file_menu.actions()]
    assert "Export Step…" in texts and "Export Animation…" in texts
    view = [a.text().replace("&", "") for a in w.view_menu.actions()]
    assert "Presentation Mode" in view
    assert w.actions_by_name["present"].shortcut().toString() == "F5"


def test_export_animation_on_the_ui_thread_never_waits_for_numba(window, tmp_path, monkeypatch):
    """While GIF's LZW kernel is still compiling (here: until the test lets it go), the
    window's export codes its frames with the Python LZW instead of waiting."""
    from threading import Event

    from gradviz.engine import kernels

    if kernels.compiled(animation_files._lzw_arrays) is None:
        pytest.skip("numba is not installed")
    release = Event()
    slow = kernels.BackgroundKernel(animation_files._lzw_arrays,
                                    lambda: [] if release.wait(60) else [])
    monkeypatch.setattr(animation_files, "_LZW", slow)
    try:
        n = export_dialog.export_animation(window, tmp_path / "a.gif", "gif", scale=0.5,
                                           frames_per_step=2, hold=1)
        assert n > 1 and slow._thread.is_alive() and slow._kernel is None
    finally:
        release.set()
    assert slow.wait() is not None
    frames = animation.frame_count(window.controller.result.story, 2, 1)
    assert n <= frames and (tmp_path / "a.gif").read_bytes()[:6] == b"GIF89a"


def test_export_animation_of_a_graph_that_cannot_run_says_why(window, monkeypatch):
    """Auditor: with a target and a source marked but a shape mismatch, the box said 'mark a
    target and a source in the inspector'. It says what the player's bar says: the error."""
    w = window
    w.controller.set_value("tf_b", np.ones((2, 2), np.float32))
    said = []
    monkeypatch.setattr(export_dialog.QMessageBox, "information",
                        lambda parent, title, text, *a, **k: said.append(text))
    assert export_dialog.export_animation_dialog(w, dict(path="unused.gif", kind="gif")) is None
    text, = said
    assert "mark a" not in text and "shapes do not match" in text, text
