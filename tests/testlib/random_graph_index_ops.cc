// The random-graph steps for the index ops real HLO uses: slice,
// concatenate, pad, dynamic-slice, dynamic-update-slice, gather (of rows
// along one dimension), and dot (as a matrix product over the last
// dimension). Start indices are constants of
// an integer type, sometimes out of range (they are clamped).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "builder/xla_builder.h"
#include "ir/shape_util.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {
namespace {

bool RankAtLeastOne(const Value& v) { return v.shape.rank() >= 1; }

}  // namespace

std::vector<XlaOp> Generator::StartIndices(const Shape& shape,
                                           absl::Span<const int64_t> window) {
  const PrimitiveType type = rng_.Pick(std::vector<PrimitiveType>{S32, S64, U32});
  std::vector<XlaOp> starts;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    // Up to two past either end, so that clamping is exercised.
    const int64_t room = shape.dimensions(d) - window[d];
    int64_t start = rng_.UniformIn(-2, room + 2);
    if (type == U32) start = std::max<int64_t>(start, 0);
    // Built directly, not through the pool: no other op may pick them up.
    primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      starts.push_back(ConstantR0<T>(&builder_, static_cast<T>(start)));
    });
  }
  return starts;
}

bool Generator::TrySlice(int64_t budget) {
  const int64_t a = PickValue(RankAtLeastOne);
  if (a < 0 || budget < 1) return false;
  const Shape shape = values_[a].shape;
  // Without zero sizes, every dimension keeps at least one element.
  const int64_t least = options_.allow_zero_sizes ? 0 : 1;
  std::vector<int64_t> starts, limits, strides;
  for (int64_t size : shape.dimensions()) {
    const int64_t start = rng_.UniformIn(0, size - least);
    starts.push_back(start);
    limits.push_back(rng_.UniformIn(start + least, size));
    strides.push_back(rng_.OneIn(3) ? rng_.UniformIn(2, 3) : 1);
  }
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(Slice(op, starts, limits, strides), values_[a].range);
  return true;
}

bool Generator::TryConcatenate(int64_t budget) {
  const int64_t a = PickValue(RankAtLeastOne);
  if (a < 0 || budget < 2) return false;
  const Shape shape = values_[a].shape;
  const int64_t dimension = rng_.Uniform(shape.rank());
  std::vector<int64_t> other_dims(shape.dimensions().begin(),
                                  shape.dimensions().end());
  other_dims[dimension] = RandomDimensionSize(rng_, limits_);
  std::vector<int64_t> out = other_dims;
  out[dimension] += shape.dimensions(dimension);
  Source other;
  if (!FitsLimits(out) ||
      !SourceOfShape(Shape(shape.element_type(), other_dims), budget - 1,
                     ValueStyle::kArgument, /*allow_iota=*/true, &other)) {
    return false;
  }
  const Range range = values_[a].range.Union(other.range);
  XlaOp lhs = Emit(ValueSource(a, shape.element_type()));
  XlaOp rhs = Emit(other);
  const bool swap = rng_.OneIn(2);
  Record(ConcatInDim(&builder_, {swap ? rhs : lhs, swap ? lhs : rhs}, dimension),
         range);
  return true;
}

bool Generator::TryPad(int64_t budget) {
  const int64_t a = PickValue(RankAtLeastOne);
  if (a < 0 || budget < 2) return false;
  const Shape shape = values_[a].shape;
  PaddingConfig config;
  std::vector<int64_t> out;
  for (int64_t size : shape.dimensions()) {
    PaddingDimension d{rng_.UniformIn(-1, 2), rng_.UniformIn(-1, 2),
                       rng_.OneIn(3) ? rng_.UniformIn(1, 2) : 0};
    config.push_back(d);
    out.push_back(PaddedSize(size, d));
  }
  const Shape scalar(shape.element_type(), {});
  if (!FitsLimits(out) || !ShapeInference::InferPadShape(shape, scalar, config).ok() ||
      (!options_.allow_zero_sizes &&
       std::find(out.begin(), out.end(), 0) != out.end())) {
    return false;
  }
  Source value = ConstantSource(scalar, ValueStyle::kArgument);
  const Range range = values_[a].range.Union(value.range);
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(Pad(op, Emit(value), config), range);
  return true;
}

bool Generator::TryDynamicSlice(int64_t budget) {
  const int64_t a = PickValue(RankAtLeastOne);
  if (a < 0) return false;
  const Shape shape = values_[a].shape;
  if (budget < 1 + shape.rank()) return false;
  std::vector<int64_t> sizes;
  for (int64_t size : shape.dimensions()) {
    sizes.push_back(rng_.UniformIn(options_.allow_zero_sizes ? 0 : 1, size));
  }
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  std::vector<XlaOp> starts = StartIndices(shape, sizes);
  Record(DynamicSlice(op, starts, sizes), values_[a].range);
  return true;
}

bool Generator::TryDynamicUpdateSlice(int64_t budget) {
  const int64_t a = PickValue(RankAtLeastOne);
  if (a < 0) return false;
  const Shape shape = values_[a].shape;
  if (budget < 2 + shape.rank()) return false;
  std::vector<int64_t> sizes;
  for (int64_t size : shape.dimensions()) {
    sizes.push_back(rng_.UniformIn(options_.allow_zero_sizes ? 0 : 1, size));
  }
  Source update;
  if (!SourceOfShape(Shape(shape.element_type(), sizes), budget - 1 - shape.rank(),
                     ValueStyle::kArgument, /*allow_iota=*/true, &update)) {
    return false;
  }
  const Range range = values_[a].range.Union(update.range);
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  XlaOp update_op = Emit(update);
  std::vector<XlaOp> starts = StartIndices(shape, sizes);
  Record(DynamicUpdateSlice(op, update_op, starts), range);
  return true;
}

// Rows (along a random dimension d) of a value picked by constant start
// indices, some out of range (clamped): [k, 1] indices, d collapsed, the
// other dimensions kept as offsets.
bool Generator::TryGather(int64_t budget) {
  const int64_t a = PickValue(RankAtLeastOne);
  if (a < 0 || budget < 2) return false;
  const Shape shape = values_[a].shape;
  const int64_t d = rng_.Uniform(shape.rank());
  // A collapsed dimension needs an element to pick.
  if (shape.dimensions(d) == 0) return false;
  const int64_t count = rng_.UniformIn(options_.allow_zero_sizes ? 0 : 1, 4);
  GatherDimensionNumbers dnums;
  dnums.collapsed_slice_dims = {d};
  dnums.start_index_map = {d};
  dnums.index_vector_dim = 1;
  std::vector<int64_t> sizes(shape.dimensions().begin(),
                             shape.dimensions().end());
  sizes[d] = 1;
  for (int64_t i = 1; i < shape.rank(); ++i) dnums.offset_dims.push_back(i);
  std::vector<int64_t> out = {count};
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (i != d) out.push_back(shape.dimensions(i));
  }
  if (!FitsLimits(out)) return false;
  Literal starts(ShapeUtil::MakeShape(S32, {count, 1}));
  for (int64_t k = 0; k < count; ++k) {
    starts.data<int32_t>()[k] =
        static_cast<int32_t>(rng_.UniformIn(-2, shape.dimensions(d) + 1));
  }
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  // Built directly, not through the pool: no other op may pick them up.
  XlaOp indices = ConstantLiteral(&builder_, starts);
  Record(Gather(op, indices, dnums, sizes), values_[a].range);
  return true;
}

// a[..., k] x b[k, n] -> [..., n], contracting a's last dimension.
bool Generator::TryDot(int64_t budget) {
  const int64_t a = PickValue([](const Value& v) {
    return v.shape.rank() >= 1 && v.shape.rank() <= 3 &&
           v.shape.element_type() != PRED;
  });
  return a >= 0 && DotOf(a, budget);
}

bool Generator::DotOf(int64_t a, int64_t budget) {
  if (budget < 2) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  const int64_t k = shape.dimensions(shape.rank() - 1);
  const int64_t n = RandomDimensionSize(rng_, limits_);
  std::vector<int64_t> out(shape.dimensions().begin(), shape.dimensions().end() - 1);
  out.push_back(n);
  Source rhs;
  if (!FitsLimits(out) || !SourceOfShape(Shape(type, {k, n}), budget - 1,
                                         ValueStyle::kArgument,
                                         /*allow_iota=*/false, &rhs)) {
    return false;
  }
  const Range products =
      BinaryRange(HloOpcode::kMultiply, type, values_[a].range, rhs.range);
  const Range range = ReduceRange(HloOpcode::kAdd, type, products,
                                  Range::Of(0, 0), k);
  if (!Accept(range, type)) return false;
  XlaOp lhs_op = Emit(ValueSource(a, type));
  XlaOp rhs_op = Emit(rhs);
  DotDimensionNumbers dnums;
  dnums.lhs_contracting = {shape.rank() - 1};
  dnums.rhs_contracting = {0};
  Record(DotGeneral(lhs_op, rhs_op, dnums), range);
  return true;
}

// A dense layer over an f32 or f64 value, the forms the dot kernel fuses:
// the product, then a bias along n (sometimes a ReLU after it) or a row
// reduction over n combined back with the product (a row dot).
bool Generator::TryDotLayer(int64_t budget) {
  const int64_t a = PickValue([](const Value& v) {
    const PrimitiveType type = v.shape.element_type();
    return v.shape.rank() >= 2 && v.shape.rank() <= 3 &&
           (type == F32 || type == F64);
  });
  const int64_t emitted = Emitted();
  if (a < 0 || budget < 4 || !DotOf(a, budget - 2)) return false;
  // The product stands as a step even where its follower does not fit.
  auto left = [&] { return budget - (Emitted() - emitted); };
  const int64_t product = static_cast<int64_t>(values_.size()) - 1;
  const Shape shape = values_[product].shape;
  const PrimitiveType type = shape.element_type();
  const int64_t last = shape.rank() - 1;
  if (options_.allow_reduce && rng_.OneIn(2)) {
    RowReductionOf(product, last, left());
    return true;
  }
  Source bias;
  if (!SourceOfShape(Shape(type, {shape.dimensions(last)}), left() - 1,
                     ValueStyle::kArgument, /*allow_iota=*/false, &bias) ||
      !EmitBinaryIfOk(HloOpcode::kAdd, ValueSource(product, type), bias,
                      {last}, left())) {
    return true;
  }
  if (options_.allow_scalars && rng_.OneIn(2)) {  // a ReLU
    Source zero = ConstantSource(Shape(type, {}), ValueStyle::kArgument);
    zero.literal = LiteralUtil::Zero(type);
    zero.range = LiteralRange(zero.literal);
    EmitBinaryIfOk(HloOpcode::kMaximum,
                   ValueSource(static_cast<int64_t>(values_.size()) - 1, type),
                   zero, {}, left());
  }
  return true;
}

}  // namespace mxla::random_graph_internal
