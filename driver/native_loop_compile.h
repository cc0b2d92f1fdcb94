// The compile half of a native loop (runtime/native_loop.h): a while loop
// compiled whole ahead of time (driver/aot_compile.h), as the module
// `(state) -> while(state)` with every state leaf aliased to itself, and
// loaded for the runtime's NativeLoop to run in place.
#ifndef MXLA_DRIVER_NATIVE_LOOP_COMPILE_H_
#define MXLA_DRIVER_NATIVE_LOOP_COMPILE_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "driver/compile_options.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_module.h"
#include "runtime/native_loop.h"

namespace mxla {

// Loops whose condition and body hold more instructions (all they call
// included) run step by step.
inline constexpr int64_t kMaxNativeLoopInstructions = 2000;

// `loop` (a while, in a fused or input module) compiled with `options`'
// passes and codegen options, its computations taken from `input` when it
// has them by name (as the JIT's subprograms are). Null when the loop
// cannot run natively: an infeed or outfeed anywhere inside (the host feed
// is the runtime's), or anything else the ahead-of-time compile calls
// Unimplemented, or more than kMaxNativeLoopInstructions instructions.
// Other errors: the compile's.
absl::StatusOr<std::unique_ptr<NativeLoop>> CompileNativeLoop(
    const HloInstruction& loop, const HloModule* input,
    const CompileOptions& options);

}  // namespace mxla

#endif  // MXLA_DRIVER_NATIVE_LOOP_COMPILE_H_
