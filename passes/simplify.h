// simplify: an algebraic simplifier written as a table of small rules, each
// a match/replace function on one instruction (simplify_rules.cc). One sweep
// applies the first matching rule to each instruction in post order; run it
// in a fixed-point group with cse and dce.
//
// Rules (all exact: results stay bitwise identical):
//   reshape(reshape(x))              -> reshape(x)
//   reshape(x) / broadcast(x) / transpose(x) / convert(x) that change nothing
//                                    -> x
//   broadcast(broadcast(x))          -> one broadcast (dimensions composed)
//   transpose(transpose(x))          -> one transpose (permutations composed)
//   dot(transpose(a), transpose(b))  -> dot(a, b), the transposes folded into
//                                       the dimension numbers where the
//                                       operand's free dimensions keep order
//   reshape(broadcast(scalar))       -> broadcast(scalar)
//   pad(x, v) with no padding, slice(x) of all of x, concatenate(x),
//   custom-call(x) of an identity target -> x
//   slice(slice(x))                  -> one slice (starts and strides composed)
//   x + 0 for integers and pred, x + (-0.0) and x - (+0.0) for floats,
//   x * 1, x / 1                     -> x (when x already has the result shape)
//   an op whose operands are all constants, with at most
//   kMaxFoldedElements result elements (broadcast and iota excepted: folding
//   them would only materialize data) -> a constant, via the evaluator
#ifndef MXLA_PASSES_SIMPLIFY_H_
#define MXLA_PASSES_SIMPLIFY_H_

#include <cstdint>

#include "passes/hlo_pass.h"

namespace mxla {

class SimplifyPass : public HloPass {
 public:
  static constexpr int64_t kMaxFoldedElements = 1024;
  absl::string_view name() const override { return "simplify"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_SIMPLIFY_H_
