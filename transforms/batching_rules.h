// Batching rules, one per op of the op table (ir/hlo_ops.def), for vmap:
// given an instruction whose operands carry a batch dimension (some of
// them), the same computation for every batch element at once. A batched
// value always holds the batch at dimension 0. Dispatch goes through
// VisitOp (ir/hlo_op_visitor.h): an op added to the table without a
// decision here fails to compile.
#ifndef MXLA_TRANSFORMS_BATCHING_RULES_H_
#define MXLA_TRANSFORMS_BATCHING_RULES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "ir/hlo_clone.h"
#include "ir/hlo_instruction.h"

namespace mxla {

// What a rule sees of one instruction with at least one batched operand.
struct BatchContext {
  XlaBuilder& builder;
  const HloInstruction& instruction;
  // The operands' values in `builder`: a batched one has the batch at
  // dimension 0 and otherwise the operand's shape.
  std::vector<XlaOp> operands;
  std::vector<bool> batched;
  int64_t batch_size;
  // What copies of instructions call, copied into the builder once.
  ComputationCloneMap& callees;
};

// The instruction's value for every batch element: the batch at dimension
// 0, then the instruction's shape. Unimplemented, naming the op and the
// instruction, for an op with no rule yet (or a case of one its rule does
// not cover, such as batched start indices); errors the rule's ops record
// stay in the builder.
absl::StatusOr<XlaOp> BatchedValueOf(const BatchContext& context);

// Whether BatchedValueOf has a rule for `opcode` (for the test that
// enumerates the table, and docs/vmap.md).
bool HasBatchingRule(HloOpcode opcode);

}  // namespace mxla

#endif  // MXLA_TRANSFORMS_BATCHING_RULES_H_
