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

// The verifier refuses them (shape_rules::Channel); an unverified module
// gets the same answer here instead of a value.
OpEvaluator::Result OpEvaluator::Channel() {
  return absl::InvalidArgumentError(absl::StrCat(
      HloOpcodeString(instruction_.opcode()), " '", instruction_.name(),
      "' transfers between devices or to the host; mxla runs one device "
      "and has no channels"));
}

}  // namespace mxla::hlo_evaluator_internal
