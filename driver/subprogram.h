// The JIT's subprograms (runtime/jit_executable.h, Program::Subprogram): a
// while loop, conditional, sort, scatter, select-and-scatter, infeed or
// outfeed of a fused module made into the alternative the runtime runs,
// its called computations compiled on their own with the compile's
// options. The compiles go through the callbacks the driver's top
// (driver/compile.cc) passes down, so nothing under it calls Compile()
// again. The ahead-of-time driver (driver/aot_compile.h) takes the
// computations' modules from here too.
#ifndef MXLA_DRIVER_SUBPROGRAM_H_
#define MXLA_DRIVER_SUBPROGRAM_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/compile_options.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_module.h"
#include "runtime/executable.h"
#include "runtime/jit_executable.h"
#include "runtime/native_loop.h"

namespace mxla {

// How a subprogram's computations are compiled: what Compile() passes down
// the compile pipeline.
struct SubprogramCompilers {
  // A module on its own, as Compile() compiles it (through its caches).
  std::function<absl::StatusOr<std::shared_ptr<const Executable>>(
      const HloModule& module, const CompileOptions& options)>
      computation;
  // A while loop as one native function, or null when it cannot run
  // natively (driver/native_loop_compile.h).
  std::function<absl::StatusOr<std::unique_ptr<NativeLoop>>(
      const HloInstruction& loop, const HloModule* input,
      const CompileOptions& options)>
      native_loop;
};

// `instruction` (IsSubprogramOp, in a fused module) as the runtime runs it.
// Its computations are taken from `input`, the module the compile was
// given, when it has one of that name (the passes have not rewritten it),
// and compiled with `options` without dumps. Errors: the compilers'.
absl::StatusOr<std::shared_ptr<const JitExecutable::Program::Subprogram>>
MakeSubprogram(const HloInstruction& instruction, const HloModule* input,
               const CompileOptions& options,
               const SubprogramCompilers& compilers);

// `computation`, called by `instruction`, as a module of its own named
// "<module>.<computation>": a copy of `input`'s computation of that name
// when there is one, else of `computation`. A while body's state is
// aliased to itself (LoopStateAliases), so that it updates the state in
// place.
std::unique_ptr<HloModule> CalledComputationModule(
    const HloInstruction& instruction, const HloComputation& computation,
    const HloModule* input);

// Every array leaf of a loop state of shape `state` aliased to itself
// (must_alias): what a while body's module gets, so that it updates the
// state in place (the JIT's subprograms and the AOT driver alike).
std::vector<HloInputOutputAlias> LoopStateAliases(const Shape& state);

}  // namespace mxla

#endif  // MXLA_DRIVER_SUBPROGRAM_H_
