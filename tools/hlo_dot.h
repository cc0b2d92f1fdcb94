// Graphviz pictures of HLO modules. The entry computation's instructions
// are nodes labelled with name, opcode and shape; data flows along the
// edges. Broadcasts and reshapes (the index maps that lowering adds) are
// drawn as dashed grey boxes, parameters and constants as ellipses, and each
// fusion either as a cluster holding its fused computation (its parameters
// wired to the fusion's operands) or, collapsed, as a single bold node.
#ifndef MXLA_TOOLS_HLO_DOT_H_
#define MXLA_TOOLS_HLO_DOT_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/hlo_module.h"

namespace mxla::tools {

struct DotOptions {
  bool collapse_fusions = false;
};

std::string HloModuleToDot(const HloModule& module,
                           const DotOptions& options = {});

// Renders DOT text to SVG with Graphviz's `dot` from PATH; a clear
// FailedPrecondition if it is not installed.
absl::StatusOr<std::string> RenderSvg(const std::string& dot);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_HLO_DOT_H_
