#include "semantics/random_numbers.h"

#include <cmath>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::semantics::random {

uint64_t NameKey(absl::string_view name) {
  uint64_t hash = kFnvOffset;
  for (unsigned char c : name) {
    hash = (hash ^ c) * kFnvPrime;
  }
  return hash;
}

namespace {

template <typename T>
constexpr bool kIsFloat = Float<T> || kIsNarrowFloat<T>;

template <typename T>
T UniformFloat(T a, T b, uint64_t bits) {
  const double low = Convert<double>(a);
  const double high = Convert<double>(b);
  const T t = Convert<T>(low + (high - low) * Unit(bits));
  return Convert<double>(t) >= high ? a : t;
}

template <typename T>
T Normal(T mu, T sigma, uint64_t bits0, uint64_t bits1) {
  const double r = std::sqrt(-2.0 * std::log(1.0 - Unit(bits0)));
  const double z = r * std::cos(kTwoPi * Unit(bits1));
  return Convert<T>(Convert<double>(mu) + Convert<double>(sigma) * z);
}

template <typename T>
constexpr bool IsUnsigned() {
  if constexpr (kIsSubByteInt<T>) {
    return !T::kSigned;
  } else {
    return Integer<T> && std::is_unsigned_v<T>;
  }
}

// Integers (sub-byte ones too) and pred: in 64 bits of the type's
// signedness (pred's 0 and 1 as signed); the offset below b - a wraps back
// into T exactly.
template <typename T>
T UniformInteger(T a, T b, uint64_t bits) {
  using Wide = std::conditional_t<IsUnsigned<T>(), uint64_t, int64_t>;
  const Wide low = Convert<Wide>(a);
  const Wide high = Convert<Wide>(b);
  const uint64_t range =
      low < high ? static_cast<uint64_t>(high) - static_cast<uint64_t>(low) : 1;
  return Convert<T>(static_cast<uint64_t>(low) + bits % range);
}

}  // namespace

absl::StatusOr<Literal> Generate(RandomDistribution distribution, uint64_t key,
                                 const Literal& a, const Literal& b,
                                 const Shape& shape) {
  RET_CHECK(shape.IsArray() && a.shape().rank() == 0 && b.shape().rank() == 0 &&
                a.shape().element_type() == shape.element_type() &&
                b.shape().element_type() == shape.element_type(),
            "rng of ", shape.ToString(), " with parameters ",
            a.shape().ToString(), " and ", b.shape().ToString());
  Literal result(shape);
  absl::Status status = absl::OkStatus();
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T p = a.data<T>()[0];
    const T q = b.data<T>()[0];
    absl::Span<T> out = result.data<T>();
    for (uint64_t i = 0; i < out.size(); ++i) {
      if constexpr (kIsFloat<T>) {
        out[i] = distribution == RandomDistribution::kUniform
                     ? UniformFloat(p, q, Bits(key, i, 0))
                     : Normal(p, q, Bits(key, i, 0), Bits(key, i, 1));
      } else {
        if (distribution != RandomDistribution::kUniform) {
          status = absl::InvalidArgumentError(absl::StrCat(
              "rng: rng_normal needs a floating point type; got ",
              shape.ToString()));
          return;
        }
        out[i] = UniformInteger(p, q, Bits(key, i, 0));
      }
    }
  });
  RETURN_IF_ERROR(status);
  return result;
}

}  // namespace mxla::semantics::random
