#include "semantics/scatter_elements.h"

#include <algorithm>
#include <limits>

#include "semantics/index_walk.h"

namespace mxla::semantics {
namespace {

// Element `position` of an integer array of `type`, as int64 (an unsigned
// value past int64's range reads as its maximum: out of bounds anyway).
int64_t IndexAt(const void* data, PrimitiveType type, int64_t position) {
  int64_t value = 0;
  primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T raw = static_cast<const T*>(data)[position];
      if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
        value = raw > static_cast<T>(std::numeric_limits<int64_t>::max())
                    ? std::numeric_limits<int64_t>::max()
                    : static_cast<int64_t>(raw);
      } else {
        value = static_cast<int64_t>(raw);
      }
    }
  });
  return value;
}

bool Contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

ScatterWalk ScatterWalkOf(const ScatterGeometry& g) {
  const ScatterDimensionNumbers& dn = g.dnums;
  const int64_t operand_rank = g.operand_dims.size();
  const int64_t indices_rank = g.indices_dims.size();
  ScatterWalk w;
  for (int64_t d = 0; d < static_cast<int64_t>(g.update_dims.size()); ++d) {
    if (!Contains(dn.update_window_dims, d)) {
      w.scatter_dims.push_back(d);
      w.scatter_sizes.push_back(g.update_dims[d]);
    }
  }
  for (int64_t d : dn.update_window_dims) {
    w.window_sizes.push_back(g.update_dims[d]);
  }
  w.window_extent.assign(operand_rank, 1);
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) &&
        !Contains(dn.input_batching_dims, d)) {
      w.window_extent[d] = w.window_sizes[w.window_operand_dims.size()];
      w.window_operand_dims.push_back(d);
    }
  }
  for (int64_t d = 0; d < indices_rank; ++d) {
    if (d != dn.index_vector_dim) w.indices_batch_dims.push_back(d);
  }
  for (int64_t d : dn.scatter_indices_batching_dims) {
    w.batching_position.push_back(std::find(w.indices_batch_dims.begin(),
                                            w.indices_batch_dims.end(), d) -
                                  w.indices_batch_dims.begin());
  }
  w.operand_strides = RowMajorStrides(g.operand_dims);
  w.update_strides = RowMajorStrides(g.update_dims);
  w.indices_strides = RowMajorStrides(g.indices_dims);
  w.vector_stride = dn.index_vector_dim < indices_rank
                        ? w.indices_strides[dn.index_vector_dim]
                        : 0;
  return w;
}

absl::Status ScatterElements(const ScatterGeometry& g, const void* indices,
                             const ScatterCombine& combine) {
  const ScatterDimensionNumbers& dn = g.dnums;
  const int64_t operand_rank = g.operand_dims.size();
  for (int64_t size : g.update_dims) {
    if (size == 0) return absl::OkStatus();
  }
  const ScatterWalk w = ScatterWalkOf(g);
  const std::vector<int64_t>& scatter_dims = w.scatter_dims;
  const std::vector<int64_t>& scatter_sizes = w.scatter_sizes;
  const std::vector<int64_t>& window_sizes = w.window_sizes;
  const std::vector<int64_t>& window_operand_dims = w.window_operand_dims;
  const std::vector<int64_t>& window_extent = w.window_extent;
  const std::vector<int64_t>& indices_batch_dims = w.indices_batch_dims;
  const std::vector<int64_t>& batching_position = w.batching_position;
  const std::vector<int64_t>& operand_strides = w.operand_strides;
  const std::vector<int64_t>& update_strides = w.update_strides;
  const std::vector<int64_t>& indices_strides = w.indices_strides;
  const int64_t vector_size = dn.scatter_dims_to_operand_dims.size();
  std::vector<int64_t> position(scatter_dims.size(), 0);
  std::vector<int64_t> window(window_sizes.size(), 0);
  std::vector<int64_t> start(operand_rank);
  do {
    // The start: the index vector at this position, then batching dims.
    std::fill(start.begin(), start.end(), 0);
    int64_t vector_base = 0;
    for (size_t j = 0; j < indices_batch_dims.size(); ++j) {
      vector_base += position[j] * indices_strides[indices_batch_dims[j]];
    }
    const int64_t vector_stride = w.vector_stride;
    for (int64_t v = 0; v < vector_size; ++v) {
      start[dn.scatter_dims_to_operand_dims[v]] = IndexAt(
          indices, g.indices_type, vector_base + v * vector_stride);
    }
    for (size_t k = 0; k < dn.input_batching_dims.size(); ++k) {
      start[dn.input_batching_dims[k]] = position[batching_position[k]];
    }
    bool fits = true;
    for (int64_t d = 0; d < operand_rank; ++d) {
      fits &= start[d] >= 0 && start[d] <= g.operand_dims[d] - window_extent[d];
    }
    if (!fits) continue;
    int64_t operand_base = 0, update_base = 0;
    for (int64_t d = 0; d < operand_rank; ++d) {
      operand_base += start[d] * operand_strides[d];
    }
    for (size_t j = 0; j < scatter_dims.size(); ++j) {
      update_base += position[j] * update_strides[scatter_dims[j]];
    }
    std::fill(window.begin(), window.end(), 0);
    do {
      int64_t operand_offset = operand_base, update_offset = update_base;
      for (size_t k = 0; k < window.size(); ++k) {
        operand_offset += window[k] * operand_strides[window_operand_dims[k]];
        update_offset += window[k] * update_strides[dn.update_window_dims[k]];
      }
      absl::Status status = combine(operand_offset, update_offset);
      if (!status.ok()) return status;
    } while (NextIndex(window_sizes, window));
  } while (NextIndex(scatter_sizes, position));
  return absl::OkStatus();
}

}  // namespace mxla::semantics
