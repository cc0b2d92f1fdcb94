"""mxla.pmap: jax.pmap on in-process devices. The function is traced once
per input signature for one device's slice of the arguments, compiled for
N replicas (N the size of the mapped arguments' leading axis) and run on
N devices at once through Executable.run_devices; the collectives of
mxla.lax (psum, pmean, all_gather, axis_index) exchange between them.
Results are stacked along a new leading axis, one slice per device."""
import functools

import numpy as _np

from mxla import _collectives, _jit, _mxla, _tree
from mxla.numpy import Tracer


def _mapped_leaves(name, call, in_axes, count):
    """Per dynamic leaf, whether it is mapped over its axis 0: in_axes is
    0 or None for every positional argument, or one of them per positional
    argument (static ones' are ignored); keyword arguments are mapped, as
    in JAX."""
    entries = (in_axes if isinstance(in_axes, (tuple, list))
               else [in_axes] * count)
    if len(entries) != count:
        raise ValueError(f"{name}: in_axes has {len(entries)} entries but "
                         f"the call has {count} positional arguments")
    for entry in entries:
        if entry not in (0, None) or isinstance(entry, bool):
            raise ValueError(f"{name}: in_axes entry {entry!r} is not 0 or "
                             f"None (mxla.pmap maps leading axes only)")
    shared = set(call.leaf_numbers_of(
        {i for i, entry in enumerate(entries) if entry is None}))
    return [n not in shared for n in range(len(call.leaves))]


def _device_count(name, arrays, mapped):
    """The common size of the mapped arrays' axis 0."""
    sizes = {}
    for n, (array, is_mapped) in enumerate(zip(arrays, mapped)):
        if not is_mapped:
            continue
        if array.ndim == 0:
            raise ValueError(f"{name}: argument leaf {n} is mapped (in_axes "
                             f"0) but is a scalar; give it in_axes None to "
                             f"pass it to every device")
        sizes.setdefault(array.shape[0], n)
    if not sizes:
        raise ValueError(f"{name}: no argument is mapped (in_axes 0), so the "
                         f"number of devices is unknown")
    if len(sizes) > 1:
        found = ", ".join(f"leaf {n} has {size}" for size, n in sizes.items())
        raise ValueError(f"{name}: the mapped arguments' axis 0 sizes differ "
                         f"({found}); each is the number of devices")
    size = next(iter(sizes))
    if size < 1:
        raise ValueError(f"{name}: the mapped axis has size 0: no device "
                         f"to run on")
    return size


def _stack(results, out_treedef):
    """Per-device results (each an array or a tuple of leaves) as the
    output pytree, each leaf stacked along a new axis 0."""
    if out_treedef == _jit._LEAF:
        return _np.stack(results)
    leaves = [_np.stack([r[j] for r in results]) for j in range(len(results[0]))]
    return _tree.unflatten(out_treedef, leaves)


def pmap(fun=None, axis_name=None, *, in_axes=0,
         static_broadcasted_argnums=(), backend="jit"):
    """jax.pmap on in-process devices: fun runs once per slice of the
    mapped arguments' axis 0, each slice on a device of its own, all at
    once; mxla.lax.psum(x, axis_name) and friends combine values across
    them. in_axes: 0 (map every positional argument) or None (pass it
    whole to every device), or a tuple with one of those per positional
    argument. static_broadcasted_argnums: arguments passed to fun as they
    are (hashable; part of the cache key). backend: 'jit' or
    'interpreter'. Returns fun's output pytree, each leaf stacked along a
    new axis 0 (one slice per device). f.lower(*args) gives the traced
    computation (mxla.Lowered)."""
    if fun is None:
        return functools.partial(
            pmap, axis_name=axis_name, in_axes=in_axes,
            static_broadcasted_argnums=static_broadcasted_argnums,
            backend=backend)
    name = getattr(fun, "__name__", "pmap")
    numbers, names = _jit._static_positions_and_names(
        fun, static_broadcasted_argnums, ())
    cache = {}

    def prepare(args, kwargs):
        call = _jit._Call(name, numbers, names, args, kwargs)
        leaves = call.flatten()
        if any(isinstance(leaf, Tracer) for leaf in leaves):
            raise TypeError(f"{name}: mxla.pmap cannot run inside a traced "
                            f"function; call it on arrays")
        arrays, weak = _jit._arguments(leaves)
        mapped = _mapped_leaves(name, call, in_axes, len(args))
        size = _device_count(name, arrays, mapped)
        return call, arrays, weak, mapped, size

    def traced(call, arrays, weak, mapped, size):
        one_device = [a[0] if m else a for a, m in zip(arrays, mapped)]
        with _collectives.mapped_axis(axis_name, size):
            return _jit._Traced(fun, call, one_device, weak)

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        call, arrays, weak, mapped, size = prepare(args, kwargs)
        key = (call.treedef, _jit._signature(arrays, weak), call.static,
               tuple(mapped))
        if key not in cache:
            t = traced(call, arrays, weak, mapped, size)
            cache[key] = (_mxla.compile(t.computation(), backend=backend,
                                        replicas=size),
                          t.out_treedef, [p.narrowed for p in t.params])
        executable, out_treedef, narrowed = cache[key]
        for n, dtypes in enumerate(narrowed):
            for dtype in dtypes:
                if not _jit._fits(call.leaves[n], dtype):
                    raise OverflowError(
                        f"{name}: argument leaf {n}, the Python int "
                        f"{call.leaves[n]}, is out of bounds for {dtype}, "
                        f"the dtype it takes in the traced function")
        per_device = [[a[d] if m else a for a, m in zip(arrays, mapped)]
                      for d in range(size)]
        return _stack(executable.run_devices(per_device), out_treedef)

    def lower(*args, **kwargs):
        prepared = prepare(args, kwargs)
        return _jit.Lowered(traced(*prepared).computation(),
                            replicas=prepared[4])

    wrapper.lower = lower
    wrapper.cache_size = lambda: len(cache)
    return wrapper
