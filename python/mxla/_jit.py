"""@mxla.jit: trace a function written with mxla.numpy once per input
signature (shapes and dtypes), compile it, and run it on NumPy arrays,
as jax.jit does."""
import functools
import glob
import os
import tempfile
import types

import numpy as _np

from mxla import _mxla
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


def _trace(fn, arrays, weak=None):
    """The computation of `fn` on parameters shaped like `arrays` (weak
    where `weak` says int or float), and for each parameter the integer
    dtypes that its weak int was converted to."""
    builder = _mxla.XlaBuilder(getattr(fn, "__name__", "jit"))
    weak = weak or [None] * len(arrays)
    params = [Tracer(_mxla.Parameter(builder, i, a.dtype, a.shape, f"arg{i}"),
                     weak=w)
              for i, (a, w) in enumerate(zip(arrays, weak))]
    try:
        with _tracing(builder):
            out = fn(*params)
    except Exception as error:
        # An error while tracing points at the user's line, as in jax.jit;
        # MXLA_TRACEBACK_FILTERING=off keeps mxla's frames.
        filtered = _user_traceback(error.__traceback__)
        if filtered is None or os.environ.get("MXLA_TRACEBACK_FILTERING") == "off":
            raise
        raise error.with_traceback(filtered)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    ops = []
    for value in outs:
        if not isinstance(value, Tracer):
            value = Tracer(_mxla.Constant(builder, _np.asarray(value)))
        ops.append(value.op)
    root = _mxla.Tuple(ops) if isinstance(out, (tuple, list)) else ops[0]
    return builder.build(root), [p.narrowed for p in params]


class Lowered:
    """A traced computation: its text at each stage of the pipeline."""

    def __init__(self, computation):
        self.computation = computation

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
            _mxla.compile(self.computation, dump_dir=directory)
            # A module with no implicit broadcast is the same once lowered.
            found = (sorted(glob.glob(os.path.join(directory, _STAGE_FILES[stage])))
                     or [os.path.join(directory, "00-input.hlo")])
            with open(found[0]) as f:
                return f.read()


def jit(fn):
    """Compiles `fn` per input signature; call it on NumPy arrays."""
    cache = {}

    def compiled(arrays, weak):
        key = _signature(arrays, weak)
        if key not in cache:
            computation, narrowed = _trace(fn, arrays, weak)
            cache[key] = _mxla.compile(computation), narrowed
        return cache[key]

    @functools.wraps(fn)
    def wrapper(*args):
        arrays, weak = _arguments(args)
        executable, narrowed = compiled(arrays, weak)
        # A Python int argument must fit where it went, as a literal must.
        for i, dtypes in enumerate(narrowed):
            for dtype in dtypes:
                if not _fits(args[i], dtype):
                    raise OverflowError(
                        f"{getattr(fn, '__name__', 'jit')}: argument {i}, "
                        f"the Python int {args[i]}, is out of bounds for "
                        f"{dtype}, the dtype it takes in the traced function")
        return executable(*arrays)

    def lower(*args):
        return Lowered(_trace(fn, *_arguments(args))[0])

    wrapper.lower = lower
    wrapper.cache_size = lambda: len(cache)
    return wrapper
