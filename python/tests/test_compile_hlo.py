"""mxla.compile_hlo: an HLO text module (what `mxla run` reads) compiled
and called on NumPy arrays like mxla.compile's executables: results,
tuple roots, input_output_alias donation, and parse and argument errors
that name what is wrong."""
import numpy as np
import pytest

import mxla

RNG = np.random.default_rng(38)

CONV_RELU = """HloModule conv_relu
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[1,6,5,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  c = f32[1,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  z = f32[] constant(0)
  zb = f32[1,6,5,4] broadcast(z), dimensions={}
  r = f32[1,6,5,4] maximum(c, zb)
  s = f32[4] reduce(r, z), dimensions={0,1,2}, to_apply=add
  ROOT t = (f32[1,6,5,4], f32[4]) tuple(r, s)
}
"""


def conv_relu_reference(x, w):
    padded = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((1, 6, 5, 4))
    for dy in range(3):
        for dx in range(3):
            out += np.einsum("nhwc,co->nhwo",
                             padded[:, dy:dy + 6, dx:dx + 5, :], w[dy, dx])
    out = np.maximum(out, 0)
    return out, out.sum(axis=(0, 1, 2))


@pytest.mark.parametrize("backend", ["jit", "interpreter"])
def test_hlo_text_runs_on_numpy_arrays(backend):
    exe = mxla.compile_hlo(CONV_RELU, backend=backend)
    x = RNG.standard_normal((1, 6, 5, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)
    r, s = exe(x, w)
    want_r, want_s = conv_relu_reference(x, w)
    np.testing.assert_allclose(r, want_r, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, want_s, rtol=1e-5, atol=1e-4)
    assert "fusion" in exe.as_hlo_text() or backend == "interpreter"


def test_input_output_alias_donates():
    text = """HloModule step, input_output_alias={ {0}: (0, {}) }
ENTRY e {
  x = f32[8] parameter(0)
  one = f32[] constant(1)
  ones = f32[8] broadcast(one), dimensions={}
  y = f32[8] add(x, ones)
  ROOT t = (f32[8]) tuple(y)
}
"""
    exe = mxla.compile_hlo(text)
    assert exe.input_output_alias == [((0,), 0, ())]
    x = np.arange(8, dtype=np.float32)
    (y,) = exe(x, donate=True)
    assert y is x
    np.testing.assert_array_equal(x, np.arange(8, dtype=np.float32) + 1)


def test_errors_name_what_is_wrong():
    with pytest.raises(mxla.Error, match="3:23: undefined instruction 'a'"):
        mxla.compile_hlo("HloModule m\nENTRY e {\n  ROOT r = f32[2] add(a, b)\n}\n")
    exe = mxla.compile_hlo(CONV_RELU)
    with pytest.raises(mxla.Error, match=r"argument 1: expected f32\[3,3,3,4\]"):
        exe(np.zeros((1, 6, 5, 3), np.float32), np.zeros((3, 3, 4, 4), np.float32))
    with pytest.raises(mxla.Error, match="backend"):
        mxla.compile_hlo(CONV_RELU, backend="gpu")


# What jax.jit(lambda x, y: jnp.tanh(x * y)).lower(x, y).as_text(dialect="hlo")
# prints: layouts, metadata and JAX's instruction names.
JAX_EXPORT = """HloModule jit__lambda_, entry_computation_layout={(f32[3]{0}, f32[3]{0})->f32[3]{0}}

ENTRY main.5 {
  Arg_0.1 = f32[3]{0} parameter(0), metadata={op_name="x"}
  Arg_1.2 = f32[3]{0} parameter(1), metadata={op_name="y"}
  multiply.3 = f32[3]{0} multiply(Arg_0.1, Arg_1.2), metadata={op_name="jit(<lambda>)/jit(main)/mul" source_file="<stdin>" source_line=1}
  ROOT tanh.4 = f32[3]{0} tanh(multiply.3), metadata={op_name="jit(<lambda>)/jit(main)/tanh" source_file="<stdin>" source_line=1}
}
"""


def test_load_hlo_runs_a_module_jax_exported(tmp_path):
    path = tmp_path / "jit_lambda.hlo"
    path.write_text(JAX_EXPORT)
    exe = mxla.load_hlo(path)
    x = RNG.uniform(-1, 1, 3).astype(np.float32)
    y = RNG.uniform(-1, 1, 3).astype(np.float32)
    np.testing.assert_allclose(exe(x, y), np.tanh(x * y), rtol=1e-6)
    np.testing.assert_allclose(mxla.load_hlo(str(path), backend="interpreter")(x, y),
                               np.tanh(x * y), rtol=1e-6)


def test_load_hlo_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        mxla.load_hlo(tmp_path / "missing.hlo")
    bad = tmp_path / "bad.hlo"
    bad.write_text(JAX_EXPORT.replace("tanh(multiply.3)", "tanh(multiply.9)"))
    with pytest.raises(mxla.Error, match="multiply.9"):
        mxla.load_hlo(bad)
