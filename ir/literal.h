// Literal: a host value with a shape. An array literal owns a dense row-major
// buffer (a HostBuffer from a BufferAllocator, ir/buffer_allocator.h:
// 64-byte aligned; zero-initialized unless made ForOverwrite); a tuple
// literal owns its elements. Literals are values: copyable and movable. A
// literal, its copies and its tuple elements allocate with the allocator it
// was made with (AlignedBufferAllocator() unless one is given), which must
// outlive them.
//
// Equality (operator==) is bitwise: same shape and same bytes, so NaN equals
// an identically encoded NaN and -0.0 differs from +0.0. `Near` compares
// floating-point values within tolerances for results of reassociated math.
#ifndef MXLA_IR_LITERAL_H_
#define MXLA_IR_LITERAL_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>
#include <algorithm>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/buffer_allocator.h"
#include "ir/shape.h"
#include "ir/shape_util.h"

namespace mxla {

class Literal {
 public:
  Literal();  // The empty tuple `()`.
  // A zero-filled literal of `shape` (array or tuple), which must pass
  // ShapeUtil::ValidateShape (unchecked). Traps if the memory cannot be
  // allocated.
  explicit Literal(const Shape& shape, const BufferAllocator& allocator =
                                           AlignedBufferAllocator());
  // A literal whose array contents are unspecified until written: for
  // results that a kernel overwrites completely, skipping the zero fill.
  // Same preconditions as Literal(shape).
  static Literal ForOverwrite(
      const Shape& shape,
      const BufferAllocator& allocator = AlignedBufferAllocator());
  // Like Literal(shape) and ForOverwrite, but ResourceExhausted (naming the
  // shape and the bytes) instead of a trap when the memory cannot be
  // allocated: for literals whose size comes from user input.
  static absl::StatusOr<Literal> Create(
      const Shape& shape,
      const BufferAllocator& allocator = AlignedBufferAllocator());
  static absl::StatusOr<Literal> CreateForOverwrite(
      const Shape& shape,
      const BufferAllocator& allocator = AlignedBufferAllocator());
  // A deep copy of `other` whose buffers come from `allocator`; traps if
  // the memory cannot be allocated.
  Literal(const Literal& other, const BufferAllocator& allocator);
  // Deep copies (a new buffer, from other's allocator). A moved-from literal
  // may only be assigned to or destroyed.
  Literal(const Literal& other);
  Literal& operator=(const Literal& other);
  Literal(Literal&&) noexcept = default;
  Literal& operator=(Literal&&) noexcept = default;

  const Shape& shape() const { return shape_; }
  // For array literals. (A tuple literal has no buffer: untyped_data() is
  // null and size_bytes() 0.)
  int64_t element_count() const { return ShapeUtil::ElementsIn(shape_); }
  int64_t size_bytes() const { return size_bytes_; }
  void* untyped_data() { return buffer_.get(); }
  const void* untyped_data() const { return buffer_.get(); }

  // Typed view of an array literal; T must be the element type's native type
  // (unchecked). Valid until the literal is destroyed or assigned to.
  template <typename T>
  absl::Span<const T> data() const {
    return absl::Span<const T>(reinterpret_cast<const T*>(buffer_.get()),
                               static_cast<size_t>(element_count()));
  }
  template <typename T>
  absl::Span<T> data() {
    return absl::Span<T>(reinterpret_cast<T*>(buffer_.get()),
                         static_cast<size_t>(element_count()));
  }

  // Row-major linear index of a multi-dimensional index. `index` must have
  // rank() entries, each in range; nothing is checked, here or in Get/Set.
  int64_t LinearIndex(absl::Span<const int64_t> index) const;
  template <typename T>
  T Get(absl::Span<const int64_t> index) const {
    return data<T>()[LinearIndex(index)];
  }
  template <typename T>
  void Set(absl::Span<const int64_t> index, T value) {
    data<T>()[LinearIndex(index)] = value;
  }
  // Element `linear_index` (in [0, element_count()), unchecked) converted to
  // double (pred gives 0 or 1). Array literals only: a tuple traps.
  double GetAsDouble(int64_t linear_index) const;

  // Tuples (0 elements for an array literal); `i` is not bounds-checked.
  int64_t tuple_size() const { return elements_.size(); }
  const Literal& tuple_element(int64_t i) const { return elements_[i]; }
  Literal& tuple_element(int64_t i) { return elements_[i]; }

  // "f32[2,3] {{1, 2, 3}, {4, 5, 6}}"; tuples as "(f32[] 1, s32[2] {1, 2})".
  // An array of more than kSummarizeElements elements is summarized as
  // NumPy does (SummarizedLiteralValues, ir/literal_text.h); ToFullString
  // prints every element.
  std::string ToString() const;
  std::string ToFullString() const;
  static constexpr int64_t kSummarizeElements = 1000;

  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }
  // absl::Hash support, consistent with operator==: the shape and the bytes
  // (so every value of a type hashes apart, NaN encodings included).
  template <typename H>
  friend H AbslHashValue(H h, const Literal& literal) {
    h = H::combine(std::move(h), literal.shape_);
    if (literal.shape_.IsTuple()) {
      return H::combine(std::move(h), literal.elements_);
    }
    return H::combine(
        std::move(h),
        absl::string_view(reinterpret_cast<const char*>(literal.buffer_.get()),
                          literal.size_bytes_));
  }

 private:
  friend class LiteralUtil;
  void Allocate(bool zero = true);
  absl::Status TryAllocate(bool zero);
  static absl::StatusOr<Literal> TryCreate(const Shape& shape, bool zero,
                                           const BufferAllocator& allocator);

  Shape shape_;
  int64_t size_bytes_ = 0;
  const BufferAllocator* allocator_ = &AlignedBufferAllocator();
  HostBuffer buffer_;
  std::vector<Literal> elements_;
};

// Factories. T is the native type of an element type (bool, int32_t,
// int64_t, float, double). Like Literal(shape), they trap if the memory
// cannot be allocated.
class LiteralUtil {
 public:
  template <typename T>
  static Literal CreateR0(T value) {
    Literal literal(ShapeUtil::MakeScalarShape(primitive_util::kNativeToPrimitive<T>));
    literal.data<T>()[0] = value;
    return literal;
  }
  template <typename T>
  static Literal CreateR1(absl::Span<const T> values) {
    Literal literal(ShapeUtil::MakeShape(primitive_util::kNativeToPrimitive<T>,
                                         {static_cast<int64_t>(values.size())}));
    std::copy(values.begin(), values.end(), literal.data<T>().begin());
    return literal;
  }
  template <typename T>
  static Literal CreateR1(std::initializer_list<T> values) {
    return CreateR1<T>(absl::Span<const T>(values.begin(), values.size()));
  }
  // Rows (and, for CreateR3, planes) must all have the same length: ragged
  // input traps in every build mode rather than returning an error.
  template <typename T>
  static Literal CreateR2(
      std::initializer_list<std::initializer_list<T>> values) {
    std::vector<T> flat;
    int64_t cols = values.size() == 0 ? 0 : values.begin()->size();
    for (const auto& row : values) {
      if (static_cast<int64_t>(row.size()) != cols) __builtin_trap();
      flat.insert(flat.end(), row.begin(), row.end());
    }
    return CreateFromFlat<T>(
        {static_cast<int64_t>(values.size()), cols}, flat);
  }
  template <typename T>
  static Literal CreateR3(
      std::initializer_list<std::initializer_list<std::initializer_list<T>>>
          values) {
    std::vector<T> flat;
    int64_t d1 = values.size() == 0 ? 0 : values.begin()->size();
    int64_t d2 = d1 == 0 ? 0 : values.begin()->begin()->size();
    for (const auto& plane : values) {
      if (static_cast<int64_t>(plane.size()) != d1) __builtin_trap();
      for (const auto& row : plane) {
        if (static_cast<int64_t>(row.size()) != d2) __builtin_trap();
        flat.insert(flat.end(), row.begin(), row.end());
      }
    }
    return CreateFromFlat<T>({static_cast<int64_t>(values.size()), d1, d2},
                             flat);
  }
  // A literal of `dimensions` from row-major `values`. The dimensions must
  // be valid and the counts agree, or it traps: use CreateFromFlatChecked
  // for user data.
  template <typename T>
  static Literal CreateFromFlat(absl::Span<const int64_t> dimensions,
                                absl::Span<const T> values) {
    absl::StatusOr<Literal> literal =
        CreateFromFlatChecked<T>(dimensions, values);
    if (!literal.ok()) __builtin_trap();
    return *std::move(literal);
  }
  // InvalidArgument if `dimensions` fail ShapeUtil::ValidateShape or
  // `values` has a different element count; ResourceExhausted if the
  // memory cannot be allocated.
  template <typename T>
  static absl::StatusOr<Literal> CreateFromFlatChecked(
      absl::Span<const int64_t> dimensions, absl::Span<const T> values) {
    Shape shape =
        ShapeUtil::MakeShape(primitive_util::kNativeToPrimitive<T>, dimensions);
    absl::Status valid = ShapeUtil::ValidateShape(shape);
    if (!valid.ok()) return valid;
    if (ShapeUtil::ElementsIn(shape) != static_cast<int64_t>(values.size())) {
      return absl::InvalidArgumentError(
          "literal value count does not match its shape " + shape.ToString());
    }
    absl::StatusOr<Literal> literal = Literal::CreateForOverwrite(shape);
    if (!literal.ok()) return literal.status();
    std::copy(values.begin(), values.end(), literal->template data<T>().begin());
    return literal;
  }
  // A tuple that takes ownership of `elements`.
  static Literal MakeTuple(std::vector<Literal> elements);
  // Scalar zero / one of an array type (`type` must be one; One(PRED) is
  // true).
  static Literal Zero(PrimitiveType type);
  static Literal One(PrimitiveType type);

  // OK if `actual` has `expected`'s shape and every element is within
  // `abs_tolerance + rel_tolerance * |expected|` (integers and pred must be
  // equal; NaN matches NaN; an infinity only matches itself); tuples are
  // compared element by element. For f16 and bf16 the relative tolerance
  // is at least one unit in the last place (2^-10, 2^-7): any difference
  // before their final rounding, however small, can move it by one unit. Otherwise InvalidArgument naming the shape
  // mismatch or the first differing index and both values.
  static absl::Status Near(const Literal& expected, const Literal& actual,
                           double abs_tolerance, double rel_tolerance);
  // The exact comparison of results across backends: every element has the
  // same bits (so -0 differs from +0), except that a NaN matches any NaN.
  // NaNs made by invalid operations (0/0, sqrt(-1)) may differ in sign and
  // payload: the hardware makes one encoding, LLVM's constant folding
  // another. Errors as for Near.
  static absl::Status SameValues(const Literal& expected,
                                 const Literal& actual);
};

}  // namespace mxla

#endif  // MXLA_IR_LITERAL_H_
