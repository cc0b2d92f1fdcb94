"""mxla from Python: build XLA computations, compile them, run them on NumPy.

    import numpy as np, mxla
    b = mxla.XlaBuilder("bias_relu")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    v = mxla.Parameter(b, 1, np.float32, (3,), "v")
    y = mxla.Max(mxla.Add(x, v, broadcast_dimensions=(1,)), 0.0)
    exe = mxla.compile(b.build(y))
    exe(np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32))

Op functions carry XLA's names and semantics (binary ops take
`broadcast_dimensions`); errors raise mxla.Error naming the Python line.
"""
from mxla._mxla import *  # noqa: F401,F403
from mxla._mxla import Error, Executable, XlaBuilder, XlaComputation, XlaOp, compile, compile_hlo  # noqa: F401
from mxla import numpy  # noqa: E402,F401
from mxla._jit import Lowered, jit  # noqa: E402,F401
from mxla._autodiff import grad, value_and_grad, vjp  # noqa: E402,F401
from mxla._vmap import vmap  # noqa: E402,F401
from mxla._pmap import pmap  # noqa: E402,F401
from mxla._hlo_files import load_hlo  # noqa: E402,F401
from mxla import random  # noqa: E402,F401
from mxla import lax  # noqa: E402,F401
from mxla import nn  # noqa: E402,F401
