"""The Train dock's landscape and exports: the loss surface with the run, the gradient and
Newton's minimum, Cancel on a slow one; the run as GIF/APNG, its plots as pictures, a step
written out with its numbers (split from test_train_dock.py; the panel fixture is in conftest.py)."""
import numpy as np
import pytest

from train_dock_util import choose, draw, finish
from gradviz.story.numbers import significant


# -- the landscape ----------------------------------------------------------------------------

def test_the_landscape_shows_the_run_the_gradient_and_newtons_minimum(qtbot, panel):
    w, p = panel("samples/train_1_gd_bowl.json")
    choose(p, "sgd", learning_rate="0.3")
    p.run(20)
    finish(qtbot, p)
    view = draw(qtbot, p)
    land, model = view.land, view.model
    assert land.batched and land.losses.shape == (100, 100)
    gx, gy = np.meshgrid(land.xs, land.ys)
    np.testing.assert_allclose(land.losses, gx ** 2 + 3 * gy ** 2, rtol=1e-6, atol=1e-12)
    path_x, path_y = view.path_curve.getData()
    assert len(path_x) == 21 and (path_x[0], path_y[0]) == (2.0, 1.0)
    assert np.all(np.diff(np.sign(path_y)) != 0)               # the zig-zag
    x, y = land.center
    np.testing.assert_allclose(model.gradient, [2 * x, 6 * y], rtol=1e-5)
    line_x, line_y = view.arrow_line.getData()
    direction = np.array([line_x[1] - line_x[0], line_y[1] - line_y[0]])
    np.testing.assert_allclose(direction / np.linalg.norm(direction),
                               -model.gradient / np.linalg.norm(model.gradient), atol=1e-9)
    star = view.newton.getData()
    np.testing.assert_allclose([star[0][0], star[1][0]], model.minimum)
    # the quadratic model of a quadratic is the function: (H + λI)⁻¹ lands next to (0, 0)
    np.testing.assert_allclose(model.minimum, [0, 0], atol=1e-3 * max(abs(x), abs(y)) + 1e-9)
    assert "whole surface" in view.caption.text()


def test_a_slow_landscape_can_be_cancelled(qtbot, panel, monkeypatch):
    from gradviz.graph import landscape as landscape_module
    monkeypatch.setattr(landscape_module, "_can_batch", lambda *a: False)
    w, p = panel("samples/train_3_newton.json")
    p.tabs.setCurrentWidget(p.landscape)
    view = p.landscape
    view.size_box.setValue(300)                 # point by point: a long job
    assert view.draw()
    assert view.cancel_button.isEnabled() and not view.draw_button.isEnabled()
    qtbot.waitUntil(lambda: view.progress.value() > 0, timeout=60000)
    view.cancel_button.click()
    qtbot.waitUntil(lambda: view.job is None, timeout=60000)
    assert "Cancelled" in view.note.text() and view.land is None
    assert view.draw_button.isEnabled()


# -- exports ----------------------------------------------------------------------------------

def test_the_run_exports_as_gif_and_apng(qtbot, panel, tmp_path):
    from gradviz.app.training.export import export_run, frame_steps
    w, p = panel("samples/train_1_gd_bowl.json")
    choose(p, "sgd", learning_rate="0.3")
    p.run(10)
    finish(qtbot, p)
    draw(qtbot, p)
    heard = []
    count = export_run(p, tmp_path / "run.gif", progress=lambda i, n: heard.append((i, n)))
    data = (tmp_path / "run.gif").read_bytes()
    assert data.startswith(b"GIF89a") and count == 11        # steps 0..10, each different
    assert heard[0] == (0, 11) and heard[-1] == (10, 11)
    assert export_run(p, tmp_path / "run.png") == 11
    assert b"acTL" in (tmp_path / "run.png").read_bytes()[:200]
    # the plots are left showing the whole run
    assert len(p.landscape.path_curve.getData()[0]) == 11
    assert p.curves.loss_curve.getData()[1].size == 11
    assert frame_steps(list(range(500)), 60)[::59] == [0, 499]


def test_the_run_export_ends_at_the_last_step_on_a_slide_sized_frame(qtbot, panel, tmp_path,
                                                                     monkeypatch):
    """Walk-through: a 15416-step run's GIF was read ending at step 9664 (a 3266 x 508 strip
    of 6 MB that a reader's memory limit cut short), and a run whose last step is off the
    thinned path's stride lost it. The frames end at the run's last step and loss, 16:9."""
    import struct
    from gradviz.app.training import export
    from gradviz.graph import training
    monkeypatch.setattr(training, "PATH_POINTS", 10)
    w, p = panel("samples/train_1_gd_bowl.json")
    choose(p, "sgd", learning_rate="0.1")
    p.run(16)
    finish(qtbot, p)
    p.run(7)                                   # paused and resumed: 23 steps, stride 4
    finish(qtbot, p)
    draw(qtbot, p)
    said = []
    frame = export._frame
    monkeypatch.setattr(export, "_frame", lambda *a: said.append(a[3]) or frame(*a))
    count = export.export_run(p, tmp_path / "run.gif")
    trainer = p.session.trainer
    assert said[-1] == f"step 23 of 23   loss {significant(trainer.losses[-1])}" \
        and count == len(said)
    assert [int(t.split()[1]) for t in said] == [s for s, _ in trainer.path]
    data = (tmp_path / "run.gif").read_bytes()
    size = struct.unpack("<HH", data[6:10])   # the smallest 16:9 where the cards read
    assert size == export.frame_layout(export.Renderer(w.controller.doc).bounds(None))[0]
    assert size in export.FRAME_SIZES and size[0] * 9 == size[1] * 16
    assert len(data) < 2_000_000


def test_a_cancelled_run_export_leaves_no_file(qtbot, panel, tmp_path):
    from gradviz.app.training.export import export_run
    from gradviz.render import animation
    w, p = panel("samples/train_1_gd_bowl.json")
    p.run(5)
    finish(qtbot, p)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(animation.Cancelled):
        export_run(p, out / "run.gif", progress=lambda i, n: i < 2)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"),
                                           (".pdf", b"%PDF")])
def test_the_plots_export_as_pictures(qtbot, panel, tmp_path, suffix, magic):
    from gradviz.app.training.export import export_plots
    w, p = panel("samples/train_2_valley.json")
    p.run(5)
    finish(qtbot, p)
    path = export_plots(p, tmp_path / f"curves{suffix}")
    assert open(path, "rb").read(5).startswith(magic)


def test_the_last_step_is_written_out_with_its_numbers(qtbot, panel):
    w, p = panel("samples/train_1_gd_bowl.json")
    assert "Take a step" in p.last_step.text()
    choose(p, "sgd", learning_rate="0.1")
    p.step_button.click()
    finish(qtbot, p)
    text = p.last_step.text()
    # x = 2, g = 2x = 4: x ← x − η·g = 2 − 0.1 × 4 = 1.6; y = 1, g = 6y = 6: 1 − 0.6 = 0.4
    assert "Step 1 of the run" in text and "values before the update" in text
    assert "g = ∂loss/∂x = 4<br>x ← x − η·g = 2 − 0.1 × 4 = 1.6" in text
    assert "g = ∂loss/∂y = 6<br>y ← y − η·g = 1 − 0.1 × 6 = 0.4" in text


def test_a_run_frames_caption_writes_numbers_as_the_dock_does():
    """The GIF's caption wrote loss 1.23457e-05 and η = 1e-05 (.6g, :g) where the dock and
    the cards write 1.23457×10⁻⁵: one notation."""
    from gradviz.app.training.export import run_title, step_words
    assert step_words(23, 23, 1.2345678e-5) == "step 23 of 23   loss 1.23457×10⁻⁵"
    assert step_words(4, 23, 0.5) == "step 4 of 23   loss 0.5"
    assert step_words(4, 23, -2.5e7) == "step 4 of 23   loss −2.5×10⁷"
    assert run_title({"name": "SGD", "learning_rate": 1e-5}) == "SGD, η = 1×10⁻⁵"
    assert run_title({"name": "Adam", "learning_rate": 0.05}) == "Adam, η = 5×10⁻²"
