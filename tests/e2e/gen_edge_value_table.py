#!/usr/bin/python3
"""Writes edge_value_table.inc: the expected result of every elementwise op,
for every element type it accepts, on edge values (0, -0, 1, -1, inf, -inf,
NaN, denormals, the largest finite values, INT_MIN, INT_MAX, ...). Types:
pred; s2, s4, s8, s16, s32, s64, u2, u4, u8, u16, u32, u64; f16, bf16, the
f8 types f8e5m2, f8e4m3, f8e3m4, f8e4m3fn, f8e4m3fnuz, f8e5m2fnuz,
f8e4m3b11fnuz; the MX types f4e2m1fn and f8e8m0fnu; f32, f64.

The values come from XLA's rules, written down here from XLA's sources
(the reference is its evaluator, xla/hlo/evaluator/hlo_evaluator.cc and
hlo_evaluator_typed_visitor.h, "the evaluator" below) independently of
mxla's code (semantics/scalar_semantics.h is never consulted or called):
  * float +, -, *, /, sqrt, comparisons, float<->float and int->float
    conversions: IEEE 754 round-to-nearest-even, as NumPy's float32/float64
    compute them (no flush to zero);
  * f16, bf16 and the f8 types compute every op in f32 and round the f32
    result to the type (the evaluator's typed visitors <half, float>,
    <bfloat16, float>, <float8_*, float>); the rounding is ml_dtypes'
    (ml_dtypes/include/float8.h, ConvertImpl; Eigen's half and bfloat16):
    nearest even, subnormals kept, overflow and inf to inf ('ieee' types)
    or NaN (f8e4m3fn and the fnuz types, which have no infinity), no -0 in
    the fnuz types; this file rounds with exact fractions (round_to);
  * f4e2m1fn and f8e8m0fnu compute in f32 too (the evaluator's
    HloEvaluatorTypedVisitor<float4_e2m1fn, float> and <float8_e8m0fnu,
    float>, xla/hlo/evaluator/hlo_evaluator_typed_visitor_mxfloat.cc), and
    round with ml_dtypes' ConvertImpl (ml_dtypes/include/float8.h at
    00b4fab338dd, with mxfloat.h for f4e2m1fn; see round_to and
    round_to_e8m0): f4e2m1fn has no inf and no NaN, its 'infinity()' is
    its largest value 6, so overflow and ±inf give ±6 and a NaN gives the
    'quiet_NaN()' 0b1000 (-0) for a NaN without a sign bit, +0 for one
    with it (the sign of a NaN that an op makes is the hardware's, so the
    table accepts either zero there: F4_NAN below); f8e8m0fnu is 2^(b-127)
    for b < 255 and NaN for 0xFF, with no sign and no zero: 0, -0,
    negative values, ±inf and NaN all become 0xFF, and a positive value
    rounds on its exponent as ConvertImpl's bit arithmetic does (the
    mantissa 1.m rounds to nearest, the tie 1.5 up; a value between
    2^-127 and 2^-126 goes up to 2^-126, and one at or below 2^-127 is
    0x00 = 2^-127); from f64 both round once (ml_dtypes' cast from double
    is ConvertImpl<double, To>, with no f32 step);
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
    min(-0, +0) = -0 (IEEE 754-2019 maximum/minimum, LLVM's llvm.maximum,
    which XLA:CPU emits; the evaluator's std::max keeps the first of two
    equal zeros);
  * integers (the evaluator computes s8..s32 in int64, u8..u32 in uint64,
    and casts back, so every op wraps at the type's width):
    two's complement wrapping; HandleDivide: x / 0 = -1 (all ones, so the
    maximum for unsigned types), INT_MIN / -1 = INT_MIN, truncating
    division; HandleRemainder: x % 0 = x, INT_MIN % -1 = 0;
    HandlePower: x^0 = 1^x = 1, a negative exponent gives 0 for every
    other base ((-1)^-3 = 0), otherwise IPow (xla/util.h) wraps;
    abs(INT_MIN) = INT_MIN, abs of unsigned is the identity;
  * shifts (HandleShiftLeft, HandleShiftRight*, IsShiftOutOfBounds): the
    amount read as unsigned at the type's width; at least the bit width
    gives 0 (arithmetic right shift: -1 for negative operands, unsigned
    operands read as signed); popcnt and count-leading-zeros count the
    type's own bits;
  * convert (xla/literal.cc, Literal::Convert): to pred x != 0; float -> int
    truncates, saturates, NaN -> 0; int -> int keeps the low bits; into f16
    and bf16 from f64 or an integer through f32 (Eigen's casts); see
    convert() for the f8 types.

Run (needs Debian's python3-numpy and python3-mpmath, for regenerating only):
  /usr/bin/python3 tests/e2e/gen_edge_value_table.py > tests/e2e/edge_value_table.inc
"""
import decimal
from fractions import Fraction
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

# Integer types: (bits, signed). XLA's s2, s4, u2 and u4 are held one
# element a byte, sign- or zero-extended (XLA's unpacked form), and wrap at
# their own width (the evaluator computes in int64/uint64 and casts back:
# xla/hlo/evaluator/hlo_evaluator.cc, typed_visitors_ of <ReturnT,
# ElementwiseT>).
INT_TYPES = {'s2': (2, True), 's4': (4, True), 's8': (8, True),
             's16': (16, True), 's32': (32, True), 's64': (64, True),
             'u2': (2, False), 'u4': (4, False), 'u8': (8, False),
             'u16': (16, False), 'u32': (32, False), 'u64': (64, False)}
# Floats narrower than f32: (exponent bits, mantissa bits, bias, kind), as
# ml_dtypes defines them (ml_dtypes/include/float8.h, numeric_limits_*;
# Eigen::half and bfloat16 for f16 and bf16). kind: 'ieee' has ±inf and
# NaNs in the all-ones exponent; 'fn' has no infinity and only S.1111.111
# is NaN; 'fnuz' has no infinity and no -0, and 0x80 is its one NaN.
SMALL_FLOATS = {'f16': (5, 10, 15, 'ieee'), 'bf16': (8, 7, 127, 'ieee'),
                'f8e5m2': (5, 2, 15, 'ieee'), 'f8e4m3': (4, 3, 7, 'ieee'),
                'f8e3m4': (3, 4, 3, 'ieee'), 'f8e4m3fn': (4, 3, 7, 'fn'),
                'f8e4m3fnuz': (4, 3, 8, 'fnuz'),
                'f8e5m2fnuz': (5, 2, 16, 'fnuz'),
                'f8e4m3b11fnuz': (4, 3, 11, 'fnuz'),
                # mxfloat.h: E2M1, bias 1, no inf and no NaN ('mx').
                'f4e2m1fn': (2, 1, 1, 'mx'),
                # float8.h: 8 exponent bits, no sign, no mantissa, bias 127.
                'f8e8m0fnu': (8, 0, 127, 'e8m0')}
# The table's mark for "a NaN rounded to f4e2m1fn": +0 or -0, by the sign of
# a NaN the hardware made (4 bits cannot hold 0x100).
F4_NAN = 0x100
F32_FORMAT = (8, 23, 127, 'ieee')

FLOATS = ('f32', 'f64') + tuple(SMALL_FLOATS)
INTS = tuple(INT_TYPES)
NP = {'f32': np.float32, 'f64': np.float64}
# Every type, the first five in the table's original order.
TYPES = ('pred', 's32', 's64', 'f32', 'f64', 's2', 's4', 's8', 's16', 'u2',
         'u4', 'u8', 'u16', 'u32', 'u64') + tuple(SMALL_FLOATS)


def int_range(t):
  n, signed = INT_TYPES[t]
  return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)


def wrap(x, t):
  """x modulo 2^bits, read as the type reads it (two's complement)."""
  n, signed = INT_TYPES[t]
  x &= (1 << n) - 1
  return x - (1 << n) if signed and x >> (n - 1) else x


def int_edges(t):
  n, signed = INT_TYPES[t]
  lo, hi = int_range(t)
  if signed:
    values = [0, 1, -1, 2, -3, 7, n - 1, n, lo, hi, lo + 1]
  else:
    values = [0, 1, 2, 3, 7, n - 1, n, hi, hi - 1, 1 << (n - 1),
              (1 << (n - 1)) - 1]
  edges = []
  for v in values:
    v = wrap(v, t)
    if v not in edges:
      edges.append(v)
  return edges


# ------------------------------------------------- small float encodings
# Exact arithmetic (fractions), not NumPy's float16 nor ml_dtypes: the
# rounding rule is ml_dtypes' ConvertImpl (float8.h): round to nearest,
# ties to even, at the format's precision, subnormals included; a value
# past the largest finite one after rounding, and an infinity, become inf
# ('ieee') or NaN ('fn', 'fnuz'); a NaN stays NaN; 'fnuz' has no -0, so a
# negative value that rounds to zero is +0.


def floor_log2(a):
  """floor(log2(a)) of a positive Fraction."""
  k = a.numerator.bit_length() - a.denominator.bit_length()
  if Fraction(2) ** k > a:
    k -= 1
  elif Fraction(2) ** (k + 1) <= a:
    k += 1
  return k


def max_finite(fmt):
  e, m, bias, kind = fmt
  top = (1 << e) - 1
  if kind == 'e8m0':
    return Fraction(2) ** (top - 1 - bias)  # 0xFE; 0xFF is NaN
  exponent, fraction = {'ieee': (top - 1, (1 << m) - 1),
                        'fn': (top, (1 << m) - 2),
                        'fnuz': (top, (1 << m) - 1),
                        'mx': (top, (1 << m) - 1)}[kind]
  return (1 + Fraction(fraction, 1 << m)) * Fraction(2) ** (exponent - bias)


def nan_bits(fmt):
  e, m, bias, kind = fmt
  if kind == 'e8m0':
    return 0xFF
  if kind == 'fnuz':
    return 1 << (e + m)
  if kind == 'fn':
    return (1 << (e + m)) - 1
  return (((1 << e) - 1) << m) | (1 << (m - 1))


def round_to_e8m0(x):
  """f8e8m0fnu's bits for x, as ConvertImpl<From, float8_e8m0fnu> computes
  them (float8.h): NaN, ±inf, ±0 and negative values give 0xFF (NaN; the
  type has no zero and no sign, and its unary minus is NaN). A positive
  x = m * 2^k (1 <= m < 2) has target_biased_exponent_base k + 126 and a
  denormal adjustment d = max(0, -(k + 126)); RoundBitsToNearestEven drops
  every mantissa bit plus d more, which rounds x / 2^(k + d) to the nearest
  integer, ties to even (m = 1.5 gives 2; below 2^-126 the whole value
  becomes 0 or 1), and the exponent base adds on: bits = that integer +
  max(0, k + 126). Past 0xFE is NaN (its 'infinity()')."""
  if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
    return 0xFF
  if x <= 0:
    return 0xFF
  a = Fraction(x)
  k = floor_log2(a)
  base = k + 127 - 1
  n = a / Fraction(2) ** (k + max(0, -base))
  whole = n.numerator // n.denominator
  rest = n - whole
  if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
    whole += 1
  bits = whole + max(0, base)
  return 0xFF if bits > 0xFE else bits


def round_to(fmt, x):
  """The bits of the value x (a float, or an exact Fraction) rounded to fmt."""
  e, m, bias, kind = fmt
  if kind == 'e8m0':
    return round_to_e8m0(x)
  sign_bit = 1 << (e + m)
  if isinstance(x, float) and math.isnan(x):
    if kind == 'mx':  # -quiet_NaN() for a NaN with the sign bit
      return 0 if math.copysign(1, x) < 0 else sign_bit
    return nan_bits(fmt)
  negative = x < 0 or (isinstance(x, float) and math.copysign(1, x) < 0)
  sign = sign_bit if negative else 0
  if isinstance(x, float) and math.isinf(x):
    if kind == 'mx':  # infinity() is the largest value, 0b0111
      return sign | ((1 << (e + m)) - 1)
    return sign | (((1 << e) - 1) << m) if kind == 'ieee' else nan_bits(fmt)
  a = abs(Fraction(x))
  min_exponent = 1 - bias
  magnitude = 0
  if a != 0:
    quantum = Fraction(2) ** (max(floor_log2(a), min_exponent) - m)
    n = a / quantum
    whole = n.numerator // n.denominator
    rest = n - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
      whole += 1
    value = whole * quantum
    if value > max_finite(fmt):
      if kind == 'mx':  # infinity(), the largest value
        return sign | ((1 << (e + m)) - 1)
      return sign | (((1 << e) - 1) << m) if kind == 'ieee' else nan_bits(fmt)
    if value < Fraction(2) ** min_exponent:
      magnitude = int(value / Fraction(2) ** (min_exponent - m))
    elif value != 0:
      k = floor_log2(value)
      fraction = int((value / Fraction(2) ** k - 1) * (1 << m))
      magnitude = ((k + bias) << m) | fraction
  if magnitude == 0 and kind == 'fnuz':
    return 0
  return sign | magnitude


def decode(fmt, bits):
  """The value of fmt's bit pattern, as a float (exact)."""
  e, m, bias, kind = fmt
  if kind == 'e8m0':
    return math.nan if bits == 0xFF else float(Fraction(2) ** (bits - bias))
  sign = -1.0 if bits >> (e + m) else 1.0
  exponent = (bits >> m) & ((1 << e) - 1)
  fraction = bits & ((1 << m) - 1)
  if kind == 'mx':
    pass  # no NaN
  elif bits == nan_bits(fmt) or (kind == 'fn' and bits & ~(1 << (e + m)) ==
                                nan_bits(fmt)):
    return math.nan
  if kind == 'ieee' and exponent == (1 << e) - 1:
    return sign * math.inf if fraction == 0 else math.nan
  if exponent == 0:
    return sign * float(Fraction(fraction) * Fraction(2) ** (1 - bias - m))
  return sign * float((1 + Fraction(fraction, 1 << m)) *
                      Fraction(2) ** (exponent - bias))


def small_float_edges(t):
  fmt = SMALL_FLOATS[t]
  e, m, bias, kind = fmt
  if kind == 'mx':  # its zeros, subnormal, 1, 1.5, larger ones and max
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -3.0, 4.0, 6.0, -6.0]
  elif kind == 'e8m0':  # 2^-127, 2^-126, 0.5, 1, 2, 4, 2^126, 2^127, NaN
    values = [float(Fraction(2) ** k) for k in (-127, -126, -1, 0, 1, 2, 126,
                                                127)] + [math.nan]
  if kind in ('mx', 'e8m0'):
    for v in values:
      assert math.isnan(v) or decode(fmt, round_to(fmt, v)) == v, (t, v)
    return values
  tiny = float(Fraction(2) ** (1 - bias - m))
  largest_subnormal = float(((1 << m) - 1) * Fraction(2) ** (1 - bias - m))
  smallest_normal = float(Fraction(2) ** (1 - bias))
  largest = float(max_finite(fmt))
  values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, tiny, -tiny,
            largest_subnormal, smallest_normal, largest, -largest, math.inf,
            -math.inf, math.nan]
  if kind != 'ieee':
    values = [v for v in values if not math.isinf(v)]
  if kind == 'fnuz':
    values = [v for v in values if not (v == 0 and math.copysign(1, v) < 0)]
  for v in values:  # each is exact in the format
    assert math.isnan(v) or decode(fmt, round_to(fmt, v)) == v, (t, v)
  return values


EDGES = {'f32': F32_EDGES, 'f64': F64_EDGES, 'pred': PRED_EDGES}
EDGES.update({t: int_edges(t) for t in INT_TYPES})
EDGES.update({t: small_float_edges(t) for t in SMALL_FLOATS})
assert EDGES['s32'] == S32_EDGES and EDGES['s64'] == S64_EDGES


def storage_bytes(t):
  if t == 'pred':
    return 1
  if t in INT_TYPES:
    return max(1, INT_TYPES[t][0] // 8)
  if t in SMALL_FLOATS:
    return 2 if t in ('f16', 'bf16') else 1
  return 4 if t == 'f32' else 8


def to_bits(x, t):
  """The element's bit pattern as an unsigned integer (what memory holds:
  s2/s4 sign-extended into their byte); a small float rounds x to it."""
  if t == 'pred':
    return int(bool(x))
  if t in INT_TYPES:
    return wrap(int(x), t) & ((1 << (8 * storage_bytes(t))) - 1)
  if t in SMALL_FLOATS:
    return round_to(SMALL_FLOATS[t], float(x))
  if t == 'f32':
    return struct.unpack('<I', struct.pack('<f', float(np.float32(x))))[0]
  return struct.unpack('<Q', struct.pack('<d', float(x)))[0]


def fl(x, t):
  return NP[t](x)


# ---------------------------------------------------------------- integers
# The evaluator's integer rules (xla/hlo/evaluator/
# hlo_evaluator_typed_visitor.h: HandleDivide, HandleRemainder, HandlePower,
# HandleShift*; hlo_evaluator.cc for the types), at the type's own width.


def int_div(a, b, t):
  """HandleDivide: x / 0 is -1 (signed) or the maximum (unsigned: all ones
  either way); INT_MIN / -1 is INT_MIN; otherwise truncating division."""
  lo, hi = int_range(t)
  if b == 0:
    return -1 if INT_TYPES[t][1] else hi
  if a == lo and b == -1:
    return lo
  q = abs(a) // abs(b)
  return q if (a < 0) == (b < 0) else -q


def int_rem(a, b, t):
  """HandleRemainder: x % 0 is x; INT_MIN % -1 is 0; else C's %."""
  lo, _ = int_range(t)
  if b == 0:
    return a
  if a == lo and b == -1:
    return 0
  return a - b * int_div(a, b, t)


def int_pow(a, b, t):
  """HandlePower: 1^x = 1 and x^0 = 1 first (0^0 = 1); a signed exponent
  below 0 then gives 1 if the base is 1 and 0 otherwise ((-1)^-3 = 0);
  otherwise IPow (xla/util.h: repeated squaring in the unsigned type, so
  the value wraps modulo 2^bits). IPow takes its exponent as an `int`, with
  the precondition that it is not negative (a DCHECK); the evaluator has no
  defined result for exponents of 2^31 and more (u32, s64, u64), and
  XLA:CPU's EmitIntegerPow reads only the exponent's low 6 bits. This table
  gives the exact wrapped power for them, which is the evaluator's result
  for every exponent it defines."""
  if a == 1 or b == 0:
    return 1
  if b < 0:
    return 0
  n, _ = INT_TYPES[t]
  return wrap(pow(a, b, 1 << n), t)


def unsigned(a, t):
  return a & ((1 << INT_TYPES[t][0]) - 1)


def as_signed(a, t):
  n, _ = INT_TYPES[t]
  a = unsigned(a, t)
  return a - (1 << n) if a >> (n - 1) else a


def shifted_out(b, t):
  """IsShiftOutOfBounds: the amount is read as unsigned at the type's
  width; at least the width shifts every bit out."""
  return unsigned(b, t) >= INT_TYPES[t][0]


def shift_right_arithmetic(a, b, t):
  """HandleShiftRightArithmetic: the operand read as signed at its width
  (unsigned types too); out of bounds gives -1 for a negative operand."""
  s = as_signed(a, t)
  if shifted_out(b, t):
    return wrap(-1 if s < 0 else 0, t)
  return wrap(s >> b, t)  # Python's >> is arithmetic


INT_BINARY = {
    'add': lambda a, b, t: wrap(a + b, t),
    'subtract': lambda a, b, t: wrap(a - b, t),
    'multiply': lambda a, b, t: wrap(a * b, t),
    'divide': int_div,
    'remainder': int_rem,
    'maximum': lambda a, b, t: max(a, b),
    'minimum': lambda a, b, t: min(a, b),
    'power': int_pow,
    'and': lambda a, b, t: wrap(a & b, t),
    'or': lambda a, b, t: wrap(a | b, t),
    'xor': lambda a, b, t: wrap(a ^ b, t),
    'shift-left': lambda a, b, t: 0 if shifted_out(b, t) else wrap(a << b, t),
    'shift-right-logical':
        lambda a, b, t: 0 if shifted_out(b, t) else wrap(unsigned(a, t) >> b, t),
    'shift-right-arithmetic': shift_right_arithmetic,
}
# popcnt and count-leading-zeros count the type's own bits (the evaluator's
# HandlePopulationCount/HandleClz on the unsigned type of ReturnT's width,
# and XLA:CPU's llvm.ctpop/llvm.ctlz on the element's integer type).
INT_UNARY = {
    'popcnt': lambda a, t: bin(unsigned(a, t)).count('1'),
    'count-leading-zeros':
        lambda a, t: INT_TYPES[t][0] - unsigned(a, t).bit_length(),
    'negate': lambda a, t: wrap(-a, t),
    'abs': lambda a, t: wrap(abs(a), t),  # unsigned: the identity
    'sign': lambda a, t: (a > 0) - (a < 0),
    'not': lambda a, t: wrap(~a, t),
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
# Literal::Convert (xla/literal.cc) and primitive_util's conversions.


def exact_to_f32(x):
  """An integer rounded once to f32 (static_cast<float> of the integer)."""
  return decode(F32_FORMAT, round_to(F32_FORMAT, Fraction(x)))


def convert(x, src, dst):
  """to pred: x != 0 (NaN too); from pred: 0 or 1; float -> int: NaN is 0,
  out of range saturates (negative to unsigned: 0), else truncates toward
  zero; int -> int: wraps; int -> f32/f64 rounds once to nearest even;
  float -> float rounds once. Into f16 and bf16 from f64 or an integer
  (Eigen's half(T) and bfloat16(T) cast to float first) the value rounds
  to f32 and then to the type; the f8 types do the same here, and for
  them the generator checks that one rounding would give the same bits,
  so the table does not depend on that choice."""
  if dst == 'pred':
    return bool(x != 0) if not (src in FLOATS and math.isnan(x)) else True
  if src == 'pred':
    x = int(x)
  if dst in INTS:
    if src == 'pred' or src in INTS:
      return wrap(int(x), dst)
    if math.isnan(x):
      return 0
    lo, hi = int_range(dst)
    if x <= lo:
      return lo
    if x >= hi:
      return hi
    return int(x)  # truncates toward zero
  integral = src == 'pred' or src in INTS
  if dst == 'f64':
    return float(x)  # Python rounds an int to the nearest even double
  if dst == 'f32':
    return exact_to_f32(x) if integral else float(np.float32(x))
  # A small float: through f32 from an integer or f64.
  if src == 'f64' and SMALL_FLOATS[dst][3] in ('mx', 'e8m0'):
    # ml_dtypes' float8_base(double) is ConvertImpl<double, To> itself (no
    # f32 step; Literal::Convert's static_cast), and here the routes differ:
    # the f64 denormal 5e-324 is 0x00 (2^-127) in f8e8m0fnu, its f32 value
    # 0 would be NaN.
    return x
  if integral:
    via_f32 = exact_to_f32(x)
    direct = round_to(SMALL_FLOATS[dst], Fraction(x))
  elif src == 'f64':
    via_f32 = float(np.float32(x))
    direct = round_to(SMALL_FLOATS[dst], x)
  else:
    return x
  if dst not in ('f16', 'bf16'):
    assert round_to(SMALL_FLOATS[dst], via_f32) == direct, (x, src, dst)
  return via_f32


# ------------------------------------------------------------------ output

def binary_ops(t):
  if t == 'pred':
    return PRED_BINARY
  return INT_BINARY if t in INTS else FLOAT_BINARY


def unary_ops(t):
  if t == 'pred':
    return PRED_UNARY
  return INT_UNARY if t in INTS else FLOAT_UNARY


def compute_type(t):
  """Small floats compute in f32 and round to their type at the end
  (the evaluator's HloEvaluatorTypedVisitor<half, float>, <bfloat16,
  float>, <float8_*, float>)."""
  return 'f32' if t in SMALL_FLOATS else t


def binary_table():
  for t in TYPES:
    for op, fn in binary_ops(t).items():
      for a, b in itertools.product(EDGES[t], repeat=2):
        yield op, t, t, a, b, fn(a, b, compute_type(t))
    for direction, fn in COMPARES.items():
      for a, b in itertools.product(EDGES[t], repeat=2):
        if t in FLOATS:
          c = compute_type(t)
          yield 'compare-' + direction, t, 'pred', a, b, fn(fl(a, c), fl(b, c))
        else:
          yield 'compare-' + direction, t, 'pred', a, b, fn(int(a), int(b))


def unary_table():
  for t in TYPES:
    for op, fn in unary_ops(t).items():
      for a in EDGES[t]:
        yield op, t, t, a, None, fn(a, compute_type(t))
    for dst in TYPES:
      if dst != t:
        for a in EDGES[t]:
          yield 'convert', t, dst, a, None, convert(a, t, dst)


def main():
  print('// Generated by tests/e2e/gen_edge_value_table.py; do not edit.')
  print('// {op, operand type, result type, a bits, b bits, expected bits}')
  with np.errstate(all='ignore'):
    for op, t, rt, a, b, r in itertools.chain(binary_table(), unary_table()):
      b_bits = to_bits(b, t) if b is not None else 0
      r_bits = to_bits(r, rt)
      if rt == 'f4e2m1fn' and math.isnan(r):
        # A NaN converted: the table's NaNs have no sign bit but the fnuz
        # types' (0x80); a NaN an op made: the hardware's sign, either zero.
        fnuz = t in SMALL_FLOATS and SMALL_FLOATS[t][3] == 'fnuz'
        r_bits = (0x0 if fnuz else 0x8) if op == 'convert' else F4_NAN
      print('{"%s", %s, %s, 0x%x, 0x%x, 0x%x},' % (
          op, t.upper(), rt.upper(), to_bits(a, t), b_bits, r_bits))


if __name__ == '__main__':
  main()
