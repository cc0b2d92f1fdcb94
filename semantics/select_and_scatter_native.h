// The common select-and-scatter, run natively: select is one float compare
// of its two parameters (GE, GT, LE or LT, IEEE or TOTALORDER) and scatter
// adds its two parameters: max-pool's gradient (GE) and min-pool's (LE).
// It computes exactly what semantics/select_and_scatter.h does with those
// computations: window positions in row-major order, taps in row-major
// order with padding and base-dilation holes skipped, the first tap
// selected and replaced by each later one the compare does not keep it
// over, and each result element accumulating its source elements in the
// order of their positions. f16 and bf16 compare widened to f32 and add in
// f32 with one rounding back per add, as the interpreter's elementwise
// semantics do (semantics/scalar_semantics.h), so the bits are the
// interpreter's.
//
// Positions along a dimension whose window is one tap of stride 1 with no
// padding or dilation (batch and features in a pooling) write disjoint
// result elements, and the order per result element does not depend on how
// that dimension is split: RunNativeSelectAndScatter takes a range of such
// a dimension, so that callers run ranges in parallel with the same bits
// at any thread count.
#ifndef MXLA_SEMANTICS_SELECT_AND_SCATTER_NATIVE_H_
#define MXLA_SEMANTICS_SELECT_AND_SCATTER_NATIVE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/hlo_instruction.h"
#include "ir/window.h"

namespace mxla::semantics {

struct NativeSelectAndScatter {
  PrimitiveType type;  // operand, source, init and result: f32, f64, bf16, f16
  // keep the selected element a over candidate b when `a direction b`
  // (the select's parameters in either order, normalized to this form).
  ComparisonDirection direction;
  bool total_order = false;
  bool source_first = false;  // scatter computes source + element
};

// The native form of `select_and_scatter`'s computations; nullopt when
// they are anything else (they then run as compiled computations).
std::optional<NativeSelectAndScatter> MatchNativeSelectAndScatter(
    const HloInstruction& select_and_scatter);

// A dimension that can be split across threads as above: among those, the
// outermost of at least `threads` elements, else the longest; -1 if none.
int64_t IndependentDimension(const std::vector<int64_t>& operand_dims,
                             const Window& window, int threads);

// Scatters the source elements whose positions have index [begin, end)
// along `dimension` (IndependentDimension; -1 for all positions, with
// begin and end ignored) into `result`, which holds init_value. Buffers
// are dense row-major: `operand` and `result` of `operand_dims`, `source`
// of the window positions.
void RunNativeSelectAndScatter(const NativeSelectAndScatter& form,
                               const std::vector<int64_t>& operand_dims,
                               const Window& window, const void* operand,
                               const void* source, void* result,
                               int64_t dimension, int64_t begin, int64_t end);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_SELECT_AND_SCATTER_NATIVE_H_
