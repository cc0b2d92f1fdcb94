"""A result aliased to a parameter (input_output_alias) that the
computation passes through unchanged comes back as the argument array
itself (no copy), as XLA's ResNet-50 module returns its state; a read-only
argument, one donated in the call, one aliased elsewhere, or a pass-through
without an alias still gets a result array of its own. Values are always
the computation's."""
import numpy as np
import pytest

import mxla

RNG = np.random.default_rng(38)


def pass_through(alias_to=None):
    """(x f32[64], y f32[64]) -> (x, y * 2, x); with alias_to=k, x aliased
    to result k."""
    b = mxla.XlaBuilder("pass_through")
    x = mxla.Parameter(b, 0, np.float32, (64,), "x")
    y = mxla.Parameter(b, 1, np.float32, (64,), "y")
    mxla.Tuple([x, y + y, x])
    if alias_to is not None:
        b.set_up_alias((alias_to,), 0)
    return b.build()


@pytest.mark.parametrize("backend", ["jit", "interpreter"])
def test_aliased_pass_through_is_the_argument_array(backend):
    exe = mxla.compile(pass_through(alias_to=0), backend=backend)
    x = RNG.uniform(-1, 1, 64).astype(np.float32)
    y = RNG.uniform(-1, 1, 64).astype(np.float32)
    kept = x.copy()
    a, doubled, b = exe(x, y)
    assert a is x
    assert b is not x  # the same parameter again, not aliased: a copy
    np.testing.assert_array_equal(b, kept)
    np.testing.assert_array_equal(x, kept)
    np.testing.assert_array_equal(doubled, y + y)


def test_pass_through_without_an_alias_is_a_copy():
    exe = mxla.compile(pass_through())
    x = RNG.uniform(-1, 1, 64).astype(np.float32)
    a, _, b = exe(x, np.zeros(64, np.float32))
    assert a is not x and b is not x
    np.testing.assert_array_equal(a, x)


def test_read_only_arguments_are_copied():
    exe = mxla.compile(pass_through(alias_to=0))
    x = RNG.uniform(-1, 1, 64).astype(np.float32)
    x.setflags(write=False)
    a, _, b = exe(x, np.zeros(64, np.float32))
    assert a is not x and b is not x
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x)


def test_an_argument_copied_for_its_layout_comes_back_as_that_copy():
    exe = mxla.compile(pass_through(alias_to=0))
    base = RNG.uniform(-1, 1, 128).astype(np.float32)
    x = base[::2]  # strided: the call makes a contiguous copy
    a, _, _ = exe(x, np.zeros(64, np.float32))
    assert a is not x
    np.testing.assert_array_equal(a, x)


def test_parameter_updated_elsewhere_is_not_forwarded():
    """x aliased to result 0 = DUS(x, v): a run without donation updates a
    copy of x, so result 1 (x itself) must be the old value, in an array
    of its own, and x is never written."""
    b = mxla.XlaBuilder("updated_elsewhere")
    x = mxla.Parameter(b, 0, np.float32, (16,), "x")
    v = mxla.Parameter(b, 1, np.float32, (2,), "v")
    i = mxla.Parameter(b, 2, np.int32, (), "i")
    mxla.Tuple([mxla.DynamicUpdateSlice(x, v, [i]), x])
    b.set_up_alias((0,), 0)
    for backend in ("jit", "interpreter"):
        exe = mxla.compile(b.build(), backend=backend)
        x_in = RNG.uniform(-1, 1, 16).astype(np.float32)
        kept = x_in.copy()
        updated, same = exe(x_in, np.full(2, 7, np.float32), np.int32(3))
        np.testing.assert_array_equal(x_in, kept)
        np.testing.assert_array_equal(same, kept)
        assert updated[3] == 7 and updated[4] == 7


def test_donated_argument_is_not_also_forwarded():
    b = mxla.XlaBuilder("donated")
    x = mxla.Parameter(b, 0, np.float32, (16,), "x")
    v = mxla.Parameter(b, 1, np.float32, (2,), "v")
    i = mxla.Parameter(b, 2, np.int32, (), "i")
    mxla.Tuple([mxla.DynamicUpdateSlice(x, v, [i]), x])
    b.set_up_alias((0,), 0)
    exe = mxla.compile(b.build())
    x_in = RNG.uniform(-1, 1, 16).astype(np.float32)
    kept = x_in.copy()
    updated, same = exe(x_in, np.full(2, 7, np.float32), np.int32(3),
                        donate=True)
    assert updated is x_in
    assert same is not x_in
    np.testing.assert_array_equal(same, kept)
