// The one table from pass names to passes, for pass lists given by name
// (`mxla opt --passes=...`, CompileOptions::passes). Which passes a compile
// runs, and in what order, is the compile pipeline's one list
// (runtime/compile_pipeline.h).
#ifndef MXLA_PASSES_PASS_REGISTRY_H_
#define MXLA_PASSES_PASS_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "passes/pass_pipeline.h"

namespace mxla {

// Every registered pass name, in the registry's order (not the order a
// compile runs them: that is the compile pipeline's). docs/passes.md lists
// them, checked against this by tests/docs/passes_doc_test.cc.
std::vector<std::string> AvailablePassNames();
// A new pass with its default options (the compile pipeline gives some
// passes the compile's options instead); an unknown name is
// InvalidArgument listing the known ones.
absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(absl::string_view name);

// The named passes, each run once, in the given order; an unknown name is
// CreatePass's InvalidArgument.
absl::StatusOr<std::unique_ptr<PassPipeline>> CreatePipeline(
    absl::Span<const std::string> pass_names, PipelineOptions options);

}  // namespace mxla

#endif  // MXLA_PASSES_PASS_REGISTRY_H_
