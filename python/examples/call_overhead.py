"""Per-call overhead: an 8x8 maximum(x + v, 0) through @mxla.jit and
through a compiled executable, against NumPy's own expression, with
timeit, best of 5 (microseconds per call).

    PYTHONPATH=build/python python3 python/examples/call_overhead.py
"""
import timeit

import numpy as np

import mxla
import mxla.numpy as mnp

x = np.random.rand(8, 8).astype(np.float32)
v = np.random.rand(8).astype(np.float32)

f = mxla.jit(lambda x, v: mnp.maximum(x + v, 0))
b = mxla.XlaBuilder("bias_relu")
px = mxla.Parameter(b, 0, np.float32, (8, 8), "x")
pv = mxla.Parameter(b, 1, np.float32, (8,), "v")
exe = mxla.compile(b.build(mxla.Max(mxla.Add(px, pv, broadcast_dimensions=(1,)), 0.0)))
assert np.array_equal(f(x, v), np.maximum(x + v, 0))
assert np.array_equal(exe(x, v), np.maximum(x + v, 0))

n = 20000
for name, call in [("numpy np.maximum(x + v, 0)", lambda: np.maximum(x + v, 0)),
                   ("@mxla.jit", lambda: f(x, v)),
                   ("mxla.compile executable", lambda: exe(x, v))]:
    best = min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6
    print(f"{name:28s} {best:5.2f} us")
