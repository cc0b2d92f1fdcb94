// fusion-planning: decides how codegen emits each fusion of the entry and
// records it on the fusion as its FusionPlan (ir/fusion_plan.h), so that
// codegen only maps the plan and never looks outside a fusion. Runs after
// fusion and row-fusion; the jit's compile pipeline runs it last
// (driver/compile_pipeline.h), with its CodegenOptions.
//
// The decisions, from the cost model in passes/fusion_cost_model.h:
//   * a dot fusion is a dot plan (PlanDot): alone, with an epilogue, or a
//     row dot with its row plan, units of whole rows within
//     kRowDotBlockBytes;
//   * a body that passes/row_fusion_analysis.h accepts is a row plan: its
//     rows and columns, and the expensive values several loops read kept in
//     row buffers within kRowBufferBudgetBytes;
//   * a reduce root is a reduction plan (PlanReduction);
//   * anything else is a loop plan: a scalar result, or a kernel moving
//     less than 2 * kMinBytesPerChunk, is one unit with static bounds;
//   * loop and row results, and the epilogues of dots, of at least
//     streaming_store_min_bytes (not
//     pred) that are entry results (the root, or read only by the root
//     tuple), computed by a body of at most kMaxStreamingBodyInstructions,
//     are written with streaming stores (full-row roots only).
//
// Before: a fused module (passes/fusion.h). After: every fusion of the
// entry has a plan that passes the verifier. A fusion that already has one
// keeps it once it is checked: CheckFusionPlan, a row plan's structure and
// buffered values against the analysis, a split reduction against
// MaySplitReducedRange (InvalidArgument naming the fusion otherwise). A
// fusion no plan fits (a tuple result without a reduce root, a reduce that
// is neither the root nor in a row structure) is Unimplemented naming it.
// Run returns whether it added a plan; a second run returns false.
#ifndef MXLA_PASSES_FUSION_PLANNING_H_
#define MXLA_PASSES_FUSION_PLANNING_H_

#include <cstdint>

#include "ir/fusion_plan.h"
#include "ir/fusion_plan_options.h"
#include "passes/hlo_pass.h"

namespace mxla {

class FusionPlanningPass : public HloPass {
 public:
  explicit FusionPlanningPass(FusionPlanningOptions options = {})
      : options_(options) {}
  absl::string_view name() const override { return "fusion-planning"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  FusionPlanningOptions options_;
};

// The plan for `fusion` (an entry fusion), as Run records it.
absl::StatusOr<FusionPlan> PlanFusion(const HloInstruction& fusion,
                                      const FusionPlanningOptions& options);

// Whether `fused` is a row fusion (passes/row_fusion_analysis.h) with a
// row dot (ir/fusion_plan.h, RowDot) whose columns are all of the dot's
// rhs-free dimensions, and whose units can be whole rows: kMinRowDotRows
// (or all, if fewer) rows of the dot within kMaxRowDotBlockBytes, and more
// than one unit unless the product is small (kMinLoneRowDotWork).
bool RowDotFits(const HloComputation& fused);

// Whether the reduced range of `reduce` may be split into partial results
// combined later: one input, and a plain integer or boolean
// add/multiply/max/min/and/or reducer, a float max/min one, or a float
// add one (not f16/bf16) with reassociate_reductions.
bool MaySplitReducedRange(const HloInstruction& reduce,
                          const FusionPlanningOptions& options);

// How a reduce kernel is cut into units: a reduce that keeps the last
// dimension in blocks of kColumnBlockBytes of each output row; one to fewer
// than kMinOutputsToSplit outputs, with at least two chunks of
// kPartialChunkElements to reduce and MaySplitReducedRange, in chunks with
// partial results; any other, one output element per unit.
ReductionPlan PlanReduction(const HloInstruction& reduce,
                            const FusionPlanningOptions& options);

}  // namespace mxla

#endif  // MXLA_PASSES_FUSION_PLANNING_H_
