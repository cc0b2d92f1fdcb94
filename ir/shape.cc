#include "ir/shape.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mxla {

Shape::Shape(PrimitiveType element_type, absl::Span<const int64_t> dimensions)
    : element_type_(element_type),
      dimensions_(dimensions.begin(), dimensions.end()) {}

Shape::Shape(std::vector<Shape> tuple_shapes)
    : element_type_(TUPLE), tuple_shapes_(std::move(tuple_shapes)) {}

namespace {

std::string ToStringImpl(const Shape& shape, bool with_layout) {
  if (shape.IsTuple()) {
    std::vector<std::string> parts;
    for (const Shape& element : shape.tuple_shapes()) {
      parts.push_back(ToStringImpl(element, with_layout));
    }
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::string text =
      absl::StrCat(primitive_util::LowercaseName(shape.element_type()), "[",
                   absl::StrJoin(shape.dimensions(), ","), "]");
  if (with_layout && shape.rank() > 0) {
    std::vector<int64_t> minor_to_major;
    for (int64_t d = shape.rank() - 1; d >= 0; --d) minor_to_major.push_back(d);
    absl::StrAppend(&text, "{", absl::StrJoin(minor_to_major, ","), "}");
  }
  return text;
}

}  // namespace

std::string Shape::ToString() const { return ToStringImpl(*this, false); }

std::string Shape::ToStringWithLayout() const {
  return ToStringImpl(*this, true);
}

bool Shape::operator==(const Shape& other) const {
  return element_type_ == other.element_type_ &&
         dimensions_ == other.dimensions_ &&
         tuple_shapes_ == other.tuple_shapes_;
}

}  // namespace mxla
