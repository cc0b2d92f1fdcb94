#include "transforms/lowered_input.h"

#include "ir/status_macros.h"
#include "passes/pass_registry.h"

namespace mxla {

absl::StatusOr<std::unique_ptr<HloModule>> LoweredInput(const XlaComputation& f) {
  std::unique_ptr<HloModule> module = f.CloneModule();
  ASSIGN_OR_RETURN(std::unique_ptr<PassPipeline> pipeline,
                   CreatePipeline({"lower-broadcasts", "dce"}, {}));
  RETURN_IF_ERROR(pipeline->Run(*module).status());
  return module;
}

}  // namespace mxla
