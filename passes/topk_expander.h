// expand-topk: the JIT's topk. Each topk becomes a stable sort of (values,
// iota of indices) along the last dimension, with a comparator that puts
// the larger value first (the smaller with largest=false; floats in their
// total order), and slices of the first k of both: the same order as the
// interpreter's topk, ties by index.
#ifndef MXLA_PASSES_TOPK_EXPANDER_H_
#define MXLA_PASSES_TOPK_EXPANDER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class TopKExpanderPass : public HloPass {
 public:
  absl::string_view name() const override { return "expand-topk"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_TOPK_EXPANDER_H_
