"""Every mxla.numpy function and operator against the installed NumPy,
dtype by dtype: the result's dtype and values must be NumPy's, and where
NumPy refuses a dtype, mxla.numpy raises TypeError naming the function.

Python scalars are weak, as in NumPy 2 (NEP 50) and JAX, where NumPy
1.24 casts by value; the tests model that rule by hand (weak_dtype) and
pin where the two differ: only where the scalar does not fit the array's
dtype (docs/python.md)."""
import operator
import warnings

import numpy as np
import pytest

import mxla
import mxla.numpy as mnp

RNG = np.random.default_rng(35)

DTYPES = [np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
    np.uint32, np.uint64, np.float16, np.float32, np.float64)]
FLOATS = [d for d in DTYPES if d.kind == "f"]


def ids(dtypes):
    return [str(d) for d in dtypes]


def sample(dtype, shape):
    """Values of `dtype` with its edges: extremes, zero, -1, and for floats
    -0, inf, -inf and NaN."""
    n = int(np.prod(shape))
    if dtype.kind == "b":
        values = RNG.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = [info.min, info.max, 0, 1] + ([-1] if dtype.kind == "i" else [])
        values = RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        small = RNG.integers(max(info.min, -9), 10, n)
        values = np.where(RNG.random(n) < 0.5, small, values).astype(dtype)
        values[:len(edges)] = edges[:n]
    else:
        edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5]
        values = RNG.uniform(-4, 4, n).astype(dtype)
        values[:len(edges)] = edges[:n]
    return RNG.permutation(values).reshape(shape)


def tolerance(dtype):
    return {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}.get(dtype.type, 0)


def assert_same(label, got, want, rtol=None):
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype}, NumPy {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape}, NumPy {want.shape}"
    if want.dtype.kind == "f":
        rtol = tolerance(want.dtype) if rtol is None else rtol
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=label)
        finite = np.isfinite(want)
        np.testing.assert_array_equal(got[~finite & ~np.isnan(want)],
                                      want[~finite & ~np.isnan(want)], err_msg=label)
        np.testing.assert_allclose(got[finite], want[finite], rtol=rtol,
                                   atol=rtol * 1e-3, err_msg=label)
    else:
        np.testing.assert_array_equal(got, want, err_msg=label)


def numpy_outcome(fn, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(fn(*args)), None
        except (TypeError, ValueError, OverflowError) as error:
            return None, error


def mxla_outcomes(cases, args):
    """Traces every case into one @mxla.jit function (a case that raises
    while tracing is recorded, the others become outputs), runs it once."""
    errors = {}

    def traced(*params):
        outs = []
        for label, fn in cases:
            try:
                outs.append(fn(*params))
            except Exception as error:  # noqa: BLE001 (compared below)
                errors[label] = error
        return tuple(outs)

    results = iter(mxla.jit(traced)(*args))
    return {label: errors[label] if label in errors else next(results)
            for label, _ in cases}


def assert_sum_close(label, fn, args, got, want):
    """A float sum may add in another order than NumPy's: its tolerance
    is one of the sum of magnitudes, not of the result."""
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype}, NumPy {want.dtype}"
    magnitude = numpy_outcome(fn, [np.abs(a.astype(np.float64)) for a in args])[0]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=label)
    scale = tolerance(want.dtype) * 4 * np.where(np.isfinite(magnitude), magnitude, 0)
    with np.errstate(invalid="ignore"):
        ok = (np.isnan(want) | (got == want)
              | (np.abs(got.astype(np.float64) - want) <= scale + 1e-30))
    assert ok.all(), f"{label}: {got} vs {want}"


def check(cases, args, expect=None, sums=()):
    """Each case (label, fn) on mxla and on NumPy, `expect(label)` giving
    NumPy's outcome where it is not fn on the NumPy arrays; the cases
    labelled in `sums` add floats (assert_sum_close)."""
    got = mxla_outcomes(cases, args)
    for label, fn in cases:
        want, error = expect(label) if expect else numpy_outcome(fn, args)
        if label in sums and error is None and want.dtype.kind == "f":
            assert_sum_close(label, fn, args, got[label], want)
            continue
        if error is not None:
            kind = next(k for k in (OverflowError, TypeError, ValueError)
                        if isinstance(error, k))
            assert isinstance(got[label], kind), (
                f"{label}: NumPy raises {error!r}, mxla gives {got[label]!r}")
            continue
        assert not isinstance(got[label], Exception), f"{label}: {got[label]!r}"
        assert_same(label, got[label], want)
    return got


def on(f_np, f_mxla):
    """f_mxla on traced arrays, f_np on NumPy's."""
    return lambda *a: (f_mxla if isinstance(a[0], mnp.Tracer) else f_np)(*a)


UNARY = [("negative", np.negative, mnp.negative), ("abs", np.abs, mnp.abs),
         ("exp", np.exp, mnp.exp), ("log", np.log, mnp.log),
         ("sqrt", np.sqrt, mnp.sqrt), ("tanh", np.tanh, mnp.tanh),
         ("sin", np.sin, mnp.sin), ("cos", np.cos, mnp.cos),
         ("floor", np.floor, mnp.floor), ("ceil", np.ceil, mnp.ceil),
         ("sign", np.sign, mnp.sign),
         ("-x", operator.neg, operator.neg), ("abs(x)", abs, abs),
         # Shape functions keep the dtype.
         ("T", lambda a: a.T, lambda a: a.T),
         ("transpose", np.transpose, mnp.transpose),
         ("transpose(-1, 0)", lambda a: np.transpose(a, (-1, 0)),
          lambda a: mnp.transpose(a, (-1, 0))),
         ("reshape", lambda a: a.reshape(2, -1), lambda a: a.reshape(2, -1)),
         ("index", lambda a: a[1, ::2], lambda a: a[1, ::2]),
         ("ellipsis", lambda a: a[..., -1], lambda a: a[..., -1])]

BINARY = [("add", np.add, mnp.add), ("subtract", np.subtract, mnp.subtract),
          ("multiply", np.multiply, mnp.multiply),
          ("divide", np.divide, mnp.divide),
          ("maximum", np.maximum, mnp.maximum),
          ("minimum", np.minimum, mnp.minimum),
          ("arctan2", np.arctan2, mnp.arctan2),
          ("less", np.less, mnp.less), ("less_equal", np.less_equal, mnp.less_equal),
          ("greater", np.greater, mnp.greater),
          ("greater_equal", np.greater_equal, mnp.greater_equal),
          ("equal", np.equal, mnp.equal), ("not_equal", np.not_equal, mnp.not_equal),
          ("+", operator.add, operator.add), ("-", operator.sub, operator.sub),
          ("*", operator.mul, operator.mul), ("/", operator.truediv, operator.truediv),
          ("<", operator.lt, operator.lt), ("<=", operator.le, operator.le),
          (">", operator.gt, operator.gt), (">=", operator.ge, operator.ge),
          ("==", operator.eq, operator.eq), ("!=", operator.ne, operator.ne)]


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_unary_functions_follow_numpy(dtype):
    x = sample(dtype, (4, 6))
    got = check([(name, on(f_np, f_mxla)) for name, f_np, f_mxla in UNARY], (x,))
    if dtype.kind == "b":
        # NumPy has no bool negative or sign: neither has mxla, and it says so.
        for name in ("negative", "sign"):
            assert isinstance(got[name], TypeError)
            assert f"mxla.numpy.{name}" in str(got[name]) and "bool" in str(got[name])


def power_exponent(dtype, shape):
    """Exponents NumPy defines for `dtype`: no negative integer ones."""
    if dtype.kind in "iu":
        return RNG.integers(0, 9, shape).astype(dtype)
    return sample(dtype, shape)


@pytest.mark.parametrize("dtype_x", DTYPES, ids=ids(DTYPES))
@pytest.mark.parametrize("dtype_y", DTYPES, ids=ids(DTYPES))
def test_binary_functions_follow_numpy_promotion(dtype_x, dtype_y):
    x, y = sample(dtype_x, (8, 8)), sample(dtype_y, (8,))
    e = power_exponent(dtype_y, (8,))
    condition = sample(np.dtype(bool), (8, 8))

    cases = [(name, lambda a, b, c, p, f=on(f_np, f_mxla): f(a, b))
             for name, f_np, f_mxla in BINARY]
    cases += [(name + " reversed", lambda a, b, c, p, f=on(f_np, f_mxla): f(b, a))
              for name, f_np, f_mxla in BINARY[:13]]
    cases += [
        ("power", lambda a, b, c, p, f=on(np.power, mnp.power): f(a, p)),
        ("**", lambda a, b, c, p: a ** p),
        ("where", lambda a, b, c, p, f=on(np.where, mnp.where): f(c, a, b)),
        ("where on truthiness", lambda a, b, c, p, f=on(np.where, mnp.where): f(a, a, b)),
        ("matmul", lambda a, b, c, p, f=on(np.matmul, mnp.matmul): f(a, b)),
        ("@ reversed", lambda a, b, c, p: b @ a),
    ]
    check(cases, (x, y, condition, e), sums=("matmul", "@ reversed"))


def weak_dtype(dtype, scalar):
    """The dtype a Python scalar takes next to an array of `dtype` (NumPy
    2's rule, written out): its own kind's default where the array's kind
    is lower, the array's dtype otherwise."""
    if isinstance(scalar, bool):
        return dtype
    if isinstance(scalar, int):
        return np.dtype(np.int64) if dtype.kind == "b" else dtype
    return np.dtype(np.float64) if dtype.kind in "biu" else dtype


def fits(scalar, dtype):
    if isinstance(scalar, bool) or dtype.kind == "b":
        return True
    if dtype.kind in "iu":
        if isinstance(scalar, float):
            return True  # the array becomes float64
        info = np.iinfo(dtype)
        return info.min <= scalar <= info.max
    return abs(scalar) <= np.finfo(dtype).max


SCALARS = [True, False, 0, 3, -3, 200, 300, 70000, -(2 ** 40), 2.5, -0.5, 1e10]
COMPARISONS = {"less", "less_equal", "greater", "greater_equal", "equal",
               "not_equal", "<", "<=", ">", ">=", "==", "!="}


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_python_scalars_are_weak(dtype):
    x = sample(dtype, (3, 4))
    cases, expected = [], {}
    for name, f_np, f_mxla in BINARY + [("power", np.power, mnp.power),
                                         ("**", operator.pow, operator.pow),
                                         ("where", None, None)]:
        for scalar in SCALARS:
            for side in ("right", "left"):
                label = f"{name} {side} {scalar!r}"
                exponent = side == "right"
                integral = isinstance(scalar, int)
                if name in ("power", "**") and (
                        (exponent and integral and scalar < 0 and dtype.kind in "biu")
                        or (not exponent and integral and dtype.kind in "iu")):
                    # NumPy refuses negative integer exponents (the
                    # samples have some): test_integer_power_of_negative_exponent.
                    continue
                if name == "where":
                    def fn(a, s=scalar, side=side):
                        f = mnp.where if isinstance(a, mnp.Tracer) else np.where
                        return f(a > 0, a, s) if side == "right" else f(a > 0, s, a)
                else:
                    def fn(a, s=scalar, side=side, f_np=f_np, f_mxla=f_mxla):
                        f = f_mxla if isinstance(a, mnp.Tracer) else f_np
                        return f(a, s) if side == "right" else f(s, a)
                cases.append((label, fn))
                # NumPy 2's answer, computed by NumPy 1.24 with the scalar
                # as a 1-element array of the dtype NumPy 2 gives it.
                weak = weak_dtype(dtype, scalar)
                loop = numpy_outcome(fn, (x, np.zeros(1, weak)))[0]
                if weak.kind == "f" or fits(scalar, weak):
                    with np.errstate(over="ignore"):
                        as_array = np.asarray([scalar], dtype=weak)
                elif name in COMPARISONS and weak.kind in "iu":
                    # An int out of the integer dtype's range compares as
                    # it is (NumPy 2's answer).
                    as_array = np.asarray([scalar])
                elif loop is not None and loop.dtype.kind == "f":
                    # It converts to the float the loop computes in.
                    with np.errstate(over="ignore"):
                        as_array = np.asarray([scalar], dtype=loop.dtype)
                else:
                    expected[label] = (None, OverflowError())
                    continue
                want = numpy_outcome(lambda a, fn=fn, as_array=as_array: fn(a, as_array), (x,))
                expected[label] = want
                # NumPy 1.24 itself agrees unless it casts by value: where
                # the scalar's smallest type does not cast to the dtype.
                direct, direct_error = numpy_outcome(fn, (x,))
                if want[1] is None and direct_error is None and direct.dtype != want[0].dtype:
                    assert not np.can_cast(np.min_scalar_type(scalar), dtype), (
                        f"{label}: NumPy 1.24 gives {direct.dtype}, mxla {want[0].dtype}")
    check(cases, (x,), expect=lambda label: expected[label])


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_astype_between_every_pair(dtype):
    x = sample(dtype, (5, 6))
    if dtype.kind == "f":
        # NumPy leaves NaN, inf and out-of-range floats to integers undefined.
        x = np.where(np.isfinite(x), x, 0).astype(dtype)
    # and negative ones to unsigned: those convert their absolute value.
    check([(str(to), lambda a, to=to: (abs(a) if dtype.kind == "f" and to.kind == "u"
                                       else a).astype(to)) for to in DTYPES], (x,))


AXES = [None, 0, 1, -1, (0, 2), (), (2, 0, 1)]


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_reductions_follow_numpy(dtype):
    x = sample(dtype, (3, 4, 5))
    if dtype.kind == "f":
        # NaN propagates through sum and mean in both; keep one, in one row.
        x = np.where(np.isnan(x), 1, x).astype(dtype)
        x[0, 0, 0] = np.nan
    cases = []
    for name in ("sum", "max", "min", "mean"):
        for axis in AXES:
            for keepdims in (False, True):
                label = f"{name} axis={axis} keepdims={keepdims}"
                cases.append((label, lambda a, name=name, axis=axis, keepdims=keepdims:
                              getattr(mnp if isinstance(a, mnp.Tracer) else np, name)(
                                  a, axis=axis, keepdims=keepdims)))
                cases.append((label + " method", lambda a, name=name, axis=axis, keepdims=keepdims:
                              getattr(a, name)(axis=axis, keepdims=keepdims)))
    check(cases, (x,), sums=[label for label, _ in cases
                             if label.startswith(("sum", "mean"))])


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_empty_reductions(dtype):
    x = sample(dtype, (0, 3))
    got = check([("sum", lambda a: a.sum(axis=0)), ("mean", lambda a: a.mean(axis=0)),
                 ("max over the full axis", lambda a: a.max(axis=1)),
                 ("min over the full axis", lambda a: a.min(axis=1))], (x,))
    # NumPy's max and min of nothing are errors, not -inf or a bound.
    cases = [("max", lambda a: a.max(axis=0)), ("min", lambda a: a.min()),
             ("an output", lambda a: a.sum())]
    got = mxla_outcomes(cases, (x,))
    for name, _ in cases[:2]:
        assert isinstance(got[name], ValueError)
        assert f"mxla.numpy.{name}: zero-size array" in str(got[name])


def test_integer_sums_widen_and_wrap_as_numpy():
    @mxla.jit
    def f(a, b, c):
        return a.sum(), b.sum(), c.sum(axis=0), a.mean()

    a = np.full(8, 2 ** 31 - 1, np.int32)           # int64 sum: no wrap
    b = np.full(4, 2 ** 62, np.int64)               # wraps as int64
    c = np.full((3, 2), 2 ** 63, np.uint64)         # wraps as uint64
    with np.errstate(all="ignore"):
        want = (a.sum(), b.sum(), c.sum(axis=0), a.mean())
    for got, expected in zip(f(a, b, c), want):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_the_issue_cases():
    """The wrong answers of issue 35, one by one."""
    @mxla.jit
    def f(x, y, n, flags, scale):
        return x == 3, x != 3, x == y, n / n, mnp.mean(n), mnp.sum(flags), x * scale

    x = np.array([3, 1, 3], np.float32)
    y = np.array([3, 2, 1], np.float32)
    n = np.array([4, 5], np.int32)
    flags = np.array([True, True, False])
    eq3, ne3, eq, quotient, mean, count, scaled = f(x, y, n, flags, 2.5)
    np.testing.assert_array_equal(eq3, [True, False, True])
    np.testing.assert_array_equal(ne3, [False, True, False])
    np.testing.assert_array_equal(eq, [True, False, False])
    assert quotient.dtype == np.float64 and (quotient == 1).all()
    assert mean.dtype == np.float64 and mean == 4.5
    assert count.dtype == np.int64 and count == 2
    assert scaled.dtype == np.float32
    np.testing.assert_array_equal(scaled, x * np.float32(2.5))


def test_weak_python_arguments_to_jit():
    traces = []

    @mxla.jit
    def f(x, s):
        traces.append(s)
        return x * s, x + s, s * 2.0

    x8 = np.array([1, -2, 3], np.int8)
    x32 = np.array([1.5, -2, 3], np.float32)
    prod, total, twice = f(x32, 2.5)
    assert prod.dtype == total.dtype == np.float32 and twice.dtype == np.float64
    np.testing.assert_array_equal(prod, x32 * np.float32(2.5))
    prod, total, _ = f(x32, 0.1)                       # the same trace
    np.testing.assert_array_equal(prod, x32 * np.float32(0.1))
    prod, total, _ = f(x8, 3)                          # int8, as x8 * 3 is
    assert prod.dtype == total.dtype == np.int8
    np.testing.assert_array_equal(total, x8 + 3)
    prod, total, _ = f(x8, 2.5)                        # a float: float64
    assert prod.dtype == np.float64
    np.testing.assert_array_equal(prod, x8 * 2.5)
    # A NumPy scalar is strong: float64, as in NumPy 2 and JAX.
    assert f(x32, np.float64(2.5))[0].dtype == np.float64
    assert len(traces) == 4
    # An int that int8 cannot hold raises at the call, as `x8 + 300` would.
    with pytest.raises(OverflowError, match=r"argument 1, the Python int 300, is out of bounds for int8"):
        f(x8, 300)
    with pytest.raises(OverflowError, match="out of bounds for int64"):
        f(x8, 2 ** 64)


def test_pinned_departures_from_numpy_1_24():
    """Where NumPy 1.24 casts a Python scalar by its value, mxla.numpy
    follows NumPy 2 and JAX (docs/python.md)."""
    @mxla.jit
    def f(x8, x16, x32):
        return (x16 * 1e10, x8 * 0.5, x32 + np.float64(1), x32 + np.array(1.0),
                x8 == 300, x8 < 300, x8 >= -300, 300 != x8)

    x8 = np.array([1, -2, 127], np.int8)
    x16 = np.array([1, -2, 0.5], np.float16)
    x32 = np.array([1, 2], np.float32)
    big, half, plus, plus0d, eq, lt, ge, ne = f(x8, x16, x32)
    assert big.dtype == np.float16                      # 1.24: float64
    np.testing.assert_array_equal(big, [np.inf, -np.inf, np.inf])
    assert half.dtype == np.float64                     # both
    assert plus.dtype == np.float64 and plus0d.dtype == np.float64  # 1.24: float32
    # Out-of-range ints compare as they are, as in both.
    assert not eq.any() and lt.all() and ge.all() and ne.all()

    @mxla.jit
    def overflow(x8):
        return x8 + 300

    with pytest.raises(OverflowError, match=r"mxla.numpy.add: Python int 300 is out of bounds for int8"):
        overflow(x8)                                     # 1.24: int16


def test_integer_power_of_negative_exponent():
    @mxla.jit
    def f(x):
        return x ** -1

    with pytest.raises(ValueError, match="mxla.numpy.power: integers to negative integer powers"):
        f(np.arange(3, dtype=np.int32))
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        np.arange(3, dtype=np.int32) ** -1
    np.testing.assert_array_equal(f(np.array([2.0], np.float32)), [0.5])


def test_unsupported_operands_raise():
    @mxla.jit
    def f(x):
        return x + None

    with pytest.raises(TypeError, match="mxla.numpy.add: unsupported operand None"):
        f(np.ones(2, np.float32))

    @mxla.jit
    def g(x):
        return x.astype(np.complex64)

    with pytest.raises(TypeError, match="mxla.numpy.astype: unsupported dtype complex64"):
        g(np.ones(2, np.float32))

    @mxla.jit
    def h(x):
        return x[True]

    with pytest.raises(IndexError, match="boolean indices"):
        h(np.ones(2, np.float32))

    @mxla.jit
    def duplicate(x):
        return x.sum(axis=(0, -2))

    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        duplicate(np.ones((2, 3), np.float32))


def test_tracers_are_not_hashable_and_compare_elementwise():
    seen = []

    @mxla.jit
    def f(x, y):
        with pytest.raises(TypeError, match="unhashable"):
            hash(x)
        seen.append(isinstance(x == y, mnp.Tracer))
        # NumPy arrays and scalars on the left defer to the tracer.
        return np.ones(3, np.float32) == x, np.float32(1) != y, x[..., 0:2]

    eq, ne, head = f(np.array([1, 2, 1], np.float32), np.array([1, 1, 1], np.float32))
    assert seen == [True]
    np.testing.assert_array_equal(eq, [True, False, True])
    np.testing.assert_array_equal(ne, [False, False, False])
    np.testing.assert_array_equal(head, [1, 2])


def test_where_of_python_scalars():
    @mxla.jit
    def f(x8, x32):
        return mnp.where(x8 > 0, 1, 2.5), mnp.where(x8, 1, 2), x32 * mnp.where(x32 > 1, 0.5, 2.0)

    x8 = np.array([1, 0, -3], np.int8)
    x32 = np.array([1, 2, 3], np.float32)
    mixed, ints, weak = f(x8, x32)
    for got, want in [(mixed, np.where(x8 > 0, 1, 2.5)), (ints, np.where(x8, 1, 2))]:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # Two Python floats stay weak, as in JAX: float32 next to x32.
    assert weak.dtype == np.float32
    np.testing.assert_array_equal(weak, [2, 1, 1.5])


def test_iteration_as_numpy():
    @mxla.jit
    def rows(x):
        return tuple(row * 2 for row in x)

    x = np.arange(6, dtype=np.int32).reshape(3, 2)
    for got, want in zip(rows(x), x * 2):
        np.testing.assert_array_equal(got, want)

    @mxla.jit
    def scalar(s):
        return s * (1 + len(list(s)))

    # Python would iterate a 0-d value as empty through __getitem__.
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        scalar(np.float32(1))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        tuple(np.array(1.0))
