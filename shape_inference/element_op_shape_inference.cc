// Shape inference for the ops that map elements to elements but are not
// plain unary or binary ops: is-finite, clamp, reduce-precision and
// bitcast-convert; and for reverse, get-dimension-size and opt-barrier.
// XLA's rules and message fragments, each message naming the op first.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::DimsString;
using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

absl::Status ShapeInference::CheckTotalOrderCompare(const Shape& operand) {
  if (operand.IsArray() &&
      primitive_util::IsFloatingPointType(operand.element_type())) {
    return absl::OkStatus();
  }
  return OpError(HloOpcode::kCompare,
                 "comparison type TOTALORDER needs floating-point operands; "
                 "got ",
                 operand.ToString(), ".");
}

absl::StatusOr<Shape> ShapeInference::InferIsFiniteShape(
    const Shape& operand) {
  RETURN_IF_ERROR(ExpectValidArray(HloOpcode::kIsFinite, operand, "operand"));
  if (!primitive_util::IsFloatingPointType(operand.element_type())) {
    return OpError(HloOpcode::kIsFinite,
                   "Expected element type in shape to be floating point for "
                   "IsFinite operation; got ",
                   primitive_util::UppercaseName(operand.element_type()),
                   ". Operand is ", operand.ToString(), ".");
  }
  return ShapeUtil::ChangeElementType(operand, PRED);
}

absl::StatusOr<Shape> ShapeInference::InferClampShape(const Shape& min,
                                                      const Shape& operand,
                                                      const Shape& max) {
  constexpr HloOpcode kOp = HloOpcode::kClamp;
  RETURN_IF_ERROR(ExpectValidArray(kOp, min, "min"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, max, "max"));
  std::string shapes = absl::StrCat(min.ToString(), ", ", operand.ToString(),
                                    ", ", max.ToString(), ".");
  if (!ShapeUtil::SameElementType(min, operand) ||
      !ShapeUtil::SameElementType(max, operand)) {
    return OpError(kOp, "Clamp with different shapes: ", shapes);
  }
  // A bound is a scalar or has the operand's dimensions.
  for (const Shape* bound : {&min, &max}) {
    if (!bound->IsScalar() && !ShapeUtil::SameDimensions(*bound, operand)) {
      return OpError(kOp, "Clamp with incompatible shapes: ", shapes);
    }
  }
  return operand;
}

absl::StatusOr<Shape> ShapeInference::InferReducePrecisionShape(
    const Shape& operand, int64_t exponent_bits, int64_t mantissa_bits) {
  constexpr HloOpcode kOp = HloOpcode::kReducePrecision;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  if (!primitive_util::IsFloatingPointType(operand.element_type())) {
    return OpError(kOp,
                   "Expected element type in shape to be floating point for "
                   "ReducePrecision operation; got ",
                   primitive_util::UppercaseName(operand.element_type()),
                   ". Operand is ", operand.ToString(), ".");
  }
  if (exponent_bits < 1) {
    return OpError(kOp, "Expected exponent_bits >= 1; got ", exponent_bits,
                   ".");
  }
  if (mantissa_bits < 0) {
    return OpError(kOp, "Expected non-negative mantissa_bits; got ",
                   mantissa_bits, ".");
  }
  return operand;
}

namespace {

// pred is one byte in memory, as in XLA's bitcast-convert.
int BitcastConvertBitWidth(PrimitiveType type) {
  return static_cast<int>(primitive_util::ByteWidth(type) * 8);
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferBitcastConvertShape(
    const Shape& operand, PrimitiveType new_type) {
  constexpr HloOpcode kOp = HloOpcode::kBitcastConvert;
  absl::string_view to = primitive_util::LowercaseName(new_type);
  if (!operand.IsArray() || !primitive_util::IsArrayType(new_type)) {
    return OpError(kOp,
                   "Cannot convert from or to tuple type; requested "
                   "conversion: ",
                   operand.ToString(), " => ", to, ".");
  }
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  const int from_bits = BitcastConvertBitWidth(operand.element_type());
  const int to_bits = BitcastConvertBitWidth(new_type);
  // Types narrower than their byte: s2..u4 and f4e2m1fn.
  auto sub_byte = [](PrimitiveType type) {
    return type != PRED && primitive_util::BitWidth(type) <
                               8 * primitive_util::ByteWidth(type);
  };
  const PrimitiveType from = operand.element_type();
  const bool both_sub_byte_ints = primitive_util::IsSubByteIntType(from) &&
                                  primitive_util::IsSubByteIntType(new_type);
  if ((sub_byte(from) || sub_byte(new_type)) && from != new_type &&
      !(both_sub_byte_ints &&
        primitive_util::BitWidth(from) == primitive_util::BitWidth(new_type))) {
    // XLA packs the narrow elements into the wide ones; mxla keeps one
    // element a byte and reinterprets only between equal widths.
    return OpError(kOp, "bitcast-convert between a sub-byte type and a type "
                   "of another width or kind is not supported by mxla: ",
                   operand.ToString(), " => ", to, ".");
  }
  const int wide = std::max(from_bits, to_bits);
  const int narrow = std::min(from_bits, to_bits);
  if (wide % narrow != 0) {
    return OpError(kOp, "Cannot bitcast types with undivisible bit-widths: ",
                   operand.ToString(), " => ", to, ".");
  }
  const int64_t ratio = wide / narrow;
  std::vector<int64_t> dims(operand.dimensions().begin(),
                            operand.dimensions().end());
  if (from_bits > to_bits) {
    dims.push_back(ratio);  // the pieces of one element, little end first
  } else if (from_bits < to_bits) {
    if (dims.empty() || dims.back() != ratio) {
      return OpError(kOp, "Last dimension of input shape=",
                     dims.empty() ? 0 : dims.back(),
                     " is not equal to ratio of bit-widths=", ratio,
                     " for bitcast-convert from ", operand.ToString(), " to ",
                     to, ".");
    }
    dims.pop_back();
  }
  return ShapeUtil::MakeShape(new_type, dims);
}

absl::StatusOr<Shape> ShapeInference::InferReverseShape(
    const Shape& operand, absl::Span<const int64_t> dimensions) {
  constexpr HloOpcode kOp = HloOpcode::kReverse;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  absl::flat_hash_set<int64_t> seen;
  for (int64_t d : dimensions) {
    if (!seen.insert(d).second) {
      return OpError(kOp, "a dimension number is duplicated in reverse: ",
                     DimsString(dimensions), ".");
    }
    if (d < 0 || d >= operand.rank()) {
      return OpError(kOp, "One of the reverse dimensions (", d,
                     ") is out-of-bounds in shape ", operand.ToString(), ".");
    }
  }
  return operand;
}

absl::StatusOr<Shape> ShapeInference::InferGetDimensionSizeShape(
    const Shape& operand, int64_t dimension) {
  constexpr HloOpcode kOp = HloOpcode::kGetDimensionSize;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return OpError(kOp, "GetDimensionSize dimension out of bounds: ",
                   dimension, ". Operand is ", operand.ToString(), ".");
  }
  if (operand.dimensions(dimension) > std::numeric_limits<int32_t>::max()) {
    return OpError(kOp, "GetDimensionSize's input shape is ",
                   operand.ToString(), ", the ", dimension,
                   "th dimension exceeds the INT_MAX limit.");
  }
  return ShapeUtil::MakeShape(S32, {});
}

}  // namespace mxla
