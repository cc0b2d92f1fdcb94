// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): XLA's block-scaled dot (the
// MX formats: f8/f4 values with f8e8m0fnu scales), with dot's dimension
// numbers. Each side is dequantized, then the two are a dot:
//
//   * operand and scale are converted to one type, DequantizedType: bf16
//     when both are narrower than 16 bits, else the wider (f32 when they
//     differ at equal widths);
//   * a scale has the operand's rank (or is a scalar) and each of its
//     dimensions divides the operand's: scale element j covers the block
//     of operand elements [j * b, (j + 1) * b) along that dimension, b =
//     operand size / scale size. It is repeated over its blocks (a
//     broadcast to [..., s, b, ...] and a reshape);
//   * operand times repeated scale, in the dequantized type, rounded to it;
//   * the dot of the two products, its element type the declared result's.
//
// This is what XLA's ScaledDotRewriter makes of the op (the definition its
// backends without a native kernel run); the interpreter computes these
// steps and the JIT's expand-scaled-dots builds them.
#ifndef MXLA_SHAPE_INFERENCE_SCALED_DOT_H_
#define MXLA_SHAPE_INFERENCE_SCALED_DOT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/primitive_type.h"
#include "ir/shape.h"

namespace mxla {

// The type an operand and its scale are both converted to.
PrimitiveType DequantizedType(PrimitiveType operand, PrimitiveType scale);

// How a scale of the operand's rank is repeated over its blocks: broadcast
// to `split_dims` (each blocked dimension followed by its block size) along
// `broadcast_dims`, then reshaped to the operand's dimensions. Empty for a
// scalar scale (a plain broadcast).
struct ScaleRepetition {
  std::vector<int64_t> split_dims;
  std::vector<int64_t> broadcast_dims;
};

// Checks that `scale` fits `operand` (`side` is "lhs" or "rhs": errors
// name scaled-dot, the side, both shapes and the dimension).
absl::StatusOr<ScaleRepetition> PlanScaleRepetition(const Shape& operand,
                                                    const Shape& scale,
                                                    const char* side);

}  // namespace mxla

#endif  // MXLA_SHAPE_INFERENCE_SCALED_DOT_H_
