#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/hlo_evaluator_index_ops.h"
#include "interpreter/op_evaluator.h"
#include "ir/literal.h"
#include "ir/status_macros.h"
#include "semantics/bit_generators.h"
#include "semantics/random_numbers.h"

namespace mxla::hlo_evaluator_internal {

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kInfeed>) {
  ASSIGN_OR_RETURN(Literal data,
                   ReadInfeed(instruction_.name(), shape().tuple_shapes(0),
                              options_.host_feed));
  std::vector<Literal> pair;
  pair.push_back(std::move(data));
  pair.push_back(Literal(Shape(TOKEN, {})));
  return LiteralUtil::MakeTuple(std::move(pair));
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kOutfeed>) {
  RETURN_IF_ERROR(WriteOutfeed(instruction_.name(), Literal(operand(0)),
                               options_.host_feed));
  return Literal(Shape(TOKEN, {}));
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kRng>) {
  ASSIGN_OR_RETURN(RandomDistribution distribution,
                   instruction_.rng_distribution());
  return semantics::random::Generate(
      distribution, semantics::random::NameKey(instruction_.name()),
      operand(0), operand(1), shape());
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kRngBitGenerator>) {
  ASSIGN_OR_RETURN(RandomAlgorithm algorithm, instruction_.rng_algorithm());
  return semantics::bit_generators::Generate(algorithm, operand(0), shape());
}

OpEvaluator::Result OpEvaluator::DeviceId() {
  return EvaluateDeviceId(instruction_, options_);
}

OpEvaluator::Result OpEvaluator::Collective() {
  return EvaluateCollective(instruction_, operands_, options_);
}

// The verifier refuses host transfers (shape_rules::Channel), and
// pair-sends-and-recvs makes every other transfer a permute before a run.
// Evaluated as they are (an unpassed module), a send between devices with
// no peers sends to no device, as XLA's does (its context holds its data,
// its send-done gives the token); anything else gets the refusal.
OpEvaluator::Result OpEvaluator::Channel() {
  const auto* host =
      instruction_.attributes().Get<std::string>(AttrId::kIsHostTransfer);
  const bool device = host == nullptr || *host != "true";
  if (device && instruction_.opcode() == HloOpcode::kSend &&
      !instruction_.attributes().Has(AttrId::kSourceTargetPairs)) {
    std::vector<Literal> context;
    context.push_back(Literal(operand(0)));
    context.push_back(Literal(shape().tuple_shapes(1)));
    context.push_back(Literal(operand(1)));
    return LiteralUtil::MakeTuple(std::move(context));
  }
  if (device && instruction_.opcode() == HloOpcode::kSendDone &&
      instruction_.operand(0)->opcode() == HloOpcode::kSend &&
      !instruction_.operand(0)->attributes().Has(
          AttrId::kSourceTargetPairs)) {
    return Literal(operand(0).tuple_element(2));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      HloOpcodeString(instruction_.opcode()), " '", instruction_.name(),
      "' transfers between devices or to the host; mxla runs one device "
      "and has no channels"));
}

}  // namespace mxla::hlo_evaluator_internal
