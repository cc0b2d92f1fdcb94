#include "ir/shape_util.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"

namespace mxla {

Shape ShapeUtil::MakeShape(PrimitiveType element_type,
                           absl::Span<const int64_t> dimensions) {
  return Shape(element_type, dimensions);
}

Shape ShapeUtil::MakeTupleShape(std::vector<Shape> element_shapes) {
  return Shape(std::move(element_shapes));
}

absl::StatusOr<Shape> ShapeUtil::MakeValidatedShape(
    PrimitiveType element_type, absl::Span<const int64_t> dimensions) {
  Shape shape = MakeShape(element_type, dimensions);
  RETURN_IF_ERROR(ValidateShape(shape));
  return shape;
}

absl::StatusOr<int64_t> ShapeUtil::CheckedElementCount(
    absl::Span<const int64_t> dimensions) {
  int64_t count = 1;
  for (int64_t size : dimensions) {
    if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid dimension size ", size));
    }
    if (__builtin_mul_overflow(count, size, &count)) {
      return absl::InvalidArgumentError(
          absl::StrCat("element count of [", absl::StrJoin(dimensions, ","),
                       "] overflows int64"));
    }
  }
  return count;
}

absl::Status ShapeUtil::ValidateShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      RETURN_IF_ERROR(ValidateShape(element));
    }
    return absl::OkStatus();
  }
  if (shape.IsToken()) return absl::OkStatus();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError("shape has an invalid element type");
  }
  if (shape.rank() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", shape.ToString(), " has rank ", shape.rank(),
                     "; the maximum rank is ", kMaxRank));
  }
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.dimensions(i) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid dimension size ", shape.dimensions(i),
                       " at dimension ", i, " in ", shape.ToString()));
    }
  }
  ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(shape.dimensions()));
  int64_t bytes;
  if (__builtin_mul_overflow(
          count, primitive_util::ByteWidth(shape.element_type()), &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "byte size of ", shape.ToString(), " overflows int64"));
  }
  return absl::OkStatus();
}

int64_t ShapeUtil::ElementsIn(const Shape& shape) {
  if (shape.IsToken()) return 0;
  int64_t count = 1;
  for (int64_t size : shape.dimensions()) count *= size;
  return count;
}

int64_t ShapeUtil::ByteSizeOf(const Shape& shape) {
  return ElementsIn(shape) * primitive_util::ByteWidth(shape.element_type());
}

Shape ShapeUtil::DeleteDimension(const Shape& shape, int64_t dimension) {
  std::vector<int64_t> dims(shape.dimensions().begin(),
                            shape.dimensions().end());
  dims.erase(dims.begin() + dimension);
  return MakeShape(shape.element_type(), dims);
}

Shape ShapeUtil::ChangeElementType(const Shape& shape, PrimitiveType type) {
  return MakeShape(type, shape.dimensions());
}

std::vector<int64_t> ShapeUtil::RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  }
  return strides;
}

}  // namespace mxla
