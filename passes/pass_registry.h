// The one table from pass names to passes, and the default pipeline:
//
//   lower-broadcasts
//   simplify, cse, dce      (repeated until nothing changes)
//
// `fusion`, `row-fusion` and `fusion-planning` (with default options) are
// registered but not in the default pipeline: the jit backend runs them
// last (runtime/compile.h).
#ifndef MXLA_PASSES_PASS_REGISTRY_H_
#define MXLA_PASSES_PASS_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "passes/pass_pipeline.h"

namespace mxla {

// Every pass name: the default pipeline's, in order, then fusion,
// row-fusion and fusion-planning.
std::vector<std::string> AvailablePassNames();
// A new pass; an unknown name is InvalidArgument listing the known ones.
absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(absl::string_view name);

// lower-broadcasts, then the fixed-point group "simplify-cse-dce".
std::unique_ptr<PassPipeline> CreateDefaultPipeline(PipelineOptions options);
// The named passes, each run once, in the given order; an unknown name is
// CreatePass's InvalidArgument.
absl::StatusOr<std::unique_ptr<PassPipeline>> CreatePipeline(
    absl::Span<const std::string> pass_names, PipelineOptions options);

}  // namespace mxla

#endif  // MXLA_PASSES_PASS_REGISTRY_H_
