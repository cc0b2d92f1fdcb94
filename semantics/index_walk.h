// Walking multi-dimensional indices in row-major order, as the semantics
// files and the interpreter do: the next index, row-major strides, and
// where a window tap lands in its base.
#ifndef MXLA_SEMANTICS_INDEX_WALK_H_
#define MXLA_SEMANTICS_INDEX_WALK_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ir/window.h"

namespace mxla::semantics {

// Steps `index` to the next index of `dims` in row-major order; false
// (and all zeros) after the last.
inline bool NextIndex(absl::Span<const int64_t> dims,
                      std::vector<int64_t>& index) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

inline std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

// The base element tap `tap` of window position `position` reads, as a
// row-major offset into `base_dims` (strides `base_strides`); false when
// it lands in padding or in a hole of the dilated base.
inline bool WindowTapOffset(const Window& window,
                            absl::Span<const int64_t> base_dims,
                            absl::Span<const int64_t> base_strides,
                            absl::Span<const int64_t> position,
                            absl::Span<const int64_t> tap, int64_t* offset) {
  *offset = 0;
  for (size_t d = 0; d < base_dims.size(); ++d) {
    const WindowDimension& w = window[d];
    const int64_t dilated = position[d] * w.stride - w.padding_low +
                            tap[d] * w.window_dilation;
    if (dilated < 0 || dilated % w.base_dilation != 0 ||
        dilated / w.base_dilation >= base_dims[d]) {
      return false;
    }
    *offset += dilated / w.base_dilation * base_strides[d];
  }
  return true;
}

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_INDEX_WALK_H_
