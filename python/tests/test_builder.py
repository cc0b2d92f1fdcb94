"""The mxla module's builder and executables against NumPy."""
import inspect
import threading

import numpy as np
import pytest

import mxla

RNG = np.random.default_rng(7)


def f32(*dims):
    return RNG.uniform(-2, 2, dims).astype(np.float32)


def run(build, *arguments, backend="jit"):
    """Builds a computation over parameters shaped like `arguments`."""
    b = mxla.XlaBuilder("test")
    params = [mxla.Parameter(b, i, a.dtype, a.shape, f"p{i}")
              for i, a in enumerate(arguments)]
    exe = mxla.compile(b.build(build(*params)), backend=backend)
    return exe(*arguments)


def test_bias_relu_with_broadcast_dimensions():
    x, v = f32(2, 3), f32(3)
    out = run(lambda x, v: mxla.Max(mxla.Add(x, v, broadcast_dimensions=(1,)), 0.0), x, v)
    np.testing.assert_array_equal(out, np.maximum(x + v, 0))
    assert out.dtype == np.float32 and out.shape == (2, 3)


BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
    "Max": np.maximum, "Min": np.minimum, "Pow": np.power,
    "Atan2": np.arctan2, "Rem": np.fmod,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_match_numpy(name):
    x, y = f32(3, 4), f32(3, 4)
    if name == "Pow":
        x = np.abs(x) + np.float32(0.5)
    out = run(lambda a, b: getattr(mxla, name)(a, b), x, y)
    np.testing.assert_allclose(out, BINARY[name](x, y), rtol=2e-6, atol=1e-6)


UNARY = {
    "Neg": np.negative, "Abs": np.abs, "Exp": np.exp, "Tanh": np.tanh,
    "Floor": np.floor, "Ceil": np.ceil, "Sin": np.sin, "Cos": np.cos,
    "Sign": np.sign,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_match_numpy(name):
    x = f32(5, 7)
    out = run(lambda a: getattr(mxla, name)(a), x)
    np.testing.assert_allclose(out, UNARY[name](x), rtol=2e-6, atol=1e-6)


def test_log_and_sqrt_of_positive_values():
    x = np.abs(f32(64)) + np.float32(0.1)
    np.testing.assert_allclose(run(mxla.Log, x), np.log(x), rtol=2e-6)
    np.testing.assert_allclose(run(mxla.Sqrt, x), np.sqrt(x), rtol=2e-6)


def test_operators_and_scalars_follow_the_operand_dtype():
    x, y = f32(4), f32(4)
    out = run(lambda a, b: (a * 0.5 + b) / 2.0 - 1.0, x, y)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, (x * np.float32(0.5) + y) / 2 - 1, rtol=1e-6)
    lt = run(lambda a, b: a < b, x, y)
    np.testing.assert_array_equal(lt, x < y)
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(run(lambda a: 3 - a * 2, ints), 3 - ints * 2)


def test_comparisons_select_and_convert():
    x, y = f32(3, 3), f32(3, 3)
    out = run(lambda a, b: mxla.ConvertElementType(
        mxla.Select(mxla.Gt(a, b), a, b), np.float64), x, y)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.maximum(x, y).astype(np.float64))


def test_shape_ops():
    x = f32(2, 3, 4)
    np.testing.assert_array_equal(run(lambda a: mxla.Transpose(a, (2, 0, 1)), x),
                                  x.transpose(2, 0, 1))
    np.testing.assert_array_equal(run(lambda a: mxla.Reshape(a, (6, 4)), x),
                                  x.reshape(6, 4))
    np.testing.assert_array_equal(run(lambda a: mxla.Slice(a, (0, 1, 0), (2, 3, 4), (1, 1, 2)), x),
                                  x[:, 1:3, ::2])
    np.testing.assert_array_equal(run(lambda a: mxla.Rev(a, (1,)), x), x[:, ::-1])
    v = f32(3)
    np.testing.assert_array_equal(run(lambda a: mxla.BroadcastInDim(a, (2, 3), (1,)), v),
                                  np.broadcast_to(v, (2, 3)))
    np.testing.assert_array_equal(run(lambda a, b: mxla.ConcatInDim([a, b], 0), v, v),
                                  np.concatenate([v, v]))


def test_reduce_dot_and_tuples():
    x, w = f32(5, 6), f32(6, 3)
    b = mxla.XlaBuilder("reduce_dot")
    xp = mxla.Parameter(b, 0, np.float32, (5, 6), "x")
    wp = mxla.Parameter(b, 1, np.float32, (6, 3), "w")
    row_sum = mxla.Reduce(xp, 0.0, mxla.CreateScalarAddComputation(np.float32, b), (1,))
    row_max = mxla.Reduce(xp, -np.inf, mxla.CreateScalarMaxComputation(np.float32, b), (1,))
    product = xp @ wp
    exe = mxla.compile(b.build(mxla.Tuple([row_sum, row_max, product])))
    sums, maxes, prod = exe(x, w)
    np.testing.assert_allclose(sums, x.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(maxes, x.max(axis=1))
    np.testing.assert_allclose(prod, x @ w, rtol=1e-5, atol=1e-6)


def test_attention_scores_with_dot_general():
    q, k = f32(2, 8, 4), f32(2, 8, 4)

    def scores(q, k):
        s = mxla.DotGeneral(q, k, lhs_contracting_dims=(2,), rhs_contracting_dims=(2,),
                            lhs_batch_dims=(0,), rhs_batch_dims=(0,)) * 0.5
        b = s.builder
        m = mxla.Reduce(s, -np.inf, mxla.CreateScalarMaxComputation(np.float32, b), (2,))
        e = mxla.Exp(mxla.Sub(s, m, broadcast_dimensions=(0, 1)))
        total = mxla.Reduce(e, 0.0, mxla.CreateScalarAddComputation(np.float32, b), (2,))
        return mxla.Div(e, total, broadcast_dimensions=(0, 1))

    s = np.einsum("hid,hjd->hij", q, k) * 0.5
    e = np.exp(s - s.max(axis=2, keepdims=True))
    expected = e / e.sum(axis=2, keepdims=True)
    for backend in ("jit", "interpreter"):
        np.testing.assert_allclose(run(scores, q, k, backend=backend), expected,
                                   rtol=1e-5, atol=1e-7)


def test_interpreter_backend_matches_jit():
    x = f32(4, 5)
    jit = run(lambda a: mxla.Exp(a) * 2.0, x)
    oracle = run(lambda a: mxla.Exp(a) * 2.0, x, backend="interpreter")
    np.testing.assert_array_equal(jit, oracle)


def test_any_argument_layout_gives_the_same_result():
    x = f32(6, 8)
    expected = run(lambda a: a * 3.0, x)
    fortran = np.asfortranarray(x)
    strided = f32(6, 16)[:, ::2]
    np.testing.assert_array_equal(run(lambda a: a * 3.0, fortran), expected)
    np.testing.assert_array_equal(run(lambda a: a * 3.0, strided), strided * np.float32(3))


def test_runs_from_several_threads():
    b = mxla.XlaBuilder("threads")
    x = mxla.Parameter(b, 0, np.float32, (256, 256), "x")
    exe = mxla.compile(b.build(mxla.Tanh(x) * 2.0))
    inputs = [f32(256, 256) for _ in range(4)]
    results = [None] * 4

    def work(i):
        for _ in range(5):
            results[i] = exe(inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        np.testing.assert_allclose(results[i], np.tanh(inputs[i]) * 2, rtol=2e-6, atol=1e-6)


def test_errors_name_the_op_the_shapes_and_the_python_line():
    b = mxla.XlaBuilder("errors")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    v = mxla.Parameter(b, 1, np.float32, (4,), "v")
    with pytest.raises(mxla.Error) as error:
        line = inspect.currentframe().f_lineno; mxla.Add(x, v, broadcast_dimensions=(1,))  # noqa: E702
    message = str(error.value)
    assert error.value.code == "INVALID_ARGUMENT"
    assert "f32[2,3]" in message and "f32[4]" in message
    assert f"test_builder.py:{line}" in message, message
    assert "builder_bindings" not in message
    assert isinstance(error.value, ValueError)


def test_xla_broadcasting_is_strict():
    b = mxla.XlaBuilder("strict")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    v = mxla.Parameter(b, 1, np.float32, (3,), "v")
    with pytest.raises(mxla.Error, match=r"Shapes must be equal rank, but are f32\[2,3\] and f32\[3\]"):
        x + v  # XLA needs broadcast_dimensions for different ranks
    with pytest.raises(mxla.Error, match="dtype complex64 has no mxla element type"):
        mxla.Parameter(b, 2, np.complex64, (2,), "c")


def test_call_errors():
    b = mxla.XlaBuilder("calls")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    exe = mxla.compile(b.build(x + 1.0))
    with pytest.raises(mxla.Error, match="expected 1 arguments"):
        exe()
    with pytest.raises(mxla.Error, match=r"argument 0: expected f32\[2,3\], got float64\[2,3\]"):
        exe(np.zeros((2, 3)))
    with pytest.raises(mxla.Error, match=r"argument 0: expected f32\[2,3\], got f32\[3,2\]"):
        exe(np.zeros((3, 2), np.float32))
    with pytest.raises(mxla.Error, match="unknown backend"):
        mxla.compile(b.build(x), backend="gpu")


def test_hlo_text_of_both_stages():
    b = mxla.XlaBuilder("texts")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    v = mxla.Parameter(b, 1, np.float32, (3,), "v")
    computation = b.build(mxla.Add(x, v, broadcast_dimensions=(1,)))
    assert "broadcast_dimensions={1}" in computation.as_hlo_text()
    assert "kind=kLoop" in mxla.compile(computation).as_hlo_text()


def test_contiguous_arguments_are_not_copied(monkeypatch):
    b = mxla.XlaBuilder("zero_copy")
    x = mxla.Parameter(b, 0, np.float32, (4, 4), "x")
    exe = mxla.compile(b.build(x + 1.0))
    copies = []
    require = np.require

    def counting_require(array, *args, **kwargs):
        copies.append(array.flags["C_CONTIGUOUS"])
        return require(array, *args, **kwargs)

    monkeypatch.setattr(np, "require", counting_require)
    a = f32(4, 4)
    np.testing.assert_array_equal(exe(a), a + 1)
    assert copies == []  # read in place
    np.testing.assert_array_equal(exe(np.asfortranarray(a)), a + 1)
    assert copies == [False]  # the Fortran-ordered one was copied


CACHED_PROGRAM = """
import sys
import numpy as np
import mxla
b = mxla.XlaBuilder("cached")
x = mxla.Parameter(b, 0, np.float32, (4, 8), "x")
v = mxla.Parameter(b, 1, np.float32, (8,), "v")
exe = mxla.compile(b.build(mxla.Tanh(mxla.Add(x, v, broadcast_dimensions=(1,)))),
                   cache_dir=sys.argv[1])
out = exe(np.arange(32, dtype=np.float32).reshape(4, 8) / 32,
          np.linspace(-1, 1, 8, dtype=np.float32))
print(" ".join(repr(float(e)) for e in out.ravel()))
"""


def test_persistent_cache_across_processes(tmp_path):
    import os
    import subprocess
    import sys

    def run_process():
        done = subprocess.run([sys.executable, "-c", CACHED_PROGRAM, str(tmp_path)],
                              capture_output=True, text=True, check=True)
        assert "warning" not in done.stderr
        return done.stdout

    first = run_process()
    entries = list(tmp_path.glob("*.mxla"))
    assert len(entries) == 1
    stored = entries[0].stat()
    second = run_process()
    loaded = entries[0].stat()
    assert first == second
    # Loaded, not stored again: the same file, its use time refreshed.
    assert loaded.st_ino == stored.st_ino
    assert loaded.st_mtime_ns > stored.st_mtime_ns
    x = np.arange(32, dtype=np.float32).reshape(4, 8) / 32
    v = np.linspace(-1, 1, 8, dtype=np.float32)
    np.testing.assert_allclose(np.array(second.split(), dtype=np.float32).reshape(4, 8),
                               np.tanh(x + v), rtol=1e-6, atol=1e-6)
    assert os.listdir(tmp_path) == [entries[0].name]


def test_profile_returns_the_kernel_table():
    b = mxla.XlaBuilder("profiled")
    x = mxla.Parameter(b, 0, np.float32, (64, 32), "x")
    y = mxla.Parameter(b, 1, np.float32, (32, 16), "y")
    exe = mxla.compile(b.build(mxla.Tanh(mxla.Dot(x, y))))
    args = (np.ones((64, 32), np.float32), np.ones((32, 16), np.float32))
    table = exe.profile(*args)
    assert table.startswith("profile: 1 run, ")
    assert "GFLOP/s" in table and "(outside kernels)" in table
    assert "[dot]" in table
    assert "tanh" in table
    np.testing.assert_array_equal(exe(*args), np.tanh(np.full((64, 16), 32, np.float32)))
