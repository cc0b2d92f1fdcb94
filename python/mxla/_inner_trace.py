"""A function traced into a computation of its own, on parameters shaped
like the caller's values: what mxla.grad, mxla.vjp and mxla.vmap
transform. Values of the enclosing trace that the function closes over
become extra parameters (mxla/_capture.py)."""
import functools

import numpy as _np

from mxla import _capture, _jit, _mxla, _tree
from mxla.numpy import Tracer


def as_tracers(builder, tree):
    """`tree` with every leaf a Tracer of `builder` (arrays and scalars
    become constants)."""
    def convert(leaf):
        if isinstance(leaf, Tracer):
            return leaf
        return Tracer(_mxla.Constant(builder, _np.asarray(leaf)),
                      weak=_weak_kind(leaf))
    return _tree.tree_map(convert, tree)


def _weak_kind(value):
    if isinstance(value, bool) or isinstance(value, _np.generic):
        return None
    if isinstance(value, int):
        return int
    return float if isinstance(value, float) else None


def builder_of(leaves):
    for leaf in leaves:
        if isinstance(leaf, Tracer):
            return leaf.op.builder
    return None


def traced_or_jitted(fun, traced):
    """A function like `fun` that runs `traced` (a transformation of fun)
    in the caller's computation when an argument is traced, and otherwise
    through a jit of it, compiled once per input signature."""
    traced.__name__ = getattr(fun, "__name__", "function")
    eager = _jit.jit(traced)

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        if builder_of(_tree.flatten((list(args), kwargs))[0]) is not None:
            return traced(*args, **kwargs)
        return eager(*args, **kwargs)
    return wrapper


class InnerTrace:
    """`fun` traced on fresh parameters shaped like the caller's leaves
    (`args` positional, `kwargs` by keyword), as a computation whose
    parameters are the leaves in order, then the enclosing function's
    values it closes over (mxla/_capture.py)."""

    def __init__(self, fun, args, kwargs, shapes=None):
        """`shapes`: the parameters' shapes, one per leaf (default: the
        leaves' own; vmap gives them without the batch)."""
        self.leaves, self.treedef = _tree.flatten((list(args), kwargs))
        name = getattr(fun, "__name__", "function")
        self.builder = _mxla.XlaBuilder(_jit.identifier(name))
        shapes = shapes or [leaf.shape for leaf in self.leaves]
        self.params = [
            Tracer(_mxla.Parameter(self.builder, i, leaf.dtype, shape,
                                   f"arg{i}"), weak=leaf.weak)
            for i, (leaf, shape) in enumerate(zip(self.leaves, shapes))]
        inner_args, inner_kwargs = _tree.unflatten(self.treedef, self.params)
        self.capture = _capture.Capture(self.builder, len(self.leaves))
        with self.capture:
            self.out = _jit.call_traced(fun, inner_args, inner_kwargs)

    def ops_of(self, values):
        """The inner ops of `values` (outputs: Tracers or constants)."""
        with self.capture:
            return [_jit.as_tracer(self.builder, v).op for v in values]

    def leaf_numbers(self, argnums):
        """The parameter numbers of the leaves of the positional arguments
        at `argnums`, each argument's as a list."""
        positional = _tree.unflatten(self.treedef, range(len(self.leaves)))[0]
        return [_tree.flatten(positional[n])[0] for n in argnums]

    def finish(self, root):
        """The computation with `root`, and the caller's ops for its
        parameters; the caller's weak ints narrow as the inner parameters
        did."""
        for outer, inner in zip(self.leaves, self.params):
            outer.narrowed.extend(inner.narrowed)
        arguments = [v.op for v in self.leaves + self.capture.captured]
        return self.builder.build(root), arguments
