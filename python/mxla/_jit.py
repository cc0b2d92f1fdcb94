"""@mxla.jit: trace a function written with mxla.numpy once per input
signature (shapes and dtypes), compile it, and run it on NumPy arrays,
as jax.jit does."""
import functools
import glob
import os
import tempfile

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


def _signature(arrays):
    return tuple((a.shape, a.dtype.str) for a in arrays)


def _trace(fn, arrays):
    """The computation of `fn` on parameters shaped like `arrays`."""
    builder = _mxla.XlaBuilder(getattr(fn, "__name__", "jit"))
    params = [Tracer(_mxla.Parameter(builder, i, a.dtype, a.shape, f"arg{i}"))
              for i, a in enumerate(arrays)]
    out = fn(*params)
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
