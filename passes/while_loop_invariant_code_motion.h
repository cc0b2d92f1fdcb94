// while-loop-invariant-code-motion: moves work a while body repeats on
// every iteration with the same result out of the loop, as XLA's pass of
// that name does.
//
// Before: any verified module. After: in each while whose state is a tuple
// (and whose condition and body read it only through get-tuple-element),
// every pure instruction of the body whose operands are loop-invariant is
// computed once before the loop. Loop-invariant values are constants, the
// state elements the body returns unchanged (its root's operand i is
// get-tuple-element(parameter, i)), and instructions computed only from
// these. Values the remaining body still reads become new state elements,
// appended after the old ones, that the new body passes through; the
// condition reads the same elements as before. The while's users see its
// old elements, through a tuple of get-tuple-elements of the new while.
//
// Not moved:
// * side effects and values that may differ between runs (rng, infeed,
//   outfeed, send/recv, collectives, custom-calls, tokens: see
//   while_loop::IsPure), nor anything computed from them;
// * cheap instructions that only grow the loop state (XLA's
//   NotWorthHoistingIndividually: constant, reshape, bitcast, broadcast,
//   iota, reverse, slice, transpose, tuple) unless hoisted work reads them,
//   and then they are copied along;
// * anything from a loop known to run at most once.
// The new condition and body are new computations (the old name plus
// ".licm"); the old ones are left for dce, as are instructions the rewrite
// leaves unused.
#ifndef MXLA_PASSES_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
#define MXLA_PASSES_WHILE_LOOP_INVARIANT_CODE_MOTION_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class WhileLoopInvariantCodeMotionPass : public HloPass {
 public:
  absl::string_view name() const override {
    return "while-loop-invariant-code-motion";
  }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
