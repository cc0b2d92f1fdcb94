#include "driver/compile_pipeline.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/compiler.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "runtime/buffer_assignment.h"
#include "runtime/memory_limit.h"
#include "runtime/thread_pool.h"

namespace mxla {
namespace {

// The stages in order, and whether the interpreter runs them too (the
// table in compile_pipeline.h).
struct StageName {
  const char* name;
  bool interpreter;
};
constexpr StageName kStages[] = {
    {"verify", true}, {"hlo-passes", true}, {"assign-buffers", false},
    {"emit", false},  {"optimize", false},  {"link", false}};

absl::Status WriteFile(const std::string& dir, const std::string& name,
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

// Runs the backend's per-kernel jobs on `pool`: each thread takes the next
// job when it finishes one, since kernels differ widely in compile time (a
// dot's against an add's).
ParallelTasks PoolTasks(ThreadPool& pool) {
  return [&pool](int64_t count, const std::function<void(int64_t)>& task) {
    std::atomic<int64_t> next{0};
    pool.ParallelFor(count, pool.threads(), [&](int64_t, int64_t) {
      for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
        task(i);
      }
    });
  };
}

}  // namespace

// Where the stages' dumps go: files in the dump directory (if set) and,
// with StageRange::keep_dumps, the result's `dumps`.
class CompilePipeline::Dumps {
 public:
  Dumps(std::string dir, bool keep) : dir_(std::move(dir)), keep_(keep) {}

  bool on() const { return keep_ || !dir_.empty(); }
  absl::Status Write(const std::string& name, std::string text) {
    if (!dir_.empty()) RETURN_IF_ERROR(WriteFile(dir_, name, text));
    if (keep_) kept_[name] = std::move(text);
    return absl::OkStatus();
  }
  std::map<std::string, std::string> Take() { return std::move(kept_); }

 private:
  std::string dir_;
  bool keep_;
  std::map<std::string, std::string> kept_;
};

// The stages a run covers, each timed into the report as it runs.
class CompilePipeline::Stages {
 public:
  Stages(std::vector<std::string> names, std::pair<size_t, size_t> span,
         CompileReport& report)
      : names_(std::move(names)), span_(span), report_(report) {}

  // Whether `name` is one of the backend's stages, inside the range.
  bool Covers(absl::string_view name) const {
    for (size_t i = span_.first; i <= span_.second; ++i) {
      if (names_[i] == name) return true;
    }
    return false;
  }

  // Runs `stage` (returning a StatusOr), recording its time and whether it
  // failed.
  template <typename Stage>
  auto Run(absl::string_view name, Stage&& stage) {
    const auto start = std::chrono::steady_clock::now();
    auto product = stage();
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    report_.stages.push_back(
        {std::string(name), elapsed.count(), !product.ok()});
    return product;
  }

 private:
  std::vector<std::string> names_;
  std::pair<size_t, size_t> span_;
  CompileReport& report_;
};

namespace {
namespace stage {

// "verify": the input checked (builder form allowed). Returns the module
// the later stages rewrite: `owned` when the caller handed the input over,
// else a copy.
absl::StatusOr<std::unique_ptr<HloModule>> Verify(
    const HloModule& input, std::unique_ptr<HloModule> owned) {
  RETURN_IF_ERROR(VerifyModule(input, VerifierMode::kBuilder));
  if (owned == nullptr) owned = input.Clone();
  return owned;
}

// "hlo-passes": the module after the compile's HLO passes.
absl::StatusOr<std::unique_ptr<HloModule>> RunHloPasses(
    std::unique_ptr<HloModule> module, PassPipeline& passes) {
  RETURN_IF_ERROR(passes.Run(*module).status());
  return module;
}

// "assign-buffers": the fused module (dumped first, as fused.hlo) laid out
// in buffers, checked against the memory limit.
absl::StatusOr<BufferAssignment> AssignBuffers(const HloModule& fused,
                                               int64_t memory_limit_bytes,
                                               CompilePipeline::Dumps& dumps) {
  if (dumps.on()) {
    RETURN_IF_ERROR(
        dumps.Write("fused.hlo", fused.ToString({.metadata = true})));
  }
  ASSIGN_OR_RETURN(std::vector<AliasedLeaf> aliases,
                   ResolveInputOutputAliases(fused));
  ASSIGN_OR_RETURN(BufferAssignment assignment,
                   mxla::AssignBuffers(*fused.entry_computation(), aliases));
  // Split reductions' scratch, added at link, is at most a few KiB more.
  RETURN_IF_ERROR(JitExecutable::CheckMemoryLimit(fused, assignment,
                                                  memory_limit_bytes));
  return assignment;
}

// "emit": the kernels' LLVM IR, emitted in parallel on the default pool.
absl::StatusOr<std::unique_ptr<KernelIr>> Emit(const HloModule& fused,
                                               const CodegenOptions& options,
                                               CompilePipeline::Dumps& dumps) {
  ASSIGN_OR_RETURN(
      std::unique_ptr<KernelIr> ir,
      KernelIr::Emit(fused, options, PoolTasks(ThreadPool::Default())));
  if (dumps.on()) RETURN_IF_ERROR(dumps.Write("llvm.ll", ir->Text()));
  return ir;
}

// "optimize": LLVM's optimizer on the kernels' IR.
absl::StatusOr<std::unique_ptr<KernelIr>> Optimize(
    std::unique_ptr<KernelIr> ir, CompilePipeline::Dumps& dumps) {
  RET_CHECK(ir != nullptr, "stage 'optimize' runs after 'emit'");
  RETURN_IF_ERROR(ir->Optimize());
  if (!dumps.on()) return ir;
  RETURN_IF_ERROR(dumps.Write("llvm-opt.ll", ir->Text()));
  ASSIGN_OR_RETURN(std::string assembly, ir->Assembly());
  RETURN_IF_ERROR(dumps.Write("kernels.s", std::move(assembly)));
  return ir;
}

// The report's record of LLVM's time on each distinct kernel.
std::vector<KernelCompileRecord> KernelRecords(const KernelIr& ir) {
  std::vector<KernelCompileRecord> records;
  for (const KernelCompileTime& time : ir.CompileTimes()) {
    records.push_back({.kernel = time.kernel,
                       .fusions = time.fusions,
                       .optimize_ms = time.optimize_ms,
                       .codegen_ms = time.codegen_ms});
  }
  return records;
}

// What "link" makes: the program, and its kernels' object files when they
// are kept (StageRange::keep_objects), and LLVM's time on each kernel.
struct Linked {
  std::shared_ptr<JitExecutable::Program> program;
  std::vector<std::string> objects;
  std::vector<KernelCompileRecord> kernel_times;
};

// "link": the kernels' machine code loaded into the JIT, and the program
// that runs them on the assigned buffers, with its subprograms made by
// `make_subprogram`.
absl::StatusOr<Linked> Link(
    std::unique_ptr<HloModule> fused, BufferAssignment assignment,
    std::unique_ptr<KernelIr> ir,
    const JitExecutable::SubprogramCompiler& make_subprogram,
    bool keep_objects) {
  RET_CHECK(ir != nullptr, "stage 'link' runs after 'emit'");
  ASSIGN_OR_RETURN(std::vector<std::string> objects, ir->Objects());
  ASSIGN_OR_RETURN(std::unique_ptr<JitKernels> kernels,
                   JitKernels::Load(ir->kernels(), objects));
  Linked linked;
  linked.kernel_times = KernelRecords(*ir);
  ir.reset();
  if (keep_objects) linked.objects = std::move(objects);
  ASSIGN_OR_RETURN(linked.program,
                   JitExecutable::MakeProgram(std::move(fused),
                                              std::move(assignment),
                                              std::move(kernels),
                                              make_subprogram));
  return linked;
}

}  // namespace stage
}  // namespace

CompilePipeline::CompilePipeline(CompileOptions options,
                                 SubprogramCompilers compilers,
                                 std::unique_ptr<PassPipeline> hlo_passes)
    : options_(std::move(options)),
      compilers_(std::move(compilers)),
      dump_dir_(DumpDirectory(options_)),
      hlo_passes_(std::move(hlo_passes)) {}

absl::StatusOr<std::unique_ptr<CompilePipeline>> CompilePipeline::Create(
    const CompileOptions& options, SubprogramCompilers compilers) {
  PipelineOptions pipeline_options = options.pipeline;
  pipeline_options.dump_dir = DumpDirectory(options);
  PassOptions pass_options;
  pass_options.fusion_planning = options.codegen;
  pass_options.keep_matrix_products = options.codegen.reassociate_reductions;
  ASSIGN_OR_RETURN(
      std::unique_ptr<PassPipeline> hlo_passes,
      CreateCompilePasses(options.passes, options.backend == Backend::kJit,
                          std::move(pipeline_options), pass_options));
  return std::unique_ptr<CompilePipeline>(new CompilePipeline(
      options, std::move(compilers), std::move(hlo_passes)));
}

std::vector<std::string> CompilePipeline::StageNames() const {
  std::vector<std::string> names;
  for (const StageName& stage : kStages) {
    if (options_.backend == Backend::kJit || stage.interpreter) {
      names.push_back(stage.name);
    }
  }
  return names;
}

absl::StatusOr<std::pair<size_t, size_t>> CompilePipeline::Find(
    const StageRange& range) const {
  const std::vector<std::string> names = StageNames();
  auto index = [&](const std::string& name,
                   size_t otherwise) -> absl::StatusOr<size_t> {
    if (name.empty()) return otherwise;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown compile stage '", name, "' for the ",
        BackendName(options_.backend),
        " backend (stages: ", absl::StrJoin(names, ", "), ")"));
  };
  ASSIGN_OR_RETURN(size_t first, index(range.first, 0));
  ASSIGN_OR_RETURN(size_t last, index(range.last, names.size() - 1));
  if (first > last) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compile stage '", range.first, "' comes after '", range.last, "'"));
  }
  return std::make_pair(first, last);
}

absl::StatusOr<CompiledModule> CompilePipeline::Run(
    std::unique_ptr<HloModule> module, const StageRange& range) {
  ASSIGN_OR_RETURN(const auto counts, DeviceCounts(*module, options_));
  module->set_replica_count(counts.first);
  module->set_num_partitions(counts.second);
  const HloModule* input = module.get();
  return RunStages(input, std::move(module), range);
}

absl::StatusOr<CompiledModule> CompilePipeline::Run(const HloModule& module,
                                                    const StageRange& range) {
  // Options that name other device counts than the module's: the compile
  // is of a copy with theirs, verified with them.
  ASSIGN_OR_RETURN(const auto counts, DeviceCounts(module, options_));
  if (counts.first != module.replica_count() ||
      counts.second != module.num_partitions()) {
    return Run(module.Clone(), range);
  }
  // "verify" copies the module once it has checked it.
  const bool verifies = range.first.empty() || range.first == "verify";
  return RunStages(&module, verifies ? nullptr : module.Clone(), range);
}

// The stages, top to bottom: each runs when the range covers it, on what
// the ones before it made.
absl::Status CompilePipeline::RunInOrder(const HloModule& input,
                                         std::unique_ptr<HloModule> module,
                                         bool keep_objects, Stages& stages,
                                         Dumps& dumps,
                                         CompiledModule& result) {
  if (stages.Covers("verify")) {
    ASSIGN_OR_RETURN(module, stages.Run("verify", [&] {
      return stage::Verify(input, std::move(module));
    }));
  }
  if (stages.Covers("hlo-passes")) {
    absl::StatusOr<std::unique_ptr<HloModule>> optimized =
        stages.Run("hlo-passes", [&] {
          return stage::RunHloPasses(std::move(module), *hlo_passes_);
        });
    result.report.passes = hlo_passes_->records();
    ASSIGN_OR_RETURN(module, std::move(optimized));
  }
  BufferAssignment assignment;
  if (stages.Covers("assign-buffers")) {
    ASSIGN_OR_RETURN(assignment, stages.Run("assign-buffers", [&] {
      return stage::AssignBuffers(
          *module, MemoryLimitOr(options_.memory_limit_bytes), dumps);
    }));
  }
  std::unique_ptr<KernelIr> ir;
  if (stages.Covers("emit")) {
    ASSIGN_OR_RETURN(ir, stages.Run("emit", [&] {
      return stage::Emit(*module, options_.codegen, dumps);
    }));
  }
  if (stages.Covers("optimize")) {
    ASSIGN_OR_RETURN(ir, stages.Run("optimize", [&] {
      return stage::Optimize(std::move(ir), dumps);
    }));
    result.report.kernels = stage::KernelRecords(*ir);
  }
  if (stages.Covers("link")) {
    auto make_subprogram = [&](const HloInstruction& instruction) {
      return MakeSubprogram(instruction, &input, options_, compilers_);
    };
    ASSIGN_OR_RETURN(stage::Linked linked, stages.Run("link", [&] {
      return stage::Link(std::move(module), std::move(assignment),
                         std::move(ir), make_subprogram, keep_objects);
    }));
    result.report.kernels = std::move(linked.kernel_times);
    linked.program->report = result.report;
    result.program = std::move(linked.program);
    result.objects = std::move(linked.objects);
  }
  result.module = std::move(module);
  return absl::OkStatus();
}

absl::StatusOr<CompiledModule> CompilePipeline::RunStages(
    const HloModule* input, std::unique_ptr<HloModule> module,
    const StageRange& range) {
  ASSIGN_OR_RETURN(auto span, Find(range));
  if (!dump_dir_.empty()) {
    std::error_code error;  // an unusable directory fails at the first write
    std::filesystem::create_directories(dump_dir_, error);
  }
  CompiledModule result;
  Stages stages(StageNames(), span, result.report);
  Dumps dumps(dump_dir_, range.keep_dumps);
  absl::Status status = RunInOrder(*input, std::move(module),
                                   range.keep_objects, stages, dumps, result);
  if (!dump_dir_.empty()) {
    absl::Status written =
        WriteFile(dump_dir_, "stages.txt",
                  result.report.ToString(/*slowest_kernels=*/1 << 30));
    if (status.ok()) status = written;
  }
  RETURN_IF_ERROR(status);
  result.dumps = dumps.Take();
  return result;
}

absl::StatusOr<CompiledModule> RunCompilePipeline(
    const HloModule& module, const CompileOptions& options,
    const SubprogramCompilers& compilers, const StageRange& range) {
  ASSIGN_OR_RETURN(std::unique_ptr<CompilePipeline> pipeline,
                   CompilePipeline::Create(options, compilers));
  return pipeline->Run(module, range);
}

absl::StatusOr<std::shared_ptr<const JitExecutable::Program>> LoadJitProgram(
    absl::string_view fused_hlo, std::vector<KernelInfo> kernels,
    const std::vector<std::string>& objects, const HloModule* input,
    const CompileOptions& options, const SubprogramCompilers& compilers) {
  const auto start = std::chrono::steady_clock::now();
  // Parsing the module and linking the objects are independent, and
  // together most of a load: on two threads when the pool has them.
  absl::StatusOr<std::unique_ptr<HloModule>> fused =
      absl::InternalError("not parsed");
  absl::StatusOr<std::unique_ptr<JitKernels>> jit_kernels =
      absl::InternalError("not loaded");
  ThreadPool& pool = ThreadPool::Default();
  pool.ParallelFor(2, 2, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      if (task == 0) {
        fused = ParseHloModule(fused_hlo);
      } else {
        jit_kernels = JitKernels::Load(std::move(kernels), objects);
      }
    }
  });
  RETURN_IF_ERROR(fused.status());
  RETURN_IF_ERROR(jit_kernels.status());
  ASSIGN_OR_RETURN(std::vector<AliasedLeaf> aliases,
                   ResolveInputOutputAliases(**fused));
  ASSIGN_OR_RETURN(BufferAssignment assignment,
                   AssignBuffers(*(*fused)->entry_computation(), aliases));
  ASSIGN_OR_RETURN(
      std::shared_ptr<JitExecutable::Program> program,
      JitExecutable::MakeProgram(
          *std::move(fused), std::move(assignment), *std::move(jit_kernels),
          [&](const HloInstruction& instruction) {
            return MakeSubprogram(instruction, input, options, compilers);
          }));
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start;
  program->report.stages.push_back({"load-cached", elapsed.count(), false});
  return std::shared_ptr<const JitExecutable::Program>(std::move(program));
}

absl::StatusOr<CompiledModule> RunJitBackend(
    std::unique_ptr<HloModule> fused, const CompileOptions& options,
    const SubprogramCompilers& compilers, bool keep_dumps) {
  CompileOptions jit = options;
  jit.backend = Backend::kJit;
  ASSIGN_OR_RETURN(std::unique_ptr<CompilePipeline> pipeline,
                   CompilePipeline::Create(jit, compilers));
  StageRange backend;
  backend.first = "assign-buffers";
  backend.keep_dumps = keep_dumps;
  return pipeline->Run(std::move(fused), backend);
}

}  // namespace mxla
