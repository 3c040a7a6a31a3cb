"""Every sample is byte-stable on round trip and evaluates to its seed's numbers, and its
lesson quotes only numbers the document computes."""
import re

import numpy as np
import pytest

import gradviz as gv
from gradviz import graph
from gradviz.graph import Port

from graph_samples import SAMPLE_FILES, SAMPLES


def load(name):
    return graph.load(SAMPLES / f"{name}.json")


# The samples whose lesson is a warning on a node: (node, severity) of each problem.
EXPECTED_PROBLEMS = {"nets_4_softmax_then_log": [("log_p", "warning")]}


def grads(name):
    doc = load(name)
    ev = graph.evaluate(doc)
    assert [(p.node, p.severity) for p in ev.problems] == EXPECTED_PROBLEMS.get(name, [])
    return doc, ev, [ev.gradients[p] for p in doc.sources]


@pytest.mark.cpu_independent("a file read and written back, byte for byte: nothing is computed")
@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_round_trip_is_byte_stable(path, tmp_path):
    text = path.read_text(encoding="utf-8")
    doc = graph.loads(text)
    assert graph.dumps(doc) == text
    graph.save(doc, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_sample_has_a_title_lesson_and_readme_entry(path):
    doc = graph.load(path)
    assert doc.title and len(doc.lesson) > 80
    assert path.name in (SAMPLES / "README.md").read_text(encoding="utf-8")
    assert graph.validate(doc) == []


def test_seed_004_sum_of_rows():
    _, _, (g,) = grads("004_matmul_sum")
    row = np.array([-0.17307831, 1.1900724, 2.245003], np.float32)
    np.testing.assert_allclose(g, np.tile(row, (5, 1)), rtol=1e-6)


def test_seed_004_single_element():
    _, _, (g,) = grads("004_single_element")
    expected = np.zeros((5, 3), np.float32)
    expected[0] = [0.43842274, 1.5658046, 1.4204658]
    np.testing.assert_allclose(g, expected, rtol=1e-6)
    assert abs(g.sum() - 3.424693) < 1e-5


def test_seed_003():
    np.testing.assert_array_equal(grads("003_matmul_gradient")[2][0], [[21, 30], [21, 30]])
    np.testing.assert_array_equal(grads("003_stop_gradient_product")[2][0],
                                  [[573, 816], [1295, 1844]])


def test_seed_002_vjp_and_by_parts():
    np.testing.assert_array_equal(grads("002_vjp_output_gradients")[2][0], [4, 12])
    doc, _, (gx, gout) = grads("002_gradient_by_parts")
    j = graph.jacobian(doc)
    assert j.shape == (1, 5, 1, 10)
    by_parts = gout.reshape(1, 5) @ j.reshape(5, 10)
    np.testing.assert_allclose(by_parts.reshape(1, 10), gx)
    np.testing.assert_allclose(gx, 5.0)


def test_seed_002_black_box_gradient_is_the_chain_rule():
    doc, ev, (gk, gb) = grads("002_black_box_gradient")
    x = doc.nodes["x"].value
    approx = doc.output_gradients[Port("net")]
    np.testing.assert_allclose(gk, x.T @ approx, rtol=1e-5)
    np.testing.assert_allclose(gb, approx.sum(0), rtol=1e-5)


@pytest.mark.parametrize("name", ["001_stop_recording", "001_reset", "001_stop_gradient"])
def test_seed_001_four_and_none(name):
    _, _, (gx, gy) = grads(name)
    assert float(gx) == 4.0 and gy is None


def test_seed_001_clip_two_tapes_higher_order():
    assert float(grads("001_clip_gradient")[2][0]) == 2.0
    g0, g1 = grads("001_two_tapes")[2]
    assert float(g0) == 1.0 and float(g1) == 0.25
    doc, ev, (d2,) = grads("001_higher_order")
    # x = 1.5 (it was 1, where every number of the story was 1): 3x² and 6x
    assert float(ev.values[Port("t1_gradient_y_x")]) == 6.75 and float(d2) == 9.0
    assert [float(v) for v in graph.higher_order(doc)] == [6.75, 9.0]


def test_seed_001_input_gradient_regularization_matches_the_seed_code():
    doc, _, (gk, gb) = grads("001_input_gradient_regularization")
    assert gk.shape == (5, 10) and gb.shape == (10,)
    layer = doc.nodes["layer"]
    x = gv.constant(doc.nodes["x"].value)
    dense = gv.keras.layers.Dense(10, activation=gv.nn.relu)
    dense(x)
    dense.kernel.assign(layer.weights["kernel"])
    dense.bias.assign(layer.weights["bias"])
    with gv.GradientTape() as t2:
        with gv.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            out = gv.reduce_sum(dense(x) ** 2)
        g1_mag = gv.norm(t1.gradient(out, x))
    expected = t2.gradient(g1_mag, dense.trainable_variables)
    np.testing.assert_allclose(gk, expected[0].numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gb, expected[1].numpy(), rtol=1e-4, atol=1e-6)


def test_seed_001_sigmoid_jacobian():
    doc = load("001_sigmoid_jacobian")
    j = graph.jacobian(doc)
    x = np.linspace(-10, 10, 201)
    s = 1 / (1 + np.exp(-x))
    assert j.shape == (201,)
    np.testing.assert_allclose(j, s * (1 - s), atol=1e-6)


def test_seed_001_dense_jacobian_sums_to_the_gradient():
    doc, _, (g,) = grads("001_dense_jacobian")
    j = graph.jacobian(doc)
    assert j.shape == (7, 10, 5, 10)
    assert np.abs(j.sum(axis=(0, 1)) - g).max() < 1e-3


def test_seed_001_hessian_is_symmetric_and_newton_step_solves():
    doc, _, (g,) = grads("001_hessian_newton")
    h = graph.hessian(doc)
    assert h.shape == (5, 8, 5, 8)
    h_mat = h.reshape(40, 40)
    np.testing.assert_allclose(h_mat, h_mat.T, atol=1e-5)
    update = graph.newton_step(doc)
    assert update.shape == (5, 8)
    np.testing.assert_allclose((h_mat + 1e-3 * np.eye(40)) @ update.reshape(40), g.reshape(40),
                               rtol=1e-3, atol=1e-4)


def test_seed_001_batch_jacobian_and_the_batchnorm_pitfall():
    doc = load("001_batch_jacobian")
    jb, j = graph.batch_jacobian(doc), graph.jacobian(doc)
    assert jb.shape == (7, 6, 5) and j.shape == (7, 6, 7, 5)
    assert np.abs(jb - j.sum(axis=2)).max() < 1e-3
    off_diagonal = j[:, 0, :, 0] - np.diag(np.diag(j[:, 0, :, 0]))
    assert np.abs(off_diagonal).max() == 0
    doc = load("001_batchnorm_pitfall")
    jb, j = graph.batch_jacobian(doc), graph.jacobian(doc)
    assert jb.shape == (7, 6, 5) and j.shape == (7, 6, 7, 5)
    off_diagonal = j[:, 0, :, 0] - np.diag(np.diag(j[:, 0, :, 0]))
    assert np.abs(off_diagonal).max() > 1e-3


def test_seed_000_layer_hessian_closed_form():
    doc = load("000_layer_hessian")
    h = graph.hessian(doc)
    x = doc.nodes["x"].value.astype(np.float64)
    n = x.shape[0] * 3
    expected = 2.0 / n * np.einsum("bi,bk,jl->ijkl", x, x, np.eye(3))
    np.testing.assert_allclose(h, expected, rtol=1e-4, atol=1e-6)


# -- every number a lesson quotes is the number the document evaluates to ---------------------

NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:e-?\d+)?")


def _numbers(text):
    return [float(m.group().replace(",", "")) for m in NUMBER.finditer(text)]


def _lesson_checks(name):
    """[(snippet of the lesson, the values its numbers must equal, or None for notation)]."""
    from gradviz.story import studies
    doc, ev, gs = grads(name)
    shape = lambda *a: list(a)  # noqa: E731
    if name == "004_matmul_sum":
        single = grads("004_single_element")[2][0]
        return [("with 1", [1]), ("tf_t[i, j]", None), ("tf_b[j, :]", None),
                ("[-0.17307831, 1.1900724, 2.245003]", gs[0][0]),
                ("y_tf[0, 0]", None), ("in row 0", [0]),
                ("only 3.424693", [single.sum()])]
    if name == "004_single_element":
        g = gs[0]
        return [("y_tf[0, 0]", None), ("that is 1 at [0, 0] and 0 elsewhere", [1, 0, 0, 0]),
                ("row 0: [0.43842274, 1.5658046, 1.4204658]", [0] + list(g[0])),
                ("zeros below", None)]
    if name == "003_matmul_gradient":
        return [("[[21, 30], [21, 30]]", gs[0].ravel())]
    if name == "003_stop_gradient_product":
        return [("[[573, 816], [1295, 1844]]", gs[0].ravel())]
    if name == "002_vjp_output_gradients":
        v, x = doc.output_gradients[Port("y")], doc.nodes["x"].value
        return [("vec = [2, 3]", v), ("[2·2·1, 3·2·2]", [v[0], 2, x[0], v[1], 2, x[1]]),
                ("= [4, 12]", gs[0])]
    if name == "002_gradient_by_parts":
        j = graph.jacobian(doc)
        return [("the 5 elements of out", [ev.values[Port("out")].size]),
                ("shape of x, (1, 10)", ev.values[Port("x")].shape),
                ("shape (1, 5)", gs[1].shape), ("shape (1, 5, 1, 10)", j.shape),
                ("dloss/dout = 2 everywhere", [gs[1].min()] if np.ptp(gs[1]) == 0 else None),
                ("dloss/dx = 5 everywhere", [gs[0].min()] if np.ptp(gs[0]) == 0 else None)]
    if name == "002_black_box_gradient":
        return []
    if name in ("001_stop_recording", "001_stop_gradient", "001_reset"):
        assert gs[1] is None  # each lesson says dz/dy is None
        return {"001_stop_recording": [("dz/dx = 2x = 4", [2, gs[0]])],
                "001_stop_gradient": [("x**2 + stop_gradient(y**2)", None),
                                      ("dz/dx = 4", [gs[0]])],
                "001_reset": [("dz/dx = 4", [gs[0]])]}[name]
    if name == "001_clip_gradient":
        clip = doc.nodes["clip_gradients"].attrs["clip_norm"]
        story_ = __import__("gradviz.story", fromlist=["build"]).build(doc)
        seed, _, to_vv = story_.steps[:3]
        v = float(doc.nodes["v"].value)
        return [("clip_by_norm(dy, 0.5)", [clip]), ("the seed cotangent 1", [seed.cotangent]),
                ("leaves it as 0.5", [to_vv.cotangent]),
                ("0.5 · 2v = 2.0", [to_vv.cotangent, 2, gs[0]]),
                ("it would be 4", [2 * v])]
    if name == "001_two_tapes":
        return [("x0", None), ("x1", None), ("tape0", None), ("tape1", None),
                ("cos(0) = 1.0", [doc.nodes["x0"].value, gs[0]]),
                ("sigmoid'(0) = 0.25", [doc.nodes["x1"].value, gs[1]])]
    if name == "001_higher_order":
        # x = 1.5, not 1: at 1 every factor, product and path of the story was 1 (auditor)
        d1 = ev.values[Port("t1_gradient_y_x")]
        x, xx, y = (float(ev.values[Port(n)]) for n in ("x", "xx", "y"))
        (at_x,) = [s for s in story_of(doc).of_kind("fan_in") if s.node == "x"]
        paths = sorted(float(a) for _, a in at_x.terms)     # the outer paths that meet at x
        return [("x = 1.5", [x]), ("xx = x·x = 2.25", [xx]), ("y = xx·x = 3.375", [y]),
                ("dy/dx = 3x² = 6.75", [3, d1]), ("three paths", None),
                ("∂y/∂y·xx = 2.25", [1.0 * xx]),
                ("∂y/∂xx·x = 1.5·1.5 = 2.25", [1.0 * x, x, 1.0 * x * x]),
                ("∂y/∂xx = ∂y/∂y·x = 1.5", [1.0 * x]),
                ("d²y/dx² = 6x = 9", [6, gs[0]]),
                ("1.5 four times and 3 once", [paths[0], paths[-1]])] \
            if paths == [x] * 4 + [2 * x] and d1 == 3 * x * x else [("?", None)]
    if name == "001_input_gradient_regularization":
        return [("t1.gradient(out, x)", None), ("g1_mag", None),
                ("shapes [5, 10] and [10]", list(gs[0].shape) + list(gs[1].shape)),
                ("layer ** 2", None), ("0 · 0^(-1) = 0 · ∞", None), ("output is 0", None),
                ("rule 2x", None)]
    if name == "001_sigmoid_jacobian":
        j = graph.jacobian(doc)
        h = studies.hessian_study(doc).hessian
        assert abs(float(h.ravel()[0])) <= 1e-6 * float(gs[0])   # zero, within float32 rounding
        x = doc.nodes["x"].value
        np.testing.assert_array_equal(x, -x[::-1])                # the symmetry the lesson cites
        return [("shape (201,)", j.shape), ("x_i", None), ("0.25 at its peak", [j.max()]),
                ("that curve: 9.999137", [gs[0]]), ("Hessian tab shows H = 0", [0]),
                ("symmetric around 0", [0]), ("delta = 0", [0])]
    if name == "001_dense_jacobian":
        j = graph.jacobian(doc)
        return [("shape (7, 10)", ev.values[Port("layer")].shape),
                ("kernel (5, 10)", gs[0].shape), ("shape (7, 10, 5, 10)", j.shape)]
    if name == "001_hessian_newton":
        h = studies.hessian_study(doc)
        assert abs(h.eigenvalues[0]) <= h.tolerance  # the noise the lesson describes
        return [("(5, 8, 5, 8) Hessian", graph.hessian(doc).shape),
                ("40 x 40", h.hessian.shape), ("from 0 (within rounding", [0]),
                ("below 1e-6 × the largest", [h.tolerance / h.eigenvalues[-1]]),
                ("to 0.78", [round(float(h.eigenvalues[-1]), 2)]),
                ("(H + 0.001·I)", [h.epsilon])]
    if name in ("001_batch_jacobian", "001_batchnorm_pitfall"):
        b = studies.batch_jacobian_study(doc)
        checks = [("(7, 6, 5)", b.batch_jacobian.shape), ("(7, 6, 7, 5)", b.jacobian.shape)]
        if name == "001_batch_jacobian":
            return checks + [("layer2 (7, 6)", [2, *ev.values[Port("layer2")].shape]),   # its 2, its shape
                             ("x (7, 5)", ev.values[Port("x")].shape)]
        return checks + [("layer2", None),
                         ("d layer2[3] / d x[6], has norm 1.14",
                          [2, *b.location, round(b.largest, 2)]),
                         ("by up to 1.27", [round(b.block_difference, 2)])]
    if name == "000_layer_hessian":
        c = studies.chain_cost(story_of(doc))
        return [("(6 → 12 → 12 → 12 → 1 elements)", c.sizes),
                ("360 multiply-adds against 1,800", [c.reverse, c.forward]),
                ("mean(y²)", None), ("2/N", None)]
    if name.startswith("train_"):
        from test_training_lessons import lesson_checks
        return lesson_checks(name)
    if name.startswith("nets_"):
        from test_network_lessons import lesson_checks
        return lesson_checks(name)
    raise AssertionError(f"no lesson checks for {name}")


# Another lesson named as the Lessons menu shows it: 'lesson 26, “Vanishing gradients: …”'.
REFERENCE = re.compile(r"[Ll]esson (\d+), “([^”]+)”")


def test_a_lesson_names_other_lessons_by_number_and_title_never_by_file():
    """A student finds lessons by their titles in the Lessons menu: the texts said
    'nets_2_relu_chain is the same chain with relu', '001_batchnorm_pitfall with
    LayerNormalization …' and 'seed 001's Hessian' (auditor, issue 20 §2). No title or lesson
    names a sample file (with or without .json) or a seed's number; every 'lesson N, “T”' is
    the lesson the menu numbers N, titled T."""
    from gradviz.bundled import lesson_entries
    entries = lesson_entries(SAMPLES)
    assert len(entries) == len(SAMPLE_FILES)
    stems = sorted((p.stem for p in SAMPLE_FILES), key=len, reverse=True)
    named = 0
    for entry in entries:
        for field, text in (("title", entry.title), ("lesson", entry.lesson)):
            assert ".json" not in text, (entry.path.stem, field)
            assert not [s for s in stems if s in text], (entry.path.stem, field, text)
            assert not re.search(r"\bseed \d{3}", text, re.I), (entry.path.stem, field, text)
        for m in re.finditer(r"\b[Ll]essons? \d+", entry.lesson):
            ref = REFERENCE.match(entry.lesson, m.start())
            assert ref, (entry.path.stem, entry.lesson[m.start():m.start() + 80])
            number, title = int(ref.group(1)), ref.group(2)
            assert 1 <= number <= len(entries) and entries[number - 1].title == title, ref.group()
            assert number != entry.number
            named += 1
    assert named >= 9        # the nine places that wrote a file name or a seed


def story_of(doc):
    from gradviz import story
    return story.build(doc)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_every_number_in_the_lesson_is_what_the_document_computes(path):
    doc = load(path.stem)
    lesson = doc.lesson
    covered = np.zeros(len(lesson), bool)
    for m in REFERENCE.finditer(lesson):   # another lesson's number: checked above
        covered[m.start():m.end()] = True
    for snippet, values in _lesson_checks(path.stem):
        assert snippet in lesson, snippet
        for m in re.finditer(re.escape(snippet), lesson):
            covered[m.start():m.end()] = True
        if values is not None:
            np.testing.assert_allclose(_numbers(snippet), np.ravel(values).astype(float),
                                       rtol=1e-6, atol=1e-9, err_msg=snippet)
    unchecked = [m.group() for m in NUMBER.finditer(lesson) if not covered[m.start():m.end()].all()]
    assert unchecked == [], f"numbers in the lesson that no check covers: {unchecked}"


def test_the_batchnorm_lesson_matches_the_study():
    """batch_jacobian is the sum over the target's batch axis, not over the source's, and
    not the per-example blocks."""
    from gradviz.story import studies
    b = studies.batch_jacobian_study(load("001_batchnorm_pitfall"))
    assert b.engine_difference < 1e-6
    np.testing.assert_allclose(b.batch_jacobian, b.jacobian.sum(axis=0).transpose(1, 0, 2),
                               atol=1e-6)
    assert b.block_difference == pytest.approx(1.27, abs=0.005)
    assert np.abs(b.batch_jacobian - b.jacobian.sum(axis=2)).max() > 0.1  # not the source sum
