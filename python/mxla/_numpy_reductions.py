"""mxla.numpy's reductions beyond sum and mean: max and min (with NumPy's
`initial=` and `where=`), argmax and argmin, cumsum and cumprod, var and
std, logsumexp and log_softmax.

argmax and argmin are one variadic XLA reduce over (value, index) pairs
whose reducer keeps NumPy's answer whatever order XLA combines them in:
the larger (smaller) value, NaN above everything, and the lower index
among equals. cumsum and cumprod are a scan in log2(n) steps (Hillis and
Steele's, as JAX's associative_scan on the CPU): step k combines each
element with the one 2^k before it, so the work is n log n where a
reduce-window over every prefix would be n^2; a float prefix may round
differently from NumPy's left-to-right loop.
"""
import builtins

import numpy as _np

from mxla import _mxla
from mxla.numpy import (Tracer, _as, _asarray, _axes, _broadcast_to, _cast,
                        _reduce, _resolve, exp, log, reshape, sum, where)

_FLOAT64 = _np.dtype(_np.float64)
_INT64 = _np.dtype(_np.int64)


def _computation(name, dtypes, body):
    """A scalar computation of parameters of `dtypes`: body(*params), a
    tuple of ops for a tuple result."""
    builder = _mxla.XlaBuilder(name)
    params = [_mxla.Parameter(builder, i, d, (), f"p{i}")
              for i, d in enumerate(dtypes)]
    out = body(*params)
    return builder.build(_mxla.Tuple(list(out)) if isinstance(out, tuple) else out)


def _identity(x, bound):
    """The lowest (bound < 0) or highest (bound > 0) value of x's dtype."""
    if x.dtype.kind == "b":
        return bound > 0
    if x.dtype.kind == "f":
        return bound * _np.inf
    info = _np.iinfo(x.dtype)
    return info.min if bound < 0 else info.max


def _extreme(name, ufunc_name, x, axis, keepdims, initial, mask, reducer,
             bound):
    x = _asarray(name, x)
    axes = _axes(x, axis)
    if mask is not None and initial is None:
        raise ValueError(f"mxla.numpy.{name}: reduction operation "
                         f"'{ufunc_name}' does not have an identity, so to "
                         f"use a where mask one has to specify 'initial'")
    if initial is None and builtins.any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"mxla.numpy.{name}: zero-size array to reduction "
                         f"operation {ufunc_name} which has no identity")
    builder = x.op.builder
    init = _as(name, builder, _identity(x, bound) if initial is None
               else initial, x.dtype)
    if mask is not None:
        mask = _asarray(name, mask)
        try:
            fits = _np.broadcast_shapes(x.shape, mask.shape) == x.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"mxla.numpy.{name}: the where mask of shape "
                             f"{mask.shape} does not broadcast to the "
                             f"array's shape {x.shape}")
        mask = _broadcast_to(_cast(mask, _np.dtype(_np.bool_)), x.shape)
        x = where(mask, x, _broadcast_to(init, x.shape))
    return _reduce(x, axes, keepdims, init.op, reducer)


def max(x, axis=None, keepdims=False, initial=None, where=None):
    """NumPy's max (amax): NaN propagates; `initial` joins the reduced
    values and `where` (broadcast to x) leaves elements out, which
    requires `initial`, as in NumPy."""
    return _extreme("max", "maximum", x, axis, keepdims, initial, where,
                    _mxla.CreateScalarMaxComputation, -1)


def min(x, axis=None, keepdims=False, initial=None, where=None):
    """NumPy's min (amin); see max."""
    return _extreme("min", "minimum", x, axis, keepdims, initial, where,
                    _mxla.CreateScalarMinComputation, 1)


amax, amin = max, min


def _arg_reducer(dtype, larger):
    """(value, index) pairs to the pair NumPy's argmax (larger) or argmin
    keeps: the better value, NaN first, the lower index on a tie."""
    def body(a, ia, b, ib):
        better = _mxla.Gt(a, b) if larger else _mxla.Lt(a, b)
        tie = _mxla.Eq(a, b)
        if dtype.kind == "f":
            a_nan, b_nan = _mxla.Ne(a, a), _mxla.Ne(b, b)
            better = _mxla.Or(better, _mxla.And(a_nan, _mxla.Not(b_nan)))
            tie = _mxla.Or(tie, _mxla.And(a_nan, b_nan))
        keep_a = _mxla.Or(better, _mxla.And(tie, _mxla.Lt(ia, ib)))
        return (_mxla.Select(keep_a, a, b), _mxla.Select(keep_a, ia, ib))
    name = "argmax" if larger else "argmin"
    return _computation(name, (dtype, _INT64, dtype, _INT64), body)


def _argextreme(name, x, axis, keepdims, larger):
    x = _asarray(name, x)
    if axis is None:
        flat = reshape(x, (x.size,))
        out = _argextreme(name, flat, 0, False, larger)
        return reshape(out, (1,) * x.ndim) if keepdims else out
    (axis,) = _axes(x, axis)
    if x.shape[axis] == 0:
        raise ValueError(f"mxla.numpy.{name}: attempt to get {name} of an "
                         f"empty sequence")
    if x.dtype.kind == "b":
        x = _cast(x, _np.dtype(_np.uint8))
    builder = x.op.builder
    index = _mxla.Iota(builder, _INT64, x.shape, axis)
    init = _as(name, builder, _identity(x, -1 if larger else 1), x.dtype)
    last = _as(name, builder, _np.iinfo(_np.int64).max, _INT64)
    pair = _mxla.ReduceVariadic([x.op, index], [init.op, last.op],
                                _arg_reducer(x.dtype, larger), (axis,))
    out = Tracer(_mxla.GetTupleElement(pair, 1))
    if keepdims:
        out = reshape(out, x.shape[:axis] + (1,) + x.shape[axis + 1:])
    return out


def argmax(x, axis=None, keepdims=False):
    """NumPy's argmax: the first index of the largest value (of the first
    NaN, if any), int64; the flattened array's when axis is None."""
    return _argextreme("argmax", x, axis, keepdims, True)


def argmin(x, axis=None, keepdims=False):
    """NumPy's argmin; see argmax."""
    return _argextreme("argmin", x, axis, keepdims, False)


def _scan(x, axis, combine, identity):
    """The inclusive prefix combination of x along `axis`: at each step,
    x combined with itself shifted `step` places on (the identity in the
    places it leaves), `step` doubling."""
    n = x.shape[axis]
    builder = x.op.builder
    low, high = [0] * x.ndim, [0] * x.ndim
    out, step = x.op, 1
    while step < n:
        low[axis], high[axis] = step, -step  # shifted by `step`, same size
        shifted = _mxla.Pad(out, _as("scan", builder, identity, x.dtype).op,
                            low, high)
        out = combine(out, shifted)
        step *= 2
    return Tracer(out)


def _cumulative(name, x, axis, dtype, combine, identity, numpy_fn):
    x = _asarray(name, x)
    if axis is None:
        x, axis = reshape(x, (x.size,)), 0
    (axis,) = _axes(x, axis)
    out_dtype = (numpy_fn(_np.zeros(1, x.dtype)).dtype if dtype is None
                 else _np.dtype(dtype))
    # float16 accumulates in float32 and rounds once.
    work = _np.dtype(_np.float32) if out_dtype == _np.float16 else out_dtype
    x = _cast(x, work)
    if x.shape[axis] == 0:
        return _cast(x, out_dtype)
    return _cast(_scan(x, axis, combine[work.kind == "b"], identity), out_dtype)


def cumsum(x, axis=None, dtype=None):
    """NumPy's cumsum: of the flattened array when axis is None; bool and
    small integers accumulate as int64 (uint64), as NumPy's do."""
    return _cumulative("cumsum", x, axis, dtype, (_mxla.Add, _mxla.Or), 0,
                       _np.cumsum)


def cumprod(x, axis=None, dtype=None):
    """NumPy's cumprod; see cumsum."""
    return _cumulative("cumprod", x, axis, dtype, (_mxla.Mul, _mxla.And), 1,
                       _np.cumprod)


def var(x, axis=None, ddof=0, keepdims=False):
    """NumPy's var: the mean of squared deviations, divided by N - ddof
    (inf or nan where that is not positive, as NumPy); bool and integers
    in float64, float16 computed in float32."""
    x = _asarray("var", x)
    axes = _axes(x, axis)
    count = int(_np.prod([x.shape[a] for a in axes], dtype=_np.int64))
    dtype = x.dtype if x.dtype.kind == "f" else _FLOAT64
    work = _np.dtype(_np.float32) if dtype == _np.float16 else dtype
    x = _cast(x, work)
    deviation = x - sum(x, axes, keepdims=True) / _as("var", x.op.builder,
                                                      count, work)
    squares = sum(deviation * deviation, axes, keepdims)
    divisor = _as("var", x.op.builder, builtins.max(count - ddof, 0), work)
    return _cast(squares / divisor, dtype)


def std(x, axis=None, ddof=0, keepdims=False):
    """NumPy's std: the square root of var."""
    out = var(x, axis, ddof, keepdims)
    return _cast(Tracer(_mxla.Sqrt(out.op)), out.dtype)


def _float(name, x):
    """x in the float dtype NumPy's exp would compute it in."""
    x = _asarray(name, x)
    (dtype,), _ = _resolve(name, _np.exp, (x,))
    return _cast(x, dtype)


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) without overflow: the largest value (where
    finite) is taken out first, as in scipy.special.logsumexp."""
    x = _float("logsumexp", x)
    axes = _axes(x, axis)
    peak = max(x, axes, keepdims=True)
    finite = Tracer(_mxla.IsFinite(peak.op))
    peak = where(finite, peak, 0.0)
    out = log(sum(exp(x - peak), axes, keepdims=True)) + peak
    if not keepdims:
        out = reshape(out, tuple(n for d, n in enumerate(x.shape)
                                 if d not in axes))
    return out


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`, as jax.nn.log_softmax computes it:
    the maximum taken out, then the log of the sum of exponentials."""
    x = _float("log_softmax", x)
    shifted = x - max(x, axis, keepdims=True)
    return shifted - log(sum(exp(shifted), axis, keepdims=True))


__all__ = ["max", "min", "amax", "amin", "argmax", "argmin", "cumsum",
           "cumprod", "var", "std", "logsumexp", "log_softmax"]
