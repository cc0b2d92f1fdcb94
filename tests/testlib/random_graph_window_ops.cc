// The random-graph steps for the windowed ops: convolution (one spatial
// dimension, any dimension-label order, padding, dilations, reversal,
// feature groups), reduce-window (any window over every dimension, sum or
// max from a possibly non-identity init), scatter (rows at constant start
// indices, some out of range) and select-and-scatter (max-pool gradients).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "ir/shape_util.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {
namespace {

using O = HloOpcode;

bool Numeric(const Value& v) {
  return v.shape.rank() >= 1 && v.shape.element_type() != PRED;
}

// A window over `dims`: sizes 1-3, strides 1-2, padding -1..2 (when
// `pad`), base dilation 1-2 and window dilation 1-2 (when `dilate`); at
// least one position per dimension unless zero sizes are allowed.
Window RandomWindow(Rng& rng, absl::Span<const int64_t> dims, bool pad,
                    bool dilate, bool allow_empty) {
  Window window(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    WindowDimension& w = window[d];
    w.size = rng.UniformIn(1, 3);
    w.stride = rng.UniformIn(1, 2);
    if (pad && rng.OneIn(2)) {
      w.padding_low = rng.UniformIn(-1, 2);
      w.padding_high = rng.UniformIn(-1, 2);
    }
    if (dilate && rng.OneIn(3)) w.base_dilation = 2;
    if (dilate && rng.OneIn(3)) w.window_dilation = 2;
    while (!allow_empty && WindowOutputSize(dims[d], w) == 0 && w.size > 1) {
      --w.size;
    }
    if (!allow_empty && WindowOutputSize(dims[d], w) == 0) {
      w.padding_low = std::max<int64_t>(w.padding_low, 0);
      w.padding_high = std::max<int64_t>(w.padding_high, 0);
      w.window_dilation = 1;
    }
  }
  return window;
}

std::vector<int64_t> Positions(absl::Span<const int64_t> dims,
                               const Window& window) {
  std::vector<int64_t> positions;
  for (size_t d = 0; d < dims.size(); ++d) {
    positions.push_back(WindowOutputSize(dims[d], window[d]));
  }
  return positions;
}

int64_t Taps(const Window& window) {
  int64_t taps = 1;
  for (const WindowDimension& w : window) taps *= w.size;
  return taps;
}

}  // namespace

// A rank-3 value as a 1-d convolution's input, its dimensions labelled in
// a random order, with a new kernel and a random window.
bool Generator::TryConvolution(int64_t budget) {
  const int64_t a = PickValue(
      [](const Value& v) { return Numeric(v) && v.shape.rank() == 3; });
  if (a < 0 || budget < 3) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  // lhs, kernel and output labels: a permutation of (b|i, f|o, 0) each.
  auto order = [&] {
    std::vector<int64_t> p = {0, 1, 2};
    for (int64_t i = 2; i > 0; --i) std::swap(p[i], p[rng_.Uniform(i + 1)]);
    return p;
  };
  const std::vector<int64_t> lhs = order(), rhs = order(), out = order();
  ConvolutionDimensionNumbers dnums;
  dnums.input_batch = lhs[0];
  dnums.input_feature = lhs[1];
  dnums.input_spatial = {lhs[2]};
  dnums.kernel_input_feature = rhs[0];
  dnums.kernel_output_feature = rhs[1];
  dnums.kernel_spatial = {rhs[2]};
  dnums.output_batch = out[0];
  dnums.output_feature = out[1];
  dnums.output_spatial = {out[2]};
  const int64_t features = shape.dimensions(dnums.input_feature);
  const int64_t groups = features % 2 == 0 && features > 0 && rng_.OneIn(3)
                             ? 2
                             : 1;
  const int64_t outputs = groups * rng_.UniformIn(1, 2);
  Window window = RandomWindow(rng_, {shape.dimensions(dnums.input_spatial[0])},
                               /*pad=*/true, /*dilate=*/true,
                               options_.allow_zero_sizes);
  window[0].reversal = rng_.OneIn(4);
  std::vector<int64_t> kernel_dims(3);
  kernel_dims[dnums.kernel_input_feature] = features / groups;
  kernel_dims[dnums.kernel_output_feature] = outputs;
  kernel_dims[dnums.kernel_spatial[0]] = window[0].size;
  std::vector<int64_t> result(3);
  result[dnums.output_batch] = shape.dimensions(dnums.input_batch);
  result[dnums.output_feature] = outputs;
  result[dnums.output_spatial[0]] =
      WindowOutputSize(shape.dimensions(dnums.input_spatial[0]), window[0]);
  Source kernel;
  if (!FitsLimits(result) ||
      !SourceOfShape(Shape(type, kernel_dims), budget - 1,
                     ValueStyle::kArgument, /*allow_iota=*/false, &kernel)) {
    return false;
  }
  const Range products =
      BinaryRange(O::kMultiply, type, values_[a].range, kernel.range);
  const Range range = ReduceRange(O::kAdd, type, products, Range::Of(0, 0),
                                  window[0].size * (features / groups));
  if (!Accept(range, type)) return false;
  XlaOp x = Emit(ValueSource(a, type));
  XlaOp w = Emit(kernel);
  const WindowDimension& d = window[0];
  Record(ConvGeneralDilated(x, w, {d.stride}, {{d.padding_low, d.padding_high}},
                            {d.base_dilation}, {d.window_dilation}, dnums,
                            groups),
         range);
  return true;
}

// Sum or max over a random window of every dimension, from an init that
// need not be the identity (padding and holes are skipped, not combined).
bool Generator::TryReduceWindow(int64_t budget) {
  const int64_t a = PickValue(Numeric);
  if (a < 0 || budget < 2) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  const O reducer = rng_.OneIn(2) ? O::kAdd : O::kMaximum;
  const Window window = RandomWindow(rng_, shape.dimensions(), true, true,
                                     options_.allow_zero_sizes);
  const std::vector<int64_t> positions = Positions(shape.dimensions(), window);
  const Source init = ReduceInit(reducer, type);
  // A window may hold only padding or holes: then it gives the init value
  // (a -inf init of max stays -inf).
  const Range range =
      ReduceRange(reducer, type, values_[a].range, init.range, Taps(window))
          .Union(init.range);
  if (!FitsLimits(positions) || 1 + init.Cost() > budget ||
      !Accept(range, type)) {
    return false;
  }
  std::vector<int64_t> sizes, strides, base, dilations;
  std::vector<std::pair<int64_t, int64_t>> padding;
  for (const WindowDimension& w : window) {
    sizes.push_back(w.size);
    strides.push_back(w.stride);
    base.push_back(w.base_dilation);
    dilations.push_back(w.window_dilation);
    padding.push_back({w.padding_low, w.padding_high});
  }
  XlaComputation computation = reducer == O::kAdd
                                   ? CreateScalarAddComputation(type, &builder_)
                                   : CreateScalarMaxComputation(type, &builder_);
  XlaOp x = Emit(ValueSource(a, type));
  XlaOp init_op = Emit(init);
  Record(ReduceWindowWithGeneralPadding(x, init_op, computation, sizes,
                                        strides, base, dilations, padding),
         range);
  return true;
}

// Rows of new updates added into a value along dimension 0 at constant
// start rows, some out of range (those rows are skipped), repeats summed.
bool Generator::TryScatter(int64_t budget) {
  const int64_t a = PickValue(Numeric);
  if (a < 0 || budget < 3) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  const int64_t count = rng_.UniformIn(options_.allow_zero_sizes ? 0 : 1, 4);
  std::vector<int64_t> update_dims = {count};
  update_dims.insert(update_dims.end(), shape.dimensions().begin() + 1,
                     shape.dimensions().end());
  Source updates;
  if (!FitsLimits(update_dims) ||
      !SourceOfShape(Shape(type, update_dims), budget - 2,
                     ValueStyle::kArgument, /*allow_iota=*/false, &updates)) {
    return false;
  }
  const Range range =
      ReduceRange(O::kAdd, type, updates.range, values_[a].range, count);
  if (!Accept(range, type)) return false;
  Literal rows(ShapeUtil::MakeShape(S32, {count}));
  for (int64_t k = 0; k < count; ++k) {
    rows.data<int32_t>()[k] =
        static_cast<int32_t>(rng_.UniformIn(-1, shape.dimensions(0)));
  }
  ScatterDimensionNumbers dnums;
  for (int64_t d = 1; d < shape.rank(); ++d) {
    dnums.update_window_dims.push_back(d);
  }
  dnums.inserted_window_dims = {0};
  dnums.scatter_dims_to_operand_dims = {0};
  dnums.index_vector_dim = 1;
  XlaOp x = Emit(ValueSource(a, type));
  XlaOp u = Emit(updates);
  // Built directly, not through the pool: no other op may pick them up.
  XlaOp indices = ConstantLiteral(&builder_, rows);
  Record(Scatter(x, indices, u, CreateScalarAddComputation(type, &builder_),
                 dnums),
         range);
  return true;
}

// A max-pool gradient: each element of a new source lands on its window's
// maximum of the value (the first on ties), summed over an init.
bool Generator::TrySelectAndScatter(int64_t budget) {
  const int64_t a = PickValue(Numeric);
  if (a < 0 || budget < 3) return false;
  const Shape shape = values_[a].shape;
  const PrimitiveType type = shape.element_type();
  const Window window = RandomWindow(rng_, shape.dimensions(), true,
                                     /*dilate=*/false,
                                     options_.allow_zero_sizes);
  const std::vector<int64_t> positions = Positions(shape.dimensions(), window);
  Source source;
  if (!FitsLimits(positions) ||
      !SourceOfShape(Shape(type, positions), budget - 2,
                     ValueStyle::kArgument, /*allow_iota=*/false, &source)) {
    return false;
  }
  const Source init = ReduceInit(O::kAdd, type);
  const Range range = ReduceRange(O::kAdd, type, source.range, init.range,
                                  ShapeUtil::ElementsIn(Shape(type, positions)));
  if (!Accept(range, type)) return false;
  XlaBuilder ge(absl::StrCat(builder_.name(), "_ge"));
  absl::StatusOr<XlaComputation> select =
      ge.Build(Ge(Parameter(&ge, 0, Shape(type, {}), "a"),
                  Parameter(&ge, 1, Shape(type, {}), "b")));
  if (!select.ok()) return false;
  std::vector<int64_t> sizes, strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  for (const WindowDimension& w : window) {
    sizes.push_back(w.size);
    strides.push_back(w.stride);
    padding.push_back({w.padding_low, w.padding_high});
  }
  XlaOp x = Emit(ValueSource(a, type));
  XlaOp s = Emit(source);
  XlaOp init_op = Emit(init);
  Record(SelectAndScatterWithGeneralPadding(
             x, *select, sizes, strides, padding, s, init_op,
             CreateScalarAddComputation(type, &builder_)),
         range);
  return true;
}

}  // namespace mxla::random_graph_internal
