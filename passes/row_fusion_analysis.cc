#include "passes/row_fusion_analysis.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_util.h"
#include "passes/fusion_cost_model.h"

namespace mxla {
namespace {

absl::Status NotRowFusion(const HloInstruction& instruction,
                          absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "not a row fusion: '", instruction.name(), "' ", why));
}

bool SameDimensions(const HloInstruction& instruction,
                    const std::vector<int64_t>& dimensions) {
  absl::Span<const int64_t> own = instruction.shape().dimensions();
  return !instruction.shape().IsTuple() &&
         std::equal(own.begin(), own.end(), dimensions.begin(),
                    dimensions.end());
}

// Whether `user` reads the row-dependent `operand` only at the row being
// computed.
bool KeepsRows(const HloInstruction& user, const HloInstruction& operand,
               const RowFusion& rows) {
  if (IsElementwise(user.opcode())) {
    return user.shape().dimensions() == operand.shape().dimensions();
  }
  if (user.opcode() == HloOpcode::kBroadcast) {
    const int64_t row_rank = rows.row_dimensions.size();
    std::vector<int64_t> leading(row_rank);
    for (int64_t d = 0; d < row_rank; ++d) leading[d] = d;
    return SameDimensions(operand, rows.row_dimensions) &&
           user.dimensions() == leading;
  }
  if (user.opcode() == HloOpcode::kReduce) {
    return user.operand(0) == &operand && user.operand(1) != &operand;
  }
  return false;
}

// Checks the reduces and fills in R, C and the reduces.
absl::Status FindReduces(const std::vector<HloInstruction*>& post_order,
                         RowFusion& rows) {
  const HloInstruction* first = nullptr;
  for (const HloInstruction* instruction : post_order) {
    if (instruction->opcode() != HloOpcode::kReduce) continue;
    if (instruction->operand_count() != 2) {
      return NotRowFusion(*instruction, "is a variadic reduce");
    }
    absl::Span<const int64_t> operand_dims =
        instruction->operand(0)->shape().dimensions();
    std::vector<int64_t> reduced = instruction->dimensions();
    std::sort(reduced.begin(), reduced.end());
    const int64_t row_rank = operand_dims.size() - reduced.size();
    for (size_t i = 0; i < reduced.size(); ++i) {
      if (reduced[i] != row_rank + static_cast<int64_t>(i)) {
        return NotRowFusion(
            *instruction, absl::StrCat("reduces dimensions {",
                                       absl::StrJoin(instruction->dimensions(),
                                                     ","),
                                       "}, not only the trailing ones"));
      }
    }
    if (row_rank == 0 || reduced.empty()) {
      return NotRowFusion(*instruction, "leaves no rows or reduces nothing");
    }
    if (first == nullptr) {
      first = instruction;
      rows.row_dimensions.assign(operand_dims.begin(),
                                 operand_dims.begin() + row_rank);
      rows.column_dimensions.assign(operand_dims.begin() + row_rank,
                                    operand_dims.end());
    } else if (instruction->operand(0)->shape().dimensions() !=
               first->operand(0)->shape().dimensions()) {
      return NotRowFusion(*instruction,
                          absl::StrCat("reduces a different shape than '",
                                       first->name(), "'"));
    }
    rows.reduces.push_back(instruction);
  }
  if (first == nullptr) {
    return absl::InvalidArgumentError("not a row fusion: no reduce");
  }
  return absl::OkStatus();
}

// The row-dependent values: the reduces and everything that reads them.
absl::flat_hash_set<const HloInstruction*> RowDependent(
    const std::vector<HloInstruction*>& post_order) {
  absl::flat_hash_set<const HloInstruction*> dependent;
  for (const HloInstruction* instruction : post_order) {
    bool depends = instruction->opcode() == HloOpcode::kReduce;
    for (const HloInstruction* operand : instruction->operands()) {
      depends = depends || dependent.contains(operand);
    }
    if (depends) dependent.insert(instruction);
  }
  return dependent;
}

// The values loop `phase` computes: those reachable from its start without
// passing through a reduce (whose result is a register by then).
absl::flat_hash_set<const HloInstruction*> Reached(
    const HloInstruction* start, const HloInstruction* own_reduce) {
  absl::flat_hash_set<const HloInstruction*> reached;
  std::vector<const HloInstruction*> stack = {start};
  while (!stack.empty()) {
    const HloInstruction* instruction = stack.back();
    stack.pop_back();
    if (!reached.insert(instruction).second) continue;
    if (instruction->opcode() == HloOpcode::kReduce &&
        instruction != own_reduce) {
      continue;
    }
    for (const HloInstruction* operand : instruction->operands()) {
      stack.push_back(operand);
    }
  }
  return reached;
}

void ChooseBuffers(const HloComputation& computation,
                   const std::vector<HloInstruction*>& post_order,
                   const absl::flat_hash_set<const HloInstruction*>& dependent,
                   RowFusion& rows) {
  std::vector<absl::flat_hash_set<const HloInstruction*>> phases;
  for (const HloInstruction* reduce : rows.reduces) {
    phases.push_back(Reached(reduce->operand(0), reduce));
  }
  phases.push_back(Reached(computation.root_instruction(), nullptr));
  std::vector<int64_t> full = rows.row_dimensions;
  full.insert(full.end(), rows.column_dimensions.begin(),
              rows.column_dimensions.end());
  int64_t budget = kRowBufferBudgetBytes;
  for (const HloInstruction* instruction : post_order) {
    if (!dependent.contains(instruction) ||
        !IsExpensiveProducer(*instruction) ||
        !SameDimensions(*instruction, full)) {
      continue;
    }
    std::vector<int64_t> readers;
    for (size_t p = 0; p < phases.size(); ++p) {
      if (phases[p].contains(instruction)) readers.push_back(p);
    }
    const int64_t bytes = ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(
        instruction->shape().element_type(), rows.column_dimensions));
    if (readers.size() < 2) continue;
    rows.bufferable[instruction] = readers.front();
    if (bytes <= budget) {
      budget -= bytes;
      rows.buffered[instruction] = readers.front();
    }
  }
}

}  // namespace

absl::StatusOr<RowFusion> AnalyzeRowFusion(const HloComputation& computation) {
  RowFusion rows;
  std::vector<HloInstruction*> post_order =
      computation.MakeInstructionPostOrder();
  if (absl::Status found = FindReduces(post_order, rows); !found.ok()) {
    return found;
  }
  const HloInstruction* root = computation.root_instruction();
  if (rows.reduces.size() == 1 && rows.reduces[0] == root) {
    return NotRowFusion(*root, "is the only reduce and the root");
  }
  absl::flat_hash_set<const HloInstruction*> dependent =
      RowDependent(post_order);
  if (!dependent.contains(root)) {
    return NotRowFusion(*root, "(the root) does not depend on a reduce");
  }
  std::vector<int64_t> full = rows.row_dimensions;
  full.insert(full.end(), rows.column_dimensions.begin(),
              rows.column_dimensions.end());
  for (const HloInstruction* instruction : post_order) {
    if (!dependent.contains(instruction)) continue;
    if (!SameDimensions(*instruction, rows.row_dimensions) &&
        !SameDimensions(*instruction, full)) {
      return NotRowFusion(*instruction,
                          "depends on a reduce but is neither a row nor a "
                          "row of results");
    }
    for (const HloInstruction* user : instruction->users()) {
      if (!KeepsRows(*user, *instruction, rows)) {
        return NotRowFusion(
            *user, absl::StrCat("reads the row-dependent '",
                                instruction->name(), "' across rows"));
      }
    }
  }
  ChooseBuffers(computation, post_order, dependent, rows);
  return rows;
}

}  // namespace mxla
