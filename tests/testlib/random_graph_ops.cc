// The generator's shape-changing and leaf steps: convert, the two
// broadcasts, reshape, transpose, reduce, iota and constants.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "ir/primitive_type.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {
namespace {

using O = HloOpcode;

bool AnyValue(const Value&) { return true; }

XlaComputation Reducer(HloOpcode reducer, PrimitiveType type,
                       XlaBuilder* builder) {
  switch (reducer) {
    case O::kAdd:
      return CreateScalarAddComputation(type, builder);
    case O::kMultiply:
      return CreateScalarMulComputation(type, builder);
    case O::kMaximum:
      return CreateScalarMaxComputation(type, builder);
    default:
      return CreateScalarMinComputation(type, builder);
  }
}

// -inf for max, +inf for min: the init XLA's own reductions use.
Literal InfinityLiteral(PrimitiveType type, bool negative) {
  const double inf = std::numeric_limits<double>::infinity();
  const double value = negative ? -inf : inf;
  Literal literal(Shape(type, {}));
  primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    literal.data<T>()[0] = static_cast<T>(static_cast<float>(value));
  });
  return literal;
}

}  // namespace

bool Generator::TryConvert(int64_t budget) {
  const int64_t a = PickValue(AnyValue);
  if (a < 0 || budget < 1) return false;
  const PrimitiveType from = values_[a].shape.element_type();
  const Range& range = values_[a].range;
  std::vector<PrimitiveType> targets;
  for (PrimitiveType to : options_.element_types) {
    // Out-of-range conversion to an integer saturates or wraps: never.
    if (to == from ||
        (primitive_util::IsIntegralType(to) && !IsTame(range, to))) {
      continue;
    }
    targets.push_back(to);
  }
  if (targets.empty()) {
    if (!rng_.OneIn(4)) return false;
    targets.push_back(from);  // a no-op convert, now and then
  }
  const PrimitiveType to = rng_.Pick(targets);
  Source source = ValueSource(a, to);
  source.convert_to = to;
  Emit(source, /*is_result=*/true);
  return true;
}

// Broadcast: prepends dimensions.
bool Generator::TryBroadcast(int64_t budget) {
  const int64_t max_rank = options_.max_rank;
  const int64_t a =
      PickValue([&](const Value& v) { return v.shape.rank() < max_rank; });
  if (a < 0 || budget < 1) return false;
  const Shape shape = values_[a].shape;
  std::vector<int64_t> sizes = RandomDimensions(
      rng_, limits_, rng_.UniformIn(1, max_rank - shape.rank()));
  std::vector<int64_t> out = sizes;
  out.insert(out.end(), shape.dimensions().begin(), shape.dimensions().end());
  if (!FitsLimits(out)) return false;
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(Broadcast(op, sizes), values_[a].range);
  return true;
}

// BroadcastInDim onto a random superset of dimensions; size-1 operand
// dimensions stretch sometimes (XLA's builder then adds reshape +
// broadcast, so only with reshapes allowed).
bool Generator::TryBroadcastInDim(int64_t budget) {
  const int64_t max_rank = options_.max_rank;
  const int64_t a = PickValue([&](const Value& v) {
    return v.shape.rank() <= max_rank && max_rank > 0;
  });
  if (a < 0) return false;
  const Shape shape = values_[a].shape;
  const int64_t rank = shape.rank();
  const int64_t out_rank = rng_.UniformIn(std::max<int64_t>(rank, 1), max_rank);
  const std::vector<int64_t> dims = rng_.Subset(out_rank, rank);
  std::vector<int64_t> out = RandomDimensions(rng_, limits_, out_rank);
  int64_t stretched = 0;
  for (int64_t i = 0; i < rank; ++i) {
    out[dims[i]] = shape.dimensions(i);
    if (shape.dimensions(i) == 1 && options_.allow_reshape && rng_.OneIn(2)) {
      out[dims[i]] = RandomDimensionSize(rng_, limits_);
      stretched += out[dims[i]] != 1 ? 1 : 0;
    }
  }
  // Stretching every dimension would reshape to a scalar on the way.
  if (stretched == out_rank && !options_.allow_scalars) return false;
  const int64_t cost = stretched > 0 ? 3 : 1;
  if (cost > budget || !FitsLimits(out) ||
      !ShapeInference::InferBroadcastInDimShape(shape, out, dims).ok()) {
    return false;
  }
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(BroadcastInDim(op, out, dims), values_[a].range);
  return true;
}

bool Generator::TryReshape(int64_t budget) {
  const int64_t a = PickValue(AnyValue);
  if (a < 0 || budget < 1) return false;
  const Shape shape = values_[a].shape;
  std::vector<int64_t> sizes = RandomReshape(rng_, shape.dimensions(), limits_);
  if (!FitsLimits(sizes) ||
      !ShapeInference::InferReshapeShape(shape, sizes).ok()) {
    return false;
  }
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(Reshape(op, sizes), values_[a].range);
  return true;
}

bool Generator::TryTranspose(int64_t budget) {
  int64_t a = PickValue([](const Value& v) { return v.shape.rank() >= 2; });
  if (a < 0) a = PickValue([](const Value& v) { return v.shape.rank() >= 1; });
  if (a < 0 || budget < 1) return false;
  const Shape shape = values_[a].shape;
  const std::vector<int64_t> permutation = rng_.Permutation(shape.rank());
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(Transpose(op, permutation), values_[a].range);
  return true;
}

bool Generator::TryReduce(int64_t budget) {
  const int64_t a = PickValue(AnyValue);
  if (a < 0) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  const int64_t rank = shape.rank();
  if (rank == 0 && !rng_.OneIn(4)) return false;
  const bool all = rng_.OneIn(4);
  std::vector<int64_t> dims;
  std::vector<int64_t> kept;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (all || rng_.OneIn(2)) {
      dims.push_back(d);
      count *= shape.dimensions(d);
    } else {
      kept.push_back(shape.dimensions(d));
    }
  }
  const HloOpcode reducer = rng_.Pick(
      std::vector<HloOpcode>{O::kAdd, O::kMultiply, O::kMaximum, O::kMinimum});
  const Source init = ReduceInit(reducer, type);
  const Range range =
      ReduceRange(reducer, type, values_[a].range, init.range, count);
  if (!FitsLimits(kept) || 1 + init.Cost() > budget || !Accept(range, type)) {
    return false;
  }
  XlaComputation computation = Reducer(reducer, type, &builder_);
  XlaOp op = Emit(ValueSource(a, type));
  XlaOp init_op = Emit(init);
  Record(Reduce(op, init_op, computation, dims), range);
  return true;
}

// Softmax's shape: x combined elementwise with a reduction of x over its
// trailing dimensions, broadcast back along the leading ones. The scale
// tier's graphs need it to reach row fusion (passes/row_fusion.h); random
// reduce dimensions and partners almost never line up this way.
bool Generator::TryRowReduction(int64_t budget) {
  const int64_t a = PickValue([](const Value& v) {
    return v.shape.rank() >= 2 && v.shape.element_type() != PRED;
  });
  if (a < 0) return false;
  return RowReductionOf(a, rng_.UniformIn(1, values_[a].shape.rank() - 1),
                        budget);
}

bool Generator::RowReductionOf(int64_t a, int64_t kept, int64_t budget) {
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  std::vector<int64_t> reduced_dims, leading;
  int64_t count = 1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d < kept) {
      leading.push_back(d);
    } else {
      reduced_dims.push_back(d);
      count *= shape.dimensions(d);
    }
  }
  const HloOpcode reducer =
      rng_.Pick(std::vector<HloOpcode>{O::kAdd, O::kMaximum, O::kMinimum});
  const Source init = ReduceInit(reducer, type);
  const Range range =
      ReduceRange(reducer, type, values_[a].range, init.range, count);
  const HloOpcode combine = rng_.Pick(
      std::vector<HloOpcode>{O::kSubtract, O::kAdd, O::kMultiply, O::kMaximum});
  if (2 + init.Cost() > budget || !Accept(range, type) ||
      !Accept(BinaryRange(combine, type, values_[a].range, range), type)) {
    return false;
  }
  XlaComputation computation = Reducer(reducer, type, &builder_);
  XlaOp op = Emit(ValueSource(a, type));
  XlaOp init_op = Emit(init);
  Record(Reduce(op, init_op, computation, reduced_dims), range);
  const int64_t row = static_cast<int64_t>(values_.size()) - 1;
  EmitBinaryIfOk(combine, ValueSource(a, type), ValueSource(row, type), leading,
                 budget - 1 - init.Cost());
  return true;
}

// An existing scalar now and then; else the reducer's identity (infinities
// for float max/min) or a small random value.
Source Generator::ReduceInit(HloOpcode reducer, PrimitiveType type) {
  const int64_t existing = PickValue([&](const Value& v) {
    return v.shape.IsScalar() && v.shape.element_type() == type;
  });
  if (existing >= 0 && rng_.OneIn(4)) return ValueSource(existing, type);
  Source init = ConstantSource(Shape(type, {}), ValueStyle::kArgument);
  if (rng_.OneIn(3)) return init;
  const bool is_float = primitive_util::IsFloatingPointType(type);
  const bool floor = reducer == O::kMaximum;
  if ((reducer == O::kAdd) || (type == PRED && reducer == O::kMaximum)) {
    init.literal = LiteralUtil::Zero(type);
  } else if (reducer == O::kMultiply ||
             (type == PRED && reducer == O::kMinimum)) {
    init.literal = LiteralUtil::One(type);
  } else if (is_float) {
    init.literal = InfinityLiteral(type, /*negative=*/floor);
  }
  init.range = LiteralRange(init.literal);
  return init;
}

bool Generator::TryIota(int64_t budget) {
  std::vector<PrimitiveType> types;
  for (PrimitiveType type : options_.element_types) {
    if (type != PRED) types.push_back(type);
  }
  if (types.empty() || options_.max_rank < 1 || budget < 1) return false;
  std::vector<int64_t> dimensions =
      RandomDimensions(rng_, limits_, rng_.UniformIn(1, options_.max_rank));
  const Shape shape(rng_.Pick(types), std::move(dimensions));
  if (!FitsLimits(shape.dimensions())) return false;
  Emit(IotaSource(shape), /*is_result=*/true);
  return true;
}

bool Generator::TryConstant(int64_t budget) {
  // Dimensions first, then the type: sequenced, so every compiler draws
  // the same graph from a seed.
  std::vector<int64_t> dimensions =
      RandomDimensions(rng_, limits_, RandomRank(rng_, limits_));
  const Shape shape(rng_.Pick(options_.element_types), std::move(dimensions));
  if (budget < 1 || !FitsLimits(shape.dimensions())) return false;
  Emit(ConstantSource(shape, ValueStyle::kArgument), /*is_result=*/true);
  return true;
}

}  // namespace mxla::random_graph_internal
