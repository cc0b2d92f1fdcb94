"""mxla.nn: jax.nn's activation functions on traced arrays (inside
@mxla.jit), in the dtypes mxla.numpy computes them: a float array keeps
its dtype, an integer one computes in the float dtype NumPy's exp would
give it (float64 for int32)."""
import math

import numpy as _np

from mxla import _mxla
from mxla import numpy as _mnp
from mxla._numpy_reductions import _float, log_softmax  # noqa: F401
from mxla._numpy_shapes import _Rank


def relu(x):
    """max(x, 0), in x's dtype."""
    x = _mnp._asarray("relu", x)
    return _mnp.maximum(x, _mnp._as("relu", x.op.builder, 0, x.dtype))


def gelu(x, approximate=True):
    """x * Phi(x), Phi the standard normal CDF: with approximate=True (as
    jax.nn.gelu's default) through tanh, 0.5 x (1 + tanh(sqrt(2/pi) (x +
    0.044715 x^3))); with approximate=False exactly, 0.5 x (1 + erf(x /
    sqrt(2)))."""
    x = _float("gelu", x)
    if approximate:
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1 + _mnp.tanh(inner))
    erf = _mnp.Tracer(_mxla.Erf((x * (1 / math.sqrt(2))).op))
    return 0.5 * x * (1 + erf)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`, the maximum taken out first."""
    x = _float("softmax", x)
    unnormalized = _mnp.exp(x - _mnp.max(x, axis, keepdims=True))
    return unnormalized / _mnp.sum(unnormalized, axis, keepdims=True)


def one_hot(x, num_classes, dtype=_np.float64, axis=-1):
    """x's integers as one-hot vectors of `num_classes` along a new `axis`
    (last by default): 1 where the class is x, else 0; an x outside
    [0, num_classes) gives all zeros, as in jax.nn.one_hot. The default
    dtype is NumPy's float64 (JAX's is float32 unless x64 is on)."""
    x = _mnp._asarray("one_hot", x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"mxla.nn.one_hot: x must be an integer array, not "
                        f"{x.dtype}")
    num_classes = int(num_classes)
    ndim = x.ndim + 1
    (axis,) = _mnp._axes(_Rank(ndim), axis)
    shape = x.shape[:axis] + (num_classes,) + x.shape[axis:]
    builder = x.op.builder
    classes = _mnp.Tracer(_mxla.Iota(builder, _np.int64, shape, axis))
    values = _mnp._cast(x, _np.dtype(_np.int64))
    values = _mnp.Tracer(_mxla.BroadcastInDim(
        values.op, shape, tuple(d for d in range(ndim) if d != axis)))
    return _mnp.astype(_mnp.equal(values, classes), dtype)


__all__ = ["relu", "gelu", "softmax", "log_softmax", "one_hot"]


def _pool(name, x, computation, window_shape, strides, padding):
    """A window reduction over the spatial dimensions of an NHWC (or N...C)
    array, as flax.linen's pools take it."""
    from mxla import lax
    window = (1,) + tuple(window_shape) + (1,)
    if len(window) != x.ndim:
        raise ValueError(f"mxla.nn.{name}: window_shape {tuple(window_shape)} "
                         f"needs an array of rank {len(window)} (N, spatial..., "
                         f"C), not {x.shape}")
    stride = (1,) + tuple(strides or window_shape) + (1,)
    pads = padding if isinstance(padding, str) else [(0, 0)] + list(padding) + [(0, 0)]
    return lax.reduce_window(x, computation, window, stride, pads)


def max_pool(x, window_shape, strides=None, padding="VALID"):
    """The maximum over each window of the spatial dimensions of an NHWC
    array (strides default to the window: non-overlapping)."""
    return _pool("max_pool", x, "max", window_shape, strides, padding)


def avg_pool(x, window_shape, strides=None, padding="VALID"):
    """The mean over each window (padding counts as zeros, as in flax)."""
    total = _pool("avg_pool", x, "add", window_shape, strides, padding)
    return total / float(_np.prod(window_shape))
