"""The TensorFlow-shaped public API: constructors, Variables, dtypes, printing."""
import numpy as np
import pytest

import gradviz as tf


# -- Variable ------------------------------------------------------------------------------

def test_variable_assign_family_keeps_identity_and_dtype():
    v = tf.Variable([1.0, 2.0])
    ident = v._id
    assert v.assign([3.0, 4.0]) is v
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [4.0, 5.0])
    v.assign_sub(tf.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    assert v._id == ident and v.dtype == tf.float32
    np.testing.assert_array_equal(v.read_value().numpy(), [3.5, 4.5])
    np.testing.assert_array_equal(v.value().numpy(), [3.5, 4.5])


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_variable_assign_shape_mismatch_names_both_shapes(method):
    v = tf.Variable([1.0, 2.0], name="w")
    with pytest.raises(ValueError, match=r"\(3,\).*'w'.*\(2,\)"):
        getattr(v, method)([1.0, 2.0, 3.0])


def test_assign_after_recording_does_not_change_the_recorded_gradient():
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        y = v * v
    v.assign(10.0)
    np.testing.assert_allclose(t.gradient(y, v).numpy(), 4.0)


def test_read_value_is_recorded_so_the_gradient_reaches_the_variable():
    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as t:
        y = v.read_value() * 3.0
        z = v.value() ** 2
    assert t.gradient(y, v).numpy() == 3.0
    assert t.gradient(z, v).numpy() == 4.0


def test_variables_print_as_tf_does():
    v = tf.Variable(2.0)
    assert str(v) == repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>"
    assert str(tf.float32) == "<dtype: 'float32'>" and repr(tf.float32) == "tf.float32"


def test_python_floats_do_not_truncate_to_integers():
    with pytest.raises(TypeError, match=r"\[1.0, 2.5\].*int32"):
        tf.constant([1.0, 2.5], dtype=tf.int32)
    v = tf.Variable([1, 2])
    with pytest.raises(TypeError, match="int32"):
        v.assign([1.7, 2.9])
    np.testing.assert_array_equal(v.numpy(), [1, 2])  # the failed assign changed nothing
    # numpy arrays are cast on request, as TF does.
    np.testing.assert_array_equal(tf.constant(np.array([1.5]), dtype=tf.int32).numpy(), [1])


def test_variable_from_callable_and_flags():
    v = tf.Variable(lambda: tf.ones([2]), trainable=False, name="counter")
    assert not v.trainable and v.name == "counter:0" and v.shape == (2,)
    assert "counter" in repr(v)
    with pytest.raises(AttributeError):
        v.op


# -- constructors --------------------------------------------------------------------------

def test_constant_conversion_rules():
    assert tf.constant(1.0).dtype == tf.float32         # Python floats become float32
    assert tf.constant(1).dtype == tf.int32             # Python ints int32
    assert tf.constant(np.array([1.0])).dtype == tf.float64  # numpy keeps its dtype
    assert tf.constant([True]).dtype == tf.bool
    assert tf.constant(1, dtype=tf.float64).dtype == tf.float64
    np.testing.assert_array_equal(tf.constant(0.5, shape=[2, 3]).numpy(), np.full((2, 3), 0.5))
    np.testing.assert_array_equal(tf.constant([1, 2, 3, 4], shape=(2, 2)).numpy(),
                                  [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="3 elements.*\\(2, 2\\)"):
        tf.constant([1, 2, 3], shape=[2, 2])
    with pytest.raises(TypeError):
        tf.constant(object())


def test_tensor_is_not_constructed_directly():
    """As TF's tf.Tensor(), calling the class raises (with or without a value) and names
    the constructors to use; Variables, a subclass, still construct, and copies work."""
    import copy

    for args in ((), ([1.0, 2.0],)):
        with pytest.raises(TypeError, match=r"tf\.Tensor cannot be constructed directly: "
                                            r"make a tensor with gradviz\.constant"):
            tf.Tensor(*args)
    v = tf.Variable([1.0, 2.0])
    assert isinstance(v, tf.Tensor) and v.numpy().tolist() == [1.0, 2.0]
    t = copy.deepcopy(tf.constant([3.0]))
    assert type(t) is tf.Tensor and t.numpy().tolist() == [3.0]


def test_convert_to_tensor_checks_dtype():
    t = tf.constant([1.0])
    assert tf.convert_to_tensor(t) is t
    assert tf.convert_to_tensor(t, dtype=tf.float32) is t
    with pytest.raises(ValueError, match="float64.*float32"):
        tf.convert_to_tensor(t, dtype=tf.float64)


def test_eye_linspace_range():
    np.testing.assert_array_equal(tf.eye(3).numpy(), np.eye(3))
    assert tf.eye(2, 3).shape == (2, 3)
    assert tf.eye(2, batch_shape=[4]).shape == (4, 2, 2)
    assert tf.eye(2, dtype=tf.float64).dtype == tf.float64
    lin = tf.linspace(-10.0, 10.0, 200 + 1)
    assert lin.shape == (201,) and lin.dtype == tf.float32
    np.testing.assert_allclose(lin.numpy()[[0, 100, 200]], [-10.0, 0.0, 10.0])
    r = tf.range(5)
    assert r.dtype == tf.int32
    np.testing.assert_array_equal(r.numpy(), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(tf.range(1, 7, 2).numpy(), [1, 3, 5])
    rf = tf.range(0.0, 1.0, 0.25)
    assert rf.dtype == tf.float32
    np.testing.assert_allclose(rf.numpy(), [0, 0.25, 0.5, 0.75])
    assert tf.range(3, dtype=tf.float64).dtype == tf.float64


def test_zeros_ones_fill_and_likes():
    assert tf.zeros(5).shape == (5,)               # a single int is a 1-D shape, as in TF
    assert tf.ones([2, 3]).shape == (2, 3)
    assert tf.ones([2], dtype=tf.int32).dtype == tf.int32
    assert tf.zeros(tf.constant([2, 2])).shape == (2, 2)
    np.testing.assert_array_equal(tf.fill([2], 7.0).numpy(), [7.0, 7.0])
    x = tf.constant([[1.0, 2.0]], dtype=tf.float64)
    o, z = tf.ones_like(x), tf.zeros_like(x)
    assert o.dtype == tf.float64 and z.dtype == tf.float64 and o.shape == (1, 2)
    np.testing.assert_array_equal(o.numpy(), [[1.0, 1.0]])
    np.testing.assert_array_equal(z.numpy(), [[0.0, 0.0]])
    assert tf.ones_like(x, dtype=tf.int32).dtype == tf.int32


def test_random_is_reproducible_with_set_seed():
    tf.random.set_seed(7)
    a = tf.random.normal([3, 2])
    b = tf.random.uniform([4], minval=-1.0, maxval=1.0)
    tf.random.set_seed(7)
    np.testing.assert_array_equal(tf.random.normal([3, 2]).numpy(), a.numpy())
    np.testing.assert_array_equal(tf.random.uniform([4], -1.0, 1.0).numpy(), b.numpy())
    assert a.dtype == tf.float32 and a.shape == (3, 2)
    assert np.all((b.numpy() >= -1) & (b.numpy() < 1))
    assert not np.array_equal(tf.random.normal([3, 2]).numpy(), a.numpy())
    np.testing.assert_array_equal(tf.random.normal([3], seed=1).numpy(),
                                  tf.random.normal([3], seed=1).numpy())
    tn = tf.random.truncated_normal([1000], stddev=2.0)
    assert np.abs(tn.numpy()).max() <= 4.0


def test_cast():
    x = tf.constant([1.7, -2.2])
    i = tf.cast(x, tf.int32)
    assert i.dtype == tf.int32
    np.testing.assert_array_equal(i.numpy(), [1, -2])
    assert tf.cast(x, tf.float32) is x
    assert tf.cast(x, "float64").dtype == tf.float64


# -- dtypes, shapes and printing -----------------------------------------------------------

def test_dtypes():
    assert tf.float32 == np.float32 and tf.float32 == "float32"
    assert tf.dtypes.float64 is tf.float64
    assert tf.as_dtype(np.int32) is tf.int32
    assert tf.float16.is_floating and tf.int64.is_integer and not tf.bool.is_floating
    assert repr(tf.float32) == "tf.float32"


def test_tensor_shape_prints_like_tf():
    s = tf.zeros([7, 10]).shape
    assert repr(s) == "TensorShape([7, 10])"
    assert str(s) == "(7, 10)" and str(tf.zeros([201]).shape) == "(201,)"
    assert s == [7, 10] and s == (7, 10) and s == tf.TensorShape([7, 10])
    assert s != [7, 11]
    assert s.as_list() == [7, 10] and s.rank == 2 and s.num_elements() == 70
    assert isinstance(s[1:], tf.TensorShape) and s[0] == 7
    assert {s: 1}[(7, 10)] == 1


def test_tensor_printing():
    t = tf.constant([1.0, 2.0])
    assert str(t) == "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"
    assert repr(t) == "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert repr(tf.constant(4.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=4.0>"
    assert repr(tf.Variable(2.0, name="v")) == (
        "<tf.Variable 'v:0' shape=() dtype=float32, numpy=2.0>")
    assert str(tf.constant(2.0)) == "tf.Tensor(2.0, shape=(), dtype=float32)"


def test_tensor_python_protocols():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert len(t) == 2
    np.testing.assert_array_equal([r.numpy() for r in t], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(t), t.numpy())
    assert float(tf.constant(2.5)) == 2.5 and int(tf.constant(3)) == 3
    assert [0, 1, 2][tf.constant(1)] == 1
    with pytest.raises(TypeError, match="float32"):
        [0, 1][tf.constant(1.0)]
    with pytest.raises(TypeError):
        len(tf.constant(1.0))
    np.testing.assert_array_equal((2.0 - t).numpy(), [[1, 0], [-1, -2]])
    np.testing.assert_array_equal((t @ t).numpy(), np.array([[7, 10], [15, 22]]))
    np.testing.assert_array_equal(abs(-t).numpy(), t.numpy())
    np.testing.assert_array_equal((t > 2.0).numpy(), [[False, False], [True, True]])


def test_public_names_exist():
    for name in ["GradientTape", "Variable", "constant", "matmul", "reduce_sum", "reduce_mean",
                 "custom_gradient", "RegisterGradient", "stop_gradient", "UnconnectedGradients",
                 "gradient_registry", "norm", "clip_by_norm", "einsum", "reshape", "transpose",
                 "concat", "split", "pad", "eye", "linspace", "reduce_prod", "reduce_max",
                 "convert_to_tensor", "Observer", "vjp", "jvp", "hessian", "hvp"]:
        assert hasattr(tf, name), name
    assert callable(tf.math.sin) and callable(tf.nn.sigmoid) and callable(tf.nn.relu)
    assert callable(tf.linalg.solve) and callable(tf.keras.layers.Dense)
    assert callable(tf.keras.layers.BatchNormalization) and callable(tf.random.normal)


def test_equality_is_elementwise_as_in_tf2():
    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal((x == tf.constant([1.0, 3.0])).numpy(), [True, False])
    np.testing.assert_array_equal((x != [1.0, 3.0]).numpy(), [False, True])
    assert tf.reduce_all(x == x).numpy() and not tf.reduce_any(x != x).numpy()
    assert (tf.constant(3.0) == 3.0).numpy()
    assert (tf.Variable(2.0) == 2.0).numpy()
    assert (x == None) is False and (x != None) is True  # noqa: E711
    assert (x == tf.constant([1.0, 2.0, 3.0])) is False  # shapes that cannot broadcast
    # Still usable as a dict key and in containers (by identity).
    assert {x: 1}[x] == 1 and x in [x]
    with pytest.raises(TypeError, match="boolean"):
        tf.reduce_all(x)
