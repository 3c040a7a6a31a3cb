"""Writes the sample documents (run from the repository root: python samples/build_samples.py).

Each sample is the seed's example as a document; the seed's own numbers are used
where it gives them, and random inputs come from fixed numpy seeds, stored as values.
"""
import os

import numpy as np

import sample_doc  # noqa: F401  first: it puts the repository root on sys.path (a sibling script)
from gradviz import story  # noqa: E402
from gradviz.graph import CONSTANT, LAYER, VARIABLE, Node, Port, evaluate, load  # noqa: E402
from gradviz.graph.gradient_check import gradient_check  # noqa: E402
from gradviz.graph.training import Trainer, make_optimizer  # noqa: E402

import build_nets  # noqa: E402
from sample_doc import F32, HERE, Doc, dense, glorot, lesson  # noqa: E402


MAT = [[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
       [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]]
ANOTHER = [[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
           [1.4204658, 1.2609464, -0.43640924]]


def seed_004():
    d = Doc("The gradient of y = t @ b sums over y's elements", """
        tape.gradient(y_tf, tf_t) seeds every element of y_tf with 1, so it is the gradient of
        sum(y_tf): each tf_t[i, j] multiplies the whole row tf_b[j, :], and its gradient is that
        row's sum. Every row of the answer is [-0.17307831, 1.1900724, 2.245003], the row sums
        of tf_b. The gradient of the single element y_tf[0, 0] is another thing: the first
        column of tf_b in row 0 and zeros below, whose entries add up to only 3.424693.""")
    d.var("tf_t", MAT, watched=True)
    d.var("tf_b", ANOTHER)
    d.op("y_tf", "matmul", "tf_t", "tf_b")
    d.finish("004_matmul_sum", ["y_tf"], ["tf_t"])

    d = Doc("One element: the gradient of y_tf[0, 0]", """
        Differentiating the single element y_tf[0, 0] sends a cotangent that is 1 at [0, 0] and
        0 elsewhere back through the slice; MatMul's rule grad @ tf_bᵀ turns it into the first
        column of tf_b placed in row 0: [0.43842274, 1.5658046, 1.4204658], zeros below.""")
    d.var("tf_t", MAT, watched=True)
    d.var("tf_b", ANOTHER)
    d.op("y_tf", "matmul", "tf_t", "tf_b")
    d.op("y_t0", "getitem", "y_tf", index=[0, 0])
    d.finish("004_single_element", ["y_t0"], ["tf_t"])


A = [[1, 2], [3, 4]]
B = [[6, 7, 8], [9, 10, 11]]


def seed_003():
    d = Doc("MatMul's registered gradient", """
        The gradient function of MatMul receives grad, the cotangent of c, and returns
        grad @ bᵀ for a. With the all-ones seed of tape.gradient(c, a) that is
        ones @ bᵀ = [[21, 30], [21, 30]]: the gradient at a[i, k] is the sum of row k of b,
        because a[i, k] multiplies every entry of that row.""")
    d.const("a", A, watched=True)
    d.const("b", B)
    d.op("c", "matmul", "a", "b")
    d.finish("003_matmul_gradient", ["c"], ["a"])

    d = Doc("c * stop_gradient(c) seeds MatMul with c", """
        stop_gradient(c) is a constant to the backward pass, so the cotangent reaching c is
        the value of c itself: the gradient equals matmul_grad(c.op, c) = c @ bᵀ =
        [[573, 816], [1295, 1844]]. output_gradients=c on tape.gradient(c, a) gives the same.""")
    d.const("a", A, watched=True)
    d.const("b", B)
    d.op("c", "matmul", "a", "b")
    d.op("c_stopped", "stop_gradient", "c")
    d.op("cc", "multiply", "c", "c_stopped")
    d.finish("003_stop_gradient_product", ["cc"], ["a"])


def seed_002():
    d = Doc("output_gradients is the v of a vector-Jacobian product", """
        With output_gradients=vec, tape.gradient(y, x) returns vec · dy/dx instead of
        ones · dy/dx: for y = x * x and vec = [2, 3] that is [2·2·1, 3·2·2] = [4, 12], in one
        backward pass and without forming the Jacobian.""")
    d.const("x", [1.0, 2.0], watched=True)
    d.op("y", "multiply", "x", "x")
    d.finish("002_vjp_output_gradients", ["y"], ["x"], output_gradients={"y": [2.0, 3.0]})

    d = Doc("The gradient by parts: dloss/dx = dloss/dout · dout/dx", """
        tape.gradient(out, x) sums over the 5 elements of out, so it has the shape of x,
        (1, 10), and cannot be multiplied with dloss/dout, shape (1, 5), to give dloss/dx.
        The chain rule needs the Jacobian dout/dx (the jacobian study here, shape
        (1, 5, 1, 10)); contracted with dloss/dout = 2 everywhere (the gradient w.r.t. the
        source 'out') it equals dloss/dx = 5 everywhere.""")
    d.const("x", np.ones((1, 10)), watched=True)
    d.var("w", np.full((10, 5), 0.5))
    d.const("out_target", np.zeros(5))
    d.op("out", "matmul", "x", "w")
    d.op("diff", "subtract", "out", "out_target")
    d.op("sq", "square", "diff")
    d.op("loss", "reduce_mean", "sq")
    d.finish("002_gradient_by_parts", ["loss"], ["x", "out"],
             studies={"jacobian": {"target": "out", "source": "x"}})

    rng = np.random.default_rng(2002)
    d = Doc("A black-box F with an externally supplied gradient", """
        The network's output net feeds a function F the tape cannot see (hardware, another
        program): L = F(net). If dL/dnet is measured or approximated outside, pass it as
        output_gradients for net: tape.gradient(net, [net.kernel, net.bias],
        output_gradients=approx) is then exactly dL/dnet.kernel and dL/dnet.bias by the chain
        rule, here xᵀ @ approx for the kernel of the linear Dense layer net.""")
    d.const("x", rng.normal(size=(4, 3)))
    d.layer("net", "Dense", "x", dense(rng, 3, 2), units=2)
    d.finish("002_black_box_gradient", ["net"], ["net:1", "net:2"],
             output_gradients={"net": rng.normal(size=(4, 2))})


def _xy(title, lesson):
    d = Doc(title, lesson)
    d.var("x", 2.0)
    d.var("y", 3.0)
    return d


def seed_001():
    d = _xy("stop_recording: ops in the region are not on the tape", """
        y_sq = y * y is computed inside tape.stop_recording(), so the tape never sees it:
        z = x_sq + y_sq gives dz/dx = 2x = 4, and dz/dy is None (not zero: unconnected).""")
    d.op("x_sq", "multiply", "x", "x")
    d.op("y_sq", "multiply", "y", "y")
    d.op("z", "add", "x_sq", "y_sq")
    d.finish("001_stop_recording", ["z"], ["x", "y"], stop_recording=["y_sq"])

    d = _xy("reset: forget what was recorded so far", """
        tape.reset() throws away everything recorded before it. A document has one tape, so
        the ops recorded before the reset (y_sq = y * y) are shown in a stop_recording region:
        for the gradient that is the same thing, y_sq reaches z as a constant. dz/dx = 4 and
        dz/dy is None, as with tape.reset().""")
    d.op("y_sq_before_reset", "multiply", "y", "y", label="y_sq (before reset)")
    d.op("x_sq", "multiply", "x", "x")
    d.op("z", "add", "x_sq", "y_sq_before_reset")
    d.finish("001_reset", ["z"], ["x", "y"], stop_recording=["y_sq_before_reset"])

    d = _xy("stop_gradient cuts one path precisely", """
        tf.stop_gradient needs no access to the tape: z = x**2 + stop_gradient(y**2) records
        everything, but no gradient passes the StopGradient op. dz/dx = 4, dz/dy = None.""")
    d.const("two", 2.0)
    d.op("y_sq", "pow", "y", "two")
    d.op("x_sq", "pow", "x", "two")
    d.op("y_sq_stopped", "stop_gradient", "y_sq")
    d.op("z", "add", "x_sq", "y_sq_stopped")
    d.finish("001_stop_gradient", ["z"], ["x", "y"])

    d = Doc("A custom gradient clips the cotangent", """
        clip_gradients is the identity forward, but its backward rule is
        clip_by_norm(dy, 0.5): the seed cotangent 1 arriving at the custom node leaves it as
        0.5, and v * v turns that into 0.5 · 2v = 2.0 (without the clip it would be 4). The
        rule is declarative (a name and clip_norm), so a file never carries code.""")
    d.var("v", 2.0)
    d.op("vv", "multiply", "v", "v")
    d.custom("clip_gradients", "clip_by_norm", "vv", label="clip_gradients", clip_norm=0.5)
    d.finish("001_clip_gradient", ["clip_gradients"], ["v"])

    d = Doc("Two tapes, each watching its own tensor", """
        With two tapes, tape0 watches x0 and tape1 watches x1, and each gives the gradient of
        ys w.r.t. its own tensor: cos(0) = 1.0 and sigmoid'(0) = 0.25. Tapes are independent,
        so one tape watching both, with both as sources, gives the same two numbers; the
        document shows that single tape.""")
    d.const("x0", 0.0, watched=True)
    d.const("x1", 0.0, watched=True)
    d.op("y0", "sin", "x0")
    d.op("y1", "nn.sigmoid", "x1")
    d.op("y", "add", "y0", "y1")
    d.op("ys", "reduce_sum", "y")
    d.finish("001_two_tapes", ["ys"], ["x0", "x1"])

    d = Doc("Higher order: the gradient of a gradient", """
        y = x·x·x with x = 1.5: xx = x·x = 2.25 and y = xx·x = 3.375. The inner gradient
        dy/dx = 3x² = 6.75 is computed while the outer tape records: it adds three paths, one
        through y's second factor, ∂y/∂y·xx = 2.25, and one through each factor of xx,
        ∂y/∂xx·x = 1.5·1.5 = 2.25 (∂y/∂xx = ∂y/∂y·x = 1.5, which equals x because y = xx·x).
        Those backward ops are themselves recorded, and the story steps through them inside
        the 'gradient' node, the inner tape.gradient(y, x): differentiating dy/dx again gives
        d²y/dx² = 6x = 9, at x the sum of five paths, 1.5 four times and 3 once.""")
    d.var("x", 1.5)
    d.op("xx", "multiply", "x", "x")
    d.op("y", "multiply", "xx", "x")
    d.op("t1_gradient_y_x", "gradient", "y", "x", label="t1.gradient(y, x)")
    d.finish("001_higher_order", ["t1_gradient_y_x"], ["x"],
             studies={"higher_order": {"target": "y", "source": "x", "order": 2}})

    rng = np.random.default_rng(1001)
    d = Doc("Input gradient regularization", """
        The inner gradient t1.gradient(out, x) = ∂out/∂x (out is a scalar) is a function of
        the layer's weights; its norm g1_mag is a scalar the outer tape differentiates w.r.t.
        the kernel and bias (shapes [5, 10] and [10]). Small input gradients make the output less sensitive to adversarial changes.
        y_sq is square(layer), not layer ** 2: the Hessian differentiates the squaring three
        times, and Pow's rule (TF's) then computes 0 · 0^(-1) = 0 · ∞ = NaN wherever relu's
        output is 0; square's rule 2x has finite derivatives everywhere.""")
    d.const("x", rng.normal(size=(7, 5)))
    d.layer("layer", "Dense", "x", dense(rng, 5, 10), units=10, activation="relu")
    d.op("y_sq", "square", "layer")
    d.op("out", "reduce_sum", "y_sq")
    d.op("t1_gradient_out_x", "gradient", "out", "x", label="t1.gradient(out, x)")
    d.op("g1_mag", "norm", "t1_gradient_out_x")
    d.finish("001_input_gradient_regularization", ["g1_mag"], ["layer:1", "layer:2"])

    d = Doc("Jacobian of sigmoid(x + delta) w.r.t. a scalar delta", """
        With a scalar source the Jacobian has the target's shape (201,): element i is
        sigmoid'(x_i + delta), the bell curve, 0.25 at its peak. tape.gradient would instead
        give one number, the sum of that curve: 9.999137. The Hessian tab shows H = 0, and
        not because anything is linear: ∂²Σy/∂delta² = Σ sigmoid''(x_i + delta), sigmoid'' is
        odd (sigmoid''(−t) = −sigmoid''(t)) and x is symmetric around 0, so at delta = 0 the
        terms cancel in pairs. Σy curves on both sides: delta = 0 is an inflection point,
        where the gradient, the sum of the bell curve, is largest.""")
    d.const("x", np.linspace(-10.0, 10.0, 201))
    d.var("delta", 0.0)
    d.op("x_plus_delta", "add", "x", "delta")
    d.op("y", "nn.sigmoid", "x_plus_delta")
    d.finish("001_sigmoid_jacobian", ["y"], ["delta"],
             studies={"jacobian": {"target": "y", "source": "delta"}})

    rng = np.random.default_rng(1002)
    d = Doc("The Jacobian of a Dense layer w.r.t. its kernel", """
        The output of layer has shape (7, 10) and its kernel layer.kernel (5, 10), so the
        Jacobian has shape (7, 10, 5, 10). Summing it over the target's axes gives back
        tape.gradient(layer, layer.kernel): the gradient is the Jacobian contracted with a
        vector of ones.""")
    d.const("x", rng.normal(size=(7, 5)))
    d.layer("layer", "Dense", "x", dense(rng, 5, 10), units=10, activation="relu")
    d.finish("001_dense_jacobian", ["layer"], ["layer:1"], persistent=True,
             studies={"jacobian": {"target": "layer", "source": "layer:1"}})

    rng = np.random.default_rng(1003)
    d = Doc("The Hessian of a loss w.r.t. a kernel, and a Newton step", """
        The outer tape takes the Jacobian of the inner gradient g = dloss/dkernel, giving a
        (5, 8, 5, 8) Hessian; flattened to 40 x 40 it is symmetric. Its eigenvalues run from
        0 (within rounding: the smallest are noise, below 1e-6 × the largest, and their
        digits differ from one CPU to another) to 0.78, so H is positive semi-definite and
        singular; the Newton update therefore solves (H + 0.001·I) u = g and is reshaped
        like the kernel.""")
    d.const("x", rng.normal(size=(7, 5)))
    d.layer("layer1", "Dense", "x", dense(rng, 5, 8), units=8, activation="relu")
    d.layer("layer2", "Dense", "layer1", dense(rng, 8, 6), units=6, activation="relu")
    d.const("two", 2.0)
    d.op("sq", "pow", "layer2", "two")
    d.op("loss", "reduce_mean", "sq")
    d.finish("001_hessian_newton", ["loss"], ["layer1:1"],
             studies={"hessian": {"target": "loss", "source": "layer1:1", "newton_eps": 0.001}})

    for name, bn in (("001_batch_jacobian", False), ("001_batchnorm_pitfall", True)):
        rng = np.random.default_rng(1004)
        if bn:
            d = Doc("BatchNormalization breaks batch_jacobian's assumption", """
                In training mode BatchNormalization normalises with the batch's own mean and
                variance, so every output row depends on every input row: the (batch, batch)
                slices of the full (7, 6, 7, 5) Jacobian are not diagonal (the largest
                off-diagonal block, d layer2[3] / d x[6], has norm 1.14). batch_jacobian still
                returns a (7, 6, 5) array, the full Jacobian summed over the target's batch
                axis as always, but that is no longer one Jacobian per example: it differs
                from the diagonal blocks J[b, :, b, :] by up to 1.27.""")
        else:
            d = Doc("batch_jacobian: one Jacobian per example", """
                The full Jacobian of layer2 (7, 6) w.r.t. x (7, 5) is (7, 6, 7, 5), and every
                (batch, batch) slice is diagonal because examples are independent.
                batch_jacobian returns only the diagonal blocks, shape (7, 6, 5): TF computes
                it as the full Jacobian summed over the target's batch axis, and that sum keeps
                the diagonal blocks because every other block is zero.""")
        d.const("x", rng.normal(size=(7, 5)), watched=True)
        d.layer("layer1", "Dense", "x", dense(rng, 5, 8), units=8, activation="elu")
        last = "layer1"
        if bn:
            d.layer("bn", "BatchNormalization", "layer1",
                    {"gamma": np.ones(8), "beta": np.zeros(8), "moving_mean": np.zeros(8),
                     "moving_variance": np.ones(8)}, training=True)
            last = "bn"
        d.layer("layer2", "Dense", last, dense(rng, 8, 6), units=6, activation="elu")
        d.finish(name, ["layer2"], ["x"], persistent=True, watch_accessed_variables=False,
                 studies={"batch_jacobian": {"target": "layer2", "source": "x"},
                          "jacobian": {"target": "layer2", "source": "x"}})


def seed_000():
    rng = np.random.default_rng(1000)
    d = Doc("The Hessian of a layer", """
        Reverse mode assumes a scalar at the end: along the chain kernel → matmul → add →
        square → mean (6 → 12 → 12 → 12 → 1 elements) it multiplies a vector by each
        Jacobian, 360 multiply-adds against 1,800 for forward mode's matrix products. A
        Hessian is the Jacobian of a gradient; for a linear layer and loss = mean(y²) over
        N elements it has a closed form, H[i, j, k, l] = 2/N · Σ_b x[b, i] x[b, k] δ(j, l),
        which the nested tapes reproduce.""")
    d.const("x", rng.normal(size=(4, 2)))
    d.layer("layer", "Dense", "x", {"kernel": glorot(rng, 2, 3), "bias": rng.normal(size=3)},
            units=3)
    d.const("two", 2.0)
    d.op("sq", "pow", "layer", "two")
    d.op("loss", "reduce_mean", "sq")
    d.finish("000_layer_hessian", ["loss"], ["layer:1"],
             studies={"hessian": {"target": "loss", "source": "layer:1"}})


def _trained(name, optimizer, steps, **hyper):
    """(Trainer after `steps` steps) on the saved sample `name`: the numbers a lesson quotes."""
    trainer = Trainer(load(os.path.join(HERE, name + ".json")), make_optimizer(optimizer, **hyper))
    trainer.run(steps)
    return trainer


def _two_scalars(d, x0, y0, a, b):
    """loss = a·x² + b·y² over two scalar Variables x and y."""
    d.var("x", x0)
    d.var("y", y0)
    d.const("a", a)
    d.const("b", b)
    d.op("x2", "square", "x")
    d.op("y2", "square", "y")
    d.op("ax2", "multiply", "a", "x2")
    d.op("by2", "multiply", "b", "y2")
    d.op("loss", "add", "ax2", "by2")


# The Train dock opens each lesson with the run its text starts with.
TRAINING_PRESETS = {
    "train_1_gd_bowl": {"optimizer": "sgd", "learning_rate": 0.1, "steps": 20},
    "train_2_valley": {"optimizer": "sgd", "learning_rate": 0.02, "momentum": 0.9, "steps": 100},
    "train_3_newton": {"optimizer": "newton", "damping": 0.001, "steps": 1},
    "train_4_inverse": {"optimizer": "adam", "learning_rate": 0.05, "steps": 200},
}


def training_lessons():
    """Training in motion (issue 22): the Train dock's lessons. Each quotes numbers a
    Trainer computes here; tests/graph/test_training_lessons.py derives them again."""
    name = "train_1_gd_bowl"
    d = Doc("Gradient descent on a bowl: a good step, one that oscillates, one that diverges",
            "(written below)")
    _two_scalars(d, 2.0, 1.0, 1.0, 3.0)
    d.finish(name, ["loss"], ["x", "y"])
    runs = {lr: _trained(name, "sgd", 20, learning_rate=lr) for lr in (0.1, 0.3, 0.35)}
    d.doc.lesson = " ".join(f"""
        loss = x² + 3·y², from (2, 1). Gradient descent multiplies each coordinate by a fixed
        factor every step: the gradient is (2x, 6y), so w ← w − η·g gives x ← (1 − 2η)·x and
        y ← (1 − 6η)·y. Open View ▸ Train, choose SGD and try three learning rates for 20 steps.
        η = 0.1: both factors (0.8 and 0.4) lie in (0, 1), x and y shrink without changing sign
        and the loss falls from 7 to {runs[0.1].losses[-1]:.3g}. η = 0.3: y's factor is
        1 − 1.8 = −0.8, so y flips sign every step while it shrinks: the path zig-zags across
        the valley and the loss ends at {runs[0.3].losses[-1]:.3g}. η = 0.35: y's factor is
        −1.1, larger than 1 in size: every step overshoots further and the loss grows to
        {runs[0.35].losses[-1]:.3g}. The steepest direction (y, curvature 6) sets the limit:
        η must stay below 2/6 ≈ 0.33. The Landscape tab draws the path over the contours.
        """.split())
    d.finish(name, ["loss"], ["x", "y"], training=TRAINING_PRESETS[name])

    name = "train_2_valley"
    d = Doc("Momentum and Adam in a long, narrow valley", "(written below)")
    _two_scalars(d, -4.0, 1.0, 0.5, 25.0)
    d.finish(name, ["loss"], ["x", "y"])
    sgd = _trained(name, "sgd", 100, learning_rate=0.035)
    momentum = _trained(name, "sgd", 100, learning_rate=0.02, momentum=0.9)
    adam = _trained(name, "adam", 100, learning_rate=0.1)
    d.doc.lesson = " ".join(f"""
        loss = 0.5·x² + 25·y², from (−4, 1): the curvatures along x and y are 1 and 50, a valley
        fifty times steeper across than along. Plain SGD must keep η below 2/50 = 0.04 or it
        diverges across the valley, and then it crawls along it: with η = 0.035, 100 steps
        leave the loss at {sgd.losses[-1]:.3g} (x still {_signed(float(sgd.values()[Port("x")]))}).
        Momentum (μ = 0.9, η = 0.02) adds up the steps that agree, along the valley's floor,
        while those across it cancel: 100 steps reach {momentum.losses[-1]:.3g}. Adam
        (η = 0.1) divides each coordinate's step by the root of its own mean squared gradient,
        so at first both directions move by about η per step whatever their curvature: 100 steps reach
        {adam.losses[-1]:.3g}. Compare the three paths in the Landscape tab.
        """.split())
    d.finish(name, ["loss"], ["x", "y"], training=TRAINING_PRESETS[name])

    name = "train_3_newton"
    d = Doc("Newton's step against gradient steps", "(written below)")
    source = os.path.join(HERE, "001_hessian_newton.json")
    d.doc = load(source)
    d.doc.title = "Newton's step against gradient steps"
    d.finish(name, ["loss"], ["layer1:1"], studies=d.doc.studies)
    newton = _trained(name, "newton", 1, damping=0.001)
    sgd = _trained(name, "sgd", 1, learning_rate=0.1)
    target = newton.losses[-1]
    many = _trained(name, "sgd", 2000, learning_rate=0.1)
    reach = next((k for k, loss in enumerate(many.losses) if loss <= target), None)
    d.doc.lesson = " ".join(f"""
        The loss of {lesson("001_hessian_newton")}: two relu Dense layers, as a function of
        the first kernel (40 numbers). Its Newton update solves (H + 0.001·I)·u = g and takes
        w ← w − u: the gradient and the curvature together. One Newton step (Train dock,
        Newton, λ = 0.001) takes the loss from {newton.losses[0]:.4g} to {target:.3g}; one
        gradient step (SGD, η = 0.1) only to {sgd.losses[-1]:.4g}, and SGD needs
        {reach} steps to get as low as Newton's first. The price, every step: the 40 × 40
        Hessian (the Jacobian of the gradient, from a second tape) and a 40 × 40 linear solve.
        With n parameters the Hessian has n² entries, so for a network's millions it is out of
        reach: networks train with gradient methods.
        """.split())
    d.finish(name, ["loss"], ["layer1:1"], studies=d.doc.studies,
             training=TRAINING_PRESETS[name])

    name = "train_4_inverse"
    rng = np.random.default_rng(22)
    d = Doc("Training the input: the inverse problem", "(written below)")
    d.var("input_x", [[0.0, 0.0, 0.0]], label="input x")
    d.doc.add(Node("net", LAYER, op="Dense", trainable=False,
                   attrs={"units": 2, "activation": "tanh", "use_bias": True},
                   weights={"kernel": glorot(rng, 3, 2), "bias": np.zeros(2, F32)}))
    d._connect("net", ["input_x"])
    d.const("wanted_output", [[0.5, -0.3]], label="wanted output")
    d.op("diff", "subtract", "net", "wanted_output")
    d.op("sq", "square", "diff")
    d.op("loss", "reduce_sum", "sq", axis=None, keepdims=False)
    d.finish(name, ["loss"], ["input_x"])
    adam = _trained(name, "adam", 200, learning_rate=0.05)
    y = np.tanh(adam.document().nodes["input_x"].value @ d.doc.nodes["net"].weights["kernel"])
    d.doc.lesson = " ".join(f"""
        How can a system's output be made to hit a target when the system is fixed?
        Here a Dense layer with tanh is the fixed network (its kernel and bias are frozen
        Variables, trainable=False) and the input x is the Variable to train: loss =
        Σ (net(x) − (0.5, −0.3))². The tape's gradient flows back through the network to x
        exactly as it would to the weights. Adam (η = 0.05) from x = 0 brings the loss from
        {adam.losses[0]:.4g} to below 1e-8 in 200 steps; the network's output is then
        ({_signed(y[0, 0])}, {_signed(y[0, 1])}). Three inputs for two outputs: many x work, and
        the optimizer finds the one its path leads to.
        """.split())
    assert adam.losses[-1] < 1e-8
    d.finish(name, ["loss"], ["input_x"], training=TRAINING_PRESETS[name])


# -- the networks a course teaches (issue 21) ------------------------------------------------

CONV_X = [[1, 2, 0, 1, 3], [0, 1, 3, 2, 1], [2, 0, 1, 0, 2], [1, 3, 2, 1, 0], [0, 1, 0, 2, 1]]
SOBEL = [[1, 0, -1], [2, 0, -2], [1, 0, -1]]
CONV_UPSTREAM = [[1, 0, 0], [0, 2, 0], [0, 0, -1]]


def conv_lessons():
    d = Doc("Convolution's VJP is a transposed convolution", """
        conv2d (VALID, stride 1) slides the 3x3 filter w over the 5x5 input image x:
        y[i, j] = Σ x[i+a, j+b]·w[a, b], a 3x3 output. The upstream cotangent g, given as
        output_gradients, is 1 at y[0, 0], 2 at y[1, 1], -1 at y[2, 2] and 0 elsewhere.
        Input rule: x[p, q] met w[p-i, q-j] in every output y[i, j], so its gradient is
        Σ g[i, j]·w[p-i, q-j]: g padded with 2 zeros on every side and convolved with w flipped
        in both axes, a transposed convolution. It places a copy of the filter scaled by each
        upstream entry where that output's window lay: 1·w at (0, 0), 2·w at (1, 1), -1·w at
        (2, 2), summed where they overlap, so row 2 of x's gradient is
        1·[1, 0, -1] + 2·[2, 0, -2] - 1·[1, 0, -1], shifted: [1, 4, -2, -4, 1]. Filter rule: w[a, b]
        met x[i+a, j+b] in y[i, j], so its gradient is the correlation of x with g,
        Σ g[i, j]·x[i+a, j+b] = x[a, b] + 2·x[a+1, b+1] - x[a+2, b+2]: for w[0, 0] that is
        1 + 2·1 - 1 = 2, and the whole filter gradient is [[2, 8, 2], [-2, 2, 3], [8, 2, 2]].""")
    d.const("input_image", np.reshape(CONV_X, (1, 5, 5, 1)), watched=True, label="input image")
    d.var("filter_w", np.reshape(SOBEL, (3, 3, 1, 1)), label="filter w")
    d.op("y", "nn.conv2d", "input_image", "filter_w", strides=[1, 1], padding="VALID",
         dilations=[1, 1])
    d.finish("nets_1_conv_transpose", ["y"], ["input_image", "filter_w"],
             output_gradients={"y": np.reshape(CONV_UPSTREAM, (1, 3, 3, 1))})


DEPTH, WIDTH = 6, 6
CHAINS = {  # name: (activation, weight std, how the std was chosen)
    "nets_2_sigmoid_chain": ("sigmoid", np.sqrt(2.0 / (WIDTH + WIDTH)), "Glorot's"),
    "nets_2_relu_chain": ("relu", np.sqrt(2.0 / WIDTH), "He's"),
    "nets_2_bad_init": ("relu", 1.5, "too large:"),
}


def layer_norms(doc):
    """‖d loss / d output‖ of layer DEPTH … 1, then of x: the cotangents the story shows."""
    steps = story.build(doc).steps
    out = [next(s.cotangent for s in steps if s.kind == "visit" and s.node == f"layer{k}"
                and not s.internal) for k in range(DEPTH, 0, -1)]
    return [float(np.linalg.norm(c)) for c in out + [steps[-1].cotangent]]


def _chain(name, title):
    """x (1, 6) → DEPTH Dense layers of WIDTH units → reduce_sum; the same standard normal
    draws in every chain, scaled by the chain's std, so only activation and scale differ."""
    activation, std, _ = CHAINS[name]
    rng = np.random.default_rng(21)
    x = rng.normal(size=(1, WIDTH))
    draws = [rng.normal(size=(WIDTH, WIDTH)) for _ in range(DEPTH)]
    d = Doc(title, "(written below)")
    d.const("x", x, watched=True)
    last = "x"
    for k, z in enumerate(draws, 1):
        d.layer(f"layer{k}", "Dense", last, {"kernel": std * z, "bias": np.zeros(WIDTH)},
                units=WIDTH, activation=activation)
        last = f"layer{k}"
    d.op("loss", "reduce_sum", last, axis=None, keepdims=False)
    d.finish(name, ["loss"], ["x"])
    return d, layer_norms(d.doc)


def _listed(norms):
    return ", ".join(f"{v:.3g}" for v in norms[1:-1])


def _factor(norms):
    """The geometric mean of the norm's change per layer, from the last layer's output to x."""
    return (norms[-1] / norms[0]) ** (1.0 / DEPTH)


def gradient_size_lessons():
    name = "nets_2_sigmoid_chain"
    d, n = _chain(name, "Vanishing gradients: a deep chain of sigmoid layers")
    d.doc.lesson = " ".join(f"""
        Six Dense layers of 6 units with sigmoid, weights drawn with Glorot's standard
        deviation {CHAINS[name][1]:.3f}, loss = the sum of the last layer's outputs. Going
        back through a layer multiplies the cotangent by sigmoid'(z), at most 0.25, and then
        by the kernel's transpose. Step through the story: each layer's Visit step states the
        norm of the cotangent its output receives and how much smaller it is
        than the layer's above, from the last layer to the first: {n[0]:.3g} (all ones, from
        the sum), {_listed(n)}, and {n[-1]:.3g} at x (its Gradient step). Each layer divides it by about
        {1 / _factor(n):.1f}: the first layers receive almost no gradient and barely learn.
        That is the vanishing gradient. View ▸ Studies ▸ Gradient norms (Ctrl+Alt+5) draws
        these norms on a log scale: a falling line. {lesson("nets_2_relu_chain", start=True)},
        is the same chain with relu.
        """.split())
    d.finish(name, ["loss"], ["x"])

    name = "nets_2_relu_chain"
    d, n = _chain(name, "Gradients that keep their size: a deep chain of relu layers")
    d.doc.lesson = " ".join(f"""
        The same six layers and the same random draws as {lesson("nets_2_sigmoid_chain")}, with relu and
        He's standard deviation {CHAINS[name][1]:.3f} (the square root of 2 over 6 inputs).
        relu'(z) is 1 where the unit is on and 0 where it is off, and He's scale makes up for
        the half that are off, so the cotangent's norm at each layer's output keeps its size:
        {n[0]:.3g} (all ones, from the sum), {_listed(n)}, and {n[-1]:.3g} at x, about
        {_factor(n):.2f} times per layer (the Gradient norms view, Ctrl+Alt+5, draws a level
        line). A unit whose z is negative is off and passes no gradient back: its entry of the
        cotangent that reaches z is 0. With this one example, each layer has such units: their
        cards mark them with ✕ (relu off for this example: …), and relu's step in the story
        says why their cotangent is 0. A unit that is off for every input is a dead relu: no
        gradient ever reaches its weights again.
        """.split())
    d.finish(name, ["loss"], ["x"])

    name = "nets_2_bad_init"
    d, n = _chain(name, "Exploding gradients: a relu chain with a bad initialisation")
    he = CHAINS["nets_2_relu_chain"][1]
    d.doc.lesson = " ".join(f"""
        The relu chain again, its weights drawn with standard deviation {CHAINS[name][1]:.1f},
        {CHAINS[name][1] / he:.1f} times He's. Every layer now multiplies the cotangent by a
        kernel that is too large: its norm at each layer's output goes {n[0]:.3g} (all
        ones, from the sum), {_listed(n)}, and {n[-1]:.3g} at x, about {_factor(n):.1f} times larger per
        layer (the Gradient norms view, Ctrl+Alt+5: a rising line). A gradient step sized for
        the last layer is far too large for the first: the exploding gradient. The cure is the scale of the initialisation, not the activation.
        """.split())
    d.finish(name, ["loss"], ["x"])


CHECK_W, CHECK_X = [0.5, -1.0, 2.0], [1.0, 2.0, -0.5]
CHECK_STUDY = {"gradient_check": {"source": "w", "index": [1]}}


def check_document(name, title, factor=None):
    """loss = Σ tanh(w·x) in float64 (as gradient checks are run); with `factor`, a custom
    gradient between w·x and tanh that is the identity forward and scales the cotangent.
    Its gradient check study moves w[1]."""
    d = Doc(title, "(written below)")
    d.doc.add(Node("w", VARIABLE, value=np.array(CHECK_W)))
    d.doc.add(Node("x", CONSTANT, value=np.array(CHECK_X)))
    d.op("wx", "multiply", "w", "x")
    last = "wx"
    if factor is not None:
        d.custom("hand_written_rule", "scale", "wx", label="hand-written rule", factor=factor)
        last = "hand_written_rule"
    d.op("t", "tanh", last)
    d.op("loss", "reduce_sum", "t", axis=None, keepdims=False)
    d.finish(name, ["loss"], ["w"], studies=CHECK_STUDY)
    return d


def gradient_check_lessons():
    name = "nets_3_gradient_check"
    d = check_document(name, "Checking a gradient: central differences beside the backward pass")
    check = gradient_check(d.doc)
    g = check.backward
    fd = {r.h: r.difference for r in check.rows}
    err = {r.h: r.error for r in check.rows}
    t = np.tanh(CHECK_W[1] * CHECK_X[1])
    third = CHECK_X[1] ** 3 * -2 * (1 - t * t) * (1 - 3 * t * t)
    eps64, eps32 = np.finfo(np.float64).eps, np.finfo(np.float32).eps
    d.doc.lesson = " ".join(f"""
        A gradient check compares the backward pass with the definition of a derivative.
        loss = Σ tanh(w·x) with w = [0.5, -1, 2] and x = [1, 2, -0.5], in float64. The backward
        pass says d loss / d w[1] = x[1]·(1 − tanh²(w[1]·x[1])) = {g:.8f}. Central
        differences move w[1] alone by ±h and run the forward twice:
        (loss(w[1] + h) − loss(w[1] − h)) / 2h. With h = 0.1 they give {fd[0.1]:.8f}, an error
        of {err[0.1]:.2g}; with h = 0.01 the error is {err[0.01]:.2g}, with h = 0.001
        {err[0.001]:.2g} and with h = 0.0001 {err[0.0001]:.2g}: a 10 times smaller h, a 100
        times smaller error, because central differences are off by about h²/6 · f''', and
        f''' = {third:.3g} here. Much smaller steps lose to rounding instead (an error like
        ε/h: h = 1e-8 is worse than h = 1e-6); the best h is near the cube root of the machine
        epsilon ε, {eps64 ** (1 / 3):.0e} in float64 but {eps32 ** (1 / 3):.3f} in float32, which
        is why gradient checks run in float64. View ▸ Studies ▸ Gradient check (Ctrl+Alt+6)
        makes this check for any entry: a table of h, the central difference (the digits that
        agree with the backward pass in bold) and the relative error, and the error against h
        on log-log axes: a V whose left side falls with slope 2 and whose bottom, the best step,
        lies near that cube root.
        {lesson("nets_3_wrong_gradient", start=True)}, shows a check that fails.
        """.split())
    d.finish(name, ["loss"], ["w"], studies=CHECK_STUDY)

    name = "nets_3_wrong_gradient"
    d = check_document(name, "A wrong custom gradient fails the check", factor=2.0)
    check = gradient_check(d.doc)
    row = next(r for r in check.rows if r.h == 1e-4)
    d.doc.lesson = " ".join(f"""
        The loss of {lesson("nets_3_gradient_check")}, with a hand-written rule between w·x and tanh: a
        custom gradient that is the identity forward but multiplies the cotangent by 2 on its
        way back, the kind of slip a rule derived by hand makes. The backward pass now says
        d loss / d w[1] = {check.backward:.8f}. Central differences (h = {row.h:g}) only run the
        forward, which the rule does not change, and still say {row.difference:.8f}. The relative
        error |g − fd| / max(|g|, |fd|) is {row.relative:.2g}, where the correct gradient's stays
        below 1e-6: the check fails, and the story shows where: the hand-written rule's step
        doubles the cotangent. The Gradient check view (Ctrl+Alt+6) draws a flat line instead of
        a V: an error that does not fall with h is no rounding, it is a wrong rule. Set the
        rule's factor to 1 in the Inspector and the two numbers agree.
        """.split())
    d.finish(name, ["loss"], ["w"], studies=CHECK_STUDY)


def _signed(v):
    return f"{v:.4f}".replace("-", "−")


if __name__ == "__main__":
    for make in (seed_004, seed_003, seed_002, seed_001, seed_000, training_lessons,
                 conv_lessons, gradient_size_lessons, gradient_check_lessons,
                 *build_nets.LESSONS):
        make()
    print("\n".join(sorted(f for f in os.listdir(HERE) if f.endswith(".json"))))
