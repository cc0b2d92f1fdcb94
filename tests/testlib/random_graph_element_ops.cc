// The random-graph steps for the ops that map elements in place or reorder
// them: reverse, clamp, is-finite, reduce-precision, bitcast-convert
// (between the signed and unsigned integer types of one width, where the
// values' ranges carry over), map (of a binary add, maximum or minimum),
// sort (ascending along one dimension), rng_uniform, rng-bit-generator and
// stochastic-convert.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"

#include "builder/arithmetic.h"
#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "semantics/scalar_semantics.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {

bool Generator::TryReverse(int64_t budget) {
  const int64_t a =
      PickValue([](const Value& v) { return v.shape.rank() >= 1; });
  if (a < 0 || budget < 1) return false;
  const Shape shape = values_[a].shape;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (rng_.OneIn(2)) dims.push_back(d);
  }
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(Rev(op, dims), values_[a].range);
  return true;
}

bool Generator::TryClamp(int64_t budget) {
  const int64_t a = PickValue(
      [](const Value& v) { return v.shape.element_type() != PRED; });
  if (a < 0 || budget < 3) return false;
  const Shape shape = values_[a].shape;
  // Each bound a scalar or of the operand's shape; drawn independently, so
  // a low bound above the high one happens (the high one wins).
  auto bound = [&]() {
    const bool scalar = options_.allow_scalars && rng_.OneIn(2);
    return ConstantSource(
        scalar ? Shape(shape.element_type(), {}) : shape, ValueStyle::kArgument);
  };
  const Source low = bound();
  const Source high = bound();
  const Range range = values_[a].range.Union(low.range).Union(high.range);
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(Clamp(Emit(low), op, Emit(high)), range);
  return true;
}

bool Generator::TryFloatBits(int64_t budget) {
  const int64_t a = PickValue([](const Value& v) {
    return primitive_util::IsFloatingPointType(v.shape.element_type());
  });
  if (a < 0 || budget < 1) return false;
  const Value& value = values_[a];
  const PrimitiveType type = value.shape.element_type();
  XlaOp op = Emit(ValueSource(a, type));
  if (rng_.OneIn(2)) {
    Record(IsFinite(op), Range::Bool());
    return true;
  }
  // An exponent of at least 5 bits keeps the graph's moderate values
  // finite; rounding to fewer mantissa bits moves a value by at most a
  // factor of 2, and small values may flush to zero.
  const int exponent_bits = rng_.Pick(std::vector<int>{5, 8, 11});
  const int mantissa_bits = static_cast<int>(rng_.UniformIn(0, 30));
  Range range = Range::Of(std::min(0.0, 2 * value.range.lo),
                          std::max(0.0, 2 * value.range.hi));
  range.nan = value.range.nan;
  if (value.range.nan && mantissa_bits == 0) range = Range::Unknown();
  if (!Accept(range, type)) return false;
  Record(ReducePrecision(op, exponent_bits, mantissa_bits), range);
  return true;
}

bool Generator::TryBitcastConvert(int64_t budget) {
  auto other_signedness = [](PrimitiveType type) {
    switch (type) {
      case S2: return U2;
      case S4: return U4;
      case U2: return S2;
      case U4: return S4;
      case S8: return U8;
      case S16: return U16;
      case S32: return U32;
      case S64: return U64;
      case U8: return S8;
      case U16: return S16;
      case U32: return S32;
      case U64: return S64;
      default: return PRIMITIVE_TYPE_INVALID;
    }
  };
  // The result's type must be one the options allow.
  const std::vector<PrimitiveType>& allowed = options_.element_types;
  const int64_t a = PickValue([&](const Value& v) {
    return std::find(allowed.begin(), allowed.end(),
                     other_signedness(v.shape.element_type())) !=
           allowed.end();
  });
  if (a < 0 || budget < 1) return false;
  const PrimitiveType from = values_[a].shape.element_type();
  const PrimitiveType to = other_signedness(from);
  // Non-negative values below the signed maximum read the same either way;
  // others wrap, which the ranges do not follow.
  const Range& range = values_[a].range;
  const double signed_max =
      static_cast<double>((uint64_t{1} << (primitive_util::BitWidth(from) - 1)) - 1);
  // (An unsigned value is never negative.)
  if (range.nan || (range.lo < 0 && primitive_util::IsSignedIntegralType(from)) ||
      range.hi > signed_max || !Accept(range, to)) {
    return false;
  }
  XlaOp op = Emit(ValueSource(a, from));
  Record(BitcastConvertType(op, to), range);
  return true;
}

bool Generator::TryMap(int64_t budget) {
  const int64_t a = PickValue([](const Value&) { return true; });
  if (a < 0 || budget < 1) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  // The other operand: a value of the same shape, or `a` itself.
  int64_t b = PickValue([&](const Value& v) { return v.shape == shape; });
  if (b < 0) b = a;
  const HloOpcode op = rng_.Pick(
      std::vector<HloOpcode>{HloOpcode::kAdd, HloOpcode::kMaximum,
                             HloOpcode::kMinimum});
  const Range range = BinaryRange(op, type, values_[a].range, values_[b].range);
  if (!Accept(range, type)) return false;
  XlaComputation computation =
      op == HloOpcode::kAdd       ? CreateScalarAddComputation(type, &builder_)
      : op == HloOpcode::kMaximum ? CreateScalarMaxComputation(type, &builder_)
                                  : CreateScalarMinComputation(type, &builder_);
  std::vector<int64_t> dims(shape.rank());
  for (int64_t d = 0; d < shape.rank(); ++d) dims[d] = d;
  XlaOp x = Emit(ValueSource(a, type));
  XlaOp y = b == a ? x : Emit(ValueSource(b, type));
  Record(Map(&builder_, {x, y}, computation, dims), range);
  return true;
}

bool Generator::TrySort(int64_t budget) {
  const int64_t a = PickValue([](const Value& v) {
    return v.shape.rank() >= 1 && v.shape.element_type() != PRED;
  });
  if (a < 0 || budget < 1) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  XlaBuilder less(absl::StrCat(builder_.name(), "_less"));
  XlaOp lt = Lt(Parameter(&less, 0, Shape(type, {}), "lhs"),
                Parameter(&less, 1, Shape(type, {}), "rhs"));
  absl::StatusOr<XlaComputation> comparator = less.Build(lt);
  if (!comparator.ok()) return false;
  const int64_t dimension = rng_.Uniform(shape.rank());
  XlaOp op = Emit(ValueSource(a, type));
  Record(Sort({op}, *comparator, dimension), values_[a].range);
  return true;
}

bool Generator::TryRng(int64_t budget) {
  // Another value's shape and type; its bounds from argument constants.
  const int64_t a =
      PickValue([](const Value& v) { return v.shape.element_type() != PRED; });
  // Its parameters are scalars.
  if (a < 0 || budget < 3 || !options_.allow_scalars) return false;
  const Shape shape = values_[a].shape;
  const Source low =
      ConstantSource(Shape(shape.element_type(), {}), ValueStyle::kArgument);
  const Source high =
      ConstantSource(Shape(shape.element_type(), {}), ValueStyle::kArgument);
  Record(RngUniform(Emit(low), Emit(high), shape),
         low.range.Union(high.range));
  return true;
}

// Bits of another value's shape from a constant state, kept to [0, 15]
// (a mask: every bit pattern is a legal draw, not every value a tame one)
// and converted to that value's type.
bool Generator::TryRngBitGenerator(int64_t budget) {
  // The state is u64; the bits are an allowed unsigned type, the value's
  // own type unless converts are allowed.
  std::vector<PrimitiveType> bit_types;
  for (PrimitiveType type : {U8, U16, U32, U64}) {
    if (IsAllowedType(type)) bit_types.push_back(type);
  }
  const Range range = Range::Of(0, 15);
  const int64_t a = PickValue([&](const Value& v) {
    const PrimitiveType type = v.shape.element_type();
    return type != PRED && IsAllowedType(type) &&
           (options_.allow_convert || absl::c_linear_search(bit_types, type));
  });
  if (a < 0 || budget < 6 || !IsAllowedType(U64) ||
      !Accept(range, values_[a].shape.element_type())) {
    return false;
  }
  const Shape shape = values_[a].shape;
  const Shape bits_shape = ShapeUtil::ChangeElementType(
      shape, options_.allow_convert
                 ? bit_types[rng_.Uniform(bit_types.size())]
                 : shape.element_type());
  constexpr RandomAlgorithm kAlgorithms[] = {
      RandomAlgorithm::kThreeFry, RandomAlgorithm::kPhilox,
      RandomAlgorithm::kDefault};
  const RandomAlgorithm algorithm =
      kAlgorithms[rng_.Uniform(std::size(kAlgorithms))];
  std::vector<uint64_t> state(
      algorithm == RandomAlgorithm::kThreeFry ? 2 : rng_.UniformIn(2, 3));
  for (uint64_t& word : state) word = rng_.Next();
  XlaOp drawn = RngBitGenerator(
      algorithm, ConstantR1<uint64_t>(&builder_, state), bits_shape);
  Literal mask(bits_shape);
  primitive_util::ArrayTypeSwitch(bits_shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      for (T& m : mask.data<T>()) m = 15;
    }
  });
  XlaOp masked =
      And(GetTupleElement(drawn, 1), ConstantLiteral(&builder_, mask));
  Record(bits_shape == shape ? masked
                             : ConvertElementType(masked, shape.element_type()),
         range);
  return true;
}

bool Generator::TryStochasticConvert(int64_t budget) {
  auto random_type = [](PrimitiveType type) {
    switch (primitive_util::BitWidth(type)) {
      case 8: return U8;
      case 16: return U16;
      case 32: return U32;
      case 64: return U64;
      default: return PRIMITIVE_TYPE_INVALID;
    }
  };
  const int64_t a = PickValue([&](const Value& v) {
    const PrimitiveType type = v.shape.element_type();
    return primitive_util::IsFloatingPointType(type) &&
           random_type(type) != PRIMITIVE_TYPE_INVALID;
  });
  if (a < 0 || budget < 2 || !IsAllowedType(S32)) return false;
  const Value& value = values_[a];
  Range range = Range::Of(std::floor(value.range.lo) - 1,
                          std::ceil(value.range.hi) + 1);
  range.nan = value.range.nan;
  if (!IsTame(range, S32)) return false;
  range.nan = false;  // NaN becomes 0
  // Random bits over the whole unsigned type.
  Source random;
  random.kind = Source::Kind::kConstant;
  random.shape = ShapeUtil::ChangeElementType(
      value.shape, random_type(value.shape.element_type()));
  Literal bits(ShapeUtil::ChangeElementType(value.shape, U64));
  for (uint64_t& b : bits.data<uint64_t>()) b = rng_.Next();
  random.literal = semantics::ApplyConvert(bits, random.shape.element_type())
                       .value();
  random.range = LiteralRange(random.literal);
  XlaOp op = Emit(ValueSource(a, value.shape.element_type()));
  Record(StochasticConvertType(op, Emit(random), S32), range);
  return true;
}

XlaOp Generator::Token() {
  if (!token_.has_value()) token_ = CreateToken(&builder_);
  return *token_;
}

// Data of another value's shape and type, drawn like an argument.
bool Generator::TryInfeed(int64_t budget) {
  const int64_t a =
      PickValue([](const Value& v) { return v.shape.element_type() != PRED; });
  if (a < 0 || budget < 4) return false;
  const Shape shape = values_[a].shape;
  Literal value = RandomLiteral(rng_, shape, ValueStyle::kArgument);
  const Range range = LiteralRange(value);
  infeed_.push_back(std::move(value));
  XlaOp pair = InfeedWithToken(Token(), shape);
  token_ = GetTupleElement(pair, 1);
  Record(GetTupleElement(pair, 0), range);
  return true;
}

// A value handed to the host; the graph goes on without it.
bool Generator::TryOutfeed(int64_t budget) {
  const int64_t a = PickValue([](const Value&) { return true; });
  if (a < 0 || budget < 2) return false;
  XlaOp data = Emit(ValueSource(a, values_[a].shape.element_type()));
  token_ = OutfeedWithToken(data, Token());
  return true;
}

}  // namespace mxla::random_graph_internal
