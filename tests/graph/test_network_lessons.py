"""The lessons on the networks a course teaches (samples/nets_*.json, issue 21): their numbers
against an independent numpy computation and finite differences, and the numbers each
lesson quotes (`lesson_checks`, used by test_samples)."""
import numpy as np

from gradviz import graph
from gradviz.graph import Port

from graph_samples import SAMPLES


def load(name):
    return graph.load(SAMPLES / f"{name}.json")


def evaluated(name):
    doc = load(name)
    ev = graph.evaluate(doc)
    assert ev.problems == []
    return doc, ev


# -- convolution's VJP ------------------------------------------------------------------------

def conv_valid(x, w):
    """y[i, j] = Σ_ab x[i+a, j+b] w[a, b] for 2-D arrays, in float64 (the forward, by hand)."""
    k = w.shape[0]
    n = x.shape[0] - k + 1
    return np.array([[np.sum(x[i:i + k, j:j + k] * w) for j in range(n)] for i in range(n)])


def conv_parts():
    doc, ev = evaluated("nets_1_conv_transpose")
    x = doc.nodes["x"].value[0, :, :, 0].astype(np.float64)
    w = doc.nodes["w"].value[:, :, 0, 0].astype(np.float64)
    g = doc.output_gradients[Port("y")][0, :, :, 0].astype(np.float64)
    dx = ev.gradients[Port("x")][0, :, :, 0]
    dw = ev.gradients[Port("w")][:, :, 0, 0]
    return doc, ev, x, w, g, dx, dw


def test_conv_input_gradient_is_the_upstream_padded_and_convolved_with_the_flipped_filter():
    _, ev, x, w, g, dx, _ = conv_parts()
    np.testing.assert_array_equal(ev.values[Port("y")][0, :, :, 0], conv_valid(x, w))
    full = conv_valid(np.pad(g, 2), np.flip(w))          # transposed convolution
    np.testing.assert_array_equal(dx, full)
    assert dx.shape == (5, 5) and np.abs(dx).max() > 0


def test_conv_filter_gradient_is_the_correlation_of_input_and_upstream():
    _, _, x, w, g, _, dw = conv_parts()
    np.testing.assert_array_equal(dw, conv_valid(x, g))
    np.testing.assert_array_equal(dw, [[2, 8, 2], [-2, 2, 3], [8, 2, 2]])


def test_conv_gradients_match_central_differences():
    _, _, x, w, g, dx, dw = conv_parts()

    def loss(x_, w_):
        return np.sum(g * conv_valid(x_, w_))

    h = 1e-3
    for arg, grad in ((0, dx), (1, dw)):
        base = [x, w]
        fd = np.zeros_like(base[arg])
        for idx in np.ndindex(fd.shape):
            plus = [a.copy() for a in base]
            minus = [a.copy() for a in base]
            plus[arg][idx] += h
            minus[arg][idx] -= h
            fd[idx] = (loss(*plus) - loss(*minus)) / (2 * h)
        np.testing.assert_allclose(grad, fd, atol=1e-8)


def lesson_checks(name):
    """[(snippet of the lesson, the values its numbers must equal, or None for notation)]."""
    if name == "nets_1_conv_transpose":
        doc, ev, x, w, g, dx, dw = conv_parts()
        y = ev.values[Port("y")]
        return [("3x3 filter w", w.shape), ("5x5 image x", x.shape),
                ("y[i, j] = Σ x[i+a, j+b]·w[a, b], a 3x3 output", y.shape[1:3]),
                ("conv2d (VALID, stride 1)", [2, 1]),
                ("is 1 at y[0, 0], 2 at y[1, 1], -1 at y[2, 2] and 0 elsewhere",
                 [g[0, 0], 0, 0, g[1, 1], 1, 1, g[2, 2], 2, 2, 0]),
                ("x[p, q] met w[p-i, q-j]", None), ("Σ g[i, j]·w[p-i, q-j]", None),
                ("padded with 2 zeros", [w.shape[0] - 1]),
                ("1·w at (0, 0), 2·w at (1, 1), -1·w at\n(2, 2)".replace("\n", " "),
                 [g[0, 0], 0, 0, g[1, 1], 1, 1, g[2, 2], 2, 2]),
                ("row 2 of x's gradient", [2]),
                ("1·[1, 0, -1] + 2·[2, 0, -2] - 1·[1, 0, -1]",
                 [g[0, 0], *w[2], g[1, 1], *w[1], -g[2, 2], *w[0]]),
                ("[1, 4, -2, -4, 1]", dx[2]),
                ("w[a, b] met x[i+a, j+b] in y[i, j]", None), ("Σ g[i, j]·x[i+a, j+b]", None),
                ("= x[a, b] + 2·x[a+1, b+1] - x[a+2, b+2]", [g[1, 1], 1, 1, 2, 2]),
                ("for w[0, 0] that is 1 + 2·1 - 1 = 2",
                 [0, 0, x[0, 0], g[1, 1], x[1, 1], x[2, 2], dw[0, 0]]),
                ("[[2, 8, 2], [-2, 2, 3], [8, 2, 2]]", dw)]
    raise AssertionError(f"no lesson checks for {name}")
