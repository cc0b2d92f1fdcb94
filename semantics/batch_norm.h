// The batch-norm ops' arithmetic. Both backends compute in the element
// type's compute type C (f32 for f16, bf16 and the 8-bit floats) and round
// each result once; epsilon is XLA's f32 attribute, in C. With m the
// number of elements per feature and sums per feature over the other
// dimensions in row-major order:
//
//   training   mean = sum(x) / m;  c = x - mean;  var = sum(c * c) / m;
//              y = c / sqrt(var + eps) * scale + offset  -> (y, mean, var)
//   inference  y = (x - mean) / sqrt(var + eps) * scale + offset
//   grad       std = sqrt(var + eps);  c = x - mean;
//              grad_offset = sum(dy);  grad_scale = sum(dy * c / std);
//              dx = scale / std * ((dy - grad_offset / m)
//                                  - c * (grad_scale / (m * std)))
//              -> (dx, grad_scale, grad_offset)
//
// (the variance is the centered two-pass one, not XLA's expander's
// E[x^2] - E[x]^2, which cancels badly). The interpreter evaluates this
// here; the JIT's expand-batch-norms builds the same operations in HLO.
#ifndef MXLA_SEMANTICS_BATCH_NORM_H_
#define MXLA_SEMANTICS_BATCH_NORM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_opcode.h"
#include "ir/literal.h"

namespace mxla::semantics {

absl::StatusOr<Literal> EvaluateBatchNorm(
    HloOpcode opcode, absl::Span<const Literal* const> operands,
    double epsilon, int64_t feature_index, const Shape& shape);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_BATCH_NORM_H_
