#include "ir/primitive_type.h"

#include "absl/status/status.h"
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
    default:
      return "INVALID";
  }
}

absl::StatusOr<PrimitiveType> ParseArrayType(absl::string_view name) {
#define MXLA_PRIMITIVE_TYPE(e, text, native) \
  if (name == text) return e;
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name,
                   "' (supported: pred, s32, s64, f32, f64)"));
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
  return type == F32 || type == F64;
}

bool IsSignedIntegralType(PrimitiveType type) {
  return type == S32 || type == S64;
}

bool IsIntegralType(PrimitiveType type) { return IsSignedIntegralType(type); }

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
