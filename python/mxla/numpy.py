"""A jax.numpy-style front end: NumPy functions on traced values.

Inside a function decorated with @mxla.jit, arguments are `Tracer`s: each
operation records XLA ops in the function's builder, with NumPy's
broadcasting (trailing dimensions aligned, size-1 dimensions stretched)
made explicit as XLA broadcasts. Python scalars take the other operand's
dtype (x * 0.5 stays float32, as in JAX); two arrays of different dtypes
are promoted as NumPy promotes them.
"""
import builtins

import numpy as _np

from mxla import _mxla
from mxla._traced_protocols import TracedProtocols


class Tracer(TracedProtocols):
    """A traced array: an mxla op with NumPy-style operators. NumPy's
    functions and Python's conversions raise on it (TracedProtocols)."""

    __array_priority__ = 1000  # a NumPy scalar on the left defers to us

    def __init__(self, op):
        self.op = op

    @property
    def shape(self):
        return tuple(self.op.shape)

    @property
    def dtype(self):
        return self.op.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(_np.prod(self.shape, dtype=_np.int64))

    @property
    def T(self):
        return transpose(self)

    def __repr__(self):
        return f"Tracer({self.dtype}{list(self.shape)})"

    def __add__(self, other): return add(self, other)
    def __radd__(self, other): return add(other, self)
    def __sub__(self, other): return subtract(self, other)
    def __rsub__(self, other): return subtract(other, self)
    def __mul__(self, other): return multiply(self, other)
    def __rmul__(self, other): return multiply(other, self)
    def __truediv__(self, other): return divide(self, other)
    def __rtruediv__(self, other): return divide(other, self)
    def __pow__(self, other): return power(self, other)
    def __rpow__(self, other): return power(other, self)
    def __matmul__(self, other): return matmul(self, other)
    def __rmatmul__(self, other): return matmul(other, self)
    def __neg__(self): return negative(self)
    def __abs__(self): return abs(self)
    def __lt__(self, other): return less(self, other)
    def __le__(self, other): return less_equal(self, other)
    def __gt__(self, other): return greater(self, other)
    def __ge__(self, other): return greater_equal(self, other)

    def __getitem__(self, index):
        return _index(self, index)

    def reshape(self, *shape):
        return reshape(self, shape[0] if len(shape) == 1 else shape)

    def astype(self, dtype):
        return astype(self, dtype)

    def sum(self, axis=None, keepdims=False):
        return sum(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return min(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return mean(self, axis=axis, keepdims=keepdims)


def _builder_of(*values):
    for value in values:
        if isinstance(value, Tracer):
            return value.op.builder
    raise TypeError("mxla.numpy functions need at least one traced array "
                    "(call them inside an @mxla.jit function)")


def _constant(builder, value, dtype):
    return Tracer(_mxla.Constant(builder, _np.asarray(value, dtype=dtype)))


def _operands(*values):
    """The values as Tracers of one dtype (NumPy's promotion; Python
    scalars take the traced operand's dtype)."""
    builder = _builder_of(*values)
    traced = [v for v in values if isinstance(v, Tracer)]
    arrays = [v for v in values if isinstance(v, _np.ndarray)]
    dtype = _np.result_type(*[t.dtype for t in traced],
                            *[a.dtype for a in arrays])
    out = []
    for value in values:
        if not isinstance(value, Tracer):
            value = _constant(builder, value, dtype)
        elif value.dtype != dtype:
            value = astype(value, dtype)
        out.append(value)
    return out


def _broadcast_to(x, shape):
    shape = tuple(shape)
    if x.shape == shape:
        return x
    dims = tuple(range(len(shape) - x.ndim, len(shape)))
    return Tracer(_mxla.BroadcastInDim(x.op, shape, dims))


def _broadcast_shape(*shapes):
    """NumPy's broadcast shape, or NumPy's ValueError naming the shapes."""
    try:
        return _np.broadcast_shapes(*shapes)
    except ValueError:
        shown = " ".join("(" + ",".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
                         for s in shapes)
        raise ValueError(f"operands could not be broadcast together with "
                         f"shapes {shown}") from None


def _broadcast(*values):
    """Tracers of one dtype and NumPy's broadcast shape."""
    operands = _operands(*values)
    shape = _broadcast_shape(*[o.shape for o in operands])
    return [_broadcast_to(o, shape) for o in operands]


def _binary(xla_op):
    def apply(x, y):
        a, b = _broadcast(x, y)
        return Tracer(xla_op(a.op, b.op))
    apply.__name__ = xla_op.__name__
    return apply


add = _binary(_mxla.Add)
subtract = _binary(_mxla.Sub)
multiply = _binary(_mxla.Mul)
divide = _binary(_mxla.Div)
power = _binary(_mxla.Pow)
maximum = _binary(_mxla.Max)
minimum = _binary(_mxla.Min)
arctan2 = _binary(_mxla.Atan2)
less = _binary(_mxla.Lt)
less_equal = _binary(_mxla.Le)
greater = _binary(_mxla.Gt)
greater_equal = _binary(_mxla.Ge)
equal = _binary(_mxla.Eq)
not_equal = _binary(_mxla.Ne)


def _unary(xla_op):
    def apply(x):
        (a,) = _operands(x)
        return Tracer(xla_op(a.op))
    apply.__name__ = xla_op.__name__
    return apply


negative = _unary(_mxla.Neg)
abs = _unary(_mxla.Abs)
exp = _unary(_mxla.Exp)
log = _unary(_mxla.Log)
sqrt = _unary(_mxla.Sqrt)
tanh = _unary(_mxla.Tanh)
sin = _unary(_mxla.Sin)
cos = _unary(_mxla.Cos)
floor = _unary(_mxla.Floor)
ceil = _unary(_mxla.Ceil)
sign = _unary(_mxla.Sign)


def where(condition, x, y):
    """x where condition holds, else y, all broadcast together."""
    builder = _builder_of(condition, x, y)
    if not isinstance(condition, Tracer):
        condition = _constant(builder, condition, _np.bool_)
    a, b = _operands(x, y)
    shape = _broadcast_shape(condition.shape, a.shape, b.shape)
    condition, a, b = (_broadcast_to(v, shape) for v in (condition, a, b))
    return Tracer(_mxla.Select(condition.op, a.op, b.op))


def astype(x, dtype):
    return Tracer(_mxla.ConvertElementType(x.op, _np.dtype(dtype)))


def _axes(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    normalized = []
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"axis {a} is out of bounds for an array of "
                             f"dimension {x.ndim}")
        normalized.append(a % x.ndim)
    return tuple(sorted(set(normalized)))


def _reduce(x, axis, keepdims, init, reducer):
    axes = _axes(x, axis)
    builder = x.op.builder
    out = Tracer(_mxla.Reduce(x.op, init, reducer(x.dtype, builder), axes))
    if keepdims:
        kept = tuple(1 if d in axes else n for d, n in enumerate(x.shape))
        out = reshape(out, kept)
    return out


def sum(x, axis=None, keepdims=False):
    return _reduce(x, axis, keepdims, 0, _mxla.CreateScalarAddComputation)


def max(x, axis=None, keepdims=False):
    init = -_np.inf if _np.issubdtype(x.dtype, _np.floating) else _np.iinfo(x.dtype).min
    return _reduce(x, axis, keepdims, init, _mxla.CreateScalarMaxComputation)


def min(x, axis=None, keepdims=False):
    init = _np.inf if _np.issubdtype(x.dtype, _np.floating) else _np.iinfo(x.dtype).max
    return _reduce(x, axis, keepdims, init, _mxla.CreateScalarMinComputation)


def mean(x, axis=None, keepdims=False):
    count = int(_np.prod([x.shape[a] for a in _axes(x, axis)], dtype=_np.int64))
    return sum(x, axis, keepdims) / count


def reshape(x, shape):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if shape.count(-1) == 1:
        known = int(_np.prod([n for n in shape if n != -1], dtype=_np.int64))
        shape = tuple(x.size // known if n == -1 else n for n in shape)
    return Tracer(_mxla.Reshape(x.op, shape))


def transpose(x, axes=None):
    axes = tuple(reversed(range(x.ndim))) if axes is None else tuple(axes)
    return Tracer(_mxla.Transpose(x.op, axes))


def matmul(x, y):
    """NumPy's @: 1-D operands are promoted and the added dimension
    removed; leading dimensions broadcast as a batch."""
    a, b = _operands(x, y)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: input operand does not have enough "
                         "dimensions (a scalar)")
    a_vector, b_vector = a.ndim == 1, b.ndim == 1
    if a_vector:
        a = reshape(a, (1,) + a.shape)
    if b_vector:
        b = reshape(b, b.shape + (1,))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core "
                         f"dimension 0, with gufunc signature "
                         f"(n?,k),(k,m?)->(n?,m?) (size {b.shape[-2]} is "
                         f"different from {a.shape[-1]})")
    batch = _np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = _broadcast_to(a, batch + a.shape[-2:])
    b = _broadcast_to(b, batch + b.shape[-2:])
    n = len(batch)
    out = Tracer(_mxla.DotGeneral(a.op, b.op, lhs_contracting_dims=(n + 1,),
                                  rhs_contracting_dims=(n,),
                                  lhs_batch_dims=tuple(range(n)),
                                  rhs_batch_dims=tuple(range(n))))
    if a_vector:
        out = reshape(out, out.shape[:-2] + out.shape[-1:])
    if b_vector:
        out = reshape(out, out.shape[:-1])
    return out


def _index(x, index):
    """Basic indexing: integers, slices (positive steps) and Ellipsis."""
    index = index if isinstance(index, tuple) else (index,)
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        fill = x.ndim - (len(index) - 1)
        index = index[:at] + (slice(None),) * fill + index[at + 1:]
    if len(index) > x.ndim:
        raise IndexError(f"too many indices for array: array is "
                         f"{x.ndim}-dimensional, but {len(index)} were indexed")
    index = index + (slice(None),) * (x.ndim - len(index))
    starts, limits, strides, kept = [], [], [], []
    for dim, (i, size) in enumerate(zip(index, x.shape)):
        if isinstance(i, (int, _np.integer)):
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {dim} "
                                 f"with size {size}")
            i = int(i) % size
            starts.append(i), limits.append(i + 1), strides.append(1)
        elif isinstance(i, slice):
            start, stop, step = i.indices(size)
            if step <= 0:
                raise IndexError("mxla.numpy slices need a positive step")
            stop = builtins.max(start, stop)
            starts.append(start), limits.append(stop), strides.append(step)
            kept.append(len(range(start, stop, step)))
        else:
            raise IndexError(f"unsupported index {i!r} (integers, slices and "
                             f"... are supported)")
    out = Tracer(_mxla.Slice(x.op, starts, limits, strides))
    return out if len(kept) == x.ndim else reshape(out, tuple(kept))
