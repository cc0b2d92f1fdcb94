// Ahead-of-time compilation's backend half: a fused module's kernels and a
// driver that runs them, as one relocatable object file that needs neither
// LLVM nor mxla to link (libc and libm only). The runtime's half
// (driver/aot_compile.h) plans the driver (AotProgram) from the buffer
// assignment and writes the C header. LLVM-free.
//
// The driver has two entry points, for the C header to declare:
//
//   void F(const void* const* args, void* const* results, void* temp);
//   void F_parallel(const void* const* args, void* const* results,
//                   void* temp, mxla_aot_parallel_for parallel_for,
//                   void* pool);
//
// F runs every kernel on the calling thread. F_parallel hands each kernel
// that is worth splitting to `parallel_for(pool, kernel, buffers, units,
// max_chunks)`, which must call kernel(buffers, begin, end) on disjoint
// chunks covering [0, units) (at most max_chunks of them, on any threads)
// and return when all have run; a null parallel_for runs like F. Kernels
// are internal symbols, so several AOT objects link into one program.
//
// While loops, conditionals and sorts run in the driver: a called
// computation is an internal function of F_parallel's signature; a loop
// updates its state in place as the JIT does, a conditional switches on its index,
// a sort is a stable bottom-up merge sort of each row's index permutation
// by the comparator's function, then a gather of every operand, and
// scatter and select-and-scatter are loops over the update (source)
// elements that call the combiner (select and scatter) as
// semantics/scatter_elements.h (select_and_scatter.h) orders them. The
// object still needs libc and libm only.
#ifndef MXLA_CODEGEN_AOT_MODULE_H_
#define MXLA_CODEGEN_AOT_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"
#include "codegen/kernel_info.h"
#include "ir/hlo_module.h"
#include "ir/primitive_type.h"
#include "ir/scatter_dimension_numbers.h"
#include "ir/window.h"

namespace mxla {

// Where a driver finds one of a kernel's buffers.
struct AotBuffer {
  enum Kind { kArgument, kConstant, kTemp, kResult };
  Kind kind = kTemp;
  int64_t index = 0;   // kArgument, kResult: the table entry; kConstant
  int64_t offset = 0;  // kTemp: byte offset into `temp`
  bool operator==(const AotBuffer&) const = default;
};

struct AotControl;

// A kernel call, or (with `control`) a step the driver runs itself.
struct AotStep {
  std::string symbol;          // KernelInfo::symbol
  std::string combine_symbol;  // KernelInfo::combine_symbol, or empty
  int64_t units = 0;
  int64_t max_chunks = 1;      // > 1: F_parallel may split it
  // A kernel's buffers; a control step's operands' leaves, then its
  // result's.
  std::vector<AotBuffer> buffers;
  int64_t scratch_offset = -1;  // >= 0: a split reduction's temp scratch
  std::shared_ptr<const AotControl> control;
};

// A result leaf the kernels do not write in place, copied at the end.
struct AotCopy {
  int64_t result = 0;
  AotBuffer source;
  int64_t bytes = 0;
};

// An input_output_alias (runtime/buffer_assignment.h): result leaf
// `result` lives in argument leaf `argument`'s buffer. The driver first
// copies the argument into results[result] unless the caller passed that
// same buffer for both (donated it), then reads and writes the argument
// there.
struct AotAlias {
  int64_t argument = 0;
  int64_t result = 0;
  int64_t bytes = 0;
};

// One computation's driver: F (the entry's, external) or an internal
// function of the same signature for a called computation, whose `temp` is
// a region of its caller's.
struct AotProgram {
  std::string function;  // F, a C identifier; internal: any symbol name
  std::vector<AotStep> steps;
  std::vector<std::string> constants;  // each constant's bytes, by index
  std::vector<AotCopy> copies;
  std::vector<AotAlias> aliases;
  // Copies before the first step (after the aliases'): an aliased
  // argument the steps overwrite that a result still returns, set aside.
  struct CopyBefore {
    AotBuffer from, to;
    int64_t bytes = 0;
  };
  std::vector<CopyBefore> copies_before;
};

// A step the driver runs itself, on the same buffers as the JIT's
// (runtime/jit_executable.h), with its own scratch in the caller's temp at
// `temp_offset` (64-byte aligned) and its computations' temp after it at
// `computation_temp_offset`.
struct AotControl {
  enum Kind { kWhile, kConditional, kSort, kScatter, kSelectAndScatter };
  Kind kind = kWhile;
  std::string name;  // the instruction's
  // while: condition, body; conditional: the branches; sort: the
  // comparator; scatter: the combiner; select-and-scatter: select, then
  // scatter.
  std::vector<AotProgram> computations;
  // The result's leaves' bytes, depth-first.
  std::vector<int64_t> leaf_bytes;
  // conditional: how many leaves each operand has, the index first, and
  // whether the index is a pred (true runs branch 0) or an s32 (out of
  // range runs the last branch).
  std::vector<int64_t> operand_leaves;
  bool pred_index = false;
  // sort: the operands' dimensions, the sorted one, each operand's element
  // size.
  std::vector<int64_t> dims;
  int64_t dimension = 0;
  std::vector<int64_t> element_bytes;
  // scatter (semantics/scatter_elements.h): `dims` are the operands', then
  // the indices' and updates' dimensions, the indices' type and the
  // dimension numbers; element_bytes holds the operands' then the updates'
  // element sizes.
  std::vector<int64_t> indices_dims, update_dims;
  PrimitiveType indices_type = S32;
  ScatterDimensionNumbers scatter_dnums;
  // select-and-scatter (semantics/select_and_scatter.h): `dims` are the
  // operand's, `window` its window; element_bytes holds the operand's,
  // source's and result's element sizes.
  Window window;
  // while: the body's results alias its parameter (AotProgram::aliases), so
  // it updates the state in place; else it writes a next state in temp,
  // copied back after each trip.
  bool body_in_place = false;
  int64_t temp_offset = 0;
  int64_t computation_temp_offset = 0;
};

// The bytes of a control step's own scratch at its temp_offset: a while
// loop's next state and flag, a sort's two permutations and flag, the
// scalars a combiner or select writes (the driver's layout,
// aot_driver.cc).
int64_t AotControlScratchBytes(const AotControl& control);

// The CPU and features to compile for; empty: the host's (see
// codegen::CreateAotTargetMachine).
struct AotTarget {
  std::string cpu;
  std::string features;
};

class AotModule {
 public:
  // An empty LLVM module named `name` for `target`. Errors: an invalid
  // target (InvalidArgument).
  static absl::StatusOr<std::unique_ptr<AotModule>> Create(
      const std::string& name, const CodegenOptions& options,
      const AotTarget& target);
  ~AotModule();

  // Emits one kernel per distinct fusion of `fused` (as the JIT would),
  // each named `prefix` + the fusion's name; returns one KernelInfo per
  // fusion, in the entry's post order (as KernelIr::kernels). Prefixes of
  // different calls must differ. Errors: KernelIr::Emit's.
  absl::StatusOr<std::vector<KernelInfo>> AddKernels(
      const HloModule& fused, const std::string& prefix);
  // "<triple>, cpu <name>".
  std::string TargetDescription() const;

  // Adds `program`'s driver (and its computations' internal drivers),
  // makes the kernels internal, optimizes and returns the object file. Run
  // it once.
  absl::StatusOr<std::string> Finish(const AotProgram& program);

 private:
  struct Llvm;
  explicit AotModule(std::unique_ptr<Llvm> llvm);
  std::unique_ptr<Llvm> llvm_;
};

}  // namespace mxla

#endif  // MXLA_CODEGEN_AOT_MODULE_H_
