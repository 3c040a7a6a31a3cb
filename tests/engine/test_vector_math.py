"""_vector_math.py's float32 exp, tanh, sin and cos (the fused kernels' vectorisable
forms) against float64 numpy rounded to float32: within 2.5 ulp over every range they
serve (numpy's own float32 loops: 1.5 for sin, 2.3 for exp here), NaN, ±inf, ±0 and
subnormals as numpy; and fused kernels that meet a sin or cos input beyond the forms'
range (or not finite) compute that call with numpy. The forms use float32 adds, multiplies, divides and
bit casts only (no FMA), so every CPU computes the same bits as this one."""
import numpy as np
import pytest

numba = pytest.importorskip("numba")

import gradviz as tf  # noqa: E402
from gradviz.engine import _vector_math as vm  # noqa: E402

MAX_ULP = 2.5


@numba.njit(error_model="numpy")
def _all_four(x, out):
    for j in range(x.size):
        out[0, j] = vm.exp32(x[j])
        out[1, j] = vm.tanh32(x[j])
        out[2, j] = vm.sin32(x[j])
        out[3, j] = vm.cos32(x[j])


def _samples(limit, seed):
    """Random float32 bit patterns of magnitude <= limit (every binade alike), both signs,
    uniform values near the top of the range, and the special ones."""
    rng = np.random.default_rng(seed)
    top = int(np.array(np.float32(limit)).view(np.int32))
    bits = rng.integers(0, top + 1, 300_000).astype(np.int32)
    x = bits.view(np.float32)
    special = np.array([0.0, -0.0, 1e-45, -1e-45, 1.2e-38, 88.72, 88.73, -87.33, -103.9,
                        -104.0, 0.625, -0.625, np.pi / 2, np.pi, 2023.1857, limit, -limit],
                       np.float32)
    return np.concatenate([x, -x, rng.uniform(-limit, limit, 300_000).astype(np.float32),
                           special[np.abs(special) <= limit]])


def _ulps(got, x, reference):
    with np.errstate(all="ignore"):
        want = reference(x.astype(np.float64))
        want32 = want.astype(np.float32)
        same = (got == want32) | (np.isnan(got) & np.isnan(want32))
        spacing = np.spacing(np.abs(want32)).astype(np.float64)
        error = np.abs(got.astype(np.float64) - want) / spacing
    assert not np.isnan(got[~np.isnan(want32)]).any()
    return np.where(same, 0.0, error)


@pytest.mark.parametrize("row, reference, limit", [
    (0, np.exp, 110.0), (1, np.tanh, 30.0), (1, np.tanh, 3e38),
    (2, np.sin, 10.0), (2, np.sin, vm.SIN_COS_LIMIT), (3, np.cos, 10.0),
    (3, np.cos, vm.SIN_COS_LIMIT)])
def test_within_two_and_a_half_ulp_of_the_rounded_float64_result(row, reference, limit):
    x = _samples(limit, seed=row)
    out = np.empty((4, x.size), np.float32)
    _all_four(x, out)
    errors = _ulps(out[row], x, reference)
    worst = int(np.argmax(errors))
    assert errors[worst] <= MAX_ULP, f"{errors[worst]:.2f} ulp at x = {x[worst]!r}"


def test_overflow_underflow_and_the_special_values_as_numpy():
    x = np.array([88.7, 88.8, 1e30, -87.0, -95.0, -103.0, -104.0, -1e30, np.inf, -np.inf,
                  np.nan, 0.0, -0.0], np.float32)
    out = np.empty((4, x.size), np.float32)
    _all_four(x, out)
    with np.errstate(over="ignore", under="ignore"):
        want = np.exp(x)
    np.testing.assert_array_equal(np.isinf(out[0]), np.isinf(want))
    assert np.isnan(out[:, x != x]).all()
    np.testing.assert_allclose(out[0], want, rtol=3e-7, atol=2e-45)  # subnormals too
    np.testing.assert_array_equal(out[1], np.tanh(x))  # ±1 and ±0 exactly
    np.testing.assert_array_equal(np.signbit(out[1][x == x]), np.signbit(x[x == x]))
    assert out[2, -2] == 0.0 and out[3, -1] == 1.0


@pytest.mark.slow  # numba compiles a fused kernel into an empty cache
def test_fused_kernels_give_inputs_beyond_their_range_to_numpy(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADVIZ_KERNEL_CACHE", str(tmp_path))

    def f(x):
        return tf.cos(tf.sin(x * 3.0) + 1.0) * tf.exp(tf.tanh(x) * 2.0)

    def g(x):  # no sin or cos: every input in the vector forms, NaN and inf too
        return tf.exp(tf.tanh(x * 0.5) - 1.0) * 2.0

    for fn in (f, g):
        compiled = tf.function(fn)
        x = tf.constant(np.linspace(-5, 5, 1000).astype(np.float32))
        compiled(x)
        program = next(iter(compiled.get_concrete_function(x)._programs.values()))
        program.fuse()
        assert program.fused and "# fused" in program.source
        assert "vm.exp32" in "".join(p.read_text() for p in tmp_path.glob("fused_*.py"))
        rng = np.random.default_rng(0)
        for values in (rng.uniform(-5, 5, 1000), np.linspace(-4e6, 4e6, 1000),
                       [np.inf, np.nan, -np.inf] + [1.0] * 997):
            x = tf.constant(np.asarray(values, np.float32))
            with np.errstate(invalid="ignore"):
                np.testing.assert_allclose(compiled(x).numpy(), fn(x).numpy(),
                                           rtol=2e-6, atol=2e-6)
