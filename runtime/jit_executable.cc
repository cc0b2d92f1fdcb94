#include "runtime/jit_executable.h"

#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_evaluator.h"
#include "ir/memory_limit.h"
#include "ir/status_macros.h"
#include "runtime/thread_pool.h"

namespace mxla {
namespace {

int64_t MaxChunks(const KernelInfo& kernel) {
  int64_t bytes = kernel.units * kernel.bytes_per_unit;
  return std::max<int64_t>(1, bytes / kMinBytesPerChunk);
}

}  // namespace

absl::StatusOr<std::unique_ptr<JitExecutable>> JitExecutable::Create(
    std::unique_ptr<const HloModule> module, const CodegenOptions& options) {
  auto program = std::make_shared<Program>();
  program->module = std::move(module);
  const HloModule& fused = *program->module;
  ASSIGN_OR_RETURN(program->assignment,
                   AssignBuffers(*fused.entry_computation()));
  // Checked before LLVM runs: a run allocates its result and one arena.
  const Shape& result = fused.entry_computation()->root_instruction()->shape();
  int64_t run_bytes;
  if (__builtin_add_overflow(TotalArrayBytes(result),
                             program->assignment.arena_bytes, &run_bytes)) {
    run_bytes = std::numeric_limits<int64_t>::max();
  }
  RETURN_IF_ERROR(CheckMemoryLimit(
      run_bytes,
      absl::StrCat("a run of computation '", fused.name(), "' (result ",
                   result.ToString(), ", ", program->assignment.arena_bytes,
                   " bytes of temporaries)")));
  ASSIGN_OR_RETURN(program->kernels, JitKernels::Compile(fused, options));
  for (const FusionStep& step : program->assignment.steps) {
    const KernelInfo* info = nullptr;
    for (const KernelInfo& kernel : program->kernels->kernels()) {
      if (kernel.fusion_name == step.fusion->name()) info = &kernel;
    }
    RET_CHECK(info != nullptr, "no kernel for ", step.fusion->name());
    program->steps.push_back({program->kernels->Lookup(info->fusion_name),
                              info->units, MaxChunks(*info), step.buffers});
  }
  return std::make_unique<JitExecutable>(std::move(program));
}

absl::Status JitExecutable::RunBuffers(absl::Span<const void* const> arguments,
                                       absl::Span<void* const> results) const {
  const BufferAssignment& plan = program_->assignment;
  if (arguments.size() != plan.argument_bytes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", plan.argument_bytes.size(),
        " argument buffers (one per array leaf of the parameters), got ",
        arguments.size()));
  }
  if (results.size() != plan.results.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", plan.results.size(),
                     " result buffers, got ", results.size()));
  }
  HostBuffer arena =
      plan.arena_bytes > 0 ? AllocateHostBuffer(plan.arena_bytes) : nullptr;
  if (plan.arena_bytes > 0 && arena == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", plan.arena_bytes, " bytes of temporaries"));
  }
  auto address = [&](const BufferSlot& slot) -> void* {
    switch (slot.kind) {
      case BufferSlot::kParameter:
        return const_cast<void*>(arguments[slot.index]);
      case BufferSlot::kConstant:
        return const_cast<void*>(
            plan.constants[slot.index]->literal().untyped_data());
      case BufferSlot::kArena:
        return arena.get() + slot.offset;
      case BufferSlot::kResult:
        return results[slot.index];
    }
    return nullptr;
  };
  // Small kernels run inline: no pool hand-off, no std::function, and no
  // heap allocation for the pointer array (W7 in mxla bench).
  absl::InlinedVector<void*, 16> pointers;
  for (const Program::Step& step : program_->steps) {
    pointers.clear();
    for (const BufferSlot& slot : step.buffers) pointers.push_back(address(slot));
    void* const* buffers = pointers.data();
    KernelFunction function = step.function;
    if (step.max_chunks <= 1) {
      if (step.units > 0) function(buffers, 0, step.units);
      continue;
    }
    ThreadPool::Default().ParallelFor(
        step.units, step.max_chunks, [&](int64_t begin, int64_t end) {
          function(buffers, begin, end);
        });
  }
  for (size_t i = 0; i < plan.results.size(); ++i) {
    const BufferSlot& source = plan.results[i];
    if (source.kind == BufferSlot::kResult && source.index == int64_t(i)) {
      continue;
    }
    if (source.bytes > 0) std::memcpy(results[i], address(source), source.bytes);
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> JitExecutable::Run(
    absl::Span<const Literal* const> arguments) const {
  const HloComputation& entry = *module().entry_computation();
  RETURN_IF_ERROR(CheckArguments(entry, arguments));
  // A tuple argument passes its elements' buffers (buffer_leaves.h).
  std::vector<const void*> argument_data;
  for (const Literal* argument : arguments) {
    if (!argument->shape().IsTuple()) {
      argument_data.push_back(argument->untyped_data());
      continue;
    }
    for (int64_t i = 0; i < argument->tuple_size(); ++i) {
      argument_data.push_back(argument->tuple_element(i).untyped_data());
    }
  }
  // Every result element is written by a kernel or copied: no zero fill.
  ASSIGN_OR_RETURN(
      Literal result,
      Literal::CreateForOverwrite(entry.root_instruction()->shape()));
  std::vector<void*> result_data;
  if (result.shape().IsTuple()) {
    for (int64_t i = 0; i < result.tuple_size(); ++i) {
      result_data.push_back(result.tuple_element(i).untyped_data());
    }
  } else {
    result_data.push_back(result.untyped_data());
  }
  RETURN_IF_ERROR(RunBuffers(argument_data, result_data));
  return result;
}

}  // namespace mxla
