"""mxla.numpy's // % & | ^ ~ << >> and their functions against NumPy, for
every dtype pair and Python scalars: NumPy's dtypes, floor semantics
(the remainder takes the divisor's sign), division by zero as NumPy
gives it, and TypeError where NumPy has no loop (bitwise on floats)."""
import operator

import numpy as np
import pytest

import mxla
import mxla.numpy as mnp
from test_numpy_dtypes import (DTYPES, check, fits, ids, numpy_outcome, on,
                               sample, weak_dtype)

RNG = np.random.default_rng(38)

BINARY = [("floor_divide", np.floor_divide, mnp.floor_divide),
          ("remainder", np.remainder, mnp.remainder),
          ("mod", np.mod, mnp.mod),
          ("bitwise_and", np.bitwise_and, mnp.bitwise_and),
          ("bitwise_or", np.bitwise_or, mnp.bitwise_or),
          ("bitwise_xor", np.bitwise_xor, mnp.bitwise_xor),
          ("left_shift", np.left_shift, mnp.left_shift),
          ("right_shift", np.right_shift, mnp.right_shift),
          ("//", operator.floordiv, operator.floordiv),
          ("%", operator.mod, operator.mod),
          ("&", operator.and_, operator.and_), ("|", operator.or_, operator.or_),
          ("^", operator.xor, operator.xor),
          ("<<", operator.lshift, operator.lshift),
          (">>", operator.rshift, operator.rshift)]
UNARY = [("invert", np.invert, mnp.invert),
         ("bitwise_not", np.bitwise_not, mnp.bitwise_not),
         ("~", operator.invert, operator.invert)]


def divisors(dtype, shape):
    """Samples with zeros, -1 and small values, which the divisions and
    the shift counts need to meet."""
    y = sample(dtype, shape)
    if dtype.kind in "iu":
        small = RNG.integers(-3 if dtype.kind == "i" else 0, 4, y.shape, dtype=dtype)
        y = np.where(RNG.random(y.shape) < 0.5, small, y).astype(dtype)
    return y


@pytest.mark.parametrize("dtype_x", DTYPES, ids=ids(DTYPES))
@pytest.mark.parametrize("dtype_y", DTYPES, ids=ids(DTYPES))
def test_binary_operators_follow_numpy(dtype_x, dtype_y):
    x, y = sample(dtype_x, (6, 8)), divisors(dtype_y, (8,))
    cases = [(name, lambda a, b, f=on(f_np, f_mxla): f(a, b))
             for name, f_np, f_mxla in BINARY]
    cases += [(name + " reversed", lambda a, b, f=on(f_np, f_mxla): f(b, a))
              for name, f_np, f_mxla in BINARY]
    check(cases, (x, y))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_unary_operators_follow_numpy(dtype):
    # (On floats all three raise; the identity gives the trace an output.)
    cases = [(name, on(f_np, f_mxla)) for name, f_np, f_mxla in UNARY]
    check(cases + [("identity", lambda a: a)], (sample(dtype, (4, 5)),))


SCALARS = [True, 0, 1, 3, -3, 7, 300, 2.5, -0.5]


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_python_scalars_are_weak(dtype):
    """As in test_numpy_dtypes: NumPy 2's answer, computed by NumPy 1.24
    with the scalar as an array of the dtype NumPy 2 gives it."""
    x = divisors(dtype, (3, 4))
    cases, expected = [], {}
    for name, f_np, f_mxla in BINARY:
        for scalar in SCALARS:
            for side in ("right", "left"):
                label = f"{name} {side} {scalar!r}"

                def fn(a, s=scalar, side=side, f_np=f_np, f_mxla=f_mxla):
                    f = f_mxla if isinstance(a, mnp.Tracer) else f_np
                    return f(a, s) if side == "right" else f(s, a)
                cases.append((label, fn))
                weak = weak_dtype(dtype, scalar)
                if not (weak.kind == "f" or fits(scalar, weak)):
                    expected[label] = (None, OverflowError())
                    continue
                as_array = np.asarray([scalar], dtype=weak)
                expected[label] = numpy_outcome(
                    lambda a, fn=fn, s=as_array: fn(a, s), (x,))
    check(cases, (x,), expect=lambda label: expected[label])


def test_floor_semantics_pinned():
    @mxla.jit
    def f(a, b):
        return a // b, a % b, mnp.floor_divide(a, 0), mnp.remainder(a, 0)

    a = np.array([7, -7, 7, -7, -128, 0], np.int8)
    b = np.array([2, 2, -2, -2, -1, 5], np.int8)
    q, r, q0, r0 = f(a, b)
    np.testing.assert_array_equal(q, [3, -4, -4, 3, -128, 0])
    np.testing.assert_array_equal(r, [1, 1, -1, -1, 0, 0])
    np.testing.assert_array_equal(q0, np.zeros(6, np.int8))
    np.testing.assert_array_equal(r0, np.zeros(6, np.int8))
    x = np.array([5.0, -5.0, 5.0, 1.0, -0.0], np.float32)
    y = np.array([3.0, 3.0, -3.0, 0.0, 3.0], np.float32)
    q, r, q0, r0 = f(x, y)
    np.testing.assert_array_equal(q, [1, -2, -2, np.inf, -0.0])
    np.testing.assert_array_equal(np.signbit(q), [False, True, True, False, True])
    np.testing.assert_array_equal(r[:3], [2, 1, -1])
    assert np.isnan(r[3])
    np.testing.assert_array_equal(q0, [np.inf, -np.inf, np.inf, np.inf, np.nan])
    assert np.isnan(r0).all()


@pytest.mark.parametrize("function, message", [
    (lambda a: a & 1.5, r"mxla.numpy.bitwise_and does not support float32 and "
                        r"Python float operands"),
    (lambda a: ~a, r"mxla.numpy.invert does not support float32 operands"),
    (lambda a: a << a, r"mxla.numpy.left_shift does not support float32 and "
                       r"float32 operands"),
    (lambda a: 2 >> a, r"mxla.numpy.right_shift does not support Python int "
                       r"and float32 operands"),
])
def test_bitwise_on_floats_raise_type_error(function, message):
    with pytest.raises(TypeError, match=message):
        mxla.jit(function)(np.ones(3, np.float32))


def test_ndarray_operators_with_traced_values_compute():
    @mxla.jit
    def f(a):
        n = np.array([7, -7, 12], np.int32)
        return n // a, n % a, n & a, n | a, n ^ a, n << a, n >> a

    a = np.array([2, 3, 1], np.int32)
    n = np.array([7, -7, 12], np.int32)
    for got, want in zip(f(a), (n // a, n % a, n & a, n | a, n ^ a, n << a, n >> a)):
        np.testing.assert_array_equal(got, want)
