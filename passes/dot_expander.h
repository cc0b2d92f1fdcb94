// expand-dots: dots as reductions. Each dot becomes the
// reduction it computes: the operands transposed to (batch, free,
// contracting) order and broadcast to (batch, lhs free, rhs free,
// contracting), multiplied, and summed over the contracting dimensions from
// 0. The fusion passes then fuse it all into one reduction kernel that
// never materializes the products. Its order and rounding are the
// interpreter's (interpreter/hlo_evaluator_dot.cc): bit-identical unless
// reductions are reassociated. f16 and bf16 dots are computed in f32 and
// converted back. Any HLO form; the result is lowered.
//
// The JIT constructs it with keep_matrix_products when float reductions
// may be reordered (CodegenOptions::reassociate_reductions): an entry dot
// whose operands and result are all f32 or all f64 then stays a dot, for
// the fusion pass to make its own kernel (codegen/gemm_emitter.h), which
// rounds with fused multiply-adds. One of f16, bf16 and f32 operands and
// result, not all f32, becomes such an f32 dot of converted operands (the
// kernel converts them as it packs) whose result is converted back once,
// as XLA:CPU computes them.
#ifndef MXLA_PASSES_DOT_EXPANDER_H_
#define MXLA_PASSES_DOT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class DotExpanderPass : public HloPass {
 public:
  explicit DotExpanderPass(bool keep_matrix_products = false)
      : keep_matrix_products_(keep_matrix_products) {}
  absl::string_view name() const override { return "expand-dots"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

  // Whether the JIT's matrix-product kernel computes `dot`: all f32 or all
  // f64.
  static bool IsMatrixProduct(const HloInstruction& dot);

 private:
  bool keep_matrix_products_;
};

}  // namespace mxla

#endif  // MXLA_PASSES_DOT_EXPANDER_H_
