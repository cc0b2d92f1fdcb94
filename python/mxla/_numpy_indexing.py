"""NumPy's indexing on traced arrays (x[index]) and JAX's functional
updates (x.at[index].set(v), .add, .multiply, .min, .max, .get()).

An index is a tuple of integers, slices (any step: a negative one is a
forward slice and an XLA reverse), Ellipsis, None (np.newaxis), integer
arrays (NumPy arrays, lists, traced arrays) and bool arrays known while
tracing (NumPy arrays: their nonzero() positions, as NumPy). Basic
indices become a slice and a reshape; integer arrays an XLA gather with
NumPy's advanced-indexing layout: the indices broadcast together, and
their dimensions replace the indexed ones where those are adjacent, or
go first where a slice or None separates them (an integer counts as an
index array once there is one).

Bounds: an index known while tracing is checked as NumPy checks it
(IndexError). A traced one cannot be: a negative one counts from the end,
and one still out of range is clamped into it by the gather (XLA's rule,
and JAX's for reads); an update (x.at[...]) drops it, as XLA's scatter
and JAX do. A traced bool array would give a shape that depends on its
values, so it is refused, as JAX refuses it (NonConcreteBooleanIndexError).
"""
import builtins

import numpy as _np

from mxla import _mxla
from mxla import _numpy_shapes
from mxla.numpy import (Tracer, _as, _asarray, _broadcast_to, _cast,
                        _constant, reshape, where)
from mxla._numpy_reductions import _computation

_INT64 = _np.dtype(_np.int64)
_MASK = ("boolean mask indexing (x[mask] with a traced bool array) is not "
         "supported under mxla.jit: the result's shape would depend on the "
         "values; use mxla.numpy.where(mask, x, fill), or a mask known while "
         "tracing (a NumPy array)")
_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
          "(`None`) and integer or boolean arrays are valid indices")


def _entry(i):
    """One index entry, checked: a list of entries (a static bool array
    is its nonzero() positions, one per dimension)."""
    if isinstance(i, (bool, _np.bool_)):
        raise IndexError(f"mxla.numpy does not support boolean indices "
                         f"({i!r}): {_MASK}")
    if i is None or i is Ellipsis or isinstance(i, slice):
        return [i]
    if isinstance(i, Tracer):
        if i.dtype.kind == "b":
            raise IndexError(_MASK)
        if i.dtype.kind not in "iu":
            raise IndexError(f"{_VALID} (got a traced {i.dtype} array)")
        return [i]
    if isinstance(i, (int, _np.integer)):
        return [int(i)]
    if isinstance(i, list) and builtins.any(isinstance(v, Tracer) for v in i):
        # A list of traced and known integers: one traced index array.
        return _entry(_numpy_shapes.stack([_asarray("index", v) for v in i]))
    values = _np.asarray(i)
    if values.dtype.kind == "b" and values.ndim > 0:
        return list(_np.nonzero(values))
    if values.dtype.kind in "iu" or (values.size == 0 and values.ndim > 0):
        return [values.astype(_np.int64)]
    raise IndexError(f"{_VALID} (got {i!r})")


def _entries(index, ndim):
    """The index as one entry per dimension, with Nones: Ellipsis
    expanded, missing trailing dimensions as slice(None)."""
    index = index if isinstance(index, tuple) else (index,)
    entries = [e for i in index for e in _entry(i)]
    # By identity: `in` would call a traced index's ==.
    ellipses = [n for n, e in enumerate(entries) if e is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(1 for e in entries if e is not None and e is not Ellipsis)
    if used > ndim:
        raise IndexError(f"too many indices for array: array is "
                         f"{ndim}-dimensional, but {used} were indexed")
    fill = [slice(None)] * (ndim - used)
    if ellipses:
        at = ellipses[0]
        return entries[:at] + fill + entries[at + 1:]
    return entries + fill


def _is_array(e):
    return isinstance(e, (Tracer, _np.ndarray))


def _advanced(x, e, dim, size, drop):
    """An index array as int64, from the end where negative: checked if
    static; if traced and `drop`, an out-of-range index becomes `size`."""
    if not isinstance(e, Tracer):
        e = _np.asarray(e, _np.int64)
        bad = e[(e < -size) | (e >= size)]
        if bad.size:
            raise IndexError(f"index {bad[0]} is out of bounds for axis "
                             f"{dim} with size {size}")
        return _constant(x.op.builder, _np.where(e < 0, e + size, e), _INT64)
    e = _cast(e, _INT64)
    e = where(e < 0, e + size, e)
    if drop:
        e = where((e < 0) | (e >= size), size, e)
    return e


def _slice(entry, size, dim):
    """(start, limit, stride, reversed) of the forward slice that, maybe
    reversed, gives `entry` (an int, or a slice) of a dimension."""
    if isinstance(entry, int):
        if not -size <= entry < size:
            raise IndexError(f"index {entry} is out of bounds for axis {dim} "
                             f"with size {size}")
        entry %= size
        return entry, entry + 1, 1, False
    if not isinstance(entry, slice):
        return 0, size, 1, False
    start, stop, step = entry.indices(size)
    count = len(range(start, stop, step))
    if count == 0:
        return 0, 0, 1, False
    if step > 0:
        return start, start + (count - 1) * step + 1, step, False
    last = start + (count - 1) * step
    return last, start + 1, -step, True


def _select(x, entries, sizes, drop=False):
    """x[entries]; `sizes` are the dimensions the index refers to (x's,
    or one less where x is padded for an update's dropped indices)."""
    shape, dims, dim_sizes, axes = [], [], [], []
    x_dims, sizes = iter(x.shape), iter(sizes)
    for e in entries:
        if e is None:  # a new dimension of size 1, all of it taken
            shape.append(1), dim_sizes.append(1), dims.append(slice(None))
            axes.append(None)
        else:
            shape.append(next(x_dims)), dim_sizes.append(next(sizes))
            dims.append(e), axes.append(len(axes) - axes.count(None))
    if tuple(shape) != x.shape:
        x = reshape(x, tuple(shape))
    return _select_dims(x, dims, dim_sizes, axes, drop)


def _gather(x, dims, sizes, axes, drop):
    """x (after slicing) gathered at the index arrays of `dims`."""
    advanced = [d for d, e in enumerate(dims) if _is_array(e)]
    arrays = [_advanced(x, dims[d], axes[d], sizes[d], drop) for d in advanced]
    try:
        batch = _np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shown = " ".join(str(a.shape) for a in arrays)
        raise IndexError(f"shape mismatch: indexing arrays could not be "
                         f"broadcast together with shapes {shown}") from None
    columns = [reshape(_broadcast_to(a, batch), batch + (1,)) for a in arrays]
    starts = (columns[0] if len(columns) == 1 else
              Tracer(_mxla.ConcatInDim([c.op for c in columns], len(batch))))
    remaining = [d for d in range(x.ndim) if d not in advanced]
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    before = builtins.sum(1 for d in remaining if d < advanced[0]) if adjacent else 0
    out_ndim = len(remaining) + len(batch)
    offset_dims = (tuple(range(before))
                   + tuple(range(before + len(batch), out_ndim)))
    empty = [d for d in advanced if x.shape[d] == 0]
    if empty:
        # Nothing to gather from: only an empty result is in bounds.
        kept = [x.shape[d] for d in remaining]
        shape = tuple(kept[:before]) + tuple(batch) + tuple(kept[before:])
        if _np.prod(shape, dtype=_np.int64):
            raise IndexError(f"index is out of bounds for axis "
                             f"{axes[empty[0]]} with size 0")
        return Tracer(_mxla.Broadcast(
            _mxla.Constant(x.op.builder, _np.zeros((), x.dtype)), shape))
    return Tracer(_mxla.Gather(
        x.op, starts.op, offset_dims=offset_dims,
        collapsed_slice_dims=tuple(advanced), start_index_map=tuple(advanced),
        index_vector_dim=len(batch),
        slice_sizes=tuple(1 if d in advanced else n
                          for d, n in enumerate(x.shape))))


def _select_dims(x, dims, sizes, axes, drop):
    """x[dims], one entry per dimension of x (an int, a slice or an index
    array); `axes` are the dimensions' numbers in the indexed array."""
    has_arrays = builtins.any(_is_array(e) for e in dims)
    starts, limits, strides, flipped = [], [], [], []
    for d, (e, size) in enumerate(zip(dims, sizes)):
        if has_arrays and isinstance(e, int):
            e = _np.asarray(e)  # an integer is an index array here
            dims[d] = e
        start, limit, stride, flip = ((0, x.shape[d], 1, False) if _is_array(e)
                                      else _slice(e, size, axes[d]))
        starts.append(start), limits.append(limit), strides.append(stride)
        if flip:
            flipped.append(d)
    if starts != [0] * x.ndim or limits != list(x.shape) or strides != [1] * x.ndim:
        x = Tracer(_mxla.Slice(x.op, starts, limits, strides))
    if flipped:
        x = Tracer(_mxla.Rev(x.op, flipped))
    if has_arrays:
        return _gather(x, dims, sizes, axes, drop)
    kept = tuple(n for n, e in zip(x.shape, dims) if not isinstance(e, int))
    return x if kept == x.shape else reshape(x, kept)


def _index(x, index):
    """x[index]: see the module."""
    return _select(x, _entries(index, x.ndim), x.shape)


class _IndexUpdateHelper:
    """x.at: x.at[index] is the place of an update."""

    def __init__(self, x):
        self._x = x

    def __getitem__(self, index):
        return _IndexUpdateRef(self._x, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self._x!r})"


def _set(a, b):
    return b


# name: (the update's combiner, the one for bool).
_COMBINERS = {"set": (_set, _set), "add": (_mxla.Add, _mxla.Or),
              "multiply": (_mxla.Mul, _mxla.And), "min": (_mxla.Min, _mxla.And),
              "max": (_mxla.Max, _mxla.Or)}


class _IndexUpdateRef:
    """x.at[index]: each method returns a new array, x with the indexed
    elements updated (a scatter), as in JAX; duplicate indices combine
    (add accumulates; set keeps one of the values)."""

    def __init__(self, x, index):
        self._x, self._index = x, index

    def get(self):
        return _index(self._x, self._index)

    def set(self, values):
        return _scatter("set", self._x, self._index, values)

    def add(self, values):
        return _scatter("add", self._x, self._index, values)

    def multiply(self, values):
        return _scatter("multiply", self._x, self._index, values)

    mul = multiply

    def min(self, values):
        return _scatter("min", self._x, self._index, values)

    def max(self, values):
        return _scatter("max", self._x, self._index, values)


def _scatter(name, x, index, values):
    """x with the positions x[index] names updated by `values` (cast to
    x's dtype, broadcast to the indexing result): the positions are a
    gather of x's flat positions, padded with x.size, which is out of
    range, where a dropped index points."""
    builder = x.op.builder
    entries = _entries(index, x.ndim)
    flat = Tracer(_mxla.Iota(builder, _INT64, (x.size,), 0))
    positions = Tracer(_mxla.Pad(reshape(flat, x.shape).op, x.size,
                                 [0] * x.ndim, [1] * x.ndim))
    positions = _select(positions, entries, x.shape, drop=True)
    updates = _as(f"at[].{name}", builder, values, x.dtype)
    target = positions.shape
    try:
        fits = _np.broadcast_shapes(updates.shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"shape mismatch: value array of shape "
                         f"{updates.shape} could not be broadcast to "
                         f"indexing result of shape {target}")
    count = positions.size
    updates = reshape(_broadcast_to(updates, target), (count,))
    combine = _COMBINERS[name][x.dtype.kind == "b"]
    computation = _computation(name, (x.dtype, x.dtype), combine)
    out = _mxla.Scatter(reshape(x, (x.size,)).op,
                        reshape(positions, (count, 1)).op, updates.op,
                        computation, update_window_dims=(),
                        inserted_window_dims=(0,),
                        scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    return reshape(Tracer(out), x.shape)
