"""mxla.vmap against its definition, a Python loop over the batch: axes
anywhere, unmapped arguments, pytrees, out_axes, and composition with
jit, grad (per-example gradients) and itself; refusals by name."""
import numpy as np
import pytest

import mxla
import mxla.numpy as mnp

RNG = np.random.default_rng(383)


def loop(f, in_axes, args, out_axis=0):
    size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [f(*[a if ax is None else np.take(a, b, axis=ax)
                for a, ax in zip(args, in_axes)]) for b in range(size)]
    return np.stack(outs, axis=out_axis)


def test_matches_a_loop_with_axes_anywhere():
    def f(w, x):
        h = mnp.tanh(w @ x)
        return mnp.sum(h * h) + mnp.max(x) * h

    def reference(w, x):
        h = np.tanh(w @ x)
        return np.sum(h * h) + np.max(x) * h

    w, xs = RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))
    np.testing.assert_allclose(mxla.vmap(f, in_axes=(None, 0))(w, xs),
                               loop(reference, (None, 0), (w, xs)), rtol=1e-12)
    np.testing.assert_allclose(mxla.vmap(f, in_axes=(None, 1))(w, xs.T),
                               loop(reference, (None, 1), (w, xs.T)), rtol=1e-12)
    ws = RNG.normal(size=(5, 4, 3))
    np.testing.assert_allclose(mxla.vmap(f)(ws, xs),
                               loop(reference, (0, 0), (ws, xs)), rtol=1e-12)
    np.testing.assert_allclose(mxla.vmap(f, in_axes=(2, 0), out_axes=1)(
        np.moveaxis(ws, 0, 2), xs), loop(reference, (0, 0), (ws, xs), 1),
        rtol=1e-12)


def test_pytrees_and_keyword_arguments():
    def layer(params, x, scale=1.0):
        return {"y": mnp.maximum(x @ params["w"] + params["b"], 0) * scale,
                "n": mnp.sum(x)}

    params = {"w": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)}
    xs = RNG.normal(size=(6, 3))
    out = mxla.vmap(layer, in_axes=({"w": None, "b": None}, 0))(params, xs)
    np.testing.assert_allclose(out["y"], np.maximum(xs @ params["w"] + params["b"], 0),
                               rtol=1e-12)
    np.testing.assert_allclose(out["n"], xs.sum(1), rtol=1e-12)
    scales = np.arange(6.0)
    out = mxla.vmap(layer, in_axes=(None, 0))(params, xs, scale=scales)
    np.testing.assert_allclose(
        out["y"], np.maximum(xs @ params["w"] + params["b"], 0) * scales[:, None],
        rtol=1e-12)


def test_per_example_gradients_and_composition():
    def loss(w, x, y):
        return (mnp.sum(mnp.tanh(x @ w)) - y) ** 2

    w = RNG.normal(size=(3, 2))
    xs, ys = RNG.normal(size=(8, 3)), RNG.normal(size=8)
    per_example = mxla.jit(mxla.vmap(mxla.grad(loss), in_axes=(None, 0, 0)))(w, xs, ys)
    assert per_example.shape == (8, 3, 2)
    for b in range(8):
        np.testing.assert_allclose(per_example[b], mxla.grad(loss)(w, xs[b], ys[b]),
                                   rtol=1e-10)
    # The mean of per-example gradients is the gradient of the mean loss.
    mean_loss = lambda w, xs, ys: mnp.mean(  # noqa: E731
        mxla.vmap(loss, in_axes=(None, 0, 0))(w, xs, ys))
    np.testing.assert_allclose(mxla.grad(mean_loss)(w, xs, ys),
                               per_example.mean(0), rtol=1e-10)
    # vmap of vmap: an outer product of sums.
    table = mxla.vmap(mxla.vmap(lambda a, b: a * b + 1, (None, 0)), (0, None))(
        np.arange(3.0), np.arange(4.0))
    np.testing.assert_array_equal(table, np.arange(3.0)[:, None] * np.arange(4.0) + 1)


def test_index_updates_per_example():
    xs = RNG.normal(size=(4, 5))
    ids = np.array([[0, 0], [1, 4], [2, 3], [4, 4]], np.int32)
    got = mxla.vmap(lambda x, i: x.at[i].add(10.0))(xs, ids)
    want = xs.copy()
    for row, i in zip(want, ids):
        np.add.at(row, i, 10.0)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_loop_per_example():
    import mxla.lax as lax
    xs = RNG.normal(size=(4, 3))

    def power_iteration(x):
        return lax.fori_loop(0, 5, lambda i, v: mnp.tanh(v * 1.5) + x, x)

    want = []
    for x in xs:
        v = x
        for _ in range(5):
            v = np.tanh(v * 1.5) + x
        want.append(v)
    np.testing.assert_allclose(mxla.vmap(power_iteration)(xs), np.stack(want),
                               rtol=1e-12)


def test_sorts_per_example():
    xs = RNG.normal(size=(4, 5))
    np.testing.assert_array_equal(mxla.vmap(mnp.sort)(xs), np.sort(xs, axis=1))
    np.testing.assert_array_equal(mxla.vmap(mnp.argsort, in_axes=1)(xs),
                                  np.argsort(xs, axis=0, kind="stable").T)


def test_unmapped_outputs():
    w, xs = RNG.normal(size=3), RNG.normal(size=(4, 3))
    scaled, norm = mxla.vmap(lambda w, x: (x * w, mnp.sum(w * w)), in_axes=(None, 0),
                             out_axes=(0, None))(w, xs)
    np.testing.assert_allclose(scaled, xs * w, rtol=1e-12)
    assert norm.shape == () and np.isclose(norm, (w * w).sum())
    with pytest.raises(ValueError, match="out_axes is None for output leaf 0, "
                                         "but it depends on the mapped inputs"):
        mxla.vmap(lambda x: x * 2, out_axes=None)(xs)


def test_refusals():
    with pytest.raises(ValueError, match="inconsistent sizes for the mapped "
                                         "axes: axis 0 of float64\\[3\\], axis 0 "
                                         "of float64\\[4\\]"):
        mxla.vmap(lambda a, b: a + b)(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="in_axes maps no argument"):
        mxla.vmap(lambda a: a, in_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match="in_axes 2 is out of range"):
        mxla.vmap(lambda a: a, in_axes=2)(np.ones((3, 2)))
    with pytest.raises(ValueError, match="in_axes has 1 entries but there are 2"):
        mxla.vmap(lambda a, b: a, in_axes=(0,))(np.ones(3), np.ones(3))


def test_a_convolution_per_example():
    import mxla.lax as lax
    import mxla.nn as nn
    w = RNG.normal(size=(3, 3, 2, 4))
    xs = RNG.normal(size=(5, 6, 6, 2))

    def one(x):
        return nn.max_pool(nn.relu(lax.conv_general_dilated(x[None], w, (1, 1), "SAME")),
                           (2, 2))[0]

    whole = mxla.jit(lambda xs: nn.max_pool(nn.relu(
        lax.conv_general_dilated(xs, w, (1, 1), "SAME")), (2, 2)))(xs)
    np.testing.assert_allclose(mxla.vmap(one)(xs), whole, rtol=1e-12, atol=1e-12)


def test_indexing_per_example_is_a_batched_gather():
    table = RNG.normal(size=(6, 3))
    ids = np.array([[0, 5], [2, 2], [4, 1]], np.int32)
    np.testing.assert_array_equal(mxla.vmap(lambda i: mnp.take(table, i, axis=0))(ids),
                                  table[ids])
    tables = RNG.normal(size=(3, 6, 3))
    np.testing.assert_array_equal(mxla.vmap(lambda t, i: t[i])(tables, ids),
                                  np.stack([t[i] for t, i in zip(tables, ids)]))
    np.testing.assert_array_equal(
        mxla.vmap(lambda t: mnp.take(t, np.array([1, 0]), axis=0))(tables),
        tables[:, [1, 0]])
