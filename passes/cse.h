// cse: common-subexpression elimination. Within each computation, an
// instruction identical to an earlier one (same opcode, shape, operands and
// attributes; constants by value) is replaced by the earlier one. Parameters
// are never merged. Dead duplicates are left for dce.
#ifndef MXLA_PASSES_CSE_H_
#define MXLA_PASSES_CSE_H_

#include "passes/hlo_pass.h"

namespace mxla {

class CsePass : public HloPass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CSE_H_
