"""The op bindings that take computations, index operands, random numbers,
linear algebra, batch normalization and element bits, against NumPy."""
import numpy as np
import pytest

import mxla

RNG = np.random.default_rng(5)


def f32(*dims):
    return RNG.uniform(-2, 2, dims).astype(np.float32)


def scalar_computation(name, body, dtype=np.float32, arity=2):
    """A computation of `arity` scalars of `dtype` returning body(*params)."""
    b = mxla.XlaBuilder(name)
    params = [mxla.Parameter(b, i, dtype, (), f"p{i}") for i in range(arity)]
    return b.build(body(*params))


def test_map_and_sort():
    x, y = f32(5), f32(5)
    b = mxla.XlaBuilder("map_sort")
    xp = mxla.Parameter(b, 0, np.float32, (5,), "x")
    yp = mxla.Parameter(b, 1, np.float32, (5,), "y")
    mapped = mxla.Map([xp, yp], scalar_computation("fma", lambda a, c: a * c + 1.0), (0,))
    ordered = mxla.Sort([xp], scalar_computation("less", mxla.Lt))
    exe = mxla.compile(b.build(mxla.Tuple([mapped, ordered])))
    got_mapped, got_sorted = exe(x, y)
    np.testing.assert_allclose(got_mapped, x * y + 1, rtol=1e-6)
    np.testing.assert_array_equal(got_sorted, np.sort(x))


def test_while_conditional_and_call():
    # while i < 10: i = i * 2 + 1
    condition = scalar_computation("cond", lambda i: mxla.Lt(i, 10), np.int32, 1)
    body = scalar_computation("body", lambda i: i * 2 + 1, np.int32, 1)
    b = mxla.XlaBuilder("control")
    start = mxla.Parameter(b, 0, np.int32, (), "start")
    looped = mxla.While(condition, body, start)
    negate = scalar_computation("neg", mxla.Neg, np.int32, 1)
    same = scalar_computation("same", lambda v: v + 0, np.int32, 1)
    chosen = mxla.Conditional(mxla.Gt(looped, 12), looped, negate, looped, same)
    called = mxla.Call(b, scalar_computation("twice", lambda v: v * 2, np.int32, 1), [chosen])
    exe = mxla.compile(b.build(called))
    for start_value in (0, 5, 20):
        i = start_value
        while i < 10:
            i = i * 2 + 1
        expected = 2 * (-i if i > 12 else i)
        assert exe(np.int32(start_value)) == expected


def test_pad_and_dynamic_slices():
    x = f32(3, 4)
    b = mxla.XlaBuilder("index")
    xp = mxla.Parameter(b, 0, np.float32, (3, 4), "x")
    start = mxla.Parameter(b, 1, np.int32, (), "start")
    padded = mxla.Pad(xp, 0.0, low=(1, 0), high=(0, 2), interior=(0, 1))
    window = mxla.DynamicSlice(xp, [start, start], (2, 2))
    updated = mxla.DynamicUpdateSlice(xp, mxla.Constant(b, np.ones((1, 2), np.float32)),
                                      [start, start])
    exe = mxla.compile(b.build(mxla.Tuple([padded, window, updated])))
    got_padded, got_window, got_updated = exe(x, np.int32(1))
    expected = np.zeros((4, 9), np.float32)
    expected[1:, 0:7:2] = x
    np.testing.assert_array_equal(got_padded, expected)
    np.testing.assert_array_equal(got_window, x[1:3, 1:3])
    want = x.copy()
    want[1, 1:3] = 1
    np.testing.assert_array_equal(got_updated, want)
    with pytest.raises(mxla.Error, match=r"Pad\(f32\[3,4\]\) at .*test_structured_ops.py:[0-9]+: "
                                         r"low, high and interior need one entry per dimension \(2\)"):
        mxla.Pad(xp, 0.0, low=(1,), high=(0, 2))


def test_numeric_ops():
    x = np.array([1.0, np.inf, -np.nan, 3.14159], np.float32)
    b = mxla.XlaBuilder("numeric")
    xp = mxla.Parameter(b, 0, np.float32, (4,), "x")
    finite = mxla.IsFinite(xp)
    bits = mxla.BitcastConvertType(xp, np.uint32)
    rounded = mxla.ReducePrecision(xp, 5, 10)  # to f16's precision
    exe = mxla.compile(b.build(mxla.Tuple([finite, bits, rounded])))
    got_finite, got_bits, got_rounded = exe(x)
    np.testing.assert_array_equal(got_finite, np.isfinite(x))
    np.testing.assert_array_equal(got_bits, x.view(np.uint32))
    np.testing.assert_array_equal(got_rounded[[0, 1, 3]],
                                  x.astype(np.float16).astype(np.float32)[[0, 1, 3]])


def test_random_linear_algebra_and_batch_norm():
    b = mxla.XlaBuilder("numbers")
    lo = mxla.Constant(b, np.float32(2))
    uniform = mxla.RngUniform(lo, 3.0, (1000,))
    a = mxla.Parameter(b, 0, np.float32, (3, 3), "a")
    chol = mxla.Cholesky(a, lower=True)
    exe = mxla.compile(b.build(mxla.Tuple([uniform, chol])))
    m = f32(3, 3)
    spd = (m @ m.T + 3 * np.eye(3)).astype(np.float32)
    got_uniform, got_chol = exe(spd)
    assert got_uniform.min() >= 2 and got_uniform.max() < 3
    np.testing.assert_allclose(np.tril(got_chol), np.linalg.cholesky(spd), rtol=1e-5, atol=1e-5)

    x, scale, offset = f32(4, 3), f32(3), f32(3)
    mean, var = x.mean(axis=0), x.var(axis=0)
    b2 = mxla.XlaBuilder("bn")
    params = [mxla.Parameter(b2, i, np.float32, v.shape, f"p{i}")
              for i, v in enumerate((x, scale, offset, mean, var))]
    exe2 = mxla.compile(b2.build(mxla.BatchNormInference(*params, epsilon=1e-3, feature_index=1)))
    expected = (x - mean) / np.sqrt(var + np.float32(1e-3)) * scale + offset
    np.testing.assert_allclose(exe2(x, scale, offset, mean, var), expected, rtol=1e-5, atol=1e-5)


def test_gather_scatter():
    table = f32(5, 3)
    rows = np.array([4, 0, 2], np.int32)
    b = mxla.XlaBuilder("gather")
    t = mxla.Parameter(b, 0, np.float32, (5, 3), "table")
    i = mxla.Parameter(b, 1, np.int32, (3,), "rows")
    gathered = mxla.Gather(t, i, offset_dims=(1,), collapsed_slice_dims=(0,),
                           start_index_map=(0,), index_vector_dim=1, slice_sizes=(1, 3))
    add = scalar_computation("add", mxla.Add)
    scattered = mxla.Scatter(t, i, mxla.Constant(b, np.ones((3, 3), np.float32)), add,
                             update_window_dims=(1,), inserted_window_dims=(0,),
                             scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    got_gathered, got_scattered = mxla.compile(b.build(mxla.Tuple([gathered, scattered])))(table, rows)
    np.testing.assert_array_equal(got_gathered, table[rows])
    want = table.copy()
    want[rows] += 1
    np.testing.assert_array_equal(got_scattered, want)


def test_convolution_and_windows():
    x, k = f32(1, 6, 6, 2), f32(3, 3, 2, 4)
    b = mxla.XlaBuilder("conv")
    xp = mxla.Parameter(b, 0, np.float32, x.shape, "x")
    kp = mxla.Parameter(b, 1, np.float32, k.shape, "k")
    conv = mxla.ConvGeneralDilated(xp, kp, "b01f_01io->b01f", padding=((1, 1), (1, 1)))
    pooled = mxla.ReduceWindow(xp, -np.inf, scalar_computation("max", mxla.Max),
                               window_dimensions=(1, 2, 2, 1), window_strides=(1, 2, 2, 1))
    got_conv, got_pool = mxla.compile(b.build(mxla.Tuple([conv, pooled])))(x, k)
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.zeros((1, 6, 6, 4), np.float64)
    for r in range(6):
        for c in range(6):
            want[0, r, c] = np.einsum("hwi,hwio->o", padded[0, r:r + 3, c:c + 3], k)
    np.testing.assert_allclose(got_conv, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got_pool, x.reshape(1, 3, 2, 3, 2, 2).max(axis=(2, 4)))
    with pytest.raises(mxla.Error, match="b01f"):
        mxla.ConvGeneralDilated(xp, kp, "b01f_01io->bxyz")


def test_triangular_solve_and_its_errors():
    a = np.tril(f32(3, 3)) + 4 * np.eye(3, dtype=np.float32)
    rhs = f32(3, 2)
    b = mxla.XlaBuilder("solve")
    ap = mxla.Parameter(b, 0, np.float32, (3, 3), "a")
    bp = mxla.Parameter(b, 1, np.float32, (3, 2), "b")
    x = mxla.TriangularSolve(ap, bp, left_side=True, lower=True)
    got = mxla.compile(b.build(x))(a, rhs)
    np.testing.assert_allclose(a @ got, rhs, rtol=1e-4, atol=1e-5)
    with pytest.raises(mxla.Error, match="transpose_a 'T' is not NO_TRANSPOSE, TRANSPOSE or ADJOINT"):
        mxla.TriangularSolve(ap, bp, left_side=True, lower=True, transpose_a="T")


def test_variadic_reduce_random_bits_and_scaled_dot():
    x = f32(4, 6)
    b = mxla.XlaBuilder("system")
    xp = mxla.Parameter(b, 0, np.float32, (4, 6), "x")
    index = mxla.Iota(b, np.int32, (4, 6), 1)

    # argmax along rows: (value, index) pairs, the larger value (first index on ties)
    rb = mxla.XlaBuilder("argmax")
    v0, i0, v1, i1 = (mxla.Parameter(rb, n, t, (), f"p{n}")
                      for n, t in enumerate((np.float32, np.int32, np.float32, np.int32)))
    take_first = mxla.Ge(v0, v1)
    argmax = rb.build(mxla.Tuple([mxla.Select(take_first, v0, v1), mxla.Select(take_first, i0, i1)]))
    reduced = mxla.ReduceVariadic([xp, index], [mxla.Constant(b, np.float32(-np.inf)),
                                                mxla.Constant(b, np.int32(0))], argmax, (1,))
    state = mxla.Constant(b, np.array([1, 2], np.uint64))
    bits = mxla.RngBitGenerator("rng_philox", state, np.uint32, (8,))
    scaled = mxla.ScaledDot(xp, mxla.Constant(b, np.ones((6, 2), np.float32)),
                            mxla.Constant(b, np.float32(2)), mxla.Constant(b, np.float32(0.5)),
                            lhs_contracting_dims=(1,), rhs_contracting_dims=(0,))
    size = mxla.GetDimensionSize(xp, 1)
    barrier = mxla.OptimizationBarrier(xp)
    replica = mxla.ReplicaId(b)
    summed = mxla.AllReduce(xp, scalar_computation("add", mxla.Add), [[0]])
    exe = mxla.compile(b.build(mxla.Tuple([reduced, bits, scaled, size, barrier, replica, summed])))
    (values, indices), (new_state, random_bits), dot, got_size, same, got_replica, all_reduced = exe(x)
    np.testing.assert_array_equal(values, x.max(axis=1))
    np.testing.assert_array_equal(indices, x.argmax(axis=1))
    assert random_bits.dtype == np.uint32 and random_bits.shape == (8,)
    assert new_state.dtype == np.uint64 and not np.array_equal(new_state, [1, 2])
    again = exe(x)[1][1]
    np.testing.assert_array_equal(random_bits, again)  # a pure function of the state
    np.testing.assert_allclose(dot, x.sum(axis=1, keepdims=True).repeat(2, axis=1), rtol=1e-5)
    assert got_size == 6 and got_replica == 0
    np.testing.assert_array_equal(same, x)
    np.testing.assert_array_equal(all_reduced, x)


def test_system_op_errors():
    def builder_with_x(name):
        b = mxla.XlaBuilder(name)
        return b, mxla.Parameter(b, 0, np.float32, (4,), "x")

    b, x = builder_with_x("custom")
    with pytest.raises(mxla.Error, match=r'CustomCall\(f32\[4\], call_target_name="fancy"\) at '
                                         r'.*test_structured_ops.py:[0-9]+: .*'
                                         r'custom_call_target "fancy" is not supported'):
        mxla.CustomCall(b, "fancy", [x], np.float32, (4,))
    b, x = builder_with_x("all_reduce")
    # Two participants build (the groups are valid); one device cannot run them.
    two = b.build(mxla.AllReduce(x, scalar_computation("add", mxla.Add), [[0, 1]]))
    with pytest.raises(mxla.Error, match=r"replica id 1 in replica group \{0,1\} is outside \[0, 1\)"):
        mxla.compile(two)
    b, x = builder_with_x("all_gather")
    with pytest.raises(mxla.Error, match="gathered 4 times along dimension 0, but each group has 2 devices"):
        mxla.AllGather(x, 0, 4, [[0, 1]])
    b, x = builder_with_x("rng")
    with pytest.raises(mxla.Error, match="rng_fast"):
        mxla.RngBitGenerator("rng_fast", mxla.Constant(b, np.array([1, 2], np.uint64)),
                             np.uint32, (4,))


def test_remaining_ops():
    x = f32(4, 4)
    b = mxla.XlaBuilder("rest")
    xp = mxla.Parameter(b, 0, np.float32, (4, 4), "x")
    clamped = mxla.Clamp(mxla.Constant(b, np.float32(-1)), xp, mxla.Constant(b, np.float32(1)))
    broadcast = mxla.Broadcast(mxla.Constant(b, np.float32(2)), (2, 3))
    # select-and-scatter: each 2x2 window's max gets the window's source value
    source = mxla.Constant(b, np.arange(4, dtype=np.float32).reshape(2, 2) + 1)
    scattered = mxla.SelectAndScatter(xp, scalar_computation("ge", mxla.Ge), (2, 2), (2, 2),
                                      ((0, 0), (0, 0)), source, 0.0, scalar_computation("add", mxla.Add))
    normal = mxla.RngNormal(mxla.Constant(b, np.float32(0)), 1.0, (4000,))
    stats = mxla.BatchNormTraining(xp, mxla.Constant(b, np.ones(4, np.float32)),
                                   mxla.Constant(b, np.zeros(4, np.float32)), 1e-3, 1)
    gathered = mxla.AllGather(xp, 0, 1, [[0]])
    permuted = mxla.CollectivePermute(xp, [(0, 0)])
    partition = mxla.PartitionId(b)
    exe = mxla.compile(b.build(mxla.Tuple([clamped, broadcast, scattered, normal, stats,
                                           gathered, permuted, partition])))
    got = exe(x)
    np.testing.assert_array_equal(got[0], np.clip(x, -1, 1))
    np.testing.assert_array_equal(got[1], np.full((2, 3), 2, np.float32))
    want = np.zeros((4, 4), np.float32)
    for r in range(2):
        for c in range(2):
            window = x[2 * r:2 * r + 2, 2 * c:2 * c + 2]
            i, j = np.unravel_index(np.argmax(window), (2, 2))
            want[2 * r + i, 2 * c + j] = 2 * r + c + 1
    np.testing.assert_array_equal(got[2], want)
    assert abs(got[3].mean()) < 0.1 and abs(got[3].std() - 1) < 0.1
    normalized, mean, var = got[4]
    np.testing.assert_allclose(mean, x.mean(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, x.var(axis=0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(normalized, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got[5], x)
    np.testing.assert_array_equal(got[6], x)
    assert got[7] == 0


def test_collectives_conversions_and_tokens():
    x = f32(4, 4)
    b = mxla.XlaBuilder("more")
    xp = mxla.Parameter(b, 0, np.float32, (4, 4), "x")
    add = scalar_computation("add", mxla.Add)
    outs = [mxla.ReduceScatter(xp, add, 0, 1, [[0]]),
            mxla.AllToAll(xp, 0, 1, 1, [[0]]),
            mxla.CollectiveBroadcast(xp, [[0]])]
    random = mxla.Constant(b, np.array([0, 0xFFFFFFFF], np.uint32))
    halves = mxla.Constant(b, np.array([1.5, 1.5], np.float32))
    outs.append(mxla.StochasticConvertType(halves, random, np.int32))
    scale, mean, var, grad = (mxla.Constant(b, v) for v in (
        np.ones(4, np.float32), x.mean(0), x.var(0), np.ones((4, 4), np.float32)))
    outs.append(mxla.BatchNormGrad(xp, scale, mean, var, grad, 1e-3, 1))
    exe = mxla.compile(b.build(mxla.Tuple(outs)))
    got = exe(x)
    for i in range(3):
        np.testing.assert_array_equal(got[i], x)
    assert got[3].tolist() == [2, 1]  # random 0 rounds 1.5 up, the highest down
    grad_operand, grad_scale, grad_offset = got[4]
    np.testing.assert_allclose(grad_offset, np.full(4, 4, np.float32))
    np.testing.assert_allclose(grad_scale, np.zeros(4), atol=1e-5)
    # An outfeed needs a host feed, which Python executables do not have yet.
    fb = mxla.XlaBuilder("feeds")
    fx = mxla.Parameter(fb, 0, np.float32, (4, 4), "x")
    mxla.OutfeedWithToken(fx, mxla.AfterAll(fb, [mxla.CreateToken(fb)]))
    with pytest.raises(mxla.Error, match=r"outfeed 'outfeed.*': the run has no host feed"):
        mxla.compile(fb.build(fx))(x)
    ib = mxla.XlaBuilder("infeed")
    fed = mxla.InfeedWithToken(mxla.CreateToken(ib), np.float32, (2,))
    with pytest.raises(mxla.Error, match=r"infeed 'infeed.*': the run has no host feed"):
        mxla.compile(ib.build(mxla.GetTupleElement(fed, 0)))()
    # A custom call with a CPU meaning: the identity markers.
    cb = mxla.XlaBuilder("sharding")
    cx = mxla.Parameter(cb, 0, np.float32, (4, 4), "x")
    marked = mxla.CustomCall(cb, "Sharding", [cx], np.float32, (4, 4))
    np.testing.assert_array_equal(mxla.compile(cb.build(marked))(x), x)
