// Gradient rules of the elementwise ops. The formulas, and the choices at
// points where a derivative does not exist, are JAX's (jax/_src/lax/lax.py),
// so gradients agree with what model authors already get: max and min
// split a tie evenly between both operands, pow's exponent gets 0 where
// the base is 0, and rounding and sign have derivative 0.
#include <cmath>
#include <numbers>

#include "builder/operators.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {

XlaOp Derivative(OpTag<Op::kNegate>, XlaOp x, XlaOp) { return Filled(x, -1); }
XlaOp Derivative(OpTag<Op::kAbs>, XlaOp x, XlaOp) { return Sign(x); }
XlaOp Derivative(OpTag<Op::kExp>, XlaOp, XlaOp y) { return y; }
XlaOp Derivative(OpTag<Op::kLog>, XlaOp x, XlaOp) { return 1.0 / x; }
XlaOp Derivative(OpTag<Op::kSqrt>, XlaOp, XlaOp y) { return 0.5 / y; }
XlaOp Derivative(OpTag<Op::kRsqrt>, XlaOp x, XlaOp y) {
  return -0.5 * y / x;
}
XlaOp Derivative(OpTag<Op::kTanh>, XlaOp, XlaOp y) { return 1.0 - y * y; }
XlaOp Derivative(OpTag<Op::kLogistic>, XlaOp, XlaOp y) {
  return y * (1.0 - y);
}
XlaOp Derivative(OpTag<Op::kFloor>, XlaOp, XlaOp) { return XlaOp(); }
XlaOp Derivative(OpTag<Op::kCeil>, XlaOp, XlaOp) { return XlaOp(); }
XlaOp Derivative(OpTag<Op::kSign>, XlaOp, XlaOp) { return XlaOp(); }
XlaOp Derivative(OpTag<Op::kRoundNearestAfz>, XlaOp, XlaOp) { return XlaOp(); }
XlaOp Derivative(OpTag<Op::kRoundNearestEven>, XlaOp, XlaOp) {
  return XlaOp();
}
XlaOp Derivative(OpTag<Op::kSin>, XlaOp x, XlaOp) { return Cos(x); }
XlaOp Derivative(OpTag<Op::kCos>, XlaOp x, XlaOp) { return -Sin(x); }
XlaOp Derivative(OpTag<Op::kTan>, XlaOp, XlaOp y) { return 1.0 + y * y; }
XlaOp Derivative(OpTag<Op::kExpm1>, XlaOp, XlaOp y) { return y + 1.0; }
XlaOp Derivative(OpTag<Op::kLog1p>, XlaOp x, XlaOp) { return 1.0 / (x + 1.0); }
XlaOp Derivative(OpTag<Op::kCbrt>, XlaOp, XlaOp y) {
  return 1.0 / (3.0 * y * y);
}
XlaOp Derivative(OpTag<Op::kErf>, XlaOp x, XlaOp) {
  return (2.0 / std::sqrt(std::numbers::pi)) * Exp(-(x * x));
}
XlaOp Derivative(OpTag<Op::kAsin>, XlaOp x, XlaOp) {
  return Rsqrt(1.0 - x * x);
}
XlaOp Derivative(OpTag<Op::kAcos>, XlaOp x, XlaOp) {
  return -Rsqrt(1.0 - x * x);
}
XlaOp Derivative(OpTag<Op::kSinh>, XlaOp x, XlaOp) { return Cosh(x); }
XlaOp Derivative(OpTag<Op::kCosh>, XlaOp x, XlaOp) { return Sinh(x); }
XlaOp Derivative(OpTag<Op::kAsinh>, XlaOp x, XlaOp) {
  return Rsqrt(x * x + 1.0);
}
XlaOp Derivative(OpTag<Op::kAcosh>, XlaOp x, XlaOp) {
  return Rsqrt((x - 1.0) * (x + 1.0));
}
XlaOp Derivative(OpTag<Op::kAtan>, XlaOp x, XlaOp) {
  return 1.0 / (x * x + 1.0);
}

namespace {

const XlaOp& Lhs(const GradientContext& context) { return context.operands[0]; }
const XlaOp& Rhs(const GradientContext& context) { return context.operands[1]; }

// JAX's _balanced_eq: 1 where `x` alone attains the extremum `z`, 1/2
// where `other` attains it too, 0 elsewhere.
XlaOp ShareOfExtremum(XlaOp x, XlaOp z, XlaOp other) {
  return Select(Eq(x, z), Select(Eq(other, z), Filled(x, 0.5), Filled(x, 1)),
                Filled(x, 0));
}

Result Extremum(const GradientContext& context) {
  const XlaOp& g = context.cotangent;
  return OperandCotangents{
      g * ShareOfExtremum(Lhs(context), context.result, Rhs(context)),
      g * ShareOfExtremum(Rhs(context), context.result, Lhs(context))};
}

}  // namespace

Result BinaryCotangents(OpTag<Op::kAdd>, const GradientContext& context) {
  return OperandCotangents{context.cotangent, context.cotangent};
}

Result BinaryCotangents(OpTag<Op::kSubtract>, const GradientContext& context) {
  return OperandCotangents{context.cotangent, -context.cotangent};
}

Result BinaryCotangents(OpTag<Op::kMultiply>, const GradientContext& context) {
  return OperandCotangents{context.cotangent * Rhs(context),
                           context.cotangent * Lhs(context)};
}

Result BinaryCotangents(OpTag<Op::kDivide>, const GradientContext& context) {
  const XlaOp lhs_cotangent = context.cotangent / Rhs(context);
  return OperandCotangents{lhs_cotangent, -lhs_cotangent * context.result};
}

// x - y * trunc(x / y): the quotient is piecewise constant.
Result BinaryCotangents(OpTag<Op::kRemainder>, const GradientContext& context) {
  const XlaOp quotient = Lhs(context) / Rhs(context);
  const XlaOp truncated = Sign(quotient) * Floor(Abs(quotient));
  return OperandCotangents{context.cotangent, -context.cotangent * truncated};
}

Result BinaryCotangents(OpTag<Op::kMaximum>, const GradientContext& context) {
  return Extremum(context);
}

Result BinaryCotangents(OpTag<Op::kMinimum>, const GradientContext& context) {
  return Extremum(context);
}

// d/dx x^y = y x^(y-1), taken as 0 where y = 0 (so 0^0 has slope 0, not
// 0 * inf); d/dy x^y = log(x) x^y, taken as 0 where x = 0.
Result BinaryCotangents(OpTag<Op::kPower>, const GradientContext& context) {
  const XlaOp& x = Lhs(context);
  const XlaOp& y = Rhs(context);
  const XlaOp zero = Filled(x, 0);
  const XlaOp x_slope = Select(Eq(y, zero), zero, y * Pow(x, y - 1.0));
  const XlaOp log_x = Log(Select(Eq(x, zero), Filled(x, 1), x));
  return OperandCotangents{context.cotangent * x_slope,
                           context.cotangent * log_x * context.result};
}

Result BinaryCotangents(OpTag<Op::kAtan2>, const GradientContext& context) {
  const XlaOp& x = Lhs(context);
  const XlaOp& y = Rhs(context);
  const XlaOp scale = context.cotangent / (x * x + y * y);
  return OperandCotangents{scale * y, -scale * x};
}

// The integer-only binary ops never receive a cotangent
// (HasNoFloatResult): their rules exist only for the table's sake.
#define MXLA_INTEGER_BINARY_RULE(e)                                   \
  Result BinaryCotangents(OpTag<Op::e>, const GradientContext& c) {   \
    return GradientRules().Handle(OpTag<Op::e>{}, c);                 \
  }
MXLA_INTEGER_BINARY_RULE(kAnd)
MXLA_INTEGER_BINARY_RULE(kOr)
MXLA_INTEGER_BINARY_RULE(kXor)
MXLA_INTEGER_BINARY_RULE(kShiftLeft)
MXLA_INTEGER_BINARY_RULE(kShiftRightArithmetic)
MXLA_INTEGER_BINARY_RULE(kShiftRightLogical)
#undef MXLA_INTEGER_BINARY_RULE

Result GradientRules::Handle(OpTag<Op::kSelect>,
                             const GradientContext& context) {
  const XlaOp& predicate = context.operands[0];
  const XlaOp zero = Filled(context.cotangent, 0);
  return OperandCotangents{XlaOp(),
                           Select(predicate, context.cotangent, zero),
                           Select(predicate, zero, context.cotangent)};
}

// clamp(lo, x, hi): the cotangent goes to x strictly inside the bounds (as
// JAX), else to the bound that won; a scalar bound sums its share.
Result GradientRules::Handle(OpTag<Op::kClamp>,
                             const GradientContext& context) {
  const XlaOp& lo = context.operands[0];
  const XlaOp& x = context.operands[1];
  const XlaOp& hi = context.operands[2];
  const XlaOp& g = context.cotangent;
  const XlaOp zero = Filled(g, 0);
  const Shape x_shape = ShapeOf(x);
  auto bound_share = [&](XlaOp bound, XlaOp wins) {
    XlaOp share = Select(wins, g, zero);
    if (ShapeOf(bound).dimensions().empty() && !x_shape.dimensions().empty()) {
      std::vector<int64_t> all(x_shape.dimensions().size());
      for (int64_t d = 0; d < static_cast<int64_t>(all.size()); ++d) all[d] = d;
      share = SumOver(share, all);
    }
    return share;
  };
  const XlaOp inside = And(Gt(x, lo, {}), Lt(x, hi, {}));
  return OperandCotangents{bound_share(lo, Gt(lo, x, {})),
                           Select(inside, g, zero),
                           bound_share(hi, Lt(hi, x, {}))};
}

Result GradientRules::Handle(OpTag<Op::kConvert>,
                             const GradientContext& context) {
  const PrimitiveType type = ShapeOf(context.operands[0]).element_type();
  if (!primitive_util::IsFloatingPointType(type)) return OperandCotangents(1);
  return OperandCotangents{ConvertTo(context.cotangent, type)};
}

}  // namespace mxla::gradient_rules
