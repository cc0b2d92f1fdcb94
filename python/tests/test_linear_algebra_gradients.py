"""mxla.Gradient through the builder's Cholesky, TriangularSolve and
batch normalization ops (transforms/linear_algebra_gradients.cc and
lowered_op_gradients.cc) against central differences of the compiled
function, in float64."""
import numpy as np
import pytest

import mxla
from central_differences import numeric_gradient

RNG = np.random.default_rng(38)


def scalarized(name, shapes, body):
    """The computation sum(w * body(*params)) of float64 parameters of
    `shapes`, w a fixed random weight so every element counts."""
    b = mxla.XlaBuilder(name)
    params = [mxla.Parameter(b, i, np.float64, s, f"p{i}")
              for i, s in enumerate(shapes)]
    y = body(*params)
    weights = mxla.Constant(b, RNG.uniform(-1, 1, tuple(y.shape)))
    total = mxla.Reduce(y * weights, 0.0,
                        mxla.CreateScalarAddComputation(np.float64, b),
                        tuple(range(len(y.shape))))
    return b.build(total)


def check_gradient(f, args, wrt, h=1e-6, rtol=1e-5):
    run = mxla.compile(f)
    grads = mxla.compile(mxla.Gradient(f, wrt))(*args)
    for k, p in enumerate(wrt):
        numeric = numeric_gradient(lambda *a: float(run(*a)), args, p, h)
        np.testing.assert_allclose(np.asarray(grads[k]), numeric,
                                   rtol=rtol, atol=rtol)


def spd(n, batch=()):
    m = RNG.uniform(-1, 1, batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_gradient(lower):
    a = spd(3, (2,))
    f = scalarized("chol", [a.shape], lambda p: mxla.Cholesky(p, lower=lower))
    check_gradient(f, [a], [0])


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", ["NO_TRANSPOSE", "TRANSPOSE"])
def test_triangular_solve_gradient(left_side, lower, transpose_a):
    a = RNG.uniform(-0.5, 0.5, (3, 3)) + 2.5 * np.eye(3)
    b = RNG.uniform(-2, 2, (3, 2) if left_side else (2, 3))
    f = scalarized(
        "solve", [a.shape, b.shape],
        lambda ap, bp: mxla.TriangularSolve(ap, bp, left_side=left_side,
                                            lower=lower,
                                            transpose_a=transpose_a))
    check_gradient(f, [a, b], [0, 1])


def test_batch_norm_training_gradient():
    x, scale, offset = (RNG.uniform(-2, 2, s) for s in [(4, 3), (3,), (3,)])
    f = scalarized(
        "bn", [x.shape, scale.shape, offset.shape],
        lambda xp, sp, op: mxla.GetTupleElement(
            mxla.BatchNormTraining(xp, sp, op, epsilon=1e-3,
                                   feature_index=1), 0))
    check_gradient(f, [x, scale, offset], [0, 1, 2])
