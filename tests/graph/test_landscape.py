"""The loss landscape: grid values against direct evaluation of the document and closed
forms, batched and point-by-point alike; the local model against Rosenbrock's derivatives;
progress, cancel and the path a run leaves."""
import numpy as np
import pytest

from gradviz.graph import CONSTANT, OP, VARIABLE, Document, Node, Port
from gradviz.graph import landscape as landscape_module
from gradviz.graph.errors import DocumentError
from gradviz.graph.evaluate import evaluate
from gradviz.graph.landscape import Coordinate, landscape, local_model, window
from gradviz.graph.training import (PATH_POINTS, Trainer, loss_of, make_optimizer, port_value,
                                    with_values)

A, B = 1.0, 100.0


def rosenbrock(x0=-1.5, y0=2.0, dtype=np.float64):
    """f = (a − x)² + b·(y − x²)² over two scalar Variables."""
    doc = Document()
    doc.add(Node("x", VARIABLE, value=np.array(x0, dtype)))
    doc.add(Node("y", VARIABLE, value=np.array(y0, dtype)))
    doc.add(Node("a", CONSTANT, value=np.array(A, dtype)))
    doc.add(Node("b", CONSTANT, value=np.array(B, dtype)))
    for nid, op, inputs in [("d1", "subtract", ["a", "x"]), ("s1", "square", ["d1"]),
                            ("x2", "square", ["x"]), ("d2", "subtract", ["y", "x2"]),
                            ("s2", "square", ["d2"]), ("m", "multiply", ["b", "s2"]),
                            ("f", "add", ["s1", "m"])]:
        doc.add(Node(nid, OP, op=op))
        for i, src in enumerate(inputs):
            doc.connect(src, nid, dst_index=i)
    doc.targets = [Port("f")]
    doc.sources = [Port("x"), Port("y")]
    return doc


def f(x, y):
    return (A - x) ** 2 + B * (y - x * x) ** 2


def bowl():
    """loss = Σ (w − c)² over a 3-vector w: the landscape over two of its entries."""
    doc = Document()
    doc.add(Node("w", VARIABLE, value=np.array([3.0, 1.0, -1.0], np.float32)))
    doc.add(Node("c", CONSTANT, value=np.array([1.0, -2.0, 0.5], np.float32)))
    for nid, op, inputs in [("d", "subtract", ["w", "c"]), ("sq", "square", ["d"]),
                            ("loss", "reduce_sum", ["sq"])]:
        doc.add(Node(nid, OP, op=op, attrs={"axis": None, "keepdims": False}
                     if op == "reduce_sum" else {}))
        for i, src in enumerate(inputs):
            doc.connect(src, nid, dst_index=i)
    doc.targets, doc.sources = [Port("loss")], [Port("w")]
    return doc


def direct(doc, x, y, a, b):
    """The loss evaluated the ordinary way, with the two coordinates set to (a, b)."""
    values = {}
    for c, v in ((x, a), (y, b)):
        array = np.array(values.get(c.port, _value(doc, c.port)))
        array[c.index] = v
        values[c.port] = array
    trial = with_values(doc, values)
    return loss_of(trial, evaluate(trial).values)


def _value(doc, port):
    return port_value(doc, port)      # a Variable's value or a layer's weight


X, Y = Coordinate(Port("x")), Coordinate(Port("y"))


def test_rosenbrock_runs_batched_and_matches_direct_evaluation():
    doc = rosenbrock()
    heard = []
    land = landscape(doc, X, Y, (-2.0, 2.0), (-1.0, 3.0), n=41, progress=heard.append)
    assert land.batched and land.losses.shape == (41, 41)
    gx, gy = np.meshgrid(land.xs, land.ys)
    np.testing.assert_allclose(land.losses, f(gx, gy), rtol=1e-12)
    for j, i in [(0, 0), (40, 40), (7, 33), (20, 20)]:
        assert land.losses[j, i] == pytest.approx(direct(doc, X, Y, land.xs[i], land.ys[j]),
                                                  rel=1e-12)
    assert heard == sorted(heard) and heard[-1] == 1.0
    assert land.center == (-1.5, 2.0) and land.held_fixed == 0
    assert "whole surface" in land.note


def test_point_by_point_gives_the_same_grid(monkeypatch):
    doc = rosenbrock(dtype=np.float32)
    batched = landscape(doc, X, Y, (-2.0, 2.0), (-1.0, 3.0), n=9)
    monkeypatch.setattr(landscape_module, "_can_batch", lambda *a: False)
    alone = landscape(doc, X, Y, (-2.0, 2.0), (-1.0, 3.0), n=9)
    assert batched.batched and not alone.batched
    np.testing.assert_array_equal(alone.losses, batched.losses)


@pytest.mark.parametrize("batched", [True, False])
def test_entries_of_a_vector_hold_the_rest_fixed(batched, monkeypatch):
    doc = bowl()
    x, y = Coordinate(Port("w"), (0,)), Coordinate(Port("w"), (1,))
    if not batched:
        monkeypatch.setattr(landscape_module, "_can_batch", lambda *a: False)
    land = landscape(doc, x, y, (-1.0, 3.0), (-3.0, 1.0), n=5)
    assert land.batched == batched and land.held_fixed == 1
    assert "The other parameter entry is held at its current value" in land.note
    gx, gy = np.meshgrid(land.xs, land.ys)
    np.testing.assert_allclose(land.losses, (gx - 1) ** 2 + (gy + 2) ** 2 + 1.5 ** 2, rtol=1e-6)
    assert land.losses[3, 1] == pytest.approx(direct(doc, x, y, land.xs[1], land.ys[3]), rel=1e-6)
    np.testing.assert_array_equal(doc.nodes["w"].value, [3.0, 1.0, -1.0])   # untouched


SAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "samples"


@pytest.mark.parametrize("sample, x, y", [
    ("train_4_inverse", Coordinate(Port("input_x"), (0, 0)), Coordinate(Port("input_x"), (0, 2))),
    ("train_3_newton", Coordinate(Port("layer1", 1), (0, 0)), Coordinate(Port("layer1", 1), (3, 5))),
    ("train_3_newton", Coordinate(Port("layer1", 1), (1, 1)), Coordinate(Port("layer1", 2), (4,))),
])
def test_entries_of_tensors_run_batched_and_equal_point_by_point(sample, x, y, monkeypatch):
    """A Dense layer (its input, its kernel or its bias varying), element-wise ops and a
    reduction: one forward pass over the points, the numbers of one pass per point."""
    from gradviz.graph import load
    doc = load(SAMPLES / f"{sample}.json")
    cx, cy = landscape_module.value_of(doc, x), landscape_module.value_of(doc, y)
    ranges = (cx - 1.5, cx + 1.0), (cy - 0.5, cy + 2.0)
    batched = landscape(doc, x, y, *ranges, n=7)
    monkeypatch.setattr(landscape_module, "_can_batch", lambda *a: False)
    alone = landscape(doc, x, y, *ranges, n=7)
    assert batched.batched and not alone.batched
    np.testing.assert_allclose(batched.losses, alone.losses, rtol=1e-5)
    assert batched.losses[2, 5] == pytest.approx(
        direct(doc, x, y, batched.xs[5], batched.ys[2]), rel=1e-5)


def test_an_op_without_a_batch_rule_runs_point_by_point():
    doc = bowl()
    doc.add(Node("r", OP, op="reshape", attrs={"shape": [3, 1]}))
    doc.connect("d", "r", dst_index=0)
    doc.connect("r", "sq", dst_index=0)
    x, y = Coordinate(Port("w"), (0,)), Coordinate(Port("w"), (2,))
    land = landscape(doc, x, y, (-1.0, 3.0), (-3.0, 1.0), n=4)
    assert not land.batched
    gx, gy = np.meshgrid(land.xs, land.ys)
    np.testing.assert_allclose(land.losses, (gx - 1) ** 2 + 3.0 ** 2 + (gy - 0.5) ** 2, rtol=1e-6)


def test_a_batch_rule_that_disagrees_with_the_engine_is_not_trusted(monkeypatch):
    from gradviz.graph import batched as batched_module
    real = batched_module._aligned
    monkeypatch.setattr(batched_module, "_aligned",
                        lambda inputs, everything=False: [a * 1.01 for a in real(inputs, everything)])
    doc = bowl()
    x, y = Coordinate(Port("w"), (0,)), Coordinate(Port("w"), (1,))
    land = landscape(doc, x, y, (-1.0, 3.0), (-3.0, 1.0), n=3)
    assert not land.batched
    gx, gy = np.meshgrid(land.xs, land.ys)
    np.testing.assert_allclose(land.losses, (gx - 1) ** 2 + (gy + 2) ** 2 + 1.5 ** 2, rtol=1e-6)


def test_cancel_stops_between_chunks(monkeypatch):
    monkeypatch.setattr(landscape_module, "CHUNK_POINTS", 100)
    heard = []

    def progress(fraction):
        heard.append(fraction)
        if len(heard) == 2:
            raise KeyboardInterrupt  # any exception ends the computation there
    with pytest.raises(KeyboardInterrupt):
        landscape(rosenbrock(), X, Y, (-2, 2), (-1, 3), n=100, progress=progress)
    assert heard == [0.01, 0.02]


def test_local_model_is_rosenbrocks_derivatives():
    x0, y0 = -1.5, 2.0
    model = local_model(rosenbrock(x0, y0), X, Y, damping=0.0)
    g = [-2 * (A - x0) - 4 * B * x0 * (y0 - x0 ** 2), 2 * B * (y0 - x0 ** 2)]
    h = np.array([[2 - 4 * B * y0 + 12 * B * x0 ** 2, -4 * B * x0], [-4 * B * x0, 2 * B]])
    np.testing.assert_allclose(model.gradient, g, rtol=1e-12)
    np.testing.assert_allclose(model.hessian, h, rtol=1e-12)
    np.testing.assert_allclose(model.minimum, np.array([x0, y0]) - np.linalg.solve(h, g),
                               rtol=1e-12)
    assert model.loss == pytest.approx(f(x0, y0))


def test_local_model_without_a_minimum_says_so():
    # At (0, 1): fxx = 2 − 400 < 0, so H is indefinite and the model has no minimum.
    model = local_model(rosenbrock(0.0, 1.0), X, Y, damping=0.0)
    assert model.minimum is None and "not positive definite" in model.note


def test_refusals():
    doc = rosenbrock()
    with pytest.raises(DocumentError, match="two different"):
        landscape(doc, X, X, (0, 1), (0, 1))
    with pytest.raises(DocumentError, match="'a' is not a Variable"):
        landscape(doc, Coordinate(Port("a")), Y, (0, 1), (0, 1))


def test_a_run_leaves_its_path_thinned():
    trainer = Trainer(rosenbrock(), make_optimizer("sgd", learning_rate=1e-4))
    trainer.run(3)
    assert [step for step, _ in trainer.path] == [0, 1, 2, 3]
    assert trainer.path[-1][1][Port("x")] == trainer.values()[Port("x")]
    trainer.run(PATH_POINTS)
    steps = [step for step, _ in trainer.path]
    assert len(steps) <= PATH_POINTS and steps[0] == 0 and steps == sorted(steps)
    assert len(set(np.diff(steps[:-1]))) == 1           # evenly spaced after thinning
    assert steps[-1] == PATH_POINTS + 3                 # and the run's last step kept


def test_the_path_ends_at_the_last_step_whatever_the_stride(monkeypatch):
    """A Train dock export of 15416 steps was read ending at 9664; and a run whose last
    step is off the stride lost it (2003 steps ended at 2002)."""
    from gradviz.graph import training
    monkeypatch.setattr(training, "PATH_POINTS", 10)
    trainer = Trainer(rosenbrock(), make_optimizer("sgd", learning_rate=1e-4))
    for steps in (7, 16, 1, 9, 30):                     # runs paused and resumed
        trainer.run(steps)
        path = [step for step, _ in trainer.path]
        last = len(trainer.history)
        assert path == list(range(0, last, trainer._stride)) + [last] and len(path) <= 10
        assert trainer.path[-1][1][Port("x")] == trainer.values()[Port("x")]
    assert trainer._stride == 8


def test_window_is_a_square_that_holds_the_path():
    (x_lo, x_hi), (y_lo, y_hi) = window((1.0, 0.0), [(1.0, 0.5), (3.0, 0.0), (-1.0, 0.25)])
    assert x_lo < -1.0 and x_hi > 3.0 and x_hi - x_lo == pytest.approx(4.0 * 1.5)
    assert y_hi - y_lo == pytest.approx(x_hi - x_lo) and (y_lo + y_hi) / 2 == pytest.approx(0.25)
    assert window((2.0, 0.0)) == ((2.0 - 1.5, 2.0 + 1.5), (-1.5, 1.5))


def test_a_wide_window_holds_the_path_at_its_aspect():
    """A short, wide dock draws the surface over a window twice as wide as tall (issue 20
    §5: a square one gave a 170 x 170 px plot); the path is held whichever way it runs."""
    (x_lo, x_hi), (y_lo, y_hi) = window((0.0, 0.0), [(4.0, 1.0)], aspect=2.0)
    assert (x_lo, x_hi, y_lo, y_hi) == pytest.approx((-1.0, 5.0, -1.0, 2.0))
    (x_lo, x_hi), (y_lo, y_hi) = window((0.0, 0.0), [(1.0, 4.0)], aspect=2.0)
    assert x_hi - x_lo == pytest.approx(2 * (y_hi - y_lo)) and y_hi - y_lo == pytest.approx(6.0)
    assert x_lo < 0 < 1 < x_hi and y_lo < 0 < 4 < y_hi
