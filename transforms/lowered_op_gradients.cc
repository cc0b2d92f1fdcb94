// Gradient rules of the ops the JIT expands into ops that have rules:
// the op alone in a computation of its operands goes through its
// expander (the pass the JIT runs), and the result is differentiated as
// any computation. So batch normalization is its reductions and
// elementwise arithmetic, ragged-dot its per-group dots and selects,
// scaled-dot its dequantizing products and dot, topk a sort and two
// slices (the values' cotangent goes back to the chosen elements; the
// indices carry none), and scan a while loop of known trip count (the
// while rule). The map rule (map_gradients.cc) is this with the passes
// that lift a map's computation to whole arrays.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "transforms/autodiff.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

// (operands) -> the instruction, after `lower`; refused as `refusal` when
// `lower` fails.
absl::StatusOr<XlaComputation> LoweredAlone(
    const GradientContext& context,
    const std::function<absl::Status(HloModule&)>& lower,
    absl::string_view refusal) {
  const HloInstruction& op = context.instruction;
  XlaBuilder builder(absl::StrCat(op.name(), ".lowered"));
  std::vector<XlaOp> parameters;
  for (size_t i = 0; i < context.operands.size(); ++i) {
    parameters.push_back(Parameter(&builder, i, ShapeOf(context.operands[i]),
                                   absl::StrCat("operand.", i)));
  }
  ComputationCloneMap callees;
  const XlaOp copy = EmitCopyOf(builder, op, op.shape(), parameters, callees);
  ASSIGN_OR_RETURN(XlaComputation alone, builder.Build(copy));
  std::unique_ptr<HloModule> module = alone.CloneModule();
  absl::Status lowered = lower(*module);
  if (!lowered.ok()) {
    return NoRuleError(context,
                       absl::StrCat(refusal, " (", lowered.message(), ")"));
  }
  return XlaComputation(std::move(module));
}

// The result's cotangent element by element; Unimplemented for a nested
// tuple, which EmitTupleVjp does not take.
absl::StatusOr<std::vector<XlaOp>> ElementCotangents(
    const GradientContext& context) {
  std::vector<XlaOp> elements;
  for (const Cotangent& element : context.tuple_cotangent) {
    if (element.is_tuple) {
      return NoRuleError(context, "with a nested tuple result");
    }
    elements.push_back(element.array);
  }
  return elements;
}

}  // namespace

Result LoweredOpCotangents(const GradientContext& context,
                           const std::function<absl::Status(HloModule&)>& lower,
                           absl::string_view refusal) {
  std::vector<int64_t> wrt;
  for (size_t i = 0; i < context.operands.size(); ++i) {
    const Shape shape = ShapeOf(context.operands[i]);
    if (shape.IsTuple()) {
      return NoRuleError(context, absl::StrCat("with a tuple operand (", i,
                                               ", ", shape.ToString(), ")"));
    }
    if (primitive_util::IsFloatingPointType(shape.element_type())) {
      wrt.push_back(i);
    }
  }
  OperandCotangents cotangents(context.operands.size());
  if (wrt.empty()) return cotangents;
  ASSIGN_OR_RETURN(XlaComputation graph, LoweredAlone(context, lower, refusal));
  absl::StatusOr<VjpOps> vjp;
  if (context.instruction.shape().IsTuple()) {
    ASSIGN_OR_RETURN(std::vector<XlaOp> elements, ElementCotangents(context));
    vjp = EmitTupleVjp(context.builder, graph, context.operands, elements, wrt);
  } else {
    vjp = EmitVjp(context.builder, graph, context.operands, context.cotangent,
                  wrt);
  }
  RETURN_IF_ERROR(vjp.status());
  for (size_t j = 0; j < wrt.size(); ++j) {
    cotangents[wrt[j]] = vjp->cotangents[j];
  }
  return cotangents;
}

Result LoweredOpCotangents(const GradientContext& context,
                           const std::vector<std::string>& passes,
                           absl::string_view refusal) {
  return LoweredOpCotangents(
      context,
      [&](HloModule& module) -> absl::Status {
        ASSIGN_OR_RETURN(std::unique_ptr<PassPipeline> pipeline,
                         CreatePipeline(passes, {}));
        return pipeline->Run(module).status();
      },
      refusal);
}

Result GradientRules::Handle(OpTag<Op::kBatchNormTraining>,
                             const GradientContext& context) {
  return LoweredOpCotangents(context, {"expand-batch-norms", "dce"});
}

Result GradientRules::Handle(OpTag<Op::kBatchNormInference>,
                             const GradientContext& context) {
  return LoweredOpCotangents(context, {"expand-batch-norms", "dce"});
}

Result GradientRules::Handle(OpTag<Op::kBatchNormGrad>,
                             const GradientContext& context) {
  return LoweredOpCotangents(context, {"expand-batch-norms", "dce"});
}

Result GradientRules::Handle(OpTag<Op::kRaggedDot>,
                             const GradientContext& context) {
  return LoweredOpCotangents(context, {"expand-ragged-dots", "dce"});
}

Result GradientRules::Handle(OpTag<Op::kScaledDot>,
                             const GradientContext& context) {
  return LoweredOpCotangents(context, {"expand-scaled-dots", "dce"});
}

Result GradientRules::Handle(OpTag<Op::kTopK>, const GradientContext& context) {
  return LoweredOpCotangents(context, {"expand-topk", "dce"});
}

Result GradientRules::Handle(OpTag<Op::kScan>, const GradientContext& context) {
  return LoweredOpCotangents(context, {"expand-scans", "dce"});
}

}  // namespace mxla::gradient_rules
