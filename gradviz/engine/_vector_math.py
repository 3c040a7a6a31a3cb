"""float32 exp, tanh, sin and cos that LLVM vectorises inside a fused numba loop
(fuse.py). numba has no SVML here: `math.sin` in a loop is one libm call per element,
where numpy's float32 loops are SIMD. These have no call and no branch (ternaries
become selects) and stay in 32-bit lanes (float32 arithmetic; the only integers are
bitcasts of float32 bits), so a loop runs 8 or 16 elements at a time: a range
reduction by the round-to-nearest trick (adding 1.5·2^23 rounds to an integer), a
Cody-Waite subtraction with constants split in parts whose products are exact, Cephes'
float32 polynomials, and 2^n built from its exponent bits.

Accuracy, against float64 numpy rounded to float32 (tests/engine/test_vector_math.py):
within 2.5 ulp wherever they are used, as numpy's own float32 loops (1.5 ulp for sin,
2.3 for exp here). sin and cos hold for |x| <= SIN_COS_LIMIT only: a fused kernel that
uses them also reports whether an input was beyond it (or not finite), and that call
is then computed with numpy (fuse.py). NaN, ±inf, ±0 and subnormals come out as numpy's. Importing this module imports numba.
"""
import math
from fractions import Fraction

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

# sin and cos are within 2 ulp up to this |x| (the reduction's quotient stays below
# 2^13, where q times each of the first three parts of π/2 is exact); beyond it the caller uses libm.
SIN_COS_LIMIT = 8192.0

_f32 = np.float32
_ROUND = _f32(12582912.0)  # 1.5·2^23: x + _ROUND - _ROUND is x rounded to an integer


# π/2 to 50 digits: the reduction needs more of it than a float64 holds (q·π/2 to
# within q·2^-53 left sin(x) near x = kπ tens of ulp off for |x| > 1000).
_PIO2 = Fraction("1.5707963267948966192313216916397514420985846996876")


def _split(value, bits):
    """A Fraction as four float32 parts: three with `bits` significant bits (so that an
    integer below 2^(24 - bits) times them is exact), the last one the rest rounded."""
    parts = []
    rest = value
    for _ in range(3):
        mantissa, exponent = math.frexp(float(rest))
        head = Fraction(math.floor(Fraction(rest) * 2 ** (bits - exponent))) / 2 ** (bits - exponent)
        parts.append(_f32(float(head)))
        rest -= head
    parts.append(_f32(float(rest)))
    return parts


_PIO2_A, _PIO2_B, _PIO2_C, _PIO2_D = _split(_PIO2, 11)
_LN2_HI, _LN2_LO = _f32(0.693359375), _f32(-2.12194440e-4)  # Cephes' split of ln 2


@intrinsic
def _pow2(typingctx, q):
    """2^q for a float32 q holding an integer in [-126, 127], built from its bits."""
    def codegen(context, builder, signature, args):
        biased = builder.fmul(builder.fadd(args[0], ir.Constant(ir.FloatType(), 127.0)),
                              ir.Constant(ir.FloatType(), 8388608.0))
        return builder.bitcast(builder.fptosi(biased, ir.IntType(32)), ir.FloatType())
    return types.float32(types.float32), codegen


# Inlined by LLVM into a kernel's loop (forceinline: LLVM's alwaysinline; numba's own
# inline="always" gave the same loop but took 4x longer to compile). Not cached: numba
# caches machine code, which a kernel compiled later could only call, not inline, and
# then its loop stays scalar (15x slower).
_inline = numba.njit(forceinline=True, nogil=True, error_model="numpy")


@_inline
def exp32(x):
    # Clamped (above: inf, below: 0), and NaN made finite here so that no NaN reaches
    # the float-to-integer conversion in _pow2 (undefined in LLVM); it comes back at the end.
    c = x if x <= _f32(88.73) else _f32(88.73)
    c = c if c >= _f32(-103.98) else _f32(-103.98)
    q = (c * _f32(1.44269504088896341) + _ROUND) - _ROUND  # round(c / ln 2)
    r = (c - q * _LN2_HI) - q * _LN2_LO
    p = (((((_f32(1.9875691500e-4) * r + _f32(1.3981999507e-3)) * r + _f32(8.3334519073e-3)) * r
           + _f32(4.1665795894e-2)) * r + _f32(1.6666665459e-1)) * r
         + _f32(5.0000001201e-1)) * (r * r) + r + _f32(1.0)
    half = (q * _f32(0.5) + _ROUND) - _ROUND  # 2^q in two factors: subnormals and inf
    y = p * _pow2(half) * _pow2(q - half)
    return y if x == x else x


@_inline
def tanh32(x):
    a = abs(x)
    z = x * x
    small = x + x * z * ((((_f32(-5.70498872745e-3) * z + _f32(2.06390887954e-2)) * z
                           - _f32(5.37397155531e-2)) * z + _f32(1.33314422036e-1)) * z
                         - _f32(3.33332819422e-1))
    small = x if z == _f32(0.0) else small  # tanh(x) = x there, and -0 stays -0
    big = _f32(1.0) - _f32(2.0) / (exp32(a + a) + _f32(1.0))
    big = -big if x < _f32(0.0) else big
    return small if a < _f32(0.625) else big


@_inline
def _sin_quadrant(x, shift):
    """sin(x + shift·π/2) for |x| <= SIN_COS_LIMIT: x reduced to r in [-π/4, π/4] and
    its quadrant q, then the float32 polynomial of sin or cos of r."""
    q = (x * _f32(0.636619772367581343) + _ROUND) - _ROUND
    r = (((x - q * _PIO2_A) - q * _PIO2_B) - q * _PIO2_C) - q * _PIO2_D
    z = r * r
    s = r + r * z * ((_f32(-1.9515295891e-4) * z + _f32(8.3321608736e-3)) * z
                     - _f32(1.6666654611e-1))
    c = _f32(1.0) - _f32(0.5) * z + z * z * ((_f32(2.443315711809948e-5) * z
                                              - _f32(1.388731625493765e-3)) * z
                                             + _f32(4.166664568298827e-2))
    # The quadrant n = q + shift mod 4, from float32 arithmetic: n/4's fraction.
    n = q + _f32(shift)
    quarter = n * _f32(0.25)
    m = (quarter - ((quarter + _ROUND) - _ROUND)) * _f32(4.0)  # in {-2, -1, 0, 1, 2}
    m = m + _f32(4.0) if m < _f32(0.0) else m                    # in {0, 1, 2, 3}
    v = c if (m == _f32(1.0) or m == _f32(3.0)) else s
    return -v if m >= _f32(2.0) else v


@_inline
def sin32(x):
    return _sin_quadrant(x, 0)


@_inline
def cos32(x):
    return _sin_quadrant(x, 1)



# -- the eager gradients of sin and cos (kernels.py) -------------------------------------
# Here, not in _numba_kernels.py: numba's disk cache of a kernel is invalidated when its
# own file changes, and these inline the forms above. Each returns True when every x was
# within SIN_COS_LIMIT (else the caller computes the gradient with numpy).
_grad_kernel = numba.njit(["boolean(float32[::1], float32[::1], float32[::1])"], cache=True,
                          nogil=True, error_model="numpy")


@_grad_kernel
def sin_grad_into(x, g, out):
    """out = g · cos(x), Sin's gradient."""
    far = False
    for i in range(out.size):
        far |= not (abs(x[i]) <= _f32(SIN_COS_LIMIT))
        out[i] = g[i] * cos32(x[i])
    return not far


@_grad_kernel
def cos_grad_into(x, g, out):
    """out = -g · sin(x), Cos's gradient."""
    far = False
    for i in range(out.size):
        far |= not (abs(x[i]) <= _f32(SIN_COS_LIMIT))
        out[i] = -g[i] * sin32(x[i])
    return not far
