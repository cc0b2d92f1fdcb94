"""mxla.numpy's argmax/argmin, prod, cumsum/cumprod, var/std, max/min with
initial= and where=, logsumexp and log_softmax against NumPy over every
dtype, and their errors."""
import numpy as np
import pytest

import mxla
import mxla.numpy as mnp
from test_numpy_dtypes import DTYPES, check, ids, mxla_outcomes, sample, tolerance

RNG = np.random.default_rng(382)


def lib(a):
    return mnp if isinstance(a, mnp.Tracer) else np


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_argmax_argmin_follow_numpy(dtype):
    x = sample(dtype, (5, 7))
    # Ties and NaNs: the first index wins, a NaN over everything.
    x[1] = x[0]
    x[:, 3] = x[:, 2]
    cases = []
    for name in ("argmax", "argmin"):
        cases += [
            (name, lambda a, n=name: getattr(lib(a), n)(a)),
            (f"{name} 0", lambda a, n=name: getattr(lib(a), n)(a, axis=0)),
            (f"{name} -1", lambda a, n=name: getattr(lib(a), n)(a, axis=-1)),
            (f"{name} keepdims", lambda a, n=name: getattr(lib(a), n)(a, axis=1, keepdims=True)),
            (f"{name} None keepdims", lambda a, n=name: getattr(lib(a), n)(a, keepdims=True)),
            (f"method {name}", lambda a, n=name: getattr(a, n)(0)),
        ]
    check(cases, (x,))


def test_argmax_of_nan_and_ties_pinned():
    @mxla.jit
    def f(x):
        return mnp.argmax(x, 1), mnp.argmin(x, 1)

    x = np.array([[1, 3, 3, 0], [np.nan, 5, np.nan, 9], [2, 2, 2, 2], [-np.inf, 7, np.nan, -np.inf]],
                 np.float32)
    big, small = f(x)
    np.testing.assert_array_equal(big, [1, 0, 0, 2])
    np.testing.assert_array_equal(small, [3, 0, 0, 2])
    np.testing.assert_array_equal(big, np.argmax(x, 1))
    np.testing.assert_array_equal(small, np.argmin(x, 1))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_prod_follows_numpy(dtype):
    x = sample(dtype, (4, 6))
    if dtype.kind == "f":
        x = np.where(np.isfinite(x), x, 1).astype(dtype)
    cases = [
        ("prod", lambda a: lib(a).prod(a)),
        ("prod 0", lambda a: lib(a).prod(a, axis=0)),
        ("prod 1 keepdims", lambda a: lib(a).prod(a, axis=1, keepdims=True)),
        ("prod (0, 1) float64", lambda a: lib(a).prod(a, (0, 1), dtype=np.float64)),
        ("method prod", lambda a: a.prod(axis=0)),
    ]
    check(cases, (x,), sums=[label for label, _ in cases])


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_cumulative_follow_numpy(dtype):
    x = sample(dtype, (4, 6))
    if dtype.kind == "f":
        # Products of the samples stay finite and away from rounding to 0.
        x = np.where(np.isfinite(x), x, 1).astype(dtype)
    cases = []
    for name in ("cumsum", "cumprod"):
        cases += [
            (name, lambda a, n=name: getattr(lib(a), n)(a)),
            (f"{name} 0", lambda a, n=name: getattr(lib(a), n)(a, axis=0)),
            (f"{name} 1", lambda a, n=name: getattr(lib(a), n)(a, axis=1)),
            # float64 holds the products of 6 of any samples: no inf * 0,
            # whose NaN would depend on the order of the products.
            (f"{name} -1 float64", lambda a, n=name: getattr(lib(a), n)(a, -1, np.float64)),
            (f"{name} 0 bool", lambda a, n=name: getattr(lib(a), n)(a, 0, np.bool_)),
            (f"method {name}", lambda a, n=name: getattr(a, n)(axis=0)),
        ]
    check(cases, (x,), sums=[label for label, _ in cases])


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_var_std_follow_numpy(dtype):
    x = sample(dtype, (4, 6))
    if dtype.kind == "f":
        x = np.where(np.isfinite(x), x, 0.5).astype(dtype)
    cases = []
    for name in ("var", "std"):
        cases += [
            (name, lambda a, n=name: getattr(lib(a), n)(a)),
            (f"{name} 0", lambda a, n=name: getattr(lib(a), n)(a, axis=0)),
            (f"{name} ddof 1", lambda a, n=name: getattr(lib(a), n)(a, axis=1, ddof=1)),
            (f"{name} keepdims", lambda a, n=name: getattr(lib(a), n)(a, axis=(0, 1), keepdims=True)),
            (f"method {name}", lambda a, n=name: getattr(a, n)(axis=-1, ddof=2)),
        ]
    check(cases, (x,), sums=[label for label, _ in cases])


def test_var_past_its_degrees_of_freedom_is_inf_or_nan_as_numpy():
    @mxla.jit
    def f(x):
        return mnp.var(x, ddof=3), mnp.std(x, axis=1, ddof=1)

    x = np.array([[1.0, 2.0, 4.0]])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.var(x, ddof=3), np.std(x, axis=1, ddof=1)
    got = f(x)
    np.testing.assert_array_equal(got[0], want[0])  # inf
    np.testing.assert_allclose(got[1], want[1])


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_max_min_initial_where_follow_numpy(dtype):
    x = sample(dtype, (4, 5))
    mask = RNG.random((4, 5)) < 0.5
    row = RNG.random(5) < 0.5
    one = np.ones(1, dtype)[0]
    cases = []
    for name in ("max", "min", "amax", "amin"):
        cases += [
            (f"{name} initial", lambda a, n=name: getattr(lib(a), n)(a, initial=one)),
            (f"{name} 0 initial", lambda a, n=name: getattr(lib(a), n)(a, axis=0, initial=one)),
            (f"{name} where", lambda a, n=name: getattr(lib(a), n)(a, axis=1, initial=one, where=mask)),
            (f"{name} where row", lambda a, n=name: getattr(lib(a), n)(a, axis=0, initial=one,
                                                                       where=row, keepdims=True)),
            (f"{name} empty initial", lambda a, n=name: getattr(lib(a), n)(a[:0], axis=0, initial=one)),
        ]
    cases += [("method max where", lambda a: a.max(0, initial=one, where=mask)),
              ("method min", lambda a: a.min(axis=1))]
    check(cases, (x,))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_logsumexp_log_softmax_follow_numpy_formulas(dtype):
    x = sample(dtype, (3, 5))
    if dtype.kind == "f":
        x = np.where(np.isnan(x), 0, x).astype(dtype)

    def reference(fn):
        def run(a):
            if isinstance(a, mnp.Tracer):
                return fn(mnp, a)
            wide = a.astype(np.float64)
            dtype_out = np.exp(a[:1, :1]).dtype
            return fn(None, wide).astype(dtype_out)
        return run

    def logsumexp(m, a, axis=None, keepdims=False):
        if m is not None:
            return m.logsumexp(a, axis=axis, keepdims=keepdims)
        peak = np.max(a, axis=axis, keepdims=True)
        peak = np.where(np.isfinite(peak), peak, 0)
        out = np.log(np.sum(np.exp(a - peak), axis=axis, keepdims=True)) + peak
        return out if keepdims else np.squeeze(out, axis=axis)

    def log_softmax(m, a, axis=-1):
        if m is not None:
            return m.log_softmax(a, axis=axis)
        shifted = a - np.max(a, axis=axis, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))

    cases = [("logsumexp", reference(lambda m, a: logsumexp(m, a))),
             ("logsumexp 1", reference(lambda m, a: logsumexp(m, a, axis=1))),
             ("logsumexp 0 keepdims", reference(lambda m, a: logsumexp(m, a, axis=0, keepdims=True))),
             ("log_softmax", reference(lambda m, a: log_softmax(m, a))),
             ("log_softmax 0", reference(lambda m, a: log_softmax(m, a, axis=0)))]
    got = mxla_outcomes(cases, (x,))
    for label, fn in cases:
        with np.errstate(all="ignore"):
            want = np.asarray(fn(x))
        assert got[label].dtype == want.dtype, label
        # The reference is computed in float64 and rounded: log(sum) near
        # 0 differs by a few of the dtype's epsilons, absolutely.
        eps = np.finfo(want.dtype).eps
        np.testing.assert_allclose(got[label], want, rtol=tolerance(want.dtype),
                                   atol=8 * eps, err_msg=label)


def test_logsumexp_of_infinities_pinned():
    @mxla.jit
    def f(x):
        return mnp.logsumexp(x, axis=1)

    x = np.array([[-np.inf, -np.inf], [np.inf, 0.0], [1000.0, 1000.0]])
    np.testing.assert_array_equal(f(x)[:2], [-np.inf, np.inf])
    np.testing.assert_allclose(f(x)[2], 1000 + np.log(2))


@pytest.mark.parametrize("function, kind, message", [
    (lambda a: mnp.argmax(a[:, :0], axis=1), ValueError,
     r"mxla.numpy.argmax: attempt to get argmax of an empty sequence"),
    (lambda a: mnp.argmin(a, axis=2), ValueError, r"axis 2 is out of bounds for an array of dimension 2"),
    (lambda a: mnp.max(a, where=a > 0), ValueError,
     r"mxla.numpy.max: reduction operation 'maximum' does not have an identity, so to use a "
     r"where mask one has to specify 'initial'"),
    (lambda a: mnp.min(a[:0]), ValueError,
     r"mxla.numpy.min: zero-size array to reduction operation minimum which has no identity"),
    (lambda a: mnp.max(a, initial=0, where=np.ones(4, bool)), ValueError,
     r"the where mask of shape \(4,\) does not broadcast to the array's shape \(2, 3\)"),
    (lambda a: mnp.cumsum(a, axis=-3), ValueError, r"axis -3 is out of bounds"),
    (lambda a: mnp.max(a.astype(np.int8), initial=300), OverflowError,
     r"Python int 300 is out of bounds for int8"),
])
def test_reduction_errors(function, kind, message):
    with pytest.raises(kind, match=message):
        mxla.jit(function)(np.ones((2, 3), np.float32))


def test_long_cumsum_is_a_log_step_scan():
    # 2^12 + 3 elements: 13 steps, the last shifting past the middle.
    x = RNG.integers(-5, 5, (2, 4099)).astype(np.int32)
    np.testing.assert_array_equal(mxla.jit(lambda a: mnp.cumsum(a, axis=1))(x), np.cumsum(x, axis=1))
    hlo = mxla.jit(lambda a: mnp.cumsum(a, axis=1)).lower(x).as_text()
    assert hlo.count(" pad(") == 13 and "reduce-window" not in hlo


def test_float16_cumsum_rounds_once():
    # float16 cumulative sums compute in float32 and round once: within
    # float16's rounding of the exact prefix.
    x = RNG.uniform(0, 1, 64).astype(np.float16)
    got = mxla.jit(mnp.cumsum)(x)
    exact = np.cumsum(x.astype(np.float64)).astype(np.float16)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), exact, rtol=tolerance(np.dtype(np.float16)))
