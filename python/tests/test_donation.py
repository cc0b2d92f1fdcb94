"""Donation from Python: a parameter aliased to a result element
(XlaBuilder.set_up_alias) is updated in place when the call passes
donate=True, and the call returns the argument array itself; without it
the argument is never written. Bad aliases are mxla.Errors naming both
sides."""
import numpy as np
import pytest

import mxla

RNG = np.random.default_rng(36)


def update_at(alias=True):
    """(x f32[1000], v f32[3], i s32[]) -> (DUS(x, v, i), v * 2)."""
    b = mxla.XlaBuilder("update_at")
    x = mxla.Parameter(b, 0, np.float32, (1000,), "x")
    v = mxla.Parameter(b, 1, np.float32, (3,), "v")
    i = mxla.Parameter(b, 2, np.int32, (), "i")
    mxla.Tuple([mxla.DynamicUpdateSlice(x, v, [i]), v * v])
    if alias:
        b.set_up_alias((0,), 0)
    return b.build()


def expected(x, v, i):
    out = x.copy()
    start = min(max(int(i), 0), x.size - v.size)
    out[start:start + v.size] = v
    return out, v * v


@pytest.mark.parametrize("backend", ["jit", "interpreter"])
def test_donated_argument_holds_the_result(backend):
    exe = mxla.compile(update_at(), backend=backend)
    assert exe.input_output_alias == [((0,), 0, ())]
    x = RNG.uniform(-2, 2, 1000).astype(np.float32)
    v = RNG.uniform(-2, 2, 3).astype(np.float32)
    i = np.int32(998)  # clamps to 997
    want = expected(x, v, i)

    kept = x.copy()
    out, sq = exe(x, v, i)  # not donated: x is left alone
    assert np.array_equal(x, kept)
    assert out is not x
    np.testing.assert_array_equal(out, want[0])

    out, sq = exe(x, v, i, donate=True)
    assert out is x  # the result is the donated array itself
    np.testing.assert_array_equal(x, want[0])
    np.testing.assert_array_equal(sq, want[1])


def test_donating_a_copy_leaves_the_argument_alone():
    exe = mxla.compile(update_at())
    base = RNG.uniform(-2, 2, 2000).astype(np.float32)
    x = base[::2]  # strided: the call copies it, and donates the copy
    kept = x.copy()
    v = np.ones(3, np.float32)
    out, _ = exe(x, v, np.int32(4), donate=True)
    assert out is not x
    assert np.array_equal(x, kept)
    np.testing.assert_array_equal(out, expected(kept, v, 4)[0])


def test_read_only_donation_is_an_error():
    exe = mxla.compile(update_at())
    x = np.zeros(1000, np.float32)
    x.setflags(write=False)
    with pytest.raises(mxla.Error, match="argument 0 is donated .* read-only"):
        exe(x, np.ones(3, np.float32), np.int32(5), donate=True)
    # Without donation a read-only argument is fine.
    out, _ = exe(x, np.ones(3, np.float32), np.int32(5))
    assert out[5:8].tolist() == [1, 1, 1]


def test_donation_without_an_alias_changes_nothing():
    exe = mxla.compile(update_at(alias=False))
    assert exe.input_output_alias == []
    x = np.zeros(1000, np.float32)
    out, _ = exe(x, np.ones(3, np.float32), np.int32(5), donate=True)
    assert out is not x and not x.any()


def test_bad_aliases_name_both_sides():
    b = mxla.XlaBuilder("bad")
    x = mxla.Parameter(b, 0, np.float32, (4,), "x")
    mxla.Tuple([x, mxla.ConvertElementType(x, np.float16)])
    b.set_up_alias((1,), 0)
    with pytest.raises(mxla.Error,
                       match=r"output \{1\} is f16\[4\] \(8 bytes\) but "
                             r"parameter 0 \{\} it aliases is f32\[4\] "
                             r"\(16 bytes\)"):
        b.build()
    b2 = mxla.XlaBuilder("twice")
    y = mxla.Parameter(b2, 0, np.float32, (4,), "y")
    mxla.Tuple([y, y])
    b2.set_up_alias((0,), 0)
    b2.set_up_alias((1,), 0)
    with pytest.raises(mxla.Error, match=r"parameter 0 \{\} is donated twice"):
        b2.build()
