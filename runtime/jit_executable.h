// The `jit` backend: an Executable whose fusions run as LLVM-compiled
// kernels (codegen/compiler.h) over buffers laid out by buffer_assignment.h,
// each kernel's iteration space split across the run's thread pool
// (RunOptions) when it moves enough bytes to pay for it.
//
// Immutable after creation; Run and RunBuffers may be called from many
// threads at once (each run leases its own arena from the executable, see
// run_scratch.h). The compiled program is shared: the compile cache
// (compile_cache.h) hands it to every executable compiled from the same
// module and options.
#ifndef MXLA_RUNTIME_JIT_EXECUTABLE_H_
#define MXLA_RUNTIME_JIT_EXECUTABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "codegen/compiler.h"
#include "ir/communicator.h"
#include "ir/scatter_dimension_numbers.h"
#include "ir/window.h"
#include "runtime/buffer_assignment.h"
#include "runtime/compile_report.h"
#include "runtime/executable.h"
#include "runtime/run_scratch.h"

namespace mxla {

namespace semantics {
struct NativeSelectAndScatter;
}  // namespace semantics
class NativeLoop;  // runtime/native_loop.h
struct TrivialSortComparator;  // passes/sort_key_hoisting.h

// The most chunks a kernel's units are split into: no chunk moves less than
// kMinBytesPerChunk (passes/fusion_cost_model.h).
int64_t KernelMaxChunks(const KernelInfo& kernel);

class JitExecutable : public Executable {
 public:
  // What a compile produces; immutable.
  struct Program {
    // A step that runs its own code rather than one kernel
    // (IsSubprogramOp): one alternative per kind, each holding what its run
    // reads. The computations it calls are compiled as executables of their
    // own (by the driver: MakeProgram's `compile_subprogram`).
    //
    // A while loop: while its condition holds, its body updates the loop
    // state's leaves in place.
    struct WhileLoop {
      std::string name;  // the instruction's
      std::shared_ptr<const Executable> condition;
      std::shared_ptr<const Executable> body;
      std::vector<int64_t> leaf_bytes;  // the state's leaves, depth-first
      // The whole loop as one native function, or null
      // (CompileOptions::native_loops). Its temp is the step's scratch.
      std::shared_ptr<const NativeLoop> native;
    };
    // A conditional: runs the branch its index picks on that branch's
    // operand.
    struct Conditional {
      std::vector<std::shared_ptr<const Executable>> branches;
      // How many leaves each operand has, the index first, and whether the
      // index is a pred (true runs branch 0) or an s32.
      std::vector<int64_t> operand_leaves;
      bool pred_index = false;
    };
    // A sort: orders each row by calling its comparator (as XLA:CPU's
    // runtime sort does), or natively.
    struct Sort {
      // The operands' dimensions, the sorted one, and each operand's
      // element size.
      std::vector<int64_t> dims;
      int64_t dimension = 0;
      std::vector<int64_t> element_bytes;
      std::shared_ptr<const Executable> comparator;  // null when native
      // Set when the comparator is trivial on a native key type
      // (runtime/native_sort.h); then there is no comparator.
      std::shared_ptr<const TrivialSortComparator> native;
      // A native sort's results that nothing reads: not written; and how
      // many leading elements of each row anything reads (a top-k's k):
      // only those are selected, in order, and written.
      std::vector<bool> unread_outputs;
      int64_t sorted_prefix = 0;
    };
    // A scatter: the operands copied to the results, then each update
    // element combined into its result element by the combiner.
    struct Scatter {
      std::shared_ptr<const Executable> combiner;
      // The operands', the scatter indices' and the updates' dimensions,
      // the indices' type and the dimension numbers.
      std::vector<int64_t> dims;
      std::vector<int64_t> indices_dims;
      std::vector<int64_t> update_dims;
      PrimitiveType indices_type = S32;
      ScatterDimensionNumbers scatter_dnums;
      // The operands' then the updates' element sizes.
      std::vector<int64_t> element_bytes;
      std::vector<int64_t> leaf_bytes;  // the result's leaves, depth-first
    };
    // A select-and-scatter: `dims` are the operand's, `window` its window;
    // element_bytes holds the operand's, source's and result's element
    // sizes. When its select compares and its scatter adds, it runs
    // natively in that form (semantics/select_and_scatter_native.h), in
    // parallel over a dimension of one-tap windows, and its computations
    // are not compiled.
    struct SelectAndScatter {
      std::shared_ptr<const Executable> select;   // null when native
      std::shared_ptr<const Executable> scatter;  // null when native
      std::vector<int64_t> dims;
      Window window;
      std::vector<int64_t> element_bytes;
      int64_t result_bytes = 0;
      std::shared_ptr<const semantics::NativeSelectAndScatter> native;
    };
    // An infeed and an outfeed: the data's shape. An infeed's result
    // leaves follow its token operand's.
    struct Infeed {
      std::string name;  // the instruction's
      Shape data_shape;
      int64_t token_leaves = 0;
    };
    struct Outfeed {
      std::string name;  // the instruction's
      Shape data_shape;
    };
    // A collective, replica-id or partition-id of a program compiled for
    // several devices (IsDeviceStepOp), run through the run's device
    // (RunOptions::device; a run without one is device 0 of one) by
    // runtime/device_steps.h.
    struct DeviceStep {
      const HloInstruction* instruction = nullptr;  // in `module`
      // all-reduce and reduce-scatter: each operand's combiner (its
      // computation's op natively, or the computation compiled and run
      // element by element).
      std::vector<ElementCombiner> combiners;
    };
    using Subprogram = std::variant<WhileLoop, Conditional, Sort, Scatter,
                                    SelectAndScatter, Infeed, Outfeed,
                                    DeviceStep>;
    struct Step {
      // Set for a subprogram's step (whose function is null): its buffers
      // are its operands' leaves, then the result's.
      std::shared_ptr<const Subprogram> subprogram;
      KernelFunction function;
      int64_t units;
      int64_t max_chunks;
      std::vector<BufferSlot> buffers;
      // Added to the buffers' addresses (KernelInfo::operand_offsets).
      std::vector<int64_t> operand_offsets;
      // A split reduction (KernelInfo::combine_symbol): its scratch buffer
      // at this arena offset (-1: none), and the kernel run after all units.
      // A native loop's temp is at scratch_offset too.
      int64_t scratch_offset = -1;
      KernelFunction combine = nullptr;
      // The fusion or op this step runs, in `module` (for profiles).
      const HloInstruction* instruction = nullptr;
    };
    std::shared_ptr<const HloModule> module;  // fused
    std::unique_ptr<JitKernels> kernels;
    BufferAssignment assignment;
    std::vector<Step> steps;
    // A run's arena: the assignment's temporaries, then the steps' scratch.
    int64_t arena_bytes = 0;
    CompileReport report;  // of the compile that made it
  };

  // The program of the compile pipeline's "link" stage
  // (driver/compile_pipeline.h): one step per fusion of `fused`, in the
  // assignment's order, running `kernels`' function for it, and one per
  // subprogram (IsSubprogramOp), which `compile_subprogram` makes.
  using SubprogramCompiler =
      std::function<absl::StatusOr<std::shared_ptr<const Program::Subprogram>>(
          const HloInstruction& instruction)>;
  static absl::StatusOr<std::shared_ptr<Program>> MakeProgram(
      std::shared_ptr<const HloModule> fused, BufferAssignment assignment,
      std::unique_ptr<JitKernels> kernels,
      const SubprogramCompiler& compile_subprogram);
  // InvalidArgument (ir/memory_budget.h) if a run of `fused` with buffers
  // `assignment` (its result plus the arena of temporaries) would exceed
  // `memory_limit_bytes`, naming the computation, the result shape and both
  // byte counts. The "assign-buffers" stage and compile-cache hits
  // (compile.h) check it.
  static absl::Status CheckMemoryLimit(const HloModule& fused,
                                       const BufferAssignment& assignment,
                                       int64_t memory_limit_bytes);
  explicit JitExecutable(std::shared_ptr<const Program> program);

  const JitKernels& kernels() const { return *program_->kernels; }
  const BufferAssignment& buffers() const { return program_->assignment; }
  const std::shared_ptr<const Program>& program() const { return program_; }

 protected:
  absl::StatusOr<Literal> DoRun(absl::Span<const Literal* const> arguments,
                                const RunContext& run) const override;
  absl::Status DoRunBuffers(absl::Span<const void* const> arguments,
                            absl::Span<void* const> results,
                            const RunContext& threads) const override;

 private:
  std::shared_ptr<const Program> program_;
  mutable RunScratchPool scratch_;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_JIT_EXECUTABLE_H_
