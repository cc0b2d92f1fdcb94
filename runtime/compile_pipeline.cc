#include "runtime/compile_pipeline.h"

#include <atomic>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/compiler.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "runtime/native_loop.h"
#include "runtime/buffer_assignment.h"
#include "runtime/buffer_leaves.h"
#include "runtime/compile.h"
#include "runtime/jit_executable.h"
#include "runtime/thread_pool.h"
#include "runtime/memory_limit.h"
#include "semantics/select_and_scatter_native.h"
#include "runtime/native_sort.h"
#include "runtime/sort_reads.h"

namespace mxla {

// What the stages hand each other.
struct CompilePipeline::State {
  explicit State(const CompileOptions& options) : options(options) {}

  const CompileOptions& options;
  // The module as given; `module` is the copy the stages rewrite (the same
  // object when the caller handed over ownership).
  const HloModule* input = nullptr;
  std::unique_ptr<HloModule> module;
  BufferAssignment assignment;
  std::unique_ptr<KernelIr> ir;
  std::shared_ptr<JitExecutable::Program> program;
  // Dumps go to `dump_dir` (if set) and, with keep_dumps, into `dumps`.
  std::string dump_dir;
  bool keep_dumps = false;
  std::map<std::string, std::string> dumps;
  // With StageRange::keep_objects: "link" keeps the kernels' object files.
  bool keep_objects = false;
  std::vector<std::string> objects;

  bool dumping() const { return keep_dumps || !dump_dir.empty(); }
  absl::Status Dump(const std::string& name, std::string text);
};

namespace {

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

// The HLO passes: the user's list or the default one, then what the backend
// needs of its input (passes/pass_registry.h has both lists).
absl::StatusOr<std::unique_ptr<PassPipeline>> MakeHloPasses(
    const CompileOptions& options, PipelineOptions pipeline_options) {
  PassOptions pass_options;
  pass_options.fusion_planning = options.codegen;
  pass_options.keep_matrix_products = options.codegen.reassociate_reductions;
  std::unique_ptr<PassPipeline> passes;
  if (options.passes.has_value()) {
    // expand-rngs first, as in the default list.
    std::vector<std::string> names = {"expand-rngs"};
    names.insert(names.end(), options.passes->begin(), options.passes->end());
    ASSIGN_OR_RETURN(passes, CreatePipeline(names, std::move(pipeline_options),
                                            pass_options));
  } else {
    passes = std::make_unique<PassPipeline>(std::move(pipeline_options));
    AddDefaultPasses(*passes);
  }
  switch (options.backend) {
    case Backend::kInterpreter:  // evaluates any verified HLO
      break;
    case Backend::kJit:
      for (const std::string& name : JitPassNames()) {
        ASSIGN_OR_RETURN(std::unique_ptr<HloPass> pass,
                         CreatePass(name, pass_options));
        passes->AddPass(std::move(pass));
      }
      break;
  }
  return passes;
}


// A while loop's condition and body, or a conditional's branches, each
// compiled on its own with the same options: from the input module's
// computation of that name when there is one (the passes have not
// rewritten it), else from the fused module's.
absl::StatusOr<std::shared_ptr<const JitExecutable::Program::Subprogram>>
CompileSubprogram(const HloInstruction& instruction, const HloModule* input,
                  const CompileOptions& options) {
  CompileOptions sub_options = options;
  sub_options.pipeline.dump_dir.clear();
  auto compile = [&](const HloComputation& computation)
      -> absl::StatusOr<std::shared_ptr<const Executable>> {
    const HloComputation* source = &computation;
    if (input != nullptr) {
      if (const HloComputation* original =
              input->GetComputationWithName(computation.name())) {
        source = original;
      }
    }
    HloModule module(absl::StrCat(instruction.parent()->parent()->name(), ".",
                                  computation.name()));
    module.set_entry_computation(module.DeepCopyComputation(*source));
    if (instruction.opcode() == HloOpcode::kWhile &&
        &computation == instruction.called_computations().back()) {
      // The body updates the loop state in place: each result leaf lives
      // in the parameter leaf it replaces (RunLoop passes one set of
      // buffers for both).
      module.set_input_output_aliases(LoopStateAliases(
          module.entry_computation()->root_instruction()->shape()));
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                     Compile(module, sub_options));
    return std::shared_ptr<const Executable>(std::move(executable));
  };
  auto compiled = std::make_shared<JitExecutable::Program::Subprogram>();
  compiled->opcode = instruction.opcode();
  compiled->name = instruction.name();
  if (std::optional<semantics::NativeSelectAndScatter> native =
          semantics::MatchNativeSelectAndScatter(instruction)) {
    compiled->native_select_and_scatter =
        std::make_shared<const semantics::NativeSelectAndScatter>(*native);
  }
  if (instruction.opcode() == HloOpcode::kSort) {
    std::optional<TrivialSortComparator> trivial =
        MatchTrivialSortComparator(*instruction.to_apply());
    if (trivial.has_value() && IsNativeSortKeyType(trivial->type)) {
      compiled->native_sort =
          std::make_shared<const TrivialSortComparator>(*trivial);
      compiled->unread_outputs = UnreadSortOutputs(instruction);
      compiled->sorted_prefix = SortedPrefixRead(instruction);
    }
  }
  // A native sort or select-and-scatter calls no computation: none is
  // compiled.
  const bool native = compiled->native_sort != nullptr ||
                      compiled->native_select_and_scatter != nullptr;
  if (instruction.opcode() == HloOpcode::kWhile && options.native_loops) {
    ASSIGN_OR_RETURN(compiled->native,
                     NativeLoop::Compile(instruction, input, sub_options));
    // The step-by-step programs run only when a run limits the trips,
    // which the loops inside them then do too: they need no native loops.
    if (compiled->native != nullptr) sub_options.native_loops = false;
  }
  for (const HloComputation* computation :
       native ? std::vector<HloComputation*>{}
              : instruction.called_computations()) {
    ASSIGN_OR_RETURN(std::shared_ptr<const Executable> executable,
                     compile(*computation));
    compiled->computations.push_back(std::move(executable));
  }
  for (const HloInstruction* operand : instruction.operands()) {
    int64_t leaves = 0;
    ForEachArrayLeaf(operand->shape(), [&](const Shape&) { ++leaves; });
    compiled->operand_leaves.push_back(leaves);
  }
  if (instruction.opcode() == HloOpcode::kSort) {
    const Shape& keys = instruction.operand(0)->shape();
    compiled->dims.assign(keys.dimensions().begin(), keys.dimensions().end());
    compiled->dimension = instruction.dimensions(0);
    for (const HloInstruction* operand : instruction.operands()) {
      compiled->element_bytes.push_back(
          primitive_util::ByteWidth(operand->shape().element_type()));
    }
  }
  if (instruction.opcode() == HloOpcode::kScatter) {
    const int64_t n = instruction.operand_count() / 2;
    const Shape& operand = instruction.operand(0)->shape();
    const Shape& indices = instruction.operand(n)->shape();
    const Shape& updates = instruction.operand(n + 1)->shape();
    compiled->dims.assign(operand.dimensions().begin(),
                          operand.dimensions().end());
    compiled->indices_dims.assign(indices.dimensions().begin(),
                                  indices.dimensions().end());
    compiled->indices_type = indices.element_type();
    compiled->update_dims.assign(updates.dimensions().begin(),
                                 updates.dimensions().end());
    compiled->scatter_dnums = instruction.scatter_dimension_numbers();
    for (int64_t i = 0; i < instruction.operand_count(); ++i) {
      if (i == n) continue;
      compiled->element_bytes.push_back(primitive_util::ByteWidth(
          instruction.operand(i)->shape().element_type()));
    }
  }
  if (instruction.opcode() == HloOpcode::kSelectAndScatter) {
    const Shape& operand = instruction.operand(0)->shape();
    compiled->dims.assign(operand.dimensions().begin(),
                          operand.dimensions().end());
    compiled->window = instruction.window();
    for (const Shape* shape : {&operand, &instruction.operand(1)->shape(),
                               &instruction.shape()}) {
      compiled->element_bytes.push_back(
          primitive_util::ByteWidth(shape->element_type()));
    }
  }
  if (instruction.opcode() == HloOpcode::kInfeed) {
    compiled->data_shape = instruction.shape().tuple_shapes(0);
  }
  if (instruction.opcode() == HloOpcode::kOutfeed) {
    compiled->data_shape = instruction.operand(0)->shape();
  }
  compiled->pred_index = instruction.opcode() == HloOpcode::kConditional &&
                         instruction.operand(0)->shape().element_type() == PRED;
  ForEachArrayLeaf(instruction.shape(), [&](const Shape& leaf) {
    compiled->leaf_bytes.push_back(ShapeUtil::ByteSizeOf(leaf));
  });
  return std::shared_ptr<const JitExecutable::Program::Subprogram>(
      std::move(compiled));
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

std::vector<HloInputOutputAlias> LoopStateAliases(const Shape& state) {
  std::vector<HloInputOutputAlias> aliases;
  std::vector<int64_t> index;
  std::function<void(const Shape&)> visit = [&](const Shape& shape) {
    if (!shape.IsTuple()) {
      aliases.push_back({index, 0, index, /*must_alias=*/true});
      return;
    }
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      index.push_back(i);
      visit(shape.tuple_shapes(i));
      index.pop_back();
    }
  };
  visit(state);
  return aliases;
}

absl::Status CompilePipeline::State::Dump(const std::string& name,
                                          std::string text) {
  if (!dump_dir.empty()) RETURN_IF_ERROR(WriteFile(dump_dir, name, text));
  if (keep_dumps) dumps[name] = std::move(text);
  return absl::OkStatus();
}

CompilePipeline::CompilePipeline(CompileOptions options)
    : options_(std::move(options)), dump_dir_(DumpDirectory(options_)) {}

void CompilePipeline::AddStage(std::string name,
                               std::function<absl::Status(State&)> run) {
  stages_.push_back({std::move(name), std::move(run)});
}

absl::StatusOr<std::unique_ptr<CompilePipeline>> CompilePipeline::Create(
    const CompileOptions& options) {
  auto pipeline = absl::WrapUnique(new CompilePipeline(options));
  PipelineOptions pass_options = options.pipeline;
  pass_options.dump_dir = pipeline->dump_dir_;
  ASSIGN_OR_RETURN(pipeline->hlo_passes_,
                   MakeHloPasses(options, std::move(pass_options)));
  PassPipeline* hlo_passes = pipeline->hlo_passes_.get();

  pipeline->AddStage("verify", [](State& state) -> absl::Status {
    RETURN_IF_ERROR(VerifyModule(*state.input, VerifierMode::kBuilder));
    if (state.module == nullptr) state.module = state.input->Clone();
    return absl::OkStatus();
  });
  pipeline->AddStage("hlo-passes", [hlo_passes](State& state) {
    return hlo_passes->Run(*state.module).status();
  });
  if (options.backend == Backend::kInterpreter) return pipeline;

  pipeline->AddStage("assign-buffers", [](State& state) -> absl::Status {
    if (state.dumping()) {
      RETURN_IF_ERROR(
          state.Dump("fused.hlo", state.module->ToString({.metadata = true})));
    }
    ASSIGN_OR_RETURN(std::vector<AliasedLeaf> aliases,
                     ResolveInputOutputAliases(*state.module));
    ASSIGN_OR_RETURN(
        state.assignment,
        AssignBuffers(*state.module->entry_computation(), aliases));
    // Split reductions' scratch, added at link, is at most a few KiB more.
    return JitExecutable::CheckMemoryLimit(
        *state.module, state.assignment,
        MemoryLimitOr(state.options.memory_limit_bytes));
  });
  pipeline->AddStage("emit", [](State& state) -> absl::Status {
    ASSIGN_OR_RETURN(state.ir,
                     KernelIr::Emit(*state.module, state.options.codegen,
                                    PoolTasks(ThreadPool::Default())));
    return state.dumping() ? state.Dump("llvm.ll", state.ir->Text())
                           : absl::OkStatus();
  });
  pipeline->AddStage("optimize", [](State& state) -> absl::Status {
    RET_CHECK(state.ir != nullptr, "stage 'optimize' runs after 'emit'");
    RETURN_IF_ERROR(state.ir->Optimize());
    if (!state.dumping()) return absl::OkStatus();
    RETURN_IF_ERROR(state.Dump("llvm-opt.ll", state.ir->Text()));
    ASSIGN_OR_RETURN(std::string assembly, state.ir->Assembly());
    return state.Dump("kernels.s", std::move(assembly));
  });
  pipeline->AddStage("link", [](State& state) -> absl::Status {
    // The kernels and buffers of this run's earlier stages.
    RET_CHECK(state.ir != nullptr, "stage 'link' runs after 'emit'");
    ASSIGN_OR_RETURN(std::vector<std::string> objects, state.ir->Objects());
    ASSIGN_OR_RETURN(std::unique_ptr<JitKernels> kernels,
                     JitKernels::Load(state.ir->kernels(), objects));
    state.ir.reset();
    if (state.keep_objects) state.objects = std::move(objects);
    ASSIGN_OR_RETURN(
        state.program,
        JitExecutable::MakeProgram(
            std::move(state.module), std::move(state.assignment),
            std::move(kernels), [&state](const HloInstruction& instruction) {
              return CompileSubprogram(instruction, state.input, state.options);
            }));
    return absl::OkStatus();
  });
  return pipeline;
}

std::vector<std::string> CompilePipeline::StageNames() const {
  std::vector<std::string> names;
  for (const Stage& stage : stages_) names.push_back(stage.name);
  return names;
}

absl::StatusOr<std::pair<size_t, size_t>> CompilePipeline::Find(
    const StageRange& range) const {
  auto index = [&](const std::string& name,
                   size_t otherwise) -> absl::StatusOr<size_t> {
    if (name.empty()) return otherwise;
    for (size_t i = 0; i < stages_.size(); ++i) {
      if (stages_[i].name == name) return i;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown compile stage '", name, "' for the ",
        BackendName(options_.backend),
        " backend (stages: ", absl::StrJoin(StageNames(), ", "), ")"));
  };
  ASSIGN_OR_RETURN(size_t first, index(range.first, 0));
  ASSIGN_OR_RETURN(size_t last, index(range.last, stages_.size() - 1));
  if (first > last) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compile stage '", range.first, "' comes after '", range.last, "'"));
  }
  return std::make_pair(first, last);
}

absl::StatusOr<CompiledModule> CompilePipeline::Run(
    std::unique_ptr<HloModule> module, const StageRange& range) {
  const HloModule* input = module.get();
  return RunStages(input, std::move(module), range);
}

absl::StatusOr<CompiledModule> CompilePipeline::Run(const HloModule& module,
                                                    const StageRange& range) {
  // "verify" copies the module once it has checked it.
  const bool verifies = range.first.empty() || range.first == "verify";
  return RunStages(&module, verifies ? nullptr : module.Clone(), range);
}

absl::StatusOr<CompiledModule> CompilePipeline::RunStages(
    const HloModule* input, std::unique_ptr<HloModule> module,
    const StageRange& range) {
  ASSIGN_OR_RETURN(auto span, Find(range));
  State state(options_);
  state.input = input;
  state.module = std::move(module);
  state.dump_dir = dump_dir_;
  state.keep_dumps = range.keep_dumps;
  state.keep_objects = range.keep_objects;
  if (!dump_dir_.empty()) {
    std::error_code error;  // an unusable directory fails at the first write
    std::filesystem::create_directories(dump_dir_, error);
  }
  CompiledModule result;
  absl::Status status;
  for (size_t i = span.first; i <= span.second && status.ok(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    status = stages_[i].run(state);
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    result.report.stages.push_back(
        {stages_[i].name, elapsed.count(), !status.ok()});
    if (stages_[i].name == "hlo-passes") {
      result.report.passes = hlo_passes_->records();
    }
  }
  if (!dump_dir_.empty()) {
    absl::Status written =
        WriteFile(dump_dir_, "stages.txt", result.report.ToString());
    if (status.ok()) status = written;
  }
  RETURN_IF_ERROR(status);
  if (state.program != nullptr) state.program->report = result.report;
  result.module = std::move(state.module);
  result.program = std::move(state.program);
  result.dumps = std::move(state.dumps);
  result.objects = std::move(state.objects);
  return result;
}

absl::StatusOr<CompiledModule> RunCompilePipeline(const HloModule& module,
                                                  const CompileOptions& options,
                                                  const StageRange& range) {
  ASSIGN_OR_RETURN(std::unique_ptr<CompilePipeline> pipeline,
                   CompilePipeline::Create(options));
  return pipeline->Run(module, range);
}

absl::StatusOr<std::shared_ptr<const JitExecutable::Program>> LoadJitProgram(
    absl::string_view fused_hlo, std::vector<KernelInfo> kernels,
    const std::vector<std::string>& objects, const HloModule* input,
    const CompileOptions& options) {
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
            return CompileSubprogram(instruction, input, options);
          }));
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start;
  program->report.stages.push_back({"load-cached", elapsed.count(), false});
  return std::shared_ptr<const JitExecutable::Program>(std::move(program));
}

absl::StatusOr<CompiledModule> RunJitBackend(std::unique_ptr<HloModule> fused,
                                             const CompileOptions& options,
                                             bool keep_dumps) {
  CompileOptions jit = options;
  jit.backend = Backend::kJit;
  ASSIGN_OR_RETURN(std::unique_ptr<CompilePipeline> pipeline,
                   CompilePipeline::Create(jit));
  StageRange backend;
  backend.first = "assign-buffers";
  backend.keep_dumps = keep_dumps;
  return pipeline->Run(std::move(fused), backend);
}

}  // namespace mxla
