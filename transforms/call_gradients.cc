// Gradient rules of the ops that only carry a value or a computation: a
// `call` or a `fusion` is differentiated as its computation inlined (what
// inline-calls makes of it before the JIT, passes/call_inliner.h), so every
// op of the callee answers with its own rule; `copy-start` and `copy-done`
// are identities split in two, whose cotangent goes back through the
// start's tuple (the copy, element 1, and the operand kept alongside,
// element 0). A `custom-call` to a target mxla runs as an identity on one
// device (a sharding annotation, a host-offload marker) is one, as JAX
// transposes with_sharding_constraint and device_put; any other target is
// a foreign kernel and refused by name.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "passes/call_inliner.h"
#include "shape_inference/shape_inference.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {

Result GradientRules::Handle(OpTag<Op::kCall>, const GradientContext& context) {
  return LoweredOpCotangents(context, {"inline-calls", "dce"});
}

// A fusion reaches autodiff in a module parsed from text (XLA's after its
// fusion passes, or mxla's own dumps): its fused computation is a callee
// like a call's.
Result GradientRules::Handle(OpTag<Op::kFusion>,
                             const GradientContext& context) {
  return LoweredOpCotangents(context, [](HloModule& module) {
    HloComputation& entry = *module.entry_computation();
    RETURN_IF_ERROR(InlineCall(entry, entry.root_instruction()));
    // A fused computation may hold calls of its own.
    return CallInlinerPass().Run(module).status();
  });
}

Result GradientRules::Handle(OpTag<Op::kCustomCall>,
                             const GradientContext& context) {
  const std::string& target = context.instruction.custom_call_target();
  for (absl::string_view identity :
       ShapeInference::kIdentityCustomCallTargets) {
    if (target == identity) return OperandCotangents{context.cotangent};
  }
  return NoRuleError(context, absl::StrCat("to target '", target, "' ",
                                           NoRuleReason(Op::kCustomCall)));
}

Result GradientRules::Handle(OpTag<Op::kCopyStart>,
                             const GradientContext& context) {
  // (operand, copy, context...): the first two are the operand's value.
  const std::vector<Cotangent>& elements = context.tuple_cotangent;
  XlaOp sum;
  for (size_t i = 0; i < 2 && i < elements.size(); ++i) {
    if (!elements[i].array.valid()) continue;
    sum = sum.valid() ? sum + elements[i].array : elements[i].array;
  }
  return OperandCotangents{sum};
}

Result GradientRules::Handle(OpTag<Op::kCopyDone>,
                             const GradientContext& context) {
  const Shape& start = context.instruction.operand(0)->shape();
  std::vector<Cotangent> elements(start.tuple_shapes().size());
  elements[1] = context.cotangent;
  return OperandCotangents{Cotangent::OfTuple(std::move(elements))};
}

}  // namespace mxla::gradient_rules
