"""Indexing traced arrays against NumPy over every dtype: None, negative
steps, integer arrays (NumPy's advanced-indexing layout), traced indices,
static bool masks; x.at[...] updates against NumPy's ufunc.at; the
refused traced mask; out-of-range indices (clamped reads, dropped
updates)."""
import numpy as np
import pytest

import mxla
import mxla.numpy as mnp
from test_numpy_dtypes import DTYPES, check, ids, sample

RNG = np.random.default_rng(383)

# Each index applies to an array of shape (3, 4, 5) and to i, an integer
# array of shape (2, 3) with values in [-3, 3), traced or not.
INDICES = {
    "None": lambda a, i: a[None],
    "None middle": lambda a, i: a[:, None, 1],
    "None and ellipsis": lambda a, i: a[..., None, 2],
    "negative step": lambda a, i: a[::-1],
    "negative step -2": lambda a, i: a[:, ::-2, 1:4],
    "negative bounds": lambda a, i: a[-1:0:-1, 3:0:-2, -2],
    "empty negative": lambda a, i: a[1:2:-1],
    "list": lambda a, i: a[[2, 0, 2]],
    "array 2-d": lambda a, i: a[np.array([[0, 1], [2, -1]])],
    "arrays adjacent": lambda a, i: a[:, [0, 3], [1, 4]],
    "arrays separated": lambda a, i: a[[0, 2], :, [1, 4]],
    "int and array separated": lambda a, i: a[0, :, [1, 2, 3]],
    "int and array adjacent": lambda a, i: a[:, 0, [1, 2, 3]],
    "arrays broadcast": lambda a, i: a[[[0], [2]], 1:3, [[1, 2, 3]]],
    "array then slice": lambda a, i: a[1:, [[0, 1], [2, 3]]],
    "array with None between": lambda a, i: a[[0, 1], None, [0, 1]],
    "array reversed slice": lambda a, i: a[[1, 0], ::-1],
    "traced": lambda a, i: a[i],
    "traced middle": lambda a, i: a[:, i],
    "traced last with int": lambda a, i: a[1, :, i],
    "traced pair": lambda a, i: a[i, i],
    "traced and list": lambda a, i: a[i, :, [[0], [4]]],
    "traced scalar": lambda a, i: a[i[0, 1]],
    "list of traced scalars": lambda a, i: a[:, [i[0, 1], 2, i[1, 0]]],
    "traced scalar and slice": lambda a, i: a[::2, i[1, 2], 1:],
    "static mask": lambda a, i: a[np.array([True, False, True])],
    "static mask 2-d": lambda a, i: a[:, np.arange(20).reshape(4, 5) % 3 == 0],
    "mask and int": lambda a, i: a[np.array([False, True, True]), 2],
}


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_indexing_follows_numpy(dtype):
    x = sample(dtype, (3, 4, 5))
    i = RNG.integers(-3, 3, (2, 3))
    check(list(INDICES.items()), (x, i))


def reference_update(method, x, index, values):
    y = x.copy()
    if method == "set":
        y[index] = values
    else:
        ufunc = {"add": np.add, "multiply": np.multiply, "mul": np.multiply,
                 "min": np.minimum, "max": np.maximum}[method]
        ufunc.at(y, index, values)
    return y


UPDATES = [
    ("int", lambda i: 1),
    ("slice", lambda i: slice(None, None, 2)),
    ("negative step", lambda i: (slice(None, None, -1), 2)),
    ("array", lambda i: [0, 2]),
    ("repeated", lambda i: ([0, 2, 0, 0], 1)),
    ("arrays separated", lambda i: ([0, 2], slice(1, 3), [3, 4])),
    ("None", lambda i: (None, 1, Ellipsis, 0)),
    ("traced", lambda i: i),
    ("traced pair", lambda i: (i, i % 4)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_at_updates_follow_numpy_ufunc_at(dtype):
    x = sample(dtype, (3, 4, 5))
    i = RNG.integers(-3, 3, (2, 3))
    cases = []
    for name, make_index in UPDATES:
        for method in ("set", "add", "multiply", "mul", "min", "max"):
            if method == "set" and name in ("repeated", "traced", "traced pair"):
                continue  # which duplicate wins is unspecified
            label = f"{method} {name}"

            def fn(a, j, values, method=method, make_index=make_index):
                index = make_index(j if isinstance(a, mnp.Tracer) else np.asarray(j))
                if isinstance(a, mnp.Tracer):
                    target = a[index]
                    return getattr(a.at[index], method)(values[:target.size].reshape(target.shape))
                target = np.asarray(a[index])
                return reference_update(method, a, index,
                                        values[:target.size].reshape(target.shape))
            cases.append((label, fn))
    cases.append(("get", lambda a, j, values: a.at[1, ::2].get() if isinstance(a, mnp.Tracer)
                  else a[1, ::2]))
    cases.append(("scalar set", lambda a, j, values: a.at[0, 1].set(values[0])
                  if isinstance(a, mnp.Tracer) else reference_update("set", a, (0, 1), values[0])))
    check(cases, (x, i, sample(dtype, (200,))))


def test_out_of_range_indices_clamp_reads_and_drop_updates():
    @mxla.jit
    def f(x, i):
        return x[i], x.at[i].set(-1.0), x.at[i].add(100.0), x[:, i[0]]

    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    i = np.array([0, 7, -1, -9, 4])
    read, written, added, column = f(x, i)
    # A read clamps: 7 to 4, -9 (-4 after counting from the end) to 0.
    np.testing.assert_array_equal(read, x[[0, 4, 4, 0, 4]])
    # An update drops 7 and -9; -1 counts from the end (row 4), as does 4,
    # so row 4 gets 100 twice.
    want = x.copy()
    want[[0, 4]] = -1
    np.testing.assert_array_equal(written, want)
    want = x.copy()
    want[0] += 100
    want[4] += 200
    np.testing.assert_array_equal(added, want)
    np.testing.assert_array_equal(column, x[:, 0])


def test_empty_indices_and_empty_axes():
    @mxla.jit
    def f(x, i):
        return x[[]], x[:, i[:0]], x[:0, [0, 1]], x.at[[]].add(1.0), x[:0][i[:0]]

    x, i = np.ones((3, 2), np.float32), np.array([1, 0])
    for got, want in zip(f(x, i), (x[[]], x[:, i[:0]], x[:0, [0, 1]], x, x[:0][i[:0]])):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(IndexError, match=r"index is out of bounds for axis 0 with size 0"):
        mxla.jit(lambda x, i: x[:0][i])(x, i)


def test_at_returns_a_new_array_and_broadcasts_values():
    @mxla.jit
    def f(x):
        y = x.at[:, 1].set(7)
        return x, y, x.at[1].add(np.arange(3, dtype=np.int32)), x.at[[0, 0, 1]].add(1)

    x = np.zeros((2, 3), np.int32)
    same, y, rows, repeated = f(x)
    np.testing.assert_array_equal(same, x)
    np.testing.assert_array_equal(y, [[0, 7, 0], [0, 7, 0]])
    np.testing.assert_array_equal(rows, [[0, 0, 0], [0, 1, 2]])
    np.testing.assert_array_equal(repeated, [[2, 2, 2], [1, 1, 1]])


@pytest.mark.parametrize("function, kind, message", [
    (lambda a: a[a > 0], IndexError,
     r"^boolean mask indexing \(x\[mask\] with a traced bool array\) is not supported under "
     r"mxla.jit: the result's shape would depend on the values; use mxla.numpy.where"),
    (lambda a: a.at[a > 0].set(0), IndexError, r"boolean mask indexing .* is not supported under mxla.jit"),
    (lambda a: a[True], IndexError, r"does not support boolean indices \(True\)"),
    (lambda a: a[1.5], IndexError, r"only integers, slices \(`:`\), ellipsis \(`...`\), numpy.newaxis"),
    (lambda a: a[a], IndexError, r"valid indices \(got a traced float32 array\)"),
    (lambda a: a[..., ...], IndexError, r"an index can only have a single ellipsis"),
    (lambda a: a[0, 0, 0], IndexError, r"too many indices for array: array is 2-dimensional, but 3 were indexed"),
    (lambda a: a[None, 0, 0, 0], IndexError, r"too many indices for array"),
    (lambda a: a[2], IndexError, r"index 2 is out of bounds for axis 0 with size 2"),
    (lambda a: a[:, [0, 3]], IndexError, r"index 3 is out of bounds for axis 1 with size 3"),
    (lambda a: a[:, -4], IndexError, r"index -4 is out of bounds for axis 1 with size 3"),
    (lambda a: a[None, 0, None, 3], IndexError, r"index 3 is out of bounds for axis 1 with size 3"),
    (lambda a: a[None, [0], None, [3]], IndexError, r"index 3 is out of bounds for axis 1 with size 3"),
    (lambda a: a[[0, 1], [0, 1, 2]], IndexError,
     r"shape mismatch: indexing arrays could not be broadcast together with shapes \(2,\) \(3,\)"),
    (lambda a: a.at[0].set(np.ones(2, np.float32)), ValueError,
     r"shape mismatch: value array of shape \(2,\) could not be broadcast to indexing result of "
     r"shape \(3,\)"),
    (lambda a: a.astype(np.int8).at[0].set(300), OverflowError,
     r"mxla.numpy.at\[\].set: Python int 300 is out of bounds for int8"),
])
def test_indexing_errors(function, kind, message):
    with pytest.raises(kind, match=message):
        mxla.jit(function)(np.ones((2, 3), np.float32))
