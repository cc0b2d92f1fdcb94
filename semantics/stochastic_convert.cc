#include "semantics/stochastic_convert.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::semantics {
namespace {

// The result type's bounds as int64.
template <typename R>
constexpr int64_t Min() {
  if constexpr (kIsSubByteInt<R>) {
    return R::kMin;
  } else {
    return std::numeric_limits<R>::min();
  }
}
template <typename R>
constexpr int64_t Max() {
  if constexpr (kIsSubByteInt<R>) {
    return R::kMax;
  } else {
    return std::numeric_limits<R>::max();
  }
}

template <typename T, typename R>
R RoundStochastically(T value, uint64_t random, int bits) {
  const double x = Convert<double>(value);
  // The bounds as the operand type sees them.
  const double low = Convert<double>(Convert<T>(Min<R>()));
  const double high = Convert<double>(Convert<T>(Max<R>()));
  if (x <= low) return Convert<R>(Min<R>());
  if (x >= high) return Convert<R>(Max<R>());
  if (std::isnan(x)) return Convert<R>(int64_t{0});
  const double magnitude = std::fabs(x);
  const double whole = std::floor(magnitude);
  const double fixed = std::ldexp(magnitude - whole, bits);
  const uint64_t threshold = static_cast<uint64_t>(fixed);
  // R(t) saturates; the increment and the negation wrap, as HLO's add
  // and negate do.
  int64_t r = Convert<int64_t>(Convert<R>(whole));
  if (random < threshold) r = Convert<int64_t>(Convert<R>(r + 1));
  if (x < 0) r = Convert<int64_t>(Convert<R>(-r));
  return Convert<R>(r);
}

}  // namespace

absl::StatusOr<Literal> StochasticConvert(const Literal& operand,
                                          const Literal& random,
                                          PrimitiveType new_type) {
  RET_CHECK(ShapeUtil::SameDimensions(operand.shape(), random.shape()) &&
                primitive_util::IsSignedIntegralType(new_type) &&
                primitive_util::IsFloatingPointType(
                    operand.shape().element_type()),
            "stochastic-convert of ", operand.shape().ToString(), " and ",
            random.shape().ToString());
  const int bits = primitive_util::BitWidth(random.shape().element_type());
  ASSIGN_OR_RETURN(Literal random64, ApplyConvert(random, U64));
  absl::Span<const uint64_t> randoms = random64.data<uint64_t>();
  Literal result(ShapeUtil::ChangeElementType(operand.shape(), new_type));
  primitive_util::ArrayTypeSwitch(operand.shape().element_type(), [&](auto in) {
    using T = typename decltype(in)::type;
    if constexpr (Float<T> || kIsNarrowFloat<T>) {
      primitive_util::ArrayTypeSwitch(new_type, [&](auto out) {
        using R = typename decltype(out)::type;
        if constexpr (Integer<R> || kIsSubByteInt<R>) {
          absl::Span<const T> x = operand.data<T>();
          absl::Span<R> y = result.data<R>();
          for (size_t i = 0; i < x.size(); ++i) {
            y[i] = RoundStochastically<T, R>(x[i], randoms[i], bits);
          }
        }
      });
    }
  });
  return result;
}

}  // namespace mxla::semantics
