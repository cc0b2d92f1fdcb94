#include "runtime/interpreter_executable.h"

#include "interpreter/hlo_evaluator.h"

namespace mxla {

absl::StatusOr<Literal> InterpreterExecutable::DoRun(
    absl::Span<const Literal* const> arguments,
    const RunThreads& /*threads*/) const {
  return EvaluateModule(module(), arguments);
}

}  // namespace mxla
