// Shape: an array shape (element type + row-major dimension sizes; rank 0 is a
// scalar), a tuple of shapes, or a token. mxla supports only the row-major layout
// `{rank-1,...,0}`: it is printed and parsed, but not stored.
//
// A Shape may be constructed with bad sizes (negative, overflowing); such a
// shape is rejected by ShapeUtil::ValidateShape before anything uses it.
#ifndef MXLA_IR_SHAPE_H_
#define MXLA_IR_SHAPE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "ir/primitive_type.h"

namespace mxla {

class Shape {
 public:
  Shape() = default;  // An invalid shape (PRIMITIVE_TYPE_INVALID).
  // An array shape, not validated (see the file comment).
  Shape(PrimitiveType element_type, absl::Span<const int64_t> dimensions);
  // A tuple of `tuple_shapes`; `()` when empty.
  explicit Shape(std::vector<Shape> tuple_shapes);

  PrimitiveType element_type() const { return element_type_; }
  bool IsArray() const { return primitive_util::IsArrayType(element_type_); }
  bool IsTuple() const { return element_type_ == TUPLE; }
  // XLA's token (`token[]`): no elements and no bytes.
  bool IsToken() const { return element_type_ == TOKEN; }
  bool IsScalar() const { return IsArray() && dimensions_.empty(); }

  // Array dimensions (a tuple has none: rank 0, but it is not a scalar).
  // The indexed accessors and setters do not bounds-check: `i` must be in
  // [0, rank()) or [0, tuple_shapes().size()).
  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  absl::Span<const int64_t> dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  void set_dimensions(int64_t i, int64_t size) { dimensions_[i] = size; }
  void set_element_type(PrimitiveType type) { element_type_ = type; }

  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }

  // "f32[2,3]", "pred[]", "(f32[2], s32[])".
  std::string ToString() const;
  // As HLO text prints it: "f32[2,3]{1,0}", "f32[]", "(f32[2]{0}, s32[])".
  std::string ToStringWithLayout() const;

  // Structural: element type, dimensions and tuple elements.
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }
  // absl::Hash support, consistent with operator==.
  template <typename H>
  friend H AbslHashValue(H h, const Shape& shape) {
    return H::combine(std::move(h), shape.element_type_, shape.dimensions_,
                      shape.tuple_shapes_);
  }

 private:
  PrimitiveType element_type_ = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dimensions_;
  std::vector<Shape> tuple_shapes_;
};

}  // namespace mxla

#endif  // MXLA_IR_SHAPE_H_
