// topk in the interpreter: per row along the last dimension, the indices
// stably sorted by value (floats in their total order: -NaN < -inf < ... <
// -0 < +0 < ... < +inf < +NaN), largest first unless largest=false; the
// first k values and their indices.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// An integer that orders as the value does (floats: the total order).
template <typename T>
auto OrderKey(T value) {
  if constexpr (std::is_same_v<T, double>) {
    const uint64_t bits = std::bit_cast<uint64_t>(value);
    return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
  } else if constexpr (std::is_same_v<T, float>) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    return (bits >> 31) != 0 ? ~bits : bits | (uint32_t{1} << 31);
  } else if constexpr (kIsNarrowFloat<T>) {
    return OrderKey(static_cast<float>(value));  // widening keeps the order
  } else if constexpr (kIsSubByteInt<T>) {
    return value.value();
  } else {
    return value;
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateTopK(const Literal& operand, int64_t k,
                                     bool largest) {
  const Shape& shape = operand.shape();
  RET_CHECK(shape.IsArray() && shape.rank() >= 1, shape.ToString());
  const int64_t n = shape.dimensions(shape.rank() - 1);
  RET_CHECK(k >= 0 && k <= n, "topk k=", k, " of ", shape.ToString());
  const int64_t rows = n == 0 ? 0 : ShapeUtil::ElementsIn(shape) / n;
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  dims.back() = k;
  Literal values(ShapeUtil::MakeShape(shape.element_type(), dims));
  Literal indices(ShapeUtil::MakeShape(S32, dims));
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    absl::Span<const T> in = operand.data<T>();
    absl::Span<T> out = values.data<T>();
    absl::Span<int32_t> positions = indices.data<int32_t>();
    std::vector<int64_t> order(n);
    for (int64_t row = 0; row < rows; ++row) {
      const T* x = in.data() + row * n;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return largest ? OrderKey(x[b]) < OrderKey(x[a])
                       : OrderKey(x[a]) < OrderKey(x[b]);
      });
      for (int64_t i = 0; i < k; ++i) {
        out[row * k + i] = x[order[i]];
        positions[row * k + i] = static_cast<int32_t>(order[i]);
      }
    }
  });
  std::vector<Literal> elements;
  elements.push_back(std::move(values));
  elements.push_back(std::move(indices));
  return LiteralUtil::MakeTuple(std::move(elements));
}

}  // namespace mxla::hlo_evaluator_internal
