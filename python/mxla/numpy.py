"""A jax.numpy-style front end: NumPy functions on traced values.

Inside a function decorated with @mxla.jit, arguments are `Tracer`s: each
operation records XLA ops in the function's builder, with NumPy's
broadcasting (trailing dimensions aligned, size-1 dimensions stretched)
made explicit as XLA broadcasts. Dtypes follow NumPy's own type
resolution (each function asks its NumPy ufunc which loop it would run,
so int32 / int32 is float64 and exp(int8) is float16), with Python scalars
weak as in NumPy 2 (NEP 50) and JAX: a Python int or float takes the
array's dtype when the array's kind is as high (x_f32 * 0.5 stays float32,
x_int8 + 3 stays int8), and the default dtype otherwise (x_int8 * 0.5 is
float64). A Python int that the array's integer dtype cannot hold raises
OverflowError, as in NumPy 2 (NumPy 1.24 widens instead). NumPy scalars
and arrays, 0-d or not, promote by dtype alone, as in NumPy 2 and JAX.
"""
import builtins
import contextlib
import operator
import threading

import numpy as _np

from mxla import _capture, _mxla
from mxla._traced_protocols import TracedProtocols


class Tracer(TracedProtocols):
    """A traced array: an mxla op with NumPy-style operators. NumPy's
    functions and Python's conversions raise on it (TracedProtocols)."""

    __array_priority__ = 1000  # a NumPy scalar on the left defers to us
    __hash__ = None  # == is elementwise, as for NumPy arrays

    def __init__(self, op, weak=None):
        self._op = op
        # int or float for a value that stands for a Python scalar (an
        # @mxla.jit argument): it promotes like one (see _kind).
        self.weak = weak
        # The integer dtypes a weak int was converted to: @mxla.jit checks
        # that the argument's value fits them, as a literal's would.
        self.narrowed = []

    @property
    def op(self):
        """The traced op; inside a function that mxla.grad or mxla.vjp
        traces, an enclosing function's value is an extra parameter of
        that function's computation (mxla/_capture.py)."""
        return _capture.op_in_active_trace(self, self._op)

    @property
    def shape(self):
        return tuple(self._op.shape)

    @property
    def dtype(self):
        return self._op.dtype

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
    def __floordiv__(self, other): return floor_divide(self, other)
    def __rfloordiv__(self, other): return floor_divide(other, self)
    def __mod__(self, other): return remainder(self, other)
    def __rmod__(self, other): return remainder(other, self)
    def __and__(self, other): return bitwise_and(self, other)
    def __rand__(self, other): return bitwise_and(other, self)
    def __or__(self, other): return bitwise_or(self, other)
    def __ror__(self, other): return bitwise_or(other, self)
    def __xor__(self, other): return bitwise_xor(self, other)
    def __rxor__(self, other): return bitwise_xor(other, self)
    def __lshift__(self, other): return left_shift(self, other)
    def __rlshift__(self, other): return left_shift(other, self)
    def __rshift__(self, other): return right_shift(self, other)
    def __rrshift__(self, other): return right_shift(other, self)
    def __invert__(self): return invert(self)
    def __neg__(self): return negative(self)
    def __abs__(self): return abs(self)
    def __lt__(self, other): return less(self, other)
    def __le__(self, other): return less_equal(self, other)
    def __gt__(self, other): return greater(self, other)
    def __ge__(self, other): return greater_equal(self, other)
    def __eq__(self, other): return equal(self, other)
    def __ne__(self, other): return not_equal(self, other)

    def __getitem__(self, index):
        return _index(self, index)

    @property
    def at(self):
        """x.at[index].set(v), .add, .multiply, .min, .max, .get(): a new
        array, as in JAX (a scatter)."""
        return _IndexUpdateHelper(self)

    def reshape(self, *shape):
        return reshape(self, shape[0] if len(shape) == 1 else shape)

    def astype(self, dtype):
        return astype(self, dtype)

    def sum(self, axis=None, keepdims=False):
        return sum(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False, initial=None, where=None):
        return max(self, axis, keepdims=keepdims, initial=initial, where=where)

    def min(self, axis=None, keepdims=False, initial=None, where=None):
        return min(self, axis, keepdims=keepdims, initial=initial, where=where)

    def prod(self, axis=None, keepdims=False, dtype=None):
        return prod(self, axis=axis, keepdims=keepdims, dtype=dtype)

    def mean(self, axis=None, keepdims=False):
        return mean(self, axis=axis, keepdims=keepdims)

    def var(self, axis=None, ddof=0, keepdims=False):
        return var(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, ddof=0, keepdims=False):
        return std(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        return argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return argmin(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        return cumsum(self, axis=axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None):
        return cumprod(self, axis=axis, dtype=dtype)

    def clip(self, a_min=None, a_max=None):
        return clip(self, a_min, a_max)

    def squeeze(self, axis=None):
        return squeeze(self, axis=axis)

    def sort(self, axis=-1):
        return sort(self, axis=axis)

    def argsort(self, axis=-1):
        return argsort(self, axis=axis)

    def take(self, indices, axis=None, mode=None):
        return take(self, indices, axis=axis, mode=mode)

    def flatten(self):
        return reshape(self, (self.size,))

    def ravel(self):
        return reshape(self, (self.size,))


# The builders of the @mxla.jit traces under way on this thread, innermost
# last: functions with no traced operand (zeros, arange, add of two NumPy
# arrays) record their ops in the innermost one, or in the function that
# mxla.grad or mxla.vjp traces inside it (mxla/_capture.py).
_TRACES = threading.local()


@contextlib.contextmanager
def _tracing(builder):
    """While tracing a function into `builder` (@mxla.jit's _Traced)."""
    stack = _TRACES.__dict__.setdefault("builders", [])
    stack.append(builder)
    try:
        yield
    finally:
        stack.pop()


def _trace_builder():
    """The builder of the innermost trace, or None outside one."""
    if _capture._ACTIVE:
        return _capture._ACTIVE[-1].builder
    stack = getattr(_TRACES, "builders", None)
    return stack[-1] if stack else None


def _current_builder(name):
    builder = _trace_builder()
    if builder is None:
        raise TypeError(f"mxla.numpy.{name} needs a trace: call it inside an "
                        f"@mxla.jit function (or give it a traced array)")
    return builder


def _builder_of(*values):
    for value in values:
        if isinstance(value, Tracer):
            return value.op.builder
    builder = _trace_builder()
    if builder is not None:
        return builder
    raise TypeError("mxla.numpy functions need at least one traced array "
                    "(call them inside an @mxla.jit function)")


def _constant(builder, value, dtype):
    return Tracer(_mxla.Constant(builder, _np.asarray(value, dtype=dtype)))


def _asarray(name, x):
    """`x` as a Tracer: itself, or a NumPy array or Python number as a
    constant of the innermost trace (its NumPy dtype)."""
    if isinstance(x, Tracer):
        return x
    dtype = _kind(name, x)
    if isinstance(dtype, type):
        dtype = _np.dtype(_np.int64 if dtype is int else _np.float64)
    return _constant(_current_builder(name), x, dtype)


# The dtypes mxla.numpy computes in (NumPy's names for mxla's types).
_DTYPES = tuple(_np.dtype(t) for t in (
    _np.bool_, _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8,
    _np.uint16, _np.uint32, _np.uint64, _np.float16, _np.float32,
    _np.float64))


def _is_python_scalar(value):
    """A Python bool, int or float (np.float64 is a float too, but a
    NumPy scalar promotes by its dtype)."""
    return (isinstance(value, (bool, int, float))
            and not isinstance(value, _np.generic))


def _is_weak(value):
    if isinstance(value, Tracer):
        return value.weak is not None
    return _is_python_scalar(value) and not isinstance(value, bool)


def _kind(name, value):
    """How `value` takes part in type resolution, as NumPy's
    ufunc.resolve_dtypes takes it: a dtype, or the type int or float for
    a weak value (a Python int or float, or a Tracer standing for one).
    A Python bool is a bool (the lowest kind: weak or not, the same)."""
    if isinstance(value, Tracer):
        return value.weak or value.dtype
    if _is_python_scalar(value):
        if isinstance(value, bool):
            return _np.dtype(_np.bool_)
        return int if isinstance(value, int) else float
    dtype = _np.asarray(value).dtype
    if dtype not in _DTYPES:
        raise TypeError(f"mxla.numpy.{name}: unsupported operand {value!r} "
                        f"of dtype {dtype} (mxla.numpy takes bool, "
                        f"int8-64, uint8-64 and float16/32/64)")
    return dtype


def _describe(kind):
    return f"Python {kind.__name__}" if isinstance(kind, type) else str(kind)


def _result_type(name, *values):
    """NumPy's promotion of the values' kinds, Python scalars weak."""
    kinds = [_kind(name, v) for v in values]
    strong = [k for k in kinds if not isinstance(k, type)]
    weak = [k for k in kinds if isinstance(k, type)]
    if not strong:
        return _np.dtype(_np.float64 if float in weak else _np.int64)
    dtype = _np.result_type(*strong)
    if float in weak and dtype.kind in "biu":
        return _np.dtype(_np.float64)
    if int in weak and dtype.kind == "b":
        return _np.dtype(_np.int64)
    return dtype


def _resolve(name, ufunc, values):
    """The input and output dtypes of the loop NumPy's `ufunc` runs for
    the values, or TypeError where NumPy has none."""
    kinds = tuple(_kind(name, v) for v in values)
    try:
        dtypes = ufunc.resolve_dtypes(kinds + (None,))
    except TypeError as error:
        raise TypeError(f"mxla.numpy.{name} does not support "
                        f"{' and '.join(_describe(k) for k in kinds)} "
                        f"operands, as NumPy does not ({error})") from None
    return dtypes[:-1], dtypes[-1]


def _fits(value, dtype):
    info = _np.iinfo(dtype)
    return info.min <= value <= info.max


def _cast(x, dtype):
    return x if x.dtype == dtype else astype(x, dtype)


def _as(name, builder, value, dtype):
    """`value` as a Tracer of `dtype`. A Python int must fit an integer
    dtype (NumPy 2's rule); a Python float past float16's range is inf."""
    if isinstance(value, Tracer):
        if value.weak is int and value.dtype != dtype and dtype.kind in "iu":
            value.narrowed.append(dtype)
        return _cast(value, dtype)
    if (_is_python_scalar(value) and not isinstance(value, bool)
            and dtype.kind in "iu" and not _fits(value, dtype)):
        raise OverflowError(f"mxla.numpy.{name}: Python int {value} is out "
                            f"of bounds for {dtype}, the dtype it takes "
                            f"next to the other operand")
    with _np.errstate(over="ignore"):
        return _constant(builder, value, dtype)


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


def _elementwise(name, ufunc, lower):
    """mxla.numpy.<name>: the operands converted to the dtypes of the loop
    NumPy's `ufunc` would run, broadcast, then lower(dtype, *ops)."""
    def apply(*values):
        builder = _builder_of(*values)
        in_dtypes, out_dtype = _resolve(name, ufunc, values)
        operands = [_as(name, builder, v, d) for v, d in zip(values, in_dtypes)]
        shape = _broadcast_shape(*[o.shape for o in operands])
        ops = [_broadcast_to(o, shape).op for o in operands]
        out = Tracer(lower(in_dtypes[0], *ops))
        assert out.dtype == out_dtype, (name, out.dtype, out_dtype)
        # Arithmetic on weak floats alone stays weak, as in JAX.
        if out_dtype.kind == "f" and builtins.all(_is_weak(v) for v in values):
            out.weak = float
        return out
    apply.__name__ = name
    apply.__qualname__ = name
    return apply


def _on_bool(bool_op, op):
    """`op`, or `bool_op` on bool (NumPy's bool add is or, multiply and)."""
    return lambda dtype, *ops: (bool_op if dtype.kind == "b" else op)(*ops)


def _plain(op):
    return lambda dtype, *ops: op(*ops)


def _identity_on(kinds, op):
    """`op`, or the operand itself for dtypes of `kinds`."""
    return lambda dtype, x: x if dtype.kind in kinds else op(x)


add = _elementwise("add", _np.add, _on_bool(_mxla.Or, _mxla.Add))
subtract = _elementwise("subtract", _np.subtract, _plain(_mxla.Sub))
multiply = _elementwise("multiply", _np.multiply, _on_bool(_mxla.And, _mxla.Mul))
divide = _elementwise("divide", _np.true_divide, _plain(_mxla.Div))
maximum = _elementwise("maximum", _np.maximum, _on_bool(_mxla.Or, _mxla.Max))
minimum = _elementwise("minimum", _np.minimum, _on_bool(_mxla.And, _mxla.Min))
arctan2 = _elementwise("arctan2", _np.arctan2, _plain(_mxla.Atan2))
_power = _elementwise("power", _np.power, _plain(_mxla.Pow))


def power(x, y):
    """x ** y. NumPy refuses an integer raised to a negative integer; so
    does this where the exponent is known while tracing (a traced one
    follows XLA's rule instead: see docs/python.md)."""
    if not isinstance(y, Tracer) and not isinstance(y, float):
        in_dtypes, _ = _resolve("power", _np.power, (x, y))
        exponent = _np.asarray(y)
        if in_dtypes[0].kind in "biu" and (exponent < 0).any():
            raise ValueError("mxla.numpy.power: integers to negative integer "
                             "powers are not allowed (as in NumPy)")
    return _power(x, y)


def _comparison(name, ufunc, xla_op, python_op):
    compare = _elementwise(name, ufunc, _plain(xla_op))

    def apply(x, y):
        values = (x, y)
        for i in (0, 1):
            scalar, other = values[i], values[1 - i]
            if (isinstance(other, Tracer) and other.weak is None
                    and other.dtype.kind in "iu" and _is_python_scalar(scalar)
                    and not isinstance(scalar, bool)
                    and isinstance(scalar, int)
                    and not _fits(scalar, other.dtype)):
                # Every element of `other` compares with the Python int
                # as the dtype's nearest bound does (NumPy 2's answer).
                info = _np.iinfo(other.dtype)
                pair = list(values)
                pair[1 - i] = info.max if scalar > info.max else info.min
                answer = _constant(other.op.builder, python_op(*pair), _np.bool_)
                return _broadcast_to(answer, other.shape)
        return compare(x, y)
    apply.__name__ = name
    apply.__qualname__ = name
    return apply


less = _comparison("less", _np.less, _mxla.Lt, operator.lt)
less_equal = _comparison("less_equal", _np.less_equal, _mxla.Le, operator.le)
greater = _comparison("greater", _np.greater, _mxla.Gt, operator.gt)
greater_equal = _comparison("greater_equal", _np.greater_equal, _mxla.Ge,
                            operator.ge)
equal = _comparison("equal", _np.equal, _mxla.Eq, operator.eq)
not_equal = _comparison("not_equal", _np.not_equal, _mxla.Ne, operator.ne)


negative = _elementwise("negative", _np.negative, _plain(_mxla.Neg))
abs = _elementwise("abs", _np.absolute, _identity_on("bu", _mxla.Abs))
exp = _elementwise("exp", _np.exp, _plain(_mxla.Exp))
log = _elementwise("log", _np.log, _plain(_mxla.Log))
sqrt = _elementwise("sqrt", _np.sqrt, _plain(_mxla.Sqrt))
tanh = _elementwise("tanh", _np.tanh, _plain(_mxla.Tanh))
sin = _elementwise("sin", _np.sin, _plain(_mxla.Sin))
cos = _elementwise("cos", _np.cos, _plain(_mxla.Cos))
floor = _elementwise("floor", _np.floor, _identity_on("biu", _mxla.Floor))
ceil = _elementwise("ceil", _np.ceil, _identity_on("biu", _mxla.Ceil))
sign = _elementwise("sign", _np.sign, _plain(_mxla.Sign))


def where(condition, x, y):
    """x where condition holds, else y, all broadcast together. A
    condition that is not bool is true where nonzero, as in NumPy."""
    builder = _builder_of(condition, x, y)
    if not isinstance(condition, Tracer):
        condition = _constant(builder, condition, _np.bool_)
    elif condition.dtype != _np.bool_:
        condition = not_equal(condition, 0)
    dtype = _result_type("where", x, y)
    a, b = (_as("where", builder, v, dtype) for v in (x, y))
    shape = _broadcast_shape(condition.shape, a.shape, b.shape)
    condition, a, b = (_broadcast_to(v, shape) for v in (condition, a, b))
    out = Tracer(_mxla.Select(condition.op, a.op, b.op))
    if dtype.kind == "f" and _is_weak(x) and _is_weak(y):
        out.weak = float
    return out


def astype(x, dtype):
    dtype = _np.dtype(dtype)
    if dtype not in _DTYPES:
        raise TypeError(f"mxla.numpy.astype: unsupported dtype {dtype} "
                        f"(mxla.numpy takes bool, int8-64, uint8-64 and "
                        f"float16/32/64)")
    return Tracer(_mxla.ConvertElementType(x.op, dtype))


def _axes(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    normalized = []
    for a in axes:
        a = operator.index(a)
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"axis {a} is out of bounds for an array of "
                             f"dimension {x.ndim}")
        normalized.append(a % x.ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(normalized))


def _reduce(x, axis, keepdims, init, reducer):
    axes = _axes(x, axis)
    builder = x.op.builder
    out = Tracer(_mxla.Reduce(x.op, init, reducer(x.dtype, builder), axes))
    if keepdims:
        kept = tuple(1 if d in axes else n for d, n in enumerate(x.shape))
        out = reshape(out, kept)
    return out


def sum(x, axis=None, keepdims=False):
    """NumPy's sum: bool and integers narrower than 64 bits sum as int64
    (unsigned ones as uint64); float16 accumulates in float32."""
    x = _asarray("sum", x)
    dtype = _np.sum(_np.zeros(1, x.dtype)).dtype
    work = _np.dtype(_np.float32) if dtype == _np.float16 else dtype
    out = _reduce(_cast(x, work), axis, keepdims, 0,
                  _mxla.CreateScalarAddComputation)
    return _cast(out, dtype)


def prod(x, axis=None, keepdims=False, dtype=None):
    """NumPy's prod: bool and integers narrower than 64 bits multiply as
    int64 (unsigned ones as uint64), or as `dtype`; float16 accumulates in
    float32. Its gradient is the product of the other elements (exact
    where some are zero)."""
    x = _asarray("prod", x)
    if dtype is None:
        dtype = _np.prod(_np.ones(1, x.dtype)).dtype
    dtype = _np.dtype(dtype)
    work = _np.dtype(_np.float32) if dtype == _np.float16 else dtype
    out = _reduce(_cast(x, work), axis, keepdims, 1,
                  _mxla.CreateScalarMulComputation)
    return _cast(out, dtype)


def mean(x, axis=None, keepdims=False):
    """NumPy's mean: of bool and integers in float64; of float16 summed
    in float32 and rounded back."""
    x = _asarray("mean", x)
    count = int(_np.prod([x.shape[a] for a in _axes(x, axis)], dtype=_np.int64))
    dtype = x.dtype if x.dtype.kind == "f" else _np.dtype(_np.float64)
    work = _np.dtype(_np.float32) if dtype == _np.float16 else dtype
    return _cast(sum(_cast(x, work), axis, keepdims) / count, dtype)


def reshape(x, shape):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if shape.count(-1) == 1:
        known = int(_np.prod([n for n in shape if n != -1], dtype=_np.int64))
        shape = tuple(x.size // known if n == -1 else n for n in shape)
    return Tracer(_mxla.Reshape(x.op, shape))


def transpose(x, axes=None):
    axes = tuple(reversed(range(x.ndim))) if axes is None else tuple(axes)
    # NumPy counts negative axes from the end (out-of-range ones are left
    # for the builder to refuse).
    axes = tuple(a + x.ndim if -x.ndim <= a < 0 else a for a in axes)
    return Tracer(_mxla.Transpose(x.op, axes))


def matmul(x, y):
    """NumPy's @: 1-D operands are promoted and the added dimension
    removed; leading dimensions broadcast as a batch."""
    builder = _builder_of(x, y)
    in_dtypes, _ = _resolve("matmul", _np.matmul, (x, y))
    a, b = (_as("matmul", builder, v, d) for v, d in zip((x, y), in_dtypes))
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


# The rest of mxla.numpy, by concept (each module imports the helpers
# above from here).
from mxla._numpy_integer import *  # noqa: E402,F401,F403
from mxla._numpy_creation import *  # noqa: E402,F401,F403
from mxla._numpy_reductions import *  # noqa: E402,F401,F403
from mxla._numpy_shapes import *  # noqa: E402,F401,F403
from mxla._numpy_einsum import *  # noqa: E402,F401,F403
from mxla._numpy_indexing import _IndexUpdateHelper, _index  # noqa: E402,F401
