"""The lessons on the networks a course teaches (issue 21 §2): softmax cross-entropy, a tiny
CNN, self-attention, LayerNorm against BatchNorm and an embedding lookup.

Each lesson's text quotes numbers computed here from the saved document;
tests/graph/test_course_lessons.py derives them again, independently.
"""
import numpy as np

from gradviz import story
from gradviz.graph import Port, evaluate, load
from gradviz.story import studies

from sample_doc import HERE, Doc, dense, glorot, lesson


def _load(name):
    return load(f"{HERE}/{name}.json")


def _lesson(d, name, targets, sources, text, **kw):
    d.doc.lesson = " ".join(text.split())
    d.finish(name, targets, sources, **kw)


def _row(values, digits=4):
    return "[" + ", ".join(f"{v:.{digits}g}" for v in np.ravel(values)) + "]"


# -- 1. softmax and cross-entropy -------------------------------------------------------------

CE_LOGITS, CE_LABELS = [[2.0, 1.0, 0.1]], [[1.0, 0.0, 0.0]]
GAP_LOGITS = [[0.0, 120.0, 119.0]]


def softmax_lessons():
    name = "nets_4_softmax_cross_entropy"
    d = Doc("Softmax cross-entropy: the gradient w.r.t. the logits is p − labels", "")
    d.const("labels", CE_LABELS)
    d.const("logits", CE_LOGITS, watched=True)
    d.op("cross_entropy", "nn.softmax_cross_entropy_with_logits", "labels", "logits",
         label="cross-entropy")
    d.op("softmax_logits", "nn.softmax", "logits", label="softmax(logits)")
    d.op("softmax_logits_labels", "subtract", "softmax_logits", "labels",
         label="softmax(logits) − labels")
    d.finish(name, ["cross_entropy"], ["logits"])
    ev = evaluate(d.doc)
    p, ce = ev.values[Port("softmax_logits")], ev.values[Port("cross_entropy")]
    g = ev.gradients[Port("logits")]
    _lesson(d, name, ["cross_entropy"], ["logits"], f"""
        One example, three classes: logits = [2, 1, 0.1] and labels = [1, 0, 0] (class 0 is
        right). softmax turns the logits into probabilities, p_k = exp(logits_k) / Σ_j
        exp(logits_j) = {_row(p)}, and the cross-entropy is −Σ_k labels_k · log p_k =
        −log p_0 = {float(ce[0]):.4g}. Since log p_k = logits_k − log Σ_j exp(logits_j) and the
        labels sum to 1, CE = log Σ_j exp(logits_j) − Σ_k labels_k · logits_k, and its
        derivative w.r.t. logits_k is exp(logits_k) / Σ_j exp(logits_j) − labels_k = p_k −
        labels_k. So the gradient is p − labels = {_row(g)}: it sums to 0, a gradient step
        raises the right class's logit by η·(1 − p_0) and lowers each wrong one by η·p_k. The
        cards softmax(logits) and softmax(logits) − labels show p and p − labels beside the
        loss; step 3 of the story gets the same rows from the fused op's rule grad · (p −
        labels). {lesson("nets_4_softmax_then_log", start=True)}, shows why the fused op
        exists.""")

    name = "nets_4_softmax_then_log"
    d = Doc("softmax, then log: an underflow the fused cross-entropy avoids", "")
    d.const("labels", CE_LABELS)
    d.const("logits", GAP_LOGITS, watched=True)
    d.op("p", "nn.softmax", "logits")
    d.op("log_p", "log", "p")
    d.op("labels_log_p", "multiply", "labels", "log_p")
    d.op("sum_labels_log_p", "reduce_sum", "labels_log_p", axis=None, keepdims=False)
    d.op("ce", "negative", "sum_labels_log_p")
    d.op("fused_cross_entropy", "nn.softmax_cross_entropy_with_logits", "labels", "logits",
         label="fused cross-entropy")
    d.finish(name, ["ce"], ["logits"])
    ev = evaluate(d.doc)
    p, fused = ev.values[Port("p")], float(ev.values[Port("fused_cross_entropy")][0])
    rule = _rule(story.build(d.doc).steps, "logits")
    tiny = np.finfo(np.float32).smallest_subnormal
    _lesson(d, name, ["ce"], ["logits"], f"""
        The same loss built from its parts, with logits = [0, 120, 119] and labels = [1, 0, 0].
        The right class is 120 below the largest logit, and exp(−120) ≈ {np.exp(-120.0):.2g} is
        far below float32's smallest positive number, {tiny:.2g}: softmax rounds p_0 to exactly
        0, p = {_row(p)}. log(0) = −inf (the card log_p is marked as the first NaN or
        infinity), so ce = {float(ev.values[Port("ce")])} where the true loss is
        {fused:.4g}. The backward pass is worse: log's rule grad / p divides by 0 and gives
        −inf, and softmax's rule {rule}, multiplies that −inf by p_0 = 0 inside the sum,
        0 · (−inf) = NaN, so the gradient w.r.t. the logits is
        {_row(ev.gradients[Port("logits")])}. The fused op (the card fused cross-entropy) never
        forms p: it computes log p = logits − max − log Σ exp(logits − max), finite for any
        gap, so its value is {fused:.4g} and its gradient is p − labels = {_row(p - CE_LABELS)}
        (make it the target in the Inspector to play its story). nn.log_softmax is stable for
        the same reason.""")


# -- 2. a tiny CNN ------------------------------------------------------------------------------

def cnn_image(rng):
    """An 8x8 image of a vertical stroke (column 3 bright, column 4 half) over faint noise, the
    class 'vertical'. The noise keeps max_pool's windows free of ties."""
    x = np.round(rng.uniform(0.0, 0.2, (8, 8)), 2)
    x[1:7, 3] = 1.0
    x[1:7, 4] = 0.5
    return x.reshape(1, 8, 8, 1)


def cnn_lesson():
    name = "nets_5_tiny_cnn"
    rng = np.random.default_rng(2105)
    d = Doc("A tiny CNN: the backward pass through conv2d, relu, max_pool and a dense layer", "")
    d.const("image_x", cnn_image(rng), label="image x")
    d.var("filters_w", rng.normal(0.0, np.sqrt(2.0 / 9.0), (3, 3, 1, 4)), label="filters w")
    d.op("conv", "nn.conv2d", "image_x", "filters_w", strides=[1, 1], padding="VALID",
         dilations=[1, 1])
    d.op("relu", "nn.relu", "conv")
    d.op("pool", "nn.max_pool2d", "relu", ksize=[2, 2], strides=[2, 2], padding="VALID")
    d.op("flat", "reshape", "pool", shape=[1, 36])
    d.layer("dense", "Dense", "flat", dense(rng, 36, 3), units=3)
    d.const("labels_vertical", [[1.0, 0.0, 0.0]], label="labels (vertical)")
    d.op("loss", "nn.softmax_cross_entropy_with_logits", "labels_vertical", "dense", label="loss")
    sources = ["filters_w", "dense:1", "dense:2"]
    d.finish(name, ["loss"], sources)
    ev = evaluate(d.doc)
    p = _softmax(ev.values[Port("dense")])
    steps = story.build(d.doc).steps
    to_pool = _handed(steps, "pool")[0]
    to_conv = _handed(steps, "conv")[0]
    chosen = np.count_nonzero(_handed(steps, "relu")[0])
    passed = np.count_nonzero(to_conv)
    gw = ev.gradients[Port("filters_w")][:, 1, 0, 2]
    filters_w = Port("filters_w")
    rule = 1 + next(k for k, s in enumerate(steps) if s.kind == "contribution" and s.port == filters_w)
    grad = 1 + next(k for k, s in enumerate(steps) if s.kind == "accumulate" and s.port == filters_w)
    h, w_, _, filters = ev.gradients[Port("filters_w")].shape
    g_h, g_w = to_pool.shape[1] * 2, to_pool.shape[2] * 2
    _lesson(d, name, ["loss"], sources, f"""
        An 8x8 image of a vertical stroke, label class 0 (vertical), through conv2d with four
        3x3 filters w (VALID: 6x6x4), relu, a 2x2 max_pool (3x3x4), reshaped to 36 numbers, a
        Dense layer to 3 logits and softmax cross-entropy. The untrained network gives p =
        {_row(p, 3)} and loss = {float(ev.values[Port("loss")][0]):.4g}. Backward, layer by
        layer: the loss sends p − labels = {_row(p - CE_LABELS, 3)} to the logits
        ({lesson("nets_4_softmax_cross_entropy")}); the Dense layer sends (p − labels) @ kernelᵀ to its 36
        inputs and flatᵀ @ (p − labels) to its kernel; reshape puts the 36 numbers back as
        3x3x4. max_pool sends each one to the largest input of its 2x2 window: {chosen} of
        relu's {to_pool.size * 4} outputs receive a cotangent, the other
        {to_pool.size * 4 - chosen} get 0. relu passes it where the conv output is positive,
        here at {passed} of those {chosen} places. conv2d's filter rule then correlates the
        image with that sparse cotangent g: grad w[a, b, 0, f] = Σ_ij g[i, j, f]·x[i+a, j+b].
        Step {rule} draws that rule: the image, the {filters} {g_h}x{g_w} channels of g, and
        their correlation, one {h}x{w_} tile per output filter (out0 to out{filters - 1}, each
        tap where it lies on the image; positive is red or orange, as the theme draws it,
        negative blue). Step {grad} and the card filters w show the gradient as the same
        {filters} tiles: filter 2's (counting from 0) has a positive middle column,
        {_row(gw, 3)}, because the pooled outputs of filter 2 over
        the stroke receive positive cotangents ({_row(to_pool[0, :, 1, 2], 3)}: raising them
        raises the loss), so a step w ← w − η·grad makes filter 2 answer a vertical stroke
        less.""")


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _handed(steps, node):
    """The cotangents the story hands to `node`'s output (its contribution steps)."""
    return [s.cotangent for s in steps if s.kind == "contribution" and s.port == Port(node)]


def _rule(steps, node):
    """The rule of the one contribution the story hands to `node`, as its card writes it
    (the right side: 'A · (grad - Σ_j grad[i,j]·A[i,j]), per row i'), for a lesson to quote."""
    rule, = {s.rule for s in steps if s.kind == "contribution" and s.port == Port(node)}
    return rule.right


# -- 4. self-attention, one head ------------------------------------------------------------

TOKENS, D_MODEL = 4, 4


def attention_lesson():
    name = "nets_6_attention"
    rng = np.random.default_rng(2106)
    d = Doc("Self-attention, one head: where each token's gradient comes from", "")
    d.const("tokens_x", np.round(rng.normal(size=(TOKENS, D_MODEL)), 2), watched=True,
            label="tokens x")
    for w in ("w_q", "w_k", "w_v"):
        d.var(w, np.round(rng.normal(0.0, 1.0 / np.sqrt(D_MODEL), (D_MODEL, D_MODEL)), 2))
    d.op("Q", "matmul", "tokens_x", "w_q", label="Q")
    d.op("K", "matmul", "tokens_x", "w_k", label="K")
    d.op("V", "matmul", "tokens_x", "w_v", label="V")
    d.op("QKT", "matmul", "Q", "K", transpose_b=True, label="QKᵀ")
    d.const("n_1_d", 1.0 / np.sqrt(D_MODEL), label="1/√d")
    d.op("S", "multiply", "QKT", "n_1_d", label="S")
    d.op("A", "nn.softmax", "S", axis=-1, label="A")
    d.op("out", "matmul", "A", "V", label="out")
    d.op("out_3", "getitem", "out", index=[TOKENS - 1], label="out[3]")
    d.finish(name, ["out_3"], ["tokens_x"])
    ev = evaluate(d.doc)
    a = ev.values[Port("A")]
    steps = story.build(d.doc).steps
    to_s = _handed(steps, "S")[0][TOKENS - 1]
    paths = attention_paths(steps)
    norms = {k: np.linalg.norm(v, axis=1) for k, v in paths.items()}
    total = np.linalg.norm(ev.gradients[Port("tokens_x")], axis=1)
    big = int(np.argmax(total))
    per_token = "; ".join(
        f"token {t}: {norms['q'][t]:.2g}, {norms['k'][t]:.2g}, {norms['v'][t]:.2g}"
        for t in range(TOKENS))
    _lesson(d, name, ["out_3"], ["tokens_x"], f"""
        Four tokens of 4 features (the rows of x) and one attention head: Q = x @ w_q, K = x @
        w_k, V = x @ w_v, S = Q @ Kᵀ/√d with d = 4, A = softmax(S) row by row, out = A @ V.
        The target is out[3], the last token's output; tape.gradient seeds each of its 4
        entries with 1. Row 3 of A, {_row(a[TOKENS - 1], 3)}, is how much token 3 attends to tokens
        0 to 3. Backward: out = A @ V sends grad @ Vᵀ to A, nonzero in row 3 only, and Aᵀ @
        grad to V: row j of V's cotangent is A[3, j] in every entry, each token's value is
        blamed in proportion to its attention. softmax's rule {_rule(steps, "S")}, turns row 3
        into the cotangent of S, {_row(to_s, 3)}, which sums to 0; the 1/√d multiply halves it.
        Q @ Kᵀ sends grad @ K to Q, row 3 only (only token 3's query was used), and gradᵀ @ Q
        to K, every row (every key was compared with query 3). The three paths meet at x in the
        fan-in step, which sums them. The norms of each token's gradient via its query, its key
        and its value: {per_token}. Only token 3 has a query path; token {big} receives the
        largest gradient, norm {total[big]:.2g}, through its value and its key: A[3, {big}] =
        {a[TOKENS - 1, big]:.3g} is the largest weight of row 3.""")


def attention_paths(steps):
    """The three contributions the fan-in at x sums, by the projection they came through."""
    fan_in = next(s for s in steps if s.kind == "fan_in" and s.port == Port("tokens_x"))
    return {label.split(" ")[0].lower(): np.asarray(t) for label, t in fan_in.terms}


# -- 5. LayerNorm against BatchNorm ------------------------------------------------------------

def layer_norm_lesson():
    """Seed 001's BatchNormalization pitfall with LayerNormalization in BatchNorm's place: the
    same input, the same draws (rng 1004), the same studies."""
    name = "nets_7_layernorm_independent"
    rng = np.random.default_rng(1004)
    d = Doc("LayerNormalization keeps the examples independent; BatchNormalization does not", "")
    d.const("x", rng.normal(size=(7, 5)), watched=True)
    d.layer("layer1", "Dense", "x", dense(rng, 5, 8), units=8, activation="elu")
    d.layer("ln", "LayerNormalization", "layer1", {"gamma": np.ones(8), "beta": np.zeros(8)})
    d.layer("layer2", "Dense", "ln", dense(rng, 8, 6), units=6, activation="elu")
    kw = dict(persistent=True, watch_accessed_variables=False,
              studies={"batch_jacobian": {"target": "layer2", "source": "x"},
                       "jacobian": {"target": "layer2", "source": "x"}})
    d.finish(name, ["layer2"], ["x"], **kw)
    ln = studies.batch_jacobian_study(d.doc)
    bn = studies.batch_jacobian_study(_load("001_batchnorm_pitfall"))
    b, c = bn.location
    _lesson(d, name, ["layer2"], ["x"], f"""
        This is {lesson("001_batchnorm_pitfall")}, with LayerNormalization where
        BatchNormalization was: the same x
        (7 examples of 5 features), the same Dense layers, the same studies. LayerNorm
        normalises each example over its own 8 features: with z = layer1's output, ln[b] = γ ·
        ẑ[b] + β, ẑ[b] = (z[b] − mean(z[b])) / σ[b], σ[b] = √(var(z[b]) + ε), so output row b
        depends on input row b only. Its Jacobian for one example is ∂ln[b]/∂z[b] = diag(γ) ·
        (I − 11ᵀ/8 − ẑ[b]ẑ[b]ᵀ/8) / σ[b], and every cross-example block ∂ln[b]/∂z[c], c ≠ b,
        is 0. Open the Batch Jacobian view: in the (7, 6, 7, 5) Jacobian
        the largest off-diagonal block has norm {ln.largest:g}, so batch_jacobian's (7, 6, 5)
        equals the per-example blocks J[b, :, b, :] (they differ by {ln.block_difference:.1g}).
        BatchNorm in training mode normalises each feature over the batch, mean and variance
        of all 7 examples, so every output row depends on every input row: in
        {lesson("001_batchnorm_pitfall")}, the block d layer2[{b}] / d x[{c}] has norm {bn.largest:.3g},
        and batch_jacobian is off by {bn.block_difference:.3g}. Open the two lessons side by
        side: the same picture, one block-diagonal, one not.""", **kw)


# -- 6. an embedding lookup -------------------------------------------------------------------

EMBED_IDS = [2, 0, 2, 5]
EMBED_UPSTREAM = [[1, 0, 2], [0, 2, 0], [0, 0, 3], [1, 1, 1]]   # table[2, 2] = 2 + 3: two terms


def embedding_lesson():
    name = "nets_8_embedding"
    rng = np.random.default_rng(2108)
    d = Doc("An embedding lookup: gradients land only on the looked-up rows, summed on a repeat",
            "")
    d.var("embedding_table", np.round(rng.normal(size=(6, 3)), 2), label="embedding table")
    d.const("ids", EMBED_IDS, dtype=np.int64)
    d.op("lookup", "nn.embedding_lookup", "embedding_table", "ids")
    og = {"lookup": EMBED_UPSTREAM}
    d.finish(name, ["lookup"], ["embedding_table"], output_gradients=og)
    g = evaluate(d.doc).gradients[Port("embedding_table")].astype(int)
    untouched = [r for r in range(len(g)) if not g[r].any()]
    _lesson(d, name, ["lookup"], ["embedding_table"], f"""
        An embedding table of 6 rows (one per word of a 6-word vocabulary), 3 features each.
        embedding_lookup(table, ids) with ids = {EMBED_IDS} copies rows 2, 0, 2 and 5 into a
        4 x 3 output: lookup[i] = table[ids[i]]. The upstream cotangent g, given as
        output_gradients, has one row per looked-up word: {EMBED_UPSTREAM}. The rule is a
        scatter-add: grad table[r] = Σ over the i with ids[i] = r of g[i]. Row 2 was looked up
        twice, so it receives g[0] + g[2] = {g[2].tolist()}; row 0 receives g[1] =
        {g[0].tolist()}, row 5 g[3] = {g[5].tolist()}, and rows {untouched[0]}, {untouched[1]}
        and {untouched[2]}, never looked up, receive exactly 0: a step of gradient descent
        leaves them as they are. ids has no gradient (integers). TensorFlow returns this
        gradient as tf.IndexedSlices, the 4 upstream rows with their ids, which sum the same
        way when made dense; the table here is that dense sum.""", output_gradients=og)


LESSONS = (softmax_lessons, cnn_lesson, attention_lesson, layer_norm_lesson, embedding_lesson)
