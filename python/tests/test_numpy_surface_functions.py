"""mxla.numpy's creation, joining, shape, triangle, clip, sort, take and
einsum functions against NumPy over every dtype, and their errors."""
import numpy as np
import pytest

import mxla
import mxla.numpy as mnp
from test_numpy_dtypes import DTYPES, check, ids, on, sample

RNG = np.random.default_rng(381)


def numpy_or_mxla(name):
    return on(getattr(np, name), getattr(mnp, name))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_creation_follows_numpy(dtype):
    x = sample(dtype, (2, 3))
    # zeros/ones/full/arange take no traced operand: they must come out of
    # the trace's builder all the same.
    cases = [
        ("zeros", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).zeros((2, 3), dtype)),
        ("ones", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).ones(4, dtype)),
        ("full", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).full((3, 1), 1, dtype)),
        ("full of a row", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).full((4, 2, 3), a)),
        ("zeros_like", numpy_or_mxla("zeros_like")),
        ("ones_like", numpy_or_mxla("ones_like")),
        ("full_like", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).full_like(a, 1)),
        ("zeros_like float32", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).zeros_like(a, np.float32)),
    ]
    if dtype.kind != "b":
        cases += [("arange", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).arange(1, 9, 3, dtype=dtype)),
                  ("arange down", lambda a: (mnp if isinstance(a, mnp.Tracer) else np).arange(9, 2, -2, dtype=dtype))]
    check(cases, (x,))


def test_arange_and_defaults_follow_numpy():
    @mxla.jit
    def f(x):
        return (mnp.arange(5), mnp.arange(2, 11, 3), mnp.arange(1.5), mnp.arange(0.5, 2, 0.25),
                mnp.arange(0), mnp.zeros(2), mnp.full(2, 7), mnp.full(2, 2.5), mnp.full(2, True),
                mnp.arange(3, dtype=np.uint8) + x)

    x = np.ones(3, np.uint8)
    want = (np.arange(5), np.arange(2, 11, 3), np.arange(1.5), np.arange(0.5, 2, 0.25),
            np.arange(0), np.zeros(2), np.full(2, 7), np.full(2, 2.5), np.full(2, True),
            np.arange(3, dtype=np.uint8) + x)
    for got, expected in zip(f(x), want):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def test_creation_needs_a_trace():
    with pytest.raises(TypeError, match=r"mxla.numpy.zeros needs a trace: call it inside an @mxla.jit"):
        mnp.zeros(3)
    with pytest.raises(TypeError, match=r"mxla.numpy.arange needs a trace"):
        mnp.arange(3)
    with pytest.raises(TypeError, match=r"mxla.numpy.full_like needs a trace"):
        mnp.full_like(np.ones(2), 3)

    @mxla.jit
    def traced_bound(n):
        return mnp.arange(n)

    with pytest.raises(TypeError, match=r"arange: start, stop and step must be known while tracing"):
        traced_bound(np.int64(3))

    @mxla.jit
    def traced_shape(x):
        return mnp.zeros(x)

    with pytest.raises(TypeError, match=r"mxla.numpy.zeros: the shape must be known while tracing"):
        traced_shape(np.int64(3))

    @mxla.jit
    def bad_fill(x):
        return mnp.full((2, 3), x)

    with pytest.raises(ValueError, match=r"full: the fill value of shape \(4,\) does not broadcast to \(2, 3\)"):
        bad_fill(np.ones(4))
    with pytest.raises(OverflowError, match=r"Python int 300 is out of bounds for int8"):
        mxla.jit(lambda x: mnp.full_like(x, 300))(np.ones(2, np.int8))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_shape_functions_follow_numpy(dtype):
    x, y = sample(dtype, (3, 4)), sample(dtype, (3, 2))
    z = sample(dtype, (1, 3, 1))
    lib = lambda a: mnp if isinstance(a, mnp.Tracer) else np  # noqa: E731
    cases = [
        ("concatenate", lambda a, b, c: lib(a).concatenate([a, b], axis=1)),
        ("concatenate -1", lambda a, b, c: lib(a).concatenate((b, a, b), axis=-1)),
        ("concatenate None", lambda a, b, c: lib(a).concatenate([a, c], axis=None)),
        ("concatenate int8", lambda a, b, c: lib(a).concatenate([a, np.ones((1, 4), np.int8)])),
        ("stack", lambda a, b, c: lib(a).stack([a, a, a])),
        ("stack -1", lambda a, b, c: lib(a).stack([b, b], axis=-1)),
        ("stack 1", lambda a, b, c: lib(a).stack((a, a), 1)),
        ("squeeze", lambda a, b, c: lib(a).squeeze(c)),
        ("squeeze 0", lambda a, b, c: lib(a).squeeze(c, 0)),
        ("squeeze (0, -1)", lambda a, b, c: c.squeeze((0, -1))),
        ("expand_dims", lambda a, b, c: lib(a).expand_dims(a, 1)),
        ("expand_dims (0, 3)", lambda a, b, c: lib(a).expand_dims(a, (0, 3))),
        ("expand_dims -1", lambda a, b, c: lib(a).expand_dims(b, -1)),
        ("tril", lambda a, b, c: lib(a).tril(a)),
        ("tril 1", lambda a, b, c: lib(a).tril(a, 1)),
        ("triu", lambda a, b, c: lib(a).triu(a)),
        ("triu -1", lambda a, b, c: lib(a).triu(a, -1)),
        ("triu batch", lambda a, b, c: lib(a).triu(lib(a).stack([a, a]), 2)),
        ("flatten", lambda a, b, c: a.flatten()),
        ("ravel", lambda a, b, c: a.ravel()),
    ]
    check(cases, (x, y, z))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_clip_sort_take_follow_numpy(dtype):
    x = sample(dtype, (4, 6))
    i = RNG.integers(-4, 4, (2, 3))
    lib = lambda a: mnp if isinstance(a, mnp.Tracer) else np  # noqa: E731
    cases = [
        ("clip", lambda a, j: lib(a).clip(a, 0, 5)),
        ("clip min", lambda a, j: lib(a).clip(a, 1, None)),
        ("clip max", lambda a, j: a.clip(None, 3)),
        ("clip crossed", lambda a, j: lib(a).clip(a, 5, 1)),
        ("sort", lambda a, j: lib(a).sort(a)),
        ("sort 0", lambda a, j: lib(a).sort(a, axis=0)),
        ("sort None", lambda a, j: lib(a).sort(a, axis=None)),
        ("method sort", lambda a, j: lib(a).sort(a, 0) if isinstance(a, np.ndarray) else a.sort(0)),
        ("argsort", lambda a, j: lib(a).argsort(a, kind="stable")),
        ("sort mergesort", lambda a, j: lib(a).sort(a, 0, kind="mergesort")),
        ("argsort 0", lambda a, j: np.argsort(a, 0, kind="stable") if isinstance(a, np.ndarray)
         else a.argsort(0)),
        ("argsort None", lambda a, j: np.argsort(a, None, kind="stable") if isinstance(a, np.ndarray)
         else mnp.argsort(a, None)),
        ("take", lambda a, j: lib(a).take(a, j)),
        ("take 0", lambda a, j: lib(a).take(a, j, axis=0)),
        ("take 1", lambda a, j: a.take(j, axis=1)),
        ("take static", lambda a, j: lib(a).take(a, [[0, -1], [5, 2]], axis=1)),
        ("take wrap", lambda a, j: lib(a).take(a, j * 3, axis=0, mode="wrap")),
        ("take clip", lambda a, j: lib(a).take(a, j * 3, axis=1, mode="clip")),
        ("take_along_axis", lambda a, j: lib(a).take_along_axis(a, (j[:, :1] % 4), 0)),
        ("take_along_axis 1", lambda a, j: lib(a).take_along_axis(a, j[:1] % 6, 1)),
        ("take_along_axis None", lambda a, j: lib(a).take_along_axis(a, j.reshape(-1) % 24, None)),
        ("take_along_axis argsort", lambda a, j: lib(a).take_along_axis(
            a, np.argsort(np.asarray(a), 1, kind="stable") if isinstance(a, np.ndarray)
            else mnp.argsort(a, 1), 1)),
    ]
    check(cases, (x, i))


def test_sort_orders_nan_last_and_is_stable():
    @mxla.jit
    def f(x):
        return mnp.sort(x), mnp.argsort(x)

    x = np.array([3, np.nan, -0.0, 1, 0.0, -np.inf, np.nan, 1], np.float32)
    s, order = f(x)
    np.testing.assert_array_equal(s, np.sort(x))
    np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(order, [5, 2, 4, 3, 7, 0, 1, 6])


def test_traced_take_indices_clamp_and_static_ones_raise():
    @mxla.jit
    def f(x, i):
        return mnp.take(x, i), mnp.take_along_axis(x, i, 0)

    x = np.arange(5, dtype=np.float32) * 10
    # Out of range: clamped into range by the gather (negative ones count
    # from the end first).
    got, along = f(x, np.array([7, -1, -9, 2]))
    np.testing.assert_array_equal(got, [40, 40, 0, 20])
    np.testing.assert_array_equal(along, [40, 40, 0, 20])
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 0 with size 5"):
        mxla.jit(lambda x: mnp.take(x, [1, 5]))(x)
    with pytest.raises(ValueError, match=r"mode 'raise' is not supported"):
        mxla.jit(lambda x: mnp.take(x, [1], mode="raise"))(x)
    with pytest.raises(IndexError, match=r"take: indices must be integers, not float32"):
        mxla.jit(lambda x: mnp.take(x, x))(x)


@pytest.mark.parametrize("function, kind, message", [
    (lambda a: mnp.concatenate([]), ValueError, r"need at least one array to concatenate"),
    (lambda a: mnp.concatenate([a, a[0]]), ValueError,
     r"all the input arrays must have same number of dimensions, but the array at index 0 has "
     r"2 dimension\(s\) and the array at index 1 has 1 dimension\(s\)"),
    (lambda a: mnp.concatenate([a, a.T], axis=0), ValueError,
     r"all the input array dimensions except for the concatenation axis must match exactly, "
     r"but along dimension 1, the array at index 0 has size 3 and the array at index 1 has size 2"),
    (lambda a: mnp.concatenate([a[0, 0], a[0, 0]]), ValueError,
     r"zero-dimensional arrays cannot be concatenated"),
    (lambda a: mnp.concatenate([a, a], axis=2), ValueError,
     r"axis 2 is out of bounds for an array of dimension 2"),
    (lambda a: mnp.stack([a, a.T]), ValueError,
     r"all input arrays must have the same shape \(got \(2, 3\) and \(3, 2\)\)"),
    (lambda a: mnp.stack([a, a], axis=3), ValueError,
     r"axis 3 is out of bounds for an array of dimension 3"),
    (lambda a: mnp.squeeze(a, 0), ValueError,
     r"cannot select an axis to squeeze out which has size not equal to one \(axis 0 has size 2\)"),
    (lambda a: mnp.expand_dims(a, 4), ValueError,
     r"axis 4 is out of bounds for an array of dimension 3"),
    (lambda a: mnp.tril(a[0]), ValueError, r"tril: the array must be at least 2-D \(it is 1-D\)"),
    (lambda a: mnp.clip(a), ValueError, r"clip: One of max or min must be given"),
    (lambda a: mnp.sort(a[0, 0]), ValueError, r"sort: a 0-d array has no axis to sort"),
    (lambda a: mnp.argsort(a, kind="bogo"), ValueError,
     r"argsort: sort kind must be one of 'quicksort', 'heapsort', 'mergesort' or 'stable' \(got 'bogo'\)"),
    (lambda a: mnp.take_along_axis(a, np.zeros(2, np.int64), 0), ValueError,
     r"`indices` and `arr` must have the same number of dimensions \(1 and 2\)"),
])
def test_shape_function_errors(function, kind, message):
    with pytest.raises(kind, match=message):
        mxla.jit(function)(np.ones((2, 3), np.float32))


EINSUM = ["ij,jk->ik", "bij,bjk->bik", "ij->ji", "i,i->", "ij->", "bhqd,bhkd->bhqk",
          "ij,jk", "ij", "ji", "ij->j", "i,j->ij", "ij,ij->ij", "ij,kj->ikj",
          "bi,bj->b", "ij,jk,kl->il", "ii->i", "ii->", "ii", "iji->j", "ij,jj->i", "bii,bi->b"]


def einsum_operands(spec, dtype):
    sizes = {"i": 3, "j": 4, "k": 2, "l": 5, "b": 2, "h": 3, "q": 4, "d": 5}
    terms = spec.split("->")[0].split(",")
    return [sample(dtype, tuple(sizes[c] for c in t)) if dtype.kind != "f"
            else RNG.uniform(-2, 2, tuple(sizes[c] for c in t)).astype(dtype)
            for t in terms]


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_einsum_follows_numpy(dtype):
    operands = {spec: einsum_operands(spec, dtype) for spec in EINSUM}
    flat = [a for spec in EINSUM for a in operands[spec]]
    cases, at = [], 0
    for spec in EINSUM:
        n = len(operands[spec])
        cases.append((spec, lambda *a, s=spec, lo=at, hi=at + n: (
            mnp if isinstance(a[0], mnp.Tracer) else np).einsum(s, *a[lo:hi])))
        at += n
    check(cases, flat, sums=tuple(EINSUM) if dtype.kind == "f" else ())


def test_einsum_mixed_dtypes_and_kq_attention():
    @mxla.jit
    def f(q, k, w):
        return mnp.einsum("bhqd,bhkd->bhqk", q, k), mnp.einsum("ij,j->i", w, k[0, 0, 0])

    q, k = RNG.normal(size=(2, 3, 4, 8)).astype(np.float32), RNG.normal(size=(2, 3, 5, 8)).astype(np.float16)
    w = RNG.integers(-3, 3, (4, 8)).astype(np.int8)
    scores, mv = f(q, k, w)
    assert scores.dtype == np.float32 and mv.dtype == np.float16
    np.testing.assert_allclose(scores, np.einsum("bhqd,bhkd->bhqk", q, k), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(mv, np.einsum("ij,j->i", w, k[0, 0, 0]), rtol=3e-3, atol=3e-3)


ELLIPSES = [("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 2)]), ("...ij,jk", [(2, 3, 4), (4, 5)]),
            ("i...->...", [(3, 2, 4)]), ("...", [(2, 3)]),
            ("ij...,j...->i...", [(2, 3, 1, 4), (3, 5, 4)]), ("...i,...i", [(3, 4), (1, 4)]),
            ("a...b->b...a", [(2, 3, 4, 5)]), ("...ii->...i", [(2, 3, 3)]), ("i...,i", [(3,), (3,)]),
            # Labelled dimensions of size 1 broadcast too, contracted or not.
            ("ij,ij->ij", [(1, 3), (2, 3)]), ("ij,jk->ik", [(2, 1), (3, 4)])]


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.bool_, np.int32, np.uint8, np.float32,
                                                          np.float64)], ids=str)
def test_einsum_ellipses_follow_numpy(dtype):
    flat, cases = [], []
    for spec, shapes in ELLIPSES:
        lo = len(flat)
        flat += [sample(dtype, s) if dtype.kind != "f" else RNG.uniform(-2, 2, s).astype(dtype)
                 for s in shapes]
        cases.append((spec, lambda *a, s=spec, lo=lo, hi=len(flat): (
            mnp if isinstance(a[0], mnp.Tracer) else np).einsum(s, *a[lo:hi])))
    check(cases, flat, sums=tuple(spec for spec, _ in ELLIPSES) if dtype.kind == "f" else ())


@pytest.mark.parametrize("spec, shapes, message", [
    ("ii->i", [(3, 4)], r"dimensions in operand 0 for collapsing index 'i' don't match \(3 != 4\)"),
    ("...i,...i->...", [(2, 3), (4, 3)], r"the dimensions '\.\.\.' stands for in '\.\.\.i,\.\.\.i->\.\.\.' "
                                         r"do not broadcast together \(\(2,\) \(4,\)\)"),
    ("...i->i", [(2, 3)], r"output has more dimensions than subscripts given in '\.\.\.i->i', but no "
                          r"'\.\.\.' ellipsis provided"),
    ("...ij->i", [(3,)], r"operand 0 has 1 dimension\(s\), fewer than the 2 its subscripts '\.\.\.ij' name"),
    ("i.j->i", [(2, 3)], r"invalid subscript '\.'"),
    ("ij,jk->ik", [(2, 3)], r"name 2 operand\(s\), but 1 were given"),
    ("ij,jk->ik", [(2, 3), (4, 5)], r"subscript 'j' has size 3 in one operand and 4 in operand 1"),
    ("ijk->i", [(2, 3)], r"operand 0 has 2 dimension\(s\) but its subscripts 'ijk' name 3"),
    ("ij->k", [(2, 3)], r"output subscript 'k' does not appear"),
    ("ij->ii", [(2, 3)], r"output subscript 'i' appears more than once"),
    ("i1->i", [(2, 3)], r"invalid subscript '1'"),
])
def test_einsum_errors(spec, shapes, message):
    args = [np.ones(s, np.float32) for s in shapes]
    with pytest.raises(ValueError, match=message):
        mxla.jit(lambda *a: mnp.einsum(spec, *a))(*args)


def test_creation_inside_grad_records_into_the_differentiated_function():
    def loss(w):
        return (w * mnp.arange(3.0) + mnp.ones(3)).sum() * mnp.full((), 2.0)

    w = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(mxla.grad(loss)(w), 2 * np.arange(3.0))
    np.testing.assert_allclose(mxla.jit(lambda w: mxla.grad(loss)(w) + mnp.zeros(3))(w),
                               2 * np.arange(3.0))
