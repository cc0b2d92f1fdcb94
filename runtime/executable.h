// Executable: a compiled computation, immutable after Compile() and safe to
// Run from many threads at once. Run checks its arguments (count, null,
// element type, dimensions, tuple structure): InvalidArgument, naming the
// offending parameter when there is one.
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

  // One literal per entry parameter, in parameter-number order (a tuple
  // literal for a tuple parameter), borrowed for the call; the result,
  // owned by the caller, is a tuple literal for a tuple root. Beyond the
  // argument check, Run returns ResourceExhausted if its result or
  // temporaries cannot be allocated, the jit Unimplemented for nested
  // tuples (checked at compile time), and the interpreter the evaluator's
  // errors.
  virtual absl::StatusOr<Literal> Run(
      absl::Span<const Literal* const> arguments) const = 0;

  // The zero-copy variant on caller-owned, row-major buffers, one per array
  // leaf in XLA's order (runtime/buffer_leaves.h): the arguments parameter
  // by parameter, a tuple parameter flattened depth-first into its
  // elements; the results likewise from the root's shape. Each buffer has
  // the exact byte size of its leaf's shape; result buffers must not
  // overlap argument buffers or each other.
  //
  // This form checks only the buffer counts (InvalidArgument). It cannot
  // check sizes, null pointers or overlaps (it has no sizes): a short,
  // null or overlapping buffer is undefined behavior. The jit checks the
  // counts before running and does not allocate beyond its arena (none
  // when the program has no temporaries); the default (the interpreter)
  // copies through literals and checks the result count after running.
  virtual absl::Status RunBuffers(absl::Span<const void* const> arguments,
                                  absl::Span<void* const> results) const;

  // RunBuffers with the byte size the caller allocated for each buffer
  // (parallel spans). Checks, without allocating, before anything runs:
  // both counts, every size (exactly its leaf's byte size), no null pointer
  // for a non-empty leaf, and no result buffer overlapping an argument or
  // another result; InvalidArgument naming the first offending buffer, its
  // parameter, tuple element and shape. It still cannot check that the
  // memory behind a pointer really has the size passed, or that argument
  // buffers are not written by another thread during the run.
  absl::Status RunBuffers(absl::Span<const void* const> arguments,
                          absl::Span<const int64_t> argument_sizes,
                          absl::Span<void* const> results,
                          absl::Span<const int64_t> result_sizes) const;

  // The module after the compile pipeline; valid while the executable
  // lives.
  const HloModule& module() const { return *module_; }

 private:
  std::shared_ptr<const HloModule> module_;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_EXECUTABLE_H_
