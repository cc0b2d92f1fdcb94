// Ahead-of-time compilation (`mxla compile FILE.hlo -o NAME`): a module
// compiled to a relocatable object file and a C header that declares it,
// for programs that link neither mxla nor LLVM (the object needs libc and
// libm only). The object holds the module's kernels, its constants and a
// driver (codegen/aot_module.h):
//
//   void NAME(const void* const* args, void* const* results, void* temp);
//   void NAME_parallel(..., mxla_aot_parallel_for parallel_for, void* pool);
//
// `args` holds one buffer per array leaf of the parameters and `results`
// one per array leaf of the result, in XLA's order (runtime/buffer_leaves.h),
// each aligned to its element size; `temp` is NAME_TEMP_BYTES of scratch,
// 64-byte aligned (NULL when that is 0). NAME runs on the calling thread;
// NAME_parallel splits large kernels through the caller's parallel_for. The
// header gives every buffer's shape and size as constants, and a typed
// wrapper NAME_run(const float* x, ..., float* out, void* temp) for modules
// without tuple parameters.
//
// input_output_alias is honoured as the JIT's RunBuffers does: an aliased
// result leaf is written into its argument leaf's buffer. Passing the same
// buffer as args[A] and results[R] donates the argument (updated in place,
// it then holds the result); passing another result buffer leaves the
// argument untouched (it is copied in first). The header lists each pair
// as NAME_RESULT<R>_ALIASES_ARG <A>.
//
// While loops, conditionals, sorts, scatters and select-and-scatters run
// in the driver, their called computations compiled on their own as the
// JIT's subprograms are, with their scratch in `temp`; a while body updates
// the loop state in place. Infeed and outfeed
// (the host feed is the runtime's) are Unimplemented ahead of time, naming
// the instruction.
#ifndef MXLA_DRIVER_AOT_COMPILE_H_
#define MXLA_DRIVER_AOT_COMPILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/aot_module.h"
#include "driver/compile_options.h"
#include "ir/hlo_module.h"

namespace mxla {

struct AotOptions {
  // NAME: a C identifier (letters, digits, '_'; not starting with a digit).
  std::string function;
  AotTarget target;     // default: the host
  // The passes and codegen options; backend, caches and dumps are unused.
  CompileOptions compile;
  // Named in the header's first comment (e.g. the HLO file).
  std::string source;
};

struct AotArtifacts {
  std::string object;  // NAME.o
  std::string header;  // NAME.h
};

// OK if `name` can name the function: a C identifier (letters, digits and
// '_', not starting with a digit) that is not a C or C++ keyword; else
// InvalidArgument saying so.
absl::Status CheckAotFunctionName(absl::string_view name);

// `name` made a C identifier: other characters become '_', and a leading
// digit (or nothing) gets a '_' in front. Keywords are left as they are.
std::string AotIdentifierFrom(absl::string_view name);

struct AotObject {
  std::string object;      // NAME.o
  int64_t temp_bytes = 0;  // NAME_TEMP_BYTES
};

// CompileAheadOfTime without the header: the object and the temp bytes a
// call needs (the JIT loads such an object to run a whole while loop
// natively: runtime/native_loop.h). Errors as CompileAheadOfTime's.
absl::StatusOr<AotObject> CompileAotObject(const HloModule& module,
                                           const AotOptions& options);

// Verifies and optimizes `module` as Compile() does, then compiles it
// ahead of time. Errors: Compile()'s, InvalidArgument for a bad function
// name or target, Unimplemented for an infeed or outfeed.
absl::StatusOr<AotArtifacts> CompileAheadOfTime(const HloModule& module,
                                                const AotOptions& options);

}  // namespace mxla

#endif  // MXLA_DRIVER_AOT_COMPILE_H_
