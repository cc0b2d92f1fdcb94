"""Closed-over traced values. A function that mxla.grad or mxla.vjp
traces into a computation of its own may use traced values of the
enclosing function (`grad(lambda w: loss(w, x))(w)` inside a jitted
function, `x` the outer tracer). While it is traced, such a value becomes
an extra parameter of the inner computation, and the caller passes the
outer op for it, as JAX turns closed-over tracers into constants of the
inner function."""

_ACTIVE = []  # the captures being traced, innermost last


class Capture:
    """The extra parameters of one inner trace: `builder` is its builder,
    `first` the number of its first extra parameter."""

    def __init__(self, builder, first):
        self.builder = builder
        self.first = first
        self.captured = []  # the outer Tracers, in parameter order
        self._params = {}   # id(outer Tracer) -> inner parameter op

    def __enter__(self):
        _ACTIVE.append(self)
        return self

    def __exit__(self, *error):
        _ACTIVE.pop()
        return False

    def parameters(self):
        """The inner parameters standing for `captured`, in order."""
        return [self._params[id(tracer)] for tracer in self.captured]

    def parameter_for(self, tracer, op):
        """The inner parameter standing for `tracer` (whose op is `op`)."""
        from mxla import _mxla
        key = id(tracer)
        if key not in self._params:
            number = self.first + len(self.captured)
            self._params[key] = _mxla.Parameter(
                self.builder, number, op.dtype, tuple(op.shape),
                f"captured{len(self.captured)}")
            self.captured.append(tracer)
        return self._params[key]


def op_in_active_trace(tracer, op):
    """`op`, or the innermost active capture's parameter for `tracer`
    when `op` belongs to another (an enclosing) builder."""
    if _ACTIVE and op.builder is not _ACTIVE[-1].builder:
        return _ACTIVE[-1].parameter_for(tracer, op)
    return op
