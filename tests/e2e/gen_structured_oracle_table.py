#!/usr/bin/python3
"""Writes structured_oracle_table.inc: modules with sort, scatter and
select-and-scatter, their arguments (fed as parameters), and the results
XLA defines for them, computed here with NumPy and plain Python loops.

Both of mxla's backends run these ops through the same loops
(semantics/sort_rows.cc, scatter_elements.cc, select_and_scatter.cc; the
JIT compiles only the comparator or combiner), so comparing them with each
other cannot find a misreading of XLA. This table can: nothing here reads
or calls mxla's code. The rules, from XLA's operation semantics and its
evaluator (xla/hlo/evaluator/hlo_evaluator.cc):
  * sort: each row along `dimensions` is put in the order the comparator
    defines (comparator(a, b) true: a goes first); is_stable=true keeps
    equal elements in their input order. The reference sorts with Python's
    sorted() on a comparison function written from the comparator's text.
    Compare type FLOAT is IEEE (-0 == +0, NaN unordered), TOTALORDER orders
    -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN (payloads by their
    bits): the sign-magnitude bits as a signed integer. A comparator that is
    no strict weak order (FLOAT LT on NaNs) leaves the order undefined, so
    those rows are checked only as permutations of their input.
  * scatter: for each index U of the updates, its scatter position (the
    update dimensions that are not update_window_dims) picks an index
    vector (along index_vector_dim of the indices; a trailing index_vector_dim
    means scalar indices), whose components go to the operand dimensions
    scatter_dims_to_operand_dims names; input_batching_dims take the
    position along the matching scatter_indices_batching_dims; the window
    part of U goes to the operand dimensions that are neither inserted nor
    batching, in order. A window that does not fit in the operand entirely
    is skipped as a whole (no clamping, unlike gather). XLA does not define
    the order in which several updates to one element are applied, so an
    element with k > 1 updates may hold the result of any of the k! orders
    (for exact, commutative combiners that is one value).
  * select-and-scatter: the result starts as init; for each window
    position (row-major, the source's elements) the taps that land in the
    operand (padding is skipped) are visited in row-major order; the first
    is selected, and each later tap replaces it when select(selected, tap)
    is false (so GE keeps the first maximum, GT the last). The source
    element is then combined into the selected element. Overlapping windows
    combine several source elements into one element (order: as above; the
    cases here combine exactly).

Run (needs Debian's python3-numpy, for regenerating only):
  /usr/bin/python3 tests/e2e/gen_structured_oracle_table.py \\
      > tests/e2e/structured_oracle_table.inc
"""
import functools
import itertools
import math

import numpy as np

RNG = np.random.default_rng(35)

# Element types: (container dtype for the bits, float view or None).
FLOAT_VIEW = {'f16': np.float16, 'f32': np.float32, 'f64': np.float64}
BITS_DTYPE = {'pred': np.uint8, 's8': np.uint8, 'u8': np.uint8,
              's16': np.uint16, 'u16': np.uint16, 'f16': np.uint16,
              'bf16': np.uint16, 's32': np.uint32, 'u32': np.uint32,
              'f32': np.uint32, 's64': np.uint64, 'u64': np.uint64,
              'f64': np.uint64}
WIDTH = {'f8e5m2': 8, 'f8e4m3fn': 8, 'pred': 8, 's8': 8, 'u8': 8, 's16': 16, 'u16': 16, 'f16': 16,
         'bf16': 16, 's32': 32, 'u32': 32, 'f32': 32, 's64': 64, 'u64': 64,
         'f64': 64}
INT_DTYPE = {'s8': np.int8, 'u8': np.uint8, 's16': np.int16,
             'u16': np.uint16, 's32': np.int32, 'u32': np.uint32,
             's64': np.int64, 'u64': np.uint64}


def to_bits(t, value):
  """The bit pattern of `value` (a Python or NumPy number) as type t."""
  if t == 'pred':
    return int(bool(value))
  if t in INT_DTYPE:
    return int(value) & ((1 << WIDTH[t]) - 1)
  if t == 'bf16':
    # Round to nearest even from f32 (the values used here are exact).
    b = int(np.array([value], np.float32).view(np.uint32)[0])
    if math.isnan(float(value)):
      return (b >> 16) | 0x40
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
  return int(np.array([value], FLOAT_VIEW[t]).view(BITS_DTYPE[t])[0])


def from_bits(t, bits):
  """The value of a bit pattern: a Python int, or a NumPy float scalar."""
  if t == 'pred':
    return bool(bits)
  if t in INT_DTYPE:
    n = WIDTH[t]
    if t[0] == 's' and bits >> (n - 1):
      return bits - (1 << n)
    return bits
  if t == 'bf16':
    return np.array([bits << 16], np.uint32).view(np.float32)[0]
  return np.array([bits], BITS_DTYPE[t]).view(FLOAT_VIEW[t])[0]


def total_order_key(t, bits):
  """XLA's TOTALORDER: the sign-magnitude bits read as a signed integer."""
  n = WIDTH[t]
  signed = bits - (1 << n) if bits >> (n - 1) else bits
  return signed ^ ((1 << (n - 1)) - 1) if signed < 0 else signed


class Array:
  """An array of type t: dims, and its elements' bits in row-major order."""

  def __init__(self, t, dims, bits):
    assert len(bits) == math.prod(dims), (dims, len(bits))
    self.t, self.dims, self.bits = t, tuple(dims), [int(b) for b in bits]

  @staticmethod
  def of(t, values, dims=None):
    values = list(np.asarray(values, dtype=object).reshape(-1))
    return Array(t, dims if dims is not None else (len(values),),
                 [to_bits(t, v) for v in values])

  def grid(self):
    """The bits as a NumPy object array of shape dims."""
    g = np.empty(len(self.bits), dtype=object)
    g[:] = self.bits
    return g.reshape(self.dims)

  def shape(self):
    return '%s[%s]' % (self.t, ','.join(str(d) for d in self.dims))


class Result:
  """An expected result leaf: for each element the allowed bit patterns
  (the first is shown on failure); any_order: only the multiset counts."""

  def __init__(self, t, dims, allowed, any_order=False):
    self.t, self.dims, self.allowed, self.any_order = t, tuple(dims), allowed, any_order


CASES = []


def add_case(name, hlo, arguments, results):
  CASES.append((name, hlo, arguments, results))


def exact(array):
  return Result(array.t, array.dims, [[b] for b in array.bits])


# ----------------------------------------------------------------- sort ---
# A comparator is a list of clauses (operand, direction, compare type);
# a goes before b at the first clause where one of them is less than the
# other, in that clause's direction and type.


def clause_less(t, direction, ctype, a, b):
  if ctype == 'TOTALORDER':
    x, y = total_order_key(t, a), total_order_key(t, b)
  else:
    x, y = from_bits(t, a), from_bits(t, b)
  return x < y if direction == 'LT' else x > y


def comparator_text(types, clauses):
  """The comparator computation's HLO: or of (ties so far and clause)."""
  lines = ['less {']
  for i, t in enumerate(types):
    lines.append('  p%d = %s[] parameter(%d)' % (2 * i, t, 2 * i))
    lines.append('  p%d = %s[] parameter(%d)' % (2 * i + 1, t, 2 * i + 1))

  def compare(name, lhs, rhs, direction, ctype, t):
    suffix = ', type=TOTALORDER' if ctype == 'TOTALORDER' else ''
    lines.append('  %s = pred[] compare(%s, %s), direction=%s%s' %
                 (name, lhs, rhs, direction, suffix))

  result, ties = None, None
  for k, (i, direction, ctype) in enumerate(clauses):
    a, b = 'p%d' % (2 * i), 'p%d' % (2 * i + 1)
    compare('lt%d' % k, a, b, direction, ctype, types[i])
    term = 'lt%d' % k
    if ties is not None:
      lines.append('  first%d = pred[] and(%s, lt%d)' % (k, ties, k))
      term = 'first%d' % k
    if result is None:
      result = term
    else:
      lines.append('  or%d = pred[] or(%s, %s)' % (k, result, term))
      result = 'or%d' % k
    if k + 1 < len(clauses):
      compare('gt%d' % k, b, a, direction, ctype, types[i])
      lines.append('  unordered%d = pred[] or(lt%d, gt%d)' % (k, k, k))
      lines.append('  tie%d = pred[] not(unordered%d)' % (k, k))
      if ties is None:
        ties = 'tie%d' % k
      else:
        lines.append('  ties%d = pred[] and(%s, tie%d)' % (k, ties, k))
        ties = 'ties%d' % k
  lines.append('  ROOT r = pred[] copy(%s)' % result)
  lines.append('}')
  return '\n'.join(lines)


def sort_reference(arrays, dimension, clauses):
  """Stable sort of every row along `dimension`; the results' bits."""
  types = [a.t for a in arrays]

  def cmp(i, j, row):
    for operand, direction, ctype in clauses:
      a, b = row[operand][i], row[operand][j]
      if clause_less(types[operand], direction, ctype, a, b):
        return -1
      if clause_less(types[operand], direction, ctype, b, a):
        return 1
    return 0

  grids = [np.moveaxis(a.grid(), dimension, -1) for a in arrays]
  out = [g.copy() for g in grids]
  for position in np.ndindex(grids[0].shape[:-1]):
    row = [list(g[position]) for g in grids]
    order = sorted(range(len(row[0])),
                   key=functools.cmp_to_key(lambda i, j: cmp(i, j, row)))
    for g, o in zip(row, out):
      o[position] = [g[k] for k in order]
  return [Array(a.t, a.dims,
                list(np.moveaxis(o, -1, dimension).reshape(-1)))
          for a, o in zip(arrays, out)]


def sort_case(name, arrays, dimension, clauses, iota=False, stable=True,
              any_order=False):
  """Sorts parameters `arrays` (and an s32 iota along `dimension` when
  `iota`: an argsort) with the comparator `clauses`."""
  types = [a.t for a in arrays] + (['s32'] if iota else [])
  dims = arrays[0].dims
  shapes = [a.shape() for a in arrays]
  operands = ['x%d' % i for i in range(len(arrays))]
  body = ['  x%d = %s parameter(%d)' % (i, s, i) for i, s in enumerate(shapes)]
  reference_inputs = list(arrays)
  if iota:
    iota_shape = Array('s32', dims, [0] * math.prod(dims)).shape()
    body.append('  i = %s iota(), iota_dimension=%d' % (iota_shape, dimension))
    shapes.append(iota_shape)
    operands.append('i')
    positions = np.indices(dims)[dimension].reshape(-1)
    reference_inputs.append(Array('s32', dims, list(positions)))
  tuple_shape = '(%s)' % ', '.join(shapes)
  root = tuple_shape if len(shapes) > 1 else shapes[0]
  body.append('  ROOT s = %s sort(%s), dimensions={%d}%s, to_apply=less' %
              (root, ', '.join(operands), dimension,
               ', is_stable=true' if stable else ''))
  hlo = 'HloModule %s\n%s\nENTRY main {\n%s\n}\n' % (
      name.replace(' ', '_').replace('/', '_').replace('-', '_'),
      comparator_text(types, clauses), '\n'.join(body))
  sorted_arrays = sort_reference(reference_inputs, dimension, clauses)
  results = []
  for inp, out in zip(reference_inputs, sorted_arrays):
    if any_order:
      results.append(Result(inp.t, inp.dims, [[b] for b in inp.bits], True))
    else:
      results.append(exact(out))
  add_case('sort/' + name, hlo, arrays, results)


def f32_bits(values):
  return [to_bits('f32', v) for v in values]


def sort_cases():
  inf, nan = math.inf, math.nan
  # Every f32 class, repeated, with NaNs of both signs and other payloads.
  special = f32_bits([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, inf, -inf, 1e-45,
                      -1e-45, 3.4028235e38, -3.4028235e38, 1.0, -0.0, 0.0])
  special += [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FC00001,
              0x7FFFFFFF, 0xFFFFFFFF]
  order = list(RNG.permutation(len(special)))
  keys = Array('f32', (len(special),), [special[i] for i in order])
  for direction in ('LT', 'GT'):
    sort_case('f32 totalorder %s argsort' % direction, [keys], 0,
              [(0, direction, 'TOTALORDER')], iota=True)
  # Without is_stable: distinct keys (under TOTALORDER) have one order.
  distinct = sorted(set(special), key=lambda b: total_order_key('f32', b))
  distinct = [distinct[i] for i in RNG.permutation(len(distinct))]
  sort_case('f32 totalorder unstable distinct', [Array('f32', (len(distinct),),
                                                      distinct)], 0,
            [(0, 'LT', 'TOTALORDER')], iota=True, stable=False)
  # FLOAT LT: -0 and +0 are equal, so a stable sort keeps their order.
  zeros = Array.of('f32', [0.0, -0.0, 1.0, -0.0, 0.0, -1.0, 0.0, -0.0, 1.0,
                           -1.0, -0.0, 0.0])
  sort_case('f32 float LT signed zeros stable', [zeros], 0,
            [(0, 'LT', 'FLOAT')], iota=True)
  sort_case('f32 float GT signed zeros stable', [zeros], 0,
            [(0, 'GT', 'FLOAT')], iota=True)
  # FLOAT LT with NaNs is no strict weak order: any permutation will do.
  with_nan = Array('f32', (12,), f32_bits([3.0, nan, 1.0, -2.0, nan, 0.0,
                                           -inf, 5.0, nan, 2.0, -0.0, inf]))
  sort_case('f32 float LT with NaN', [with_nan], 0, [(0, 'LT', 'FLOAT')],
            iota=True, any_order=True)
  # Other float widths under TOTALORDER (bits from the f32 set, rounded).
  for t, pool in (('f64', [0.0, -0.0, 1.5, -1.5, inf, -inf, 5e-324, -5e-324,
                           1e308]),
                  ('f16', [0.0, -0.0, 1.5, -1.5, inf, -inf, 6e-8, -6e-8,
                           65504.0]),
                  ('bf16', [0.0, -0.0, 1.5, -1.5, inf, -inf, 1e-40, -1e-40,
                            3e38])):
    n = WIDTH[t]
    bits = [to_bits(t, v) for v in pool]
    # Quiet and signalling NaNs of both signs.
    exponent = {'f64': 0x7FF << 52, 'f16': 0x1F << 10, 'bf16': 0xFF << 7}[t]
    quiet = {'f64': 1 << 51, 'f16': 1 << 9, 'bf16': 1 << 6}[t]
    sign = 1 << (n - 1)
    bits += [exponent | quiet, sign | exponent | quiet, exponent | 1,
             sign | exponent | 1]
    picks = list(RNG.integers(0, len(bits), 24))
    sort_case('%s totalorder LT argsort' % t, [Array(t, (24,),
                                                     [bits[i] for i in picks])],
              0, [(0, 'LT', 'TOTALORDER')], iota=True)
  # f8 keys: any bit patterns (NaNs, infinities where the type has them,
  # signed zeros, denormals), compared by their bits.
  for t in ('f8e5m2', 'f8e4m3fn'):
    bits = [int(b) for b in RNG.integers(0, 256, 24)] + [0x00, 0x80, 0x7F, 0xFF]
    sort_case('%s totalorder LT argsort' % t, [Array(t, (28,), bits)], 0,
              [(0, 'LT', 'TOTALORDER')], iota=True)
  # Integers: signed and unsigned compares, every width, duplicates.
  for t in ('s8', 'u8', 's16', 'u16', 's32', 'u32', 's64', 'u64'):
    n = WIDTH[t]
    pool = [0, 1, 2, (1 << (n - 1)) - 1, 1 << (n - 1), (1 << n) - 1,
            (1 << (n - 1)) + 1, 5]
    picks = list(RNG.integers(0, len(pool), 20))
    array = Array(t, (20,), [pool[i] for i in picks])
    for direction in ('LT', 'GT'):
      sort_case('%s %s argsort' % (t, direction), [array], 0,
                [(0, direction, 'INT')], iota=True)
  # A rank-3 key with few distinct values and an f32 payload, along each
  # dimension; then the payload as the key (the comparator reads operand 1).
  dims = (3, 4, 5)
  count = math.prod(dims)
  key = Array('s32', dims, [int(v) & 0xFFFFFFFF
                            for v in RNG.integers(-2, 3, count)])
  payload = Array.of('f32', RNG.integers(-50, 50, count).astype(np.float32),
                     dims)
  for dimension in range(3):
    sort_case('s32 rank3 LT dim%d with payload and iota' % dimension,
              [key, payload], dimension, [(0, 'LT', 'INT')], iota=True)
    sort_case('s32 rank3 GT dim%d key in operand 1' % dimension,
              [payload, key], dimension, [(1, 'GT', 'INT')], iota=True)
  # Two keys: the first ascending, ties by the second descending (FLOAT;
  # -0 and +0 tie there too), then stable; and the same without is_stable
  # on distinct key pairs.
  k1 = Array('s32', (4, 16), [int(v) & 0xFFFFFFFF
                              for v in RNG.integers(0, 3, 64)])
  k2 = Array.of('f32', RNG.choice([-1.0, -0.0, 0.0, 2.0], 64), (4, 16))
  sort_case('two keys LT then GT stable', [k1, k2], 1,
            [(0, 'LT', 'INT'), (1, 'GT', 'FLOAT')], iota=True)
  pairs = [(a, b) for a in range(4) for b in (-3.0, -1.0, 0.5, 2.0)]
  rows = [[pairs[i] for i in RNG.permutation(16)] for _ in range(3)]
  k1 = Array('s32', (3, 16), [p[0] for r in rows for p in r])
  k2 = Array.of('f32', [p[1] for r in rows for p in r], (3, 16))
  sort_case('two keys LT then GT unstable distinct', [k1, k2], 1,
            [(0, 'LT', 'INT'), (1, 'GT', 'FLOAT')], iota=True, stable=False)
  # pred keys: false < true.
  flags = Array('pred', (10,), list(RNG.integers(0, 2, 10)))
  sort_case('pred LT argsort', [flags], 0, [(0, 'LT', 'INT')], iota=True)


# -------------------------------------------------------------- scatter ---


def scatter_reference(operands, indices, updates, dn, combine, max_orders=120):
  """XLA's scatter; returns, per operand, each element's allowed bits."""
  (update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
   index_vector_dim, input_batching_dims, scatter_indices_batching_dims) = dn
  op_dims = operands[0].dims
  up_dims = updates[0].dims
  rank = len(op_dims)
  idx = [from_bits(indices.t, b) for b in indices.bits]
  idx_grid = np.array(idx, dtype=object).reshape(indices.dims)
  idx_batch_dims = [d for d in range(len(indices.dims)) if d != index_vector_dim]
  update_scatter_dims = [d for d in range(len(up_dims))
                         if d not in update_window_dims]
  window_operand_dims = [d for d in range(rank)
                         if d not in inserted_window_dims
                         and d not in input_batching_dims]
  extent = [1] * rank
  for k, d in enumerate(window_operand_dims):
    extent[d] = up_dims[update_window_dims[k]]
  values = [[from_bits(o.t, b) for b in o.bits] for o in operands]
  update_values = [[from_bits(u.t, b) for b in u.bits] for u in updates]
  landing = {}  # operand element -> list of update elements
  for u in np.ndindex(up_dims):
    g = [u[d] for d in update_scatter_dims]
    start = [0] * rank
    for k, od in enumerate(scatter_dims_to_operand_dims):
      position = list(g)
      if index_vector_dim < len(indices.dims):
        position.insert(index_vector_dim, k)
      start[od] = idx_grid[tuple(position)]
    for k, od in enumerate(input_batching_dims):
      start[od] = g[idx_batch_dims.index(scatter_indices_batching_dims[k])]
    if any(start[d] < 0 or start[d] > op_dims[d] - extent[d]
           for d in range(rank)):
      continue  # the whole window is skipped
    index = list(start)
    for k, d in enumerate(window_operand_dims):
      index[d] += u[update_window_dims[k]]
    flat_op = int(np.ravel_multi_index(index, op_dims))
    flat_up = int(np.ravel_multi_index(u, up_dims))
    landing.setdefault(flat_op, []).append(flat_up)
  allowed = [[[b] for b in o.bits] for o in operands]
  for element, ups in landing.items():
    outcomes = []
    orders = itertools.permutations(ups)
    for order in itertools.islice(orders, max_orders):
      current = [v[element] for v in values]
      for up in order:
        current = combine(current, [v[up] for v in update_values])
      outcome = [to_bits(o.t, c) for o, c in zip(operands, current)]
      if outcome not in outcomes:
        outcomes.append(outcome)
    assert math.factorial(len(ups)) <= max_orders, 'too many duplicates'
    for i in range(len(operands)):
      allowed[i][element] = []
      for outcome in outcomes:
        if outcome[i] not in allowed[i][element]:
          allowed[i][element].append(outcome[i])
  return [Result(o.t, o.dims, a) for o, a in zip(operands, allowed)]


# Combiners: HLO text (over parameters named by type) and Python.
def binary_computation(name, t, body):
  return '%s {\n  x = %s[] parameter(0)\n  y = %s[] parameter(1)\n%s\n}' % (
      name, t, t, body)


COMBINERS = {
    'add': (lambda t: binary_computation('combine', t,
                                         '  ROOT r = %s[] add(x, y)' % t),
            lambda c, u: [c[0] + u[0]]),
    'take': (lambda t: binary_computation('combine', t,
                                          '  ROOT r = %s[] copy(y)' % t),
             lambda c, u: [u[0]]),
    'twice_plus': (lambda t: binary_computation(
        'combine', t, '  two = %s[] constant(2)\n  m = %s[] multiply(x, two)\n'
        '  ROOT r = %s[] add(m, y)' % (t, t, t)),
                   lambda c, u: [c[0] * 2 + u[0]]),
    'sub': (lambda t: binary_computation('combine', t,
                                         '  ROOT r = %s[] subtract(x, y)' % t),
            lambda c, u: [c[0] - u[0]]),
    'max': (lambda t: binary_computation('combine', t,
                                         '  ROOT r = %s[] maximum(x, y)' % t),
            lambda c, u: [max(c[0], u[0])]),
}


def scatter_case(name, operand, indices, updates, dn, combiner,
                 operand2=None, updates2=None):
  (uwd, iwd, sdod, ivd, ibd, sibd) = dn
  operands = [operand] + ([operand2] if operand2 else [])
  ups = [updates] + ([updates2] if updates2 else [])
  if operand2:
    computation, combine = combiner
  else:
    text, combine = COMBINERS[combiner]
    computation = text(operand.t)
  n = len(operands)
  body = ['  x%d = %s parameter(%d)' % (i, o.shape(), i)
          for i, o in enumerate(operands)]
  body.append('  i = %s parameter(%d)' % (indices.shape(), n))
  body += ['  u%d = %s parameter(%d)' % (i, u.shape(), n + 1 + i)
           for i, u in enumerate(ups)]
  root = (operands[0].shape() if n == 1 else
          '(%s)' % ', '.join(o.shape() for o in operands))
  attrs = ('update_window_dims={%s}, inserted_window_dims={%s}, '
           'scatter_dims_to_operand_dims={%s}, index_vector_dim=%d' %
           (','.join(map(str, uwd)), ','.join(map(str, iwd)),
            ','.join(map(str, sdod)), ivd))
  if ibd:
    attrs += (', input_batching_dims={%s}, scatter_indices_batching_dims={%s}'
              % (','.join(map(str, ibd)), ','.join(map(str, sibd))))
  body.append('  ROOT s = %s scatter(%s, i, %s), %s, to_apply=combine' %
              (root, ', '.join('x%d' % i for i in range(n)),
               ', '.join('u%d' % i for i in range(n)), attrs))
  hlo = 'HloModule scatter\n%s\nENTRY main {\n%s\n}\n' % (computation,
                                                          '\n'.join(body))
  results = scatter_reference(operands, indices, ups, dn, combine)
  add_case('scatter/' + name, hlo, operands + [indices] + ups, results)


def ints(t, values, dims=None):
  return Array.of(t, [int(v) for v in values], dims)


def scatter_cases():
  f32 = lambda values, dims=None: Array.of(  # noqa: E731
      'f32', [np.float32(v) for v in values], dims)
  # Scalar updates into a vector: duplicates, out-of-bounds (negative, at
  # the size, far past), every combiner.
  x = f32(RNG.integers(-9, 10, 8))
  index_values = [3, 0, 3, -1, 7, 8, 3, 100, 5, 0]
  i = ints('s32', index_values, (10, 1))
  u = f32(RNG.integers(-9, 10, 10))
  dn = ([], [0], [0], 1, [], [])
  for combiner in ('add', 'take', 'twice_plus', 'sub', 'max'):
    scatter_case('vector %s duplicates and out of bounds' % combiner, x, i, u,
                 dn, combiner)
  # The same without duplicates: non-commutative combiners have one answer
  # (the operand is the combiner's first parameter, the update its second).
  unique = ints('s32', [6, 1, -3, 4, 8, 2], (6, 1))
  u6 = f32(RNG.integers(-9, 10, 6))
  for combiner in ('twice_plus', 'sub'):
    scatter_case('vector %s unique indices' % combiner, x, unique, u6, dn,
                 combiner)
  # Index vector dimension: trailing (scalar indices), and first.
  scatter_case('scalar indices index_vector_dim=1', x,
               ints('s32', index_values), u, ([], [0], [0], 1, [], []), 'add')
  scatter_case('index_vector_dim=0', x, ints('s32', index_values, (1, 10)), u,
               ([], [0], [0], 0, [], []), 'add')
  # Index types: unsigned indices are never negative (u32 0xFFFFFFFF and
  # u8 255 are past the end), s8 and s64 signed.
  for t, values in (('u8', [3, 255, 7, 0, 8, 3]),
                    ('s8', [3, -1, 7, -128, 127, 3]),
                    ('u32', [3, 0xFFFFFFFF, 7, 0, 8, 3]),
                    ('s64', [3, -1, 7, 1 << 40, -(1 << 40), 3]),
                    ('u64', [3, (1 << 64) - 1, 7, 0, 1 << 63, 3])):
    scatter_case('index type %s' % t, x, ints(t, values, (6, 1)), u6, dn, 'add')
  # Row windows into a matrix: update_window_dims={1}; then a window of 2
  # columns at a (row, column) start: a window that would cross the last
  # column is skipped entirely, not clamped.
  m = f32(RNG.integers(-9, 10, 20), (5, 4))
  rows = ints('s32', [4, 0, 4, 5, -1, 2], (6,))
  scatter_case('rows update_window_dims={1}', m, rows,
               f32(RNG.integers(-9, 10, 24), (6, 4)),
               ([1], [0], [0], 1, [], []), 'add')
  starts = ints('s32', [0, 0, 4, 2, 1, 3, 2, 2, 3, 1, 0, -1, 1, 2], (7, 2))
  scatter_case('2-wide windows at 2-d starts, no clamping', m, starts,
               f32(RNG.integers(-9, 10, 14), (7, 2)),
               ([1], [0], [0, 1], 1, [], []), 'twice_plus')
  # The window dimension before the scatter dimension in the updates.
  scatter_case('window dimension first in updates', m, rows,
               f32(RNG.integers(-9, 10, 24), (4, 6)),
               ([0], [0], [0], 1, [], []), 'add')
  # scatter_dims_to_operand_dims permuted: index component 0 is the column.
  cols_rows = ints('s32', [3, 0, 0, 4, 3, 0, 1, 1, 4, 4, 3, 5], (6, 2))
  scatter_case('scatter_dims_to_operand_dims={1,0}', m, cols_rows,
               f32(RNG.integers(-9, 10, 6)), ([], [0, 1], [1, 0], 1, [], []),
               'add')
  # Batched indices: two batch dimensions of indices (2 x 3 index vectors)
  # and a window of 2 along the operand's last dimension (rank 3 operand);
  # a start of 3 there does not leave room for the window.
  cube = f32(RNG.integers(-9, 10, 48), (3, 4, 4))
  batched = ints('s32', [0, 1, 2, 2, 2, 0, 1, 3, 0, 2, 2, 2], (2, 3, 2))
  scatter_case('two batch dimensions of indices', cube, batched,
               f32(RNG.integers(-9, 10, 12), (2, 3, 2)),
               ([2], [0, 1], [0, 2], 2, [], []), 'add')
  # Index vector in the middle of the indices (index_vector_dim=1 of 3).
  middle = ints('s32', [0, 1, 2, 2, 2, 0, 1, 3, 0, 2, 2, 2], (2, 2, 3))
  scatter_case('index_vector_dim in the middle', cube, middle,
               f32(RNG.integers(-9, 10, 12), (2, 3, 2)),
               ([2], [0, 1], [0, 2], 1, [], []), 'add')
  # Operand batching dimensions: batch b scatters into slice b.
  scatter_case('input_batching_dims', f32(RNG.integers(-9, 10, 15), (3, 5)),
               ints('s32', [4, 4, 0, 5, -1, 2], (3, 2, 1)),
               f32(RNG.integers(-9, 10, 6), (3, 2)),
               ([], [1], [1], 2, [0], [0]), 'add')
  scatter_case('input_batching_dims second', f32(RNG.integers(-9, 10, 15), (5, 3)),
               ints('s32', [4, 4, 0, 5, -1, 2], (2, 3)),
               f32(RNG.integers(-9, 10, 6), (2, 3)),
               ([], [0], [0], 2, [1], [1]), 'twice_plus')
  # Integers: s32 add wraps; u8 take.
  scatter_case('s32 add wraps', ints('s32', [2**31 - 1, 5, -2**31, 0]),
               ints('s32', [0, 2, 2, 3, 0], (5, 1)),
               ints('s32', [1, -1, -2, 7, 1]), dn, 'add')
  scatter_case('u8 sub', ints('u8', [3, 200, 0, 9]),
               ints('s32', [0, 2, 3, 1], (4, 1)),
               ints('u8', [5, 7, 1, 250]), dn, 'sub')
  # Variadic: a minimum of values with the argmax of their tags.
  computation = ('combine {\n  a = f32[] parameter(0)\n  ai = s32[] '
                 'parameter(1)\n  b = f32[] parameter(2)\n  bi = s32[] '
                 'parameter(3)\n  m = f32[] minimum(a, b)\n  n = s32[] '
                 'maximum(ai, bi)\n  ROOT t = (f32[], s32[]) tuple(m, n)\n}')
  scatter_case('variadic min and max', f32(RNG.integers(-9, 10, 12), (4, 3)),
               ints('u8', [3, 0, 3, 4, 1], (5,)),
               f32(RNG.integers(-9, 10, 15), (5, 3)),
               ([1], [0], [0], 1, [], []),
               (computation, lambda c, u: [min(c[0], u[0]), max(c[1], u[1])]),
               operand2=ints('s32', RNG.integers(-9, 10, 12), (4, 3)),
               updates2=ints('s32', RNG.integers(-9, 10, 15), (5, 3)))
  # Variadic and not commutative: take the update's pair.
  take_pair = ('combine {\n  a = f32[] parameter(0)\n  ai = s32[] '
               'parameter(1)\n  b = f32[] parameter(2)\n  bi = s32[] '
               'parameter(3)\n  ROOT t = (f32[], s32[]) tuple(b, bi)\n}')
  scatter_case('variadic take duplicates', f32(RNG.integers(-9, 10, 6)),
               ints('s32', [1, 4, 1, 6, 1], (5, 1)),
               f32(RNG.integers(-9, 10, 5)), dn,
               (take_pair, lambda c, u: [u[0], u[1]]),
               operand2=ints('s32', RNG.integers(-9, 10, 6)),
               updates2=ints('s32', RNG.integers(-9, 10, 5)))


# --------------------------------------------------- select-and-scatter ---


def select_and_scatter_reference(operand, source, init, sizes, strides, pads,
                                 select, combine):
  dims = operand.dims
  vals = np.array([from_bits(operand.t, b) for b in operand.bits],
                  dtype=object).reshape(dims)
  src = np.array([from_bits(source.t, b) for b in source.bits],
                 dtype=object).reshape(source.dims)
  out = np.empty(dims, dtype=object)
  out.fill(init)
  outputs = tuple((dims[d] + pads[d][0] + pads[d][1] - sizes[d]) // strides[d]
                  + 1 for d in range(len(dims)))
  assert outputs == source.dims, (outputs, source.dims)
  for position in np.ndindex(outputs):
    selected = None
    for tap in np.ndindex(tuple(sizes)):
      index = tuple(position[d] * strides[d] + tap[d] - pads[d][0]
                    for d in range(len(dims)))
      if any(i < 0 or i >= dims[d] for d, i in enumerate(index)):
        continue  # padding
      if selected is None or not select(vals[selected], vals[index]):
        selected = index
    if selected is not None:
      out[selected] = combine(out[selected], src[position])
  return Array(operand.t, dims, [to_bits(operand.t, v) for v in out.reshape(-1)])


SELECTS = {'GE': lambda a, b: a >= b, 'GT': lambda a, b: a > b,
           'LE': lambda a, b: a <= b, 'LT': lambda a, b: a < b}


def select_and_scatter_case(name, operand, sizes, strides, pads, direction,
                            combiner='add', source_values=None):
  t = operand.t
  outputs = tuple((operand.dims[d] + pads[d][0] + pads[d][1] - sizes[d]) //
                  strides[d] + 1 for d in range(len(sizes)))
  count = math.prod(outputs)
  if source_values is None:
    source_values = RNG.integers(1, 20, count)
  source = Array.of(t, [np.float32(v) if t == 'f32' else int(v)
                        for v in source_values], outputs)
  init = np.float32(0.5) if t == 'f32' else 3
  window = ' '.join([
      'size=' + 'x'.join(map(str, sizes)),
      'stride=' + 'x'.join(map(str, strides)),
      'pad=' + 'x'.join('%d_%d' % p for p in pads)])
  text, combine = COMBINERS[combiner]
  hlo = ('HloModule select_and_scatter\nselect {\n  a = %s[] parameter(0)\n'
         '  b = %s[] parameter(1)\n  ROOT c = pred[] compare(a, b), '
         'direction=%s\n}\n%s\nENTRY main {\n  x = %s parameter(0)\n'
         '  s = %s parameter(1)\n  z = %s[] parameter(2)\n'
         '  ROOT r = %s select-and-scatter(x, s, z), window={%s}, '
         'select=select, scatter=combine\n}\n' %
         (t, t, direction, text(t), operand.shape(), source.shape(), t,
          operand.shape(), window))
  expected = select_and_scatter_reference(
      operand, source, init, sizes, strides, pads, SELECTS[direction],
      lambda a, b: COMBINERS[combiner][1]([a], [b])[0])
  add_case('select-and-scatter/' + name, hlo,
           [operand, source, Array.of(t, [init], ())], [exact(expected)])


def select_and_scatter_cases():
  # Few distinct values, so windows hold ties: GE keeps the first maximum,
  # GT the last, LE the first minimum, LT the last.
  x = Array.of('f32', [np.float32(v) for v in RNG.integers(0, 3, 42)], (6, 7))
  for direction in ('GE', 'GT', 'LE', 'LT'):
    select_and_scatter_case('overlapping 3x3 stride 1 %s' % direction, x,
                            (3, 3), (1, 1), ((0, 0), (0, 0)), direction)
    select_and_scatter_case('3x2 stride 2x1 padded %s' % direction, x,
                            (3, 2), (2, 1), ((1, 1), (0, 1)), direction)
  # Max-pool gradient shape: 2x2 windows, stride 2, no overlap.
  select_and_scatter_case('2x2 stride 2 GE', x, (2, 2), (2, 2),
                          ((0, 0), (0, 1)), 'GE')
  # Padding wider than the window: some windows hold only padding, and
  # their source elements go nowhere.
  v = Array.of('f32', [np.float32(v) for v in RNG.integers(-5, 5, 5)], (5,))
  select_and_scatter_case('windows of padding only', v, (2,), (1,),
                          ((3, 2),), 'GE')
  # Negative values with a positive init; -0 and +0 tie under GE.
  z = Array.of('f32', [-0.0, 0.0, -1.0, 0.0, -0.0, -2.0, -0.0, 0.0], (8,))
  select_and_scatter_case('signed zeros tie GE', z, (3,), (1,), ((1, 1),),
                          'GE')
  select_and_scatter_case('signed zeros tie GT', z, (3,), (1,), ((1, 1),),
                          'GT')
  # Integers, and a non-commutative scatter where windows do not overlap
  # (each element gets at most one source element, so the order is moot).
  xi = ints('s32', RNG.integers(-4, 4, 30), (5, 6))
  select_and_scatter_case('s32 overlapping GE add', xi, (2, 3), (1, 2),
                          ((1, 0), (1, 1)), 'GE')
  select_and_scatter_case('s32 disjoint GT twice_plus', xi, (2, 3), (2, 3),
                          ((0, 1), (0, 0)), 'GT', 'twice_plus')


# ---------------------------------------------------------------- output ---

CPP_TYPE = {'f8e5m2': 'F8E5M2', 'f8e4m3fn': 'F8E4M3FN', 'pred': 'PRED', 's8': 'S8', 'u8': 'U8', 's16': 'S16',
            'u16': 'U16', 's32': 'S32', 'u32': 'U32', 's64': 'S64',
            'u64': 'U64', 'f16': 'F16', 'bf16': 'BF16', 'f32': 'F32',
            'f64': 'F64'}


def braces(values):
  return '{' + ', '.join(values) + '}'


def hexes(bits):
  return braces('0x%x' % b for b in bits)


def main():
  sort_cases()
  scatter_cases()
  select_and_scatter_cases()
  print('// Generated by tests/e2e/gen_structured_oracle_table.py; do not edit.')
  print('// {name, module, arguments {type, dims, bits}, results {type, dims,')
  print('//  expected bits, other allowed bits {element, bits}, any order}}')
  for name, hlo, arguments, results in CASES:
    print('{"%s",\n R"hlo(%s)hlo",' % (name, hlo))
    args = [braces([CPP_TYPE[a.t], braces(map(str, a.dims)), hexes(a.bits)])
            for a in arguments]
    print(' {%s},' % ',\n  '.join(args))
    outs = []
    for r in results:
      also = [braces([str(e), hexes(a[1:])])
              for e, a in enumerate(r.allowed) if len(a) > 1]
      outs.append(braces([CPP_TYPE[r.t], braces(map(str, r.dims)),
                          hexes(a[0] for a in r.allowed), braces(also),
                          'true' if r.any_order else 'false']))
    print(' {%s}},' % ',\n  '.join(outs))


if __name__ == '__main__':
  main()
