// Helpers the while-loop passes share (while-loop-invariant-code-motion,
// while-loop-simplifier): which instructions may move, a loop's trip count
// when its induction variable is plain, and rebuilding a loop over a
// different state tuple.
//
// A while's called computations are {condition, body}; both take the state
// tuple as their one parameter and the body returns the next state.
#ifndef MXLA_PASSES_WHILE_LOOP_UTIL_H_
#define MXLA_PASSES_WHILE_LOOP_UTIL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/hlo_clone.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"

namespace mxla::while_loop {

HloComputation* Condition(const HloInstruction& loop);
HloComputation* Body(const HloInstruction& loop);

// False for ops that have effects or whose value may differ between two
// runs on the same operands: parameters, rng, infeed/outfeed, send/recv,
// collectives and their asynchronous halves, tokens, custom-calls (mxla
// does not keep custom_call_has_side_effect, so every one counts), and any
// op calling a computation that holds one of these.
bool IsPure(const HloInstruction& instruction);
// Every instruction of `computation` (and of what it calls) is pure, or a
// parameter.
bool IsPureComputation(const HloComputation& computation);

// Whether the loop has the shape the passes rewrite: a tuple state, a
// well-formed while, and a condition and body that read their parameter
// only through get-tuple-element, the body returning a tuple instruction.
bool IsRewritable(const HloInstruction& loop);

// The number of times the body runs, when the loop counts plainly: the
// condition's root compares get-tuple-element(state, k) with a constant,
// the body's element k is that element plus (or minus) a constant, and the
// init's element k is a constant, all of one integer type (wrapping as the
// type does). nullopt for any other loop or more than `limit` trips.
std::optional<int64_t> KnownTripCount(const HloInstruction& loop,
                                      int64_t limit);

// The indices i whose element the body returns unchanged: the root's
// operand i is get-tuple-element(parameter, i).
std::vector<bool> InvariantElements(const HloComputation& body);

// The value of element `index` of the loop's init, in the loop's
// computation: the init tuple's operand, or a new get-tuple-element.
HloInstruction* InitElement(HloInstruction* loop, int64_t index);

// A copy of loop computation `from` (condition or body) as a new
// computation of its module named after it with `suffix`, whose parameter
// has shape `state`; `old_to_new[i]` is the index element i of the old
// state has in `state` (-1: gone; nothing copied may read it). Instructions
// in `replacements` are not copied: their users read the value its
// function builds in the new computation from the new parameter (with
// indices of `state`). The copy's root is what `make_root` returns, given
// the copy so far (null: the copy of `from`'s root); then instructions the
// root does not reach are deleted. `clones` maps old instructions to their
// copies. Internal error if a kept instruction reads a gone element.
struct LoopCopy {
  HloComputation* computation = nullptr;
  HloInstruction* parameter = nullptr;
  InstructionCloneMap clones;
};
using Replacement = std::function<HloInstruction*(HloComputation&,
                                                  HloInstruction* parameter)>;
absl::StatusOr<LoopCopy> CopyLoopComputation(
    const HloComputation& from, absl::string_view suffix, const Shape& state,
    absl::Span<const int64_t> old_to_new,
    absl::Span<const std::pair<const HloInstruction*, Replacement>>
        replacements = {},
    const std::function<HloInstruction*(LoopCopy&)>& make_root = nullptr);

// Replaces `loop` by a while over `init` with `condition` and `body`; the
// old loop's users read `result(new_loop)` (which must have the old shape;
// when it is a tuple instruction, the old loop's get-tuple-elements read
// its operands instead), and the old loop is removed. Returns the new loop.
absl::StatusOr<HloInstruction*> ReplaceLoop(
    HloInstruction* loop, HloInstruction* init, HloComputation* condition,
    HloComputation* body,
    const std::function<HloInstruction*(HloInstruction*)>& result);

}  // namespace mxla::while_loop

#endif  // MXLA_PASSES_WHILE_LOOP_UTIL_H_
