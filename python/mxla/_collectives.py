"""Collectives on traced arrays, with jax.lax's names (re-exported by
mxla.lax): psum, pmean, pmax, pmin, all_gather, ragged_all_to_all and
axis_index. They record XLA's all-reduce, all-gather, ragged-all-to-all
and replica-id over every replica of
the program, and mean something when it runs on several devices: under
mxla.pmap, or compiled with mxla.compile(..., replicas=N) and run with
Executable.run_devices. On one device they are what one device computes
(psum(x) is x, axis_index() is 0).

`axis_name`, as in JAX, names the mapped axis: under mxla.pmap it must be
the pmap's axis_name (None for a pmap without one); with no pmap under
way, only None is bound, meaning all replicas."""
import contextlib
import threading

import numpy as _np

from mxla import _mxla, _tree
from mxla import numpy as _mnp

# The (axis_name, size) of the mxla.pmap traces under way on this thread,
# innermost last.
_AXES = threading.local()


@contextlib.contextmanager
def mapped_axis(name, size):
    """While mxla.pmap traces its function over `size` devices."""
    stack = _AXES.__dict__.setdefault("axes", [])
    stack.append((name, size))
    try:
        yield
    finally:
        stack.pop()


def _axis_size(what, axis_name):
    """The size of the axis `axis_name`: the innermost pmap's device count,
    or None when no pmap is under way (the program's replicas, known only
    when it runs). A name no pmap binds is a NameError, as in JAX."""
    stack = getattr(_AXES, "axes", None)
    if stack:
        name, size = stack[-1]
        if axis_name == name:
            return size
        raise NameError(f"mxla.lax.{what}: unbound axis name {axis_name!r} "
                        f"(the enclosing mxla.pmap's axis_name is {name!r})")
    if axis_name is not None:
        raise NameError(f"mxla.lax.{what}: unbound axis name {axis_name!r}: "
                        f"no mxla.pmap is tracing here, so only None (every "
                        f"replica of the program) is bound")
    return None


def _all_reduce(what, x, axis_name, reducer):
    _axis_size(what, axis_name)

    def one(leaf):
        leaf = _mnp._asarray(what, leaf)
        computation = reducer(leaf.dtype, leaf.op.builder)
        return _mnp.Tracer(_mxla.AllReduce(leaf.op, computation))
    return _tree.tree_map(one, x)


def psum(x, axis_name=None):
    """jax.lax.psum: the sum of `x` (an array or a pytree of them) over
    every device, on every device (XLA's all-reduce with an add reducer).
    Its gradient is psum of the cotangent."""
    return _all_reduce("psum", x, axis_name, _mxla.CreateScalarAddComputation)


def pmax(x, axis_name=None):
    """jax.lax.pmax: the elementwise maximum over every device."""
    return _all_reduce("pmax", x, axis_name, _mxla.CreateScalarMaxComputation)


def pmin(x, axis_name=None):
    """jax.lax.pmin: the elementwise minimum over every device."""
    return _all_reduce("pmin", x, axis_name, _mxla.CreateScalarMinComputation)


def pmean(x, axis_name=None):
    """jax.lax.pmean: psum(x) divided by the number of devices (a
    floating-point x: an integer's mean would truncate). Under mxla.pmap
    the count is a constant; otherwise it is itself a psum of one."""
    size = _axis_size("pmean", axis_name)

    def one(leaf):
        leaf = _mnp._asarray("pmean", leaf)
        if leaf.dtype.kind != "f":
            raise TypeError(f"mxla.lax.pmean: {leaf.dtype} is not a "
                            f"floating-point dtype (use psum)")
        count = size
        if count is None:
            count = psum(_mnp.Tracer(_mxla.Constant(
                leaf.op.builder, _np.ones((), leaf.dtype))))
        return psum(leaf, axis_name) / count
    return _tree.tree_map(one, x)


def all_gather(x, axis_name=None, *, axis=0, tiled=False):
    """jax.lax.all_gather: every device's `x` stacked along a new axis
    `axis` of size N (the devices, in order), or with tiled=True
    concatenated along the existing axis `axis`. N must be known when
    tracing: call it under mxla.pmap."""
    size = _axis_size("all_gather", axis_name)
    if size is None:
        raise TypeError("mxla.lax.all_gather needs the device count when "
                        "tracing: call it under mxla.pmap")

    def one(leaf):
        leaf = _mnp._asarray("all_gather", leaf)
        rank = leaf.ndim if tiled else leaf.ndim + 1
        if not -rank <= axis < rank:
            raise ValueError(f"mxla.lax.all_gather: axis {axis} is out of "
                             f"range for rank {rank}")
        where = axis % rank
        if not tiled:
            leaf = _mnp.expand_dims(leaf, where)
        return _mnp.Tracer(_mxla.AllGather(leaf.op, where, size))
    return _tree.tree_map(one, x)


def ragged_all_to_all(operand, output, input_offsets, send_sizes,
                      output_offsets, recv_sizes, *, axis_name=None):
    """jax.lax.ragged_all_to_all: device i sends device j the rows
    operand[input_offsets[j] : input_offsets[j] + send_sizes[j]], which land
    in j's copy of `output` from row output_offsets[j] (offsets the sender
    gives, in the receiver's output); recv_sizes[j] is how many rows come
    from device j. Rows nobody writes keep `output`'s values. The four
    offset and size arrays are int32 or int64 vectors with one entry per
    device; offsets or sizes out of range, or recv_sizes that disagree
    with what a peer sends, fail the run naming them."""
    _axis_size("ragged_all_to_all", axis_name)
    args = [_mnp._asarray("ragged_all_to_all", a)
            for a in (operand, input_offsets, send_sizes, output,
                      output_offsets, recv_sizes)]
    return _mnp.Tracer(_mxla.RaggedAllToAll(*(a.op for a in args)))


def axis_index(axis_name=None):
    """jax.lax.axis_index: this device's index along the mapped axis, an
    int32 scalar (XLA's replica-id)."""
    _axis_size("axis_index", axis_name)
    builder = _mnp._current_builder("axis_index")
    replica = _mxla.ReplicaId(builder)
    return _mnp.Tracer(_mxla.ConvertElementType(replica, _np.int32))
