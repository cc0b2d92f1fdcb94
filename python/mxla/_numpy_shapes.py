"""mxla.numpy's functions that move or select elements: concatenate,
stack, squeeze, expand_dims, tril, triu, clip, sort, argsort, take and
take_along_axis.

sort and argsort are XLA's stable sort; floats sort as NumPy's do, with
NaN after everything and -0.0 equal to 0.0. take and take_along_axis are
gathers: an index known while tracing (a NumPy array or Python ints) is
checked as NumPy checks it (IndexError), a traced one cannot be, and is
clamped into range as XLA's gather (and JAX's take with mode='clip')
does; a negative index counts from the end, as in NumPy, either way.
"""
import builtins
import operator

import numpy as _np

from mxla import _mxla
from mxla.numpy import (Tracer, _as, _asarray, _axes, _broadcast_shape,
                        _broadcast_to, _cast, _result_type, maximum, minimum,
                        reshape, where)
from mxla._numpy_reductions import _computation

_INT64 = _np.dtype(_np.int64)


def _common(name, arrays):
    """The arrays as Tracers of their promoted dtype."""
    if isinstance(arrays, Tracer):
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"mxla.numpy.{name}: need at least one array to "
                         f"{'concatenate' if name == 'concatenate' else 'stack'}")
    arrays = [_asarray(name, a) for a in arrays]
    dtype = _result_type(name, *arrays)
    return [_cast(a, dtype) for a in arrays]


def concatenate(arrays, axis=0):
    """NumPy's concatenate: the arrays' dtypes promoted; every dimension
    but `axis` must match (None: the arrays flattened)."""
    arrays = _common("concatenate", arrays)
    if axis is None:
        arrays = [reshape(a, (a.size,)) for a in arrays]
        axis = 0
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError("mxla.numpy.concatenate: zero-dimensional arrays "
                         "cannot be concatenated")
    (axis,) = _axes(first, axis)
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise ValueError(
                f"mxla.numpy.concatenate: all the input arrays must have "
                f"same number of dimensions, but the array at index 0 has "
                f"{first.ndim} dimension(s) and the array at index {i} has "
                f"{a.ndim} dimension(s)")
        for d in range(first.ndim):
            if d != axis and a.shape[d] != first.shape[d]:
                raise ValueError(
                    f"mxla.numpy.concatenate: all the input array "
                    f"dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at "
                    f"index 0 has size {first.shape[d]} and the array at "
                    f"index {i} has size {a.shape[d]}")
    if len(arrays) == 1:
        return first
    return Tracer(_mxla.ConcatInDim([a.op for a in arrays], axis))


def stack(arrays, axis=0):
    """NumPy's stack: arrays of one shape joined along a new `axis`."""
    arrays = _common("stack", arrays)
    shape = arrays[0].shape
    for a in arrays[1:]:
        if a.shape != shape:
            raise ValueError("mxla.numpy.stack: all input arrays must have "
                             f"the same shape (got {shape} and {a.shape})")
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


def expand_dims(x, axis):
    """x with a size-1 dimension at each of `axis` (positions in the
    result)."""
    x = _asarray("expand_dims", x)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = x.ndim + len(axes)
    new = _axes(_Rank(ndim), axes)
    sizes = iter(x.shape)
    return reshape(x, tuple(1 if d in new else next(sizes) for d in range(ndim)))


class _Rank:
    """Something with an ndim, for _axes."""

    def __init__(self, ndim):
        self.ndim = ndim


def squeeze(x, axis=None):
    """x without its size-1 dimensions (or those of `axis`, which must
    have size 1)."""
    x = _asarray("squeeze", x)
    axes = (tuple(d for d, n in enumerate(x.shape) if n == 1)
            if axis is None else _axes(x, axis))
    for d in axes:
        if x.shape[d] != 1:
            raise ValueError(f"mxla.numpy.squeeze: cannot select an axis to "
                             f"squeeze out which has size not equal to one "
                             f"(axis {d} has size {x.shape[d]})")
    return reshape(x, tuple(n for d, n in enumerate(x.shape) if d not in axes))


def _triangle(name, x, k, keep):
    x = _asarray(name, x)
    if x.ndim < 2:
        raise ValueError(f"mxla.numpy.{name}: the array must be at least "
                         f"2-D (it is {x.ndim}-D), as in JAX")
    k = operator.index(k)
    builder = x.op.builder
    rows = _mxla.Iota(builder, _INT64, x.shape, x.ndim - 2)
    cols = _mxla.Iota(builder, _INT64, x.shape, x.ndim - 1)
    offset = Tracer(_mxla.Sub(cols, rows))
    zero = _broadcast_to(_as(name, builder, 0, x.dtype), x.shape)
    return where(keep(offset, k), x, zero)


def tril(x, k=0):
    """x with the elements above diagonal k zeroed (the last two
    dimensions)."""
    return _triangle("tril", x, k, lambda offset, k: offset <= k)


def triu(x, k=0):
    """x with the elements below diagonal k zeroed."""
    return _triangle("triu", x, k, lambda offset, k: offset >= k)


def clip(x, a_min=None, a_max=None):
    """minimum(maximum(x, a_min), a_max), as NumPy's clip: NumPy's dtype
    rules, NaN kept, a_max winning where a_min > a_max."""
    if a_min is None and a_max is None:
        raise ValueError("mxla.numpy.clip: One of max or min must be given")
    out = _asarray("clip", x)
    if a_min is not None:
        out = maximum(out, a_min)
    if a_max is not None:
        out = minimum(out, a_max)
    return out


def _less(dtype):
    """The comparator of NumPy's sort order on two scalars of `dtype`."""
    def body(a, b, *rest):
        if dtype.kind == "b":
            return _mxla.And(_mxla.Not(a), b)
        less = _mxla.Lt(a, b)
        if dtype.kind == "f":
            # NaN sorts last.
            less = _mxla.Or(less, _mxla.And(_mxla.Eq(a, a), _mxla.Ne(b, b)))
        return less
    return body


def _sort(name, x, axis, with_indices):
    x = _asarray(name, x)
    if axis is None:
        x, axis = reshape(x, (x.size,)), 0
    if x.ndim == 0:
        raise ValueError(f"mxla.numpy.{name}: a 0-d array has no axis to "
                         f"sort (give axis=None)")
    (axis,) = _axes(x, axis)
    dtypes = (x.dtype,) * 2 + ((_INT64,) * 2 if with_indices else ())
    comparator = _computation(name, dtypes, _less(x.dtype))
    operands = [x.op]
    if with_indices:
        operands.append(_mxla.Iota(x.op.builder, _INT64, x.shape, axis))
    out = _mxla.Sort(operands, comparator, axis, is_stable=True)
    return Tracer(_mxla.GetTupleElement(out, 1) if with_indices else out)


_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _check_kind(name, kind):
    """Every kind NumPy takes gives the stable order (a valid answer for
    the unstable kinds too)."""
    if kind not in _KINDS:
        raise ValueError(f"mxla.numpy.{name}: sort kind must be one of "
                         f"'quicksort', 'heapsort', 'mergesort' or 'stable' "
                         f"(got {kind!r})")


def sort(x, axis=-1, kind=None):
    """NumPy's sort along `axis` (None: of the flattened array)."""
    _check_kind("sort", kind)
    return _sort("sort", x, axis, False)


def argsort(x, axis=-1, kind=None):
    """NumPy's argsort, stable whatever `kind`: int64 indices."""
    _check_kind("argsort", kind)
    return _sort("argsort", x, axis, True)


def _index_array(name, indices, axis, size, mode):
    """The indices as an int64 Tracer: checked against `size` if known
    while tracing (IndexError), negative ones counted from the end;
    mode 'wrap' takes them modulo size, 'clip' clips them (NumPy's)."""
    if mode not in (None, "clip", "wrap"):
        raise ValueError(f"mxla.numpy.{name}: mode {mode!r} is not supported "
                         f"(None: negative from the end, out of range "
                         f"clamped when traced; 'clip'; 'wrap')")
    if not isinstance(indices, Tracer):
        values = _np.asarray(indices)
        if values.dtype.kind not in "iu" and values.size:
            raise IndexError(f"mxla.numpy.{name}: indices must be integers, "
                             f"not {values.dtype}")
        values = values.astype(_np.int64)
        if mode is None:
            bad = values[(values < -size) | (values >= size)]
            if bad.size:
                raise IndexError(f"index {bad[0]} is out of bounds for axis "
                                 f"{axis} with size {size}")
        indices = _asarray(name, values)
    if indices.dtype.kind not in "iu":
        raise IndexError(f"mxla.numpy.{name}: indices must be integers, not "
                         f"{indices.dtype}")
    indices = _cast(indices, _INT64)
    if mode == "wrap":
        return indices % size if size else indices
    if mode == "clip":
        return clip(indices, 0, builtins.max(size - 1, 0))
    return where(indices < 0, indices + size, indices)


def take(a, indices, axis=None, mode=None):
    """NumPy's take: a.shape[:axis] + indices.shape + a.shape[axis+1:]
    (of the flattened array when axis is None); see the module for
    indices out of range."""
    a = _asarray("take", a)
    if axis is None:
        a, axis = reshape(a, (a.size,)), 0
    (axis,) = _axes(a, axis)
    indices = _index_array("take", indices, axis, a.shape[axis], mode)
    out_ndim = a.ndim - 1 + indices.ndim
    offset_dims = (tuple(range(axis))
                   + tuple(range(axis + indices.ndim, out_ndim)))
    sizes = tuple(1 if d == axis else n for d, n in enumerate(a.shape))
    return Tracer(_mxla.Gather(a.op, indices.op, offset_dims=offset_dims,
                               collapsed_slice_dims=(axis,),
                               start_index_map=(axis,),
                               index_vector_dim=indices.ndim,
                               slice_sizes=sizes))


def take_along_axis(arr, indices, axis):
    """NumPy's take_along_axis: indices of arr's rank, broadcast with arr
    on the other dimensions, pick along `axis` (None: arr flattened)."""
    arr = _asarray("take_along_axis", arr)
    if axis is None:
        arr, axis = reshape(arr, (arr.size,)), 0
    indices = (indices if isinstance(indices, Tracer)
               else _np.asarray(indices))
    if indices.ndim != arr.ndim:
        raise ValueError(f"mxla.numpy.take_along_axis: `indices` and `arr` "
                         f"must have the same number of dimensions "
                         f"({indices.ndim} and {arr.ndim})")
    (axis,) = _axes(arr, axis)
    indices = _index_array("take_along_axis", indices, axis,
                           arr.shape[axis], None)
    shape = list(_broadcast_shape(
        tuple(1 if d == axis else n for d, n in enumerate(arr.shape)),
        tuple(1 if d == axis else n for d, n in enumerate(indices.shape))))
    shape[axis] = indices.shape[axis]
    shape = tuple(shape)
    builder = arr.op.builder
    coordinates = []
    for d in range(arr.ndim):
        c = (_broadcast_to(indices, shape) if d == axis
             else Tracer(_mxla.Iota(builder, _INT64, shape, d)))
        coordinates.append(reshape(c, shape + (1,)))
    if arr.shape != shape:
        arr = _broadcast_to(arr, tuple(
            n if d == axis else shape[d] for d, n in enumerate(arr.shape)))
    starts = Tracer(_mxla.ConcatInDim([c.op for c in coordinates], len(shape)))
    return Tracer(_mxla.Gather(arr.op, starts.op, offset_dims=(),
                               collapsed_slice_dims=tuple(range(arr.ndim)),
                               start_index_map=tuple(range(arr.ndim)),
                               index_vector_dim=arr.ndim,
                               slice_sizes=(1,) * arr.ndim))


__all__ = ["concatenate", "stack", "expand_dims", "squeeze", "tril", "triu",
           "clip", "sort", "argsort", "take", "take_along_axis"]
