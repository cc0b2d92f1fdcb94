"""Per-call overhead: an 8x8 maximum(x + v, 0) through @mxla.jit and
through a compiled executable, against NumPy's own expression, and a call
of an executable with 1000 parameters (a model's weights) that adds two
of them, with timeit, best of 5 (microseconds per call).

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

# Every argument is checked per call (dtype, shape, size, overlap): this
# shows what that costs per parameter.
many = mxla.XlaBuilder("many_parameters")
weights = [mxla.Parameter(many, i, np.float32, (2,), f"w{i}") for i in range(1000)]
many_exe = mxla.compile(many.build(mxla.Add(weights[0], weights[-1])))
many_args = [np.full(2, i, np.float32) for i in range(1000)]
assert np.array_equal(many_exe(*many_args), np.full(2, 999, np.float32))

for name, call, n in [("numpy np.maximum(x + v, 0)", lambda: np.maximum(x + v, 0), 20000),
                      ("@mxla.jit", lambda: f(x, v), 20000),
                      ("mxla.compile executable", lambda: exe(x, v), 20000),
                      ("1000-parameter executable", lambda: many_exe(*many_args), 200)]:
    best = min(timeit.repeat(call, number=n, repeat=5)) / n * 1e6
    print(f"{name:28s} {best:7.2f} us")
