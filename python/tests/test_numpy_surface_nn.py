"""mxla.nn against NumPy formulas: relu, gelu (tanh and erf), softmax,
log_softmax and one_hot, over the float dtypes (and integers, which
compute in the float dtype NumPy's exp gives them)."""
import math

import numpy as np
import pytest

import mxla
import mxla.nn as nn
from test_numpy_dtypes import DTYPES, FLOATS, ids, mxla_outcomes, tolerance

RNG = np.random.default_rng(384)
erf = np.vectorize(math.erf)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


CASES = [("relu", nn.relu, lambda x: np.maximum(x, 0)),
         ("gelu", nn.gelu, gelu_tanh),
         ("gelu exact", lambda x: nn.gelu(x, approximate=False), gelu_erf),
         ("softmax", nn.softmax, softmax),
         ("softmax 0", lambda x: nn.softmax(x, axis=0), lambda x: softmax(x, 0)),
         ("log_softmax", nn.log_softmax, log_softmax),
         ("log_softmax 0", lambda x: nn.log_softmax(x, axis=0), lambda x: log_softmax(x, 0))]


@pytest.mark.parametrize("dtype", FLOATS, ids=ids(FLOATS))
def test_activations_follow_numpy_formulas(dtype):
    x = RNG.uniform(-6, 6, (4, 7)).astype(dtype)
    x[0, :3] = [0, -0.0, 1e-3]
    got = mxla_outcomes([(label, fn) for label, fn, _ in CASES], (x,))
    for label, _, reference in CASES:
        want = reference(x.astype(np.float64))
        out = got[label]
        assert out.dtype == dtype, label
        # The reference is computed in float64: a few epsilons apart,
        # relatively and near 0 absolutely.
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(out.astype(np.float64), want,
                                   rtol=max(tolerance(dtype), 4 * eps), atol=8 * eps,
                                   err_msg=label)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d.kind in "iu"], ids=ids(
    [d for d in DTYPES if d.kind in "iu"]))
def test_activations_of_integers_compute_in_numpy_float_dtype(dtype):
    x = RNG.integers(0, 5, (3, 4)).astype(dtype)
    got = mxla_outcomes([(label, fn) for label, fn, _ in CASES], (x,))
    float_dtype = np.exp(x).dtype
    for label, _, reference in CASES:
        out = got[label]
        want_dtype = dtype if label == "relu" else float_dtype
        assert out.dtype == want_dtype, label
        np.testing.assert_allclose(out.astype(np.float64), reference(x.astype(np.float64)),
                                   rtol=4 * np.finfo(float_dtype).eps,
                                   atol=8 * np.finfo(float_dtype).eps, err_msg=label)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d.kind in "iu"], ids=ids(
    [d for d in DTYPES if d.kind in "iu"]))
def test_one_hot_follows_numpy(dtype):
    values = [0, 3, 1, 4, 9] + ([-1] if dtype.kind == "i" else [])
    x = np.array(values, dtype)

    @mxla.jit
    def f(x):
        return nn.one_hot(x, 4), nn.one_hot(x, 5, np.int8, axis=0), nn.one_hot(x.reshape(-1, 1), 3)

    # Classes outside [0, num_classes) give a row of zeros, as in JAX.
    eye = lambda n, t: np.array([[v == c for c in range(n)] for v in values], t)  # noqa: E731
    rows, columns, nested = f(x)
    assert rows.dtype == np.float64 and columns.dtype == np.int8
    np.testing.assert_array_equal(rows, eye(4, np.float64))
    np.testing.assert_array_equal(columns, eye(5, np.int8).T)
    np.testing.assert_array_equal(nested, eye(3, np.float64)[:, None, :])


def test_one_hot_errors():
    with pytest.raises(TypeError, match=r"mxla.nn.one_hot: x must be an integer array, not float32"):
        mxla.jit(lambda x: nn.one_hot(x, 3))(np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"axis 2 is out of bounds for an array of dimension 2"):
        mxla.jit(lambda x: nn.one_hot(x, 3, axis=2))(np.ones(2, np.int32))


def test_nn_is_exported():
    assert mxla.nn is nn
    assert set(nn.__all__) == {"relu", "gelu", "softmax", "log_softmax", "one_hot"}
