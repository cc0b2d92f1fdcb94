// Picks the few lines of a kernel's optimized LLVM IR worth showing a user:
// the vector loop body, where the time goes. `mxla demo` prints it under
// each example so the claim "fused, vectorized loops" is visible.
#ifndef MXLA_TOOLS_IR_EXCERPT_H_
#define MXLA_TOOLS_IR_EXCERPT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace mxla::tools {

// The basic block of `llvm_ir` with the most vector instructions (`<N x T>`),
// preferring blocks that branch to themselves (inner loops): its label and
// at most `max_lines` of its loads, arithmetic and stores (phis, address
// arithmetic and metadata left out, lines cut at 100 characters). Empty
// when no block has a vector instruction.
std::string VectorLoopExcerpt(absl::string_view llvm_ir, int max_lines);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_IR_EXCERPT_H_
