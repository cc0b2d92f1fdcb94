// Executable: a compiled computation, immutable after Compile() and safe to
// Run from many threads at once. Run checks its arguments (count, null,
// element type, dimensions): InvalidArgument, naming the offending
// parameter when there is one.
#ifndef MXLA_RUNTIME_EXECUTABLE_H_
#define MXLA_RUNTIME_EXECUTABLE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"

namespace mxla {

class Executable {
 public:
  // Shares `module`, which must be non-null with an entry computation.
  explicit Executable(std::shared_ptr<const HloModule> module)
      : module_(std::move(module)) {}
  virtual ~Executable() = default;

  // One literal per entry parameter, in parameter-number order, borrowed
  // for the call; the result, owned by the caller, is a tuple literal for a
  // tuple root. Beyond the argument check, the jit returns
  // ResourceExhausted if its temporaries cannot be allocated and the
  // interpreter returns the evaluator's errors.
  virtual absl::StatusOr<Literal> Run(
      absl::Span<const Literal* const> arguments) const = 0;

  // The zero-copy variant on caller-owned, row-major buffers: one per entry
  // parameter, and one per result array (per tuple element for a tuple
  // root), each of the exact byte size of its shape. Result buffers must not
  // overlap argument buffers or each other. Only the counts can be checked
  // here (InvalidArgument on a mismatch); sizes are not, and a short buffer
  // is undefined behavior. The default copies through literals, running
  // before it checks the result count; the jit checks both counts first.
  virtual absl::Status RunBuffers(absl::Span<const void* const> arguments,
                                  absl::Span<void* const> results) const;

  // The module after the compile pipeline; valid while the executable
  // lives.
  const HloModule& module() const { return *module_; }

 private:
  std::shared_ptr<const HloModule> module_;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_EXECUTABLE_H_
