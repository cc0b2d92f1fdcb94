// split-tuple-constants: the JIT's tuple-shaped constants. Each becomes a
// tuple of array constants (nested tuples likewise), since the JIT keeps
// a buffer per array constant and none for a tuple literal.
#ifndef MXLA_PASSES_TUPLE_CONSTANT_SPLITTER_H_
#define MXLA_PASSES_TUPLE_CONSTANT_SPLITTER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class TupleConstantSplitterPass : public HloPass {
 public:
  absl::string_view name() const override { return "split-tuple-constants"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_TUPLE_CONSTANT_SPLITTER_H_
