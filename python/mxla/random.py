"""mxla.random: counter-based random numbers, as jax.random, on the
generators of XLA's rng-bit-generator (ThreeFry-2x32, 20 rounds). A key
is a uint64[2] array (ThreeFry's key and counter); the same key gives the
same numbers on every run and at every thread count, eagerly or under
@mxla.jit. Derive fresh keys with split; never reuse a key for two draws
you want independent.

    key = mxla.random.key(0)
    k1, k2 = mxla.random.split(key)
    w = mxla.random.normal(k1, (3, 4), np.float32)
"""
import math
import operator

import numpy as _np

from mxla import _jit, _mxla
from mxla.numpy import Tracer

_ALGORITHM = "rng_three_fry"
_KEY_DTYPE = _np.dtype(_np.uint64)
_FLOATS = (_np.dtype(_np.float32), _np.dtype(_np.float64))


def key(seed):
    """The key for an integer seed (any int that fits 64 bits, two's
    complement for negative ones)."""
    seed = operator.index(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise OverflowError(f"mxla.random.key: seed {seed} does not fit 64 bits")
    return _np.array([seed & ((1 << 64) - 1), 0], dtype=_KEY_DTYPE)


def _check_key(name, k):
    shape = tuple(k.shape)
    if shape != (2,) or _np.dtype(k.dtype) != _KEY_DTYPE:
        raise TypeError(f"mxla.random.{name}: a key is uint64[2] (from "
                        f"mxla.random.key or split), not {k.dtype}{list(shape)}")


def _shape(name, shape):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(operator.index(n) < 0 for n in shape):
        raise ValueError(f"mxla.random.{name}: negative dimension in {shape}")
    return shape


def _bits(k, dtype, shape):
    """Random bits of `dtype` (uint32 or uint64) and `shape` from key k."""
    pair = _mxla.RngBitGenerator(_ALGORITHM, k.op, dtype, shape)
    return Tracer(_mxla.GetTupleElement(pair, 1))


def _traced_or_eager(name, traced, static):
    """`traced` run on the caller's builder when the key is traced, else
    through a jit (arguments named in `static` are compile-time)."""
    eager = _jit.jit(traced, static_argnames=static)

    def apply(k, *args, **kwargs):
        _check_key(name, k)
        if isinstance(k, Tracer):
            return traced(k, *args, **kwargs)
        return eager(_np.asarray(k), *args, **kwargs)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = traced.__doc__
    return apply


def _split(k, num=2):
    """num new keys, uint64[num, 2], independent of k's own draws."""
    words = _bits(k, _KEY_DTYPE, (num,))
    zeros = _mxla.Broadcast(_mxla.Constant(words.op.builder, _np.uint64(0)), [num])
    return Tracer(_mxla.ConcatInDim([_mxla.Reshape(words.op, (num, 1)),
                                     _mxla.Reshape(zeros, (num, 1))], 1))


def _unit_interval(k, shape, dtype):
    """Uniform floats in [0, 1): the mantissa bits of 1.x, minus 1."""
    dtype = _np.dtype(dtype)
    if dtype not in _FLOATS:
        raise TypeError(f"mxla.random: dtype {dtype} is not supported "
                        f"(float32 or float64)")
    bits_type, mantissa, one = ((_np.uint32, 23, 0x3F800000)
                                if dtype == _np.float32 else
                                (_np.uint64, 52, 0x3FF0000000000000))
    bits = _bits(k, _np.dtype(bits_type), shape)
    builder = bits.op.builder
    shifted = _mxla.ShiftRightLogical(
        bits.op, _mxla.Broadcast(_mxla.Constant(builder, bits_type(8 * _np.dtype(bits_type).itemsize - mantissa)), list(shape)))
    ones = _mxla.Or(shifted, _mxla.Broadcast(_mxla.Constant(builder, bits_type(one)), list(shape)))
    value = Tracer(_mxla.BitcastConvertType(ones, dtype))
    return value - 1.0


def _uniform(k, shape=(), dtype=_np.float32, minval=0.0, maxval=1.0):
    """Uniform floats in [minval, maxval)."""
    shape = _shape("uniform", shape)
    u = _unit_interval(k, shape, dtype)
    return u * (maxval - minval) + minval


def _normal(k, shape=(), dtype=_np.float32):
    """Standard normal floats (Box-Muller on two uniform draws)."""
    shape = _shape("normal", shape)
    k1, k2 = (Tracer(_mxla.Reshape(_mxla.Slice(_split(k).op, [i, 0], [i + 1, 2], [1, 1]), (2,)))
              for i in (0, 1))
    u1 = 1.0 - _unit_interval(k1, shape, dtype)  # (0, 1]: log is finite
    u2 = _unit_interval(k2, shape, dtype)
    from mxla import numpy as mnp
    return mnp.sqrt(-2.0 * mnp.log(u1)) * mnp.cos((2 * math.pi) * u2)


def _bernoulli(k, p=0.5, shape=()):
    """True with probability p, independently per element."""
    shape = _shape("bernoulli", shape)
    return _unit_interval(k, shape, _np.float32) < p


def _randint(k, shape, minval, maxval, dtype=_np.int32):
    """Integers uniform in [minval, maxval) (64 random bits per element,
    reduced modulo the span: bias below span / 2**64)."""
    shape = _shape("randint", shape)
    dtype = _np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"mxla.random.randint: dtype {dtype} is not an "
                        f"integer dtype")
    if not minval < maxval:
        raise ValueError(f"mxla.random.randint: empty range [{minval}, {maxval})")
    info = _np.iinfo(dtype)
    if minval < info.min or maxval - 1 > info.max:
        raise OverflowError(f"mxla.random.randint: [{minval}, {maxval}) does "
                            f"not fit {dtype}")
    bits = _bits(k, _KEY_DTYPE, shape)
    builder = bits.op.builder
    span = _mxla.Broadcast(_mxla.Constant(builder, _np.uint64(maxval - minval)), list(shape))
    offset = Tracer(_mxla.Rem(bits.op, span))
    low = _mxla.Broadcast(_mxla.Constant(builder, _np.int64(minval)), list(shape))
    value = Tracer(_mxla.Add(_mxla.ConvertElementType(offset.op, _np.int64), low))
    return value.astype(dtype)


def _less_u32(builder_name):
    b = _mxla.XlaBuilder(builder_name)
    lhs = _mxla.Parameter(b, 0, _np.uint32, (), "lhs")
    rhs = _mxla.Parameter(b, 1, _np.uint32, (), "rhs")
    _mxla.Parameter(b, 2, _np.int64, (), "lhs_value")
    _mxla.Parameter(b, 3, _np.int64, (), "rhs_value")
    return b.build(_mxla.Lt(lhs, rhs))


def _permutation(k, n):
    """A random permutation of range(n), int64[n]: the positions sorted by
    random 32-bit keys (stable, so ties keep a fixed order)."""
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"mxla.random.permutation: negative length {n}")
    bits = _bits(k, _np.dtype(_np.uint32), (n,))
    builder = bits.op.builder
    positions = _mxla.Iota(builder, _np.int64, [n], 0)
    both = _mxla.Sort([bits.op, positions], _less_u32("less_u32"), 0, True)
    return Tracer(_mxla.GetTupleElement(both, 1))


split = _traced_or_eager("split", _split, ("num",))
uniform = _traced_or_eager("uniform", _uniform, ("shape", "dtype"))
normal = _traced_or_eager("normal", _normal, ("shape", "dtype"))
bernoulli = _traced_or_eager("bernoulli", _bernoulli, ("shape",))
randint = _traced_or_eager("randint", _randint,
                           ("shape", "minval", "maxval", "dtype"))
_permutation_of_range = _traced_or_eager("permutation", _permutation, ("n",))


def permutation(k, x):
    """A random permutation of range(x) for an int x, else of the rows of
    the array x (a NumPy array; under jit a traced one)."""
    if isinstance(x, (int, _np.integer)):
        return _permutation_of_range(k, int(x))
    order = _permutation_of_range(k, len(x))
    if isinstance(order, Tracer):
        from mxla import numpy as mnp
        return mnp.take(x, order, axis=0)
    return _np.asarray(x)[order]
