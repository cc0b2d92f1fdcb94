// The elementwise steps of the generator: binary ops (with every kind of
// implicit broadcast), power, unary ops and select. Each step plans its
// operands as Sources, checks the plan with ShapeInference, the size limits,
// the budget and the value ranges, and only then emits.
#include <cstdint>
#include <numeric>
#include <vector>

#include "builder/arithmetic.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {
namespace {

using O = HloOpcode;

// Legal binary opcodes for `type` (repeats weight the common ones).
std::vector<HloOpcode> BinaryOpcodes(PrimitiveType type, bool transcendental) {
  if (type == PRED) {
    return {O::kAdd, O::kMultiply, O::kMaximum, O::kMinimum, O::kAnd,
            O::kOr,  O::kXor,      O::kCompare, O::kCompare};
  }
  std::vector<HloOpcode> ops = {O::kAdd,       O::kAdd,      O::kSubtract,
                                O::kMultiply,  O::kMultiply, O::kDivide,
                                O::kRemainder, O::kMaximum,  O::kMinimum,
                                O::kCompare,   O::kCompare};
  if (primitive_util::IsIntegralType(type)) {
    ops.insert(ops.end(), {O::kAnd, O::kOr, O::kXor, O::kPower, O::kShiftLeft,
                           O::kShiftRightLogical, O::kShiftRightArithmetic});
  } else if (transcendental) {
    ops.insert(ops.end(), {O::kPower, O::kAtan2});
  }
  return ops;
}

std::vector<HloOpcode> UnaryOpcodes(PrimitiveType type, bool transcendental) {
  if (type == PRED) return {O::kNot, O::kCopy};
  if (primitive_util::IsIntegralType(type)) {
    return {O::kNegate, O::kAbs,  O::kSign,           O::kNot,
            O::kCopy,   O::kClz,  O::kPopulationCount};
  }
  std::vector<HloOpcode> ops = {O::kNegate, O::kAbs,  O::kFloor,
                                O::kCeil,   O::kSign, O::kSqrt,
                                O::kCopy,   O::kRoundNearestAfz,
                                O::kRoundNearestEven};
  if (transcendental) {
    ops.insert(ops.end(),
               {O::kExp, O::kLog, O::kRsqrt, O::kTanh, O::kLogistic, O::kSin,
                O::kCos, O::kTan, O::kExpm1, O::kLog1p, O::kCbrt, O::kErf,
                O::kAsin, O::kAcos, O::kSinh, O::kCosh, O::kAsinh,
                O::kAcosh, O::kAtan});
  }
  return ops;
}

// The builder function of each op, from the op table.
XlaOp EmitBinary(HloOpcode opcode, XlaOp lhs, XlaOp rhs, Dims dims,
                 ComparisonDirection direction) {
  switch (opcode) {
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, text, Name, type_rule, cost) \
  case O::e:                                           \
    return Name(lhs, rhs, dims);
#include "ir/hlo_ops.def"
    default:
      return Compare(lhs, rhs, dims, direction);
  }
}

XlaOp EmitUnary(HloOpcode opcode, XlaOp x) {
  switch (opcode) {
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, text, Name, type_rule, cost) \
  case O::e:                                          \
    return Name(x);
#include "ir/hlo_ops.def"
    default:
      return XlaOp();
  }
}

ComparisonDirection RandomDirection(Rng& rng) {
  return static_cast<ComparisonDirection>(rng.Uniform(6));
}

}  // namespace

Shape PredPlan::shape() const {
  return is_compare ? Shape(PRED, lhs.shape.dimensions()) : pred.shape;
}

bool Generator::TryBinary(int64_t budget) {
  const int64_t a = PickValue([](const Value&) { return true; });
  if (a < 0) return false;
  const PrimitiveType type = values_[a].shape.element_type();
  const HloOpcode opcode =
      rng_.Pick(BinaryOpcodes(type, options_.allow_transcendental));
  if (opcode == O::kPower) return TryPower(a, budget);
  Source partner;
  std::vector<int64_t> dims;
  if (rng_.OneIn(2) || !PickExistingPartner(a, budget, &partner, &dims)) {
    Partner p = RandomPartner(rng_, values_[a].shape.dimensions(), limits_);
    if (!SourceOfShape(Shape(type, p.dimensions), budget - 1,
                       ValueStyle::kArgument, /*allow_iota=*/true, &partner)) {
      return false;
    }
    dims = std::move(p.broadcast_dimensions);
  }
  // A divisor that may be 0 is defined for integers (x/0 == -1) but gives
  // inf/NaN for floats; make it rare either way.
  const bool divides = opcode == O::kDivide || opcode == O::kRemainder;
  const bool a_is_lhs =
      rng_.OneIn(2) ||
      (divides && values_[a].range.ContainsZero() && !rng_.OneIn(4));
  if (divides && a_is_lhs && partner.range.ContainsZero() && !rng_.OneIn(4)) {
    partner = ConstantSource(partner.shape, ValueStyle::kNonZero);
  }
  Source mine = ValueSource(a, type);
  const Source& lhs = a_is_lhs ? mine : partner;
  const Source& rhs = a_is_lhs ? partner : mine;
  if (dims.empty() && lhs.shape.rank() > 0 &&
      lhs.shape.rank() == rhs.shape.rank() && rng_.OneIn(8)) {
    dims.resize(lhs.shape.rank());  // the identity is legal for equal ranks
    std::iota(dims.begin(), dims.end(), 0);
  }
  return EmitBinaryIfOk(opcode, lhs, rhs, dims, budget);
}

bool Generator::EmitBinaryIfOk(HloOpcode opcode, const Source& lhs,
                               const Source& rhs,
                               const std::vector<int64_t>& dims,
                               int64_t budget) {
  absl::StatusOr<Shape> shape =
      ShapeInference::InferBinaryOpShape(opcode, lhs.shape, rhs.shape, dims);
  if (!shape.ok() || !FitsLimits(shape->dimensions())) return false;
  const PrimitiveType type = lhs.shape.element_type();
  const Range range = BinaryRange(opcode, type, lhs.range, rhs.range);
  if (1 + lhs.Cost() + rhs.Cost() > budget ||
      !Accept(range, shape->element_type())) {
    return false;
  }
  const ComparisonDirection direction = RandomDirection(rng_);
  XlaOp l = Emit(lhs);
  XlaOp r = Emit(rhs);
  Record(EmitBinary(opcode, l, r, dims, direction), range);
  return true;
}

// Joins a dead end into the newest value with a binary op, through a full
// add-reduction to a scalar when their shapes do not broadcast. Without
// this, a third of the values and half the parameters would not reach the
// root.
bool Generator::TryMerge(int64_t budget) {
  int64_t x = static_cast<int64_t>(values_.size()) - 1;
  while (x >= 0 && values_[x].leaf) --x;
  const std::vector<int64_t> dead = DeadValues(x);
  if (x < 0 || dead.empty()) return false;
  const int64_t y = rng_.Pick(dead);
  const PrimitiveType x_type = values_[x].shape.element_type();
  const PrimitiveType y_type = values_[y].shape.element_type();
  // Convert to whichever type is allowed (only pred may not be).
  const PrimitiveType type = IsAllowedType(x_type) ? x_type : y_type;
  if (!Convertible(x, type)) return false;
  std::vector<HloOpcode> opcodes;
  for (HloOpcode opcode : BinaryOpcodes(type, /*transcendental=*/false)) {
    if (opcode != O::kDivide && opcode != O::kRemainder) {
      opcodes.push_back(opcode);
    }
  }
  const HloOpcode opcode = rng_.Pick(opcodes);
  const Source x_source = ValueSource(x, type);
  const bool swap = rng_.OneIn(2);
  std::vector<std::vector<int64_t>> legal = LegalBroadcastDimensions(
      values_[x].shape.dimensions(), values_[y].shape.dimensions());
  if (!legal.empty()) {
    if (!Convertible(y, type)) return false;
    const Source y_source = ValueSource(y, type);
    return EmitBinaryIfOk(opcode, swap ? y_source : x_source,
                          swap ? x_source : y_source, rng_.Pick(legal), budget);
  }
  return MergeThroughScalar(opcode, x_source, y, swap, budget);
}

// `x opcode sum(y)` (or swapped), the scalar broadcasting against x.
bool Generator::MergeThroughScalar(HloOpcode opcode, const Source& x, int64_t y,
                                   bool swap, int64_t budget) {
  const PrimitiveType type = x.shape.element_type();
  const PrimitiveType y_type = values_[y].shape.element_type();
  if (!options_.allow_reduce || !options_.allow_scalars ||
      (y_type != type && !options_.allow_convert)) {
    return false;
  }
  Source init = ConstantSource(Shape(y_type, {}), ValueStyle::kArgument);
  init.literal = LiteralUtil::Zero(y_type);
  init.range = LiteralRange(init.literal);
  const Range sum = ReduceRange(O::kAdd, y_type, values_[y].range, init.range,
                                ShapeUtil::ElementsIn(values_[y].shape));
  const Range converted = ConvertRange(sum, y_type, type);
  // In operand order: shifts, subtraction and division are not symmetric.
  const Range range = swap ? BinaryRange(opcode, type, converted, x.range)
                           : BinaryRange(opcode, type, x.range, converted);
  const int64_t cost = 3 + x.Cost() + (y_type != type ? 1 : 0);
  if (cost > budget || !IsTame(sum, y_type) || !IsTame(converted, type) ||
      !Accept(range, opcode == O::kCompare ? PRED : type)) {
    return false;
  }
  std::vector<int64_t> all(values_[y].shape.rank());
  std::iota(all.begin(), all.end(), 0);
  XlaOp y_op = Emit(ValueSource(y, y_type));
  XlaOp scalar = Reduce(y_op, Emit(init),
                        CreateScalarAddComputation(y_type, &builder_), all);
  Record(scalar, sum, /*consumed=*/true);
  if (y_type != type) {
    scalar = ConvertElementType(scalar, type);
    Record(scalar, converted, /*consumed=*/true);
  }
  XlaOp x_op = Emit(x);
  Record(EmitBinary(opcode, swap ? scalar : x_op, swap ? x_op : scalar, {},
                    RandomDirection(rng_)),
         range);
  return true;
}

std::vector<int64_t> Generator::DeadValues(int64_t newest) const {
  std::vector<int64_t> dead;
  for (int64_t i = 0; i < static_cast<int64_t>(values_.size()); ++i) {
    if (i != newest && values_[i].uses == 0 && !values_[i].leaf) {
      dead.push_back(i);
    }
  }
  return dead;
}

// Existing values that broadcast against value `a` (converted to its type
// when conversions are allowed and the budget has room).
bool Generator::PickExistingPartner(int64_t a, int64_t budget, Source* partner,
                                    std::vector<int64_t>* dims) {
  const Shape& shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  std::vector<std::pair<int64_t, std::vector<int64_t>>> candidates;
  const bool converts = rng_.OneIn(3);  // else same-type partners only
  for (int64_t j = 0; j < static_cast<int64_t>(values_.size()); ++j) {
    const Value& v = values_[j];
    if (v.shape.element_type() != type &&
        (!converts || budget < 2 || !Convertible(j, type))) {
      continue;
    }
    for (std::vector<int64_t>& d :
         LegalBroadcastDimensions(shape.dimensions(), v.shape.dimensions())) {
      candidates.emplace_back(j, std::move(d));
    }
  }
  if (candidates.empty()) return false;
  std::vector<int64_t> unused;  // into `candidates`
  for (int64_t i = 0; i < static_cast<int64_t>(candidates.size()); ++i) {
    const Value& v = values_[candidates[i].first];
    if (v.uses == 0 && !v.leaf && candidates[i].first != a) unused.push_back(i);
  }
  const auto& [index, broadcast_dimensions] =
      !unused.empty() && rng_.OneIn(2) ? candidates[rng_.Pick(unused)]
                                       : rng_.Pick(candidates);
  *partner = ValueSource(index, type);
  *dims = broadcast_dimensions;
  return true;
}

// pow(value, small constant exponents): integer powers stay far from
// overflow; a fractional or negative exponent only where the base allows.
bool Generator::TryPower(int64_t base, int64_t budget) {
  const Source lhs = ValueSource(base, values_[base].shape.element_type());
  const PrimitiveType type = lhs.shape.element_type();
  Partner p = RandomPartner(rng_, lhs.shape.dimensions(), limits_);
  std::vector<double> choices = {0, 1, 2, 3};
  if (primitive_util::IsFloatingPointType(type)) {
    if (lhs.range.lo >= 0 && !lhs.range.nan) choices.push_back(0.5);
    if (!lhs.range.ContainsZero()) choices.push_back(-1);
  }
  Source exponent;
  exponent.kind = Source::Kind::kConstant;
  exponent.shape = Shape(type, p.dimensions);
  exponent.literal = ExponentLiteral(rng_, exponent.shape, choices);
  exponent.range = LiteralRange(exponent.literal);
  absl::StatusOr<Shape> shape = ShapeInference::InferBinaryOpShape(
      O::kPower, lhs.shape, exponent.shape, p.broadcast_dimensions);
  if (!shape.ok() || !FitsLimits(shape->dimensions())) return false;
  const Range range = PowRange(lhs.range, choices);
  if (2 > budget || !Accept(range, type)) return false;
  XlaOp l = Emit(lhs);
  XlaOp r = Emit(exponent);
  Record(Pow(l, r, p.broadcast_dimensions), range);
  return true;
}

bool Generator::TryUnary(int64_t budget) {
  int64_t a = PickValue([](const Value&) { return true; });
  if (a < 0) return false;
  const PrimitiveType type = values_[a].shape.element_type();
  const HloOpcode opcode =
      rng_.Pick(UnaryOpcodes(type, options_.allow_transcendental));
  // exp/log/rsqrt need a suitable range: look for one if `a` has none.
  auto tame = [&](const Value& v) {
    return v.shape.element_type() == type &&
           IsTame(UnaryRange(opcode, type, UnaryRange(O::kAbs, type, v.range)),
                  type);
  };
  if (!tame(values_[a])) {
    const int64_t b = PickValue(tame);
    if (b >= 0) a = b;
  }
  const Source x = ValueSource(a, type);
  Range in = x.range;
  // log/sqrt/rsqrt of a possibly negative value: usually take abs first.
  const bool abs_first =
      (opcode == O::kLog || opcode == O::kSqrt || opcode == O::kRsqrt) &&
      (in.lo < 0 || in.nan) && budget >= 2 && !rng_.OneIn(4);
  if (abs_first) in = UnaryRange(O::kAbs, type, in);
  const Range range = UnaryRange(opcode, type, in);
  if (!Accept(range, type)) return false;
  XlaOp op = Emit(x);
  if (abs_first) {
    op = Abs(op);
    Record(op, in, /*consumed=*/true);
  }
  Record(EmitUnary(opcode, op), range);
  return true;
}

bool Generator::TrySelect(int64_t budget) {
  const int64_t t = PickValue([](const Value&) { return true; });
  if (t < 0) return false;
  const Shape t_shape = values_[t].shape;
  const PrimitiveType type = t_shape.element_type();
  const bool scalars = options_.allow_scalars;
  // on_false: the same dimensions, or a scalar on either side.
  const int64_t f = PickValue([&](const Value& v) {
    return v.shape.element_type() == type &&
           (v.shape.dimensions() == t_shape.dimensions() ||
            (scalars && (v.shape.IsScalar() || t_shape.IsScalar())));
  });
  Source on_true = ValueSource(t, type);
  Source on_false;
  if (f >= 0 && rng_.OneIn(2)) {
    on_false = ValueSource(f, type);
  } else {
    const bool scalar = scalars && rng_.OneIn(3);
    on_false = ConstantSource(scalar ? Shape(type, {}) : t_shape,
                              ValueStyle::kArgument);
  }
  const Shape& wide = t_shape.IsScalar() ? on_false.shape : t_shape;
  PredPlan pred;
  if (!PlanPred(wide.dimensions(), budget - 1, &pred)) return false;
  if (rng_.OneIn(2)) std::swap(on_true, on_false);
  absl::StatusOr<Shape> shape = ShapeInference::InferSelectShape(
      pred.shape(), on_true.shape, on_false.shape,
      /*allow_scalar_broadcast=*/true);
  if (!shape.ok() || !FitsLimits(shape->dimensions()) ||
      1 + on_true.Cost() + on_false.Cost() + pred.Cost() > budget) {
    return false;
  }
  XlaOp p = EmitPred(pred);
  XlaOp on_true_op = Emit(on_true);
  XlaOp on_false_op = Emit(on_false);
  Record(Select(p, on_true_op, on_false_op),
         on_true.range.Union(on_false.range));
  return true;
}

// A pred of dimensions `dims` (or a scalar pred, sometimes): an existing
// pred value, or a compare of a value of those dimensions with a scalar or
// a same-shaped operand.
bool Generator::PlanPred(absl::Span<const int64_t> dims, int64_t budget,
                         PredPlan* plan) {
  const bool scalars = options_.allow_scalars;
  const int64_t p = PickValue([&](const Value& v) {
    return v.shape.element_type() == PRED &&
           (v.shape.dimensions() == dims || (scalars && v.shape.IsScalar()) ||
            dims.empty());
  });
  if (p >= 0 && rng_.OneIn(2)) {
    plan->pred = ValueSource(p, PRED);
    return true;
  }
  const bool scalar = scalars && !dims.empty() && rng_.OneIn(5);
  const std::vector<int64_t> target =
      scalar ? std::vector<int64_t>{}
             : std::vector<int64_t>(dims.begin(), dims.end());
  const int64_t x =
      PickValue([&](const Value& v) { return v.shape.dimensions() == target; });
  if (x < 0) return false;
  plan->is_compare = true;
  plan->lhs = ValueSource(x, values_[x].shape.element_type());
  plan->direction = RandomDirection(rng_);
  const PrimitiveType type = plan->lhs.shape.element_type();
  if (scalars && rng_.OneIn(2)) {
    plan->rhs = ConstantSource(Shape(type, {}), ValueStyle::kArgument);
    return true;
  }
  return SourceOfShape(plan->lhs.shape, budget - 1, ValueStyle::kArgument,
                       /*allow_iota=*/true, &plan->rhs);
}

XlaOp Generator::EmitPred(const PredPlan& plan) {
  if (!plan.is_compare) return Emit(plan.pred);
  XlaOp lhs = Emit(plan.lhs);
  XlaOp rhs = Emit(plan.rhs);
  XlaOp compare = Compare(lhs, rhs, {}, plan.direction);
  Record(compare, Range::Bool(), /*consumed=*/true);
  return compare;
}

}  // namespace mxla::random_graph_internal
