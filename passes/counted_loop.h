// A counted loop in HLO: `for (i = 0; i < trip_count; ++i) state =
// body(i, state)` as a while over the tuple (i, state...), for expansions
// that walk the rows or columns of a matrix.
#ifndef MXLA_PASSES_COUNTED_LOOP_H_
#define MXLA_PASSES_COUNTED_LOOP_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"

namespace mxla::expansion {

// `body` adds the next state's instructions to the loop body (`computation`)
// from `i` (an s64 scalar) and the current state, one instruction per
// element, and returns them, shapes unchanged.
using CountedLoopBody = absl::FunctionRef<std::vector<HloInstruction*>(
    HloComputation& computation, HloInstruction* i,
    const std::vector<HloInstruction*>& state)>;

// Adds the loop to `computation` (its condition and body are new
// computations of `module`, named after `name`) and returns the final
// state, element by element: `init` itself, with nothing built, when
// `trip_count` is 0.
std::vector<HloInstruction*> BuildCountedLoop(
    HloModule& module, HloComputation& computation, absl::string_view name,
    int64_t trip_count, const std::vector<HloInstruction*>& init,
    CountedLoopBody body);

}  // namespace mxla::expansion

#endif  // MXLA_PASSES_COUNTED_LOOP_H_
