"""mxla.lax's convolution and window reductions and mxla.nn's pools
against NumPy loops, their gradients against central differences, and
their refusals."""
import numpy as np
import pytest

import mxla
import mxla.lax as lax
import mxla.nn as nn
import mxla.numpy as mnp
from central_differences import numeric_gradient

RNG = np.random.default_rng(386)


def conv_nhwc(x, w, stride, pads):
    """NumPy reference: x [N,H,W,C], w [KH,KW,C,O], pads ((lo,hi),(lo,hi))."""
    x = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)))
    kh, kw = w.shape[:2]
    oh = (x.shape[1] - kh) // stride[0] + 1
    ow = (x.shape[2] - kw) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw]
            out[:, i, j] = np.einsum("nhwc,hwco->no", patch, w)
    return out


@pytest.mark.parametrize("stride, padding, pads", [
    ((1, 1), "SAME", ((1, 1), (1, 1))),
    ((2, 2), "SAME", ((1, 1), (0, 1))),
    ((1, 2), "VALID", ((0, 0), (0, 0))),
    ((1, 1), [(2, 0), (0, 1)], ((2, 0), (0, 1))),
])
def test_convolution_matches_numpy(stride, padding, pads):
    x, w = RNG.normal(size=(2, 7, 6, 3)), RNG.normal(size=(3, 3, 3, 4))
    got = mxla.jit(lambda x, w: lax.conv_general_dilated(x, w, stride, padding))(x, w)
    np.testing.assert_allclose(got, conv_nhwc(x, w, stride, pads), rtol=1e-12, atol=1e-12)
    nchw = mxla.jit(lambda x, w: lax.conv_general_dilated(
        x, w, stride, padding, dimension_numbers=("NCHW", "OIHW", "NCHW")))(
        x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1))
    np.testing.assert_allclose(nchw.transpose(0, 2, 3, 1), got, rtol=1e-12, atol=1e-12)


def test_pools_and_reduce_window():
    x = RNG.normal(size=(2, 6, 4, 3))
    blocks = x.reshape(2, 3, 2, 2, 2, 3)
    np.testing.assert_array_equal(mxla.jit(lambda x: nn.max_pool(x, (2, 2)))(x),
                                  blocks.max(axis=(2, 4)))
    np.testing.assert_allclose(mxla.jit(lambda x: nn.avg_pool(x, (2, 2)))(x),
                               blocks.mean(axis=(2, 4)), rtol=1e-12)
    sums = mxla.jit(lambda x: lax.reduce_window(x, "add", (1, 3, 1, 1), (1, 1, 1, 1),
                                                "SAME"))(x)
    padded = np.pad(x, ((0, 0), (1, 1), (0, 0), (0, 0)))
    np.testing.assert_allclose(sums, padded[:, :-2] + padded[:, 1:-1] + padded[:, 2:],
                               rtol=1e-12)


def test_gradient_of_a_conv_relu_pool_layer():
    x = RNG.normal(size=(2, 6, 6, 2))

    def loss(w):
        h = nn.max_pool(nn.relu(lax.conv_general_dilated(x, w, (1, 1), "SAME")), (2, 2))
        return mnp.sum(h * h)

    w = RNG.normal(size=(3, 3, 2, 3))
    grad = mxla.grad(loss)(w)
    f = mxla.jit(loss)
    numeric = np.zeros_like(w)
    for i in np.ndindex(*w.shape):
        step = np.zeros_like(w)
        step[i] = 1e-6
        numeric[i] = (f(w + step) - f(w - step)) / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def test_refusals():
    x = np.ones((1, 4, 4, 1))
    with pytest.raises(ValueError, match="lhs spec 'NHHC' needs one 'N', one 'C'"):
        mxla.jit(lambda x: lax.conv_general_dilated(
            x, x, (1, 1), "SAME", dimension_numbers=("NHHC", "HWIO", "NHWC")))(x)
    with pytest.raises(ValueError, match="padding 'FULL' is not 'SAME', 'VALID'"):
        mxla.jit(lambda x: lax.reduce_window(x, "max", (1, 2, 2, 1), None, "FULL"))(x)
    with pytest.raises(ValueError, match="computation 'mul' is not one of"):
        mxla.jit(lambda x: lax.reduce_window(x, "mul", (1, 2, 2, 1)))(x)
    with pytest.raises(ValueError, match="window_shape \\(2,\\) needs an array of "
                                         "rank 3"):
        mxla.jit(lambda x: nn.max_pool(x, (2,)))(x)


def test_fori_loop_runs_a_recurrence_and_differentiates_through_it():
    w = RNG.normal(size=(3, 3)) * 0.5
    h0, xs = RNG.normal(size=3), RNG.normal(size=(6, 3))

    def run(w, h0, xs):
        state = {"h": h0, "total": 0.0 * h0[0]}

        def step(i, s):
            h = mnp.tanh(w @ s["h"] + xs[i])
            return {"h": h, "total": s["total"] + mnp.sum(h)}

        out = lax.fori_loop(1, 6, step, state)
        return out["total"] + mnp.sum(out["h"] * out["h"])

    h, total = h0, 0.0
    for i in range(1, 6):
        h = np.tanh(w @ h + xs[i])
        total += h.sum()
    f = mxla.jit(run)
    np.testing.assert_allclose(f(w, h0, xs), total + (h * h).sum(), rtol=1e-12)
    grads = mxla.grad(run, argnums=(0, 1, 2))(w, h0, xs)
    for n, g in enumerate(grads):
        np.testing.assert_allclose(g, numeric_gradient(f, [w, h0, xs], n),
                                   rtol=1e-5, atol=1e-7)


def test_fori_loop_refusals():
    with pytest.raises(TypeError, match="body_fun's leaf 0 is float32\\[3\\], not "
                                        "init_val's float64\\[3\\]"):
        mxla.jit(lambda x: lax.fori_loop(0, 2, lambda i, v: v.astype(np.float32),
                                         x))(np.ones(3))
    with pytest.raises(TypeError, match="body_fun returned structure"):
        mxla.jit(lambda x: lax.fori_loop(0, 2, lambda i, v: (v, v), x))(np.ones(3))


def test_max_pool_gradient_differentiates_again():
    # The pool's vjp is a select-and-scatter; its own gradient gathers the
    # cotangent at each window's choice (docs/autodiff.md).
    x, c = RNG.normal(size=(1, 5, 6, 2)), RNG.normal(size=(1, 3, 3, 2))

    def pool_vjp(x, c):
        _, vjp = mxla.vjp(lambda x: lax.reduce_window(x, "max", (1, 3, 2, 1),
                                                      (1, 2, 2, 1), "SAME"), x)
        return vjp(c)[0]

    def loss(x, c):
        return mnp.sum(mnp.sin(x * pool_vjp(x, c)))

    f = mxla.jit(loss)
    grads = mxla.grad(loss, argnums=(0, 1))(x, c)
    for n, g in enumerate(grads):
        np.testing.assert_allclose(g, numeric_gradient(f, [x, c], n),
                                   rtol=1e-5, atol=1e-7)
