"""mxla.numpy's floor division, remainder, bitwise and shift functions
(the operators // % & | ^ ~ << >>), with NumPy's results.

NumPy's floor division rounds toward minus infinity and its remainder
takes the divisor's sign, where XLA's divide and remainder truncate (C's
/ and fmod); the lowerings below add the correction. An integer divided
by zero gives 0 for both, as in NumPy (which also warns); a float one
follows NumPy's npy_divmod: x // 0.0 is x / 0.0 (inf or nan) and x % 0.0
is nan.
"""
import numpy as _np

from mxla import _mxla
from mxla.numpy import _elementwise, _plain


def _full(like, value, dtype):
    """An array of `value` with the shape of the op `like`."""
    scalar = _mxla.Constant(like.builder, _np.asarray(value, dtype))
    return _mxla.Broadcast(scalar, like.shape)


def _integer_divmod(dtype, x, y):
    """NumPy's (floor quotient, remainder) of integer ops: the truncating
    ones corrected where the remainder and the divisor differ in sign; 0
    and 0 for a zero divisor. MIN // -1 divides by 1 instead, which gives
    NumPy's wrapped MIN and 0 without the overflow."""
    zero = _full(x, 0, dtype)
    by_zero = _mxla.Eq(y, 0)
    unsafe = by_zero
    if dtype.kind == "i":
        info = _np.iinfo(dtype)
        unsafe = _mxla.Or(by_zero, _mxla.And(_mxla.Eq(x, int(info.min)),
                                             _mxla.Eq(y, -1)))
    safe = _mxla.Select(unsafe, _full(y, 1, dtype), y)
    quotient, rest = _mxla.Div(x, safe), _mxla.Rem(x, safe)
    if dtype.kind == "i":
        differ = _mxla.Ne(_mxla.Lt(rest, 0), _mxla.Lt(safe, 0))
        adjust = _mxla.And(_mxla.Ne(rest, 0), differ)
        quotient = _mxla.Select(adjust, _mxla.Sub(quotient, 1), quotient)
        rest = _mxla.Select(adjust, _mxla.Add(rest, safe), rest)
    return (_mxla.Select(by_zero, zero, quotient),
            _mxla.Select(by_zero, zero, rest))


_SIGNED_BITS = {2: _np.int16, 4: _np.int32, 8: _np.int64}


def _sign_bit(x, dtype):
    bits = _mxla.BitcastConvertType(x, _SIGNED_BITS[dtype.itemsize])
    return _mxla.Lt(bits, 0)


def _copysign_zero(x, dtype):
    """0.0 with the sign of x (-0.0 where x's sign bit is set)."""
    return _mxla.Select(_sign_bit(x, dtype), _full(x, -0.0, dtype),
                        _full(x, 0.0, dtype))


def _float_divmod(dtype, a, b):
    """NumPy's npy_divmod, step by step: (floor quotient, remainder)."""
    mod = _mxla.Rem(a, b)  # fmod
    div = _mxla.Div(_mxla.Sub(a, mod), b)
    nonzero = _mxla.Ne(mod, 0)
    flip = _mxla.And(nonzero, _mxla.Ne(_mxla.Lt(b, 0), _mxla.Lt(mod, 0)))
    rest = _mxla.Select(flip, _mxla.Add(mod, b),
                        _mxla.Select(nonzero, mod, _copysign_zero(b, dtype)))
    div = _mxla.Select(flip, _mxla.Sub(div, 1), div)
    floor = _mxla.Floor(div)
    floor = _mxla.Select(_mxla.Gt(_mxla.Sub(div, floor), 0.5),
                         _mxla.Add(floor, 1), floor)
    quotient = _mxla.Select(_mxla.Ne(div, 0), floor,
                            _copysign_zero(_mxla.Div(a, b), dtype))
    by_zero = _mxla.Eq(b, 0)
    return (_mxla.Select(by_zero, _mxla.Div(a, b), quotient),
            _mxla.Select(by_zero, mod, rest))


def _divmod_part(part):
    """The lowering of part 0 (floor quotient) or 1 (remainder); float16
    computes in float32, as NumPy's half loops do."""
    def lower(dtype, x, y):
        if dtype.kind in "iu":
            return _integer_divmod(dtype, x, y)[part]
        if dtype == _np.float16:
            wide = _np.dtype(_np.float32)
            x, y = (_mxla.ConvertElementType(v, wide) for v in (x, y))
            out = _float_divmod(wide, x, y)[part]
            return _mxla.ConvertElementType(out, dtype)
        return _float_divmod(dtype, x, y)[part]
    return lower


def _right_shift(dtype, x, y):
    """Arithmetic for signed integers, logical for unsigned, as NumPy's
    >>. A count past the width gives 0 (or -1), as NumPy's does."""
    shift = (_mxla.ShiftRightArithmetic if dtype.kind == "i"
             else _mxla.ShiftRightLogical)
    return shift(x, y)


floor_divide = _elementwise("floor_divide", _np.floor_divide, _divmod_part(0))
remainder = _elementwise("remainder", _np.remainder, _divmod_part(1))
mod = remainder
bitwise_and = _elementwise("bitwise_and", _np.bitwise_and, _plain(_mxla.And))
bitwise_or = _elementwise("bitwise_or", _np.bitwise_or, _plain(_mxla.Or))
bitwise_xor = _elementwise("bitwise_xor", _np.bitwise_xor, _plain(_mxla.Xor))
invert = _elementwise("invert", _np.invert, _plain(_mxla.Not))
bitwise_not = invert
left_shift = _elementwise("left_shift", _np.left_shift, _plain(_mxla.ShiftLeft))
right_shift = _elementwise("right_shift", _np.right_shift, _right_shift)

__all__ = ["floor_divide", "remainder", "mod", "bitwise_and", "bitwise_or",
           "bitwise_xor", "invert", "bitwise_not", "left_shift",
           "right_shift"]
