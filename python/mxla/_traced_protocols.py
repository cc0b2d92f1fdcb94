"""What NumPy and Python's conversions do with a traced value.

A traced value (an mxla.numpy array inside @mxla.jit) has a shape and a
dtype but no data while the function is traced. So a NumPy function, or
bool(), float(), int() and the like, cannot take one: each raises a
TypeError that names what was called and, where mxla.numpy has one, the
function to call instead. The ufuncs behind Python's operators (numpy.add,
numpy.less, ...) are the exception: `ndarray + traced` calls them, so they
compute with mxla.numpy.
"""
import numpy as _np

# NumPy's names that mxla.numpy spells otherwise.
_MXLA_NAMES = {"absolute": "abs", "true_divide": "divide", "amax": "max",
               "amin": "min"}
_REDUCTIONS = {("add", "reduce"): "sum", ("maximum", "reduce"): "max",
               ("minimum", "reduce"): "min"}
# The ufuncs an ndarray's binary operators call with a traced operand.
_OPERATOR_UFUNCS = {_np.add, _np.subtract, _np.multiply, _np.true_divide,
                    _np.power, _np.matmul, _np.less, _np.less_equal,
                    _np.greater, _np.greater_equal, _np.equal, _np.not_equal,
                    _np.floor_divide, _np.remainder, _np.bitwise_and,
                    _np.bitwise_or, _np.bitwise_xor, _np.left_shift,
                    _np.right_shift}

_NO_DATA = ("a traced value (an mxla.numpy array inside @mxla.jit), which "
            "has no data while tracing")


def _mxla_name(name):
    """The name of mxla.numpy's function for NumPy's `name`, or None."""
    from mxla import numpy as mnp
    name = _MXLA_NAMES.get(name, name)
    function = getattr(mnp, name, None)
    if name.startswith("_") or not callable(function) or isinstance(function, type):
        return None
    return name


def _instead(numpy_name, mxla_name):
    found = _mxla_name(mxla_name)
    if found is not None:
        return f"call mxla.numpy.{found}() instead"
    return f"mxla.numpy has no {numpy_name}() yet"


class TracedProtocols:
    """The NumPy protocols and Python conversions of Tracer."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        operator = method == "__call__" and not kwargs and ufunc in _OPERATOR_UFUNCS
        if operator and _mxla_name(ufunc.__name__) is not None:
            from mxla import numpy as mnp
            return getattr(mnp, _mxla_name(ufunc.__name__))(*inputs)
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        mxla_name = _REDUCTIONS.get((ufunc.__name__, method), name)
        raise TypeError(f"numpy.{name}() was called on {_NO_DATA}; "
                        f"{_instead(name, mxla_name)}")

    def __array_function__(self, func, types, args, kwargs):
        module = func.__module__ or "numpy"
        name = f"{module}.{func.__name__}"
        advice = (_instead(func.__name__, func.__name__) if module == "numpy"
                  else "mxla.numpy has no such function yet")
        raise TypeError(f"{name}() was called on {_NO_DATA}; {advice}")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"a NumPy array cannot be made from {_NO_DATA} "
                        f"(numpy.asarray, numpy.array, or a NumPy function "
                        f"given it); use mxla.numpy functions on it, and "
                        f"return it from the jitted function to get its "
                        f"values as a NumPy array")

    def __bool__(self):
        raise TypeError("a traced value (an mxla.numpy array inside "
                        "@mxla.jit) has no truth value while tracing (if, "
                        "while, and, or, not, bool()); use "
                        "mxla.numpy.where(condition, x, y) for a "
                        "data-dependent choice")

    def _conversion(self, kind, instead):
        raise TypeError(f"{kind}() of {_NO_DATA}: its value is unknown; "
                        f"{instead}")

    def __float__(self):
        self._conversion("float", "use mxla.numpy.astype(x, numpy.float32) "
                                  "for a traced conversion")

    def __int__(self):
        self._conversion("int", "use mxla.numpy.astype(x, numpy.int32) for a "
                                "traced conversion")

    def __complex__(self):
        self._conversion("complex", "mxla.numpy has no complex dtypes")

    def __index__(self):
        raise TypeError(f"{_NO_DATA} cannot be an index or a size (range(), "
                        f"list[...], a shape): its value is unknown; use "
                        f"Python ints, or x.shape, which is known")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d traced value")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array (a traced value)")
        return (self[i] for i in range(self.shape[0]))
