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
from mxla.numpy import Tracer

# Stages of f.lower(...).as_text(stage): the builder's HLO, then the files
# a dumping compile writes for the later ones.
_STAGE_FILES = {
    "lowered": "*-lower-broadcasts.hlo",
    "fused": "fused.hlo",
    "llvm": "llvm.ll",
    "llvm-opt": "llvm-opt.ll",
    "asm": "kernels.s",
}


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


def _signature(arrays):
    return tuple((a.shape, a.dtype.str) for a in arrays)


def _trace(fn, arrays):
    """The computation of `fn` on parameters shaped like `arrays`."""
    builder = _mxla.XlaBuilder(getattr(fn, "__name__", "jit"))
    params = [Tracer(_mxla.Parameter(builder, i, a.dtype, a.shape, f"arg{i}"))
              for i, a in enumerate(arrays)]
    try:
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
    return builder.build(root)


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

    def compiled(arrays):
        key = _signature(arrays)
        if key not in cache:
            cache[key] = _mxla.compile(_trace(fn, arrays))
        return cache[key]

    @functools.wraps(fn)
    def wrapper(*args):
        arrays = [_np.asarray(a) for a in args]
        return compiled(arrays)(*arrays)

    def lower(*args):
        return Lowered(_trace(fn, [_np.asarray(a) for a in args]))

    wrapper.lower = lower
    wrapper.cache_size = lambda: len(cache)
    return wrapper
