"""mxla.grad, value_and_grad and vjp against central finite differences in
float64 (as JAX's check_grads), by hand where a rule chooses, composed with
jit and with themselves; and their refusals."""
import numpy as np
import pytest

import mxla
import mxla.numpy as mnp

RNG = np.random.default_rng(38)


def numeric_grad(f, args, argnum, h=1e-6):
    """Central differences of the scalar f(*args) in args[argnum]."""
    x = np.array(args[argnum], dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        a = list(args)
        a[argnum] = up
        f_up = float(f(*a))
        a[argnum] = down
        out[i] = (f_up - float(f(*a))) / (2 * h)
    return out


def check_grads(f, args, argnums=(0,), tol=1e-6):
    jitted = mxla.jit(f)
    grads = mxla.grad(f, argnums=tuple(argnums))(*args)
    for g, n in zip(grads, argnums):
        want = numeric_grad(jitted, args, n)
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol)


def rand(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape)


FUNCTIONS = {
    "polynomial": (lambda x: mnp.sum(x * x * x - 2 * x), [rand(3, 4)]),
    "transcendental": (lambda x: mnp.sum(mnp.tanh(x) * mnp.exp(-x * x)
                                         + mnp.sin(x) * mnp.cos(2 * x)),
                       [rand(5)]),
    "log_sqrt": (lambda x: mnp.mean(mnp.log(x) + mnp.sqrt(x)),
                 [rand(2, 3, lo=0.5, hi=3.0)]),
    "broadcast_bias": (lambda x, b: mnp.sum(mnp.maximum(x + b, 0.1) ** 2),
                       [rand(4, 3), rand(3)]),
    "matmul_softmax": (lambda w, x: -mnp.sum(mnp.log(
        mnp.exp(x @ w) / mnp.sum(mnp.exp(x @ w), axis=1, keepdims=True))[:, 0]),
        [rand(3, 4), rand(5, 3)]),
    "reshape_transpose_slice": (lambda x: mnp.sum(
        mnp.transpose(x.reshape(2, 6))[1:5:2] * mnp.arctan2(x[0], 1.5)[0]),
        [rand(3, 4)]),
    "where_max": (lambda x, y: mnp.sum(mnp.where(x > y, x * y, x - y))
                  + mnp.max(x * 3), [rand(6), rand(6)]),
    "divide_power": (lambda x, y: mnp.sum(x / (y * y + 1) + mnp.abs(x) ** 1.5),
                     [rand(4), rand(4)]),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_grad_matches_finite_differences(name):
    f, args = FUNCTIONS[name]
    check_grads(f, args, argnums=range(len(args)))


def test_value_and_grad_pytrees_and_argnums():
    def loss(params, x, scale):
        h = mnp.tanh(x @ params["w"] + params["b"])
        return scale * mnp.mean(h * h)

    params = {"w": rand(3, 2), "b": rand(2)}
    x = rand(4, 3)
    value, grads = mxla.value_and_grad(loss)(params, x, 0.5)
    assert set(grads) == {"b", "w"}
    assert grads["w"].shape == (3, 2) and grads["b"].shape == (2,)
    h = np.tanh(x @ params["w"] + params["b"])
    np.testing.assert_allclose(value, 0.5 * np.mean(h * h), rtol=1e-12)
    dh = 0.5 * 2 * h / h.size * (1 - h * h)
    np.testing.assert_allclose(grads["w"], x.T @ dh, rtol=1e-10)
    np.testing.assert_allclose(grads["b"], dh.sum(0), rtol=1e-10)
    gx, gscale = mxla.grad(loss, argnums=(1, 2))(params, x, 0.5)
    np.testing.assert_allclose(gx, dh @ params["w"].T, rtol=1e-10)
    np.testing.assert_allclose(gscale, np.mean(h * h), rtol=1e-10)


def test_has_aux_returns_the_aux_untouched():
    def loss(w, x):
        logits = x @ w
        return mnp.sum(logits * logits), {"logits": logits, "n": mnp.sum(x > 0)}

    w, x = rand(3, 2), rand(4, 3)
    grads, aux = mxla.grad(loss, has_aux=True)(w, x)
    np.testing.assert_allclose(grads, 2 * x.T @ (x @ w), rtol=1e-12)
    np.testing.assert_allclose(aux["logits"], x @ w, rtol=1e-12)
    assert int(aux["n"]) == int((x > 0).sum())
    (value, aux2), g2 = mxla.value_and_grad(loss, has_aux=True)(w, x)
    np.testing.assert_allclose(value, np.sum((x @ w) ** 2), rtol=1e-12)
    np.testing.assert_allclose(g2, grads)


def test_float32_gradients_stay_float32():
    x = rand(8).astype(np.float32)
    g = mxla.grad(lambda x: mnp.sum(mnp.exp(x)))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, np.exp(x), rtol=1e-6)


def test_grad_under_jit_and_jit_under_grad_and_grad_of_grad():
    f = lambda x: mnp.sum(mnp.sin(x) * x)  # noqa: E731
    x = rand(5)
    want = np.cos(x) * x + np.sin(x)
    np.testing.assert_allclose(mxla.jit(mxla.grad(f))(x), want, rtol=1e-12)
    np.testing.assert_allclose(mxla.grad(mxla.jit(f))(x), want, rtol=1e-12)

    # d/dx of sum(d/dx f) = -sin(x) x + 2 cos(x).
    second = mxla.grad(lambda x: mnp.sum(mxla.grad(f)(x)))(x)
    np.testing.assert_allclose(second, -np.sin(x) * x + 2 * np.cos(x),
                               rtol=1e-10)
    scalar = mxla.grad(mxla.grad(lambda t: t * t * t))(np.float64(1.5))
    np.testing.assert_allclose(scalar, 9.0)


def test_closures_over_enclosing_traced_values():
    w, x = rand(3), rand(3)

    @mxla.jit
    def closes_over_x(w, x):
        return mxla.grad(lambda w: mnp.sum(w * x * w))(w)

    np.testing.assert_allclose(closes_over_x(w, x), 2 * w * x, rtol=1e-12)

    @mxla.jit
    def nested(w, x):
        inner = lambda w: mxla.grad(lambda v: mnp.sum(mnp.sin(v) * x))(w)  # noqa: E731
        return mxla.grad(lambda w: mnp.sum(inner(w) * x))(w)

    # d/dw sum(cos(w) x * x) = -sin(w) x^2: the closure is differentiated
    # through where the outer gradient needs it.
    np.testing.assert_allclose(nested(w, x), -np.sin(w) * x * x, rtol=1e-12)

    @mxla.jit
    def vjp_closure(w, x):
        out, pullback = mxla.vjp(lambda w: mnp.exp(w) * x, w)
        return pullback(mnp.exp(x * 0))[0]

    np.testing.assert_allclose(vjp_closure(w, x), np.exp(w) * x, rtol=1e-12)


def test_vjp_eager_and_traced_with_several_outputs():
    x, y = rand(3), rand(3)

    def g(x, y):
        return {"p": x * y, "s": mnp.sum(mnp.sin(x))}

    out, pullback = mxla.vjp(g, x, y)
    np.testing.assert_allclose(out["p"], x * y)
    ct = {"p": np.array([1.0, 2.0, 3.0]), "s": np.float64(10.0)}
    dx, dy = pullback(ct)
    np.testing.assert_allclose(dx, ct["p"] * y + 10 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(dy, ct["p"] * x, rtol=1e-12)

    @mxla.jit
    def inside(x, y, c):
        out, pb = mxla.vjp(g, x, y)
        return out["p"], pb({"p": c, "s": 1.0})

    p, (dx2, dy2) = inside(x, y, ct["p"])
    np.testing.assert_allclose(p, x * y)
    np.testing.assert_allclose(dx2, ct["p"] * y + np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(dy2, ct["p"] * x, rtol=1e-12)


def test_vjp_of_integer_inputs_is_zeros_and_has_aux():
    def f(x, n):
        return x * n.astype(np.float64), n + 1

    x, n = rand(3), np.array([1, 2, 3], np.int32)
    out, pullback, aux = mxla.vjp(f, x, n, has_aux=True)
    np.testing.assert_array_equal(aux, n + 1)
    dx, dn = pullback(np.ones(3))
    np.testing.assert_allclose(dx, n.astype(np.float64))
    np.testing.assert_array_equal(dn, np.zeros(3, np.int32))


def test_refusals_name_the_problem():
    with pytest.raises(TypeError, match="floating-point scalar output.*shape \\(3,\\)"):
        mxla.grad(lambda x: x * 2)(rand(3))
    with pytest.raises(TypeError, match="floating-point inputs.*int32"):
        mxla.grad(lambda x: mnp.sum(x * 1.0))(np.arange(3, dtype=np.int32))
    with pytest.raises(ValueError, match="argnums 2 is out of range for 1"):
        mxla.grad(lambda x: mnp.sum(x), argnums=2)(rand(3))
    with pytest.raises(TypeError, match="has_aux=True.*pair"):
        mxla.grad(lambda x: mnp.sum(x), has_aux=True)(rand(3))
    _, pullback = mxla.vjp(lambda x: x * 2, rand(3))
    with pytest.raises(TypeError, match="cotangent 0 is float64\\[2\\] but the "
                                        "output is float64\\[3\\]"):
        pullback(np.ones(2))
