"""mxla.lax: the XLA ops that mxla.numpy has no NumPy name for, with
jax.lax's signatures: convolution and windowed reductions, on traced
arrays (inside @mxla.jit). Gradients and vmap reach them like any other
op."""
import numpy as _np

from mxla import _mxla
from mxla import numpy as _mnp


def _labels(spec, batch, feature, what):
    """HLO labels for a JAX dimension spec ("NHWC", "HWIO"): `batch` and
    `feature` letters become b/f (or o/i), the others 0, 1, ... in their
    order."""
    labels, spatial = [], 0
    for letter in spec:
        if letter == batch:
            labels.append("b" if batch == "N" else "o")
        elif letter == feature:
            labels.append("f" if feature == "C" else "i")
        else:
            labels.append(str(spatial))
            spatial += 1
    if len(set(spec)) != len(spec) or batch not in spec or feature not in spec:
        raise ValueError(f"mxla.lax: {what} spec {spec!r} needs one {batch!r}, "
                         f"one {feature!r} and distinct spatial letters")
    return "".join(labels)


def _padding(padding, in_sizes, window, strides, dilation):
    """(low, high) per spatial dimension for "SAME", "VALID" or pairs."""
    if not isinstance(padding, str):
        return [tuple(p) for p in padding]
    if padding == "VALID":
        return [(0, 0)] * len(in_sizes)
    if padding != "SAME":
        raise ValueError(f"mxla.lax: padding {padding!r} is not 'SAME', "
                         f"'VALID' or (low, high) pairs")
    pairs = []
    for size, k, s, d in zip(in_sizes, window, strides, dilation):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        pairs.append((total // 2, total - total // 2))
    return pairs


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=("NHWC", "HWIO", "NHWC"),
                         feature_group_count=1, batch_group_count=1):
    """jax.lax.conv_general_dilated: `dimension_numbers` are (lhs, rhs,
    out) specs, `padding` "SAME", "VALID" or (low, high) per spatial
    dimension."""
    lhs = _mnp._asarray("conv_general_dilated", lhs)
    rhs = _mnp._asarray("conv_general_dilated", rhs)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    labels = (f"{_labels(lhs_spec, 'N', 'C', 'lhs')}_"
              f"{_labels(rhs_spec, 'O', 'I', 'rhs')}->"
              f"{_labels(out_spec, 'N', 'C', 'out')}")
    spatial = len(lhs_spec) - 2
    strides = tuple(window_strides) or (1,) * spatial
    rhs_dilation = tuple(rhs_dilation or (1,) * spatial)
    in_sizes = [lhs.shape[i] for i, c in enumerate(lhs_spec) if c not in "NC"]
    window = [rhs.shape[i] for i, c in enumerate(rhs_spec) if c not in "OI"]
    pads = _padding(padding, in_sizes, window, strides, rhs_dilation)
    return _mnp.Tracer(_mxla.ConvGeneralDilated(
        lhs.op, rhs.op, labels, list(strides), pads,
        list(lhs_dilation or (1,) * spatial), list(rhs_dilation),
        feature_group_count, batch_group_count))


_REDUCERS = {"add": (_mxla.CreateScalarAddComputation, 0),
             "max": (_mxla.CreateScalarMaxComputation, -_np.inf),
             "min": (_mxla.CreateScalarMinComputation, _np.inf)}


def reduce_window(x, computation, window_dimensions, window_strides=None,
                  padding="VALID"):
    """The window reduction `computation` ("add", "max" or "min") of x,
    one window per output element (jax.lax.reduce_window with a named
    reducer); padding as for conv_general_dilated."""
    if computation not in _REDUCERS:
        raise ValueError(f"mxla.lax.reduce_window: computation {computation!r} "
                         f"is not one of {sorted(_REDUCERS)}")
    x = _mnp._asarray("reduce_window", x)
    make, init = _REDUCERS[computation]
    if x.dtype.kind != "f" and computation != "add":
        info = _np.iinfo(x.dtype)
        init = info.min if computation == "max" else info.max
    strides = tuple(window_strides or (1,) * x.ndim)
    pads = _padding(padding, x.shape, window_dimensions, strides, (1,) * x.ndim)
    return _mnp.Tracer(_mxla.ReduceWindow(
        x.op, _np.array(init, x.dtype), make(x.dtype, x.op.builder),
        list(window_dimensions), list(strides), None, None, pads))
