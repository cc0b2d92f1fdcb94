// What select-and-scatter computes, for both backends: for each window
// position over the operand (row-major; the positions are the source's
// elements), the window's taps that land on operand elements (padding is
// skipped) are scanned in row-major order and one is selected: the first,
// replaced by each later tap for which `select(selected, tap)` is false.
// The source element at that position is then scattered into the result
// at the selected element (`scatter(result element, source element)`
// updates it). The interpreter passes its evaluated computations, the JIT
// its compiled ones, so both make the same calls in the same order (XLA's
// evaluator's order).
#ifndef MXLA_SEMANTICS_SELECT_AND_SCATTER_H_
#define MXLA_SEMANTICS_SELECT_AND_SCATTER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/window.h"

namespace mxla::semantics {

// Whether operand element `selected` stays selected over `candidate`
// (row-major positions in the operand).
using SelectKeeps =
    std::function<absl::StatusOr<bool>(int64_t selected, int64_t candidate)>;
// Combines source element `source` into result element `element`.
using ScatterInto =
    std::function<absl::Status(int64_t element, int64_t source)>;

absl::Status SelectAndScatter(const std::vector<int64_t>& operand_dims,
                              const Window& window, const SelectKeeps& select,
                              const ScatterInto& scatter);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_SELECT_AND_SCATTER_H_
