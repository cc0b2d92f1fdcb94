#!/usr/bin/python3
"""Writes edge_value_table.inc: the expected result of every elementwise op,
for every element type it accepts, on edge values (0, -0, 1, -1, inf, -inf,
NaN, denormals, the largest finite values, INT_MIN, INT_MAX, ...).

The values come from XLA's semantics, written down independently of mxla's
code (semantics/scalar_semantics.h is never consulted or called):
  * float +, -, *, /, sqrt, comparisons, float<->float and int->float
    conversions: IEEE 754 round-to-nearest-even, as NumPy's float32/float64
    compute them (no flush to zero);
  * remainder of floats: C fmod (NumPy's fmod); power of floats: C pow,
    its special cases from NumPy, other values exact (decimal) and rounded;
    the test allows libm's documented error (1 ulp) there;
  * exp, log, tanh, logistic: the exact value (Python's decimal module at 60
    digits), rounded to the type; the test allows the documented error
    (semantics/float32_math.h) for these only;
  * rsqrt: 1 / sqrt(x), both rounded in the type (XLA emits exactly that);
  * sine, cosine, tan, exponential-minus-one, log-plus-one, cbrt, erf,
    atan2, asin, acos, sinh, cosh, asinh, acosh, atan: the exact value (mpmath at
    60 digits) rounded to the type, IEEE special cases (C11 Annex F) by hand
    or from NumPy; the test allows libm's documented error there
    (semantics/scalar_semantics.h: glibc);
  * round-nearest-afz: halves away from zero; round-nearest-even: halves to
    even (exact, sign of zero kept); copy: the operand;
  * maximum/minimum: NaN if an operand is NaN, max(-0, +0) = +0 and
    min(-0, +0) = -0 (IEEE 754-2019 maximum/minimum, LLVM's llvm.maximum);
  * shifts: the amount read as unsigned; at least the bit width gives 0
    (arithmetic right shift: -1 for negative operands); popcnt and
    count-leading-zeros count the two's complement bits;
  * integers: two's complement wrapping; x / 0 = -1, INT_MIN / -1 = INT_MIN,
    x % 0 = x, INT_MIN % -1 = 0, truncating division; power with a negative
    exponent is 0 except for base 1 (the evaluator's HandlePower: (-1)^-3 =
    0); abs(INT_MIN) = INT_MIN;
  * convert: to pred x != 0; float -> int truncates, saturates, NaN -> 0;
    s64 -> s32 keeps the low 32 bits.

Run (needs Debian's python3-numpy and python3-mpmath, for regenerating only):
  /usr/bin/python3 tests/e2e/gen_edge_value_table.py > tests/e2e/edge_value_table.inc
"""
import decimal
import itertools
import math
import struct

import mpmath
import numpy as np

decimal.getcontext().prec = 60
mpmath.mp.dps = 60
D = decimal.Decimal

F32_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-45, -1e-45, 1.1754942e-38,
             1.17549435e-38, 3.4028235e38, -3.4028235e38, 88.75, -104.0,
             math.inf, -math.inf, math.nan]
F64_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 5e-324, -5e-324,
             2.2250738585072009e-308, 2.2250738585072014e-308,
             1.7976931348623157e308, -1.7976931348623157e308, 709.75, -745.5,
             math.inf, -math.inf, math.nan]
S32_EDGES = [0, 1, -1, 2, -3, 7, 31, 32, -2**31, 2**31 - 1, -2**31 + 1]
S64_EDGES = [0, 1, -1, 2, -3, 7, 63, 64, -2**63, 2**63 - 1, -2**63 + 1]
PRED_EDGES = [False, True]

# Each edge as the type holds it (1e-45 is the f32 denormal 1.4e-45).
F32_EDGES = [float(np.float32(x)) for x in F32_EDGES]
EDGES = {'f32': F32_EDGES, 'f64': F64_EDGES, 's32': S32_EDGES,
         's64': S64_EDGES, 'pred': PRED_EDGES}
FLOATS = ('f32', 'f64')
INTS = ('s32', 's64')
NP = {'f32': np.float32, 'f64': np.float64}
BITS = {'s32': 32, 's64': 64}


def wrap(x, t):
  n = BITS[t]
  x &= (1 << n) - 1
  return x - (1 << n) if x >> (n - 1) else x


def to_bits(x, t):
  """The element's bit pattern as an unsigned integer."""
  if t == 'pred':
    return int(bool(x))
  if t in INTS:
    return wrap(int(x), t) & ((1 << BITS[t]) - 1)
  if t == 'f32':
    return struct.unpack('<I', struct.pack('<f', float(np.float32(x))))[0]
  return struct.unpack('<Q', struct.pack('<d', float(x)))[0]


def fl(x, t):
  return NP[t](x)


# ---------------------------------------------------------------- integers

def int_div(a, b, t):
  lo = -(1 << (BITS[t] - 1))
  if b == 0:
    return -1
  if a == lo and b == -1:
    return lo
  q = abs(a) // abs(b)
  return q if (a < 0) == (b < 0) else -q


def int_rem(a, b, t):
  lo = -(1 << (BITS[t] - 1))
  if b == 0:
    return a
  if a == lo and b == -1:
    return 0
  return a - b * int_div(a, b, t)


def int_pow(a, b, t):
  """XLA's evaluator (xla/hlo/evaluator/hlo_evaluator_typed_visitor.h,
  HandlePower): 1^x = 1 and x^0 = 1 first; then a negative exponent gives 1
  for base 1 and 0 for every other base, -1 included ((-1)^-3 = 0);
  otherwise IPow (xla/util.h), which wraps."""
  if a == 1 or b == 0:
    return 1
  if b < 0:
    return 0
  return wrap(pow(a, b, 1 << BITS[t]), t)


def shifted_out(b, t):
  """XLA reads a shift amount as unsigned: at least the width shifts all."""
  return (b & ((1 << BITS[t]) - 1)) >= BITS[t]


def unsigned(a, t):
  return a & ((1 << BITS[t]) - 1)


INT_BINARY = {
    'add': lambda a, b, t: wrap(a + b, t),
    'subtract': lambda a, b, t: wrap(a - b, t),
    'multiply': lambda a, b, t: wrap(a * b, t),
    'divide': int_div,
    'remainder': int_rem,
    'maximum': lambda a, b, t: max(a, b),
    'minimum': lambda a, b, t: min(a, b),
    'power': int_pow,
    'and': lambda a, b, t: a & b,
    'or': lambda a, b, t: a | b,
    'xor': lambda a, b, t: a ^ b,
    'shift-left': lambda a, b, t: 0 if shifted_out(b, t) else wrap(a << b, t),
    'shift-right-logical':
        lambda a, b, t: 0 if shifted_out(b, t) else wrap(unsigned(a, t) >> b, t),
    # Python's >> on negative integers is arithmetic (rounds down).
    'shift-right-arithmetic':
        lambda a, b, t: (-1 if a < 0 else 0) if shifted_out(b, t) else a >> b,
}
INT_UNARY = {
    'popcnt': lambda a, t: bin(unsigned(a, t)).count('1'),
    'count-leading-zeros': lambda a, t: BITS[t] - unsigned(a, t).bit_length(),
    'negate': lambda a, t: wrap(-a, t),
    'abs': lambda a, t: wrap(abs(a), t),
    'sign': lambda a, t: (a > 0) - (a < 0),
    'not': lambda a, t: ~a,
    'copy': lambda a, t: a,
}

# ------------------------------------------------------------------ floats


def fmax(a, b, t):
  if math.isnan(a) or math.isnan(b):
    return math.nan
  if a == 0 and b == 0:
    return 0.0 if (math.copysign(1, a) > 0 or math.copysign(1, b) > 0) else -0.0
  return max(a, b)


def fmin(a, b, t):
  if math.isnan(a) or math.isnan(b):
    return math.nan
  if a == 0 and b == 0:
    return -0.0 if (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else 0.0
  return min(a, b)


def pow_exact(a, b, t):
  """C's pow: its special cases (C11 Annex F) from NumPy, which follows
  them, and otherwise the exact value rounded to the type."""
  special = (not math.isfinite(a) or not math.isfinite(b) or a == 0 or
             b == 0 or a == 1 or (a < 0 and b != int(b)))
  if special:
    return np.power(fl(a, t), fl(b, t))
  # Far beyond any float's range: the signed infinity or zero.
  negative = a < 0 and b == int(b) and int(b) % 2 == 1
  digits = b * math.log10(abs(a))
  if abs(digits) > 400:
    return math.copysign(math.inf if digits > 0 else 0.0, -1 if negative else 1)
  with decimal.localcontext() as context:
    context.prec = 80
    context.Emax = 10**9
    context.Emin = -10**9
    return exact(lambda d: d ** D(b), a, t)


FLOAT_BINARY = {
    'add': lambda a, b, t: fl(a, t) + fl(b, t),
    'subtract': lambda a, b, t: fl(a, t) - fl(b, t),
    'multiply': lambda a, b, t: fl(a, t) * fl(b, t),
    'divide': lambda a, b, t: fl(a, t) / fl(b, t),
    'remainder': lambda a, b, t: np.fmod(fl(a, t), fl(b, t)),
    'maximum': fmax,
    'minimum': fmin,
    'power': lambda a, b, t: pow_exact(a, b, t),
    'atan2': lambda a, b, t: atan2_exact(a, b, t),
}


def exact(fn, x, t):
  """fn (on Decimals) of x rounded to type t; IEEE specials by hand."""
  return fl(float(fn(D(float(x)))), t)


def exp_exact(x, t):
  if math.isnan(x):
    return math.nan
  if math.isinf(x):
    return math.inf if x > 0 else 0.0
  if x > 1000:
    return math.inf
  if x < -1000:
    return 0.0
  return exact(lambda d: d.exp(), x, t)


def log_exact(x, t):
  if math.isnan(x) or x < 0:
    return math.nan
  if x == 0:
    return -math.inf
  if math.isinf(x):
    return math.inf
  return exact(lambda d: d.ln(), x, t)


def tanh_exact(x, t):
  if math.isnan(x):
    return math.nan
  if x == 0:
    return x  # keeps the sign of zero
  if abs(x) > 40:
    return math.copysign(1.0, x)
  # Enough digits that exp(x) - exp(-x) keeps its precision for denormal x.
  with decimal.localcontext() as context:
    context.prec = 800
    return exact(lambda d: (d.exp() - (-d).exp()) / (d.exp() + (-d).exp()), x, t)


def logistic_exact(x, t):
  if math.isnan(x):
    return math.nan
  if x == math.inf:
    return 1.0
  if x == -math.inf or x < -1000:
    return 0.0
  if x > 1000:
    return 1.0
  return exact(lambda d: 1 / (1 + (-d).exp()), x, t)


def mp_exact(fn, x, t):
  """fn (on mpmath numbers) of x rounded to type t."""
  return fl(float(fn(mpmath.mpf(float(x)))), t)


def libm_unary(op):
  """The exact value of op, its specials (NaN, infinities, zeros, domain
  edges) as C11 Annex F gives them."""
  def value(x, t):
    if math.isnan(x):
      return math.nan
    if x == 0 and op != 'cosine':
      return x  # every one of these keeps the signed zero
    if math.isinf(x):
      return {'sine': math.nan, 'cosine': math.nan, 'tan': math.nan,
              'exponential-minus-one': math.inf if x > 0 else -1.0,
              'log-plus-one': math.inf if x > 0 else math.nan,
              'cbrt': x, 'erf': math.copysign(1.0, x)}[op]
    if op == 'log-plus-one' and x <= -1:
      return -math.inf if x == -1 else math.nan
    if op == 'exponential-minus-one' and x > 1000:
      return math.inf
    fn = {'sine': mpmath.sin, 'cosine': mpmath.cos, 'tan': mpmath.tan,
          'exponential-minus-one': mpmath.expm1, 'log-plus-one': mpmath.log1p,
          'cbrt': mpmath.cbrt,
          'erf': mpmath.erf}[op]
    if op == 'cbrt' and x < 0:
      return -mp_exact(fn, -x, t)
    return mp_exact(fn, x, t)
  return value


def inverse_or_hyperbolic(op):
  """asin, acos, sinh, cosh, asinh, acosh, atan: the exact value (mpmath),
  NaN outside the domain, the C11 Annex F specials (signed zeros kept by the
  odd functions, acos(1) = acosh(1) = +0, infinities; atan(±inf) = ±pi/2
  rounded)."""
  fn = {'asin': mpmath.asin, 'acos': mpmath.acos, 'sinh': mpmath.sinh,
        'cosh': mpmath.cosh, 'asinh': mpmath.asinh,
        'acosh': mpmath.acosh, 'atan': mpmath.atan}[op]
  odd = op in ('asin', 'sinh', 'asinh', 'atan')

  def value(x, t):
    if math.isnan(x):
      return math.nan
    if op in ('asin', 'acos') and abs(x) > 1:
      return math.nan
    if op == 'acosh' and x < 1:
      return math.nan
    if x == 0 and odd:
      return x
    if op in ('acos', 'acosh') and x == 1:
      return 0.0
    if math.isinf(x) and op == 'atan':
      return math.copysign(mp_exact(fn, math.inf, t), x)
    if math.isinf(x):
      return x if odd else math.inf
    if op in ('sinh', 'cosh') and abs(x) > 1000:
      return math.copysign(math.inf, x) if odd else math.inf
    if odd and x < 0:
      return -mp_exact(fn, -x, t)
    return mp_exact(fn, x, t)
  return value


def atan2_exact(y, x, t):
  if math.isnan(x) or math.isnan(y) or y == 0 or math.isinf(x) or \
      math.isinf(y):
    return np.arctan2(fl(y, t), fl(x, t))  # Annex F's special cases
  if x == 0:
    return math.copysign(fl(float(mpmath.pi / 2), t), y)
  return fl(float(mpmath.atan2(mpmath.mpf(float(y)), mpmath.mpf(float(x)))), t)


def round_afz(x, t):
  if math.isnan(x) or math.isinf(x):
    return x
  r = float(D(float(x)).to_integral_value(rounding=decimal.ROUND_HALF_UP))
  return math.copysign(r, x)


def sign_float(x, t):
  if math.isnan(x) or x == 0:
    return x
  return math.copysign(1.0, x)


FLOAT_UNARY = {
    'negate': lambda a, t: -fl(a, t),
    'abs': lambda a, t: abs(fl(a, t)),
    'sign': sign_float,
    'exponential': exp_exact,
    'log': log_exact,
    'tanh': tanh_exact,
    'logistic': logistic_exact,
    'sqrt': lambda a, t: np.sqrt(fl(a, t)),
    'rsqrt': lambda a, t: fl(1, t) / np.sqrt(fl(a, t)),
    'floor': lambda a, t: np.floor(fl(a, t)),
    'ceil': lambda a, t: np.ceil(fl(a, t)),
    'round-nearest-afz': round_afz,
    'round-nearest-even': lambda a, t: np.rint(fl(a, t)),
    'copy': lambda a, t: fl(a, t),
}
for _op in ('sine', 'cosine', 'tan', 'exponential-minus-one', 'log-plus-one',
            'cbrt', 'erf'):
  FLOAT_UNARY[_op] = libm_unary(_op)
for _op in ('asin', 'acos', 'sinh', 'cosh', 'asinh', 'acosh', 'atan'):
  FLOAT_UNARY[_op] = inverse_or_hyperbolic(_op)

PRED_BINARY = {
    'add': lambda a, b, t: a or b,
    'multiply': lambda a, b, t: a and b,
    'maximum': lambda a, b, t: a or b,
    'minimum': lambda a, b, t: a and b,
    'and': lambda a, b, t: a and b,
    'or': lambda a, b, t: a or b,
    'xor': lambda a, b, t: a != b,
}
PRED_UNARY = {'not': lambda a, t: not a, 'copy': lambda a, t: a}

COMPARES = {
    'EQ': lambda a, b: a == b, 'NE': lambda a, b: a != b,
    'LT': lambda a, b: a < b, 'LE': lambda a, b: a <= b,
    'GT': lambda a, b: a > b, 'GE': lambda a, b: a >= b,
}

# ----------------------------------------------------------------- convert

RANGE = {'s32': (-2**31, 2**31 - 1), 's64': (-2**63, 2**63 - 1)}


def convert(x, src, dst):
  if dst == 'pred':
    return bool(x != 0) if not (src in FLOATS and math.isnan(x)) else True
  if src == 'pred':
    return int(x) if dst in INTS else fl(float(x), dst)
  if dst in INTS:
    if src in INTS:
      return wrap(x, dst)
    if math.isnan(x):
      return 0
    lo, hi = RANGE[dst]
    if x <= lo:
      return lo
    if x >= hi:
      return hi
    return int(x)  # truncates toward zero
  # to a float: round to nearest even in one step (NumPy converts an
  # int64 or a float64 directly).
  if src in INTS:
    return np.array([x], dtype=np.int64).astype(NP[dst])[0]
  return np.array([x], dtype=NP[src]).astype(NP[dst])[0]


# ------------------------------------------------------------------ output

def binary_table():
  for t in ('pred', 's32', 's64', 'f32', 'f64'):
    ops = PRED_BINARY if t == 'pred' else INT_BINARY if t in INTS else FLOAT_BINARY
    for op, fn in ops.items():
      for a, b in itertools.product(EDGES[t], repeat=2):
        yield op, t, t, a, b, fn(a, b, t)
    for direction, fn in COMPARES.items():
      for a, b in itertools.product(EDGES[t], repeat=2):
        if t in FLOATS:
          a32, b32 = fl(a, t), fl(b, t)
          yield 'compare-' + direction, t, 'pred', a, b, fn(a32, b32)
        else:
          yield 'compare-' + direction, t, 'pred', a, b, fn(int(a), int(b))


def unary_table():
  for t in ('pred', 's32', 's64', 'f32', 'f64'):
    ops = PRED_UNARY if t == 'pred' else INT_UNARY if t in INTS else FLOAT_UNARY
    for op, fn in ops.items():
      for a in EDGES[t]:
        yield op, t, t, a, 0, fn(a, t)
    for dst in ('pred', 's32', 's64', 'f32', 'f64'):
      if dst != t:
        for a in EDGES[t]:
          yield 'convert', t, dst, a, 0, convert(a, t, dst)


def main():
  print('// Generated by tests/e2e/gen_edge_value_table.py; do not edit.')
  print('// {op, operand type, result type, a bits, b bits, expected bits}')
  with np.errstate(all='ignore'):
    for op, t, rt, a, b, r in itertools.chain(binary_table(), unary_table()):
      b_bits = to_bits(b, t) if not op.startswith(('convert',)) else 0
      print('{"%s", %s, %s, 0x%x, 0x%x, 0x%x},' % (
          op, t.upper(), rt.upper(), to_bits(a, t), b_bits, to_bits(r, rt)))


if __name__ == '__main__':
  main()
