"""mxla.numpy's array creation: zeros, ones, full, their _like forms and
arange.

With no traced operand to take a builder from, these record their ops in
the innermost @mxla.jit trace (numpy._tracing) and raise TypeError outside
one. Shapes, fill values given as numbers, and arange's bounds must be
known while tracing: a traced size would make the result's shape depend
on the values.
"""
import operator

import numpy as _np

from mxla import _mxla
from mxla.numpy import (_DTYPES, Tracer, _as, _broadcast_to,
                        _current_builder, _kind)


def _dtype(name, dtype):
    dtype = _np.dtype(dtype)
    if dtype not in _DTYPES:
        raise TypeError(f"mxla.numpy.{name}: unsupported dtype {dtype} "
                        f"(mxla.numpy takes bool, int8-64, uint8-64 and "
                        f"float16/32/64)")
    return dtype


def _shape(name, shape):
    if isinstance(shape, Tracer):
        raise TypeError(f"mxla.numpy.{name}: the shape must be known while "
                        f"tracing (ints), not a traced value")
    shape = (shape,) if not isinstance(shape, (tuple, list)) else shape
    shape = tuple(operator.index(n) for n in shape)
    if [n for n in shape if n < 0]:
        raise ValueError(f"mxla.numpy.{name}: negative dimensions are not "
                         f"allowed (shape {shape})")
    return shape


def full(shape, fill_value, dtype=None, *, _name="full"):
    """An array of `shape` filled with `fill_value` (a number or an array
    broadcast to `shape`, traced or not); dtype NumPy's for the value
    unless given."""
    shape = _shape(_name, shape)
    if dtype is None:
        kind = _kind("full", fill_value)
        dtype = ({int: _np.int64, float: _np.float64}.get(kind, kind)
                 if isinstance(kind, type) else kind)
    dtype = _dtype("full", dtype)
    builder = (fill_value.op.builder if isinstance(fill_value, Tracer)
               else _current_builder(_name))
    value = _as("full", builder, fill_value, dtype)
    if (len(value.shape) > len(shape) or not all(
            v in (1, n) for v, n in zip(reversed(value.shape), reversed(shape)))):
        raise ValueError(f"mxla.numpy.full: the fill value of shape "
                         f"{value.shape} does not broadcast to {shape}")
    return _broadcast_to(value, shape)


def zeros(shape, dtype=_np.float64):
    return full(shape, 0, _dtype("zeros", dtype), _name="zeros")


def ones(shape, dtype=_np.float64):
    return full(shape, 1, _dtype("ones", dtype), _name="ones")


def _like(name, x, dtype, shape):
    if isinstance(x, Tracer):
        like_dtype, like_shape = x.dtype, x.shape
    else:
        array = _np.asarray(x)
        like_dtype, like_shape = array.dtype, array.shape
    return (_dtype(name, like_dtype if dtype is None else dtype),
            like_shape if shape is None else shape)


def full_like(x, fill_value, dtype=None, shape=None):
    """full() of x's shape and dtype (or those given); x is not read."""
    return _full_like("full_like", x, fill_value, dtype, shape)


def _full_like(name, x, fill_value, dtype, shape):
    dtype, shape = _like(name, x, dtype, shape)
    if isinstance(x, Tracer) and not isinstance(fill_value, Tracer):
        fill_value = _as(name, x.op.builder, fill_value, dtype)
    return full(shape, fill_value, dtype, _name=name)


def zeros_like(x, dtype=None, shape=None):
    return _full_like("zeros_like", x, 0, dtype, shape)


def ones_like(x, dtype=None, shape=None):
    return _full_like("ones_like", x, 1, dtype, shape)


def arange(start, stop=None, step=None, dtype=None):
    """NumPy's arange: its values and dtype (NumPy computes them, so the
    bounds must be known while tracing); an integer range is an iota."""
    for bound in (start, stop, step):
        if isinstance(bound, Tracer):
            raise TypeError("mxla.numpy.arange: start, stop and step must "
                            "be known while tracing (Python or NumPy "
                            "numbers), not traced values: the result's "
                            "shape would depend on them")
    builder = _current_builder("arange")
    args = [v for v in (start, stop, step) if v is not None]
    values = _np.arange(*args, dtype=dtype)
    _dtype("arange", values.dtype)
    if values.dtype.kind not in "iu" or len(values) < 2:
        return Tracer(_mxla.Constant(builder, values))
    # An integer range is first + i * step, computed in int64 and wrapped
    # into its dtype (NumPy's values, whose step may not fit an unsigned
    # dtype).
    first = int(values[0])
    step = int(values[1]) - first
    iota = _mxla.Iota(builder, _np.int64, (len(values),), 0)
    ramp = _mxla.Add(_mxla.Mul(iota, step), first)
    return Tracer(_mxla.ConvertElementType(ramp, values.dtype))


__all__ = ["full", "zeros", "ones", "full_like", "zeros_like", "ones_like",
           "arange"]
