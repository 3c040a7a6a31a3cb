"""tf.function and tf.TensorSpec: a decorated function computes and differentiates as the
undecorated one, and its traces follow TF's retracing rules."""
import warnings

import numpy as np
import pytest

import gradviz as tf
from gradviz.engine.function import FunctionFallbackWarning, RetracingWarning


def _mlp(x, w, b):
    return tf.reduce_sum(tf.nn.relu(x @ w + b) ** 2)


def _grads(f, x, w, b):
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as inner:
            y = f(x, w, b)
        g = inner.gradient(y, [w, b])
    h = outer.jacobian(g[1], b)
    return y, g, h


@pytest.mark.parametrize("decorate", [
    lambda f: tf.function(f),
    lambda f: tf.function(jit_compile=True)(f),
    lambda f: tf.function(f, reduce_retracing=True, autograph=False),
    lambda f: tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                           tf.TensorSpec([3, 2]), tf.TensorSpec([2])])(f),
], ids=["plain", "jit_compile", "reduce_retracing", "input_signature"])
def test_decorated_function_computes_and_differentiates_like_the_undecorated(decorate):
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(4, 3)).astype(np.float32))
    w = tf.Variable(rng.normal(size=(3, 2)).astype(np.float32))
    b = tf.Variable([0.1, -0.2])
    expected = _grads(_mlp, x, w, b)
    got = _grads(decorate(_mlp), x, w, b)
    np.testing.assert_array_equal(got[0].numpy(), expected[0].numpy())
    for a, e in zip(got[1], expected[1]):
        np.testing.assert_array_equal(a.numpy(), e.numpy())
    np.testing.assert_array_equal(got[2].numpy(), expected[2].numpy())


def test_python_control_flow_on_values_runs_as_written():
    """It cannot be compiled: the function falls back to eager (test_function_compiled)."""
    @tf.function
    def clipped_square(x):
        if tf.reduce_sum(x) > 0:
            return x * x
        return -x

    for value, grad in ((2.0, 4.0), (-2.0, -1.0)):
        x = tf.constant(value)
        with tf.GradientTape() as t, warnings.catch_warnings():
            warnings.simplefilter("ignore", FunctionFallbackWarning)
            t.watch(x)
            y = clipped_square(x)
        np.testing.assert_allclose(t.gradient(y, x).numpy(), grad)


def test_tracing_count_follows_tf_rules():
    """Tensors by shape and dtype, numpy arrays as tensors, Python scalars by value
    (1 and 1.0 are one literal, as in TF's trace_type), other objects by identity."""
    @tf.function
    def f(x, n=2):
        return x ** n

    calls = [
        (tf.constant([1.0, 2.0]),), (tf.constant([3.0, 4.0]),),       # one trace
        (tf.constant([1.0, 2.0, 3.0]),),                             # new shape
        (np.ones(3, np.float32),),                                   # a tensor like the last
        (tf.constant([1.0, 2.0], tf.float64),),                      # new dtype
        (2.0,), (2,), (3.0,),                                        # 2 == 2.0; 3.0 is new
        (tf.constant([1.0, 2.0]), 3),                                # new literal n
    ]
    with pytest.warns(RetracingWarning):  # at the fifth trace
        for args in calls:
            f(*args)
    assert f.experimental_get_tracing_count() == 6
    f(x=tf.constant([5.0, 6.0]), n=2)     # keywords and defaults bind to the same trace
    assert f.experimental_get_tracing_count() == 6


def test_numpy_arrays_arrive_as_tensors_and_outputs_leave_as_tensors():
    seen = []

    @tf.function
    def f(x):
        seen.append(type(x))
        return {'n': 3, 'y': x * 2.0, 'nothing': None}

    out = f(np.array([1.0, 2.0], np.float32))
    assert seen == [tf.Tensor]
    assert isinstance(out['n'], tf.Tensor) and out['n'].dtype == tf.int32
    assert out['nothing'] is None
    np.testing.assert_array_equal(out['y'].numpy(), [2.0, 4.0])


def test_returning_a_variable_returns_its_value_and_keeps_the_gradient():
    v = tf.Variable(3.0)
    f = tf.function(lambda: v)
    with tf.GradientTape() as t:
        y = f() * 2.0
    assert type(f()) is tf.Tensor
    np.testing.assert_allclose(t.gradient(y, v).numpy(), 2.0)


def test_reduce_retracing_makes_one_general_trace():
    f = tf.function(lambda x: tf.reduce_sum(x), reduce_retracing=True)
    g = tf.function(lambda x: tf.reduce_sum(x))
    for n in (1, 2, 3, 4):
        f(tf.ones([n]))
        g(tf.ones([n]))
    assert f.experimental_get_tracing_count() == 2
    assert g.experimental_get_tracing_count() == 4
    (spec,), _ = f.get_concrete_function(tf.ones([7])).structured_input_signature
    assert spec == tf.TensorSpec([None], tf.float32)
    f(tf.ones([2, 2]))                                   # another rank: the shape is freed
    (spec,), _ = f.get_concrete_function(tf.ones([3, 1, 1])).structured_input_signature
    assert spec.shape is None and f.experimental_get_tracing_count() == 3


def test_input_signature_converts_checks_and_traces_once():
    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
    def double(x):
        assert isinstance(x, tf.Tensor) and x.dtype == tf.float32
        return x * 2

    np.testing.assert_array_equal(double([1, 2]).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(double(tf.ones([5])).numpy(), np.full(5, 2.0))
    assert double.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed.*shape \(2, 2\)"):
        double(tf.ones([2, 2]))
    with pytest.raises(TypeError, match="dtype float64"):
        double(tf.ones([2], tf.float64))
    assert double.python_function(tf.ones([1, 1])).shape == (1, 1)  # the undecorated one
    with pytest.raises(TypeError, match="input_signature has 1 arguments, the call gave 2"):
        tf.function(lambda a, b: a, input_signature=[tf.TensorSpec([])])(1.0, 2.0)
    with pytest.raises(TypeError, match="TensorSpec"):
        tf.function(lambda a: a, input_signature=[[2]])


def test_input_signature_with_nested_specs():
    @tf.function(input_signature=[(tf.TensorSpec([2]), {'k': tf.TensorSpec([])})])
    def f(pair):
        a, d = pair
        return a * d['k']

    np.testing.assert_array_equal(f(([1.0, 2.0], {'k': 3.0})).numpy(), [3.0, 6.0])
    with pytest.raises(TypeError, match="structure"):
        f([[1.0, 2.0], {"k": 3.0}, 4.0])


def test_concrete_function_serves_its_signature():
    f = tf.function(lambda x: x + 1.0)
    concrete = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
    assert concrete.structured_input_signature == ((tf.TensorSpec([None, 2]),), {})
    np.testing.assert_array_equal(concrete(tf.zeros([3, 2])).numpy(), np.ones((3, 2)))
    f(tf.zeros([5, 2]))                          # served by the concrete function's trace
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="serves"):
        concrete(tf.zeros([3]))


def test_function_on_a_method_has_one_cache_per_instance():
    class Scale:
        def __init__(self, k):
            self.k = tf.Variable(k)

        @tf.function
        def __call__(self, x):
            return self.k * x

    a, b = Scale(2.0), Scale(3.0)
    x = tf.constant(1.5)
    with tf.GradientTape() as t:
        t.watch(x)
        y = a(x) + b(x)
    np.testing.assert_allclose(y.numpy(), 7.5)
    dx, dka, dkb = t.gradient(y, [x, a.k, b.k])
    np.testing.assert_allclose([dx.numpy(), dka.numpy(), dkb.numpy()], [5.0, 1.5, 1.5])
    assert a.__call__ is a.__call__                       # one bound function per instance
    assert a.__call__.experimental_get_tracing_count() == 1
    assert Scale.__call__.experimental_get_tracing_count() == 0


def test_tensor_spec():
    spec = tf.TensorSpec([None, 3], tf.float64, name='x')
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=tf.float64, name='x')"
    assert repr(tf.TensorSpec(None)) == "TensorSpec(shape=None, dtype=tf.float32, name=None)"
    assert spec.shape == (None, 3) and spec.dtype == tf.float64 and spec.name == 'x'
    assert spec.is_compatible_with(np.zeros((7, 3)))
    assert not spec.is_compatible_with(np.zeros((7, 4)))
    assert not spec.is_compatible_with(tf.zeros([7, 3]))            # float32
    assert tf.TensorSpec.from_tensor(tf.ones([2])) == tf.TensorSpec([2])
    assert tf.TensorSpec([2]).most_specific_common_supertype([tf.TensorSpec([3])]) \
        == tf.TensorSpec([None])
    assert tf.TensorSpec([2]).most_specific_common_supertype([tf.TensorSpec([2], tf.int32)]) \
        is None
    assert len({tf.TensorSpec([2]), tf.TensorSpec((2,))}) == 1


def test_input_signature_covers_the_first_parameters_and_defaults_stay_python():
    @tf.function(input_signature=[tf.TensorSpec([]), tf.TensorSpec([])])
    def f(a, b=2.0, scale=10):
        assert isinstance(b, tf.Tensor) and scale == 10
        return (a + b) * scale

    assert f(1.0).numpy() == 30.0            # b's default converted by its spec
    assert f(1.0, b=3.0).numpy() == 40.0
    with pytest.raises(TypeError, match="input_signature has 2 arguments, the call gave 3"):
        f(1.0, 2.0, 5)


def test_concrete_function_of_an_input_signature_needs_no_arguments():
    f = tf.function(lambda x, y: x * y,
                    input_signature=[tf.TensorSpec([None]), tf.TensorSpec([], tf.float32)])
    concrete = f.get_concrete_function()
    assert concrete.structured_input_signature == (
        (tf.TensorSpec([None]), tf.TensorSpec([])), {})
    np.testing.assert_array_equal(concrete([1.0, 2.0], 3.0).numpy(), [3.0, 6.0])
    assert f.get_concrete_function(tf.ones([4]), 1.0) is concrete
    assert f.experimental_get_tracing_count() == 1
