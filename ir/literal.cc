#include "ir/literal.h"

#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/literal_text.h"

namespace mxla {

Literal::Literal() : shape_(std::vector<Shape>{}) {}

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      elements_.emplace_back(element);
    }
    return;
  }
  Allocate();
}

Literal Literal::ForOverwrite(const Shape& shape) {
  Literal literal;
  literal.shape_ = shape;
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      literal.elements_.push_back(ForOverwrite(element));
    }
  } else {
    literal.Allocate(/*zero=*/false);
  }
  return literal;
}

void Literal::Allocate(bool zero) {
  size_bytes_ = ShapeUtil::ByteSizeOf(shape_);
  buffer_ = AllocateHostBuffer(size_bytes_);
  if (buffer_ == nullptr) __builtin_trap();  // Out of memory.
  if (zero) std::memset(buffer_.get(), 0, size_bytes_);
}

Literal::Literal(const Literal& other)
    : shape_(other.shape_), elements_(other.elements_) {
  if (shape_.IsArray()) {
    Allocate();
    std::memcpy(buffer_.get(), other.buffer_.get(), size_bytes_);
  }
}

Literal& Literal::operator=(const Literal& other) {
  if (this != &other) *this = Literal(other);
  return *this;
}

int64_t Literal::LinearIndex(absl::Span<const int64_t> index) const {
  int64_t linear = 0;
  for (int64_t d = 0; d < shape_.rank(); ++d) {
    linear = linear * shape_.dimensions(d) + index[d];
  }
  return linear;
}

double Literal::GetAsDouble(int64_t linear_index) const {
  return primitive_util::ArrayTypeSwitch(
      shape_.element_type(), [&](auto tag) -> double {
        using T = typename decltype(tag)::type;
        return static_cast<double>(data<T>()[linear_index]);
      });
}

std::string Literal::ToString() const {
  if (shape_.IsTuple()) {
    std::vector<std::string> parts;
    for (const Literal& element : elements_) parts.push_back(element.ToString());
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  return absl::StrCat(shape_.ToString(), " ", LiteralValuesToString(*this));
}

bool Literal::operator==(const Literal& other) const {
  if (shape_ != other.shape_) return false;
  if (shape_.IsTuple()) return elements_ == other.elements_;
  return std::memcmp(buffer_.get(), other.buffer_.get(), size_bytes_) == 0;
}

Literal LiteralUtil::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& element : elements) shapes.push_back(element.shape());
  Literal tuple;
  tuple.shape_ = ShapeUtil::MakeTupleShape(std::move(shapes));
  tuple.elements_ = std::move(elements);
  return tuple;
}

Literal LiteralUtil::Zero(PrimitiveType type) {
  return Literal(ShapeUtil::MakeScalarShape(type));
}

Literal LiteralUtil::One(PrimitiveType type) {
  Literal one(ShapeUtil::MakeScalarShape(type));
  primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    one.data<T>()[0] = static_cast<T>(1);
  });
  return one;
}

namespace {

std::string IndexString(const Shape& shape, int64_t linear_index) {
  std::vector<int64_t> index(shape.rank());
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    index[d] = linear_index % shape.dimensions(d);
    linear_index /= shape.dimensions(d);
  }
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

}  // namespace

absl::Status LiteralUtil::Near(const Literal& expected, const Literal& actual,
                               double abs_tolerance, double rel_tolerance) {
  if (expected.shape() != actual.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape mismatch: expected ", expected.shape().ToString(),
                     ", actual ", actual.shape().ToString()));
  }
  if (expected.shape().IsTuple()) {
    for (int64_t i = 0; i < expected.tuple_size(); ++i) {
      absl::Status status = Near(expected.tuple_element(i),
                                 actual.tuple_element(i), abs_tolerance,
                                 rel_tolerance);
      if (!status.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tuple element ", i, ": ", status.message()));
      }
    }
    return absl::OkStatus();
  }
  bool is_float =
      primitive_util::IsFloatingPointType(expected.shape().element_type());
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    double e = expected.GetAsDouble(i);
    double a = actual.GetAsDouble(i);
    bool ok;
    if (!is_float) {
      int64_t width = primitive_util::ByteWidth(expected.shape().element_type());
      ok = std::memcmp(
               static_cast<const uint8_t*>(expected.untyped_data()) + i * width,
               static_cast<const uint8_t*>(actual.untyped_data()) + i * width,
               width) == 0;
    } else if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = e == a;
    } else {
      ok = std::fabs(e - a) <= abs_tolerance + rel_tolerance * std::fabs(e);
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value mismatch at index ", IndexString(expected.shape(), i),
          ": expected ", FormatLiteralElement(expected, i, false), ", actual ",
          FormatLiteralElement(actual, i, false)));
    }
  }
  return absl::OkStatus();
}

}  // namespace mxla
