"""The curves of a long run: at most MAX_POINTS drawn per curve, its spikes kept, and a
run's records read once, as they come (a compiled run takes 600-700 steps a second: drawn
whole, 8 s of it took the UI thread 200 ms a repaint, growing with the run)."""
import numpy as np
import pytest

from gradviz.app.training.curves import MAX_POINTS, RunColumns, TrainingCurves, peaks
from gradviz.graph import Port
from gradviz.graph.training import TrainStep


def records(n, start=1, rng=None):
    rng = rng or np.random.default_rng(0)
    return [TrainStep(i, 1.0 / i, 1.0 / (i + 1), list(rng.random(2)), list(rng.random(2)))
            for i in range(start, start + n)]


@pytest.mark.parametrize("n", [10, MAX_POINTS, MAX_POINTS + 1, 5003, 100_000])
def test_peaks_keep_each_buckets_lowest_and_highest_and_the_ends(n):
    rng = np.random.default_rng(n)
    x, y = np.arange(n, dtype=float), rng.normal(size=n)
    y[n // 3] = 50.0                                # a spike up and one down
    y[n // 2] = -50.0
    px, py = peaks(x, y)
    assert len(px) <= MAX_POINTS and np.all(np.diff(px) > 0)
    np.testing.assert_array_equal(py, y[px.astype(int)])     # points of the line, in order
    assert {0.0, n - 1.0, n // 3, n // 2} <= set(px)
    if n <= MAX_POINTS:
        np.testing.assert_array_equal(px, x)


def test_a_long_run_draws_a_bounded_curve_read_once(qtbot):
    curves = TrainingCurves()
    qtbot.addWidget(curves)
    curves.clear(None, [Port("a"), Port("b")])
    history = records(5000)
    curves.follow(history, None)
    x, y = curves.loss_curve.getData()
    assert len(x) <= MAX_POINTS and (x[0], x[-1]) == (0, 5000)
    assert (y[0], y[-1]) == (1.0, pytest.approx(1 / 5001))
    gx, gy = curves.gradient_curves[1].getData()
    assert len(gx) <= MAX_POINTS and gy.max() == max(r.gradient_norms[1] for r in history)
    # more records: only they are read (a record read again would raise)
    seen = list(history)
    history += records(7, start=5001)
    for r in seen:
        object.__setattr__(r, "gradient_norms", None)
    curves.follow(history, None)
    assert curves.loss_curve.getData()[0][-1] == 5007
    # another history (Undo rewound the trainer): read afresh
    fresh = records(30)
    curves.follow(fresh, None)
    x, y = curves.loss_curve.getData()
    np.testing.assert_allclose(y, [1.0] + [r.loss_after for r in fresh])
    np.testing.assert_array_equal(curves.update_curves[0].getData()[1],
                                  [r.update_norms[0] for r in fresh])


def test_run_columns_grow_as_a_whole_history_would_be_read():
    columns, history = RunColumns(), []
    for size in (1, 63, 64, 500):                 # across the buffer's doublings
        history += records(size, start=len(history) + 1)
        columns.take(history)
    whole = RunColumns().take(history)
    assert len(columns) == len(whole) == 628
    for name in ("steps", "loss_after", "gradients", "updates"):
        np.testing.assert_array_equal(getattr(columns, name), getattr(whole, name))
    np.testing.assert_array_equal(whole.gradients, [r.gradient_norms for r in history])


def test_one_step_sits_on_a_step_axis_and_the_key_is_off_the_data(qtbot):
    """Issue 20 §5 (audit H42w, lesson 23's Newton step, w23_step.png): after one step the
    gradient-norm plot's x axis ran from -0.4 to 0.4 around its one dot, and its key sat on
    the data. The three plots share a step axis from 0 to at least MIN_STEPS (whole steps),
    and the key stands below the plot, where no point can be."""
    from gradviz.app.training.curves import MIN_STEPS
    curves = TrainingCurves()
    qtbot.addWidget(curves)
    curves.resize(900, 260)
    curves.show()
    curves.clear(None, [Port("a"), Port("b")])
    curves.follow(records(1), None)
    qtbot.wait(50)
    for plot in curves.plots:
        low, high = plot.getViewBox().viewRange()[0]
        assert -1 < low < 0 and MIN_STEPS <= high < MIN_STEPS + 1, (low, high)
    curves.follow(records(40), None)
    for plot in curves.plots:
        low, high = plot.getViewBox().viewRange()[0]
        assert -1 < low < 0 and 40 <= high < 41, (low, high)
    box = curves.gradient_plot.getViewBox()
    data = box.mapRectToScene(box.boundingRect())
    key = curves.legend.mapRectToScene(curves.legend.boundingRect())
    assert curves.legend.isVisible() and key.height() > 0
    assert not key.intersects(data), (key, data)


def test_the_step_axis_is_ticked_at_whole_steps_only(qtbot):
    """A step is a whole number: the first steps of a run drew ticks at 0.5 and 2.5."""
    curves = TrainingCurves()
    qtbot.addWidget(curves)
    curves.resize(700, 200)
    curves.show()
    qtbot.waitExposed(curves)
    for plot in curves.plots:
        plot.setXRange(-0.5, 5.5, padding=0)
        axis = plot.getAxis("bottom")
        ticks = [v for _, values in axis.tickValues(*axis.range, axis.width()) for v in values]
        assert ticks and all(v == int(v) for v in ticks), ticks
