#include "runtime/interpreter_executable.h"

#include "ir/hlo_evaluator.h"

namespace mxla {

absl::StatusOr<Literal> InterpreterExecutable::Run(
    absl::Span<const Literal* const> arguments) const {
  return EvaluateModule(module(), arguments);
}

}  // namespace mxla
