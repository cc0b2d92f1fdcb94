"""Programs on several in-process devices from Python: the builder's
collectives compiled with mxla.compile(..., replicas=N) and run with
Executable.run_devices; mxla.lax's psum, pmean, pmax, pmin, all_gather
and axis_index under mxla.pmap; and the errors, which name what is
wrong."""
import numpy as np
import pytest

import mxla
import mxla.numpy as mnp
from mxla import lax

RNG = np.random.default_rng(39)


def sum_over_replicas(dims=(3,)):
    """x -> (all-reduce(x) with add, replica-id) on f32[dims]."""
    b = mxla.XlaBuilder("sum_over_replicas")
    x = mxla.Parameter(b, 0, np.float32, dims, "x")
    total = mxla.AllReduce(x, mxla.CreateScalarAddComputation(np.float32, b))
    return b.build(mxla.Tuple([total, mxla.ReplicaId(b)]))


@pytest.mark.parametrize("backend", ["jit", "interpreter"])
def test_builder_all_reduce_runs_on_each_device(backend):
    exe = mxla.compile(sum_over_replicas(), backend=backend, replicas=3)
    assert (exe.replicas, exe.partitions) == (3, 1)
    xs = [RNG.standard_normal(3).astype(np.float32) for _ in range(3)]
    results = exe.run_devices([(x,) for x in xs])
    assert len(results) == 3
    expected = (xs[0] + xs[1]) + xs[2]
    for d, (total, replica) in enumerate(results):
        np.testing.assert_allclose(total, expected, rtol=1e-6)
        assert replica.dtype == np.uint32 and int(replica) == d
    # Every device sums the same values in the same order: the same bits.
    assert all(np.array_equal(r[0], results[0][0]) for r in results)


def test_shared_arguments_go_to_every_device():
    exe = mxla.compile(sum_over_replicas(), replicas=2)
    x = np.arange(3, dtype=np.float32)
    results = exe.run_devices(shared=(x,))
    for total, _ in results:
        np.testing.assert_array_equal(total, 2 * x)


def test_compile_hlo_takes_the_modules_replica_count():
    exe = mxla.compile_hlo("""HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[2] parameter(0)
  ROOT s = f32[2] all-reduce(x), replica_groups={}, to_apply=add
}
""")
    assert exe.replicas == 2
    a, b = np.float32([1, 2]), np.float32([10, 20])
    for result in exe.run_devices([[a], [b]]):
        np.testing.assert_array_equal(result, a + b)


def test_a_one_device_executable_runs_on_one_device():
    exe = mxla.compile(sum_over_replicas())
    x = np.ones(3, np.float32)
    (total, replica), = exe.run_devices([(x,)])
    np.testing.assert_array_equal(total, x)
    assert int(replica) == 0


def test_wrong_device_count_names_the_counts():
    exe = mxla.compile(sum_over_replicas())
    x = np.ones(3, np.float32)
    with pytest.raises(mxla.Error) as error:
        exe.run_devices([(x,), (x,)])
    assert error.value.code == "INVALID_ARGUMENT"
    assert str(error.value) == (
        "run_devices: 2 argument lists for 1 device (1 replica x 1 "
        "partition); mxla.compile(..., replicas=R, partitions=P) compiles "
        "for R x P devices")


def test_calling_a_several_device_executable_is_refused():
    exe = mxla.compile(sum_over_replicas(), replicas=2)
    with pytest.raises(mxla.Error, match=r"compiled for 2 devices \(2 "
                       r"replicas x 1 partition\); run it with run_devices"):
        exe(np.ones(3, np.float32))


def test_device_argument_errors_name_the_device():
    exe = mxla.compile(sum_over_replicas(), replicas=2)
    good = np.ones(3, np.float32)
    with pytest.raises(mxla.Error, match=r"^device 1: argument 0: expected "
                       r"f32\[3\], got f32\[4\]"):
        exe.run_devices([(good,), (np.ones(4, np.float32),)])
    with pytest.raises(mxla.Error, match=r"^device 0: expected 1 arguments "
                       r"\(one per parameter\), got 2"):
        exe.run_devices([(good, good), (good,)])
    with pytest.raises(mxla.Error, match=r"^device 1: expected a list or "
                       r"tuple, got ndarray"):
        exe.run_devices([(good,), good])
    with pytest.raises(mxla.Error, match="not both or neither"):
        exe.run_devices()
    with pytest.raises(mxla.Error, match="not both or neither"):
        exe.run_devices([(good,), (good,)], shared=(good,))


def test_replicas_below_one_is_refused():
    with pytest.raises(mxla.Error, match="replicas must be at least 1; got 0"):
        mxla.compile(sum_over_replicas(), replicas=0)


def test_pmap_psum_pmean_and_axis_index():
    @mxla.pmap
    def f(x):
        return lax.psum(x), lax.pmean(x), lax.axis_index(), x * 2

    x = RNG.standard_normal((4, 5)).astype(np.float32)
    total, mean, index, doubled = f(x)
    assert total.shape == (4, 5) and index.dtype == np.int32
    np.testing.assert_allclose(total, np.broadcast_to(x.sum(0), (4, 5)), rtol=1e-5)
    np.testing.assert_allclose(mean, np.broadcast_to(x.mean(0), (4, 5)), rtol=1e-5)
    np.testing.assert_array_equal(index, np.arange(4))
    np.testing.assert_array_equal(doubled, 2 * x)
    assert "all-reduce" in f.lower(x).as_text()


def test_pmap_pmax_pmin_all_gather_and_pytrees():
    @mxla.pmap(axis_name="i")
    def f(tree):
        gathered = lax.all_gather(tree["a"], "i")
        tiled = lax.all_gather(tree["a"], "i", axis=0, tiled=True)
        return {"max": lax.pmax(tree["a"], "i"), "min": lax.pmin(tree["b"], "i"),
                "gathered": gathered, "tiled": tiled}

    a = RNG.standard_normal((3, 2)).astype(np.float32)
    b = RNG.integers(-9, 9, (3, 4)).astype(np.int32)
    out = f({"a": a, "b": b})
    np.testing.assert_array_equal(out["max"], np.broadcast_to(a.max(0), (3, 2)))
    np.testing.assert_array_equal(out["min"], np.broadcast_to(b.min(0), (3, 4)))
    np.testing.assert_array_equal(out["gathered"], np.stack([a] * 3))
    np.testing.assert_array_equal(out["tiled"], np.stack([a.reshape(6)] * 3))


def test_ragged_all_to_all_moves_each_peers_rows():
    # Device i sends device j its rows [off[i][j], off[i][j] + size[i][j]),
    # landing in j's output from row out_off[i][j].
    @mxla.pmap
    def f(x, output, input_offsets, send_sizes, output_offsets, recv_sizes):
        return lax.ragged_all_to_all(x, output, input_offsets, send_sizes,
                                     output_offsets, recv_sizes)

    x = (np.arange(12).reshape(2, 6) + [[0], [100]]).astype(np.float32)
    output = np.full((2, 5), -1, np.float32)
    input_offsets = np.array([[0, 2], [1, 3]], np.int32)
    send_sizes = np.array([[2, 1], [2, 3]], np.int32)
    output_offsets = np.array([[0, 0], [2, 1]], np.int32)
    recv_sizes = send_sizes.T.copy()
    got = f(x, output, input_offsets, send_sizes, output_offsets, recv_sizes)
    expected = output.copy()
    for i in range(2):
        for j in range(2):
            rows = x[i, input_offsets[i, j]:input_offsets[i, j] + send_sizes[i, j]]
            start = output_offsets[i, j]
            expected[j, start:start + len(rows)] = rows
    np.testing.assert_array_equal(got, expected)
    # A peer that sends other sizes than recv_sizes says fails the run.
    with pytest.raises(mxla.Error, match="ragged-all-to-all .*recv_sizes"):
        f(x, output, input_offsets, send_sizes, output_offsets, send_sizes)


def test_pmap_in_axes_none_passes_an_argument_whole():
    @mxla.pmap(in_axes=(0, None))
    def scale(x, s):
        return lax.psum(x * s)

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = scale(x, np.float32(3))
    np.testing.assert_array_equal(out, np.stack([3 * (x[0] + x[1])] * 2))
    assert scale.cache_size() == 1
    scale(x + 1, np.float32(2))
    assert scale.cache_size() == 1


def test_pmap_errors_name_the_argument():
    f = mxla.pmap(lambda x, y: x + y)
    with pytest.raises(ValueError, match=r"axis 0 sizes differ \(leaf 0 "
                       r"has 2, leaf 1 has 3\)"):
        f(np.zeros((2, 1)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="leaf 1 is mapped .* but is a scalar"):
        f(np.zeros((2, 1)), 1.0)
    g = mxla.pmap(lambda x, y: x + y, in_axes=(None, None))
    with pytest.raises(ValueError, match="no argument is mapped"):
        g(np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="in_axes entry 1 is not 0 or None"):
        mxla.pmap(lambda x: x, in_axes=1)(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="in_axes has 1 entries but the call "
                       "has 2 positional arguments"):
        mxla.pmap(lambda x, y: x, in_axes=(0,))(np.zeros(2), np.zeros(2))


def test_unbound_axis_names_are_refused():
    with pytest.raises(NameError, match=r"unbound axis name 'j' \(the "
                       r"enclosing mxla.pmap's axis_name is 'i'\)"):
        mxla.pmap(lambda x: lax.psum(x, "j"), axis_name="i")(np.zeros((2, 1)))
    with pytest.raises(NameError, match="no mxla.pmap is tracing here"):
        mxla.jit(lambda x: lax.psum(x, "i"))(np.zeros(2))
    with pytest.raises(TypeError, match="all_gather needs the device count"):
        mxla.jit(lambda x: lax.all_gather(x))(np.zeros(2))


def test_collectives_on_one_device_are_what_one_device_computes():
    x = RNG.standard_normal(4).astype(np.float32)
    total, mean, index = mxla.jit(
        lambda x: (lax.psum(x), lax.pmean(x), lax.axis_index()))(x)
    np.testing.assert_array_equal(total, x)
    np.testing.assert_array_equal(mean, x)
    assert int(index) == 0


def test_pmean_without_pmap_counts_the_devices_at_run_time():
    lowered = mxla.jit(lambda x: lax.pmean(x)).lower(np.zeros(2, np.float32))
    exe = mxla.compile(lowered.computation, replicas=4)
    xs = [np.float32([d, 10 * d]) for d in range(4)]
    for result in exe.run_devices([(x,) for x in xs]):
        np.testing.assert_array_equal(result, np.float32([1.5, 15]))


def test_gradient_through_psum_is_psum_of_the_cotangent():
    # Device e's loss is sum(sin(x_0 + ... + x_N-1) * w_e); device d's
    # gradient is that of every device's loss summed (JAX's psum
    # transpose): cos(y) * (w_0 + ... + w_N-1), for every d.
    def loss(x, w):
        return mnp.sum(mnp.sin(lax.psum(x, "i")) * w)

    x, w = RNG.standard_normal((2, 3, 3)), RNG.standard_normal((2, 3, 3))
    grads = mxla.pmap(mxla.grad(loss), axis_name="i")(x, w)

    def total(x):
        return np.sum(np.sin(x.sum(0)) * w)
    np.testing.assert_allclose(grads, central_differences(total, x),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grads[0], np.cos(x.sum(0)) * w.sum(0), rtol=1e-12)


def central_differences(total, x, step=1e-6):
    """d total / dx by central differences, element by element."""
    differences = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        bump = np.zeros_like(x)
        bump[index] = step
        differences[index] = (total(x + bump) - total(x - bump)) / (2 * step)
    return differences


@pytest.mark.parametrize("tiled", [False, True])
def test_gradient_through_all_gather_is_psum_scatter(tiled):
    # Device e's loss is sum(sin(gather(x)) * w_e): device d's gradient is
    # that of every device's loss summed (JAX transposes all_gather to
    # psum_scatter), d/dx_d = cos(x_d) * (w_0 + ... + w_N-1)[slice d].
    def loss(x, w):
        return mnp.sum(mnp.sin(lax.all_gather(x, "i", axis=1, tiled=tiled)) * w)

    x = RNG.standard_normal((3, 2, 2))
    gathered = (2, 6) if tiled else (2, 3, 2)
    w = RNG.standard_normal((3,) + gathered)
    grads = mxla.pmap(mxla.grad(loss), axis_name="i")(x, w)

    def total(x):
        stacked = np.concatenate(list(x), 1) if tiled else np.stack(list(x), 1)
        return np.sum(np.sin(stacked) * w)
    np.testing.assert_allclose(grads, central_differences(total, x),
                               rtol=1e-6, atol=1e-8)


def test_gradient_of_all_gather_in_f32():
    # f32 on the JIT: the mean of the gathered squares, d/dx_d = 2 x_d / N
    # summed over the N devices' losses: 2 x_d.
    def loss(x):
        return mnp.mean(lax.all_gather(x) ** 2) * x.size

    x = RNG.standard_normal((4, 3)).astype(np.float32)
    grads = mxla.pmap(mxla.grad(loss))(x)
    np.testing.assert_allclose(grads, 2 * x, rtol=1e-5)


@pytest.mark.parametrize("reduce", [lax.pmax, lax.pmin])
def test_gradient_through_pmax_and_pmin_is_refused_by_name(reduce):
    # JAX defines no derivative of pmax or pmin (neither has a JVP rule).
    def loss(x):
        return mnp.sum(reduce(x))

    with pytest.raises(mxla.Error, match=r"gradient: no rule for 'all-reduce' "
                       r"with a reducer other than add \(JAX defines no "
                       r"derivative of pmax or pmin either\)"):
        mxla.pmap(mxla.grad(loss))(np.ones((2, 3), np.float32))


def test_vmap_of_psum_sums_each_example_over_devices():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    got = mxla.pmap(mxla.vmap(lambda x: lax.psum(x)))(x)
    np.testing.assert_allclose(got, np.broadcast_to(x.sum(0), x.shape), rtol=1e-6)


def test_devices_are_placed_partition_major():
    b = mxla.XlaBuilder("where")
    mxla.Parameter(b, 0, np.float32, (), "unused")
    exe = mxla.compile(b.build(mxla.Tuple([mxla.ReplicaId(b), mxla.PartitionId(b)])),
                       replicas=2, partitions=3)
    results = exe.run_devices(shared=(np.float32(0),))
    # Device p * 2 + r is replica r of partition p.
    assert [(int(r), int(p)) for r, p in results] == [
        (d % 2, d // 2) for d in range(6)]


def test_pmap_on_the_interpreter():
    f = mxla.pmap(lambda x: (lax.psum(x), lax.axis_index()), backend="interpreter")
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    total, index = f(x)
    np.testing.assert_array_equal(total, np.stack([x.sum(0)] * 3))
    np.testing.assert_array_equal(index, np.arange(3))


def test_pmap_static_arguments_and_keywords():
    @mxla.pmap(static_broadcasted_argnums=1)
    def scaled_sum(x, times, *, y):
        return lax.psum(x * times + y)

    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    y = np.ones((2, 2), np.float32)  # keyword arguments are mapped
    out = scaled_sum(x, 3, y=y)
    np.testing.assert_array_equal(out, np.stack([(3 * x + y).sum(0)] * 2))
    scaled_sum(x, 4, y=y)
    assert scaled_sum.cache_size() == 2


# A replicated step whose state (parameter 0, aliased to result 0) passes
# through unchanged while result 1 is computed: run_devices takes the
# arrays where they are and forwards the state as a one-device call does.
FORWARDED_STATE = """HloModule step, replica_count=2, input_output_alias={ {0}: (0, {}) }
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  state = f32[4] parameter(0)
  x = f32[4] parameter(1)
  s = f32[4] all-reduce(x), replica_groups={}, to_apply=add
  ROOT t = (f32[4], f32[4]) tuple(state, s)
}
"""


@pytest.mark.parametrize("backend", ["jit", "interpreter"])
def test_run_devices_forwards_an_aliased_state_without_a_copy(backend):
    exe = mxla.compile_hlo(FORWARDED_STATE, backend=backend)
    states = [np.arange(4, dtype=np.float32) + 10 * d for d in range(2)]
    xs = [np.full(4, d + 1, np.float32) for d in range(2)]
    results = exe.run_devices([(states[d], xs[d]) for d in range(2)])
    for d, (state, total) in enumerate(results):
        assert state is states[d]  # the argument's own array
        np.testing.assert_array_equal(total, np.full(4, 3, np.float32))
        assert total.flags.owndata and total.flags.c_contiguous
    np.testing.assert_array_equal(states[1], np.arange(4) + 10)


def test_run_devices_copies_what_several_devices_read():
    exe = mxla.compile_hlo(FORWARDED_STATE)
    state = np.arange(4, dtype=np.float32)
    # Shared, or the same array given to both: each device gets its own.
    for results in (exe.run_devices(shared=(state, state)),
                    exe.run_devices([(state, state), (state, state)])):
        assert results[0][0] is not state and results[1][0] is not state
        assert results[0][0] is not results[1][0]
        for forwarded, total in results:
            np.testing.assert_array_equal(forwarded, state)
            np.testing.assert_array_equal(total, 2 * state)
    # A read-only array is not forwarded; a strided one is read as a copy.
    frozen = np.arange(4, dtype=np.float32)
    frozen.setflags(write=False)
    strided = np.arange(8, dtype=np.float32)[::2]
    results = exe.run_devices([(frozen, strided), (state, strided)])
    assert results[0][0] is not frozen and results[1][0] is state
    np.testing.assert_array_equal(results[0][0], frozen)
    np.testing.assert_array_equal(results[0][1], 2 * strided)
