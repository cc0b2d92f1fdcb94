#include "semantics/select_and_scatter.h"

#include <algorithm>

#include "semantics/index_walk.h"

namespace mxla::semantics {

absl::Status SelectAndScatter(const std::vector<int64_t>& operand_dims,
                              const Window& window, const SelectKeeps& select,
                              const ScatterInto& scatter) {
  const int64_t rank = operand_dims.size();
  std::vector<int64_t> positions, taps;
  for (int64_t d = 0; d < rank; ++d) {
    positions.push_back(WindowOutputSize(operand_dims[d], window[d]));
    taps.push_back(window[d].size);
  }
  const std::vector<int64_t> strides = RowMajorStrides(operand_dims);
  for (int64_t size : positions) {
    if (size == 0) return absl::OkStatus();
  }
  std::vector<int64_t> position(rank, 0), tap(rank, 0);
  int64_t source = 0;
  do {
    int64_t selected = -1;
    std::fill(tap.begin(), tap.end(), 0);
    do {
      int64_t element = 0;
      if (!WindowTapOffset(window, operand_dims, strides, position, tap,
                           &element)) {
        continue;
      }
      if (selected < 0) {
        selected = element;
        continue;
      }
      absl::StatusOr<bool> keep = select(selected, element);
      if (!keep.ok()) return keep.status();
      if (!*keep) selected = element;
    } while (NextIndex(taps, tap));
    if (selected >= 0) {
      absl::Status status = scatter(selected, source);
      if (!status.ok()) return status;
    }
    ++source;
  } while (NextIndex(positions, position));
  return absl::OkStatus();
}

}  // namespace mxla::semantics
