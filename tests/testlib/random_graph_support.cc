// The generator's PRNG and value ranges. Range arithmetic uses only IEEE
// operations that are exactly rounded (+ - * / sqrt floor ...; no libm
// exp/log), so generator decisions are the same on every platform.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ir/primitive_type.h"
#include "tests/testlib/random_graph_internal.h"

// Bounds must round alike everywhere: no fused multiply-add (GCC keeps
// contraction off in ISO mode; Clang needs telling).
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace mxla::random_graph_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Upper bound on e^x without libm: e < 3.
double ExpUpperBound(double x) {
  if (x <= 0) return 1;
  if (x > 700) return kInf;
  double result = 1;
  for (double i = 0; i < std::ceil(x); ++i) result *= 3;
  return result;
}

// Lower bound on e^x (> 0 where f32 still represents it).
double ExpLowerBound(double x) {
  if (x >= 0) return 1;
  if (x < -80) return 0;
  double result = 1;
  for (double i = 0; i < std::ceil(-x); ++i) result /= 3;
  return result;
}

Range WithNan(Range range, bool nan) {
  range.nan = range.nan || nan;
  return range;
}

Range ProductRange(const Range& a, const Range& b) {
  double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  Range result =
      Range::Of(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
  result.maybe_zero = a.maybe_zero || b.maybe_zero;
  return result;
}

Range QuotientRange(PrimitiveType type, const Range& a, const Range& b) {
  if (primitive_util::IsIntegralType(type)) {
    double m = std::max(a.Magnitude(), 1.0);  // x/0 is -1
    return Range::Of(-m, m);
  }
  if (b.ContainsZero()) return Range::Unknown();
  double q[] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
  Range result =
      Range::Of(*std::min_element(q, q + 4), *std::max_element(q, q + 4));
  result.maybe_zero = a.maybe_zero;
  return result;
}

// Both operands within [-2^k, 2^k - 1] keep bitwise results there.
Range BitwiseRange(const Range& a, const Range& b) {
  double m = std::max(a.Magnitude(), b.Magnitude()) + 1;
  double bound = 1;
  while (bound < m) bound *= 2;
  return Range::Of(-bound, bound - 1);
}

Range ExpRange(const Range& a) {
  Range result = Range::Of(ExpLowerBound(a.lo), ExpUpperBound(a.hi));
  result.maybe_zero = result.lo == 0;
  return result;
}

Range LogRange(PrimitiveType type, const Range& a) {
  if (a.lo < 0 || a.maybe_zero || a.hi == kInf) return Range::Unknown();
  // log x >= 1 - 1/x; a nonzero value is at least the smallest denormal.
  double floor = type == F32 ? -110 : -750;
  double lo = a.lo > 0 ? std::max(floor, 1 - 1 / a.lo) : floor;
  return Range::Of(lo, std::max(0.0, a.hi - 1));
}

Range RsqrtRange(PrimitiveType type, const Range& a) {
  if (a.lo < 0 || a.maybe_zero) return Range::Unknown();
  double tiny = type == F32 ? 1e-45 : std::numeric_limits<double>::denorm_min();
  double lo = a.lo > 0 ? a.lo : tiny;
  Range result = Range::Of(0, std::max(1.0, 1 / std::sqrt(lo)));
  result.maybe_zero = false;
  return result;
}

Range SignLikeRange(HloOpcode opcode, const Range& a) {
  Range result;
  if (opcode == HloOpcode::kSign) {
    result = Range::Of(a.lo < 0 ? -1 : (a.lo > 0 ? 1 : 0),
                       a.hi > 0 ? 1 : (a.hi < 0 ? -1 : 0));
  } else {  // tanh: |tanh x| <= min(|x|, 1), monotonic.
    result = Range::Of(a.lo <= 0 ? std::max(-1.0, a.lo) : 0,
                       a.hi >= 0 ? std::min(1.0, a.hi) : 0);
  }
  result.maybe_zero = a.maybe_zero;
  return WithNan(result, a.nan);
}

Range FloatUnaryRange(HloOpcode opcode, PrimitiveType type, const Range& a) {
  switch (opcode) {
    case HloOpcode::kExp:
      return a.nan ? Range::Unknown() : ExpRange(a);
    case HloOpcode::kLog:
      return a.nan ? Range::Unknown() : LogRange(type, a);
    case HloOpcode::kSqrt: {
      if (a.nan || a.lo < 0) return Range::Unknown();
      Range result = Range::Of(0, std::max(1.0, a.hi));
      result.maybe_zero = a.maybe_zero;
      return result;
    }
    case HloOpcode::kRsqrt:
      return a.nan ? Range::Unknown() : RsqrtRange(type, a);
    case HloOpcode::kLogistic: {
      Range result = Range::Of(1 / (1 + ExpUpperBound(-a.lo)), 1);
      if (a.lo < -80) result.lo = 0;
      result.maybe_zero = result.lo == 0;
      return WithNan(result, a.nan);
    }
    case HloOpcode::kFloor:
      return WithNan(Range::Of(std::floor(a.lo), std::floor(a.hi)), a.nan);
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
      return WithNan(Range::Of(std::round(a.lo), std::round(a.hi)), a.nan);
    case HloOpcode::kSin:
    case HloOpcode::kCos:  // NaN for infinite operands
      return WithNan(Range::Of(-1, 1), a.nan || !a.Finite());
    case HloOpcode::kErf:
      return WithNan(Range::Of(-1, 1), a.nan);
    case HloOpcode::kCbrt:
      return WithNan(Range::Of(std::cbrt(a.lo), std::cbrt(a.hi)), a.nan);
    case HloOpcode::kAsinh:  // monotonic everywhere
      return WithNan(Range::Of(std::asinh(a.lo), std::asinh(a.hi)), a.nan);
    case HloOpcode::kAtan:  // monotonic everywhere, within ±pi/2
      return WithNan(Range::Of(std::atan(a.lo), std::atan(a.hi)), a.nan);
    case HloOpcode::kAsin:  // monotonic on [-1, 1], NaN outside
    case HloOpcode::kAcos: {
      const double lo = std::clamp(a.lo, -1.0, 1.0);
      const double hi = std::clamp(a.hi, -1.0, 1.0);
      const bool nan = a.nan || a.lo < -1 || a.hi > 1;
      if (opcode == HloOpcode::kAsin) {
        return WithNan(Range::Of(std::asin(lo), std::asin(hi)), nan);
      }
      return WithNan(Range::Of(std::acos(hi), std::acos(lo)), nan);
    }
    case HloOpcode::kAcosh:  // monotonic on [1, inf), NaN below
      return WithNan(Range::Of(std::acosh(std::max(a.lo, 1.0)),
                               std::acosh(std::max(a.hi, 1.0))),
                     a.nan || a.lo < 1);
    case HloOpcode::kSinh:
    case HloOpcode::kCosh: {
      if (a.nan || a.lo < -80 || a.hi > 80) return Range::Unknown();
      if (opcode == HloOpcode::kSinh) {
        return Range::Of(std::sinh(a.lo), std::sinh(a.hi));
      }
      const double top = std::max(std::cosh(a.lo), std::cosh(a.hi));
      const double bottom =
          a.lo <= 0 && a.hi >= 0 ? 1.0
                                 : std::min(std::cosh(a.lo), std::cosh(a.hi));
      return Range::Of(bottom, top);
    }
    case HloOpcode::kExpm1:
      if (a.nan || a.hi > 80) return Range::Unknown();
      return Range::Of(std::expm1(a.lo), std::expm1(a.hi));
    case HloOpcode::kLog1p:
      if (a.nan || a.lo <= -1) return Range::Unknown();
      return Range::Of(std::log1p(a.lo), std::log1p(a.hi));
    case HloOpcode::kTan:  // monotonic and finite inside (-pi/2, pi/2)
      if (a.nan || a.lo < -1.5 || a.hi > 1.5) return Range::Unknown();
      return Range::Of(std::tan(a.lo), std::tan(a.hi));
    case HloOpcode::kCeil:
      return WithNan(Range::Of(std::ceil(a.lo), std::ceil(a.hi)), a.nan);
    default:
      return Range::Unknown();
  }
}

}  // namespace

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t Rng::Uniform(int64_t n) {
  return n <= 1 ? 0 : static_cast<int64_t>(Next() % static_cast<uint64_t>(n));
}

int64_t Rng::UniformIn(int64_t lo, int64_t hi) {
  return lo + Uniform(hi - lo + 1);
}

std::vector<int64_t> Rng::Subset(int64_t n, int64_t k) {
  std::vector<int64_t> subset;
  for (int64_t i = 0; i < n && static_cast<int64_t>(subset.size()) < k; ++i) {
    int64_t needed = k - static_cast<int64_t>(subset.size());
    if (Uniform(n - i) < needed) subset.push_back(i);
  }
  return subset;
}

std::vector<int64_t> Rng::Permutation(int64_t n) {
  std::vector<int64_t> permutation(n);
  for (int64_t i = 0; i < n; ++i) permutation[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(permutation[i], permutation[Uniform(i + 1)]);
  }
  return permutation;
}

Range Range::Unknown() { return Range{-kInf, kInf, true, true}; }

bool Range::Finite() const {
  return !nan && std::isfinite(lo) && std::isfinite(hi);
}

double Range::Magnitude() const {
  return std::max(std::fabs(lo), std::fabs(hi));
}

Range Range::Union(const Range& other) const {
  return Range{std::min(lo, other.lo), std::max(hi, other.hi), nan || other.nan,
               maybe_zero || other.maybe_zero};
}

Range BinaryRange(HloOpcode opcode, PrimitiveType type, const Range& a,
                  const Range& b) {
  if (type == PRED || opcode == HloOpcode::kCompare) return Range::Bool();
  if (!a.Finite() || !b.Finite()) return Range::Unknown();
  switch (opcode) {
    case HloOpcode::kAdd:
      return Range::Of(a.lo + b.lo, a.hi + b.hi);
    case HloOpcode::kSubtract:
      return Range::Of(a.lo - b.hi, a.hi - b.lo);
    case HloOpcode::kMultiply:
      return ProductRange(a, b);
    case HloOpcode::kDivide:
      return QuotientRange(type, a, b);
    case HloOpcode::kRemainder:
      if (!primitive_util::IsIntegralType(type) && b.ContainsZero()) {
        return Range::Unknown();  // fmod(x, 0) is NaN
      }
      return Range::Of(std::min(a.lo, 0.0), std::max(a.hi, 0.0));
    case HloOpcode::kMaximum:
      return Range::Of(std::max(a.lo, b.lo), std::max(a.hi, b.hi));
    case HloOpcode::kMinimum:
      return Range::Of(std::min(a.lo, b.lo), std::min(a.hi, b.hi));
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return BitwiseRange(a, b);
    case HloOpcode::kAtan2:
      return WithNan(Range::Of(-M_PI, M_PI), a.nan || b.nan);
    case HloOpcode::kShiftLeft: {
      // Amounts out of [0, width) give 0; small ones scale by 2^amount.
      if (b.hi > 16) return Range::Unknown();
      const double scale = std::ldexp(1.0, static_cast<int>(std::max(b.hi, 0.0)));
      return Range::Of(std::min(a.lo, 0.0) * scale,
                       std::max(a.hi, 0.0) * scale);
    }
    case HloOpcode::kShiftRightLogical:  // negatives become huge
      return a.lo >= 0 ? Range::Of(0, a.hi) : Range::Unknown();
    case HloOpcode::kShiftRightArithmetic:
      return Range::Of(std::min(a.lo, 0.0), std::max(a.hi, 0.0));
    default:  // power: see PowRange
      return Range::Unknown();
  }
}

Range UnaryRange(HloOpcode opcode, PrimitiveType type, const Range& a) {
  if (type == PRED) return Range::Bool();
  switch (opcode) {
    case HloOpcode::kNegate: {
      Range result = WithNan(Range::Of(-a.hi, -a.lo), a.nan);
      result.maybe_zero = a.maybe_zero;
      return result;
    }
    case HloOpcode::kAbs: {
      double lo = a.lo >= 0 ? a.lo : (a.hi <= 0 ? -a.hi : 0);
      Range result = WithNan(Range::Of(lo, a.Magnitude()), a.nan);
      result.maybe_zero = a.maybe_zero;
      return result;
    }
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz:
      return Range::Of(0, primitive_util::BitWidth(type));
    case HloOpcode::kSign:
    case HloOpcode::kTanh:
      return SignLikeRange(opcode, a);
    case HloOpcode::kCopy:
      return a;
    case HloOpcode::kNot:  // ~x == -x - 1
      return Range::Of(-a.hi - 1, -a.lo - 1);
    default:
      return FloatUnaryRange(opcode, type, a);
  }
}

Range ConvertRange(const Range& a, PrimitiveType from, PrimitiveType to) {
  if (to == PRED || from == PRED) return Range::Bool();
  if (primitive_util::IsIntegralType(to) && primitive_util::BitWidth(to) < 64) {
    // Outside the target's values it wraps or saturates: anywhere in them.
    const int bits = primitive_util::BitWidth(to);
    const bool is_signed = primitive_util::IsSignedIntegralType(to);
    const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0;
    const double hi = std::ldexp(1.0, is_signed ? bits - 1 : bits) - 1;
    if (!(a.lo >= lo && a.hi <= hi)) return Range::Of(lo, hi);
  }
  if (primitive_util::IsUnsignedIntegralType(to) && !(a.lo >= 0)) {
    return Range::Of(0, 0x1p64);
  }
  if (to == F16 && a.Magnitude() > 65504) return Range::Unknown();
  if (primitive_util::IsFloatingPointType(from) &&
      primitive_util::IsIntegralType(to)) {
    return Range::Of(std::trunc(a.lo), std::trunc(a.hi));
  }
  if (to == F32 && a.Magnitude() > 3e38) return Range::Unknown();
  return a;
}

Range ReduceRange(HloOpcode reducer, PrimitiveType type, const Range& operand,
                  const Range& init, int64_t count) {
  if (type == PRED) return Range::Bool();
  if (count == 0) return init;
  bool nan = operand.nan || init.nan;
  if (reducer == HloOpcode::kMaximum) {
    return WithNan(
        Range::Of(std::max(init.lo, operand.lo), std::max(init.hi, operand.hi)),
        nan);
  }
  if (reducer == HloOpcode::kMinimum) {
    return WithNan(
        Range::Of(std::min(init.lo, operand.lo), std::min(init.hi, operand.hi)),
        nan);
  }
  if (!operand.Finite() || !init.Finite()) return Range::Unknown();
  if (reducer == HloOpcode::kAdd) {
    double n = static_cast<double>(count);
    return Range::Of(init.lo + n * std::min(operand.lo, 0.0),
                     init.hi + n * std::max(operand.hi, 0.0));
  }
  double bound = std::max(init.Magnitude(), 1.0);  // multiply
  double factor = std::max(operand.Magnitude(), 1.0);
  for (int64_t i = 0; i < count && factor > 1 && bound < 1e300; ++i) {
    bound *= factor;
  }
  return Range::Of(-bound, bound);
}

Range PowRange(const Range& base, absl::Span<const double> exponents) {
  if (!base.Finite()) return Range::Unknown();
  const double m = base.Magnitude();
  Range result;
  bool first = true;
  for (double e : exponents) {
    Range r;
    if (e == 0) {
      r = Range::Of(1, 1);
    } else if (e == 1) {
      r = base;
    } else if (e == 2) {
      r = Range::Of(base.ContainsZero()
                        ? 0
                        : std::min(base.lo * base.lo, base.hi * base.hi),
                    m * m);
    } else if (e == 3) {
      r = Range::Of(base.lo * base.lo * base.lo, base.hi * base.hi * base.hi);
    } else if (e == 0.5 && base.lo >= 0) {
      r = Range::Of(0, std::max(1.0, base.hi));
    } else if (e == -1 && !base.ContainsZero()) {
      r = Range::Of(1 / base.hi, 1 / base.lo);
    } else {
      return Range::Unknown();
    }
    result = first ? r : result.Union(r);
    first = false;
  }
  return result;
}

Range LiteralRange(const Literal& literal) {
  Range range = Range::Of(0, 0);
  range.maybe_zero = false;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    double x = literal.GetAsDouble(i);
    if (std::isnan(x)) return Range::Unknown();
    range.lo = i == 0 ? x : std::min(range.lo, x);
    range.hi = i == 0 ? x : std::max(range.hi, x);
    range.maybe_zero = range.maybe_zero || x == 0;
  }
  return range;
}

bool IsTame(const Range& range, PrimitiveType type) {
  switch (type) {
    case PRED:
      return true;
    case S32:
      return range.Finite() && range.Magnitude() <= (int64_t{1} << 30);
    case S64:
      return range.Finite() && range.Magnitude() <= (int64_t{1} << 50);
    case S2:
    case S4:
    case S8:
    case S16:
    case U2:
    case U4:
    case U8:
    case U16:
    case U32:
    case U64: {
      // Wrapping is exact in both backends, but the ranges follow real
      // arithmetic: keep values well inside the type.
      const int bits = primitive_util::BitWidth(type);
      const double lo =
          primitive_util::IsSignedIntegralType(type) ? -std::ldexp(1.0, bits - 2) : 0;
      return range.Finite() && range.lo >= lo &&
             range.hi <= std::ldexp(1.0, std::min(bits - 2, 50));
    }
    case F16:
      return range.Finite() && range.Magnitude() <= 1e4;
    default:
      return range.Finite() && range.Magnitude() <= 1e30;
  }
}

}  // namespace mxla::random_graph_internal
