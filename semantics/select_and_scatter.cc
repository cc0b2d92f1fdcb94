#include "semantics/select_and_scatter.h"

#include <algorithm>

namespace mxla::semantics {
namespace {

bool Next(const std::vector<int64_t>& sizes, std::vector<int64_t>& index) {
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (++index[d] < sizes[d]) return true;
    index[d] = 0;
  }
  return false;
}

}  // namespace

absl::Status SelectAndScatter(const std::vector<int64_t>& operand_dims,
                              const Window& window, const SelectKeeps& select,
                              const ScatterInto& scatter) {
  const int64_t rank = operand_dims.size();
  std::vector<int64_t> positions, taps, strides(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    positions.push_back(WindowOutputSize(operand_dims[d], window[d]));
    taps.push_back(window[d].size);
  }
  for (int64_t d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * operand_dims[d + 1];
  }
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
      bool inside = true;
      for (int64_t d = 0; d < rank && inside; ++d) {
        const WindowDimension& w = window[d];
        const int64_t at = position[d] * w.stride - w.padding_low +
                           tap[d] * w.window_dilation;
        inside = at >= 0 && at % w.base_dilation == 0 &&
                 at / w.base_dilation < operand_dims[d];
        element += at / w.base_dilation * strides[d];
      }
      if (!inside) continue;
      if (selected < 0) {
        selected = element;
        continue;
      }
      absl::StatusOr<bool> keep = select(selected, element);
      if (!keep.ok()) return keep.status();
      if (!*keep) selected = element;
    } while (Next(taps, tap));
    if (selected >= 0) {
      absl::Status status = scatter(selected, source);
      if (!status.ok()) return status;
    }
    ++source;
  } while (Next(positions, position));
  return absl::OkStatus();
}

}  // namespace mxla::semantics
