// ShapeUtil: making, validating and measuring shapes.
#ifndef MXLA_IR_SHAPE_UTIL_H_
#define MXLA_IR_SHAPE_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/shape.h"

namespace mxla {

class ShapeUtil {
 public:
  // The largest rank mxla accepts; deeper shapes are rejected by validation.
  static constexpr int64_t kMaxRank = 32;

  // Makes an array shape. Does not validate: see ValidateShape.
  static Shape MakeShape(PrimitiveType element_type,
                         absl::Span<const int64_t> dimensions);
  static Shape MakeScalarShape(PrimitiveType element_type) {
    return MakeShape(element_type, {});
  }
  static Shape MakeTupleShape(std::vector<Shape> element_shapes);
  // Makes and validates an array shape.
  static absl::StatusOr<Shape> MakeValidatedShape(
      PrimitiveType element_type, absl::Span<const int64_t> dimensions);

  // OK if the element type is an array type, every size is >= 0,
  // rank <= kMaxRank, and the element count and byte size fit in int64;
  // InvalidArgument naming the problem otherwise. Tuples are checked element
  // by element (the empty tuple is valid).
  static absl::Status ValidateShape(const Shape& shape);

  // Element count of an array shape; the shape must be valid (unchecked:
  // overflow is undefined behavior). A tuple shape gives 1.
  static int64_t ElementsIn(const Shape& shape);
  // Element count of `dimensions`; InvalidArgument for a negative size or an
  // int64 overflow.
  static absl::StatusOr<int64_t> CheckedElementCount(
      absl::Span<const int64_t> dimensions);
  // Bytes of an array shape's dense row-major buffer; the shape must be valid.
  static int64_t ByteSizeOf(const Shape& shape);

  // Comparisons that ignore the rest of the shape.
  static bool SameDimensions(const Shape& a, const Shape& b) {
    return a.dimensions() == b.dimensions();
  }
  static bool SameElementType(const Shape& a, const Shape& b) {
    return a.element_type() == b.element_type();
  }
  // An array with exactly one element (any rank, e.g. f32[1,1]).
  static bool IsEffectiveScalar(const Shape& shape) {
    return shape.IsArray() && ElementsIn(shape) == 1;
  }
  // Same dimensions, element type `type`.
  static Shape ChangeElementType(const Shape& shape, PrimitiveType type);
  // The array `shape` without dimension `dimension` (row-major layout).
  static Shape DeleteDimension(const Shape& shape, int64_t dimension);

  // Row-major strides in elements of an array shape: the last dimension has
  // stride 1.
  static std::vector<int64_t> RowMajorStrides(const Shape& shape);

  // Human-readable form, as in error messages: "f32[2,3]".
  static std::string HumanString(const Shape& shape) {
    return shape.ToString();
  }
};

}  // namespace mxla

#endif  // MXLA_IR_SHAPE_UTIL_H_
