#include "interpreter/hlo_evaluator.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/evaluation_plan.h"
#include "ir/memory_budget.h"
#include "ir/shape_summary.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// Where two different tuple shapes first differ, for messages that
// summarize them: " (tuple element {1,0} is f32[3], expected f32[2])", or
// " (2 tuple elements, expected 3)"; "" unless both are tuples.
std::string TupleDifference(const Shape& actual, const Shape& expected,
                            std::vector<int64_t> index = {}) {
  if (!actual.IsTuple() || !expected.IsTuple()) {
    if (index.empty()) return "";
    return absl::StrCat(" (tuple element {", absl::StrJoin(index, ","),
                        "} is ", ShapeSummary(actual), ", expected ",
                        ShapeSummary(expected), ")");
  }
  const size_t size = actual.tuple_shapes().size();
  if (size != expected.tuple_shapes().size()) {
    const std::string where =
        index.empty() ? ""
                      : absl::StrCat("tuple element {",
                                     absl::StrJoin(index, ","), "} has ");
    return absl::StrCat(" (", where, size, " tuple elements, expected ",
                        expected.tuple_shapes().size(), ")");
  }
  for (size_t i = 0; i < size; ++i) {
    if (actual.tuple_shapes(i) == expected.tuple_shapes(i)) continue;
    index.push_back(static_cast<int64_t>(i));
    return TupleDifference(actual.tuple_shapes(i), expected.tuple_shapes(i),
                           std::move(index));
  }
  return "";
}

}  // namespace

absl::Status CheckArguments(const HloComputation& computation,
                            absl::Span<const Literal* const> arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation '", computation.name(), "' expects ",
        computation.num_parameters(), " arguments, got ", arguments.size()));
  }
  for (int64_t i = 0; i < static_cast<int64_t>(arguments.size()); ++i) {
    const HloInstruction* parameter = computation.parameter_instruction(i);
    RET_CHECK(parameter != nullptr, "computation ", computation.name(),
              " has no parameter ", i);
    std::string what =
        absl::StrCat("argument ", i, " (parameter '", parameter->name(), "')");
    if (arguments[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(what, " is null"));
    }
    if (arguments[i]->shape() != parameter->shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " has shape ", ShapeSummary(arguments[i]->shape()),
          " but the computation expects ", ShapeSummary(parameter->shape()),
          TupleDifference(arguments[i]->shape(), parameter->shape())));
    }
  }
  return absl::OkStatus();
}

absl::Status LoopTripsExceeded(absl::string_view loop, int64_t limit) {
  return absl::ResourceExhaustedError(
      absl::StrCat("while '", loop, "' went through its body more than ",
                   limit, " times (the limit of max_loop_trips)"));
}

absl::StatusOr<Literal> EvaluateModule(
    const HloModule& module, absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module '", module.name(), "' has no entry computation"));
  }
  return EvaluateComputation(*module.entry_computation(), arguments, options);
}

absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation,
    absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options) {
  RETURN_IF_ERROR(CheckArguments(computation, arguments));
  // Every value must fit before the first one is allocated.
  for (const HloInstruction* instruction : computation.instructions()) {
    RETURN_IF_ERROR(CheckMemoryBudget(
        TotalArrayBytes(instruction->shape()), options.memory_limit_bytes,
        absl::StrCat("the interpreter's value of instruction '",
                     instruction->name(), "' (",
                     instruction->shape().ToString(), ")")));
  }
  ASSIGN_OR_RETURN(hlo_evaluator_internal::Plan plan,
                   hlo_evaluator_internal::MakePlan(computation));
  return hlo_evaluator_internal::RunPlan(plan, arguments, options);
}

absl::StatusOr<Literal> EvaluateInstruction(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operand_values) {
  std::string what = absl::StrCat("instruction '", instruction.name(), "' (",
                                  HloOpcodeString(instruction.opcode()), ")");
  if (static_cast<int64_t>(operand_values.size()) !=
      instruction.operand_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has ", instruction.operand_count(),
                     " operands, got ", operand_values.size(), " values"));
  }
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    const Shape& expected = instruction.operand(i)->shape();
    if (operand_values[i] == nullptr ||
        operand_values[i]->shape() != expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": operand ", i, " value ",
          operand_values[i] == nullptr
              ? "is null"
              : absl::StrCat("has shape ",
                             operand_values[i]->shape().ToString()),
          ", expected ", expected.ToString()));
    }
  }
  return hlo_evaluator_internal::EvaluateOp(instruction, operand_values,
                                            EvaluatorOptions{});
}

}  // namespace mxla
