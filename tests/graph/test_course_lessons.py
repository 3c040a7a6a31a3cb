"""The course lessons of issue 21 §2 (softmax cross-entropy, the tiny CNN, attention): their
numbers against float64 numpy written by hand, closed forms and central differences, and the
numbers each lesson quotes (`lesson_checks`, used by test_samples)."""
import numpy as np
import pytest

from gradviz import graph
from gradviz.graph import Port

from graph_samples import SAMPLES

pytestmark = pytest.mark.numeric


def load(name):
    return graph.load(SAMPLES / f"{name}.json")


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def central(f, x, h=1e-6):
    """∂f/∂x by central differences, entry by entry (f: float64 array -> float)."""
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        out[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def f64(doc, nid):
    return doc.nodes[nid].value.astype(np.float64)


def story_of(doc):
    from gradviz import story
    return story.build(doc)


def row(values, digits=4):
    return "[" + ", ".join(f"{v:.{digits}g}" for v in np.ravel(values)) + "]"


def r(v, digits):
    """v rounded to `digits` significant digits, as the lesson prints it."""
    return [float(f"{x:.{digits}g}") for x in np.ravel(v)]


# -- softmax and cross-entropy ----------------------------------------------------------------

def cross_entropy(z, y):
    """−Σ y log softmax(z), in float64 with the max subtracted."""
    m = z.max(axis=-1, keepdims=True)
    return float(np.sum(-(y * (z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))))))


def test_the_gradient_of_cross_entropy_is_p_minus_labels():
    doc = load("nets_4_softmax_cross_entropy")
    ev = graph.evaluate(doc)
    assert ev.problems == []
    z, y = f64(doc, "logits"), f64(doc, "labels")
    p = softmax(z)
    np.testing.assert_allclose(ev.values[Port("softmax_logits")], p, rtol=1e-6)
    np.testing.assert_allclose(ev.values[Port("cross_entropy")], [-np.log(p[0, 0])], rtol=1e-6)
    g = ev.gradients[Port("logits")]
    np.testing.assert_allclose(g, p - y, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g, central(lambda v: cross_entropy(v, y), z), atol=1e-8)
    np.testing.assert_array_equal(ev.values[Port("softmax_logits_labels")],
                                  ev.values[Port("softmax_logits")] - y)
    assert abs(float(g.sum())) < 1e-6


def test_softmax_then_log_gives_inf_and_nan_where_the_fused_op_is_right():
    doc = load("nets_4_softmax_then_log")
    ev = graph.evaluate(doc)
    assert [(p.node, p.severity) for p in ev.problems] == [("log_p", "warning")]
    z, y = f64(doc, "logits"), f64(doc, "labels")
    assert ev.values[Port("p")][0, 0] == 0.0                      # exp(-120) underflows
    assert float(ev.values[Port("ce")]) == np.inf
    assert np.isnan(ev.gradients[Port("logits")]).all()
    true_loss = cross_entropy(z, y)                                # 120 + log(1 + e^-1)
    assert true_loss == pytest.approx(120 + np.log1p(np.exp(-1.0)), rel=1e-12)
    np.testing.assert_allclose(ev.values[Port("fused_cross_entropy")], [true_loss], rtol=1e-6)
    doc.targets = [Port("fused_cross_entropy")]                                   # the fused op's gradient
    fused = graph.evaluate(doc).gradients[Port("logits")]
    np.testing.assert_allclose(fused, softmax(z) - y, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fused, central(lambda v: cross_entropy(v, y), z), atol=1e-6)
    assert np.isfinite(fused).all()


def test_the_cross_entropy_stories_step_by_step():
    s = story_of(load("nets_4_softmax_cross_entropy"))
    assert [(x.kind, x.node) for x in s.steps] == [
        ("seed", "cross_entropy"), ("visit", "cross_entropy"), ("contribution", "cross_entropy"), ("accumulate", "logits")]
    z, y = f64(s.document, "logits"), f64(s.document, "labels")
    assert s.steps[2].formula == "grad_logits = grad · (p − labels), p = softmax(logits)"
    np.testing.assert_allclose(s.steps[2].cotangent, softmax(z) - y, rtol=1e-6, atol=1e-7)

    s = story_of(load("nets_4_softmax_then_log"))
    assert [(x.kind, x.node) for x in s.steps if x.kind != "visit"] == [
        ("seed", "ce"), ("contribution", "ce"), ("contribution", "sum_labels_log_p"),
        ("contribution", "labels_log_p"), ("contribution", "log_p"), ("contribution", "p"),
        ("accumulate", "logits")]
    to_log_p, to_p, to_logits = (x for x in s.steps if x.kind == "contribution"
                                 and x.node in ("labels_log_p", "log_p", "p"))
    np.testing.assert_array_equal(to_log_p.cotangent, [[-1, 0, 0]])   # −labels
    assert to_p.formula == "grad_p = grad / p"          # the rule in the lesson's names
    assert to_p.cotangent[0, 0] == -np.inf and to_p.cotangent[0, 1] == 0
    assert np.isnan(to_logits.cotangent).all()


# -- the tiny CNN -------------------------------------------------------------------------------

def conv_valid(x, w):
    """(8, 8) image, (3, 3, 1, F) filters -> (6, 6, F), by the definition."""
    k, f = w.shape[0], w.shape[3]
    n = x.shape[0] - k + 1
    return np.array([[[np.sum(x[i:i + k, j:j + k] * w[:, :, 0, c]) for c in range(f)]
                      for j in range(n)] for i in range(n)])


def max_pool(a):
    """2x2 windows, stride 2, of (6, 6, F) -> (3, 3, F) and the one-hot argmax mask."""
    h = a.shape[0] // 2
    windows = a.reshape(h, 2, h, 2, -1).transpose(0, 2, 4, 1, 3).reshape(h, h, -1, 4)
    pick = windows.argmax(axis=-1)
    mask = np.zeros_like(windows)
    np.put_along_axis(mask, pick[..., None], 1.0, axis=-1)
    mask = mask.reshape(h, h, -1, 2, 2).transpose(0, 3, 1, 4, 2).reshape(a.shape)
    return windows.max(axis=-1), mask


def cnn_numpy(doc, w=None, kernel=None):
    x = f64(doc, "image_x")[0, :, :, 0]
    w = f64(doc, "filters_w") if w is None else w
    dense = doc.nodes["dense"].weights
    kernel = dense["kernel"].astype(np.float64) if kernel is None else kernel
    bias, y = dense["bias"].astype(np.float64), f64(doc, "labels_vertical")
    conv = conv_valid(x, w)
    relu = np.maximum(conv, 0)
    pool, mask = max_pool(relu)
    flat = pool.reshape(1, -1)
    logits = flat @ kernel + bias
    return dict(x=x, conv=conv, relu=relu, pool=pool, mask=mask, flat=flat, logits=logits,
                loss=cross_entropy(logits, y), y=y, kernel=kernel)


def cnn_backward(f):
    g_logits = softmax(f["logits"]) - f["y"]
    g_flat = g_logits @ f["kernel"].T
    g_pool = g_flat.reshape(f["pool"].shape)
    g_relu = np.repeat(np.repeat(g_pool, 2, axis=0), 2, axis=1) * f["mask"]
    g_conv = g_relu * (f["conv"] > 0)
    x = f["x"]
    g_w = np.array([[[[np.sum(g_conv[:, :, c] * x[a:a + 6, b:b + 6])
                       for c in range(g_conv.shape[2])]] for b in range(3)] for a in range(3)])
    return dict(logits=g_logits, flat=g_flat, pool=g_pool, relu=g_relu, conv=g_conv, w=g_w,
                kernel=f["flat"].T @ g_logits, bias=g_logits[0])


def test_the_tiny_cnn_matches_numpy_backprop_and_central_differences():
    doc = load("nets_5_tiny_cnn")
    ev = graph.evaluate(doc)
    assert ev.problems == []
    f = cnn_numpy(doc)
    b = cnn_backward(f)
    np.testing.assert_allclose(ev.values[Port("conv")][0], f["conv"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ev.values[Port("loss")], [f["loss"]], rtol=1e-5)
    np.testing.assert_allclose(ev.gradients[Port("filters_w")], b["w"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("dense", 1)], b["kernel"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ev.gradients[Port("dense", 2)], b["bias"], rtol=1e-5, atol=1e-7)
    w = f64(doc, "filters_w")
    fd = central(lambda v: cnn_numpy(doc, w=v)["loss"], w)
    np.testing.assert_allclose(b["w"], fd, atol=1e-7)


def test_the_tiny_cnn_story_goes_through_every_layer():
    doc = load("nets_5_tiny_cnn")
    s = story_of(doc)
    outer = [(x.kind, x.node) for x in s.steps if not x.internal]
    assert outer == [("seed", "loss"), ("visit", "loss"), ("contribution", "loss"),
                     ("visit", "dense"), ("contribution", "dense"), ("contribution", "dense"),
                     ("contribution", "dense"), ("visit", "flat"), ("contribution", "flat"),
                     ("visit", "pool"), ("contribution", "pool"), ("visit", "relu"),
                     ("contribution", "relu"), ("visit", "conv"), ("contribution", "conv"),
                     ("accumulate", "filters_w"), ("accumulate", "dense"), ("accumulate", "dense")]
    b = cnn_backward(cnn_numpy(doc))
    handed = {x.port: x for x in s.steps if x.kind == "contribution" and not x.internal}
    for port, expected in ((Port("dense"), b["logits"]), (Port("flat"), b["flat"]),
                           (Port("pool"), b["pool"][None]), (Port("relu"), b["relu"][None]),
                           (Port("conv"), b["conv"][None]), (Port("filters_w"), b["w"]),
                           (Port("dense", 1), b["kernel"]), (Port("dense", 2), b["bias"])):
        np.testing.assert_allclose(handed[port].cotangent, expected, rtol=1e-4, atol=1e-6,
                                   err_msg=str(port))
    assert handed[Port("relu")].formula.startswith("grad_input = grad sent to the largest input")
    assert handed[Port("conv")].formula == "grad_conv = grad where conv > 0"
    assert handed[Port("filters_w")].formula.startswith("grad_filters = correlation of input")
    # max_pool routes each of its 36 cotangents to one of relu's 144 outputs
    assert np.count_nonzero(handed[Port("relu")].cotangent) == 36


# -- self-attention -------------------------------------------------------------------------------

def attention_numpy(doc, x=None):
    x = f64(doc, "tokens_x") if x is None else x
    wq, wk, wv = (f64(doc, k) for k in ("w_q", "w_k", "w_v"))
    q, k, v = x @ wq, x @ wk, x @ wv
    d = x.shape[1]
    a = softmax(q @ k.T / np.sqrt(d))
    return dict(x=x, q=q, k=k, v=v, a=a, out=a @ v, wq=wq, wk=wk, wv=wv, d=d)


def attention_backward(f):
    """The gradient of sum(out[3]) by hand, one path per projection."""
    n = f["a"].shape[0]
    g_out = np.zeros((n, f["v"].shape[1]))
    g_out[-1] = 1
    g_a = g_out @ f["v"].T
    g_v = f["a"].T @ g_out
    g_s = f["a"] * (g_a - (g_a * f["a"]).sum(axis=-1, keepdims=True))
    g_scores = g_s / np.sqrt(f["d"])
    g_q, g_k = g_scores @ f["k"], g_scores.T @ f["q"]
    return dict(a=g_a, v=g_v, s=g_s, q=g_q, k=g_k, via_q=g_q @ f["wq"].T,
                via_k=g_k @ f["wk"].T, via_v=g_v @ f["wv"].T)


def test_attention_matches_numpy_backprop_and_central_differences():
    doc = load("nets_6_attention")
    ev = graph.evaluate(doc)
    f = attention_numpy(doc)
    b = attention_backward(f)
    np.testing.assert_allclose(ev.values[Port("A")], f["a"], rtol=1e-5)
    np.testing.assert_allclose(ev.values[Port("out_3")], f["out"][-1], rtol=1e-5)
    g = ev.gradients[Port("tokens_x")]
    np.testing.assert_allclose(g, b["via_q"] + b["via_k"] + b["via_v"], rtol=1e-4, atol=1e-6)
    fd = central(lambda v: attention_numpy(doc, v)["out"][-1].sum(), f["x"])
    np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-6)


def test_the_attention_story_fans_in_three_paths_at_x():
    doc = load("nets_6_attention")
    s = story_of(doc)
    b = attention_backward(attention_numpy(doc))
    handed = {x.port: x for x in s.steps if x.kind == "contribution" and x.port != Port("tokens_x")}
    for node, key in (("A", "a"), ("V", "v"), ("S", "s"), ("Q", "q"), ("K", "k")):
        np.testing.assert_allclose(handed[Port(node)].cotangent, b[key], rtol=1e-4, atol=1e-6,
                                   err_msg=node)
    np.testing.assert_array_equal(handed[Port("Q")].cotangent[:-1], 0)  # only query 3 was used
    assert (np.abs(handed[Port("K")].cotangent).sum(axis=1) > 0).all()  # every key was compared
    assert handed[Port("A")].formula == "grad_A = grad @ Vᵀ"      # in the lesson's names
    # the softmax's Σ is per row (78e6d39: 'Σ grad·A' read as one sum over the whole matrix)
    assert handed[Port("S")].formula == "grad_S = A · (grad - Σ_j grad[i,j]·A[i,j]), per row i"
    assert handed[Port("K")].formula == "grad_K = gradᵀ @ Q"
    fan_in = next(x for x in s.steps if x.kind == "fan_in")
    assert fan_in.port == Port("tokens_x")
    labels = [label for label, _ in fan_in.terms]
    assert [label.split(" ")[0] for label in labels] == ["V", "K", "Q"]
    for (_, term), key in zip(fan_in.terms, ("via_v", "via_k", "via_q")):
        np.testing.assert_allclose(term, b[key], rtol=1e-4, atol=1e-6)
    assert s.steps[-1].kind == "accumulate"
    np.testing.assert_allclose(s.steps[-1].cotangent, fan_in.total)


# -- the numbers each lesson quotes ----------------------------------------------------------------

def _softmax_checks(name):
    doc = load(name)
    ev = graph.evaluate(doc)
    z, y = f64(doc, "logits"), f64(doc, "labels")
    p = softmax(z)
    if name == "nets_4_softmax_cross_entropy":
        g = p - y
        return [("logits = [2, 1, 0.1] and labels = [1, 0, 0] (class 0 is\nright)".replace(
                    "\n", " "), [*z[0], *y[0], 0]),
                ("One example, three classes", None),
                (f"exp(logits_j) = {row(p)}", r(p, 4)),
                (f"−log p_0 = {-np.log(p[0, 0]):.4g}", [0, r(-np.log(p[0, 0]), 4)[0]]),
                ("labels sum to 1", [np.sum(y)]), ("p_0", [0]),
                (f"p − labels = {row(g)}", r(g, 4)),
                ("it sums to 0", [0]), ("η·(1 − p_0)", [1, 0]),
                ("step 3 of the story", [3 if story_of(doc).steps[2].kind == "contribution"
                                         else None])]
    tiny = np.finfo(np.float32).smallest_subnormal
    fused = float(ev.values[Port("fused_cross_entropy")][0])
    assert np.exp(-120.0) < float(tiny) / 2                  # rounds to 0 in float32
    return [("logits = [0, 120, 119] and labels = [1, 0, 0]", [*z[0], *y[0]]),
            ("120 below the largest logit", [z.max() - z[0, 0]]),
            (f"exp(−120) ≈ {np.exp(-120.0):.2g}", [120, r(np.exp(-120.0), 2)[0]]),
            ("float32's smallest", [32]), (f"number, {tiny:.2g}", r(tiny, 2)),
            ("p_0 to exactly\n0".replace("\n", " "), [0, 0]),
            (f"p = {row(ev.values[Port('p')])}", r(p, 4)), ("log(0)", [0]),
            (f"true loss is\n{fused:.4g}".replace("\n", " "), r(cross_entropy(z, y), 4)),
            ("by 0", [0]), ("by p_0 = 0", [0, 0]), ("0 · (−inf)", [0]),
            (f"its value is {fused:.4g}", r(cross_entropy(z, y), 4)),
            (f"p − labels = {row(p - y)}", r(p - y, 4))]


def _cnn_checks():
    doc = load("nets_5_tiny_cnn")
    f = cnn_numpy(doc)
    b = cnn_backward(f)
    p = softmax(f["logits"])
    chosen = int(np.count_nonzero(b["relu"]))
    passed = int(np.count_nonzero(b["conv"]))
    x = f["x"]
    assert x[1:7, 3].min() == 1 and x[1:7, 4].max() == 0.5          # the vertical stroke
    # the steps the player counts (from 1): conv2d's filter rule, then the filters' gradient
    steps = [(s.kind, s.port) for s in story_of(doc).steps]
    rule = steps.index(("contribution", Port("filters_w"))) + 1
    gradient = steps.index(("accumulate", Port("filters_w"))) + 1
    assert gradient == rule + 1
    return [("An 8x8 image", [8, 8]), ("label class 0", [0]),
            ("four\n3x3 filters w (VALID: 6x6x4)".replace("\n", " "), [3, 3, 6, 6, 4]),
            ("a 2x2 max_pool (3x3x4)", [2, 2, 3, 3, 4]), ("reshaped to 36 numbers", [f["flat"].size]),
            ("Dense layer to 3 logits", [f["logits"].size]),
            (f"p =\n{row(p, 3)}".replace("\n", " "), r(p, 3)),
            (f"loss = {f['loss']:.4g}", r(f["loss"], 4)),
            (f"p − labels = {row(b['logits'], 3)}", r(b["logits"], 3)),
            ("to its 36\ninputs".replace("\n", " "), [b["flat"].size]),
            ("3x3x4. max_pool", [3, 3, 4]), ("2x2 window", [2, 2]),
            (f"{chosen} of\nrelu's 144 outputs".replace("\n", " "), [chosen, f["relu"].size]),
            (f"the other\n{144 - chosen} get 0".replace("\n", " "), [144 - chosen, 0]),
            (f"here at {passed} of those {chosen} places", [passed, chosen]),
            ("grad w[a, b, 0, f] = Σ_ij g[i, j, f]·x[i+a, j+b]", [0]),
            (f"Step {rule} draws that rule", [rule]),
            ("the 4 6x6 channels of g", [b["conv"].shape[2], *b["conv"].shape[:2]]),
            ("one 3x3 tile per output filter", list(b["w"].shape[:2])),
            ("out0 to out3", [0, b["w"].shape[3] - 1]),
            (f"Step {gradient} and the card", [gradient]), ("the same 4 tiles", [b["w"].shape[3]]),
            ("filter 2's (counting from 0)", [2, 0]),
            (f"column, {row(b['w'][:, 1, 0, 2], 3)}", r(b["w"][:, 1, 0, 2], 3)),
            ("pooled outputs of filter 2", [2]),
            (f"cotangents ({row(b['pool'][:, 1, 2], 3)}", r(b["pool"][:, 1, 2], 3)),
            ("makes filter 2", [2]), ("conv2d", [2]), ("puts the 36 numbers", [36])]


def _attention_checks():
    doc = load("nets_6_attention")
    f = attention_numpy(doc)
    b = attention_backward(f)
    a = f["a"]
    norms = {k: np.linalg.norm(b[f"via_{k}"], axis=1) for k in "qkv"}
    total = np.linalg.norm(b["via_q"] + b["via_k"] + b["via_v"], axis=1)
    big = int(np.argmax(total))
    assert big == int(np.argmax(a[-1]))          # the most attended token gets the most
    per_token = "; ".join(f"token {t}: {norms['q'][t]:.2g}, {norms['k'][t]:.2g}, "
                          f"{norms['v'][t]:.2g}" for t in range(4))
    per_values = [v for t in range(4) for v in [t] + [r(norms[k][t], 2)[0] for k in "qkv"]]
    assert norms["q"][:3].max() == 0
    assert f["x"].shape[0] == 4                  # "Four tokens"
    return [("Four tokens of 4 features", [f["x"].shape[1]]), ("x @ w_q", None), ("w_k", None),
            ("w_v", None), ("S = Q @ Kᵀ/√d with d = 4", [4]), ("out[3]", [3]),
            ("each of its 4\nentries with 1".replace("\n", " "), [4, 1]),
            (f"Row 3 of A, {row(a[-1], 3)}", [3] + r(a[-1], 3)),
            ("token 3 attends to tokens\n0 to 3".replace("\n", " "), [3, 0, 3]),
            ("nonzero in row 3 only", [3]), ("A[3, j]", [3]),
            (f"cotangent of S, {row(b['s'][-1], 3)}", r(b["s"][-1], 3)), ("sums to 0", [0]),
            ("1/√d", [1]), ("row 3 only (only token 3's query", [3, 3]),
            ("compared with query 3", [3]), (per_token, per_values), ("Only token 3", [3]),
            (f"token {big} receives the\nlargest gradient, norm {total[big]:.2g}".replace("\n", " "),
             [big, r(total[big], 2)[0]]),
            (f"A[3, {big}] =\n{a[-1, big]:.3g}".replace("\n", " "), [3, big, r(a[-1, big], 3)[0]]),
            ("weight of row 3", [3]), ("turns row 3", [3])]


def _layer_norm_checks():
    from gradviz.story import studies
    ln = studies.batch_jacobian_study(load("nets_7_layernorm_independent"))
    bn = studies.batch_jacobian_study(load("001_batchnorm_pitfall"))
    b, c = bn.location
    return [("(7 examples of 5 features)", [7, 5]),
            ("its own 8 features", [8]), ("layer1's output", [1]), ("11ᵀ/8", [11, 8]),
            ("ẑ[b]ẑ[b]ᵀ/8", [8]), ("is\n0".replace("\n", " "), [0]),
            ("(7, 6, 7, 5) Jacobian", ln.jacobian.shape),
            (f"has norm {ln.largest:g}, so", [ln.largest]),
            ("batch_jacobian's (7, 6, 5)", ln.batch_jacobian.shape),
            (f"differ by {ln.block_difference:.1g}", [ln.block_difference]),
            ("all 7 examples", [7]),
            (f"d layer2[{b}] / d x[{c}] has norm {bn.largest:.3g}", [2, b, c, r(bn.largest, 3)[0]]),
            (f"off by {bn.block_difference:.3g}", r(bn.block_difference, 3)),
            ("layer1", [1]), ("layer2", [2]), ("ln[b]", None), ("z[b]", None), ("σ[b]", None),
            ("ẑ[b]", None), ("J[b, :, b, :]", None), ("∂ln[b]/∂z[c], c ≠ b", None)]


def _embedding_checks():
    doc = load("nets_8_embedding")
    ids = doc.nodes["ids"].value
    g = doc.output_gradients[Port("lookup")]
    grad = graph.evaluate(doc).gradients[Port("embedding_table")]
    table = doc.nodes["embedding_table"].value
    untouched = [k for k in range(len(table)) if k not in ids]
    return [("An embedding table of 6 rows", [len(table)]), ("a 6-word vocabulary", [len(table)]),
            ("3 features each", [table.shape[1]]), (f"ids = {ids.tolist()}", ids),
            ("copies rows 2, 0, 2 and 5", ids), ("4 x 3 output", g.shape),
            ("output_gradients, has one row per looked-up word: " + str(g.astype(int).tolist()),
             g), ("ids[i] = r", None), ("g[i]", None), ("lookup[i]", None), ("ids[i]", None),
            ("Row 2 was looked up\ntwice".replace("\n", " "),
             [2] if list(ids).count(2) == 2 else None),
            (f"g[0] + g[2] = {grad[2].astype(int).tolist()}", [0, 2, *(g[0] + g[2])]),
            (f"row 0 receives g[1] =\n{grad[0].astype(int).tolist()}".replace("\n", " "),
             [0, 1, *g[1]]),
            (f"row 5 g[3] = {grad[5].astype(int).tolist()}", [5, 3, *g[3]]),
            (f"rows {untouched[0]}, {untouched[1]}\nand {untouched[2]}".replace("\n", " "),
             untouched if not grad[untouched].any() else None),
            ("receive exactly 0", [0]), ("the 4 upstream rows", [len(g)])]


def lesson_checks(name):
    """[(snippet of the lesson, the values its numbers must equal, or None for notation)]."""
    if name == "nets_7_layernorm_independent":
        return _layer_norm_checks()
    if name == "nets_8_embedding":
        return _embedding_checks()
    if name.startswith("nets_4_"):
        return _softmax_checks(name)
    if name == "nets_5_tiny_cnn":
        return _cnn_checks()
    if name == "nets_6_attention":
        return _attention_checks()
    raise AssertionError(f"no lesson checks for {name}")


# -- LayerNorm against BatchNorm -----------------------------------------------------------------

def elu(a):
    return np.where(a > 0, a, np.expm1(np.minimum(a, 0)))


def layer_norm_jacobian(z, gamma, eps):
    """∂ln/∂z of one example: diag(γ)·(I − 11ᵀ/n − ẑẑᵀ/n)/σ, in float64."""
    n = z.size
    sigma = np.sqrt(z.var() + eps)
    zhat = (z - z.mean()) / sigma
    return np.diag(gamma) @ (np.eye(n) - np.ones((n, n)) / n - np.outer(zhat, zhat) / n) / sigma


def test_layernorm_jacobian_is_block_diagonal_and_batchnorm_is_not():
    from gradviz.story import studies
    doc = load("nets_7_layernorm_independent")
    pitfall = load("001_batchnorm_pitfall")
    for nid in ("x", "layer1", "layer2"):       # the same input and draws as the seed's pitfall
        a, b = doc.nodes[nid], pitfall.nodes[nid]
        np.testing.assert_array_equal(a.value if nid == "x" else a.weights["kernel"],
                                      b.value if nid == "x" else b.weights["kernel"])
    ln = studies.batch_jacobian_study(doc)
    assert ln.jacobian.shape == (7, 6, 7, 5)
    off = ln.jacobian.copy()
    for b in range(7):
        off[b, :, b, :] = 0
    assert np.abs(off).max() == 0 and ln.largest == 0 and ln.block_difference == 0
    assert ln.warning == ""
    bn = studies.batch_jacobian_study(pitfall)
    assert bn.largest > 1 and bn.block_difference > 1 and bn.warning
    # the per-example Jacobian by hand: Dense(elu) → LayerNorm (closed form) → Dense(elu)
    x = f64(doc, "x")
    w1, w2 = (doc.nodes[k].weights for k in ("layer1", "layer2"))
    ln_node = doc.nodes["ln"]
    gamma, eps = ln_node.weights["gamma"].astype(np.float64), ln_node.attrs.get("epsilon", 0.001)
    for b in range(7):
        a1 = x[b] @ w1["kernel"] + w1["bias"]
        z = elu(a1)
        d1 = np.diag(np.where(a1 > 0, 1.0, np.exp(np.minimum(a1, 0)))) @ w1["kernel"].T
        j_ln = layer_norm_jacobian(z, gamma, eps)
        sigma = np.sqrt(z.var() + eps)
        a2 = (gamma * (z - z.mean()) / sigma) @ w2["kernel"] + w2["bias"]
        d2 = np.diag(np.where(a2 > 0, 1.0, np.exp(np.minimum(a2, 0)))) @ w2["kernel"].T
        np.testing.assert_allclose(ln.jacobian[b, :, b, :], d2 @ j_ln @ d1, rtol=1e-4, atol=1e-5)


def test_the_layernorm_story_uses_layernorms_rule():
    s = story_of(load("nets_7_layernorm_independent"))
    outer = [(x.kind, x.node) for x in s.steps if not x.internal]
    assert outer == [("seed", "layer2"), ("visit", "layer2"), ("contribution", "layer2"),
                     ("visit", "ln"), ("contribution", "ln"), ("visit", "layer1"),
                     ("contribution", "layer1"), ("accumulate", "x")]
    to_layer1 = next(x for x in s.steps if x.kind == "contribution" and x.port == Port("layer1"))
    assert "mean(ĝ" in to_layer1.formula and "ĝ = grad · γ" in to_layer1.formula
    g = next(x for x in s.steps if x.kind == "contribution" and x.port == Port("ln")).cotangent
    z = graph.evaluate(s.document).values[Port("layer1")].astype(np.float64)
    eps = s.document.nodes["ln"].attrs.get("epsilon", 0.001)
    expected = np.stack([g[b] @ layer_norm_jacobian(z[b], np.ones(8), eps) for b in range(7)])
    np.testing.assert_allclose(to_layer1.cotangent, expected, rtol=1e-4, atol=1e-5)


# -- the embedding lookup -------------------------------------------------------------------------

def test_embedding_gradients_land_on_the_looked_up_rows_summed_on_a_repeat():
    doc = load("nets_8_embedding")
    ev = graph.evaluate(doc)
    assert ev.problems == []
    ids = doc.nodes["ids"].value
    assert ids.dtype.kind == "i" and len(set(ids.tolist())) < len(ids)     # a repeat
    g = doc.output_gradients[Port("lookup")].astype(np.float64)
    table = f64(doc, "embedding_table")
    np.testing.assert_array_equal(ev.values[Port("lookup")], doc.nodes["embedding_table"].value[ids])
    expected = np.zeros_like(table)
    np.add.at(expected, ids, g)
    np.testing.assert_array_equal(ev.gradients[Port("embedding_table")], expected)
    # central differences of <g, table[ids]>, a linear function of the table
    fd = central(lambda t: float(np.sum(g * t[ids])), table, h=1e-3)
    np.testing.assert_allclose(ev.gradients[Port("embedding_table")], fd, atol=1e-9)
    s = story_of(doc)
    assert [(x.kind, x.node) for x in s.steps] == [
        ("seed", "lookup"), ("visit", "lookup"), ("contribution", "lookup"),
        ("accumulate", "embedding_table")]
    assert s.steps[0].given
    assert s.steps[2].formula == "grad_params = scatter-add of grad at the indices"
    np.testing.assert_array_equal(s.steps[2].cotangent, expected)
    p = s.provenance(Port("embedding_table"), 2 * 3 + 2)       # table[2, 2] = g[0, 2] + g[2, 2]
    assert float(p.value) == g[0, 2] + g[2, 2] == 5
    # the teacher's guide sends students here for the sum: both looked-up rows' terms show
    assert len(p.terms) == 2 and g[0, 2] and g[2, 2]
