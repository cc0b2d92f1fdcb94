// Compile(): runs the compile pipeline (driver/compile_pipeline.h, the one
// list of stages and of what differs between the backends) on a copy of a
// module and returns an Executable for the chosen backend. The top of the
// driver: the pipeline, the caches and the ahead-of-time compiler below it
// never call Compile() back; what they need of it, it passes down.
//
// Backends:
//   jit          (default) the HLO fused and planned, then one LLVM kernel
//                per fusion as its plan says (runtime/jit_executable.h);
//   interpreter  the reference evaluator (interpreter/hlo_evaluator.h) on the
//                optimized module: the oracle.
#ifndef MXLA_DRIVER_COMPILE_H_
#define MXLA_DRIVER_COMPILE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/compile_options.h"
#include "ir/hlo_module.h"
#include "runtime/executable.h"

namespace mxla {

// Verifies `module` (builder form allowed), optimizes a copy, compiles it.
// Invalid modules are InvalidArgument; the input is never modified, and the
// returned executable (owned by the caller) does not refer to it. For the
// jit, an identical earlier compile is served from the compile cache
// (concurrent identical compiles run once, the others wait for it), and a
// program whose run (result plus temporaries) exceeds the memory limit is
// InvalidArgument (options.memory_limit_bytes) whether it was compiled or
// cached.
// Other errors: an unknown pass name (InvalidArgument), a pass failure (see
// PassPipeline::Run), FailedPrecondition when disabled passes leave the jit
// HLO that is not lowered or not fused, Unimplemented for HLO the jit cannot
// compile (an op inside a fusion that codegen cannot emit), InvalidArgument for unwritable dumps.
// Thread-safe: compiles may run concurrently (give them distinct dump
// directories).
absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const HloModule& module, const CompileOptions& options = {});

// Verifies `module` (builder mode) and returns the module the HLO passes
// make of it for `options` (the compile pipeline's stages through
// "hlo-passes"), owned by the caller; dumps like Compile when
// DumpDirectory(options) is set. Never uses the compile cache.
absl::StatusOr<std::unique_ptr<HloModule>> OptimizeForBackend(
    const HloModule& module, const CompileOptions& options);

// The compilers Compile() passes down the compile pipeline for subprograms
// (driver/subprogram.h): each computation through Compile() and its
// caches, a while loop natively through the ahead-of-time compiler
// (driver/native_loop_compile.h). For the pipeline's other callers (tests,
// `mxla opt`) that compile as Compile() does.
struct SubprogramCompilers;
const SubprogramCompilers& DefaultSubprogramCompilers();

}  // namespace mxla

#endif  // MXLA_DRIVER_COMPILE_H_
