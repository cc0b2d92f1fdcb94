#include "ir/literal.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/literal_text.h"

namespace mxla {

Literal::Literal() : shape_(std::vector<Shape>{}) {}

Literal::Literal(const Shape& shape, const BufferAllocator& allocator)
    : shape_(shape), allocator_(&allocator) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      elements_.emplace_back(element, allocator);
    }
    return;
  }
  Allocate();
}

Literal Literal::ForOverwrite(const Shape& shape,
                              const BufferAllocator& allocator) {
  Literal literal;
  literal.shape_ = shape;
  literal.allocator_ = &allocator;
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      literal.elements_.push_back(ForOverwrite(element, allocator));
    }
  } else {
    literal.Allocate(/*zero=*/false);
  }
  return literal;
}

void Literal::Allocate(bool zero) {
  if (!TryAllocate(zero).ok()) __builtin_trap();  // Out of memory.
}

absl::Status Literal::TryAllocate(bool zero) {
  size_bytes_ = ShapeUtil::ByteSizeOf(shape_);
  buffer_ = allocator_->Allocate(size_bytes_);
  if (buffer_ == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", size_bytes_, " bytes for a literal of ",
                     "shape ", shape_.ToString()));
  }
  if (zero) std::memset(buffer_.get(), 0, size_bytes_);
  return absl::OkStatus();
}

absl::StatusOr<Literal> Literal::TryCreate(const Shape& shape, bool zero,
                                           const BufferAllocator& allocator) {
  Literal literal;
  literal.shape_ = shape;
  literal.allocator_ = &allocator;
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      absl::StatusOr<Literal> made = TryCreate(element, zero, allocator);
      if (!made.ok()) return made.status();
      literal.elements_.push_back(*std::move(made));
    }
    return literal;
  }
  absl::Status allocated = literal.TryAllocate(zero);
  if (!allocated.ok()) return allocated;
  return literal;
}

absl::StatusOr<Literal> Literal::Create(const Shape& shape,
                                        const BufferAllocator& allocator) {
  return TryCreate(shape, /*zero=*/true, allocator);
}

absl::StatusOr<Literal> Literal::CreateForOverwrite(
    const Shape& shape, const BufferAllocator& allocator) {
  return TryCreate(shape, /*zero=*/false, allocator);
}

Literal::Literal(const Literal& other, const BufferAllocator& allocator)
    : shape_(other.shape_), allocator_(&allocator) {
  if (shape_.IsArray()) {
    Allocate(/*zero=*/false);
    std::memcpy(buffer_.get(), other.buffer_.get(), size_bytes_);
    return;
  }
  for (const Literal& element : other.elements_) {
    elements_.emplace_back(element, allocator);
  }
}

Literal::Literal(const Literal& other)
    : shape_(other.shape_),
      allocator_(other.allocator_),
      elements_(other.elements_) {  // each with its own allocator
  if (shape_.IsArray()) {
    Allocate(/*zero=*/false);
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
        if constexpr (kIsNarrowFloat<T>) {
          return static_cast<float>(data<T>()[linear_index]);
        } else if constexpr (kIsSubByteInt<T>) {
          return data<T>()[linear_index].value();
        } else {
          return static_cast<double>(data<T>()[linear_index]);
        }
      });
}

namespace {

std::string LiteralString(const Literal& literal, bool full) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    std::vector<std::string> parts;
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      parts.push_back(LiteralString(literal.tuple_element(i), full));
    }
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  if (shape.IsToken()) return shape.ToString();  // no values
  const bool summarize =
      !full && literal.element_count() > Literal::kSummarizeElements;
  return absl::StrCat(shape.ToString(), " ",
                      summarize ? SummarizedLiteralValues(literal)
                                : LiteralValuesToString(literal));
}

}  // namespace

std::string Literal::ToString() const { return LiteralString(*this, false); }

std::string Literal::ToFullString() const {
  return LiteralString(*this, true);
}

bool Literal::operator==(const Literal& other) const {
  if (shape_ != other.shape_) return false;
  if (shape_.IsTuple()) return elements_ == other.elements_;
  // A token or an empty array has no bytes, and a copy of a token has no
  // buffer either (memcmp may not be given null, even for 0 bytes).
  if (size_bytes_ == 0) return true;
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

namespace {

bool SameBytes(const Literal& a, const Literal& b, int64_t i) {
  const int64_t width = primitive_util::ByteWidth(a.shape().element_type());
  return std::memcmp(static_cast<const uint8_t*>(a.untyped_data()) + i * width,
                     static_cast<const uint8_t*>(b.untyped_data()) + i * width,
                     width) == 0;
}

// OK if the shapes are equal and `matches(expected, actual, i)` holds for
// every element (tuples element by element); otherwise InvalidArgument
// naming the first mismatch.
template <typename Matches>
absl::Status CompareElements(const Literal& expected, const Literal& actual,
                             const Matches& matches) {
  if (expected.shape() != actual.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape mismatch: expected ", expected.shape().ToString(),
                     ", actual ", actual.shape().ToString()));
  }
  if (expected.shape().IsTuple()) {
    for (int64_t i = 0; i < expected.tuple_size(); ++i) {
      absl::Status status = CompareElements(expected.tuple_element(i),
                                            actual.tuple_element(i), matches);
      if (!status.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tuple element ", i, ": ", status.message()));
      }
    }
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    if (!matches(expected, actual, i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value mismatch at index ", IndexString(expected.shape(), i),
          ": expected ", FormatLiteralElement(expected, i, false), ", actual ",
          FormatLiteralElement(actual, i, false)));
    }
  }
  return absl::OkStatus();
}

bool IsFloat(const Literal& literal) {
  return primitive_util::IsFloatingPointType(literal.shape().element_type());
}

}  // namespace

absl::Status LiteralUtil::Near(const Literal& expected, const Literal& actual,
                               double abs_tolerance, double rel_tolerance) {
  return CompareElements(
      expected, actual, [&](const Literal& e, const Literal& a, int64_t i) {
        if (!IsFloat(e)) return SameBytes(e, a, i);
        double rel = rel_tolerance;
        // A narrow float is allowed one unit in its last place.
        const PrimitiveType type = e.shape().element_type();
        if (primitive_util::IsNarrowFloatType(type)) {
          rel = std::max(rel, std::ldexp(1.0, -primitive_util::MantissaBits(type)));
        }
        const double x = e.GetAsDouble(i), y = a.GetAsDouble(i);
        if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
        if (std::isinf(x) || std::isinf(y)) return x == y;
        return std::fabs(x - y) <= abs_tolerance + rel * std::fabs(x);
      });
}

absl::Status LiteralUtil::SameValues(const Literal& expected,
                                     const Literal& actual) {
  return CompareElements(
      expected, actual, [](const Literal& e, const Literal& a, int64_t i) {
        if (IsFloat(e) && std::isnan(e.GetAsDouble(i))) {
          return std::isnan(a.GetAsDouble(i));
        }
        return SameBytes(e, a, i);
      });
}

}  // namespace mxla
