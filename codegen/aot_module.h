// Ahead-of-time compilation's backend half: a fused module's kernels and a
// driver that runs them, as one relocatable object file that needs neither
// LLVM nor mxla to link (libc and libm only). The runtime's half
// (runtime/aot_compile.h) plans the driver (AotProgram) from the buffer
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

namespace mxla {

// Where a driver finds one of a kernel's buffers.
struct AotBuffer {
  enum Kind { kArgument, kConstant, kTemp, kResult };
  Kind kind = kTemp;
  int64_t index = 0;   // kArgument, kResult: the table entry; kConstant
  int64_t offset = 0;  // kTemp: byte offset into `temp`
};

struct AotStep {
  std::string symbol;          // KernelInfo::symbol
  std::string combine_symbol;  // KernelInfo::combine_symbol, or empty
  int64_t units = 0;
  int64_t max_chunks = 1;      // > 1: F_parallel may split it
  std::vector<AotBuffer> buffers;
  int64_t scratch_offset = -1;  // >= 0: a split reduction's temp scratch
};

// A result leaf the kernels do not write in place, copied at the end.
struct AotCopy {
  int64_t result = 0;
  AotBuffer source;
  int64_t bytes = 0;
};

struct AotProgram {
  std::string function;  // F, a C identifier
  std::vector<AotStep> steps;
  std::vector<std::string> constants;  // each constant's bytes, by index
  std::vector<AotCopy> copies;
};

// The CPU and features to compile for; empty: the host's (see
// codegen::CreateAotTargetMachine).
struct AotTarget {
  std::string cpu;
  std::string features;
};

class AotModule {
 public:
  // Emits one kernel per distinct fusion of `fused` (as the JIT would) into
  // one LLVM module for `target`. Errors: KernelIr::Emit's, and an invalid
  // target (InvalidArgument).
  static absl::StatusOr<std::unique_ptr<AotModule>> Emit(
      const HloModule& fused, const CodegenOptions& options,
      const AotTarget& target);
  ~AotModule();

  // One per fusion, in the entry's post order (as KernelIr::kernels).
  const std::vector<KernelInfo>& kernels() const;
  // "<triple>, cpu <name>".
  std::string TargetDescription() const;

  // Adds `program`'s driver, makes the kernels internal, optimizes and
  // returns the object file. Run it once.
  absl::StatusOr<std::string> Finish(const AotProgram& program);

 private:
  struct Llvm;
  explicit AotModule(std::unique_ptr<Llvm> llvm);
  std::unique_ptr<Llvm> llvm_;
};

}  // namespace mxla

#endif  // MXLA_CODEGEN_AOT_MODULE_H_
