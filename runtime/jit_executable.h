// The `jit` backend: an Executable whose fusions run as LLVM-compiled
// kernels (codegen/compiler.h) over buffers laid out by buffer_assignment.h,
// each kernel's iteration space split across the process's thread pool
// when it moves enough bytes to pay for it.
//
// Immutable after creation; Run and RunBuffers may be called from many
// threads at once (each run has its own arena). The compiled program is
// shared: the compile cache (compile_cache.h) hands it to every executable
// compiled from the same module and options.
#ifndef MXLA_RUNTIME_JIT_EXECUTABLE_H_
#define MXLA_RUNTIME_JIT_EXECUTABLE_H_

#include <memory>
#include <vector>

#include "codegen/compiler.h"
#include "runtime/buffer_assignment.h"
#include "runtime/executable.h"

namespace mxla {

class JitExecutable : public Executable {
 public:
  // What a compile produces; immutable.
  struct Program {
    struct Step {
      KernelFunction function;
      int64_t units;
      int64_t max_chunks;
      std::vector<BufferSlot> buffers;
    };
    std::shared_ptr<const HloModule> module;  // fused
    std::unique_ptr<JitKernels> kernels;
    BufferAssignment assignment;
    std::vector<Step> steps;
  };

  // `module` must be fused (passes/fusion.h).
  static absl::StatusOr<std::unique_ptr<JitExecutable>> Create(
      std::unique_ptr<const HloModule> module, const CodegenOptions& options);
  explicit JitExecutable(std::shared_ptr<const Program> program)
      : Executable(program->module), program_(std::move(program)) {}

  using Executable::RunBuffers;  // The sized overload.
  absl::StatusOr<Literal> Run(
      absl::Span<const Literal* const> arguments) const override;
  absl::Status RunBuffers(absl::Span<const void* const> arguments,
                          absl::Span<void* const> results) const override;

  const JitKernels& kernels() const { return *program_->kernels; }
  const BufferAssignment& buffers() const { return program_->assignment; }
  const std::shared_ptr<const Program>& program() const { return program_; }

 private:
  std::shared_ptr<const Program> program_;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_JIT_EXECUTABLE_H_
