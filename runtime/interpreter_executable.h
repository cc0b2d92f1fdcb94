// The `interpreter` backend: an Executable that evaluates its module with
// the reference evaluator.
#ifndef MXLA_RUNTIME_INTERPRETER_EXECUTABLE_H_
#define MXLA_RUNTIME_INTERPRETER_EXECUTABLE_H_

#include "runtime/executable.h"

namespace mxla {

class InterpreterExecutable : public Executable {
 public:
  using Executable::Executable;

 protected:
  // Single-threaded: the evaluator ignores the run's threads. Its budget is
  // the run's memory limit.
  absl::StatusOr<Literal> DoRun(absl::Span<const Literal* const> arguments,
                                const RunContext& run) const override;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_INTERPRETER_EXECUTABLE_H_
