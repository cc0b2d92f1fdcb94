// What the transformations (autodiff.h, batching.h) read: a computation's
// module with its implicit broadcasts made explicit, so that every
// elementwise op sees operands of its result's shape, as their rules
// assume.
#ifndef MXLA_TRANSFORMS_LOWERED_INPUT_H_
#define MXLA_TRANSFORMS_LOWERED_INPUT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "ir/hlo_module.h"

namespace mxla {

// A copy of `f`'s module after lower-broadcasts and dce.
absl::StatusOr<std::unique_ptr<HloModule>> LoweredInput(const XlaComputation& f);

}  // namespace mxla

#endif  // MXLA_TRANSFORMS_LOWERED_INPUT_H_
