#include "runtime/compile.h"

#include "absl/strings/str_cat.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "passes/fusion.h"
#include "passes/lower_broadcasts.h"
#include "passes/row_fusion.h"
#include "passes/pass_registry.h"
#include "runtime/interpreter_executable.h"
#include "runtime/jit_executable.h"

namespace mxla {

absl::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kJit:
      return "jit";
    case Backend::kInterpreter:
      return "interpreter";
  }
  return "?";
}

absl::StatusOr<Backend> ParseBackend(absl::string_view name) {
  if (name == "jit") return Backend::kJit;
  if (name == "interpreter") return Backend::kInterpreter;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown backend '", name, "' (available backends: jit, interpreter)"));
}

absl::StatusOr<std::unique_ptr<PassPipeline>> CreateBackendPipeline(
    const CompileOptions& options) {
  std::unique_ptr<PassPipeline> pipeline;
  if (options.passes.has_value()) {
    ASSIGN_OR_RETURN(pipeline, CreatePipeline(*options.passes, options.pipeline));
  } else {
    pipeline = CreateDefaultPipeline(options.pipeline);
  }
  if (options.backend == Backend::kJit) {
    // Codegen needs lowered, fused HLO whatever the user's pass list; these
    // passes do nothing when their work is already done.
    pipeline->AddPass(std::make_unique<LowerBroadcastsPass>());
    pipeline->AddPass(std::make_unique<FusionPass>());
    pipeline->AddPass(std::make_unique<RowFusionPass>());
  }
  return pipeline;
}

absl::StatusOr<std::unique_ptr<HloModule>> OptimizeForBackend(
    const HloModule& module, const CompileOptions& options) {
  RETURN_IF_ERROR(VerifyModule(module, VerifierMode::kBuilder));
  std::unique_ptr<HloModule> optimized = module.Clone();
  ASSIGN_OR_RETURN(std::unique_ptr<PassPipeline> pipeline,
                   CreateBackendPipeline(options));
  RETURN_IF_ERROR(pipeline->Run(*optimized).status());
  return optimized;
}

absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> optimized,
                   OptimizeForBackend(module, options));
  switch (options.backend) {
    case Backend::kJit: {
      ASSIGN_OR_RETURN(std::unique_ptr<JitExecutable> executable,
                       JitExecutable::Create(std::move(optimized),
                                             options.codegen));
      return executable;
    }
    case Backend::kInterpreter:
      return std::make_unique<InterpreterExecutable>(std::move(optimized));
  }
  return absl::InternalError("unknown backend");
}

}  // namespace mxla
