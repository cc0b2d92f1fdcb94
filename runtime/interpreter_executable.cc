#include "runtime/interpreter_executable.h"

#include "interpreter/hlo_evaluator.h"
#include "ir/status_macros.h"

namespace mxla {

absl::StatusOr<Literal> InterpreterExecutable::DoRun(
    absl::Span<const Literal* const> arguments,
    const RunContext& run) const {
  ASSIGN_OR_RETURN(
      Literal result,
      EvaluateModule(module(), arguments,
                     {.memory_limit_bytes = run.memory_limit_bytes,
                      .max_loop_trips = run.max_loop_trips,
                      .host_feed = run.host_feed,
                      .device = run.device}));
  // The evaluator's values use ir's allocator; the caller's result comes
  // from the run's.
  return Literal(result, *run.allocator);
}

}  // namespace mxla
