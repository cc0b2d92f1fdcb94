#include "builder/operators.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"

namespace mxla {

namespace {

// `value` as an int64 when it is an integer inside T's range.
template <typename T>
bool FitsInteger(double value) {
  return std::trunc(value) == value &&
         value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
         value <= static_cast<double>(std::numeric_limits<T>::max());
}

}  // namespace

XlaOp ScalarLike(XlaOp like, double value, SourceLocation location) {
  XlaBuilder* builder = like.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = builder->GetShape(like);
  if (!shape.ok()) return XlaOp();
  if (!shape->IsArray()) {
    builder->NoteError(absl::InvalidArgumentError(absl::StrCat(
        "ScalarLike(", shape->ToString(), ", ", value, ") at ",
        CallSiteString(location), ": the op must be an array")));
    return XlaOp();
  }
  switch (shape->element_type()) {
    case F32:
      return ConstantR0<float>(builder, static_cast<float>(value), location);
    case F64:
      return ConstantR0<double>(builder, value, location);
    case PRED:
      return ConstantR0<bool>(builder, value != 0, location);
    case S32:
      if (FitsInteger<int32_t>(value)) {
        return ConstantR0<int32_t>(builder, static_cast<int32_t>(value),
                                   location);
      }
      break;
    case S64:
      if (FitsInteger<int64_t>(value) &&
          value < 9223372036854775807.0) {  // 2^63 itself does not fit
        return ConstantR0<int64_t>(builder, static_cast<int64_t>(value),
                                   location);
      }
      break;
    default:
      break;
  }
  return ConvertElementType(ConstantR0<double>(builder, value, location),
                            shape->element_type(), location);
}

XlaOp operator+(XlaOp lhs, XlaOp rhs) { return Add(lhs, rhs); }
XlaOp operator-(XlaOp lhs, XlaOp rhs) { return Sub(lhs, rhs); }
XlaOp operator*(XlaOp lhs, XlaOp rhs) { return Mul(lhs, rhs); }
XlaOp operator/(XlaOp lhs, XlaOp rhs) { return Div(lhs, rhs); }
XlaOp operator-(XlaOp operand) { return Neg(operand); }

}  // namespace mxla
