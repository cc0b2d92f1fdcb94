"""Errors from Python: a caught error leaves the builder usable, errors
under @mxla.jit name the user's line, shape errors are NumPy's ValueError,
and NumPy functions on traced values say what to call instead."""
import inspect
import re
import traceback

import numpy as np
import pytest

import mxla
import mxla.numpy as mnp

RNG = np.random.default_rng(35)


def f32(*dims):
    return RNG.uniform(-2, 2, dims).astype(np.float32)


def here():
    """The caller's line."""
    return inspect.currentframe().f_back.f_lineno


# --- A caught builder error leaves the builder as it was. ---

def test_caught_error_leaves_the_builder_usable():
    b = mxla.XlaBuilder("interactive")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    v = mxla.Parameter(b, 1, np.float32, (4,), "v")
    with pytest.raises(mxla.Error, match=r"Add\(f32\[2,3\], f32\[4\]\) at "):
        mxla.Add(x, v)
    # The next op is made, and a later error is its own, at its own line.
    y = mxla.Add(x, x)
    with pytest.raises(mxla.Error) as error:
        line = here(); mxla.Reshape(x, (7,))  # noqa: E702
    assert str(error.value).startswith("Reshape("), str(error.value)
    assert f"test_errors.py:{line}" in str(error.value)
    assert "Add(" not in str(error.value)

    exe = mxla.compile(b.build())  # the root is y, the last op made
    xs, vs = f32(2, 3), f32(4)
    np.testing.assert_array_equal(exe(xs, vs), xs + xs)
    np.testing.assert_array_equal(mxla.compile(b.build(y))(xs, vs), xs + xs)


def test_a_failed_op_leaves_no_constant_behind():
    b = mxla.XlaBuilder("no_trace")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    p = mxla.Parameter(b, 1, np.bool_, (2, 3), "p")
    with pytest.raises(mxla.Error, match=r"Mul\(f32\[2,3\], f32\[4\]\)"):
        x * np.ones(4, np.float32)  # the constant is made, then Mul fails
    with pytest.raises(ValueError) as error:
        # on_true's constant is made, then NumPy rejects on_false.
        mxla.Select(p, 1.0, [1, [2]])
    assert type(error.value) is ValueError
    with pytest.raises(mxla.Error, match="parameter 1 already registered"):
        mxla.Parameter(b, 1, np.float32, (3,), "w")
    w = mxla.Parameter(b, 2, np.float32, (3,), "w")
    y = mxla.Add(x, w, broadcast_dimensions=(1,))
    text = b.build(y).as_hlo_text()
    assert "constant" not in text and "select" not in text, text
    xs, ws = f32(2, 3), f32(3)
    out = mxla.compile(b.build(y))(xs, np.ones((2, 3), bool), ws)
    np.testing.assert_array_equal(out, xs + ws)


def test_a_reducer_of_a_failed_reduce_is_dropped():
    b = mxla.XlaBuilder("reduce")
    x = mxla.Parameter(b, 0, np.float32, (2, 3), "x")
    add = mxla.CreateScalarAddComputation(np.float32, b)
    with pytest.raises(mxla.Error, match="Reduce"):
        mxla.Reduce(x, 0.0, add, (2,))
    y = mxla.Reduce(x, 0.0, add, (1,))
    text = b.build(y).as_hlo_text()
    assert text.count("ENTRY") == 1 and text.count("{\n") == 2, text
    xs = f32(2, 3)
    np.testing.assert_allclose(mxla.compile(b.build(y))(xs), xs.sum(1), rtol=1e-6)


# --- Errors under @mxla.jit name the user's line. ---

def innermost(error):
    """The innermost frame of an exception's traceback: (file, line)."""
    frame = traceback.extract_tb(error.__traceback__)[-1]
    return frame.filename, frame.lineno


def test_a_builder_error_under_jit_names_the_users_line():
    lines = []

    @mxla.jit
    def bad_reshape(x):
        lines.append(here() + 1)
        return mnp.exp(x).reshape(5)

    with pytest.raises(mxla.Error) as error:
        bad_reshape(f32(2, 3))
    message = str(error.value)
    assert message.startswith("Reshape(f32[2,3]"), message
    assert f"test_errors.py:{lines[0]}:" in message, message
    assert "numpy.py" not in message
    file, line = innermost(error.value)
    assert file.endswith("test_errors.py") and line == lines[0]


def test_a_python_error_under_jit_names_the_users_line(monkeypatch):
    lines = []

    @mxla.jit
    def bad_axis(x):
        lines.append(here() + 1)
        return mnp.sum(x, axis=2)

    with pytest.raises(ValueError, match="axis 2 is out of bounds") as error:
        bad_axis(f32(2, 3))
    file, line = innermost(error.value)
    assert file.endswith("test_errors.py") and line == lines[0]

    # MXLA_TRACEBACK_FILTERING=off keeps mxla's frames, for debugging mxla.
    monkeypatch.setenv("MXLA_TRACEBACK_FILTERING", "off")
    with pytest.raises(ValueError, match="axis 2 is out of bounds") as error:
        bad_axis(f32(2, 4))
    file, _ = innermost(error.value)
    assert file.endswith("numpy.py"), file


# --- Shape errors are NumPy's ValueError. ---

def test_a_broadcasting_error_is_numpys_value_error():
    lines = []

    @mxla.jit
    def add(a, b):
        lines.append(here() + 1)
        return a + b

    with pytest.raises(ValueError) as error:
        add(f32(2, 3), f32(4))
    assert type(error.value) is ValueError
    assert str(error.value) == ("operands could not be broadcast together "
                                "with shapes (2,3) (4,)")
    assert innermost(error.value)[1] == lines[0]

    @mxla.jit
    def choose(c, a, b):
        return mnp.where(c, a, b)

    with pytest.raises(ValueError) as error:
        choose(np.ones((3, 1), bool), f32(2), f32(5, 4, 1))
    assert type(error.value) is ValueError
    assert "shapes (3,1) (2,) (5,4,1)" in str(error.value)


def test_a_matmul_mismatch_is_numpys_value_error():
    @mxla.jit
    def mm(a, b):
        return a @ b

    with pytest.raises(ValueError) as error:
        mm(f32(2, 3), f32(4, 5))
    assert type(error.value) is ValueError
    with pytest.raises(ValueError) as numpy_error:
        f32(2, 3) @ f32(4, 5)
    assert str(error.value) == str(numpy_error.value)


# --- NumPy functions and Python conversions on traced values. ---

def trace_error(function, *arrays):
    """The TypeError that tracing `function` raises, and whether the
    traceback's innermost frame is in this file."""
    with pytest.raises(TypeError) as error:
        mxla.jit(function)(*arrays)
    file, _ = innermost(error.value)
    assert file.endswith("test_errors.py"), file
    return str(error.value)


@pytest.mark.parametrize("function, numpy_name, mxla_name", [
    (lambda x: np.maximum(x, 0), "numpy.maximum()", "mxla.numpy.maximum()"),
    (lambda x: np.exp(x), "numpy.exp()", "mxla.numpy.exp()"),
    (lambda x: np.abs(x), "numpy.absolute()", "mxla.numpy.abs()"),
    (lambda x: np.sum(x, axis=0), "numpy.sum()", "mxla.numpy.sum()"),
    (lambda x: np.max(x), "numpy.amax()", "mxla.numpy.max()"),
    (lambda x: np.where(x > 0, x, 0), "numpy.where()", "mxla.numpy.where()"),
    (lambda x: np.add.reduce(x), "numpy.add.reduce()", "mxla.numpy.sum()"),
])
def test_numpy_functions_name_the_mxla_function_to_call(function, numpy_name, mxla_name):
    message = trace_error(function, f32(2, 3))
    assert message.startswith(f"{numpy_name} was called on a traced value"), message
    assert message.endswith(f"call {mxla_name} instead"), message


def test_numpy_functions_mxla_lacks_say_so():
    message = trace_error(lambda x: np.diff(x), f32(3))
    assert message.startswith("numpy.diff() was called on a traced value")
    assert message.endswith("mxla.numpy has no diff() yet")
    message = trace_error(lambda x: np.hypot(x, 2), f32(3))
    assert message.endswith("mxla.numpy has no hypot() yet")


@pytest.mark.parametrize("function, expected", [
    (lambda x: float(x), r"^float\(\) of a traced value .*mxla.numpy.astype"),
    (lambda x: int(x), r"^int\(\) of a traced value .*mxla.numpy.astype"),
    (lambda x: x if x else -x, r"has no truth value while tracing .*mxla.numpy.where"),
    (lambda x: x if x > 0 else -x, r"has no truth value while tracing"),
    (lambda x: list(range(x)), r"cannot be an index or a size"),
    (lambda x: np.asarray(x), r"^a NumPy array cannot be made from a traced value"),
    (lambda x: np.array([x, x]), r"^a NumPy array cannot be made from a traced value"),
    (lambda x: len(x[0]), r"^len\(\) of a 0-d traced value"),
])
def test_python_conversions_of_traced_values(function, expected):
    message = trace_error(function, f32(3))
    assert re.search(expected, message), message


def test_numpy_operators_and_shapes_still_work():
    @mxla.jit
    def mixed(x):
        rows = [row * 2 for row in x]  # iteration over the first axis
        return np.ones(3, np.float32) + x, np.float32(2) * x, np.ones(3) < x, \
            rows[1], len(x)

    xs = f32(2, 3)
    plus, times, less, row, length = mixed(xs)
    np.testing.assert_array_equal(plus, 1 + xs)
    np.testing.assert_array_equal(times, 2 * xs)
    np.testing.assert_array_equal(less, 1 < xs)
    np.testing.assert_array_equal(row, xs[1] * 2)
    assert length == 2
