// Compile(): runs the pass pipeline on a copy of a module and returns an
// Executable for the chosen backend.
//
// Backends: `interpreter` runs the reference evaluator (ir/hlo_evaluator.h)
// on the optimized module: the oracle.
#ifndef MXLA_RUNTIME_COMPILE_H_
#define MXLA_RUNTIME_COMPILE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/hlo_module.h"
#include "passes/pass_pipeline.h"
#include "runtime/executable.h"

namespace mxla {

enum class Backend { kInterpreter };

absl::string_view BackendName(Backend backend);
absl::StatusOr<Backend> ParseBackend(absl::string_view name);

struct CompileOptions {
  Backend backend = Backend::kInterpreter;
  // The passes to run instead of the default pipeline (empty runs none).
  std::optional<std::vector<std::string>> passes;
  PipelineOptions pipeline;
};

// Verifies `module` (builder form allowed), optimizes a copy, compiles it.
// Invalid modules are InvalidArgument; the input is never modified.
absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& options = {});

}  // namespace mxla

#endif  // MXLA_RUNTIME_COMPILE_H_
