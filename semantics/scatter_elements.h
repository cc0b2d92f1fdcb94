// What scatter computes, for both backends: for each scatter position (the
// update dimensions that are not window dimensions, row-major) and within
// it each window position (row-major), the operand element the update
// element lands on is combined with it (`combine` reads both and writes the
// result element). A window whose start does not let the whole window fit
// in the operand is skipped, as XLA:CPU and XLA's evaluator do. The interpreter
// passes its evaluated combiner, the JIT its compiled one, so both make
// the same calls in the same order.
#ifndef MXLA_SEMANTICS_SCATTER_ELEMENTS_H_
#define MXLA_SEMANTICS_SCATTER_ELEMENTS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ir/primitive_type.h"
#include "ir/scatter_dimension_numbers.h"

namespace mxla::semantics {

// The shapes a scatter works on (verified by shape inference).
struct ScatterGeometry {
  std::vector<int64_t> operand_dims;
  std::vector<int64_t> indices_dims;
  PrimitiveType indices_type = S32;
  std::vector<int64_t> update_dims;
  ScatterDimensionNumbers dnums;
};

// How a scatter walks its updates, derived from the geometry once: by
// ScatterElements, and by the loop the ahead-of-time driver emits
// (codegen/aot_driver_loops.cc), so both follow one reading of XLA.
struct ScatterWalk {
  // The update dimensions that are not window dimensions (the scatter
  // positions), in order, and their sizes.
  std::vector<int64_t> scatter_dims, scatter_sizes;
  // Each update window dimension's size.
  std::vector<int64_t> window_sizes;
  // The operand dimensions the window walks, in order; per operand
  // dimension, the window's size along it (1 where it does not walk).
  std::vector<int64_t> window_operand_dims, window_extent;
  // The scatter indices' dimensions other than index_vector_dim.
  std::vector<int64_t> indices_batch_dims;
  // Operand batching dimension k takes the scatter position along the
  // update scatter dimension batching_position[k].
  std::vector<int64_t> batching_position;
  std::vector<int64_t> operand_strides, update_strides, indices_strides;
  // Between one index vector component and the next (0: a scalar index).
  int64_t vector_stride = 0;
};
ScatterWalk ScatterWalkOf(const ScatterGeometry& geometry);

// Combines update element `update_element` (a row-major position in the
// updates) into result element `result_element` (a row-major position in
// the operand), for every operand/update pair.
using ScatterCombine = std::function<absl::Status(int64_t result_element,
                                                  int64_t update_element)>;

// Calls `combine` for every update element that lands in the operand, in
// the order above; `indices` holds the scatter indices (row-major, of
// geometry.indices_type). The first error stops the scatter.
absl::Status ScatterElements(const ScatterGeometry& geometry,
                             const void* indices,
                             const ScatterCombine& combine);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_SCATTER_ELEMENTS_H_
