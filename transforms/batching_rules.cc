#include "transforms/batching_rules.h"

#include <numeric>
#include <string>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "transforms/batching_rules_internal.h"

namespace mxla {
namespace batching_rules {

Shape WithBatch(const Shape& shape, int64_t batch_size) {
  if (shape.IsTuple()) {
    std::vector<Shape> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      elements.push_back(WithBatch(element, batch_size));
    }
    return Shape(std::move(elements));
  }
  std::vector<int64_t> dims = {batch_size};
  dims.insert(dims.end(), shape.dimensions().begin(), shape.dimensions().end());
  return ShapeUtil::MakeShape(shape.element_type(), dims);
}

XlaOp BatchedOperand(const BatchContext& context, int64_t i) {
  const XlaOp operand = context.operands[i];
  if (context.batched[i]) return operand;
  const Shape& shape = context.instruction.operand(i)->shape();
  std::vector<int64_t> kept(shape.dimensions().size());
  std::iota(kept.begin(), kept.end(), 1);
  return BroadcastInDim(operand,
                        WithBatch(shape, context.batch_size).dimensions(), kept);
}

XlaOp Reemit(const BatchContext& context, absl::Span<const XlaOp> operands,
             absl::FunctionRef<void(HloInstruction&)> adjust) {
  return EmitCopyOf(context.builder, context.instruction,
                    WithBatch(context.instruction.shape(), context.batch_size),
                    operands, context.callees, adjust);
}

std::vector<int64_t> Shifted(absl::Span<const int64_t> dimensions) {
  std::vector<int64_t> shifted;
  for (int64_t d : dimensions) shifted.push_back(d + 1);
  return shifted;
}

std::vector<int64_t> WithLeadingZero(absl::Span<const int64_t> dimensions) {
  std::vector<int64_t> result = {0};
  for (int64_t d : dimensions) result.push_back(d + 1);
  return result;
}

absl::Status NoRuleError(const BatchContext& context, absl::string_view why) {
  const HloInstruction& instruction = context.instruction;
  return absl::UnimplementedError(absl::StrCat(
      "vmap: no batching rule for '", HloOpcodeString(instruction.opcode()),
      "'", why.empty() ? " yet" : absl::StrCat(" ", why), " (instruction '",
      instruction.name(), "', ", instruction.shape().ToString(),
      "); docs/vmap.md lists the ops that have one"));
}

// Operands of the result's dimensions get the batch; a scalar operand
// (clamp's bounds) stays scalar unless it is batched, when it becomes
// its batch broadcast over the result.
Result BatchingRules::PerElement(const BatchContext& context) {
  const Shape& result = context.instruction.shape();
  const Shape batched_result = WithBatch(result, context.batch_size);
  std::vector<XlaOp> operands;
  for (int64_t i = 0; i < context.instruction.operand_count(); ++i) {
    const Shape& shape = context.instruction.operand(i)->shape();
    if (shape.dimensions().size() == result.dimensions().size()) {
      operands.push_back(BatchedOperand(context, i));
    } else if (context.batched[i]) {
      operands.push_back(BroadcastInDim(context.operands[i],
                                        batched_result.dimensions(), {0}));
    } else {
      operands.push_back(context.operands[i]);
    }
  }
  return Reemit(context, operands, [&](HloInstruction& copy) {
    if (copy.opcode() == HloOpcode::kMap) {
      std::vector<int64_t> all(batched_result.dimensions().size());
      std::iota(all.begin(), all.end(), 0);
      copy.set_dimensions(all);
    }
  });
}

}  // namespace batching_rules

absl::StatusOr<XlaOp> BatchedValueOf(const BatchContext& context) {
  batching_rules::BatchingRules rules;
  return VisitOp<batching_rules::Result>(rules, context.instruction.opcode(),
                                         context);
}

bool HasBatchingRule(HloOpcode opcode) {
  return batching_rules::IsPerElementOp(opcode) ||
         batching_rules::HasOwnRule(opcode);
}

}  // namespace mxla
