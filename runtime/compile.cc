#include "runtime/compile.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"
#include "runtime/compile_cache.h"
#include "runtime/compile_pipeline.h"
#include "runtime/interpreter_executable.h"
#include "runtime/jit_executable.h"
#include "runtime/memory_limit.h"
#include "runtime/persistent_cache.h"

namespace mxla {

absl::StatusOr<std::unique_ptr<HloModule>> OptimizeForBackend(
    const HloModule& module, const CompileOptions& options) {
  StageRange hlo_passes;
  hlo_passes.last = "hlo-passes";
  ASSIGN_OR_RETURN(CompiledModule compiled,
                   RunCompilePipeline(module, options, hlo_passes));
  return std::move(compiled.module);
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
            const std::string directory = CacheDirectory(options);
            if (!directory.empty()) {
              return CompileThroughDiskCache(module, options, directory);
            }
            ASSIGN_OR_RETURN(CompiledModule compiled,
                             RunCompilePipeline(module, options));
            return std::move(compiled.program);
          }));
  RETURN_IF_ERROR(JitExecutable::CheckMemoryLimit(
      *program->module, program->assignment, memory_limit_bytes));
  return std::make_unique<JitExecutable>(std::move(program));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& options) {
  if (options.backend == Backend::kJit && options.use_cache &&
      DumpDirectory(options).empty()) {
    return CompileCached(module, options);
  }
  ASSIGN_OR_RETURN(CompiledModule compiled,
                   RunCompilePipeline(module, options));
  switch (options.backend) {
    case Backend::kJit:
      return std::make_unique<JitExecutable>(std::move(compiled.program));
    case Backend::kInterpreter:
      return std::make_unique<InterpreterExecutable>(
          std::move(compiled.module));
  }
  return absl::InternalError("unknown backend");
}

}  // namespace mxla
