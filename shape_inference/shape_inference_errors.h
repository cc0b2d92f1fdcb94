// The message helpers shape inference's files share: every error names the
// op first, as "<op>: <XLA's fragment>".
#ifndef MXLA_SHAPE_INFERENCE_SHAPE_INFERENCE_ERRORS_H_
#define MXLA_SHAPE_INFERENCE_SHAPE_INFERENCE_ERRORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "ir/hlo_opcode.h"
#include "ir/shape.h"
#include "shape_inference/shape_inference.h"

namespace mxla::shape_inference_internal {

template <typename... Args>
absl::Status OpError(HloOpcode opcode, const Args&... fragment) {
  return absl::InvalidArgumentError(
      absl::StrCat(HloOpcodeString(opcode), ": ", fragment...));
}

inline std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

// An operand must be a valid array: arrays only, sizes >= 0, rank and
// element count in range. `what` names the operand in the message.
absl::Status ExpectValidArray(HloOpcode opcode, const Shape& shape,
                              absl::string_view what);

// The result type of a dot or convolution computing in `type` when the
// instruction asks for `preferred`: it, unless it is a narrower integer
// (XLA's MaybeUpcast); `context()` ends the message, made only for it.
absl::StatusOr<PrimitiveType> PreferredResultType(
    HloOpcode op, PrimitiveType type, std::optional<PrimitiveType> preferred,
    absl::FunctionRef<std::string()> context);

// XLA's reducer rules (reduce, reduce-window, scatter; `op` names it): 2N
// scalar parameters (accumulators, then elements), N results, each of its
// init value's type, elements of the inputs' types. The accumulators.
absl::StatusOr<std::vector<Shape>> CheckReducer(
    HloOpcode op, const ProgramShape& to_apply,
    absl::Span<const Shape* const> inputs,
    absl::Span<const Shape* const> inits);

}  // namespace mxla::shape_inference_internal

#endif  // MXLA_SHAPE_INFERENCE_SHAPE_INFERENCE_ERRORS_H_
