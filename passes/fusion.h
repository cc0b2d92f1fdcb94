// fusion: groups the entry computation into fusion instructions, one per
// value that must be materialized, in the spirit of XLA's CPU instruction
// fusion. Codegen then emits one loop nest per fusion.
//
// Before: lowered HLO (no broadcast_dimensions in any computation;
// FailedPrecondition names the first offender otherwise, and the module is
// left untouched).
// After: the entry holds only parameters, constants, fusions, tuples and
// get-tuple-elements (a scalar constant stays only where a tuple,
// get-tuple-element, existing fusion or the root reads it directly); the
// module is in the fused form (HloForm::kFused) and verifies in it,
// round-trips through text, and evaluates
// to the same bits. Run returns whether it changed the module (dead entry
// instructions are swept first); a second run returns false.
//
// Rules:
//   * fusible: elementwise ops, select, convert, broadcast, reshape,
//     transpose, iota, scalar constants, and reduce (as a fusion root only);
//   * an instruction is materialized (the root of its own fusion) if it is
//     the entry root, a reduce, used by a tuple, get-tuple-element or an
//     existing fusion, a dynamic-update-slice that another updates (so
//     each of a chain updates in place), or "expensive" (exponential, log,
//     tanh, logistic, power, divide, remainder, sqrt, rsqrt) with several
//     users;
//   * as in XLA, a value that is more than unary is not duplicated: one
//     whose users lead to two or more fusions is materialized if its fused
//     computation reads two or more arrays at least its size (a + b, a
//     residual stream x + f(x)) or more than a few values, or computes an
//     expensive op at its size, so that consumers do not redo that work,
//     and a chain of them (every layer's x = x + f(x)) does not make each
//     layer's kernels redo every earlier layer;
//   * as in XLA, an expensive value is never fused into a consumer that
//     reuses its elements: if a path from it through fused users to its
//     fusion's root crosses a broadcast that grows (passes/operand_reuse.h),
//     it is materialized, so multiply(x[512,1024], broadcast(exp(v[1024])))
//     computes 1024 exps, not 512 x 1024;
//   * every other fusible instruction is fused into each fusion that reaches
//     it: cheap ones (broadcasts, reshapes, adds, compares, ...) are
//     duplicated into several consumers rather than written to memory;
//   * a value whose fusion would exceed kMaxFusedInstructions (counting a
//     shared operand once per path) is materialized too, so kernels stay
//     small enough for LLVM to compile in time linear in the graph;
//   * a dot (one expand-dots kept for the JIT's matrix-product kernel)
//     takes its cheap producers (a convert, a scale, a broadcast, a
//     transpose) into its kernel, which generates them while packing (an
//     expensive one is materialized: packing reads an element once per
//     block of the other operand; so is a slice that a convolution reads
//     as its kernel), and joins the
//     fusion of its consumers as an epilogue where everything that reads
//     it, directly or not, is an elementwise op of its dimensions up to one
//     root, it is the only such dot there, and k is at most
//     kMaxEpilogueDotK (a convolution product's: as many steps as 64
//     features' weights fit kMaxConvSliceBytes, if more); otherwise it
//     roots a fusion of its own. Fusions
//     with a dot are kOutput;
//   * a fusion rooted at a reduce is kInput, every other kLoop; its operands
//     are the non-fusible or materialized values it reads, once each, in the
//     order the fused instructions (in post order) first read them;
//   * reducer computations and existing fusions are left alone.
// Iterative (no recursion); time is linear in the total size of the fused
// computations (a cheap value duplicated into k fusions counts k times).
#ifndef MXLA_PASSES_FUSION_H_
#define MXLA_PASSES_FUSION_H_

#include <cstdint>

#include "passes/hlo_pass.h"

namespace mxla {

// Past this many instructions a fused value is materialized (see Rules).
// Real kernels (softmax, layer norm) are far smaller.
inline constexpr int64_t kMaxFusedInstructions = 500;

class FusionPass : public HloPass {
 public:
  absl::string_view name() const override { return "fusion"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_FUSION_H_
