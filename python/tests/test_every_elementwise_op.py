"""Every elementwise op of the op table (ir/hlo_ops.def), as bound in
Python, against NumPy on values in its domain; the list of names is read
from the table itself, so an op added there without a check here fails."""
import math
import os
import re

import numpy as np
import pytest

import mxla

TABLE = os.path.join(os.path.dirname(__file__), "..", "..", "ir", "hlo_ops.def")
RNG = np.random.default_rng(3)


def table_ops(kind):
    text = open(TABLE).read()
    return re.findall(rf"MXLA_{kind}_OP\(\s*k\w+,\s*\"[\w-]+\",\s*(\w+),", text)


def floats(low, high, n=64):
    return RNG.uniform(low, high, n).astype(np.float32)


def ints(n=64):
    return RNG.integers(-1000, 1000, n).astype(np.int32)


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + np.float32(0.5))


# name: (input, numpy reference)
UNARY = {
    "Neg": (floats(-3, 3), np.negative),
    "Abs": (floats(-3, 3), np.abs),
    "Exp": (floats(-3, 3), np.exp),
    "Log": (floats(0.1, 3), np.log),
    "Sqrt": (floats(0, 3), np.sqrt),
    "Rsqrt": (floats(0.1, 3), lambda x: 1 / np.sqrt(x)),
    "Tanh": (floats(-3, 3), np.tanh),
    "Logistic": (floats(-3, 3), lambda x: 1 / (1 + np.exp(-x))),
    "Floor": (floats(-3, 3), np.floor),
    "Ceil": (floats(-3, 3), np.ceil),
    "Sign": (floats(-3, 3), np.sign),
    "Not": (ints(), np.invert),
    "Copy": (floats(-3, 3), lambda x: x),
    "Sin": (floats(-3, 3), np.sin),
    "Cos": (floats(-3, 3), np.cos),
    "Tan": (floats(-1, 1), np.tan),
    "Expm1": (floats(-3, 3), np.expm1),
    "Log1p": (floats(-0.5, 3), np.log1p),
    "Cbrt": (floats(-3, 3), np.cbrt),
    "Erf": (floats(-3, 3), np.vectorize(math.erf)),
    "Asin": (floats(-0.9, 0.9), np.arcsin),
    "Acos": (floats(-0.9, 0.9), np.arccos),
    "Sinh": (floats(-3, 3), np.sinh),
    "Cosh": (floats(-3, 3), np.cosh),
    "Asinh": (floats(-3, 3), np.arcsinh),
    "Acosh": (floats(1.1, 4), np.arccosh),
    "Atan": (floats(-3, 3), np.arctan),
    "Round": (floats(-3, 3) * 2, round_half_away),
    "RoundNearestEven": (floats(-3, 3) * 2, np.rint),
    "PopulationCount": (ints(), lambda x: np.array([bin(v & 0xFFFFFFFF).count("1") for v in x], np.int32)),
    "Clz": (ints(), lambda x: np.array([32 - (int(v) & 0xFFFFFFFF).bit_length() for v in x], np.int32)),
}

SHIFTS = RNG.integers(0, 31, 64).astype(np.int32)
BINARY = {
    "Add": (floats(-3, 3), floats(-3, 3), np.add),
    "Sub": (floats(-3, 3), floats(-3, 3), np.subtract),
    "Mul": (floats(-3, 3), floats(-3, 3), np.multiply),
    "Div": (floats(-3, 3), floats(0.5, 3), np.divide),
    "Rem": (floats(-3, 3), floats(0.5, 3), np.fmod),
    "Max": (floats(-3, 3), floats(-3, 3), np.maximum),
    "Min": (floats(-3, 3), floats(-3, 3), np.minimum),
    "Pow": (floats(0.1, 3), floats(-2, 2), np.power),
    "And": (ints(), ints(), np.bitwise_and),
    "Or": (ints(), ints(), np.bitwise_or),
    "Xor": (ints(), ints(), np.bitwise_xor),
    "Atan2": (floats(-3, 3), floats(-3, 3), np.arctan2),
    "ShiftLeft": (ints(), SHIFTS, np.left_shift),
    "ShiftRightArithmetic": (ints(), SHIFTS, np.right_shift),
    "ShiftRightLogical": (ints(), SHIFTS,
                          lambda x, s: (x.view(np.uint32) >> s.view(np.uint32)).view(np.int32)),
}


def test_every_table_op_is_bound_and_checked():
    unary, binary = table_ops("UNARY"), table_ops("BINARY")
    assert len(unary) > 25 and len(binary) > 12
    assert sorted(unary) == sorted(UNARY)
    assert sorted(binary) == sorted(BINARY)
    for name in unary + binary:
        assert callable(getattr(mxla, name)), name


def run(op, *arrays):
    b = mxla.XlaBuilder(op.__name__)
    params = [mxla.Parameter(b, i, a.dtype, a.shape) for i, a in enumerate(arrays)]
    return mxla.compile(b.build(op(*params)))(*arrays)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    x, reference = UNARY[name]
    np.testing.assert_allclose(run(getattr(mxla, name), x), reference(x), rtol=3e-6, atol=2e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    x, y, reference = BINARY[name]
    np.testing.assert_allclose(run(getattr(mxla, name), x, y), reference(x, y), rtol=3e-6, atol=2e-6)
