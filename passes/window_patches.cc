#include "passes/window_patches.h"

#include <vector>

#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "shape_inference/shape_inference.h"

namespace mxla::expansion {
namespace {

// s64[positions..., n]: entry (p, i) = p_i * stride_i, the start of window
// position p in the padded base.
HloInstruction* WindowStarts(HloComputation& computation,
                             const std::vector<int64_t>& positions,
                             const Window& window) {
  const int64_t n = positions.size();
  std::vector<int64_t> column_dims = positions;
  column_dims.push_back(1);
  const Shape column = ShapeUtil::MakeShape(S64, column_dims);
  std::vector<HloInstruction*> columns;
  for (int64_t i = 0; i < n; ++i) {
    HloInstruction* start =
        computation.AddInstruction(HloInstruction::CreateIota(column, i));
    if (window[i].stride != 1) {
      HloInstruction* stride = computation.AddInstruction(
          HloInstruction::CreateConstant(
              LiteralUtil::CreateR0<int64_t>(window[i].stride)));
      HloInstruction* strides = computation.AddInstruction(
          HloInstruction::CreateBroadcast(column, stride, {}));
      start = computation.AddInstruction(HloInstruction::CreateBinary(
          column, HloOpcode::kMultiply, start, strides));
    }
    columns.push_back(start);
  }
  if (n == 1) return columns[0];
  std::vector<int64_t> all_dims = positions;
  all_dims.push_back(n);
  auto concat = HloInstruction::CreateGeneric(
      HloOpcode::kConcatenate, ShapeUtil::MakeShape(S64, all_dims), columns);
  concat->set_dimensions({n});
  return computation.AddInstruction(std::move(concat));
}

}  // namespace

absl::StatusOr<HloInstruction*> PadForWindow(HloComputation& computation,
                                             HloInstruction* base,
                                             const Window& window,
                                             HloInstruction* pad_value) {
  bool pads = false;
  PaddingConfig config;
  for (const WindowDimension& d : window) {
    config.push_back({d.padding_low, d.padding_high, d.base_dilation - 1});
    pads |= d.padding_low != 0 || d.padding_high != 0 || d.base_dilation > 1;
  }
  if (!pads) return base;
  ASSIGN_OR_RETURN(Shape shape,
                   ShapeInference::InferPadShape(base->shape(),
                                                 pad_value->shape(), config));
  auto pad =
      HloInstruction::CreateGeneric(HloOpcode::kPad, shape, {base, pad_value});
  pad->set_padding_config(config);
  return computation.AddInstruction(std::move(pad));
}

std::vector<std::vector<int64_t>> WindowTaps(const Window& window) {
  std::vector<std::vector<int64_t>> taps = {{}};
  for (const WindowDimension& d : window) {
    std::vector<std::vector<int64_t>> longer;
    for (const std::vector<int64_t>& tap : taps) {
      for (int64_t i = 0; i < d.size; ++i) {
        longer.push_back(tap);
        longer.back().push_back(i);
      }
    }
    taps = std::move(longer);
  }
  return taps;
}

HloInstruction* WindowTapSlice(HloComputation& computation,
                               HloInstruction* padded, const Window& window,
                               absl::Span<const int64_t> tap,
                               absl::Span<const int64_t> positions) {
  const int64_t rank = positions.size();
  std::vector<int64_t> starts(rank), limits(rank), strides(rank);
  for (int64_t i = 0; i < rank; ++i) {
    const WindowDimension& d = window[i];
    starts[i] = tap[i] * d.window_dilation;
    limits[i] = starts[i] + (positions[i] - 1) * d.stride + 1;
    strides[i] = d.stride;
  }
  auto slice = HloInstruction::CreateGeneric(
      HloOpcode::kSlice,
      ShapeUtil::MakeShape(padded->shape().element_type(),
                           std::vector<int64_t>(positions.begin(),
                                                positions.end())),
      {padded});
  slice->set_slice(starts, limits, strides);
  return computation.AddInstruction(std::move(slice));
}

bool WindowHasHoles(const Window& window) {
  for (const WindowDimension& d : window) {
    if (d.padding_low > 0 || d.padding_high > 0 || d.base_dilation > 1) {
      return true;
    }
  }
  return false;
}

namespace {

// Each window position's dilated window, gathered from its start in
// `padded`: [leading..., positions..., dilated window...].
absl::StatusOr<HloInstruction*> GatherWindows(
    HloComputation& computation, HloInstruction* padded, int64_t leading,
    const Window& window, const std::vector<int64_t>& positions) {
  const int64_t n = window.size();
  GatherDimensionNumbers dnums;
  dnums.offset_dims = Concat(Iota(0, leading), Iota(leading + n, n));
  dnums.start_index_map = Iota(leading, n);
  dnums.index_vector_dim = n;
  std::vector<int64_t> slice_sizes(
      padded->shape().dimensions().begin(),
      padded->shape().dimensions().begin() + leading);
  for (const WindowDimension& d : window) {
    slice_sizes.push_back(DilatedBound(d.size, d.window_dilation));
  }
  HloInstruction* starts = WindowStarts(computation, positions, window);
  ASSIGN_OR_RETURN(Shape gathered_shape,
                   ShapeInference::InferGatherShape(
                       padded->shape(), starts->shape(), dnums, slice_sizes));
  auto gather = HloInstruction::CreateGeneric(HloOpcode::kGather,
                                              gathered_shape, {padded, starts});
  gather->set_gather_dimension_numbers(dnums);
  gather->mutable_attributes().Set(AttrId::kSliceSizes, slice_sizes);
  return computation.AddInstruction(std::move(gather));
}

// Window dilation: every window_dilation-th element of the gathered
// dilated windows; `patches` itself when no window is dilated.
HloInstruction* DilatedTaps(HloComputation& computation,
                            HloInstruction* patches, int64_t leading,
                            const Window& window) {
  bool dilated = false;
  for (const WindowDimension& d : window) dilated |= d.window_dilation > 1;
  if (!dilated) return patches;
  const int64_t n = window.size();
  const Shape& gathered_shape = patches->shape();
  const int64_t rank = leading + 2 * n;
  std::vector<int64_t> starts_at(rank, 0), strides(rank, 1), dims(rank);
  for (int64_t d = 0; d < rank; ++d) dims[d] = gathered_shape.dimensions(d);
  std::vector<int64_t> limits = dims;
  for (int64_t i = 0; i < n; ++i) {
    strides[leading + n + i] = window[i].window_dilation;
    dims[leading + n + i] = window[i].size;
  }
  auto slice = HloInstruction::CreateGeneric(
      HloOpcode::kSlice,
      ShapeUtil::MakeShape(gathered_shape.element_type(), dims), {patches});
  slice->set_slice(starts_at, limits, strides);
  return computation.AddInstruction(std::move(slice));
}

}  // namespace

absl::StatusOr<HloInstruction*> WindowPatches(HloComputation& computation,
                                              HloInstruction* base,
                                              int64_t leading,
                                              const Window& window,
                                              HloInstruction* pad_value) {
  const int64_t n = window.size();
  const Shape& shape = base->shape();
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < n; ++i) {
    positions.push_back(
        WindowOutputSize(shape.dimensions(leading + i), window[i]));
  }
  // Padding and base dilation (none along the leading dimensions).
  Window padding(leading);
  padding.insert(padding.end(), window.begin(), window.end());
  ASSIGN_OR_RETURN(HloInstruction * padded,
                   PadForWindow(computation, base, padding, pad_value));
  if (n == 0) return padded;
  ASSIGN_OR_RETURN(
      HloInstruction * patches,
      GatherWindows(computation, padded, leading, window, positions));
  return DilatedTaps(computation, patches, leading, window);
}

absl::StatusOr<HloInstruction*> WindowTapMask(
    HloComputation& computation, absl::Span<const int64_t> base_dims,
    int64_t leading, const Window& window) {
  HloInstruction* on = computation.AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<bool>(true)));
  HloInstruction* base =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          ShapeUtil::MakeShape(PRED, base_dims), on, {}));
  return WindowPatches(computation, base, leading, window,
                       Zero(computation, PRED));
}

}  // namespace mxla::expansion
