// Element types of arrays (`pred`, `s2`..`s64`, `u2`..`u64`, `f16`, `bf16`,
// `f32`, `f64`) and the one place that maps them to C++ types. Non-array shapes use TUPLE.
#ifndef MXLA_IR_PRIMITIVE_TYPE_H_
#define MXLA_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/narrow_float.h"
#include "ir/sub_byte_int.h"

namespace mxla {

enum PrimitiveType : int {
  PRIMITIVE_TYPE_INVALID = 0,
#define MXLA_PRIMITIVE_TYPE(e, text, native) e,
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
  TUPLE,
  // XLA's token: orders side effects and carries no data (`token[]`).
  TOKEN,
};

namespace primitive_util {

// "f32", "pred", "tuple"; the spelling used in HLO text.
absl::string_view LowercaseName(PrimitiveType type);
// The upper-case enum spelling ("F32"), used in XLA-style messages.
absl::string_view UppercaseName(PrimitiveType type);
// Parses an array element type name ("f32"); tuple and unknown names fail.
absl::StatusOr<PrimitiveType> ParseArrayType(absl::string_view name);

bool IsArrayType(PrimitiveType type);
bool IsFloatingPointType(PrimitiveType type);  // f8.., f16, bf16, f32, f64
// f16, bf16 and the 8-bit and smaller floats: stored narrow, computed in
// f32 (ir/narrow_float.h, ir/small_float.h).
bool IsNarrowFloatType(PrimitiveType type);
// The format of an 8-bit or smaller float type; null for any other type.
const SmallFloatFormat* SmallFloatFormatOf(PrimitiveType type);
bool IsIntegralType(PrimitiveType type);  // signed and unsigned, not pred
// s2, s4, u2, u4: a byte an element, computed in 32 bits
// (ir/sub_byte_int.h).
bool IsSubByteIntType(PrimitiveType type);
bool IsSignedIntegralType(PrimitiveType type);
bool IsUnsignedIntegralType(PrimitiveType type);
int64_t ByteWidth(PrimitiveType type);  // 0 for non-array types
int BitWidth(PrimitiveType type);       // pred is 1, s4 is 4
// The stored mantissa bits of a float type (f8e4m3fn 3, f16 10, bf16 7,
// f32 23, f64 52); 0 for other types.
int MantissaBits(PrimitiveType type);
// The type an op on `type` computes in: f32 for f16 and bf16, else `type`.
PrimitiveType ComputeType(PrimitiveType type);

// C++ type <-> PrimitiveType.
template <typename T>
struct NativeToPrimitiveType;
template <PrimitiveType kType>
struct PrimitiveToNative;

#define MXLA_PRIMITIVE_TYPE(e, text, native)                     \
  template <>                                                    \
  struct NativeToPrimitiveType<native> {                         \
    static constexpr PrimitiveType value = e;                    \
  };                                                             \
  template <>                                                    \
  struct PrimitiveToNative<e> {                                  \
    using type = native;                                         \
  };
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE

template <typename T>
inline constexpr PrimitiveType kNativeToPrimitive =
    NativeToPrimitiveType<std::remove_cv_t<T>>::value;

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls `fn(TypeTag<T>{})` with T the native type of array type `type` and
// returns its result. `type` must be an array type (checked by the caller).
template <typename Fn>
decltype(auto) ArrayTypeSwitch(PrimitiveType type, Fn&& fn) {
  switch (type) {
#define MXLA_PRIMITIVE_TYPE(e, text, native) \
  case e:                                    \
    return fn(TypeTag<native>{});
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
    default:
      break;
  }
  // Unreachable for array types; the caller guarantees one.
  __builtin_trap();
}

}  // namespace primitive_util
}  // namespace mxla

#endif  // MXLA_IR_PRIMITIVE_TYPE_H_
