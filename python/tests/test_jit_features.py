"""@mxla.jit as a JAX user calls it: pytrees in and out, keyword and static
arguments, a jitted function inside another (it inlines), and donation."""
import collections

import numpy as np
import pytest

import mxla
import mxla.numpy as mnp

RNG = np.random.default_rng(381)


def test_pytrees_in_and_out():
    Pair = collections.namedtuple("Pair", "a b")

    @mxla.jit
    def step(params, batch):
        w, b = params["w"], params["b"]
        y = batch[0] @ w + b
        return {"y": y, "stats": (mnp.sum(y), Pair(mnp.max(y), None))}

    params = {"w": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)}
    batch = [RNG.normal(size=(4, 3))]
    out = step(params, batch)
    want = batch[0] @ params["w"] + params["b"]
    assert set(out) == {"y", "stats"}
    np.testing.assert_allclose(out["y"], want, rtol=1e-12)
    total, pair = out["stats"]
    assert isinstance(pair, Pair) and pair.b is None
    np.testing.assert_allclose(total, want.sum(), rtol=1e-12)
    np.testing.assert_allclose(pair.a, want.max())
    assert step.cache_size() == 1
    step(params, batch)
    assert step.cache_size() == 1
    step({"w": params["w"], "b": params["b"][None]}, batch)  # new shape
    assert step.cache_size() == 2


def test_keyword_and_static_arguments():
    @mxla.jit(static_argnums=(1,), static_argnames=("mode",))
    def f(x, power, mode="sum", scale=1.0):
        y = x ** power * scale
        return mnp.sum(y) if mode == "sum" else mnp.max(y)

    x = np.array([1.0, -2.0, 3.0])
    assert f(x, 2) == 14.0
    assert f(x, 3, mode="max") == 27.0
    assert f(x, 2, scale=2.0) == 28.0  # a traced keyword argument
    assert f(x, 2, scale=3.0) == 42.0  # ... traced: no new compile
    assert f.cache_size() == 3
    assert f(x, power=2, mode="max") == 9.0  # power by name is static too
    assert f.cache_size() == 4
    with pytest.raises(TypeError, match="static argument 1 of type list is "
                                        "not hashable"):
        f(x, [2])


def test_a_jitted_function_inside_another_inlines():
    @mxla.jit
    def inner(x):
        return mnp.tanh(x) * 2

    @mxla.jit
    def outer(x):
        return inner(x) + inner(x * 3)

    x = RNG.normal(size=5)
    np.testing.assert_allclose(outer(x), 2 * np.tanh(x) + 2 * np.tanh(3 * x),
                               rtol=1e-12)
    assert inner.cache_size() == 0  # traced into outer, never compiled alone
    assert "call" not in outer.lower(x).as_text().lower().split("entry")[-1]


def test_donated_arguments_hold_the_results():
    @mxla.jit(donate_argnums=(0,))
    def sgd(params, grads, lr):
        return {k: params[k] - lr * grads[k] for k in params}

    params = {"w": np.ones((64, 32), np.float32), "b": np.zeros(32, np.float32)}
    grads = {"w": np.full((64, 32), 2, np.float32), "b": np.ones(32, np.float32)}
    w, b = params["w"], params["b"]
    out = sgd(params, grads, 0.5)
    assert out["w"] is w and out["b"] is b  # updated in place
    np.testing.assert_array_equal(w, np.zeros((64, 32), np.float32))
    np.testing.assert_array_equal(b, np.full(32, -0.5, np.float32))
    kept = dict(grads)
    np.testing.assert_array_equal(grads["w"], kept["w"])  # not donated

    with pytest.raises(ValueError, match="static arguments cannot be donated"):
        mxla.jit(lambda x: x, static_argnums=0, donate_argnums=0)


def test_a_traced_function_must_return_arrays():
    with pytest.raises(TypeError, match="must return at least one array"):
        mxla.jit(lambda x: None)(np.ones(2))
