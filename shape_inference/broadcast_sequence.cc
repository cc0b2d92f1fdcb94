#include "shape_inference/broadcast_sequence.h"

#include <vector>

#include "absl/strings/str_join.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

HloInstruction* Add(HloComputation* computation,
                    std::unique_ptr<HloInstruction> instruction,
                    const BroadcastSequenceOptions& options) {
  instruction->set_metadata(options.metadata);
  if (!options.name_hint.empty()) {
    bool is_reshape = instruction->opcode() == HloOpcode::kReshape;
    instruction->set_name(options.name_hint + (is_reshape ? ".r" : ".b"));
  }
  return computation->AddInstruction(std::move(instruction));
}

}  // namespace

absl::StatusOr<HloInstruction*> EmitBroadcastSequence(
    HloComputation* computation, HloInstruction* operand,
    absl::Span<const int64_t> output_dimensions,
    absl::Span<const int64_t> broadcast_dimensions,
    const BroadcastSequenceOptions& options) {
  const Shape& operand_shape = operand->shape();
  const PrimitiveType type = operand_shape.element_type();
  const int64_t output_rank = output_dimensions.size();
  HloInstruction* current = operand;

  // Step 1: raise the rank, keeping the operand's own sizes.
  if (!operand_shape.IsScalar() &&
      (operand_shape.rank() < output_rank || options.always_emit_rank_raise)) {
    RET_CHECK(static_cast<int64_t>(broadcast_dimensions.size()) ==
                  operand_shape.rank(),
              "broadcast_dimensions {", absl::StrJoin(broadcast_dimensions, ","),
              "} do not fit ", operand_shape.ToString());
    std::vector<int64_t> target(output_dimensions.begin(),
                                output_dimensions.end());
    for (int64_t i = 0; i < operand_shape.rank(); ++i) {
      RET_CHECK(broadcast_dimensions[i] >= 0 &&
                broadcast_dimensions[i] < output_rank);
      target[broadcast_dimensions[i]] = operand_shape.dimensions(i);
    }
    current = Add(computation,
                  HloInstruction::CreateBroadcast(
                      ShapeUtil::MakeShape(type, target), current,
                      broadcast_dimensions),
                  options);
  }
  if (current->shape().dimensions() == output_dimensions) return current;

  Shape output_shape = ShapeUtil::MakeShape(type, output_dimensions);
  // Step 2a: a scalar broadcasts with no dimension map.
  if (current->shape().IsScalar()) {
    return Add(computation,
               HloInstruction::CreateBroadcast(output_shape, current, {}),
               options);
  }
  // Step 2b: reshape away the size-1 dimensions that stretch, then broadcast
  // the kept ones with exact sizes.
  const Shape& shape = current->shape();
  RET_CHECK(shape.rank() == output_rank, shape.ToString(), " vs rank ",
            output_rank);
  std::vector<int64_t> kept_dimensions;
  std::vector<int64_t> kept_sizes;
  for (int64_t i = 0; i < output_rank; ++i) {
    if (shape.dimensions(i) == output_dimensions[i]) {
      kept_dimensions.push_back(i);
      kept_sizes.push_back(shape.dimensions(i));
    } else {
      RET_CHECK(shape.dimensions(i) == 1, "dimension ", i, " of ",
                shape.ToString(), " cannot stretch to ",
                output_dimensions[i]);
    }
  }
  HloInstruction* reshaped = Add(
      computation,
      HloInstruction::CreateReshape(ShapeUtil::MakeShape(type, kept_sizes),
                                    current),
      options);
  return Add(computation,
             HloInstruction::CreateBroadcast(output_shape, reshaped,
                                             kept_dimensions),
             options);
}

}  // namespace mxla
