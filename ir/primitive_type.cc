#include "ir/primitive_type.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace mxla::primitive_util {

absl::string_view LowercaseName(PrimitiveType type) {
  switch (type) {
#define MXLA_PRIMITIVE_TYPE(e, text, native) \
  case e:                                    \
    return text;
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
    case TUPLE:
      return "tuple";
    case TOKEN:
      return "token";
    default:
      return "invalid";
  }
}

absl::string_view UppercaseName(PrimitiveType type) {
  switch (type) {
#define MXLA_PRIMITIVE_TYPE(e, text, native) \
  case e:                                    \
    return #e;
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
    case TUPLE:
      return "TUPLE";
    case TOKEN:
      return "TOKEN";
    default:
      return "INVALID";
  }
}

namespace {

// The kind of an XLA element type mxla does not have, or "" if `name` is
// not one.
absl::string_view UnsupportedXlaTypeKind(absl::string_view name) {
  if (name == "c64" || name == "c128") return "complex";
  if (absl::StartsWith(name, "f8") || absl::StartsWith(name, "f4") ||
      absl::StartsWith(name, "f6")) {
    return name.size() > 2 ? "8-bit or smaller float" : "";
  }
  if (name == "s1" || name == "u1") return "1-bit integer";
  if (name == "opaque") return "non-array";
  return "";
}

}  // namespace

absl::StatusOr<PrimitiveType> ParseArrayType(absl::string_view name) {
#define MXLA_PRIMITIVE_TYPE(e, text, native) \
  if (name == text) return e;
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
  if (absl::string_view kind = UnsupportedXlaTypeKind(name); !kind.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("element type '", name, "' (", kind,
                     ") is not supported by mxla"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name,
                   "' (supported: pred, s2, s4, s8, s16, s32, s64, u2, u4, u8, "
                   "u16, u32, u64, f4e2m1fn, f8e3m4, f8e4m3, f8e4m3fn, "
                   "f8e4m3fnuz, f8e4m3b11fnuz, f8e5m2, f8e5m2fnuz, f8e8m0fnu, f16, "
                   "bf16, "
                   "f32, f64)"));
}

bool IsArrayType(PrimitiveType type) {
  switch (type) {
#define MXLA_PRIMITIVE_TYPE(e, text, native) case e:
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
    return true;
    default:
      return false;
  }
}

bool IsFloatingPointType(PrimitiveType type) {
  return type == F32 || type == F64 || IsNarrowFloatType(type);
}

bool IsNarrowFloatType(PrimitiveType type) {
  return type == F16 || type == BF16 || SmallFloatFormatOf(type) != nullptr;
}

const SmallFloatFormat* SmallFloatFormatOf(PrimitiveType type) {
  switch (type) {
    case F8E5M2: return &kF8E5M2;
    case F8E4M3: return &kF8E4M3;
    case F8E3M4: return &kF8E3M4;
    case F8E4M3FN: return &kF8E4M3FN;
    case F8E4M3FNUZ: return &kF8E4M3FNUZ;
    case F8E5M2FNUZ: return &kF8E5M2FNUZ;
    case F8E4M3B11FNUZ: return &kF8E4M3B11FNUZ;
    case F4E2M1FN: return &kF4E2M1FN;
    case F8E8M0FNU: return &kF8E8M0FNU;
    default: return nullptr;
  }
}

bool IsSubByteIntType(PrimitiveType type) {
  return type == S2 || type == S4 || type == U2 || type == U4;
}

bool IsSignedIntegralType(PrimitiveType type) {
  return type == S2 || type == S4 || type == S8 || type == S16 || type == S32 || type == S64;
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  return type == U2 || type == U4 || type == U8 || type == U16 || type == U32 || type == U64;
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

int BitWidth(PrimitiveType type) {
  switch (type) {
    case PRED: return 1;
    case S2: case U2: return 2;
    case S4: case U4: return 4;
    default:
      if (const SmallFloatFormat* format = SmallFloatFormatOf(type)) {
        return format->bits();
      }
      return static_cast<int>(ByteWidth(type) * 8);
  }
}

int MantissaBits(PrimitiveType type) {
  switch (type) {
    case F16: return 10;
    case BF16: return 7;
    case F32: return 23;
    case F64: return 52;
    default:
      if (const SmallFloatFormat* format = SmallFloatFormatOf(type)) {
        return format->mantissa_bits;
      }
      return 0;
  }
}

PrimitiveType ComputeType(PrimitiveType type) {
  return IsNarrowFloatType(type) ? F32 : type;
}

int64_t ByteWidth(PrimitiveType type) {
  switch (type) {
#define MXLA_PRIMITIVE_TYPE(e, text, native) \
  case e:                                    \
    return sizeof(native);
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
    default:
      return 0;
  }
}

}  // namespace mxla::primitive_util
