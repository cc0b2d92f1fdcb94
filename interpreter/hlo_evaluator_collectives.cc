// The collectives on one device (verified: every group has one participant,
// every source_target_pair is {0,0}): what one participant computes.
#include <utility>
#include <vector>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {

absl::StatusOr<Literal> EvaluateSingleDeviceCollective(
    HloOpcode opcode, const Shape& shape, bool permutes_to_itself,
    absl::Span<const Literal* const> operands) {
  RET_CHECK(!operands.empty(), HloOpcodeString(opcode), " without operands");
  auto own_values = [&]() {
    if (operands.size() == 1) return *operands[0];
    std::vector<Literal> elements;
    for (const Literal* operand : operands) elements.push_back(*operand);
    return LiteralUtil::MakeTuple(std::move(elements));
  };
  // collective-permute: the operand when device 0 sends to itself, else
  // zeros (a device no pair targets receives zeros).
  auto permuted = [&]() {
    return permutes_to_itself ? *operands[0] : Literal(operands[0]->shape());
  };
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      return own_values();
    case HloOpcode::kAllReduceDone:
      return *operands[0];
    case HloOpcode::kCollectivePermute:
      return permuted();
    case HloOpcode::kAllGatherStart: {
      std::vector<Literal> elements;
      for (int copy = 0; copy < 2; ++copy) {
        for (const Literal* operand : operands) elements.push_back(*operand);
      }
      return LiteralUtil::MakeTuple(std::move(elements));
    }
    case HloOpcode::kCollectivePermuteStart: {
      RET_CHECK(shape.IsTuple() && shape.tuple_shapes().size() >= 2,
                "collective-permute-start of shape ", shape.ToString());
      std::vector<Literal> elements;
      elements.push_back(*operands[0]);
      elements.push_back(permuted());
      for (int64_t i = 2; i < shape.tuple_shapes().size(); ++i) {
        elements.emplace_back(shape.tuple_shapes(i));  // context: zeros
      }
      return LiteralUtil::MakeTuple(std::move(elements));
    }
    case HloOpcode::kAllGatherDone: {
      const Literal& start = *operands[0];
      const int64_t n = start.tuple_size() / 2;
      if (n == 1) return start.tuple_element(1);
      std::vector<Literal> results;
      for (int64_t i = n; i < 2 * n; ++i) {
        results.push_back(start.tuple_element(i));
      }
      return LiteralUtil::MakeTuple(std::move(results));
    }
    case HloOpcode::kCollectivePermuteDone:
      return operands[0]->tuple_element(1);
    default:
      return absl::InternalError(absl::StrCat(HloOpcodeString(opcode),
                                              " is not a collective"));
  }
}

}  // namespace mxla::hlo_evaluator_internal
