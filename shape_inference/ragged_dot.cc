#include "shape_inference/ragged_dot.h"

#include <algorithm>

#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::DimsString;
using shape_inference_internal::OpError;

namespace {

constexpr HloOpcode kOp = HloOpcode::kRaggedDot;

bool Contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

int64_t IndexOf(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) - list.begin();
}

// The operands are arrays, lhs has one ragged dimension, and group_sizes
// is an integer array: the plan's ragged dimension and group count.
absl::StatusOr<RaggedDotPlan> CheckRaggedOperands(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums) {
  if (!lhs.IsArray() || !rhs.IsArray() || !group_sizes.IsArray()) {
    return OpError(kOp, "the operands must be arrays; got ", lhs.ToString(),
                   ", ", rhs.ToString(), " and ", group_sizes.ToString(), ".");
  }
  if (dnums.lhs_ragged.size() != 1) {
    return OpError(kOp, "lhs_ragged_dims must name exactly one dimension; got ",
                   DimsString(dnums.lhs_ragged), ".");
  }
  RaggedDotPlan plan;
  plan.lhs_ragged_dim = dnums.lhs_ragged[0];
  if (plan.lhs_ragged_dim < 0 || plan.lhs_ragged_dim >= lhs.rank()) {
    return OpError(kOp, "lhs ragged dimension ", plan.lhs_ragged_dim,
                   " is out of range for ", lhs.ToString(), ".");
  }
  if (!primitive_util::IsIntegralType(group_sizes.element_type()) ||
      group_sizes.rank() < 1) {
    return OpError(kOp,
                   "group_sizes must be an integer array of rank >= 1; got ",
                   group_sizes.ToString(), ".");
  }
  plan.num_groups = group_sizes.dimensions(group_sizes.rank() - 1);
  return plan;
}

// The mode, from the ragged dimension's kind (and, contracting, the rhs
// dimension paired with it). Returns lhs's dimensions of the ragged kind
// before the ragged one.
std::vector<int64_t> ClassifyRaggedDimension(const Shape& lhs,
                                             const DotDimensionNumbers& dot,
                                             RaggedDotPlan& plan) {
  const int64_t ragged = plan.lhs_ragged_dim;
  std::vector<int64_t> outer;
  if (Contains(dot.lhs_contracting, ragged)) {
    plan.mode = RaggedDotMode::kContracting;
    for (int64_t d : dot.lhs_contracting) {
      if (d < ragged) outer.push_back(d);
    }
    std::sort(outer.begin(), outer.end());
    plan.rhs_ragged_dim =
        dot.rhs_contracting.size() == dot.lhs_contracting.size()
            ? dot.rhs_contracting[IndexOf(dot.lhs_contracting, ragged)]
            : -1;
  } else if (Contains(dot.lhs_batch, ragged)) {
    plan.mode = RaggedDotMode::kBatch;
  } else {
    plan.mode = RaggedDotMode::kNonContracting;
    for (int64_t d : DotFreeDimensions(lhs.rank(), dot.lhs_batch,
                                       dot.lhs_contracting)) {
      if (d < ragged) outer.push_back(d);
    }
  }
  return outer;
}

// rhs's group dimension (non-contracting mode only) and each group's dot.
absl::Status PlanGroupDot(const Shape& rhs, const Shape& group_sizes,
                          const RaggedDotDimensionNumbers& dnums,
                          RaggedDotPlan& plan) {
  const DotDimensionNumbers& dot = dnums.dot;
  plan.group_dot = dot;
  if (plan.mode != RaggedDotMode::kNonContracting) {
    if (!dnums.rhs_group.empty()) {
      return OpError(kOp,
                     "rhs_group_dims must be empty when the ragged dimension "
                     "is a ",
                     plan.mode == RaggedDotMode::kBatch ? "batch"
                                                        : "contracting",
                     " dimension; got ", DimsString(dnums.rhs_group), ".");
    }
    return absl::OkStatus();
  }
  if (dnums.rhs_group.size() != 1) {
    return OpError(kOp,
                   "a ragged non-contracting dimension needs exactly one "
                   "rhs_group_dims; got ",
                   DimsString(dnums.rhs_group), ".");
  }
  plan.rhs_group_dim = dnums.rhs_group[0];
  if (plan.rhs_group_dim < 0 || plan.rhs_group_dim >= rhs.rank() ||
      Contains(dot.rhs_batch, plan.rhs_group_dim) ||
      Contains(dot.rhs_contracting, plan.rhs_group_dim)) {
    return OpError(kOp, "rhs group dimension ", plan.rhs_group_dim,
                   " must be a dimension of ", rhs.ToString(),
                   " that is neither batch nor contracting.");
  }
  if (rhs.dimensions(plan.rhs_group_dim) != plan.num_groups) {
    return OpError(kOp, "rhs group dimension ", plan.rhs_group_dim, " of ",
                   rhs.ToString(), " has size ",
                   rhs.dimensions(plan.rhs_group_dim), " but group_sizes ",
                   group_sizes.ToString(), " has ", plan.num_groups,
                   " groups.");
  }
  for (std::vector<int64_t>* dims :
       {&plan.group_dot.rhs_batch, &plan.group_dot.rhs_contracting}) {
    for (int64_t& d : *dims) {
      if (d > plan.rhs_group_dim) --d;
    }
  }
  return absl::OkStatus();
}

// group_sizes of rank > 1: its lead dimensions are lhs's batch dimensions
// (those before the ragged one in batch mode), then `outer`; the sizes
// must be theirs.
absl::Status PlanLeadDimensions(const Shape& lhs, const Shape& group_sizes,
                                const DotDimensionNumbers& dot,
                                const std::vector<int64_t>& outer,
                                RaggedDotPlan& plan) {
  if (group_sizes.rank() <= 1) return absl::OkStatus();
  const int64_t ragged = plan.lhs_ragged_dim;
  for (size_t j = 0; j < dot.lhs_batch.size(); ++j) {
    if (plan.mode == RaggedDotMode::kBatch && dot.lhs_batch[j] == ragged) {
      break;
    }
    plan.lead_lhs_dims.push_back(dot.lhs_batch[j]);
    if (j < dot.rhs_batch.size()) {
      plan.lead_rhs_dims.push_back(dot.rhs_batch[j]);
    }
  }
  for (int64_t d : outer) {
    plan.lead_lhs_dims.push_back(d);
    if (plan.mode == RaggedDotMode::kContracting &&
        dot.rhs_contracting.size() == dot.lhs_contracting.size()) {
      plan.lead_rhs_dims.push_back(
          dot.rhs_contracting[IndexOf(dot.lhs_contracting, d)]);
    }
  }
  std::vector<int64_t> expected;
  for (int64_t d : plan.lead_lhs_dims) expected.push_back(lhs.dimensions(d));
  expected.push_back(plan.num_groups);
  if (std::vector<int64_t>(group_sizes.dimensions().begin(),
                           group_sizes.dimensions().end()) != expected) {
    return OpError(kOp, "group_sizes ", group_sizes.ToString(),
                   " must have dimensions [", plan.num_groups, "] or ",
                   DimsString(expected),
                   " (lhs's batch dimensions, its dimensions of the ragged "
                   "kind before the ragged dimension ",
                   ragged, ", then the groups) for lhs ", lhs.ToString(),
                   ".");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RaggedDotPlan> PlanRaggedDot(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums) {
  ASSIGN_OR_RETURN(RaggedDotPlan plan,
                   CheckRaggedOperands(lhs, rhs, group_sizes, dnums));
  const std::vector<int64_t> outer =
      ClassifyRaggedDimension(lhs, dnums.dot, plan);
  RETURN_IF_ERROR(PlanGroupDot(rhs, group_sizes, dnums, plan));
  RETURN_IF_ERROR(
      PlanLeadDimensions(lhs, group_sizes, dnums.dot, outer, plan));
  return plan;
}

}  // namespace mxla

namespace mxla {

absl::StatusOr<Shape> ShapeInference::InferRaggedDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type) {
  ASSIGN_OR_RETURN(RaggedDotPlan plan,
                   PlanRaggedDot(lhs, rhs, group_sizes, dnums));
  const Shape group_rhs = plan.mode == RaggedDotMode::kNonContracting
                              ? ShapeUtil::DeleteDimension(rhs,
                                                           plan.rhs_group_dim)
                              : rhs;
  absl::StatusOr<Shape> shape =
      InferDotShape(lhs, group_rhs, plan.group_dot, preferred_element_type);
  if (!shape.ok()) {
    // The dot's own rules, under this op's name.
    std::string message(shape.status().message());
    if (message.starts_with("dot: ")) message = message.substr(5);
    return OpError(HloOpcode::kRaggedDot, message);
  }
  if (plan.mode != RaggedDotMode::kContracting) return shape;
  std::vector<int64_t> dims = {plan.num_groups};
  dims.insert(dims.end(), shape->dimensions().begin(),
              shape->dimensions().end());
  return ShapeUtil::MakeShape(shape->element_type(), dims);
}

}  // namespace mxla
