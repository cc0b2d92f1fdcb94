#include "runtime/compile.h"

#include "absl/strings/str_cat.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "runtime/interpreter_executable.h"

namespace mxla {

absl::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kInterpreter:
      return "interpreter";
  }
  return "?";
}

absl::StatusOr<Backend> ParseBackend(absl::string_view name) {
  if (name == "interpreter") return Backend::kInterpreter;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown backend '", name, "' (available backends: interpreter)"));
}

absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& options) {
  RETURN_IF_ERROR(VerifyModule(module, VerifierMode::kBuilder));
  std::unique_ptr<HloModule> optimized = module.Clone();
  std::unique_ptr<PassPipeline> pipeline;
  if (options.passes.has_value()) {
    ASSIGN_OR_RETURN(pipeline, CreatePipeline(*options.passes, options.pipeline));
  } else {
    pipeline = CreateDefaultPipeline(options.pipeline);
  }
  RETURN_IF_ERROR(pipeline->Run(*optimized).status());
  switch (options.backend) {
    case Backend::kInterpreter:
      return std::make_unique<InterpreterExecutable>(std::move(optimized));
  }
  return absl::InternalError("unknown backend");
}

}  // namespace mxla
