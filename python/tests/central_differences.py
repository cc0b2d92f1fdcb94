"""The numeric gradient that the Python gradient tests check mxla.grad and
mxla.Gradient against (imported by the test files beside it)."""
import numpy as np


def numeric_gradient(f, args, n, h=1e-6):
    """(f(..., x + h, ...) - f(..., x - h, ...)) / 2h for each element x of
    args[n], f a scalar function of the arrays `args`."""
    numeric = np.zeros_like(args[n])
    for i in np.ndindex(*args[n].shape):
        up, down = [a.copy() for a in args], [a.copy() for a in args]
        up[n][i] += h
        down[n][i] -= h
        numeric[i] = (f(*up) - f(*down)) / (2 * h)
    return numeric
