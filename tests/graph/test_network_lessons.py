"""The lessons on the networks a course teaches (samples/nets_*.json, issue 21): their numbers
against an independent numpy computation and finite differences, and the numbers each
lesson quotes (`lesson_checks`, used by test_samples)."""
import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import Port

from graph_samples import SAMPLES
from test_samples import grads, load


def evaluated(name):
    doc, ev, _ = grads(name)
    return doc, ev


# -- convolution's VJP ------------------------------------------------------------------------

def conv_valid(x, w):
    """y[i, j] = Σ_ab x[i+a, j+b] w[a, b] for 2-D arrays, in float64 (the forward, by hand)."""
    k = w.shape[0]
    n = x.shape[0] - k + 1
    return np.array([[np.sum(x[i:i + k, j:j + k] * w) for j in range(n)] for i in range(n)])


def conv_parts():
    doc, ev = evaluated("nets_1_conv_transpose")
    x = doc.nodes["input_image"].value[0, :, :, 0].astype(np.float64)
    w = doc.nodes["filter_w"].value[:, :, 0, 0].astype(np.float64)
    g = doc.output_gradients[Port("y")][0, :, :, 0].astype(np.float64)
    dx = ev.gradients[Port("input_image")][0, :, :, 0]
    dw = ev.gradients[Port("filter_w")][:, :, 0, 0]
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


# -- vanishing and exploding gradients -------------------------------------------------------

CHAINS = ("nets_2_sigmoid_chain", "nets_2_relu_chain", "nets_2_bad_init")


def chain_layers(doc):
    return sorted((n for n in doc.nodes.values() if n.kind == "layer"), key=lambda n: int(n.id[5:]))


def numpy_cotangent_norms(doc):
    """‖d loss/d output‖ of the last layer … the first, then of x, by hand in float64:
    forward, then δ ← (δ · act'(z)) Wᵀ layer by layer."""
    a = doc.nodes["x"].value.astype(np.float64)
    zs, layers = [], chain_layers(doc)
    for layer in layers:
        z = a @ layer.weights["kernel"].astype(np.float64) + layer.weights["bias"]
        a = 1 / (1 + np.exp(-z)) if layer.attrs["activation"] == "sigmoid" else np.maximum(z, 0)
        zs.append((z, a))
    delta, norms = np.ones_like(a), []
    for layer, (z, a) in zip(reversed(layers), reversed(zs)):
        norms.append(np.linalg.norm(delta))
        local = a * (1 - a) if layer.attrs["activation"] == "sigmoid" else (z > 0)
        delta = (delta * local) @ layer.weights["kernel"].astype(np.float64).T
    return norms + [np.linalg.norm(delta)], delta


def story_cotangent_norms(name):
    s = story_of(name)
    layers = [n.id for n in chain_layers(s.document)]
    visits = [next(t for t in s.steps if t.kind == "visit" and t.node == k and not t.internal)
              for k in reversed(layers)]
    return [float(np.linalg.norm(t.cotangent)) for t in visits + [s.steps[-1]]]


def story_of(name):
    from gradviz import story
    return story.build(load(name))


@pytest.mark.parametrize("name", CHAINS)
def test_the_chains_cotangent_norms_match_numpy_backprop_and_central_differences(name):
    doc, ev = evaluated(name)
    expected, dx = numpy_cotangent_norms(doc)
    np.testing.assert_allclose(story_cotangent_norms(name), expected, rtol=1e-4)
    np.testing.assert_allclose(ev.gradients[Port("x")], dx, rtol=1e-4, atol=1e-9)
    layers = chain_layers(doc)

    def loss(x):
        a = x
        for layer in layers:
            z = a @ layer.weights["kernel"].astype(np.float64)
            a = 1 / (1 + np.exp(-z)) if layer.attrs["activation"] == "sigmoid" else np.maximum(z, 0)
        return a.sum()

    x, h = doc.nodes["x"].value.astype(np.float64), 1e-6
    fd = np.array([(loss(x + h * e) - loss(x - h * e)) / (2 * h)
                   for e in np.eye(x.size).reshape(x.size, *x.shape)]).reshape(x.shape)
    np.testing.assert_allclose(dx, fd, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("name", CHAINS)
def test_the_gradient_norm_study_gives_the_numpy_norms_layer_by_layer(name):
    from gradviz.story import studies
    doc = load(name)
    expected, _ = numpy_cotangent_norms(doc)
    norms = studies.gradient_norms(story_of(name))
    assert norms.names == ["loss"] + [f"layer{k}" for k in range(6, 0, -1)] + ["x"]
    assert norms.kinds == ["visit"] * 7 + ["gradient"]
    assert norms.norms[0] == 1.0                                  # the seed at the loss
    np.testing.assert_allclose(norms.norms[1:], expected, rtol=1e-4)
    factors = norms.factors()
    np.testing.assert_allclose(factors[1:], np.array(expected[1:]) / expected[:-1], rtol=1e-4)


def test_sigmoid_vanishes_relu_keeps_and_a_bad_init_explodes():
    sig, relu, bad = (story_cotangent_norms(n) for n in CHAINS)
    assert all(b < a for a, b in zip(sig, sig[1:])) and sig[-1] / sig[0] < 1e-3
    assert 0.2 < relu[-1] / relu[0] < 5
    assert all(b > a for a, b in zip(bad, bad[1:])) and bad[-1] / bad[0] > 100


def kernels(name):
    return np.stack([la.weights["kernel"] for la in chain_layers(load(name))]).astype(np.float64)


def test_the_chains_share_their_draws_and_only_the_scale_differs():
    sig, relu, bad = (kernels(n) for n in CHAINS)
    width = sig.shape[1]
    np.testing.assert_allclose(sig / relu, np.sqrt(2 / (2 * width)) / np.sqrt(2 / width), rtol=1e-5)
    np.testing.assert_allclose(bad / relu, 1.5 / np.sqrt(2 / width), rtol=1e-5)
    assert abs(relu.std() / np.sqrt(2 / width) - 1) < 0.15   # 216 draws of N(0, 2/width)


def _chain_checks(name):
    """The checks every chain lesson shares: its norms, rounded to 3 digits as it prints them."""
    n = story_cotangent_norms(name)
    r3 = lambda v: float(f"{v:.3g}")  # noqa: E731
    layers = chain_layers(load(name))
    factor = (n[-1] / n[0]) ** (1 / len(layers))
    norms = [(f"{n[0]:.3g} (all ones, from the sum)", [r3(n[0])]),
             (", ".join(f"{v:.3g}" for v in n[1:-1]), [r3(v) for v in n[1:-1]]),
             (f"and {n[-1]:.3g} at x", [r3(n[-1])])]
    assert n[0] == pytest.approx(np.sqrt(layers[-1].attrs["units"]))   # the sum's all-ones
    return layers, factor, norms


# -- checking a gradient ----------------------------------------------------------------------

STEPS = (0.1, 0.01, 0.001, 0.0001)


def numpy_loss(w, x, index=None, shift=0.0):
    w = np.array(w, np.float64)
    if index is not None:
        w[index] += shift
    return float(np.sum(np.tanh(w * x)))


def numpy_central(doc, index, h):
    w, x = doc.nodes["w"].value, doc.nodes["x"].value
    return (numpy_loss(w, x, index, h) - numpy_loss(w, x, index, -h)) / (2 * h)


def tanh_third_derivative(w, x):
    """d³/dw³ tanh(w x) = x³ · (−2)(1 − t²)(1 − 3t²), t = tanh(w x)."""
    t = np.tanh(w * x)
    return x ** 3 * -2 * (1 - t * t) * (1 - 3 * t * t)


def check_numbers(name):
    doc, ev = evaluated(name)
    w, x = doc.nodes["w"].value, doc.nodes["x"].value
    assert w.dtype == np.float64 and x.dtype == np.float64
    return doc, ev.gradients[Port("w")], w, x


def test_the_backward_number_is_the_closed_form_and_central_differences_converge_as_h_squared():
    doc, g, w, x = check_numbers("nets_3_gradient_check")
    np.testing.assert_allclose(g, x * (1 - np.tanh(w * x) ** 2), rtol=1e-14)
    third = tanh_third_derivative(w[1], x[1])
    for h in STEPS:
        error = abs(numpy_central(doc, 1, h) - g[1])
        assert error == pytest.approx(h * h / 6 * abs(third), rel=0.01)   # truncation, h²/6 f'''
    assert abs(numpy_central(doc, 1, 1e-8) - g[1]) > abs(numpy_central(doc, 1, 1e-6) - g[1])


def test_a_wrong_custom_gradient_fails_the_check_and_factor_1_passes():
    doc, wrong, w, x = check_numbers("nets_3_wrong_gradient")
    fd = numpy_central(doc, 1, 1e-4)
    np.testing.assert_allclose(wrong, 2 * x * (1 - np.tanh(w * x) ** 2), rtol=1e-14)
    assert abs(wrong[1] - fd) / abs(wrong[1]) == pytest.approx(0.5, abs=1e-6)
    doc.nodes["hand_written_rule"].attrs["factor"] = 1.0
    fixed = graph.evaluate(doc).gradients[Port("w")]
    np.testing.assert_allclose(fixed, check_numbers("nets_3_gradient_check")[1], rtol=1e-15)
    assert abs(fixed[1] - fd) / abs(fd) < 1e-6


def _check_lesson(name):
    doc, g, w, x = check_numbers(name)
    if name == "nets_3_gradient_check":
        fd = {h: numpy_central(doc, 1, h) for h in STEPS}
        err = {h: float(f"{abs(fd[h] - g[1]):.2g}") for h in STEPS}
        third = float(f"{tanh_third_derivative(w[1], x[1]):.3g}")
        cube64 = float(f"{np.finfo(np.float64).eps ** (1 / 3):.0e}")
        cube32 = round(float(np.finfo(np.float32).eps) ** (1 / 3), 3)
        return [("w = [0.5, -1, 2] and x = [1, 2, -0.5], in float64", [*w, *x, 64]),
                ("w[1]", None), ("x[1]", None), ("/ 2h", [2]), ("(1 − tanh²", [1]),
                (f"= {g[1]:.8f}", [round(g[1], 8)]),
                (f"With h = 0.1 they give {fd[0.1]:.8f}, an error of {err[0.1]:.2g}",
                 [0.1, round(fd[0.1], 8), err[0.1]]),
                (f"with h = 0.01 the error is {err[0.01]:.2g}", [0.01, err[0.01]]),
                (f"with h = 0.001 {err[0.001]:.2g}", [0.001, err[0.001]]),
                (f"with h = 0.0001 {err[0.0001]:.2g}", [0.0001, err[0.0001]]),
                ("a 10 times smaller h, a 100 times smaller error",
                 [round(STEPS[0] / STEPS[1]), round(err[0.1] / err[0.01], -1)]),
                ("h²/6", [6]), (f"f''' = {third:.3g} here", [third]),
                ("h = 1e-8 is worse than h = 1e-6", [1e-8, 1e-6]),   # the test above
                (f"{cube64:.0e} in float64 but {cube32:.3f} in float32", [cube64, 64, cube32, 32]),
                ("gradient checks run in float64", [64]),
                ("Gradient check (Ctrl+Alt+6)", [6]),   # tests/app/studies: the menu's key
                ("falls with slope 2", [round(np.log10(err[0.1] / err[0.01]) / np.log10(0.1 / 0.01))])]
    fd = numpy_central(doc, 1, 1e-4)
    relative = float(f"{abs(g[1] - fd) / max(abs(g[1]), abs(fd)):.2g}")
    return [("multiplies the cotangent by 2", [doc.nodes["hand_written_rule"].attrs["factor"]]),
            ("w[1]", None), (f"= {g[1]:.8f}", [round(g[1], 8)]), ("(h = 0.0001)", [1e-4]),
            (f"still say {fd:.8f}", [round(fd, 8)]), (f"is {relative:.2g}", [relative]),
            ("below 1e-6", [1e-6]), ("view (Ctrl+Alt+6)", [6]), ("Set the rule's factor to 1", [1])]


def lesson_checks(name):
    """[(snippet of the lesson, the values its numbers must equal, or None for notation)]."""
    if name == "nets_1_conv_transpose":
        doc, ev, x, w, g, dx, dw = conv_parts()
        y = ev.values[Port("y")]
        return [("3x3 filter w", w.shape), ("5x5 input image x", x.shape),
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
    if name in CHAINS:
        layers, factor, norms = _chain_checks(name)
        width = layers[0].attrs["units"]
        he = np.sqrt(2 / width)
        if name == "nets_2_sigmoid_chain":
            return norms + [("Dense layers of 6 units", [width]),
                            ("standard\ndeviation 0.408".replace("\n", " "),
                             [round(np.sqrt(2 / (2 * width)), 3)]),
                            ("sigmoid'(z), at most 0.25", [0.25]),
                            (f"divides it by about {1 / factor:.1f}", [round(1 / factor, 1)]),
                            ("(Ctrl+Alt+5)", [5])]
        if name == "nets_2_relu_chain":
            return norms + [("deviation 0.577 (the square root of 2 over 6 inputs)",
                             [round(he, 3), 2, width]),
                            ("relu'(z) is 1 where the unit is on and 0 where it is off", [1, 0]),
                            (f"about {factor:.2f} times per layer", [round(factor, 2)]),
                            ("cotangent that reaches z is 0", [0]), ("Ctrl+Alt+5", [5]),
                            ("their\ncotangent is 0".replace("\n", " "), [0])]
        return norms + [("standard deviation 1.5", [1.5]),
                        (f"{1.5 / he:.1f} times He's", [round(1.5 / he, 1)]),
                        (f"about {factor:.1f} times larger", [round(factor, 1)]),
                        ("Ctrl+Alt+5", [5])]
    if name.startswith("nets_3_"):
        return _check_lesson(name)
    from test_course_lessons import lesson_checks as course_lesson_checks  # the later lessons
    return course_lesson_checks(name)


def test_the_teachers_guide_lists_every_sample():
    guide = (SAMPLES.parent / "docs" / "teachers-guide.md").read_text(encoding="utf-8")
    missing = [p.name for p in sorted(SAMPLES.glob("*.json")) if f"`{p.name}`" not in guide]
    assert missing == [], f"add these lessons to docs/teachers-guide.md's table: {missing}"


def test_every_lesson_picture_is_made_by_the_script_named_in_the_guide_and_on_a_real_step():
    """docs/lesson-*.png: each one is in the teacher's guide and made by
    docs/screenshots_lessons.py, on a step the lesson's story has (the script's steps count
    as the player does, from 1; negative from the end)."""
    import re
    from gradviz import story
    docs = SAMPLES.parent / "docs"
    guide = (docs / "teachers-guide.md").read_text(encoding="utf-8")
    script = (docs / "screenshots_lessons.py").read_text(encoding="utf-8")
    on_disk = sorted(p.name for p in docs.glob("lesson-*.png"))
    in_guide = sorted(set(re.findall(r"docs/(lesson-[a-z-]+\.png)", guide)))
    steps = {f"{name}.png": (sample, int(step)) for name, sample, step in
             re.findall(r'"(lesson-[a-z-]+)": \("(\w+)", (-?\d+)\)', script)}
    views = {f"{name}.png": sample for name, sample in
             re.findall(r'"(lesson-[a-z-]+)": \(views\.\w+, "(\w+)"\)', script)}
    assert on_disk == in_guide == sorted([*steps, *views])
    pictured = {s for s, _ in steps.values()} | set(views.values())
    assert pictured == {p.stem for p in SAMPLES.glob("nets_*.json")}     # every course lesson
    for picture, (sample, step) in steps.items():
        n = len(story.build(graph.load(SAMPLES / f"{sample}.json")).steps)
        assert 1 <= step <= n or -n <= step <= -1, (picture, step, n)
        assert re.search(rf"\| `{sample}\.json` \|[^\n]*\b{abs(step)}\b", guide) or step == -1, picture
