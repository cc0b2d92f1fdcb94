"""mxla.lax: the XLA ops that mxla.numpy has no NumPy name for, with
jax.lax's signatures: convolution, windowed reductions, fori_loop,
while_loop and cond, on traced arrays (inside @mxla.jit), and the
collectives across devices
(psum, pmean, pmax, pmin, all_gather, ragged_all_to_all, axis_index:
mxla/_collectives.py).
Gradients and vmap reach them like any other op."""
import operator

import numpy as _np

from mxla import _mxla
from mxla import numpy as _mnp
from mxla._collectives import (  # noqa: F401
    all_gather, axis_index, pmax, pmean, pmin, psum, ragged_all_to_all)


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


def _checked_leaves(what, out, treedef, kinds):
    """The leaves of `out` (what a loop body returned), which must have
    init_val's structure `treedef` and its shapes and dtypes `kinds`."""
    from mxla import _tree
    out_leaves, out_treedef = _tree.flatten(out)
    if out_treedef != treedef:
        raise TypeError(f"mxla.lax.{what} returned structure {out_treedef}, "
                        f"not init_val's {treedef}")
    out_leaves = [_mnp._asarray(what, v) for v in out_leaves]
    for n, (v, (shape, dtype)) in enumerate(zip(out_leaves, kinds)):
        if (v.shape, v.dtype) != (shape, dtype):
            raise TypeError(f"mxla.lax.{what}'s leaf {n} is "
                            f"{v.dtype}{list(v.shape)}, not init_val's "
                            f"{dtype}{list(shape)}")
    return out_leaves


def fori_loop(lower, upper, body_fun, init_val):
    """jax.lax.fori_loop with Python int bounds: val = body_fun(i, val) for
    i in range(lower, upper), as one XLA while loop (trip count known, so
    mxla.grad differentiates through it). init_val is a pytree of arrays;
    body_fun must return one of the same structure, shapes and dtypes. It
    may close over traced values of the enclosing function."""
    from mxla import _tree
    from mxla._inner_trace import InnerTrace, as_tracers
    lower, upper = operator.index(lower), operator.index(upper)
    leaves, treedef = _tree.flatten(init_val)
    builder = _mnp._current_builder("fori_loop")
    leaves = as_tracers(builder, leaves)
    counter = _mnp.Tracer(_mxla.Constant(builder, _np.int32(lower)))
    kinds = [(leaf.shape, leaf.dtype) for leaf in leaves]

    def body(i, *values):
        out = body_fun(i, _tree.unflatten(treedef, values))
        return (i + 1, *_checked_leaves("fori_loop: body_fun", out, treedef,
                                        kinds))

    body.__name__ = getattr(body_fun, "__name__", "body")
    inner = InnerTrace(body, [counter] + leaves, {})
    ops = inner.ops_of(list(inner.out))
    state = ops + inner.capture.parameters()
    f, arguments = inner.finish(_mxla.Tuple(state))
    condition = _mxla.XlaBuilder("fori_condition")
    params = [_mxla.Parameter(condition, n, op.dtype, tuple(op.shape), f"e{n}")
              for n, op in enumerate(arguments)]
    below = _mxla.Lt(params[0], _mxla.Constant(condition, _np.int32(upper)))
    loop = _mxla.WhileOfElements(condition.build(below), f, arguments)
    return _tree.unflatten(treedef, [
        _mnp.Tracer(_mxla.GetTupleElement(loop, 1 + n)) for n in range(len(leaves))])


def _scalar_pred(what, value):
    value = _mnp._asarray(what, value)
    if value.shape != () or value.dtype != _np.bool_:
        raise TypeError(f"mxla.lax.{what} must be a bool scalar, not "
                        f"{value.dtype}{list(value.shape)}")
    return value


def _element_params(name, arguments):
    builder = _mxla.XlaBuilder(name)
    return builder, [
        _mxla.Parameter(builder, n, op.dtype, tuple(op.shape), f"e{n}")
        for n, op in enumerate(arguments)]


def while_loop(cond_fun, body_fun, init_val):
    """jax.lax.while_loop: while cond_fun(val): val = body_fun(val), as one
    XLA while loop. init_val is a pytree of arrays; body_fun must return
    one of the same structure, shapes and dtypes, cond_fun a bool scalar;
    both may close over traced values. mxla.grad differentiates through
    it (JAX does not) by recomputing each trip's state from the first:
    O(n^2) body runs for n trips (docs/autodiff.md)."""
    from mxla import _tree
    from mxla._inner_trace import InnerTrace, as_tracers
    leaves, treedef = _tree.flatten(init_val)
    leaves = as_tracers(_mnp._current_builder("while_loop"), leaves)
    kinds = [(leaf.shape, leaf.dtype) for leaf in leaves]

    def step(*values):
        val = _tree.unflatten(treedef, values)
        keep = _scalar_pred("while_loop: cond_fun's result", cond_fun(val))
        return (keep, *_checked_leaves("while_loop: body_fun", body_fun(val),
                                       treedef, kinds))

    step.__name__ = getattr(body_fun, "__name__", "body")
    inner = InnerTrace(step, leaves, {})
    # One computation of (leaves, captured values) -> (keep, next leaves):
    # the condition reads its first result, the body the others (and
    # carries the captured values along).
    both, arguments = inner.finish(_mxla.Tuple(inner.ops_of(list(inner.out))))
    n = len(leaves)
    condition, params = _element_params("while_condition", arguments)
    keep = _mxla.GetTupleElement(_mxla.CallInline(condition, both, params), 0)
    body, params = _element_params("while_body", arguments)
    stepped = _mxla.CallInline(body, both, params)
    state = [_mxla.GetTupleElement(stepped, 1 + k) for k in range(n)]
    loop = _mxla.WhileOfElements(
        condition.build(keep), body.build(_mxla.Tuple(state + params[n:])),
        arguments)
    return _tree.unflatten(treedef, [
        _mnp.Tracer(_mxla.GetTupleElement(loop, k)) for k in range(n)])


def cond(pred, true_fun, false_fun, *operands):
    """jax.lax.cond: true_fun(*operands) if pred else false_fun(*operands).
    A traced pred (a bool scalar) makes one XLA conditional, which
    mxla.grad differentiates through the branch taken; a Python or NumPy
    bool just calls its branch. Both branches must return the same
    structure, shapes and dtypes; they may close over traced values."""
    from mxla import _tree
    from mxla._inner_trace import InnerTrace, as_tracers
    if not isinstance(pred, _mnp.Tracer):
        return true_fun(*operands) if bool(pred) else false_fun(*operands)
    pred = _scalar_pred("cond: pred", pred)
    leaves, treedef = _tree.flatten(list(operands))
    leaves = as_tracers(pred.op.builder, leaves)
    branches, arguments, results = [], [], None
    for fun in (true_fun, false_fun):
        inner = InnerTrace(
            lambda *values, fun=fun: fun(*_tree.unflatten(treedef, values)),
            leaves, {})
        out_leaves, out_treedef = _tree.flatten(inner.out)
        ops = inner.ops_of(out_leaves)
        kinds = [(tuple(op.shape), op.dtype) for op in ops]
        if results is not None and results != (out_treedef, kinds):
            raise TypeError(f"mxla.lax.cond: the branches return "
                            f"{results[0]} {results[1]} and {out_treedef} "
                            f"{kinds}, which differ")
        results = (out_treedef, kinds)
        f, args = inner.finish(_mxla.Tuple(ops))
        branches.append(f)
        arguments.append(args)
    chosen = _mxla.ConditionalOfElements(pred.op, branches, arguments)
    return _tree.unflatten(results[0], [
        _mnp.Tracer(_mxla.GetTupleElement(chosen, k))
        for k in range(len(results[1]))])
