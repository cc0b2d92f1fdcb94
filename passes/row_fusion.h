// row-fusion: merges a fusion into its only consumer when the merged body is
// a row fusion (passes/row_fusion_analysis.h): reductions over the trailing
// dimensions whose results feed elementwise work on the same rows, as in
// softmax or layer normalization. Codegen then runs the whole chain in one
// pass per row, so each row is read from memory once and no intermediate
// array is written.
//
// Before: a fused module (passes/fusion.h); builder-form HLO (implicit
// broadcasts) is FailedPrecondition, naming the instruction. After: the same, with some
// fusions merged into kInput fusions whose bodies hold several reduces; the
// module verifies, round-trips and evaluates to the same bits. A producer is
// merged only if every user of it is the consumer, and not if the consumer
// reuses its elements while its body has an expensive op that the row
// kernel would recompute at each read: one that neither depends on a
// reduce (computed once per row) nor feeds only a reduce's inputs (the
// fusion pass's rule, passes/fusion.h). Iterative; a second run
// changes nothing.
#ifndef MXLA_PASSES_ROW_FUSION_H_
#define MXLA_PASSES_ROW_FUSION_H_

#include "passes/hlo_pass.h"

namespace mxla {

class RowFusionPass : public HloPass {
 public:
  absl::string_view name() const override { return "row-fusion"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_ROW_FUSION_H_
