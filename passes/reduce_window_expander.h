// expand-reduce-windows: the JIT's reduce-window. Each reduce-window
// becomes a reduce over the window taps of its inputs' window patches
// (passes/window_patches.h: pad with the init value, gather, strided slice;
// index maps that fuse into the reduction kernel, with no patch buffer).
// Taps in padding or holes of the dilated base are skipped, as the
// interpreter does, whatever the reducer: the reduce then also carries a
// pred mask of real taps and a reducer that keeps the accumulator where
// the mask is false. The taps are combined in the interpreter's row-major
// order, so the two agree bit for bit.
//
// A reduce-window of one input whose reducer is one elementwise op (add,
// multiply, maximum, minimum, and, or) over at most 32 taps, a pooling,
// becomes that fold written out instead: init, then the op with each tap's
// strided slice of the padded base, in the same order (so the same bits),
// masked where a tap lands in padding or a hole. That is elementwise work,
// one loop kernel vectorized along the contiguous dimension.
#ifndef MXLA_PASSES_REDUCE_WINDOW_EXPANDER_H_
#define MXLA_PASSES_REDUCE_WINDOW_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class ReduceWindowExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-reduce-windows"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_REDUCE_WINDOW_EXPANDER_H_
