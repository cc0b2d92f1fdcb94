#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/op_evaluator.h"
#include "ir/hlo_computation.h"
#include "ir/literal.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kParameter>) {
  return absl::InvalidArgumentError(
      absl::StrCat("parameter ", instruction_.name(),
                   " has no value outside a computation call"));
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kConstant>) {
  RET_CHECK(instruction_.has_literal(), "constant without a literal");
  return instruction_.literal();
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kTuple>) {
  std::vector<Literal> elements;
  for (const Literal* element : operands_) elements.push_back(*element);
  return LiteralUtil::MakeTuple(std::move(elements));
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kGetTupleElement>) {
  const Literal& tuple = operand(0);
  const int64_t index = instruction_.tuple_index();
  RET_CHECK(tuple.shape().IsTuple() && index >= 0 && index < tuple.tuple_size(),
            "get-tuple-element ", index, " of ", tuple.shape().ToString());
  return tuple.tuple_element(index);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kCall>) {
  return EvaluateComputation(*instruction_.to_apply(), operands_, options_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kFusion>) {
  if (instruction_.called_computations().size() != 1 ||
      instruction_.to_apply() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fusion '", instruction_.name(), "' has no fused computation"));
  }
  return EvaluateComputation(*instruction_.to_apply(), operands_, options_);
}

// The state goes through the body while the condition holds; a loop that
// never ends never returns, as in XLA.
OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kWhile>) {
  const HloComputation& condition = *instruction_.called_computations()[0];
  const HloComputation& body = *instruction_.called_computations()[1];
  Literal state = operand(0);
  for (int64_t trips = 0;; ++trips) {
    ASSIGN_OR_RETURN(Literal go,
                     EvaluateComputation(condition, {&state}, options_));
    if (!go.data<bool>()[0]) return state;
    if (options_.max_loop_trips >= 0 && trips == options_.max_loop_trips) {
      return LoopTripsExceeded(instruction_.name(), options_.max_loop_trips);
    }
    ASSIGN_OR_RETURN(state, EvaluateComputation(body, {&state}, options_));
  }
}

// pred: true runs branch 0; s32: an index out of range runs the last.
OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kConditional>) {
  const auto& branches = instruction_.called_computations();
  const Literal& selector = operand(0);
  int64_t branch = static_cast<int64_t>(branches.size()) - 1;
  if (selector.shape().element_type() == PRED) {
    branch = selector.data<bool>()[0] ? 0 : 1;
  } else {
    const int32_t index = selector.data<int32_t>()[0];
    if (index >= 0 && index < branch) branch = index;
  }
  return EvaluateComputation(*branches[branch], {operands_[1 + branch]},
                             options_);
}

// Only identity targets verify.
OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kCustomCall>) {
  return operand(0);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kAfterAll>) {
  return Literal(Shape(TOKEN, {}));
}

// opt-barrier is a scheduling fence and domain a sharding boundary, with
// nothing to fence or shard on one device; add-dependency orders no side
// effects here, and async-update passes its context on.
OpEvaluator::Result OpEvaluator::PassThrough() { return operand(0); }

// (operands, value, context): the value computed now, as on one device
// nothing runs alongside; the context is zeros.
OpEvaluator::Result OpEvaluator::AsyncStart() {
  std::vector<Literal> elements;
  if (instruction_.opcode() == HloOpcode::kCopyStart) {
    elements.push_back(operand(0));
    elements.push_back(operand(0));
  } else {
    std::vector<Literal> inputs;
    for (const Literal* input : operands_) inputs.push_back(*input);
    elements.push_back(LiteralUtil::MakeTuple(std::move(inputs)));
    ASSIGN_OR_RETURN(Literal value,
                     EvaluateComputation(*instruction_.to_apply(), operands_,
                                         options_));
    elements.push_back(std::move(value));
  }
  for (size_t i = 2; i < shape().tuple_shapes().size(); ++i) {
    elements.emplace_back(shape().tuple_shapes(i));
  }
  return LiteralUtil::MakeTuple(std::move(elements));
}

OpEvaluator::Result OpEvaluator::AsyncDone() {
  return operand(0).tuple_element(1);
}

}  // namespace mxla::hlo_evaluator_internal
