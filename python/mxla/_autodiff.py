"""mxla.grad, mxla.value_and_grad and mxla.vjp: reverse-mode gradients of
functions written with mxla.numpy, as JAX's. The function is traced into
a computation and differentiated by the C++ rules (transforms/autodiff.h)
inside the caller's computation, so these compose with mxla.jit and with
themselves (grad(grad(f))). Called on arrays, they compile once per input
signature, as mxla.jit does."""
import functools

import numpy as _np

from mxla import _jit, _mxla, _tree
from mxla._inner_trace import InnerTrace, as_tracers, builder_of, traced_or_jitted
from mxla.numpy import Tracer


def _name(fun):
    return getattr(fun, "__name__", "function")


def _argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _check_argnums(fun, argnums, count):
    for n in argnums:
        if not -count <= n < count:
            raise ValueError(f"{_name(fun)}: argnums {n} is out of range for "
                             f"{count} positional arguments")
    return tuple(n % count for n in argnums)


def _check_float_leaves(fun, inner, numbers):
    for leaf_numbers in numbers:
        for n in leaf_numbers:
            dtype = inner.leaves[n].dtype
            if dtype.kind != "f":
                raise TypeError(
                    f"{_name(fun)}: grad requires floating-point inputs, but "
                    f"differentiated argument leaf {n} is {dtype} (as in JAX; "
                    f"convert it, or leave it out of argnums)")


def _scalar_value(fun, out, has_aux):
    if has_aux:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"{_name(fun)}: with has_aux=True the function "
                            f"must return a pair (value, aux), not {out!r}")
        value, aux = out
    else:
        value, aux = out, None
    if not isinstance(value, Tracer) or value.shape != () or value.dtype.kind != "f":
        shape = getattr(value, "shape", None)
        dtype = getattr(value, "dtype", type(value).__name__)
        raise TypeError(f"{_name(fun)}: grad requires a floating-point scalar "
                        f"output, but the function returned shape {shape} "
                        f"dtype {dtype} (use vjp for other outputs)")
    return value, aux


def _traced_value_and_grad(fun, argnums, has_aux, args, kwargs):
    """(value, grads) or ((value, aux), grads), as Tracers of the caller's
    builder."""
    builder = builder_of(_tree.flatten((list(args), kwargs))[0])
    args, kwargs = as_tracers(builder, (list(args), kwargs))
    argnums = _check_argnums(fun, argnums, len(args))
    inner = InnerTrace(fun, args, kwargs)
    value, aux = _scalar_value(fun, inner.out, has_aux)
    numbers = inner.leaf_numbers(argnums)
    _check_float_leaves(fun, inner, numbers)
    wrt = [n for leaf_numbers in numbers for n in leaf_numbers]
    aux_leaves, aux_treedef = _tree.flatten(aux)
    value_op, *aux_ops = inner.ops_of([value] + aux_leaves)
    one = _mxla.Constant(builder, _np.ones((), value.dtype))
    if has_aux:
        f, ops = inner.finish(_mxla.Tuple([value_op] + aux_ops))
        result, cotangents = _mxla.EmitTupleVjp(
            builder, f, ops, [one] + [None] * len(aux_ops), wrt)
        elements = [Tracer(_mxla.GetTupleElement(result, i))
                    for i in range(1 + len(aux_ops))]
        out = (elements[0], _tree.unflatten(aux_treedef, elements[1:]))
    else:
        f, ops = inner.finish(value_op)
        result, cotangents = _mxla.EmitVjp(builder, f, ops, one, wrt)
        out = Tracer(result)
    grads, it = [], iter(cotangents)
    for n, leaf_numbers in zip(argnums, numbers):
        grads.append(_tree.unflatten(_tree.flatten(args[n])[1],
                                     [Tracer(next(it)) for _ in leaf_numbers]))
    return out, grads


def value_and_grad(fun, argnums=0, has_aux=False):
    """A function returning (fun(*args), the gradient of fun with respect
    to the positional arguments `argnums`): one gradient (a pytree like
    the argument) for an int, a tuple for a tuple of ints. `fun` must
    return a floating-point scalar, or with has_aux=True a pair (scalar,
    aux) whose aux is returned as ((value, aux), grads)."""
    numbers = _argnums_tuple(argnums)

    def traced(*args, **kwargs):
        out, grads = _traced_value_and_grad(fun, numbers, has_aux, args, kwargs)
        return out, (grads[0] if isinstance(argnums, int) else tuple(grads))

    return traced_or_jitted(fun, traced)


def grad(fun, argnums=0, has_aux=False):
    """The gradient of `fun` (which returns a floating-point scalar) with
    respect to its positional arguments `argnums`, as jax.grad; with
    has_aux=True, (gradient, aux)."""
    both = value_and_grad(fun, argnums, has_aux)

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        out, grads = both(*args, **kwargs)
        return (grads, out[1]) if has_aux else grads
    return wrapper


class _TracedVjp:
    """`fun` at `primals` (Tracers of the caller's builder): its outputs
    and aux, and the pullback that maps output cotangents to the
    primals'."""

    def __init__(self, fun, primals, has_aux):
        self.fun = fun
        self.builder = builder_of(_tree.flatten(list(primals))[0])
        self.primals = as_tracers(self.builder, list(primals))
        inner = InnerTrace(fun, self.primals, {})
        out, aux = inner.out, None
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(f"{_name(fun)}: with has_aux=True the function "
                                f"must return a pair (out, aux), not {out!r}")
            out, aux = out
        out_leaves, self.out_treedef = _tree.flatten(out)
        aux_leaves, aux_treedef = _tree.flatten(aux)
        self.out_ops = inner.ops_of(out_leaves)
        aux_ops = inner.ops_of(aux_leaves)
        self.aux_count = len(aux_ops)
        self.inner_leaves = inner.leaves
        self.f, self.ops = inner.finish(_mxla.Tuple(self.out_ops + aux_ops))
        whole = _mxla.CallInline(self.builder, self.f, self.ops)
        elements = [Tracer(_mxla.GetTupleElement(whole, i))
                    for i in range(len(self.out_ops) + self.aux_count)]
        self.out = _tree.unflatten(self.out_treedef, elements[:len(self.out_ops)])
        self.aux = _tree.unflatten(aux_treedef, elements[len(self.out_ops):])

    def pullback(self, cotangent):
        leaves, treedef = _tree.flatten(cotangent)
        if treedef != self.out_treedef:
            raise TypeError(f"{_name(self.fun)}: the cotangent's structure "
                            f"{treedef} differs from the output's "
                            f"{self.out_treedef}")
        seeds = []
        for i, (leaf, op) in enumerate(zip(leaves, self.out_ops)):
            leaf = _jit.as_tracer(self.builder, leaf)
            if (leaf.shape, leaf.dtype) != (tuple(op.shape), op.dtype):
                raise TypeError(
                    f"{_name(self.fun)}: cotangent {i} is {leaf.dtype}"
                    f"{list(leaf.shape)} but the output is {op.dtype}"
                    f"{list(op.shape)}")
            seeds.append(leaf.op if op.dtype.kind == "f" else None)
        wrt = [n for n, leaf in enumerate(self.inner_leaves)
               if leaf.dtype.kind == "f"]
        _, cotangents = _mxla.EmitTupleVjp(
            self.builder, self.f, self.ops, seeds + [None] * self.aux_count, wrt)
        by_leaf = dict(zip(wrt, cotangents))
        grads = [Tracer(by_leaf[n]) if n in by_leaf else _zeros_like(leaf)
                 for n, leaf in enumerate(self.inner_leaves)]
        primals = list(self.primals)
        return tuple(_tree.unflatten(treedef, part)
                     for treedef, part in _split_by(primals, grads))


def _zeros_like(leaf):
    """An integer or bool input's cotangent: zeros of its shape and dtype
    (JAX returns float0 zeros)."""
    zero = _mxla.Constant(leaf.op.builder, _np.zeros((), leaf.dtype))
    return Tracer(_mxla.BroadcastInDim(zero, leaf.shape, ()))


def _split_by(trees, leaves):
    """(treedef, leaves of that tree) for each of `trees`, taking
    `leaves` in order."""
    it = iter(leaves)
    for tree in trees:
        count = len(_tree.flatten(tree)[0])
        yield _tree.flatten(tree)[1], [next(it) for _ in range(count)]


def vjp(fun, *primals, has_aux=False):
    """(fun(*primals), vjp_fn), or with has_aux=True (out, vjp_fn, aux),
    as jax.vjp: vjp_fn(cotangent), the cotangent a pytree like the output,
    returns a tuple with one cotangent per primal (a pytree like it;
    integer inputs get zeros)."""
    if builder_of(_tree.flatten(list(primals))[0]) is not None:
        traced = _TracedVjp(fun, primals, has_aux)
        return ((traced.out, traced.pullback, traced.aux) if has_aux
                else (traced.out, traced.pullback))

    def forward(*p):
        traced = _TracedVjp(fun, p, has_aux)
        return (traced.out, traced.aux) if has_aux else traced.out

    def backward(p, cotangent):
        return _TracedVjp(fun, p, has_aux).pullback(cotangent)

    forward.__name__ = backward.__name__ = _name(fun)
    out = _jit.jit(forward)(*primals)
    pullback = functools.partial(_jit.jit(backward), list(primals))
    return (out[0], pullback, out[1]) if has_aux else (out, pullback)
