"""@mxla.jit: trace a function written with mxla.numpy once per input
signature (shapes and dtypes), compile it, and run it on NumPy arrays,
as jax.jit does."""
import functools
import glob
import inspect
import os
import tempfile
import types

import numpy as _np

from mxla import _mxla, _tree
from mxla.numpy import Tracer, _tracing

# Stages of f.lower(...).as_text(stage): the builder's HLO, then the files
# a dumping compile writes for the later ones.
_STAGE_FILES = {
    "lowered": "*-lower-broadcasts.hlo",
    "fused": "fused.hlo",
    "llvm": "llvm.ll",
    "llvm-opt": "llvm-opt.ll",
    "asm": "kernels.s",
}


def _arguments(args):
    """The arguments as arrays, and for each, int or float if it is a
    Python int or float: such a parameter stays weak in the traced
    function, as a literal would (x_f32 * s is float32 for s = 2.5)."""
    arrays, weak = [], []
    for a in args:
        if isinstance(a, (int, float)) and not isinstance(a, (bool, _np.generic)):
            kind = int if isinstance(a, int) else float
            if kind is int and not _fits(a, _np.int64):
                raise OverflowError(f"Python int {a} is out of bounds for "
                                    f"int64, the dtype of a Python int "
                                    f"argument")
            arrays.append(_np.asarray(a, _np.int64 if kind is int else _np.float64))
            weak.append(kind)
        else:
            arrays.append(_np.asarray(a))
            weak.append(None)
    return arrays, weak


def _hidden(frame):
    """A frame of mxla's or NumPy's own code."""
    name = frame.f_globals.get("__name__") or ""
    return any(name == m or name.startswith(m + ".") for m in ("mxla", "numpy"))


def _user_traceback(traceback):
    """`traceback` without mxla's and NumPy's frames, so that its innermost
    frame is the user's line that called into mxla.numpy; None if no frame
    is left."""
    kept = []
    while traceback is not None:
        if not _hidden(traceback.tb_frame):
            kept.append(traceback)
        traceback = traceback.tb_next
    filtered = None
    for entry in reversed(kept):
        filtered = types.TracebackType(filtered, entry.tb_frame,
                                       entry.tb_lasti, entry.tb_lineno)
    return filtered


def _fits(value, dtype):
    info = _np.iinfo(dtype)
    return info.min <= value <= info.max


def _signature(arrays, weak):
    return tuple((a.shape, a.dtype.str, w) for a, w in zip(arrays, weak))


def call_traced(fn, args, kwargs):
    """fn(*args, **kwargs) while tracing; an error points at the user's
    line, as in jax.jit (MXLA_TRACEBACK_FILTERING=off keeps mxla's
    frames)."""
    try:
        return fn(*args, **kwargs)
    except Exception as error:
        filtered = _user_traceback(error.__traceback__)
        if filtered is None or os.environ.get("MXLA_TRACEBACK_FILTERING") == "off":
            raise
        raise error.with_traceback(filtered)


def as_tracer(builder, value):
    """`value` itself if it is a Tracer, else a constant of `builder`."""
    if isinstance(value, Tracer):
        return value
    return Tracer(_mxla.Constant(builder, _np.asarray(value)))


def identifier(name):
    """A builder name for a function's name (lambdas have none)."""
    return name if name.isidentifier() else "function"


def _root(builder, out):
    """The op for `out`, a pytree of Tracers and constants (the one op of
    a single array, else the tuple of the leaves), out's treedef, and each
    leaf's (shape, dtype)."""
    leaves, treedef = _tree.flatten(out)
    if not leaves:
        raise TypeError(f"a traced function must return at least one array, "
                        f"not {out!r}")
    ops = [as_tracer(builder, value).op for value in leaves]
    kinds = [(tuple(op.shape), op.dtype) for op in ops]
    if treedef == _LEAF:
        return ops[0], treedef, kinds
    return _mxla.Tuple(ops), treedef, kinds


_LEAF = ("leaf",)


class _Traced:
    """A function traced on parameters shaped like its dynamic leaves:
    the builder, its root op, the output's treedef and the parameters."""

    def __init__(self, fn, call, arrays, weak):
        self.builder = _mxla.XlaBuilder(identifier(getattr(fn, "__name__", "jit")))
        self.params = [
            Tracer(_mxla.Parameter(self.builder, i, a.dtype, a.shape, f"arg{i}"),
                   weak=w)
            for i, (a, w) in enumerate(zip(arrays, weak))]
        args, kwargs = call.merged(self.params)
        with _tracing(self.builder):  # for mxla.numpy.zeros and the like
            out = call_traced(fn, args, kwargs)
        self.root, self.out_treedef, self.out_kinds = _root(self.builder, out)

    def alias_donated(self, donated):
        """Aliases each donated parameter to the first output leaf of its
        shape and dtype not taken yet; whether any was."""
        taken = set()
        for number in donated:
            param = self.params[number]
            for j, kind in enumerate(self.out_kinds):
                if j not in taken and kind == (param.shape, param.dtype):
                    index = () if self.out_treedef == _LEAF else (j,)
                    self.builder.set_up_alias(index, number)
                    taken.add(j)
                    break
        return bool(taken)

    def computation(self):
        return self.builder.build(self.root)


class _Call:
    """One call's arguments, split into the dynamic pytree (traced) and
    the static values (part of the cache key, passed as they are)."""

    def __init__(self, name, numbers, names, args, kwargs):
        self.count = len(args)
        self.static_args = tuple((i, a) for i, a in enumerate(args) if i in numbers)
        self.static_kwargs = tuple(sorted((k, v) for k, v in kwargs.items()
                                          if k in names))
        self.dynamic = ([a for i, a in enumerate(args) if i not in numbers],
                        {k: v for k, v in kwargs.items() if k not in names})
        for where, value in self.static_args + self.static_kwargs:
            try:
                hash(value)
            except TypeError:
                raise TypeError(
                    f"{name}: static argument {where!r} of type "
                    f"{type(value).__name__} is not hashable; static "
                    f"arguments are part of the compile cache's key, as in "
                    f"jax.jit") from None
        self.static = (self.count, self.static_args, self.static_kwargs)

    def merged(self, dynamic_leaves):
        """The positional and keyword arguments with `dynamic_leaves` in
        place of the dynamic ones."""
        dynamic_args, dynamic_kwargs = _tree.unflatten(self.treedef,
                                                       dynamic_leaves)
        statics = dict(self.static_args)
        it = iter(dynamic_args)
        args = [statics[i] if i in statics else next(it)
                for i in range(self.count)]
        kwargs = dict(dynamic_kwargs)
        kwargs.update(self.static_kwargs)
        return args, kwargs

    def flatten(self):
        self.leaves, self.treedef = _tree.flatten(self.dynamic)
        return self.leaves

    def leaf_numbers_of(self, positions):
        """The leaf numbers of the dynamic positional arguments at
        `positions`."""
        numbers, first = [], 0
        dynamic_positions = [i for i in range(self.count)
                             if i not in dict(self.static_args)]
        for position, arg in zip(dynamic_positions, self.dynamic[0]):
            count = len(_tree.flatten(arg)[0])
            if position in positions:
                numbers.extend(range(first, first + count))
            first += count
        return numbers


def _static_positions_and_names(fn, static_argnums, static_argnames):
    """Each of static_argnums and static_argnames completed from the other
    through fn's signature, as jax.jit does."""
    numbers = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
    names = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return numbers, names
    positional = [p.name for p in parameters
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    numbers = {n + len(positional) if n < 0 else n for n in numbers}
    names |= {positional[n] for n in numbers if n < len(positional)}
    numbers |= {positional.index(n) for n in names if n in positional}
    return numbers, names


class Lowered:
    """A traced computation: its text at each stage of the pipeline, for
    `replicas` devices (mxla.pmap's; 1 for mxla.jit's)."""

    def __init__(self, computation, replicas=1):
        self.computation = computation
        self.replicas = replicas

    def as_text(self, stage="hlo"):
        """'hlo' (as the builder recorded it), 'lowered' (explicit
        broadcasts), 'fused' (the module the JIT compiles, with plans),
        'llvm', 'llvm-opt' or 'asm'."""
        if stage == "hlo":
            return self.computation.as_hlo_text()
        if stage not in _STAGE_FILES:
            raise ValueError(f"unknown stage {stage!r} (hlo, "
                             f"{', '.join(_STAGE_FILES)})")
        with tempfile.TemporaryDirectory() as directory:
            _mxla.compile(self.computation, dump_dir=directory,
                          replicas=self.replicas)
            # A module with no implicit broadcast is the same once lowered.
            found = (sorted(glob.glob(os.path.join(directory, _STAGE_FILES[stage])))
                     or [os.path.join(directory, "00-input.hlo")])
            with open(found[0]) as f:
                return f.read()


def jit(fn=None, *, static_argnums=(), static_argnames=(),
        donate_argnums=()):
    """Compiles `fn` per input signature; call it on NumPy arrays, or on
    pytrees (tuples, lists, dicts) of them, positionally or by keyword.

    static_argnums / static_argnames: arguments passed to `fn` as they are
    (hashable; each distinct value compiles anew). donate_argnums: the
    positional arguments whose arrays may hold results: each donated array
    is aliased to the first result of its shape and dtype and updated in
    place, so the call returns it (do not read it afterwards for its old
    value). Called inside another traced function, `fn` is traced into the
    caller's computation (it inlines)."""
    if fn is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames,
                                 donate_argnums=donate_argnums)
    name = getattr(fn, "__name__", "jit")
    numbers, names = _static_positions_and_names(fn, static_argnums,
                                                 static_argnames)
    donated = {donate_argnums} if isinstance(donate_argnums, int) else set(donate_argnums)
    if donated & numbers:
        raise ValueError(f"{name}: static arguments cannot be donated "
                         f"({sorted(donated & numbers)})")
    cache = {}

    def compiled(call, arrays, weak):
        key = (call.treedef, _signature(arrays, weak), call.static)
        if key not in cache:
            traced = _Traced(fn, call, arrays, weak)
            donates = traced.alias_donated(
                [n for n in call.leaf_numbers_of(donated)
                 if weak[n] is None])
            cache[key] = (_mxla.compile(traced.computation()), donates,
                          traced.out_treedef, [p.narrowed for p in traced.params])
        return cache[key]

    # Calls whose arguments are all ndarrays, positional, none static:
    # (type, shape, dtype) of each -> (executable, donates, out treedef).
    # A Tracer's key has its own type, so it never hits.
    fast = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not kwargs:
            try:
                entry = fast[tuple([(type(a), a.shape, a.dtype) for a in args])]
            except (KeyError, AttributeError, TypeError):
                entry = None
            if entry is not None:
                result = entry[0](*args, donate=True) if entry[1] else entry[0](*args)
                return result if entry[2] == _LEAF else _tree.unflatten(entry[2], result)
        call = _Call(name, numbers, names, args, kwargs)
        leaves = call.flatten()
        if any(isinstance(leaf, Tracer) for leaf in leaves):
            return fn(*args, **kwargs)  # traced into the caller
        arrays, weak = _arguments(leaves)
        executable, donates, out_treedef, narrowed = compiled(call, arrays, weak)
        # A Python int argument must fit where it went, as a literal must.
        for i, dtypes in enumerate(narrowed):
            for dtype in dtypes:
                if not _fits(leaves[i], dtype):
                    raise OverflowError(
                        f"{name}: argument {i}, the Python int {leaves[i]}, "
                        f"is out of bounds for {dtype}, the dtype it takes "
                        f"in the traced function")
        if (not kwargs and not numbers and not any(narrowed)
                and all(type(a) is _np.ndarray for a in args)):
            fast[tuple([(type(a), a.shape, a.dtype) for a in args])] = (
                executable, donates, out_treedef)
        result = executable(*arrays, donate=donates)
        if out_treedef == _LEAF:
            return result
        return _tree.unflatten(out_treedef, result)

    def lower(*args, **kwargs):
        call = _Call(name, numbers, names, args, kwargs)
        arrays, weak = _arguments(call.flatten())
        return Lowered(_Traced(fn, call, arrays, weak).computation())

    wrapper.lower = lower
    wrapper.cache_size = lambda: len(cache)
    return wrapper
