// ragged-dot: a dot whose lhs has one ragged dimension cut into
// consecutive groups by `group_sizes`. Three modes, by the ragged
// dimension's kind (as XLA and JAX define them):
//
//   non-contracting  lhs [b..., m..., k...], rhs [g, b..., k..., n...]:
//                    a row of the ragged dimension in group i is
//                    multiplied with rhs's group i (rhs_group_dims); a row
//                    in no group gives 0. Result [b..., m..., n...].
//   contracting      lhs [b..., m..., k...], rhs [b..., k..., n...]: group
//                    i contracts only its part of the ragged dimension.
//                    Result [g, b..., m..., n...].
//   batch            a dot; the groups change nothing.
//
// group_sizes is an integer array [lead..., g], or [g] for every lead
// index alike. Its lead dimensions follow lhs's batch dimensions (in
// lhs_batch_dims order), then lhs's dimensions of the ragged dimension's
// kind that come before it (non-contracting: free; contracting:
// contracting; batch: none beyond the batch dimensions before it). Group
// i covers [sum of sizes before i, that + size i).
#ifndef MXLA_SHAPE_INFERENCE_RAGGED_DOT_H_
#define MXLA_SHAPE_INFERENCE_RAGGED_DOT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/dot_dimension_numbers.h"
#include "ir/ragged_dot_dimension_numbers.h"
#include "ir/shape.h"

namespace mxla {

enum class RaggedDotMode { kNonContracting, kContracting, kBatch };

// A ragged-dot as one dot per group.
struct RaggedDotPlan {
  RaggedDotMode mode;
  int64_t num_groups = 0;
  int64_t lhs_ragged_dim = -1;
  // kContracting: the rhs contracting dimension paired with the ragged one.
  int64_t rhs_ragged_dim = -1;
  // kNonContracting: rhs's group dimension, which each group's dot slices
  // away.
  int64_t rhs_group_dim = -1;
  // The dimension numbers of each group's dot (kNonContracting: of rhs
  // without its group dimension).
  DotDimensionNumbers group_dot;
  // The lhs (and, kContracting, rhs) dimension each lead dimension of
  // group_sizes runs along; empty for group_sizes of rank 1.
  std::vector<int64_t> lead_lhs_dims;
  std::vector<int64_t> lead_rhs_dims;
};

// Checks the ragged dimension numbers and group_sizes against the operand
// shapes (not the dot's own dimension numbers: InferRaggedDotShape checks
// those) and returns the plan; errors name ragged-dot and the dimension.
absl::StatusOr<RaggedDotPlan> PlanRaggedDot(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums);

}  // namespace mxla

#endif  // MXLA_SHAPE_INFERENCE_RAGGED_DOT_H_
