// Gradient rule of map: a map of an elementwise computation is that
// computation applied to whole arrays (each scalar parameter an operand,
// each constant broadcast), so its vector-Jacobian product is that of the
// equivalent elementwise graph, taken with the rules the graph's ops
// already have. The graph is what the JIT runs for a map: the map alone in
// a computation of its operands, after conditional-to-select and
// inline-maps (passes/map_inliner.h), so a map the JIT can run has a
// gradient, and one whose computation holds an op without an elementwise
// meaning (a reduce, a loop) is refused by name.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_module.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "transforms/autodiff.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

// (operands) -> the map, written as elementwise ops on whole arrays.
absl::StatusOr<XlaComputation> ElementwiseGraph(
    const GradientContext& context) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   InstructionAlone(context, ".elementwise"));
  ASSIGN_OR_RETURN(
      std::unique_ptr<PassPipeline> pipeline,
      CreatePipeline({"conditional-to-select", "inline-maps", "dce"}, {}));
  absl::Status lifted = pipeline->Run(*module).status();
  if (!lifted.ok()) {
    const HloInstruction& map = context.instruction;
    return NoRuleError(
        context, absl::StrCat("whose computation '", map.to_apply()->name(),
                              "' is not elementwise (", lifted.message(), ")"));
  }
  return XlaComputation(std::move(module));
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kMap>, const GradientContext& context) {
  std::vector<int64_t> wrt;
  for (size_t i = 0; i < context.operands.size(); ++i) {
    const PrimitiveType type = ShapeOf(context.operands[i]).element_type();
    if (primitive_util::IsFloatingPointType(type)) wrt.push_back(i);
  }
  OperandCotangents cotangents(context.operands.size());
  if (wrt.empty()) return cotangents;
  ASSIGN_OR_RETURN(XlaComputation graph, ElementwiseGraph(context));
  ASSIGN_OR_RETURN(VjpOps vjp, EmitVjp(context.builder, graph, context.operands,
                                       context.cotangent, wrt));
  for (size_t j = 0; j < wrt.size(); ++j) {
    cotangents[wrt[j]] = vjp.cotangents[j];
  }
  return cotangents;
}

}  // namespace mxla::gradient_rules
