"""The engine's corners (issue 25 §4): axes out of range, negative gather indices, text
and objects as tensors, a custom gradient that returns text, Jacobians too large to
hold, and reductions, softmax and Jacobians of empty tensors, each as TF has them."""
import time

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine import errors

M = np.arange(6, dtype=np.float32).reshape(2, 3)

# Every op that takes an axis, called with one out of range for the (2, 3) matrix M.
AXIS_OPS = {
    "softmax": lambda x: tf.nn.softmax(x, axis=2),
    "softmax-negative": lambda x: tf.nn.softmax(x, axis=-3),
    "log_softmax": lambda x: tf.nn.log_softmax(x, axis=5),
    "gather": lambda x: tf.gather(x, [0], axis=2),
    "gather-batch_dims": lambda x: tf.gather(x, [[0], [1]], axis=1, batch_dims=3),
    "reduce_sum": lambda x: tf.reduce_sum(x, 2),
    "reduce_mean-list": lambda x: tf.reduce_mean(x, [0, -3]),
    "reduce_max": lambda x: tf.reduce_max(x, -3),
    "reduce_prod": lambda x: tf.reduce_prod(x, 7),
    "reduce_logsumexp": lambda x: tf.reduce_logsumexp(x, 2),
    "reduce_any": lambda x: tf.reduce_any(x > 0, 2),
    "norm": lambda x: tf.norm(x, axis=2),
    "argmax": lambda x: tf.argmax(x, 2),
    "argmin": lambda x: tf.argmin(x, -3),
    "expand_dims": lambda x: tf.expand_dims(x, 4),
    "squeeze": lambda x: tf.squeeze(x, 3),
    "transpose": lambda x: tf.transpose(x, [0, 3]),
    "concat": lambda x: tf.concat([x, x], 2),
    "stack": lambda x: tf.stack([x, x], 4),
    "split": lambda x: tf.split(x, 1, axis=2),
    "unstack": lambda x: tf.unstack(x, axis=2),
    "softmax_cross_entropy": lambda x: tf.nn.softmax_cross_entropy_with_logits(x, x, axis=2),
    "moments": lambda x: tf.nn.moments(x, [2]),
}


@pytest.mark.parametrize("name", sorted(AXIS_OPS))
def test_every_axis_out_of_range_is_refused_as_tf_does(name):
    """TF raises InvalidArgumentError (softmax_op_test's testDimTooLarge); numpy's `%`
    used to turn softmax's axis 2 into axis 0 and answer."""
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"out of range for .*rank"):
        AXIS_OPS[name](tf.constant(M))


def test_an_axis_named_twice_is_refused():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"names an axis twice"):
        tf.reduce_sum(tf.constant(M), [1, -1])


def test_axes_in_range_still_count_from_the_end():
    x = tf.constant(M)
    np.testing.assert_allclose(tf.nn.softmax(x, axis=-2).numpy(), tf.nn.softmax(x, axis=0).numpy())
    assert tf.gather(x, [2, 0], axis=-1).numpy().tolist() == [[2, 0], [5, 3]]
    assert tf.expand_dims(x, -3).shape == (1, 2, 3)


@pytest.mark.parametrize("call", [lambda p, i: tf.gather(p, i),
                                  lambda p, i: tf.nn.embedding_lookup(p, i)])
def test_negative_indices_are_refused_as_on_tfs_cpu(call):
    """TF's CPU gather: 'indices[1] = -1 is not in [0, 2)'; it used to count from the end."""
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = -1 is not in \[0, 2\)"):
        call(tf.constant(M), [0, -1])
    with pytest.raises(IndexError):   # still an IndexError for code that catches those
        call(tf.constant(M), [2])


@pytest.mark.parametrize("value, words", [
    ("abc", "text"), (["a", "b"], "text"), (b"x", "bytes"),
    (np.array([1, "x"], dtype=object), "Python object"), ([1 + 2j], "complex")])
def test_constant_refuses_what_is_not_a_number(value, words):
    """A decision: TF's string tensors have no gradient and no arithmetic, so gradviz
    tensors hold numbers and booleans only; numpy used to carry the text along."""
    for make in (tf.constant, tf.Variable):
        with pytest.raises(TypeError, match=f"cannot make a tensor of {words} values"):
            make(value)


def test_a_custom_gradient_returning_text_names_the_function():
    @tf.custom_gradient
    def doubled(x):
        return x * 2.0, lambda dy: "oops"

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = doubled(x)
    with pytest.raises(TypeError, match=r"the custom gradient of doubled returned 'oops' as "
                                        r"gradient 0: cannot make a tensor of text values"):
        tape.gradient(y, x)


def _tape_of(f, x):
    x = tf.constant(x)
    tape = tf.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = f(x)
    return tape, y, x


def test_a_jacobian_too_large_for_memory_is_refused_at_once(monkeypatch):
    """1e5 x 1e5 float32 is 40 GB: it used to compute for 25 s and then fail to allocate."""
    tape, y, x = _tape_of(tf.sin, np.ones(100_000, np.float32))
    monkeypatch.setattr(errors, "available_memory", lambda: 8 * 10**9)
    start = time.perf_counter()
    with pytest.raises(tf.errors.ResourceExhaustedError,
                       match=r"the jacobian would have shape \(100000, 100000\): "
                             r"10,000,000,000 elements, 40 GB of float32, more than the 8 GB"):
        tape.jacobian(y, x)
    assert time.perf_counter() - start < 1
    with pytest.raises(MemoryError):   # what code that knows no TF names catches
        tape.jacobian(y, x)


def test_batch_jacobian_and_hessian_are_guarded_the_same_way(monkeypatch):
    monkeypatch.setattr(errors, "available_memory", lambda: 10**9)
    tape, y, x = _tape_of(tf.sin, np.ones((2, 20_000), np.float32))
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"batch_jacobian would have "
                                                               r"shape \(2, 20000, 20000\)"):
        tape.batch_jacobian(y, x)
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"jacobian would have shape "
                                                               r"\(20000, 20000\)"):
        tf.hessian(lambda v: tf.reduce_sum(tf.sin(v)), tf.constant(np.ones(20_000, np.float32)))


def test_a_jacobian_that_fits_is_not_refused(monkeypatch):
    monkeypatch.setattr(errors, "available_memory", lambda: 0)   # small results never ask
    tape, y, x = _tape_of(tf.sin, np.ones(30, np.float32))
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag(np.cos(np.ones(30))), rtol=1e-6)


# -- empty tensors, as TF has them -----------------------------------------------------------

EMPTY = np.zeros((0, 3), np.float32)


@pytest.mark.parametrize("reduce, identity", [(tf.reduce_max, -np.inf), (tf.reduce_min, np.inf),
                                              (tf.reduce_logsumexp, -np.inf)])
def test_reductions_over_an_empty_axis_give_their_identity(reduce, identity):
    """TF reduces with Eigen's MaxReducer / MinReducer, whose initial values are -inf /
    +inf for floats; logsumexp is log(0) = -inf. numpy raised 'zero-size array'."""
    assert reduce(tf.constant(EMPTY)).numpy() == identity
    assert reduce(tf.constant(EMPTY), 0).numpy().tolist() == [identity] * 3
    assert reduce(tf.constant(EMPTY), 1).shape == (0,)
    tape, y, x = _tape_of(lambda v: reduce(v, 1), EMPTY)
    assert tape.gradient(y, x).shape == (0, 3)   # reduction_ops_test testEmptyGradients


def test_integer_max_of_nothing_is_the_lowest_integer():
    assert tf.reduce_max(tf.zeros([0], tf.int32)).numpy() == np.iinfo(np.int32).min
    assert tf.reduce_min(tf.zeros([0, 2], tf.int64), 0).numpy().tolist() == [np.iinfo(np.int64).max] * 2


@pytest.mark.parametrize("shape, axis", [((0, 3), -1), ((3, 0), -1), ((0, 3), 0)])
@pytest.mark.parametrize("op", [tf.nn.softmax, tf.nn.log_softmax])
def test_softmax_of_an_empty_tensor_is_empty(op, shape, axis):
    """softmax_op_test's testEmptyInput: softmax of a (0, 3) tensor along axis 0 is empty."""
    tape, y, x = _tape_of(lambda v: op(v, axis=axis), np.zeros(shape, np.float32))
    assert y.shape == shape and y.dtype == tf.float32
    assert tape.gradient(y, x).shape == shape


def test_jacobians_of_an_empty_batch_have_an_empty_batch_axis():
    tape, y, x = _tape_of(lambda v: tf.tanh(v) * 2.0, EMPTY)
    assert tape.batch_jacobian(y, x).shape == (0, 3, 3)
    assert tape.jacobian(y, x).shape == (0, 3, 0, 3)
    assert tf.hessian(lambda v: tf.reduce_sum(tf.sin(v)), tf.constant(EMPTY)).shape == (0, 3, 0, 3)

