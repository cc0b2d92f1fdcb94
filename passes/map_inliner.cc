#include "passes/map_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// `shape` (a scalar, or a tuple of them) with each array over `dims`.
Shape Lifted(const Shape& shape, absl::Span<const int64_t> dims) {
  if (!shape.IsTuple()) return ShapeUtil::MakeShape(shape.element_type(), dims);
  std::vector<Shape> elements;
  for (const Shape& element : shape.tuple_shapes()) {
    elements.push_back(Lifted(element, dims));
  }
  return Shape(std::move(elements));
}

// The scalar computation `body` applied to `arguments` (arrays of `map`'s
// dimensions, or tuples of them) elementwise, added to the map's
// computation; returns its root.
absl::StatusOr<HloInstruction*> Lift(
    const HloInstruction& map, const HloComputation& body,
    absl::Span<HloInstruction* const> arguments) {
  HloComputation& caller = *map.parent();
  absl::Span<const int64_t> dims = map.shape().dimensions();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  for (const HloInstruction* instruction : body.MakeInstructionPostOrder()) {
    const Shape shape = Lifted(instruction->shape(), dims);
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instruction->operands()) {
      operands.push_back(mapped.at(operand));
    }
    const HloOpcode opcode = instruction->opcode();
    HloInstruction* value = nullptr;
    if (opcode == HloOpcode::kParameter) {
      value = arguments[instruction->parameter_number()];
    } else if (opcode == HloOpcode::kConstant && shape.IsArray()) {
      HloInstruction* scalar = caller.AddInstruction(
          HloInstruction::CreateConstant(instruction->literal()));
      value = caller.AddInstruction(
          HloInstruction::CreateBroadcast(shape, scalar, {}));
      scalar->set_metadata(map.metadata());
      value->set_metadata(map.metadata());
    } else if ((IsElementwise(opcode) &&
                !instruction->broadcast_dimensions().has_value()) ||
               opcode == HloOpcode::kTuple ||
               opcode == HloOpcode::kGetTupleElement) {
      value = caller.AddInstruction(
          instruction->CloneWithNewOperands(shape, operands));
      value->set_metadata(map.metadata());
    } else if (opcode == HloOpcode::kCall || opcode == HloOpcode::kFusion ||
               opcode == HloOpcode::kMap) {
      ASSIGN_OR_RETURN(value, Lift(map, *instruction->to_apply(), operands));
    } else {
      return absl::UnimplementedError(absl::StrCat(
          "map '", map.name(), "': the JIT runs a map whose computation is "
          "elementwise, but '", instruction->name(), "' (",
          HloOpcodeString(opcode), ") in '", body.name(), "' is not"));
    }
    mapped[instruction] = value;
  }
  return mapped.at(body.root_instruction());
}

}  // namespace

absl::StatusOr<bool> MapInlinerPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kMap) continue;
      ASSIGN_OR_RETURN(HloInstruction * root,
                       Lift(*instruction, *instruction->to_apply(),
                            instruction->operands()));
      computation->ReplaceInstruction(instruction, root);
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
