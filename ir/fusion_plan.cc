#include "ir/fusion_plan.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/conv_product.h"
#include "ir/flat_dot.h"
#include "ir/hlo_computation.h"
#include "ir/memory_budget.h"

namespace mxla {
namespace {

absl::string_view StoreName(StoreKind store) {
  return store == StoreKind::kStreaming ? "streaming" : "plain";
}

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

std::string LoopToString(const LoopPlan& loop) {
  return absl::StrCat("store=", StoreName(loop.store),
                      loop.one_unit ? ", one_unit=true" : "");
}

// Only the fields of the plan's form: blocks, chunks, or neither.
std::string ReductionToString(const ReductionPlan& plan) {
  std::string text = absl::StrCat("units=", plan.units);
  if (plan.column_block > 0) {
    absl::StrAppend(&text, ", column_block=", plan.column_block,
                    ", column_blocks=", plan.column_blocks);
  }
  if (plan.chunks > 0) {
    absl::StrAppend(&text, ", chunks=", plan.chunks,
                    ", chunk_elements=", plan.chunk_elements,
                    ", scratch_bytes=", plan.scratch_bytes);
  }
  return text;
}

std::string RowToString(const RowPlan& row) {
  std::vector<std::string> buffered;
  for (const BufferedValue& value : row.buffered) {
    buffered.push_back(absl::StrCat(value.name, ":", value.writer));
  }
  return absl::StrCat("rows=", Dims(row.row_dimensions),
                      ", columns=", Dims(row.column_dimensions),
                      ", store=", StoreName(row.store), ", buffered={",
                      absl::StrJoin(buffered, ", "), "}");
}

std::string DotToString(const DotPlan& dot) {
  return absl::StrCat("units=", dot.units, ", m_block=", dot.m_block,
                      ", n_block=", dot.n_block, ", k_block=", dot.k_block,
                      dot.rows ? absl::StrCat(", row_block=", dot.row_block,
                                              ", ", RowToString(*dot.rows))
                               : "",
                      !dot.rows && dot.store == StoreKind::kStreaming
                          ? ", store=streaming"
                          : "");
}

}  // namespace

absl::string_view FusionPlan::kind_name() const {
  if (is_loop()) return "loop";
  if (is_reduction()) return "reduction";
  if (is_dot()) return "dot";
  return "row";
}

std::string FusionPlan::ToString() const {
  std::string fields;
  if (const auto* loop = std::get_if<LoopPlan>(&config)) {
    fields = LoopToString(*loop);
  } else if (const auto* reduction = std::get_if<ReductionPlan>(&config)) {
    fields = ReductionToString(*reduction);
  } else if (const auto* dot = std::get_if<DotPlan>(&config)) {
    fields = DotToString(*dot);
  } else {
    fields = RowToString(std::get<RowPlan>(config));
  }
  return absl::StrCat("{kind=", kind_name(), ", ", fields, "}");
}

std::vector<const HloInstruction*> ReducesInPostOrder(
    const HloComputation& computation) {
  std::vector<const HloInstruction*> reduces;
  for (const HloInstruction* instruction :
       computation.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kReduce) {
      reduces.push_back(instruction);
    }
  }
  return reduces;
}

bool IsPlainBinaryReducer(const HloComputation& reducer, HloOpcode opcode) {
  if (reducer.num_parameters() != 2) return false;
  const HloInstruction* root = reducer.root_instruction();
  if (root == nullptr || root->opcode() != opcode ||
      root->shape().IsTuple() || root->operand_count() != 2) {
    return false;
  }
  const HloInstruction* lhs = root->operand(0);
  const HloInstruction* rhs = root->operand(1);
  return lhs != rhs && lhs->opcode() == HloOpcode::kParameter &&
         rhs->opcode() == HloOpcode::kParameter;
}

int64_t FusionTrafficBytes(const HloInstruction& fusion) {
  int64_t bytes = TotalArrayBytes(fusion.shape());
  for (const HloInstruction* operand : fusion.operands()) {
    bytes += TotalArrayBytes(operand->shape());
  }
  return bytes;
}

bool IsEpilogueOp(const HloInstruction& value, const HloInstruction& user) {
  return IsElementwise(user.opcode()) && user.shape().IsArray() &&
         user.shape().dimensions() == value.shape().dimensions();
}

bool IsMatrixProductOp(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kDot ||
         IsConvolutionProduct(instruction) || IsDepthwiseProduct(instruction);
}

const HloInstruction* FusedDot(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (IsMatrixProductOp(*root)) return root;
  const HloInstruction* dot = nullptr;
  for (const HloInstruction* instruction : computation.instructions()) {
    if (!IsMatrixProductOp(*instruction)) continue;
    if (dot != nullptr) return nullptr;
    dot = instruction;
  }
  if (dot == nullptr) return nullptr;
  // Everything that reads the dot, directly or not, is an epilogue op (the
  // single root ends every path).
  std::vector<const HloInstruction*> stack = {dot};
  absl::flat_hash_set<const HloInstruction*> seen = {dot};
  while (!stack.empty()) {
    const HloInstruction* value = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : value->users()) {
      if (!IsEpilogueOp(*value, *user)) return nullptr;
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return dot;
}

const HloInstruction* RowDot(const HloComputation& computation) {
  const HloInstruction* dot = nullptr;
  for (const HloInstruction* instruction : computation.instructions()) {
    if (instruction->opcode() != HloOpcode::kDot) continue;
    if (dot != nullptr) return nullptr;
    dot = instruction;
  }
  if (dot == nullptr || !dot->shape().IsArray()) return nullptr;
  const PrimitiveType type = dot->shape().element_type();
  if ((type != F32 && type != F64) ||
      dot->operand(0)->shape().element_type() != type ||
      dot->operand(1)->shape().element_type() != type) {
    return nullptr;
  }
  const FlatDot flat = FlattenDot(dot->operand(0)->shape(),
                                  dot->operand(1)->shape(),
                                  dot->dot_dimension_numbers());
  if (flat.rhs_free.empty()) return nullptr;
  // The producers are generated while packing: no reduce among them.
  std::vector<const HloInstruction*> stack(dot->operands().begin(),
                                           dot->operands().end());
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* value = stack.back();
    stack.pop_back();
    if (!seen.insert(value).second) continue;
    if (value->opcode() == HloOpcode::kReduce) return nullptr;
    for (const HloInstruction* operand : value->operands()) {
      stack.push_back(operand);
    }
  }
  // The readers: epilogue ops of the dot's elements, ending in reduces'
  // data operands or the root, so the dot is read only at the row being
  // computed.
  bool reduced = false;
  stack = {dot};
  seen = {dot};
  while (!stack.empty()) {
    const HloInstruction* value = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : value->users()) {
      if (user->opcode() == HloOpcode::kReduce) {
        for (int64_t i = 0; i < user->operand_count(); ++i) {
          if (user->operand(i) == value && i >= user->operand_count() / 2) {
            return nullptr;  // an init value
          }
        }
        reduced = true;
        continue;
      }
      if (!IsEpilogueOp(*value, *user)) return nullptr;
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return reduced ? dot : nullptr;
}

namespace {

// Whether every reader of `slice`, up to the root dynamic-update-slice
// `dus`, applies elementwise at the same index: elementwise ops of the
// update's dimensions, ending at the update operand of `dus` alone.
bool ReachesUpdateElementwise(const HloInstruction& slice,
                              const HloInstruction& dus) {
  const Shape& update = dus.operand(1)->shape();
  std::vector<const HloInstruction*> pending = {&slice};
  absl::flat_hash_set<const HloInstruction*> seen = {&slice};
  while (!pending.empty()) {
    const HloInstruction* value = pending.back();
    pending.pop_back();
    if (value->users().empty()) return false;  // the root is dus
    for (const HloInstruction* user : value->users()) {
      if (user == &dus) {
        // Only as the update, never as the operand or a start index.
        for (int64_t i = 0; i < dus.operand_count(); ++i) {
          if (dus.operand(i) == value && i != 1) return false;
        }
        continue;
      }
      if (!IsElementwise(user->opcode()) || !user->shape().IsArray() ||
          user->shape().dimensions() != update.dimensions()) {
        return false;
      }
      if (seen.insert(user).second) pending.push_back(user);
    }
  }
  return true;
}

}  // namespace

int64_t InPlaceFusionOperand(const HloInstruction& fusion) {
  if (fusion.opcode() != HloOpcode::kFusion || fusion.to_apply() == nullptr ||
      fusion.fusion_plan() == nullptr || !fusion.fusion_plan()->is_loop() ||
      !fusion.shape().IsArray()) {
    return -1;
  }
  const HloInstruction& dus = *fusion.to_apply()->root_instruction();
  if (dus.opcode() != HloOpcode::kDynamicUpdateSlice ||
      primitive_util::BitWidth(dus.shape().element_type()) < 8) {
    return -1;
  }
  const HloInstruction& operand = *dus.operand(0);
  if (operand.opcode() != HloOpcode::kParameter) return -1;
  const HloInstruction& update = *dus.operand(1);
  for (const HloInstruction* user : operand.users()) {
    if (user == &dus) {
      for (int64_t i = 1; i < dus.operand_count(); ++i) {
        if (dus.operand(i) == &operand) return -1;
      }
      continue;
    }
    // A read of the slice the update replaces, element by element.
    if (user->opcode() != HloOpcode::kDynamicSlice ||
        user->operand_count() != dus.operand_count() - 1 ||
        user->operand(0) != &operand ||
        absl::MakeConstSpan(user->dynamic_slice_sizes()) !=
            update.shape().dimensions()) {
      return -1;
    }
    for (int64_t i = 1; i < user->operand_count(); ++i) {
      if (user->operand(i) != dus.operand(i + 1)) return -1;
    }
    if (!ReachesUpdateElementwise(*user, dus)) return -1;
  }
  return operand.parameter_number();
}

}  // namespace mxla
