"""mxla.random: the same key gives the same bits eagerly, under jit and at
every thread count; split keys give different streams; each distribution
has the moments and range it should (tolerances of 5 standard errors);
bad keys, dtypes and ranges are refused by name."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import mxla

N = 100_000


def test_the_same_key_gives_the_same_numbers_eagerly_and_under_jit():
    k = mxla.random.key(7)
    eager = mxla.random.normal(k, (4, 5))
    traced = mxla.jit(lambda k: mxla.random.normal(k, (4, 5)))(k)
    np.testing.assert_array_equal(eager, traced)
    np.testing.assert_array_equal(eager, mxla.random.normal(k, (4, 5)))
    assert eager.dtype == np.float32 and eager.shape == (4, 5)


def test_numbers_do_not_depend_on_the_thread_count():
    script = ("import numpy as np, mxla, sys; k = mxla.random.key(3); "
              "np.save(sys.stdout.buffer, np.concatenate([mxla.random.uniform("
              "k, (300000,)), mxla.random.normal(k, (1000,))]))")
    runs = []
    for threads in ("1", "2"):
        env = dict(os.environ, MXLA_THREADS=threads)
        out = subprocess.run([sys.executable, "-c", script], env=env,
                             capture_output=True, check=True).stdout
        runs.append(out)
    assert runs[0] == runs[1]


def test_split_keys_are_distinct_and_their_streams_differ():
    k = mxla.random.key(0)
    keys = mxla.random.split(k, 4)
    assert keys.shape == (4, 2) and keys.dtype == np.uint64
    assert len({tuple(row) for row in keys}) == 4
    draws = [mxla.random.uniform(row, (1000,)) for row in keys]
    for i in range(4):
        for j in range(i):
            assert abs(np.corrcoef(draws[i], draws[j])[0, 1]) < 0.15
    np.testing.assert_array_equal(mxla.random.split(k, 4), keys)
    k1, k2 = mxla.random.split(k)
    assert not np.array_equal(k1, k2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_range_and_moments(dtype):
    u = mxla.random.uniform(mxla.random.key(1), (N,), dtype)
    assert u.dtype == dtype
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / N)
    v = mxla.random.uniform(mxla.random.key(2), (N,), dtype, -3.0, 5.0)
    assert v.min() >= -3 and v.max() < 5
    assert abs(v.mean() - 1.0) < 5 * 8 * np.sqrt(1 / 12 / N)


def test_normal_moments_and_tails():
    z = mxla.random.normal(mxla.random.key(4), (N,), np.float64)
    assert abs(z.mean()) < 5 / np.sqrt(N)
    assert abs(z.std() - 1) < 5 * np.sqrt(0.5 / N)
    assert abs(np.mean(np.abs(z) > 1.96) - 0.05) < 5 * np.sqrt(0.05 * 0.95 / N)
    assert np.isfinite(z).all()


def test_bernoulli_randint_and_permutation():
    b = mxla.random.bernoulli(mxla.random.key(5), 0.3, (N,))
    assert b.dtype == np.bool_
    assert abs(b.mean() - 0.3) < 5 * np.sqrt(0.21 / N)
    r = mxla.random.randint(mxla.random.key(6), (N,), -3, 7)
    assert r.dtype == np.int32 and r.min() == -3 and r.max() == 6
    counts = np.bincount(r + 3)
    assert np.all(np.abs(counts - N / 10) < 5 * np.sqrt(N * 0.09))
    p = mxla.random.permutation(mxla.random.key(8), 50)
    np.testing.assert_array_equal(np.sort(p), np.arange(50))
    assert not np.array_equal(p, np.arange(50))
    rows = np.arange(12).reshape(6, 2)
    shuffled = mxla.random.permutation(mxla.random.key(8), rows)
    np.testing.assert_array_equal(np.sort(shuffled[:, 0]), rows[:, 0])
    np.testing.assert_array_equal(shuffled[:, 1] - shuffled[:, 0], 1)


def test_refusals():
    with pytest.raises(TypeError, match="a key is uint64\\[2\\]"):
        mxla.random.uniform(np.zeros(3, np.uint64), (2,))
    with pytest.raises(TypeError, match="float16 is not supported"):
        mxla.random.uniform(mxla.random.key(0), (2,), np.float16)
    with pytest.raises(ValueError, match="empty range \\[3, 3\\)"):
        mxla.random.randint(mxla.random.key(0), (2,), 3, 3)
    with pytest.raises(OverflowError, match="does not fit int8"):
        mxla.random.randint(mxla.random.key(0), (2,), 0, 300, np.int8)
    with pytest.raises(OverflowError, match="does not fit 64 bits"):
        mxla.random.key(1 << 64)
