// convolution in the interpreter, written from XLA's definition. Each result
// element sums, in the accumulation type (DotAccumulationType: the element
// type, f32 for f16 and bf16), starting from 0, the products of its window
// taps in row-major order of the window and, per tap, of its input
// features in order; a tap that lands in padding or in a hole of the
// dilated base is skipped (it adds nothing, not 0 * w). The JIT's
// expansion (passes/convolution_expander.h) sums the same terms in the
// same order.
//
// With G = feature_group_count, output feature o belongs to group
// o / (O / G) and reads input features [group * F/G, (group + 1) * F/G);
// with BG = batch_group_count, it belongs to batch group o / (O / BG) and
// result batch b reads lhs batch group * (B / BG) + b.
#include <cstdint>
#include <vector>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/index_walk.h"
#include "semantics/scalar_semantics.h"

namespace mxla::hlo_evaluator_internal {

namespace {

// What every result element's sum reads of the operands' layout and
// grouping.
struct ConvolutionGeometry {
  ConvolutionGeometry(const Shape& l, const Shape& r, const Window& window,
                      const ConvolutionDimensionNumbers& dnums,
                      int64_t feature_group_count, int64_t batch_group_count,
                      const Shape& shape)
      : l(l),
        window(window),
        dnums(dnums),
        l_strides(ShapeUtil::RowMajorStrides(l)),
        r_strides(ShapeUtil::RowMajorStrides(r)),
        group_inputs(r.dimensions(dnums.kernel_input_feature)),
        feature_group_outputs(shape.dimensions(dnums.output_feature) /
                              feature_group_count),
        batch_group_outputs(shape.dimensions(dnums.output_feature) /
                            batch_group_count),
        batch_group_size(l.dimensions(dnums.input_batch) / batch_group_count),
        has_taps(ShapeUtil::ElementsIn(r) > 0) {
    for (const WindowDimension& d : window) taps.push_back(d.size);
  }

  // The lhs and rhs offsets of tap `tap` of output element `out_index`
  // (lhs batch `batch`, output feature o); false where the tap lands in
  // padding or in a hole of the dilated base.
  bool TapOffsets(const std::vector<int64_t>& out_index,
                  const std::vector<int64_t>& tap, int64_t batch, int64_t o,
                  int64_t& a_offset, int64_t& b_offset) const {
    a_offset = batch * l_strides[dnums.input_batch];
    b_offset = o * r_strides[dnums.kernel_output_feature];
    for (size_t i = 0; i < tap.size(); ++i) {
      const WindowDimension& d = window[i];
      const int64_t dilated = out_index[dnums.output_spatial[i]] * d.stride -
                              d.padding_low + tap[i] * d.window_dilation;
      const int64_t position = dilated / d.base_dilation;
      if (dilated < 0 || dilated % d.base_dilation != 0 ||
          position >= l.dimensions(dnums.input_spatial[i])) {
        return false;
      }
      a_offset += position * l_strides[dnums.input_spatial[i]];
      const int64_t k = d.reversal ? d.size - 1 - tap[i] : tap[i];
      b_offset += k * r_strides[dnums.kernel_spatial[i]];
    }
    return true;
  }

  // Result element `out_index`: its taps in row-major order, per tap its
  // group's input features in order (`tap` is scratch).
  template <typename T>
  T Sum(const T* a, const T* b, const std::vector<int64_t>& out_index,
        std::vector<int64_t>& tap) const {
    const int64_t o = out_index[dnums.output_feature];
    const int64_t feature_base = o / feature_group_outputs * group_inputs;
    const int64_t batch = o / batch_group_outputs * batch_group_size +
                          out_index[dnums.output_batch];
    T sum = T{};
    std::fill(tap.begin(), tap.end(), 0);
    for (bool more = has_taps; more; more = semantics::NextIndex(taps, tap)) {
      int64_t a_offset, b_offset;
      if (!TapOffsets(out_index, tap, batch, o, a_offset, b_offset)) continue;
      for (int64_t f = 0; f < group_inputs; ++f) {
        sum = semantics::Add(
            sum, semantics::Mul(
                     a[a_offset +
                       (feature_base + f) * l_strides[dnums.input_feature]],
                     b[b_offset + f * r_strides[dnums.kernel_input_feature]]));
      }
    }
    return sum;
  }

  const Shape& l;
  const Window& window;
  const ConvolutionDimensionNumbers& dnums;
  const std::vector<int64_t> l_strides, r_strides;
  const int64_t group_inputs;
  const int64_t feature_group_outputs, batch_group_outputs, batch_group_size;
  const bool has_taps;        // the kernel has elements
  std::vector<int64_t> taps;  // the window's sizes
};

}  // namespace

absl::StatusOr<Literal> EvaluateConvolution(
    const Literal& lhs, const Literal& rhs, const Window& window,
    const ConvolutionDimensionNumbers& dnums, int64_t feature_group_count,
    int64_t batch_group_count, const Shape& shape) {
  if (NeedsAccumulationType(lhs, rhs, shape)) {
    return InAccumulationType(
        lhs, rhs, shape,
        [&](const Literal& a, const Literal& b, const Shape& wide) {
          return EvaluateConvolution(a, b, window, dnums, feature_group_count,
                                     batch_group_count, wide);
        });
  }
  const Shape& l = lhs.shape();
  const Shape& r = rhs.shape();
  const int64_t spatial = dnums.input_spatial.size();
  RET_CHECK(l.rank() == spatial + 2 && r.rank() == spatial + 2 &&
                shape.rank() == spatial + 2 &&
                static_cast<int64_t>(window.size()) == spatial,
            "convolution of ", l.ToString(), " and ", r.ToString());
  const ConvolutionGeometry geometry(l, r, window, dnums, feature_group_count,
                                     batch_group_count, shape);
  Literal result(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (semantics::Element<T>) {
      const T* a = lhs.data<T>().data();
      const T* b = rhs.data<T>().data();
      T* out = result.data<T>().data();
      std::vector<int64_t> out_index(shape.rank(), 0);
      std::vector<int64_t> tap(spatial, 0);
      for (int64_t linear = 0; linear < ShapeUtil::ElementsIn(shape);
           ++linear) {
        out[linear] = geometry.Sum(a, b, out_index, tap);
        semantics::NextIndex(shape.dimensions(), out_index);
      }
    }
  });
  return result;
}

}  // namespace mxla::hlo_evaluator_internal
