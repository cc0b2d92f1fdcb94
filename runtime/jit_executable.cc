#include "runtime/jit_executable.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/memory_budget.h"
#include "ir/status_macros.h"
#include "passes/fusion_cost_model.h"
#include "runtime/buffer_leaves.h"
#include "runtime/device_steps.h"
#include "runtime/native_loop.h"
#include "runtime/native_sort.h"
#include "runtime/profile.h"
#include "runtime/thread_pool.h"
#include "semantics/scatter_elements.h"
#include "semantics/select_and_scatter.h"
#include "semantics/select_and_scatter_native.h"
#include "semantics/sort_rows.h"

namespace mxla {
namespace {

int64_t MaxKernelBuffers(const JitExecutable::Program& program) {
  int64_t most = 0;
  for (const JitExecutable::Program::Step& step : program.steps) {
    // A split reduction's scratch pointer follows its buffers.
    const int64_t pointers =
        step.buffers.size() + (step.scratch_offset >= 0 ? 1 : 0);
    most = std::max(most, pointers);
  }
  return most;
}

}  // namespace

absl::Status JitExecutable::CheckMemoryLimit(const HloModule& fused,
                                             const BufferAssignment& assignment,
                                             int64_t memory_limit_bytes) {
  // A run allocates its result and one arena.
  const Shape& result = fused.entry_computation()->root_instruction()->shape();
  int64_t run_bytes;
  if (__builtin_add_overflow(TotalArrayBytes(result), assignment.arena_bytes,
                             &run_bytes)) {
    run_bytes = std::numeric_limits<int64_t>::max();
  }
  return CheckMemoryBudget(
      run_bytes, memory_limit_bytes,
      absl::StrCat("a run of computation '", fused.name(), "' (result ",
                   result.ToString(), ", ", assignment.arena_bytes,
                   " bytes of temporaries)"));
}

JitExecutable::JitExecutable(std::shared_ptr<const Program> program)
    : Executable(program->module),
      program_(std::move(program)),
      scratch_(program_->arena_bytes, MaxKernelBuffers(*program_)) {}

int64_t KernelMaxChunks(const KernelInfo& kernel) {
  int64_t bytes = kernel.units * kernel.bytes_per_unit;
  return std::max<int64_t>(1, bytes / kMinBytesPerChunk);
}

absl::StatusOr<std::shared_ptr<JitExecutable::Program>>
JitExecutable::MakeProgram(std::shared_ptr<const HloModule> fused,
                           BufferAssignment assignment,
                           std::unique_ptr<JitKernels> kernels,
                           const SubprogramCompiler& compile_subprogram) {
  auto program = std::make_shared<Program>();
  program->module = std::move(fused);
  program->assignment = std::move(assignment);
  program->kernels = std::move(kernels);
  int64_t arena_bytes = program->assignment.arena_bytes;
  for (const FusionStep& step : program->assignment.steps) {
    if (IsSubprogramOp(step.fusion->opcode())) {
      Program::Step subprogram_step;
      ASSIGN_OR_RETURN(subprogram_step.subprogram,
                       compile_subprogram(*step.fusion));
      subprogram_step.units = 0;
      subprogram_step.max_chunks = 1;
      subprogram_step.buffers = step.buffers;
      subprogram_step.instruction = step.fusion;
      const auto* loop =
          std::get_if<Program::WhileLoop>(subprogram_step.subprogram.get());
      if (const NativeLoop* native = loop ? loop->native.get() : nullptr;
          native != nullptr && native->temp_bytes() > 0) {
        subprogram_step.scratch_offset = (arena_bytes + 63) / 64 * 64;
        arena_bytes = subprogram_step.scratch_offset + native->temp_bytes();
      }
      program->steps.push_back(std::move(subprogram_step));
      continue;
    }
    const KernelInfo* info = nullptr;
    for (const KernelInfo& kernel : program->kernels->kernels()) {
      if (kernel.fusion_name == step.fusion->name()) info = &kernel;
    }
    RET_CHECK(info != nullptr, "no kernel for ", step.fusion->name());
    Program::Step kernel_step;
    kernel_step.function = program->kernels->Lookup(info->fusion_name);
    kernel_step.units = info->units;
    kernel_step.max_chunks = KernelMaxChunks(*info);
    kernel_step.buffers = step.buffers;
    kernel_step.operand_offsets = info->operand_offsets;
    RET_CHECK(info->operand_offsets.empty() ||
              info->operand_offsets.size() <= step.buffers.size());
    kernel_step.instruction = step.fusion;
    program->steps.push_back(std::move(kernel_step));
    if (info->scratch_bytes > 0) {
      Program::Step& added = program->steps.back();
      added.combine = program->kernels->LookupCombine(info->fusion_name);
      RET_CHECK(added.combine != nullptr, "no combine kernel for ",
                info->fusion_name);
      added.scratch_offset = (arena_bytes + 63) / 64 * 64;
      arena_bytes = added.scratch_offset + info->scratch_bytes;
    }
  }
  program->arena_bytes = arena_bytes;
  return program;
}

namespace {

absl::Status CheckBufferCounts(const BufferAssignment& plan,
                               absl::Span<const void* const> arguments,
                               absl::Span<void* const> results) {
  if (arguments.size() != plan.argument_bytes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", plan.argument_bytes.size(),
        " argument buffers (one per array leaf of the parameters), got ",
        arguments.size()));
  }
  if (results.size() != plan.results.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", plan.results.size(), " result buffers, got ",
                     results.size()));
  }
  return absl::OkStatus();
}

// Where a buffer slot is during one run (and the run's profile, which a
// loop's or conditional's computations add to).
struct SlotAddresses {
  const BufferAssignment& plan;
  absl::Span<const void* const> arguments;
  absl::Span<void* const> results;
  uint8_t* arena;
  RunProfile* profile = nullptr;

  void* operator()(const BufferSlot& slot) const {
    switch (slot.kind) {
      case BufferSlot::kParameter:
        return const_cast<void*>(arguments[slot.index]);
      case BufferSlot::kConstant:
        return const_cast<void*>(
            plan.constants[slot.index]->literal().untyped_data());
      case BufferSlot::kArena:
        return arena + slot.offset;
      case BufferSlot::kResult:
        return results[slot.index];
    }
    return nullptr;
  }
};

// Runs one kernel over its units with `pointers` as its buffer table.
void RunStep(const JitExecutable::Program::Step& step,
             const SlotAddresses& where, void** pointers, ThreadPool& pool,
             int threads) {
  for (size_t i = 0; i < step.buffers.size(); ++i) {
    pointers[i] = where(step.buffers[i]);
  }
  for (size_t i = 0; i < step.operand_offsets.size(); ++i) {
    pointers[i] = static_cast<uint8_t*>(pointers[i]) + step.operand_offsets[i];
  }
  if (step.scratch_offset >= 0) {
    pointers[step.buffers.size()] = where.arena + step.scratch_offset;
  }
  KernelFunction function = step.function;
  // Small kernels, and runs limited to one thread, run inline without
  // the pool's hand-off (W7 in mxla bench).
  int64_t chunks = std::min<int64_t>(step.max_chunks, threads);
  if (chunks <= 1) {
    if (step.units > 0) function(pointers, 0, step.units);
  } else {
    pool.ParallelFor(step.units, chunks, [&](int64_t begin, int64_t end) {
      function(pointers, begin, end);
    });
  }
  if (step.combine != nullptr) step.combine(pointers, 0, 1);
}

// memcpy, split across the run's threads when it is large.
void CopyAcrossThreads(void* to, const void* from, int64_t bytes,
                       ThreadPool& pool, int threads) {
  constexpr int64_t kBlock = 1 << 16;
  const int64_t blocks = (bytes + kBlock - 1) / kBlock;
  const int64_t chunks = std::min<int64_t>(threads, bytes / kMinBytesPerChunk);
  if (chunks <= 1) {
    std::memcpy(to, from, bytes);
    return;
  }
  pool.ParallelFor(blocks, chunks, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kBlock;
    const int64_t last = std::min(bytes, end * kBlock);
    std::memcpy(static_cast<char*>(to) + first,
                static_cast<const char*>(from) + first, last - first);
  });
}

// A subprogram step's run: where its buffers are, and the run's pool,
// threads, trip limit and host feed.
struct SubprogramRun {
  const JitExecutable::Program::Step& step;
  const SlotAddresses& where;
  ThreadPool& pool;
  int threads;
  int64_t max_loop_trips;
  HostFeed* host_feed;
  const RunDevice* device;

  // The address of the step's buffer `i`.
  void* Buffer(size_t i) const { return where(step.buffers[i]); }

  // How a called computation runs: on `computation_threads` of this run's
  // pool, with its trip limit and host feed, and (when `profiled`) adding
  // its rows to the run's profile.
  RunOptions ComputationOptions(int computation_threads,
                                bool profiled) const {
    RunOptions options;
    options.thread_pool = &pool;
    options.threads = computation_threads;
    if (max_loop_trips >= 0) options.max_loop_trips = max_loop_trips;
    options.host_feed = host_feed;
    options.device = device;
    if (profiled) {
      options.profile = where.profile != nullptr;
      options.profile_sink = where.profile;
    }
    return options;
  }
};

// A while loop: the state starts as a copy of the initial leaves in the
// result's buffers (none where they are one buffer); while the condition
// holds, the body updates it in place (its results alias its parameter's
// leaves: the driver gives the body module that input_output_alias).
// A native loop (runtime/native_loop.h) does all of it in one call, except
// when the run limits the trips, which only the step-by-step run counts,
// or is profiled, whose rows time each kernel of the body.
absl::Status RunSubprogram(const JitExecutable::Program::WhileLoop& loop,
                           const SubprogramRun& run) {
  const size_t n = loop.leaf_bytes.size();
  std::vector<void*> state(n);
  std::vector<const void*> state_in(n);
  for (size_t i = 0; i < n; ++i) {
    state[i] = run.Buffer(n + i);
    state_in[i] = state[i];
    const void* initial = run.Buffer(i);
    if (initial != state[i] && loop.leaf_bytes[i] > 0) {
      CopyAcrossThreads(state[i], initial, loop.leaf_bytes[i], run.pool,
                        run.threads);
    }
  }
  if (loop.native != nullptr && run.max_loop_trips < 0 &&
      run.where.profile == nullptr) {
    void* temp = run.step.scratch_offset >= 0
                     ? run.where.arena + run.step.scratch_offset
                     : nullptr;
    loop.native->Run(state, temp, run.pool, run.threads);
    return absl::OkStatus();
  }
  const RunOptions options =
      run.ComputationOptions(run.threads, /*profiled=*/true);
  bool go = false;
  void* go_buffer[] = {&go};
  for (int64_t trips = 0;; ++trips) {
    RETURN_IF_ERROR(loop.condition->RunBuffers(state_in, go_buffer, options));
    if (!go) return absl::OkStatus();
    if (run.max_loop_trips >= 0 && trips == run.max_loop_trips) {
      return LoopTripsExceeded(loop.name, run.max_loop_trips);
    }
    RETURN_IF_ERROR(loop.body->RunBuffers(state_in, state, options));
  }
}

// A conditional: the index (pred: true is branch 0; s32: out of range is
// the last branch) picks the branch, which runs on its operand's leaves and
// writes the result's.
absl::Status RunSubprogram(
    const JitExecutable::Program::Conditional& conditional,
    const SubprogramRun& run) {
  const int64_t branches = conditional.branches.size();
  const void* index = run.Buffer(0);
  int64_t branch = branches - 1;
  if (conditional.pred_index) {
    branch = *static_cast<const uint8_t*>(index) != 0 ? 0 : 1;
  } else {
    const int32_t value = *static_cast<const int32_t*>(index);
    if (value >= 0 && value < branch) branch = value;
  }
  int64_t first = 0;
  for (int64_t i = 0; i <= branch; ++i) {
    first += conditional.operand_leaves[i];
  }
  std::vector<const void*> operand;
  for (int64_t i = 0; i < conditional.operand_leaves[1 + branch]; ++i) {
    operand.push_back(run.Buffer(first + i));
  }
  int64_t all_operands = 0;
  for (int64_t leaves : conditional.operand_leaves) all_operands += leaves;
  std::vector<void*> result;
  for (size_t i = all_operands; i < run.step.buffers.size(); ++i) {
    result.push_back(run.Buffer(i));
  }
  return conditional.branches[branch]->RunBuffers(
      operand, result, run.ComputationOptions(run.threads, /*profiled=*/true));
}

// A sort: each row ordered natively for a trivial comparator
// (runtime/native_sort.h), else by the compiled comparator (one call per
// comparison, on the elements in place), as semantics/sort_rows.h defines.
absl::Status RunSubprogram(const JitExecutable::Program::Sort& sort,
                           const SubprogramRun& run) {
  const size_t n = sort.element_bytes.size();
  std::vector<const void*> inputs(n);
  std::vector<void*> outputs(n);
  for (size_t i = 0; i < n; ++i) {
    inputs[i] = run.Buffer(i);
    outputs[i] = run.Buffer(n + i);
  }
  if (sort.native != nullptr) {
    for (size_t i = 0; i < sort.unread_outputs.size(); ++i) {
      if (sort.unread_outputs[i]) outputs[i] = nullptr;
    }
    NativeSortRows(sort.dims, sort.dimension, sort.element_bytes, inputs,
                   outputs, *sort.native, run.pool, run.threads,
                   sort.sorted_prefix);
    return absl::OkStatus();
  }
  // A comparator is a few scalar ops: one thread.
  const RunOptions options = run.ComputationOptions(1, /*profiled=*/false);
  bool lhs_first = false;
  void* result[] = {&lhs_first};
  const Executable& comparator = *sort.comparator;
  return semantics::SortRows(
      sort.dims, sort.dimension, sort.element_bytes, inputs, outputs,
      [&](absl::Span<const void* const> pair) -> absl::StatusOr<bool> {
        RETURN_IF_ERROR(comparator.RunBuffers(pair, result, options));
        return lhs_first;
      });
}

// A scatter: the operands copied to the results, then each update element
// combined into its result element by the compiled combiner (one call per
// element), as semantics/scatter_elements.h orders them; XLA:CPU's scatter
// runs the same way.
absl::Status RunSubprogram(const JitExecutable::Program::Scatter& scatter,
                           const SubprogramRun& run) {
  const size_t n = scatter.element_bytes.size() / 2;
  std::vector<char*> results(n);
  std::vector<const char*> updates(n);
  for (size_t i = 0; i < n; ++i) {
    const void* operand = run.Buffer(i);
    results[i] = static_cast<char*>(run.Buffer(2 * n + 1 + i));
    updates[i] = static_cast<const char*>(run.Buffer(n + 1 + i));
    if (results[i] != operand && scatter.leaf_bytes[i] > 0) {
      std::memmove(results[i], operand, scatter.leaf_bytes[i]);
    }
  }
  const void* indices = run.Buffer(n);
  // A combiner is a few scalar ops: one thread.
  const RunOptions options = run.ComputationOptions(1, /*profiled=*/false);
  // The combiner writes into its own scalars, never into an argument.
  std::vector<std::array<char, 16>> combined(n);
  std::vector<const void*> arguments(2 * n);
  std::vector<void*> outputs(n);
  for (size_t i = 0; i < n; ++i) outputs[i] = combined[i].data();
  const Executable& combiner = *scatter.combiner;
  const semantics::ScatterGeometry geometry{
      scatter.dims, scatter.indices_dims, scatter.indices_type,
      scatter.update_dims, scatter.scatter_dnums};
  return semantics::ScatterElements(
      geometry, indices,
      [&](int64_t element, int64_t update) -> absl::Status {
        for (size_t i = 0; i < n; ++i) {
          arguments[i] = results[i] + element * scatter.element_bytes[i];
          arguments[n + i] =
              updates[i] + update * scatter.element_bytes[n + i];
        }
        RETURN_IF_ERROR(combiner.RunBuffers(arguments, outputs, options));
        for (size_t i = 0; i < n; ++i) {
          std::memcpy(results[i] + element * scatter.element_bytes[i],
                      combined[i].data(), scatter.element_bytes[i]);
        }
        return absl::OkStatus();
      });
}

// `total` bytes at `result`, each element of `element_bytes` a copy of
// `init`: one element, then the filled part doubled.
void FillWithInit(char* result, const void* init, int64_t element_bytes,
                  int64_t total) {
  if (total > 0) std::memcpy(result, init, element_bytes);
  for (int64_t filled = element_bytes; filled < total; filled *= 2) {
    std::memcpy(result + filled, result, std::min(filled, total - filled));
  }
}

// A select-and-scatter that compares and adds
// (semantics/select_and_scatter_native.h), split over a dimension of
// one-tap windows when there is one and the result is worth it: ranges of
// it write disjoint elements, each in the order of a whole run, which
// gives the bits of any thread count.
void RunNativeSelectAndScatter(
    const JitExecutable::Program::SelectAndScatter& program,
    const char* operand, const char* source, char* result,
    const SubprogramRun& run) {
  const semantics::NativeSelectAndScatter& form = *program.native;
  const int64_t dimension =
      semantics::IndependentDimension(program.dims, program.window,
                                      run.threads);
  // Its traffic: the operand read, the result filled and updated.
  const int64_t chunks = std::min<int64_t>(
      run.threads, 3 * program.result_bytes / kMinBytesPerChunk);
  if (dimension < 0 || chunks <= 1) {
    semantics::RunNativeSelectAndScatter(form, program.dims, program.window,
                                         operand, source, result, -1, 0, 0);
    return;
  }
  run.pool.ParallelFor(program.dims[dimension], chunks,
                       [&](int64_t begin, int64_t end) {
                         semantics::RunNativeSelectAndScatter(
                             form, program.dims, program.window, operand,
                             source, result, dimension, begin, end);
                       });
}

// A select-and-scatter: init_value everywhere, then each source element
// scattered onto the operand element its window selects, by the compiled
// select and scatter computations (semantics/select_and_scatter.h), or
// natively when they compare and add.
absl::Status RunSubprogram(
    const JitExecutable::Program::SelectAndScatter& program,
    const SubprogramRun& run) {
  const char* operand = static_cast<const char*>(run.Buffer(0));
  const char* source = static_cast<const char*>(run.Buffer(1));
  char* result = static_cast<char*>(run.Buffer(3));
  const int64_t operand_bytes = program.element_bytes[0];
  const int64_t source_bytes = program.element_bytes[1];
  const int64_t result_bytes = program.element_bytes[2];
  FillWithInit(result, run.Buffer(2), result_bytes, program.result_bytes);
  if (program.native != nullptr) {
    RunNativeSelectAndScatter(program, operand, source, result, run);
    return absl::OkStatus();
  }
  // Each computation is a few scalar ops: one thread.
  const RunOptions options = run.ComputationOptions(1, /*profiled=*/false);
  bool keep = false;
  std::array<char, 16> combined;
  void* keep_result[] = {&keep};
  void* combined_result[] = {combined.data()};
  return semantics::SelectAndScatter(
      program.dims, program.window,
      [&](int64_t selected, int64_t candidate) -> absl::StatusOr<bool> {
        const void* pair[] = {operand + selected * operand_bytes,
                              operand + candidate * operand_bytes};
        RETURN_IF_ERROR(program.select->RunBuffers(pair, keep_result, options));
        return keep;
      },
      [&](int64_t target, int64_t from) -> absl::Status {
        char* slot = result + target * result_bytes;
        const void* pair[] = {slot, source + from * source_bytes};
        RETURN_IF_ERROR(
            program.scatter->RunBuffers(pair, combined_result, options));
        std::memcpy(slot, combined.data(), result_bytes);
        return absl::OkStatus();
      });
}

// An infeed: the next value of the host feed, checked, copied into the
// result's data leaves (after the token operand's leaf).
absl::Status RunSubprogram(const JitExecutable::Program::Infeed& infeed,
                           const SubprogramRun& run) {
  ASSIGN_OR_RETURN(Literal value,
                   ReadInfeed(infeed.name, infeed.data_shape, run.host_feed));
  std::vector<const Literal*> leaves;
  CollectArrayLeaves(value, leaves);
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (leaves[i]->size_bytes() > 0) {
      std::memcpy(run.Buffer(infeed.token_leaves + i),
                  leaves[i]->untyped_data(), leaves[i]->size_bytes());
    }
  }
  return absl::OkStatus();
}

// An outfeed: the data operand's leaves gathered into one value for the
// host feed.
absl::Status RunSubprogram(const JitExecutable::Program::Outfeed& outfeed,
                           const SubprogramRun& run) {
  Literal data(outfeed.data_shape);
  std::vector<Literal*> leaves;
  CollectArrayLeaves(data, leaves);
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (leaves[i]->size_bytes() > 0) {
      std::memcpy(leaves[i]->untyped_data(), run.Buffer(i),
                  leaves[i]->size_bytes());
    }
  }
  return WriteOutfeed(outfeed.name, std::move(data), run.host_feed);
}

// A collective, replica-id or partition-id (runtime/device_steps.h).
absl::Status RunSubprogram(const JitExecutable::Program::DeviceStep& step,
                           const SubprogramRun& run) {
  std::vector<void*> buffers;
  for (size_t i = 0; i < run.step.buffers.size(); ++i) {
    buffers.push_back(run.Buffer(i));
  }
  return RunDeviceStep(step, buffers, run.device);
}

// Result elements not computed in place: a parameter or constant returned
// as is, or a value returned twice.
void CopyResults(const SlotAddresses& where) {
  for (size_t i = 0; i < where.plan.results.size(); ++i) {
    const BufferSlot& source = where.plan.results[i];
    if (source.kind == BufferSlot::kResult && source.index == int64_t(i)) {
      continue;
    }
    const void* from = where(source);
    if (source.bytes > 0 && from != where.results[i]) {
      std::memcpy(where.results[i], from, source.bytes);
    }
  }
}

}  // namespace

// A run's device against the device counts the program was compiled for
// (its module's): a program compiled for one device has its collectives
// lowered to what one participant computes, so a copy of a replicated run
// would silently compute device 0's values; one compiled for several
// groups its devices by those counts. A run without a device is device 0
// of one.
static absl::Status CheckDevices(const HloModule& module,
                                 const RunDevice* device) {
  if (device == nullptr) return absl::OkStatus();
  const DeviceAssignment& assignment = *device->assignment;
  if (assignment.replica_count() == module.replica_count() &&
      assignment.partition_count() == module.num_partitions()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "module '", module.name(), "' was compiled by the jit for ",
      module.replica_count(), " replicas x ", module.num_partitions(),
      " partitions, but this run is device ", device->device_id(), " of ",
      assignment.replica_count(), " replicas x ",
      assignment.partition_count(),
      " partitions; compile it for those (CompileOptions::replicas and "
      "partitions)"));
}

absl::Status JitExecutable::DoRunBuffers(
    absl::Span<const void* const> arguments, absl::Span<void* const> results,
    const RunContext& threads) const {
  RETURN_IF_ERROR(CheckDevices(module(), threads.device));
  const BufferAssignment& plan = program_->assignment;
  RETURN_IF_ERROR(CheckBufferCounts(plan, arguments, results));
  // Leased, not allocated: a warm run makes no heap call (run_scratch.h).
  // A run without temporaries whose pointer tables fit on the stack leases
  // nothing (W7 in mxla bench).
  constexpr int64_t kStackTable = 16;
  void* stack_table[kStackTable];
  std::optional<RunScratchPool::Lease> scratch;
  if (program_->arena_bytes > 0 || scratch_.max_pointers() > kStackTable) {
    ASSIGN_OR_RETURN(RunScratchPool::Lease lease, scratch_.Take());
    scratch.emplace(std::move(lease));
  }
  // An aliased argument (input_output_alias, a loop body's state) is
  // updated in place: when the caller has not donated it (its result
  // buffer is another), it is copied into the result buffer, which stands
  // in for it.
  absl::InlinedVector<const void*, 16> donated;
  for (const AliasedLeaf& alias : plan.aliases) {
    void* result = results[alias.result_leaf];
    const void* argument = arguments[alias.argument_leaf];
    if (result == argument) continue;
    if (donated.empty()) donated.assign(arguments.begin(), arguments.end());
    const int64_t bytes = plan.argument_bytes[alias.argument_leaf];
    if (bytes > 0) std::memcpy(result, argument, bytes);
    donated[alias.argument_leaf] = result;
  }
  if (!donated.empty()) arguments = donated;
  const SlotAddresses where{plan, arguments, results,
                            scratch ? (*scratch)->arena.get() : nullptr,
                            threads.profile};
  for (const auto& [from, to] : plan.copies_before) {
    if (from.bytes > 0) std::memcpy(where(to), where(from), from.bytes);
  }
  void** pointers = scratch ? (*scratch)->pointers.data() : stack_table;
  for (const Program::Step& step : program_->steps) {
    const RunProfile::StepScope timed(threads.profile, step.instruction);
    if (step.subprogram != nullptr) {
      const SubprogramRun run{step,
                              where,
                              *threads.pool,
                              threads.threads,
                              threads.max_loop_trips,
                              threads.host_feed,
                              threads.device};
      RETURN_IF_ERROR(std::visit(
          [&](const auto& subprogram) { return RunSubprogram(subprogram, run); },
          *step.subprogram));
      continue;
    }
    RunStep(step, where, pointers, *threads.pool, threads.threads);
  }
  CopyResults(where);
  return absl::OkStatus();
}

absl::StatusOr<Literal> JitExecutable::DoRun(
    absl::Span<const Literal* const> arguments, const RunContext& run) const {
  RETURN_IF_ERROR(CheckDevices(module(), run.device));
  const HloComputation& entry = *module().entry_computation();
  RETURN_IF_ERROR(CheckArguments(entry, arguments));
  // A tuple argument passes its leaves' buffers, depth-first
  // (buffer_leaves.h).
  std::vector<const Literal*> argument_leaves;
  for (const Literal* argument : arguments) {
    CollectArrayLeaves(*argument, argument_leaves);
  }
  std::vector<const void*> argument_data;
  for (const Literal* leaf : argument_leaves) {
    argument_data.push_back(leaf->untyped_data());
  }
  // Every result element is written by a kernel or copied: no zero fill.
  ASSIGN_OR_RETURN(Literal result,
                   Literal::CreateForOverwrite(
                       entry.root_instruction()->shape(), *run.allocator));
  std::vector<Literal*> result_leaves;
  CollectArrayLeaves(result, result_leaves);
  std::vector<void*> result_data;
  for (Literal* leaf : result_leaves)
    result_data.push_back(leaf->untyped_data());
  RETURN_IF_ERROR(DoRunBuffers(argument_data, result_data, run));
  return result;
}

}  // namespace mxla
