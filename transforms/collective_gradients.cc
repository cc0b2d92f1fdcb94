// Gradient rule of all-reduce with an add reducer (JAX's psum): device d's
// result is the sum of every member's operand, so the cotangent of device
// d's operand sums the cotangents of every member's result, which is the
// same all-reduce of the cotangent (JAX transposes psum to psum). The rule
// keeps the groups and stays cross-replica; other modes (a channel_id) and
// reducers (max and min would send the cotangent to the device holding
// the extremum) are refused by name.
#include "builder/arithmetic.h"
#include "ir/collective_groups.h"
#include "ir/fusion_plan.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {

Result GradientRules::Handle(OpTag<Op::kAllReduce>,
                             const GradientContext& context) {
  const HloInstruction& all_reduce = context.instruction;
  if (context.operands.size() != 1 || !all_reduce.shape().IsArray()) {
    return NoRuleError(context, "of several operands");
  }
  if (!IsPlainBinaryReducer(*all_reduce.to_apply(), Op::kAdd)) {
    return NoRuleError(context, "with a reducer other than add");
  }
  absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(all_reduce);
  if (!mode.ok() || *mode != CollectiveGroupMode::kCrossReplica) {
    return NoRuleError(context, "across partitions (with a channel_id)");
  }
  const PrimitiveType type = ShapeOf(context.cotangent).element_type();
  return OperandCotangents{AllReduce(
      context.cotangent, CreateScalarAddComputation(type, &context.builder),
      ReplicaGroupsOf(all_reduce))};
}

}  // namespace mxla::gradient_rules
