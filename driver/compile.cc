#include "driver/compile.h"

#include <utility>

#include "driver/compile_cache.h"
#include "driver/compile_pipeline.h"
#include "driver/native_loop_compile.h"
#include "driver/persistent_cache.h"
#include "driver/subprogram.h"
#include "ir/status_macros.h"
#include "runtime/interpreter_executable.h"
#include "runtime/jit_executable.h"
#include "runtime/memory_limit.h"

namespace mxla {

const SubprogramCompilers& DefaultSubprogramCompilers() {
  static const SubprogramCompilers* const compilers = new SubprogramCompilers{
      [](const HloModule& module, const CompileOptions& options)
          -> absl::StatusOr<std::shared_ptr<const Executable>> {
        ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                         Compile(module, options));
        return std::shared_ptr<const Executable>(std::move(executable));
      },
      &CompileNativeLoop};
  return *compilers;
}

absl::StatusOr<std::unique_ptr<HloModule>> OptimizeForBackend(
    const HloModule& module, const CompileOptions& options) {
  StageRange hlo_passes;
  hlo_passes.last = "hlo-passes";
  ASSIGN_OR_RETURN(CompiledModule compiled,
                   RunCompilePipeline(module, options,
                                      DefaultSubprogramCompilers(),
                                      hlo_passes));
  return std::move(compiled.module);
}

namespace {

// The persistent cache's miss and hit, both through the pipeline: a
// compile that keeps its objects for the entry, and a load of an entry.
absl::StatusOr<std::shared_ptr<const JitExecutable::Program>>
CompileThroughDiskCache(const HloModule& module, const CompileOptions& options,
                        const std::string& directory) {
  const SubprogramCompilers& compilers = DefaultSubprogramCompilers();
  PersistentCacheDriver driver;
  driver.load = [&](DiskCacheEntry entry) {
    return LoadJitProgram(entry.fused_hlo, std::move(entry.kernels),
                          entry.objects, &module, options, compilers);
  };
  driver.compile = [&](bool keep_objects)
      -> absl::StatusOr<PersistentCacheDriver::Compiled> {
    StageRange everything;
    everything.keep_objects = keep_objects;
    ASSIGN_OR_RETURN(CompiledModule compiled,
                     RunCompilePipeline(module, options, compilers,
                                        everything));
    return PersistentCacheDriver::Compiled{std::move(compiled.program),
                                           std::move(compiled.objects)};
  };
  return mxla::CompileThroughDiskCache(module, options, directory, driver);
}

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
                             RunCompilePipeline(module, options,
                                                DefaultSubprogramCompilers()));
            return std::move(compiled.program);
          }));
  RETURN_IF_ERROR(JitExecutable::CheckMemoryLimit(
      *program->module, program->assignment, memory_limit_bytes));
  return std::make_unique<JitExecutable>(std::move(program));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& given) {
  // Several devices made explicit, so that the computations a subprogram
  // compiles on their own (a loop's body) are compiled for them too. (One
  // device is every module's default: the options, and so the cache keys,
  // stay as given.)
  CompileOptions options = given;
  ASSIGN_OR_RETURN(const auto counts, DeviceCounts(module, given));
  if (counts.first * counts.second > 1) {
    options.replicas = counts.first;
    options.partitions = counts.second;
  }
  if (options.backend == Backend::kJit && options.use_cache &&
      DumpDirectory(options).empty()) {
    return CompileCached(module, options);
  }
  ASSIGN_OR_RETURN(CompiledModule compiled,
                   RunCompilePipeline(module, options,
                                      DefaultSubprogramCompilers()));
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
