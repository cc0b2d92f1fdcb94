"""mxla.load_hlo: an HLO text file (a module JAX exports with
`jax.jit(f).lower(x).as_text(dialect="hlo")`, or one of XLA's own) compiled
into an executable, as mxla.compile_hlo does for text."""
import os

from mxla import _mxla


def load_hlo(path, backend="jit", dump_dir="", cache_dir=""):
    """The executable of the HLO module in the text file at `path`; call
    it on NumPy arrays, one per entry parameter. A parse error is an
    mxla.Error naming the line; a missing file is FileNotFoundError."""
    with open(os.fspath(path)) as f:
        text = f.read()
    return _mxla.compile_hlo(text, backend=backend, dump_dir=dump_dir,
                             cache_dir=cache_dir)
