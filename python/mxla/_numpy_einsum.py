"""mxla.numpy.einsum: Einstein summation as XLA dot_generals, reductions
and transposes.

The operands are contracted left to right. For each pair, a label that
both carry and a later operand or the output needs is a batch dimension
of the dot_general, one that neither needs is contracted, and a label
that only one operand carries and nothing later needs is summed out of
it first. A single operand sums the labels the output lacks. Finally the
result's dimensions are transposed into the output's order. A label
repeated within one operand ('ii->i', a diagonal; 'ii->', a trace) first
takes the operand's diagonal: the elements off it are zeroed by a mask of
iotas and the repeated dimension summed away. '...' stands for the
dimensions an operand has beyond its letters: they broadcast together
across the operands (right-aligned, as NumPy's), get letters of their
own, and the output keeps them where its '...' is (first when the output
is implicit).
"""
import string

import numpy as _np

from mxla import _mxla
from mxla.numpy import (Tracer, _as, _asarray, _broadcast_to, _cast,
                        _reduce, _result_type, not_equal, transpose, where)


def _parse(subscripts, count):
    """(the operands' label strings, the output's)."""
    if not isinstance(subscripts, str):
        raise TypeError("mxla.numpy.einsum: the subscripts must be a string "
                        "('ij,jk->ik')")
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if len(terms) != count:
        raise ValueError(f"mxla.numpy.einsum: the subscripts '{subscripts}' "
                         f"name {len(terms)} operand(s), but {count} were "
                         f"given")
    for term in terms + [output]:
        bad = [c for c in term.replace("...", "", 1) if not c.isalpha()]
        if bad:
            raise ValueError(f"mxla.numpy.einsum: invalid subscript "
                             f"'{bad[0]}' in '{subscripts}' (letters and "
                             f"one '...' per operand)")
    return terms, (output if arrow else None)


def _implicit_output(terms, broadcast):
    """NumPy's output for subscripts without '->': the broadcast letters,
    then the letters that appear once, in alphabetical order."""
    counts = {}
    for c in "".join(terms):
        counts[c] = counts.get(c, 0) + 1
    return broadcast + "".join(sorted(
        c for c, n in counts.items() if n == 1 and c not in broadcast))


def _check_output(subscripts, terms, output):
    inputs = "".join(terms)
    for c in output:
        if output.count(c) > 1:
            raise ValueError(f"mxla.numpy.einsum: output subscript '{c}' "
                             f"appears more than once in '{subscripts}'")
        if c not in inputs:
            raise ValueError(f"mxla.numpy.einsum: output subscript '{c}' "
                             f"does not appear in the operands of "
                             f"'{subscripts}'")


def _expand_ellipses(subscripts, terms, output, arrays):
    """The terms and output with each '...' as letters of its own, and
    the arrays with those dimensions broadcast together; (terms, output,
    arrays)."""
    spans = []
    for i, (term, x) in enumerate(zip(terms, arrays)):
        named = len(term.replace("...", ""))
        if "..." in term and x.ndim < named:
            raise ValueError(f"mxla.numpy.einsum: operand {i} has {x.ndim} "
                             f"dimension(s), fewer than the {named} its "
                             f"subscripts '{term}' name")
        spans.append(x.ndim - named if "..." in term else 0)
    starts = [t.index("...") if "..." in t else 0 for t in terms]
    shapes = [x.shape[a:a + n] for x, a, n in zip(arrays, starts, spans)]
    try:
        broadcast = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"mxla.numpy.einsum: the dimensions '...' stands "
                         f"for in '{subscripts}' do not broadcast together "
                         f"({' '.join(map(str, shapes))})") from None
    unused = [c for c in string.ascii_letters if c not in subscripts]
    letters = "".join(unused[:len(broadcast)])
    for i, (term, x, start, span) in enumerate(zip(terms, arrays, starts, spans)):
        if "..." not in term:
            continue
        shape = x.shape[:start] + broadcast + x.shape[start + span:]
        lead = len(broadcast) - span
        dims = tuple(d if d < start else d + lead for d in range(x.ndim))
        if shape != x.shape:
            arrays[i] = Tracer(_mxla.BroadcastInDim(x.op, shape, dims))
        terms[i] = term.replace("...", letters)
    if output is None:
        output = _implicit_output(terms, letters)
    elif "..." in output:
        output = output.replace("...", letters)
    elif letters:
        raise ValueError(f"mxla.numpy.einsum: output has more dimensions "
                         f"than subscripts given in '{subscripts}', but no "
                         f"'...' ellipsis provided to broadcast the extra "
                         f"dimensions")
    _check_output(subscripts, terms, output)
    return terms, output, arrays


def _check_term(term, x, index):
    if len(term) != x.ndim:
        raise ValueError(f"mxla.numpy.einsum: operand {index} has "
                         f"{x.ndim} dimension(s) but its subscripts "
                         f"'{term}' name {len(term)}")


def _diagonal(x, term, index):
    """x's diagonal over each label `term` repeats; (result, its labels,
    each label once)."""
    while True:
        label = next((c for c in term if term.count(c) > 1), None)
        if label is None:
            return x, term
        first = term.index(label)
        second = term.index(label, first + 1)
        if x.shape[first] != x.shape[second]:
            raise ValueError(f"mxla.numpy.einsum: dimensions in operand "
                             f"{index} for collapsing index '{label}' don't "
                             f"match ({x.shape[first]} != {x.shape[second]})")
        builder = x.op.builder
        on = Tracer(_mxla.Eq(_mxla.Iota(builder, _np.int64, x.shape, first),
                             _mxla.Iota(builder, _np.int64, x.shape, second)))
        zero = _broadcast_to(_as("einsum", builder, 0, x.dtype), x.shape)
        x = _reduce(where(on, x, zero), (second,), False, 0,
                    _mxla.CreateScalarAddComputation)
        term = term[:second] + term[second + 1:]


def _sum_out(x, term, keep):
    """x summed over its labels not in `keep`; (result, its labels)."""
    gone = tuple(d for d, c in enumerate(term) if c not in keep)
    if not gone:
        return x, term
    # In x's dtype, as NumPy's einsum sums (no widening of small ints).
    out = _reduce(x, gone, False, 0, _mxla.CreateScalarAddComputation)
    return out, "".join(c for c in term if c in keep)


def _contract(a, ta, b, tb, needed):
    """a and b dot_general'd: labels of both that `needed` has are batch,
    the other shared ones contracted; (result, its labels)."""
    a, ta = _sum_out(a, ta, set(tb) | needed)
    b, tb = _sum_out(b, tb, set(ta) | needed)
    batch = [c for c in ta if c in tb and c in needed]
    contracted = [c for c in ta if c in tb and c not in needed]
    for c in batch + contracted:
        if a.shape[ta.index(c)] != b.shape[tb.index(c)]:
            raise ValueError(f"mxla.numpy.einsum: subscript '{c}' has size "
                             f"{a.shape[ta.index(c)]} in one operand and "
                             f"{b.shape[tb.index(c)]} in another")
    out = Tracer(_mxla.DotGeneral(
        a.op, b.op,
        lhs_contracting_dims=tuple(ta.index(c) for c in contracted),
        rhs_contracting_dims=tuple(tb.index(c) for c in contracted),
        lhs_batch_dims=tuple(ta.index(c) for c in batch),
        rhs_batch_dims=tuple(tb.index(c) for c in batch)))
    free_a = [c for c in ta if c not in tb]
    free_b = [c for c in tb if c not in ta]
    return out, "".join(batch + free_a + free_b)


def _broadcast_labels(terms, arrays):
    """Each label's size 1 stretched to its size elsewhere, as NumPy
    broadcasts einsum's operands; other sizes must agree."""
    sizes = {}
    for i, (term, x) in enumerate(zip(terms, arrays)):
        for c, n in zip(term, x.shape):
            if sizes.setdefault(c, n) == 1:
                sizes[c] = n
            elif n not in (1, sizes[c]):
                raise ValueError(f"mxla.numpy.einsum: subscript '{c}' has "
                                 f"size {sizes[c]} in one operand and {n} in "
                                 f"operand {i}")
    for i, (term, x) in enumerate(zip(terms, arrays)):
        shape = tuple(sizes[c] for c in term)
        if shape != x.shape:
            arrays[i] = Tracer(_mxla.BroadcastInDim(x.op, shape,
                                                    tuple(range(x.ndim))))


def einsum(subscripts, *operands):
    """NumPy's einsum for subscripts of letters ('ij,jk->ik',
    'bhqd,bhkd->bhqk', 'ij->ji', 'i,i->', 'ij->', 'ii->i', 'ii->',
    '...ij,...jk->...ik'): the operands' dtypes
    promoted; bool operands give bool (any of the products), as NumPy."""
    terms, output = _parse(subscripts, len(operands))
    arrays = [_asarray("einsum", x) for x in operands]
    terms, output, arrays = _expand_ellipses(subscripts, terms, output, arrays)
    dtype = _result_type("einsum", *arrays)
    # bool sums are ors: computed as int64 counts, then compared with 0.
    work = _np.dtype(_np.int64) if dtype.kind == "b" else dtype
    arrays = [_cast(x, work) for x in arrays]
    for i, (term, x) in enumerate(zip(terms, arrays)):
        _check_term(term, x, i)
        arrays[i], terms[i] = _diagonal(x, term, i)
    _broadcast_labels(terms, arrays)
    out, labels = arrays[0], terms[0]
    for i in range(1, len(arrays)):
        needed = set(output).union(*terms[i + 1:])
        out, labels = _contract(out, labels, arrays[i], terms[i], needed)
    out, labels = _sum_out(out, labels, set(output))
    if labels != output:
        out = transpose(out, tuple(labels.index(c) for c in output))
    if dtype.kind == "b":
        return not_equal(out, 0)
    return _cast(out, dtype) if out.dtype != dtype else out


__all__ = ["einsum"]
