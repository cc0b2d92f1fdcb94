// while-loop-simplifier: the cheap part of XLA's WhileLoopSimplifier (and
// of its WhileLoopConstantSinking), for loops whose state is a tuple that
// the condition and body read through get-tuple-element
// (while_loop::IsRewritable).
//
// * A loop whose trip count is known (while_loop::KnownTripCount) to be 0
//   becomes its init; one known to run once becomes its body applied to the
//   init. Both need a pure condition, the second also a pure body
//   (while_loop::IsPure).
// * A state element the body passes through unchanged (an invariant
//   element) whose init is a constant is read as that constant inside the
//   loop, and so is one whose init is an iota or a broadcast of a constant
//   when every op that reads it in the loop is fusible (it then fuses into
//   its readers instead of being carried: a loop step no longer pays for
//   it). Such elements, and invariant elements the loop reads nowhere else,
//   leave the state. The while's users read those from the init, which is
//   their value after any number of trips; but while the trip count is
//   unknown (the loop may never end), elements the users read stay, unless
//   they also read one that stays anyway, so that the loop never becomes
//   dead code that dce would delete.
// The rewritten loop gets a new condition and body (the old names plus
// ".simplified"); the old ones, and what the rewrite leaves unused, are
// left for dce.
#ifndef MXLA_PASSES_WHILE_LOOP_SIMPLIFIER_H_
#define MXLA_PASSES_WHILE_LOOP_SIMPLIFIER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class WhileLoopSimplifierPass : public HloPass {
 public:
  absl::string_view name() const override { return "while-loop-simplifier"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_WHILE_LOOP_SIMPLIFIER_H_
