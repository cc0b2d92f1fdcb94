// inline-maps: a map whose computation is elementwise (parameters,
// constants, elementwise ops, tuples of scalars and their elements, and
// calls, fusions and maps of such computations) becomes that computation
// applied to whole arrays in the caller: each parameter is the matching
// operand, each constant a broadcast of it, each op the same op on the
// map's dimensions, a scalar tuple a tuple of arrays, a called
// computation inlined the same way. The fusion passes then fuse it like
// any elementwise chain. The JIT needs it; a map of any other computation
// is Unimplemented, naming the op. Any form.
#ifndef MXLA_PASSES_MAP_INLINER_H_
#define MXLA_PASSES_MAP_INLINER_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class MapInlinerPass : public HloPass {
 public:
  absl::string_view name() const override { return "inline-maps"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_MAP_INLINER_H_
