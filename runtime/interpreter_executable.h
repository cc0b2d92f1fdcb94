// The `interpreter` backend: an Executable that evaluates its module with
// the reference evaluator.
#ifndef MXLA_RUNTIME_INTERPRETER_EXECUTABLE_H_
#define MXLA_RUNTIME_INTERPRETER_EXECUTABLE_H_

#include "runtime/executable.h"

namespace mxla {

class InterpreterExecutable : public Executable {
 public:
  using Executable::Executable;
  absl::StatusOr<Literal> Run(
      absl::Span<const Literal* const> arguments) const override;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_INTERPRETER_EXECUTABLE_H_
