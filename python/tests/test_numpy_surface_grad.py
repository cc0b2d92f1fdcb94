"""mxla.grad through mxla.numpy's and mxla.nn's functions, against central
differences in float64, including indexing (gather), .at[] (scatter),
sort and take_along_axis (tests/transforms/ checks the refusals of ops
with no rule)."""
import numpy as np
import pytest

import mxla
import mxla.nn as nn
import mxla.numpy as mnp

RNG = np.random.default_rng(385)
X = RNG.normal(size=(4, 5))
LABELS = np.array([0, 3, 1, 4])

LOSSES = {
    "one_hot cross entropy": lambda w: -(nn.one_hot(LABELS, 5) * nn.log_softmax(X @ w)).sum(),
    "softmax": lambda w: (nn.softmax(X @ w, axis=0) * X).sum(),
    "logsumexp": lambda w: mnp.logsumexp(X @ w, axis=1).sum(),
    "einsum": lambda w: mnp.einsum("ij,jk,k->", X, w, w[0]),
    "negative step and None": lambda w: (w[::-1, None, 1:] ** 2).sum(),
    "cumsum cumprod": lambda w: (mnp.cumsum(w, 1) + mnp.cumprod(w, 0)).sum(),
    "prod": lambda w: mnp.prod(w, 1).sum() + (w[:3].prod(0) * X[0]).sum(),
    "var std": lambda w: mnp.var(w) + mnp.std(w, 0, ddof=1).sum(),
    "concatenate stack": lambda w: (mnp.concatenate([w, w.T], 1)
                                    * mnp.stack([w, w], 1).reshape(5, 10)).sum(),
    "gelu": lambda w: (nn.gelu(w) + nn.gelu(w, approximate=False) + nn.relu(w)).sum(),
    "clip tril triu": lambda w: (mnp.clip(w, -0.5, 0.5) * mnp.tril(w) + mnp.triu(w, 1)).sum(),
    "max where": lambda w: mnp.max(w, 1, initial=-1.0, where=w > 0).sum(),
    "floor_divide remainder": lambda w: (w % 0.75 + w // 0.5).sum(),
    "take_along_axis": lambda w: -mnp.take_along_axis(
        nn.log_softmax(X @ w), LABELS[:, None], 1).mean(),
    "integer array index": lambda w: (w[LABELS] * w[LABELS]).sum(),
    "at add and set": lambda w: (w.at[LABELS].add(w[0]) ** 2).sum()
                                + (w.at[1].set(3.0) ** 3).sum(),
    "sort": lambda w: (mnp.sort(w, 1) * mnp.arange(5.0)).sum(),
}


def central_difference(f, w, eps=1e-6):
    grad = np.zeros_like(w)
    for index in np.ndindex(*w.shape):
        step = np.zeros_like(w)
        step[index] = eps
        grad[index] = (f(w + step) - f(w - step)) / (2 * eps)
    return grad


@pytest.mark.parametrize("name", list(LOSSES))
def test_gradients_match_central_differences(name):
    loss = LOSSES[name]
    # Away from the kinks of clip, relu, max, // and %.
    w = RNG.uniform(0.1, 0.4, (5, 5)) * RNG.choice([-1, 1], (5, 5))
    np.testing.assert_allclose(mxla.grad(loss)(w), central_difference(mxla.jit(loss), w),
                               rtol=1e-5, atol=1e-6)
