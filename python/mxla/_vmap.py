"""mxla.vmap: a function written for one example, run over a batch, as
jax.vmap. The function is traced on one example's shapes and batched by
the C++ rules (transforms/batching.h) in the caller's computation, so
vmap composes with jit, grad and itself."""
import operator

from mxla import _mxla, _tree
from mxla._inner_trace import InnerTrace, as_tracers, builder_of, traced_or_jitted
from mxla.numpy import Tracer


def _name(fun):
    return getattr(fun, "__name__", "function")


def _axes_per_leaf(fun, axes, tree, what):
    """One axis (int or None) per leaf of `tree`: `axes` is an int or
    None for every leaf, or a pytree prefix of `tree` (JAX's rule)."""
    if axes is None or isinstance(axes, int):
        return [axes] * len(_tree.flatten(tree)[0])
    if isinstance(axes, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(axes) != len(tree):
            raise ValueError(f"vmap of {_name(fun)}: {what} has {len(axes)} "
                             f"entries but there are {len(tree)} values")
        return [a for sub_axes, sub in zip(axes, tree)
                for a in _axes_per_leaf(fun, sub_axes, sub, what)]
    if isinstance(axes, dict) and isinstance(tree, dict):
        if set(axes) != set(tree):
            raise ValueError(f"vmap of {_name(fun)}: {what} has keys "
                             f"{sorted(axes)} but the value has {sorted(tree)}")
        return [a for k in sorted(tree)
                for a in _axes_per_leaf(fun, axes[k], tree[k], what)]
    raise TypeError(f"vmap of {_name(fun)}: {what} {axes!r} does not match "
                    f"the structure of {type(tree).__name__}")


def _normalized(fun, axis, rank, what):
    if axis is None:
        return None
    axis = operator.index(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"vmap of {_name(fun)}: {what} {axis} is out of range "
                         f"for an array of rank {rank - (what == 'out_axes')}")
    return axis % rank


def _batch_size(fun, leaves, axes):
    sizes = {leaf.shape[a] for leaf, a in zip(leaves, axes) if a is not None}
    if not sizes:
        raise ValueError(f"vmap of {_name(fun)}: in_axes maps no argument; at "
                         f"least one must have an axis (not None)")
    if len(sizes) > 1:
        shown = ", ".join(f"axis {a} of {leaf.dtype}{list(leaf.shape)}"
                          for leaf, a in zip(leaves, axes) if a is not None)
        raise ValueError(f"vmap of {_name(fun)}: inconsistent sizes for the "
                         f"mapped axes: {shown}")
    return sizes.pop()


def _moved(op, axis, rank):
    """`op` (batch at dimension 0) with the batch moved to `axis`."""
    if axis == 0:
        return op
    order = list(range(1, rank))
    order.insert(axis, 0)
    return _mxla.Transpose(op, order)


def _traced_vmap(fun, in_axes, out_axes, args, kwargs):
    builder = builder_of(_tree.flatten((list(args), kwargs))[0])
    args, kwargs = as_tracers(builder, (list(args), kwargs))
    axes = (_axes_per_leaf(fun, in_axes, tuple(args), "in_axes")
            + [0] * len(_tree.flatten(kwargs)[0]))
    leaves = _tree.flatten((args, kwargs))[0]
    axes = [_normalized(fun, a, leaf.ndim, "in_axes")
            for a, leaf in zip(axes, leaves)]
    size = _batch_size(fun, leaves, axes)
    shapes = [leaf.shape if a is None else leaf.shape[:a] + leaf.shape[a + 1:]
              for leaf, a in zip(leaves, axes)]
    inner = InnerTrace(fun, args, kwargs, shapes)
    out_leaves, out_treedef = _tree.flatten(inner.out)
    ops = inner.ops_of(out_leaves)
    f, arguments = inner.finish(_mxla.Tuple(ops))
    in_dims = axes + [None] * (len(arguments) - len(axes))
    results, reached = _mxla.EmitBatched(builder, f, arguments, in_dims, size)
    outs = _axes_per_leaf(fun, out_axes, inner.out, "out_axes")
    moved = [_placed(fun, n, op, a, mapped)
             for n, (op, a, mapped) in enumerate(zip(results, outs, reached))]
    return _tree.unflatten(out_treedef, moved)


def _placed(fun, n, op, axis, mapped):
    """Output leaf n (batch at 0) with the batch at `axis`; for None, the
    one value every example shares, which it must be (as in JAX)."""
    rank = len(op.shape)
    if axis is not None:
        return Tracer(_moved(op, _normalized(fun, axis, rank, "out_axes"), rank))
    if mapped:
        raise ValueError(f"vmap of {_name(fun)}: out_axes is None for output "
                         f"leaf {n}, but it depends on the mapped inputs")
    first = _mxla.Slice(op, [0] * rank, [1] + list(op.shape[1:]), [1] * rank)
    return Tracer(_mxla.Reshape(first, tuple(op.shape[1:])))


def vmap(fun, in_axes=0, out_axes=0):
    """`fun` mapped over a batch: in_axes says which axis of each
    positional argument is the batch (an int or None for all, or a pytree
    prefix of the arguments; keyword arguments are mapped at 0), out_axes
    where the batch goes in each output. As jax.vmap."""
    def traced(*args, **kwargs):
        return _traced_vmap(fun, in_axes, out_axes, args, kwargs)

    return traced_or_jitted(fun, traced)
