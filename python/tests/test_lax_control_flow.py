"""mxla.lax.while_loop and mxla.lax.cond against Python loops and
branches, their gradients (mxla.grad through a loop whose trip count the
state decides, and through the branch taken) against central
differences, and their refusals."""
import numpy as np
import pytest

import mxla
import mxla.lax as lax
import mxla.numpy as mnp
from central_differences import numeric_gradient

RNG = np.random.default_rng(1738)


def grow(x, w, b):
    """x <- x * w + b while sum(|x|) < 20; then sum(sin(x)) and the trips."""
    def body(state):
        x, n = state
        return x * w + b, n + 1

    x, n = lax.while_loop(lambda s: mnp.sum(mnp.abs(s[0])) < 20.0, body,
                          (x, np.int32(0)))
    return mnp.sum(mnp.sin(x)), n


def test_while_loop_runs_until_its_state_says_and_differentiates():
    x, w, b = RNG.uniform(0.2, 1, 3), RNG.uniform(1.2, 1.6, 3), RNG.uniform(0, 0.3, 3)
    value, trips = mxla.jit(grow)(x, w, b)
    want, n = x.copy(), 0
    while np.abs(want).sum() < 20:
        want, n = want * w + b, n + 1
    assert trips == n and n >= 3
    np.testing.assert_allclose(value, np.sin(want).sum(), rtol=1e-12)
    loss = mxla.jit(lambda x, w, b: grow(x, w, b)[0])
    grads = mxla.grad(lambda x, w, b: grow(x, w, b)[0], argnums=(0, 1, 2))(x, w, b)
    for n, g in enumerate(grads):
        np.testing.assert_allclose(g, numeric_gradient(loss, [x, w, b], n),
                                   rtol=1e-5, atol=1e-7)


def test_while_loop_that_runs_no_trip_passes_the_gradient_through():
    x, w, b = np.full(3, 8.0), np.full(3, 1.5), np.zeros(3)
    g = mxla.grad(lambda x: grow(x, w, b)[0])(x)
    np.testing.assert_allclose(g, np.cos(x), rtol=1e-12)


def branchy(p, x, y):
    return lax.cond(p, lambda x, y: mnp.tanh(x) * y,
                    lambda x, y: mnp.sin(x * y) + y, x, y)


@pytest.mark.parametrize("taken", [True, False])
def test_cond_takes_a_traced_branch_and_differentiates_through_it(taken):
    x, y = RNG.normal(size=4), RNG.normal(size=4)
    loss = mxla.jit(lambda p, x, y: mnp.sum(branchy(p, x, y)))
    want = np.tanh(x) * y if taken else np.sin(x * y) + y
    np.testing.assert_allclose(loss(np.bool_(taken), x, y), want.sum(), rtol=1e-12)
    grads = mxla.grad(lambda x, y, p: mnp.sum(branchy(p, x, y)),
                      argnums=(0, 1))(x, y, np.bool_(taken))
    fixed = lambda x, y: loss(np.bool_(taken), x, y)  # noqa: E731
    for n, g in enumerate(grads):
        np.testing.assert_allclose(g, numeric_gradient(fixed, [x, y], n),
                                   rtol=1e-5, atol=1e-7)


def test_cond_on_a_traced_comparison_closing_over_a_value():
    w = RNG.normal(size=3)

    def f(x):
        return mnp.sum(lax.cond(mnp.sum(x) > 0, lambda v: v * w, lambda v: v * v, x))

    for x in (np.abs(RNG.normal(size=3)), -np.abs(RNG.normal(size=3))):
        g = mxla.grad(f)(x)
        np.testing.assert_allclose(g, w if x.sum() > 0 else 2 * x, rtol=1e-12)


def test_refusals():
    with pytest.raises(TypeError, match="cond: pred must be a bool scalar"):
        mxla.jit(lambda x: lax.cond(mnp.sum(x), lambda v: v, lambda v: v, x))(np.ones(2))
    with pytest.raises(TypeError, match="the branches return"):
        mxla.jit(lambda x: lax.cond(mnp.sum(x) > 0, lambda v: v, lambda v: v[0], x))(
            np.ones(2))
    with pytest.raises(TypeError, match="while_loop: cond_fun's result must be "
                                        "a bool scalar"):
        mxla.jit(lambda x: lax.while_loop(lambda v: v, lambda v: v, x))(np.ones(2))
    with pytest.raises(TypeError, match="while_loop: body_fun's leaf 0 is float32"):
        mxla.jit(lambda x: lax.while_loop(lambda v: mnp.sum(v) < 3,
                                          lambda v: v.astype(np.float32), x))(
            np.ones(2))
