#include "runtime/compile.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/compiler.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "passes/fusion.h"
#include "passes/fusion_planning.h"
#include "passes/lower_broadcasts.h"
#include "passes/row_fusion.h"
#include "passes/pass_registry.h"
#include "runtime/compile_cache.h"
#include "runtime/interpreter_executable.h"
#include "runtime/jit_executable.h"
#include "runtime/memory_limit.h"

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
    // Codegen needs lowered, fused, planned HLO whatever the user's pass
    // list; these passes do nothing when their work is already done
    // (planning keeps the plans a parsed fused module brings).
    pipeline->AddPass(std::make_unique<LowerBroadcastsPass>());
    pipeline->AddPass(std::make_unique<FusionPass>());
    pipeline->AddPass(std::make_unique<RowFusionPass>());
    pipeline->AddPass(std::make_unique<FusionPlanningPass>(FusionPlanningOptions{
        .reassociate_reductions = options.codegen.reassociate_reductions,
        .streaming_store_min_bytes = options.codegen.streaming_store_min_bytes}));
  }
  return pipeline;
}

std::string DumpDirectory(const CompileOptions& options) {
  if (!options.pipeline.dump_dir.empty()) return options.pipeline.dump_dir;
  const char* dir = std::getenv("MXLA_DUMP_DIR");
  return dir == nullptr ? "" : dir;
}

namespace {

absl::Status WriteDumpFile(const std::string& dir, const char* name,
                           const std::string& text) {
  const std::string path = absl::StrCat(dir, "/", name);
  std::ofstream file(path);
  file << text;
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write dump file '", path, "'"));
  }
  return absl::OkStatus();
}

absl::Status WriteCodegenDump(const CodegenDump& dump, const std::string& dir) {
  RETURN_IF_ERROR(WriteDumpFile(dir, "llvm.ll", dump.llvm));
  RETURN_IF_ERROR(WriteDumpFile(dir, "llvm-opt.ll", dump.llvm_optimized));
  return WriteDumpFile(dir, "kernels.s", dump.assembly);
}

// Compiles `optimized` once; with `dump_dir`, writes the stages of that very
// compile (fused.hlo first, so it is there even when codegen fails).
absl::StatusOr<std::unique_ptr<JitExecutable>> CompileJit(
    std::unique_ptr<HloModule> optimized, const CodegenOptions& options,
    const std::string& dump_dir, int64_t memory_limit_bytes) {
  if (dump_dir.empty()) {
    return JitExecutable::Create(std::move(optimized), options, nullptr,
                                 memory_limit_bytes);
  }
  RETURN_IF_ERROR(WriteDumpFile(dump_dir, "fused.hlo",
                                optimized->ToString({.metadata = true})));
  CodegenDump dump;
  ASSIGN_OR_RETURN(std::unique_ptr<JitExecutable> executable,
                   JitExecutable::Create(std::move(optimized), options, &dump,
                                         memory_limit_bytes));
  RETURN_IF_ERROR(WriteCodegenDump(dump, dump_dir));
  return executable;
}

}  // namespace

absl::Status DumpCodegenStages(const HloModule& fused_module,
                               const CodegenOptions& options,
                               const std::string& dir) {
  RETURN_IF_ERROR(WriteDumpFile(dir, "fused.hlo",
                                fused_module.ToString({.metadata = true})));
  ASSIGN_OR_RETURN(CodegenDump dump, EmitCodegenStages(fused_module, options));
  return WriteCodegenDump(dump, dir);
}

absl::StatusOr<std::unique_ptr<HloModule>> OptimizeForBackend(
    const HloModule& module, const CompileOptions& options) {
  RETURN_IF_ERROR(VerifyModule(module, VerifierMode::kBuilder));
  std::unique_ptr<HloModule> optimized = module.Clone();
  CompileOptions dumping = options;
  dumping.pipeline.dump_dir = DumpDirectory(options);
  ASSIGN_OR_RETURN(std::unique_ptr<PassPipeline> pipeline,
                   CreateBackendPipeline(dumping));
  RETURN_IF_ERROR(pipeline->Run(*optimized).status());
  return optimized;
}

std::string CompileOptionsKey(const CompileOptions& options) {
  std::vector<std::string> disabled(options.pipeline.disabled_passes.begin(),
                                    options.pipeline.disabled_passes.end());
  std::sort(disabled.begin(), disabled.end());
  return absl::StrCat(
      "backend=", BackendName(options.backend), " passes=",
      options.passes.has_value()
          ? absl::StrCat("[", absl::StrJoin(*options.passes, ","), "]")
          : "default",
      " disabled=[", absl::StrJoin(disabled, ","),
      "] verify=", options.pipeline.verify,
      " reassociate=", options.codegen.reassociate_reductions,
      " streaming=", options.codegen.streaming_store_min_bytes,
      " opt=", options.codegen.optimization_level);
}

namespace {

// A jit compile through the compile cache. The memory limit is checked on
// hits too: it may have been lowered since the program was compiled.
absl::StatusOr<std::unique_ptr<Executable>> CompileCached(
    const HloModule& module, const CompileOptions& options) {
  const int64_t memory_limit_bytes = MemoryLimitOr(options.memory_limit_bytes);
  const CompileKey key(module, CompileOptionsKey(options));
  ASSIGN_OR_RETURN(
      std::shared_ptr<const JitExecutable::Program> program,
      CompileCache::Default().GetOrCompile(
          key, [&]() -> CompileCache::ProgramOrError {
            ASSIGN_OR_RETURN(std::unique_ptr<HloModule> optimized,
                             OptimizeForBackend(module, options));
            ASSIGN_OR_RETURN(std::unique_ptr<JitExecutable> executable,
                             JitExecutable::Create(std::move(optimized),
                                                   options.codegen, nullptr,
                                                   memory_limit_bytes));
            return executable->program();
          }));
  RETURN_IF_ERROR(JitExecutable::CheckMemoryLimit(
      *program->module, program->assignment, memory_limit_bytes));
  return std::make_unique<JitExecutable>(std::move(program));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& options) {
  const std::string dump_dir = DumpDirectory(options);
  if (options.backend == Backend::kJit && options.use_cache &&
      dump_dir.empty()) {
    return CompileCached(module, options);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> optimized,
                   OptimizeForBackend(module, options));
  switch (options.backend) {
    case Backend::kJit: {
      ASSIGN_OR_RETURN(
          std::unique_ptr<JitExecutable> executable,
          CompileJit(std::move(optimized), options.codegen, dump_dir,
                     MemoryLimitOr(options.memory_limit_bytes)));
      return executable;
    }
    case Backend::kInterpreter:
      return std::make_unique<InterpreterExecutable>(std::move(optimized));
  }
  return absl::InternalError("unknown backend");
}

}  // namespace mxla
