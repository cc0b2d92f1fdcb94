// Batching rules of the ops the JIT expands into simpler ones before it
// compiles them: batch-norm-training, -inference and -grad, ragged-dot,
// scaled-dot and scan. The instruction alone, on parameters of its
// operands' shapes, goes through its expander pass (the very expansion
// the JIT runs, so the meaning is the same), and the expanded computation
// is batched op by op (batch-norm-inference with only its operand
// batched keeps the op, the batch one more non-feature dimension). This
// is exact where folding the batch into the op is not: batch-norm-training's
// statistics must not mix examples, and a ragged-dot's group sizes and a
// scaled-dot's scales are per example.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "ir/status_macros.h"
#include "passes/batch_norm_expander.h"
#include "passes/dce.h"
#include "passes/ragged_dot_expander.h"
#include "passes/scaled_dot_expander.h"
#include "passes/scan_expander.h"
#include "transforms/batching.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

// The instruction alone, as a computation of one parameter per operand.
absl::StatusOr<std::unique_ptr<HloModule>> Alone(
    const HloInstruction& instruction) {
  XlaBuilder builder(absl::StrCat(instruction.name(), ".alone"));
  std::vector<XlaOp> parameters;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    parameters.push_back(Parameter(&builder, i, instruction.operand(i)->shape(),
                                   absl::StrCat("operand", i)));
  }
  ComputationCloneMap callees;
  const XlaOp copy = EmitCopyOf(builder, instruction, instruction.shape(),
                                parameters, callees);
  ASSIGN_OR_RETURN(XlaComputation alone, builder.Build(copy));
  return alone.CloneModule();
}

// `module`'s entry with its root tuple's elements, if it has a tuple
// result, as the results of a root tuple op (EmitBatched batches the
// elements of a root tuple op one by one).
Result EmitExpanded(const BatchContext& context, HloPass& expander) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   Alone(context.instruction));
  ASSIGN_OR_RETURN(const bool changed, expander.Run(*module));
  if (!changed) {
    return absl::InternalError(
        absl::StrCat("vmap: ", expander.name(), " left '",
                     context.instruction.name(), "' as it was"));
  }
  RETURN_IF_ERROR(DcePass().Run(*module).status());
  const XlaComputation expanded(std::move(module));
  std::vector<std::optional<int64_t>> in_dims;
  for (bool batched : context.batched) {
    in_dims.push_back(batched ? std::optional<int64_t>(0) : std::nullopt);
  }
  ASSIGN_OR_RETURN(std::vector<XlaOp> results,
                   EmitBatched(context.builder, expanded, context.operands,
                               in_dims, context.batch_size));
  const HloInstruction* root =
      expanded.module().entry_computation()->root_instruction();
  if (root->opcode() == HloOpcode::kTuple) {
    return Tuple(&context.builder, results);
  }
  if (!root->shape().IsArray()) {
    return NoRuleError(context,
                       "(its expansion returns a tuple it does not "
                       "build)");
  }
  return results[0];
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kBatchNormTraining>,
                             const BatchContext& context) {
  BatchNormExpanderPass expander;
  return EmitExpanded(context, expander);
}

// With only the operand batched, inference normalizes each element by its
// feature's statistics, so the batch is one more non-feature dimension
// and the op stays whole; batched statistics go through the expander.
Result BatchingRules::Handle(OpTag<Op::kBatchNormInference>,
                             const BatchContext& context) {
  const HloInstruction& norm = context.instruction;
  bool statistics_batched = false;
  for (size_t i = 1; i < context.batched.size(); ++i) {
    statistics_batched = statistics_batched || context.batched[i];
  }
  if (!statistics_batched) {
    return Reemit(context, context.operands, [&](HloInstruction& copy) {
      copy.mutable_attributes().Set(AttrId::kFeatureIndex,
                                    norm.feature_index() + 1);
    });
  }
  BatchNormExpanderPass expander;
  return EmitExpanded(context, expander);
}

Result BatchingRules::Handle(OpTag<Op::kBatchNormGrad>,
                             const BatchContext& context) {
  BatchNormExpanderPass expander;
  return EmitExpanded(context, expander);
}

Result BatchingRules::Handle(OpTag<Op::kRaggedDot>,
                             const BatchContext& context) {
  RaggedDotExpanderPass expander;
  return EmitExpanded(context, expander);
}

Result BatchingRules::Handle(OpTag<Op::kScaledDot>,
                             const BatchContext& context) {
  ScaledDotExpanderPass expander;
  return EmitExpanded(context, expander);
}

Result BatchingRules::Handle(OpTag<Op::kScan>, const BatchContext& context) {
  ScanExpanderPass expander;
  return EmitExpanded(context, expander);
}

}  // namespace mxla::batching_rules
