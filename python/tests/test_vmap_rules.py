"""mxla.vmap through the ops whose batching rules came last (issue 38),
against a Python loop over the batch: random numbers per key,
convolutions with per-example kernels, max-pool gradients
(select-and-scatter), and collectives inside pmap."""
import numpy as np

import mxla
import mxla.lax as lax
import mxla.nn as nn
import mxla.numpy as mnp
import mxla.random as random

RNG = np.random.default_rng(38)


def test_random_draws_per_key_match_a_loop():
    keys = np.stack([np.asarray(random.key(s)) for s in (0, 1, 7)])

    def draws(k):
        k1, k2 = random.split(k)
        return (random.normal(k1, (2, 3), np.float64),
                random.uniform(k2, (4,), np.float32, -1.0, 2.0),
                random.randint(k2, (3,), 0, 10))

    batched = mxla.vmap(draws)(keys)
    for b, k in enumerate(keys):
        for got, want in zip(batched, draws(k)):
            np.testing.assert_array_equal(np.asarray(got)[b], np.asarray(want))


def test_an_unmapped_key_gives_every_example_the_same_draw():
    k = random.key(3)
    xs = RNG.normal(size=(4, 2))
    got = mxla.vmap(lambda k, x: x + random.normal(k, (2,), np.float64),
                    in_axes=(None, 0))(k, xs)
    np.testing.assert_array_equal(got, xs + np.asarray(random.normal(k, (2,), np.float64)))


def test_convolutions_with_per_example_kernels_match_a_loop():
    xs = RNG.normal(size=(3, 1, 6, 5, 4))
    ws = RNG.normal(size=(3, 3, 3, 4, 6))

    def conv(x, w, groups):
        return lax.conv_general_dilated(x, w, (1, 2), "SAME",
                                        feature_group_count=groups)

    one = mxla.jit(conv, static_argnames=("groups",))

    for groups in (1, 2):
        w = ws[..., : 4 // groups, :]
        got = mxla.vmap(lambda x, w: conv(x, w, groups))(xs, w)
        for b in range(3):
            np.testing.assert_allclose(got[b], one(xs[b], w[b], groups),
                                       rtol=1e-12, atol=1e-12)
        shared_input = mxla.vmap(lambda w: conv(xs[0], w, groups))(w)
        for b in range(3):
            np.testing.assert_allclose(shared_input[b], one(xs[0], w[b], groups),
                                       rtol=1e-12, atol=1e-12)


def test_max_pool_gradients_per_example():
    pooled = mxla.grad(lambda x: mnp.sum(nn.max_pool(x[None], (2, 2)) ** 2))
    xs = RNG.normal(size=(3, 4, 4, 2))
    got = mxla.vmap(pooled)(xs)
    for b in range(3):
        np.testing.assert_allclose(got[b], pooled(xs[b]), rtol=1e-12, atol=1e-12)


def test_collectives_inside_pmap_per_example():
    # pmap over 2 devices of a vmap over 3 examples: psum and all_gather
    # of example b meet example b of the other device.
    @mxla.pmap(axis_name="i")
    def f(xs):
        return mxla.vmap(lambda x: (lax.psum(x, "i"),
                                    lax.all_gather(x, "i", axis=1, tiled=True)))(xs)

    xs = RNG.normal(size=(2, 3, 2, 4))
    total, gathered = f(xs)
    np.testing.assert_allclose(total, np.broadcast_to(xs.sum(0), xs.shape),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(
        gathered, np.broadcast_to(np.concatenate([xs[0], xs[1]], axis=2),
                                  (2, 3, 2, 8)))


def test_per_example_weight_gradients_of_a_grouped_convolution():
    # The kernel's gradient is a convolution of the batched input and the
    # batched output cotangent (batch groups when the forward has feature
    # groups).
    def loss(w, x):
        y = lax.conv_general_dilated(x[None], w, (1, 1), "SAME",
                                     feature_group_count=2)
        return mnp.sum(mnp.tanh(y) ** 2)

    w = RNG.normal(size=(3, 3, 2, 4))
    xs = RNG.normal(size=(3, 5, 4, 4))
    per_example = mxla.grad(loss)
    got = mxla.vmap(per_example, in_axes=(None, 0))(w, xs)
    for b in range(3):
        np.testing.assert_allclose(got[b], per_example(w, xs[b]),
                                   rtol=1e-12, atol=1e-12)
