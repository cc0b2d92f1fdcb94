"""@mxla.jit and mxla.numpy against NumPy: broadcasting, reductions,
indexing, matmul, the cache and the lowered stages."""
import numpy as np
import pytest

import mxla
import mxla.numpy as mnp

RNG = np.random.default_rng(11)


def f32(*dims):
    return RNG.uniform(-2, 2, dims).astype(np.float32)


@mxla.jit
def softmax(x):
    e = mnp.exp(x - mnp.max(x, axis=-1, keepdims=True))
    return e / mnp.sum(e, axis=-1, keepdims=True)


def test_softmax():
    x = f32(4, 9)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(softmax(x), e / e.sum(axis=-1, keepdims=True), rtol=1e-6)


def test_layer_norm_with_numpy_broadcasting():
    @mxla.jit
    def layer_norm(x, gamma, beta):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / mnp.sqrt(var + 1e-5) * gamma + beta

    x, gamma, beta = f32(3, 16), f32(16), f32(16)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    expected = (x - mean) / np.sqrt(var + np.float32(1e-5)) * gamma + beta
    np.testing.assert_allclose(layer_norm(x, gamma, beta), expected, rtol=1e-4, atol=1e-5)


def test_mlp():
    @mxla.jit
    def mlp(x, w1, b1, w2):
        return mnp.maximum(x @ w1 + b1, 0) @ w2

    x, w1, b1, w2 = f32(8, 16), f32(16, 32), f32(32), f32(32, 4)
    np.testing.assert_allclose(mlp(x, w1, b1, w2), np.maximum(x @ w1 + b1, 0) @ w2,
                               rtol=1e-4, atol=1e-4)


def test_numpy_broadcasting_rules():
    @mxla.jit
    def outer(a, b):
        return a + b

    a, b = f32(4, 1), f32(1, 5)
    np.testing.assert_array_equal(outer(a, b), a + b)
    c, d = f32(2, 3, 4), f32(4)
    np.testing.assert_array_equal(outer(c, d), c + d)
    with pytest.raises(ValueError, match="shape mismatch|could not be broadcast"):
        outer(f32(2, 3), f32(4))


def test_matmul_follows_numpy():
    @mxla.jit
    def mm(a, b):
        return a @ b

    for sa, sb in [((3, 4), (4,)), ((4,), (4, 5)), ((2, 3, 4), (4, 5)),
                   ((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (6, 4, 2))]:
        a, b = f32(*sa), f32(*sb)
        np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_reductions_where_reshape_transpose_indexing():
    @mxla.jit
    def f(x):
        y = mnp.where(x > 0, x, 0.0)
        return (y.sum(axis=0), x.max(axis=(0, 1)), x.min(), mnp.mean(x, axis=1, keepdims=True),
                x.reshape(-1, 4), x.T, x[1, :, ::2], x[..., 2], x[-1])

    x = f32(3, 4, 4)
    outs = f(x)
    expected = (np.where(x > 0, x, 0).sum(axis=0), x.max(axis=(0, 1)), x.min(),
                x.mean(axis=1, keepdims=True), x.reshape(-1, 4), x.T, x[1, :, ::2],
                x[..., 2], x[-1])
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_dtypes_scalars_and_promotion():
    @mxla.jit
    def f(x, n):
        return x * 0.5, n + 1, x + n.astype(np.float32), x.astype(np.float64) + 1

    x, n = f32(3), np.arange(3, dtype=np.int32)
    half, n1, mixed, wide = f(x, n)
    assert half.dtype == np.float32 and n1.dtype == np.int32 and wide.dtype == np.float64
    np.testing.assert_array_equal(n1, n + 1)
    np.testing.assert_allclose(mixed, x + n.astype(np.float32))


def test_traced_once_per_signature():
    calls = []

    @mxla.jit
    def f(x):
        calls.append(x.shape)
        return x * 2

    f(f32(3)), f(f32(3)), f(f32(4)), f(f32(3).astype(np.float64))
    assert calls == [(3,), (4,), (3,)]
    assert f.cache_size() == 3


def test_lowered_stages():
    lowered = softmax.lower(f32(4, 9))
    # mxla.numpy's broadcasts are explicit already: the builder's HLO is
    # its lowered form.
    assert "reduce(" in lowered.as_text() and "broadcast(" in lowered.as_text()
    assert "broadcast(" in lowered.as_text("lowered")
    assert "kind=kInput" in lowered.as_text("fused")
    assert "define" in lowered.as_text("llvm")
    with pytest.raises(ValueError, match="unknown stage 'ptx'"):
        lowered.as_text("ptx")


def test_tracing_errors():
    @mxla.jit
    def branch(x):
        return x if x > 0 else -x

    with pytest.raises(TypeError, match="no truth value while tracing"):
        branch(f32(3))

    @mxla.jit
    def bad_axis(x):
        return x.sum(axis=2)

    with pytest.raises(ValueError, match="axis 2 is out of bounds for an array of dimension 2"):
        bad_axis(f32(2, 3))
