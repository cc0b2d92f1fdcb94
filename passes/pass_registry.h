// The one table from pass names to passes, for pass lists given by name
// (`mxla opt --passes=...`, CompileOptions::passes), and the two lists a
// compile runs: the default passes and the JIT's, put together by
// CreateCompilePasses (the compile pipeline's "hlo-passes" stage:
// driver/compile_pipeline.h).
#ifndef MXLA_PASSES_PASS_REGISTRY_H_
#define MXLA_PASSES_PASS_REGISTRY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/fusion_plan_options.h"
#include "passes/pass_pipeline.h"

namespace mxla {

// Every registered pass name, in the registry's order (not the order a
// compile runs them: that is the compile pipeline's). docs/passes.md lists
// them, checked against this by tests/docs/passes_doc_test.cc.
std::vector<std::string> AvailablePassNames();
// What the passes that have options take from the compile, so a pass made
// by name behaves as the one the compile's own list makes.
struct PassOptions {
  // fusion-planning and inline-unplannable-fusions.
  FusionPlanningOptions fusion_planning;
  // expand-dots and expand-convolutions leave the products the dot kernel
  // computes (CodegenOptions::reassociate_reductions).
  bool keep_matrix_products = false;
};

// A new pass; an unknown name is InvalidArgument listing the known ones.
absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(
    absl::string_view name, const PassOptions& options = {});

// The named passes, each run once, in the given order; an unknown name is
// CreatePass's InvalidArgument.
absl::StatusOr<std::unique_ptr<PassPipeline>> CreatePipeline(
    absl::Span<const std::string> pass_names, PipelineOptions options,
    const PassOptions& pass_options = {});

// The default pass list of every backend, for a compile whose options name
// no passes: rng expansion (first: rng's numbers come from its name, which
// inlining may change), inlining, broadcast lowering, then simplify, cse,
// dce and the loop passes to a fixed point, as in XLA's simplification
// pipeline (hoisted work simplifies outside, and simplified bodies may have
// more to hoist).
void AddDefaultPasses(PassPipeline& pipeline);

// What the JIT needs of its input after the default or the user's passes,
// in order: expansions of what codegen does not emit, inlining, lowering,
// fusion and planning. Each does nothing when its work is already done
// (planning keeps the plans a parsed fused module brings).
const std::vector<std::string>& JitPassNames();

// The HLO passes of a compile: the named passes (CompileOptions::passes)
// after expand-rngs, or the default list when there are none; then, for
// the JIT, JitPassNames(). An unknown name is CreatePass's InvalidArgument.
absl::StatusOr<std::unique_ptr<PassPipeline>> CreateCompilePasses(
    const std::optional<std::vector<std::string>>& pass_names, bool for_jit,
    PipelineOptions options, const PassOptions& pass_options);

}  // namespace mxla

#endif  // MXLA_PASSES_PASS_REGISTRY_H_
