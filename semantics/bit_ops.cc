#include "semantics/bit_ops.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::semantics {

absl::StatusOr<Literal> ApplyIsFinite(const Literal& operand) {
  PrimitiveType type = operand.shape().element_type();
  if (primitive_util::IsNarrowFloatType(type)) {
    ASSIGN_OR_RETURN(Literal wide, ApplyConvert(operand, F32));
    return ApplyIsFinite(wide);
  }
  RET_CHECK(type == F32 || type == F64, "is-finite of ",
            operand.shape().ToString());
  Literal result(ShapeUtil::ChangeElementType(operand.shape(), PRED));
  absl::Span<bool> out = result.data<bool>();
  auto fill = [&](auto values) {
    for (size_t i = 0; i < values.size(); ++i) {
      out[i] = std::isfinite(values[i]);
    }
  };
  if (type == F32) fill(operand.data<float>());
  if (type == F64) fill(operand.data<double>());
  return result;
}

absl::StatusOr<Literal> ApplyReducePrecision(const Literal& operand,
                                             int64_t exponent_bits,
                                             int64_t mantissa_bits) {
  const PrimitiveType type = operand.shape().element_type();
  RET_CHECK(primitive_util::IsFloatingPointType(type), "reduce-precision of ",
            operand.shape().ToString());
  RET_CHECK(exponent_bits >= 1 && mantissa_bits >= 0,
            "reduce-precision bits ", exponent_bits, ", ", mantissa_bits);
  if (primitive_util::SmallFloatFormatOf(type) != nullptr) {
    // Widened exactly to f32; the reduced value rounds back (exactly when
    // it is no wider than the type).
    ASSIGN_OR_RETURN(Literal wide, ApplyConvert(operand, F32));
    ASSIGN_OR_RETURN(Literal reduced,
                     ApplyReducePrecision(wide, exponent_bits, mantissa_bits));
    return ApplyConvert(reduced, type);
  }
  const int width = static_cast<int>(primitive_util::ByteWidth(type) * 8);
  const int mantissa = primitive_util::MantissaBits(type);
  const int exponent = width - 1 - mantissa;
  Literal result(operand.shape());
  auto reduce = [&](auto zero) {
    using Bits = decltype(zero);
    const auto* in = static_cast<const Bits*>(operand.untyped_data());
    auto* out = static_cast<Bits*>(result.untyped_data());
    for (int64_t i = 0; i < operand.element_count(); ++i) {
      out[i] = ReducePrecisionBits<Bits>(in[i], exponent, mantissa,
                                         exponent_bits, mantissa_bits);
    }
  };
  if (width == 16) reduce(uint16_t{});
  if (width == 32) reduce(uint32_t{});
  if (width == 64) reduce(uint64_t{});
  return result;
}

absl::StatusOr<Literal> ApplyBitcastConvert(const Literal& operand,
                                            const Shape& shape) {
  RET_CHECK(operand.shape().IsArray() && shape.IsArray() &&
                operand.size_bytes() ==
                    ShapeUtil::ElementsIn(shape) *
                        primitive_util::ByteWidth(shape.element_type()),
            "bitcast-convert from ", operand.shape().ToString(), " to ",
            shape.ToString());
  Literal result(shape);
  if (primitive_util::IsSubByteIntType(shape.element_type())) {
    // s4 <-> u4 (equal widths; checked by shape inference): the bits
    // re-extended, not the stored bytes copied.
    primitive_util::ArrayTypeSwitch(operand.shape().element_type(), [&](auto from) {
      using From = typename decltype(from)::type;
      if constexpr (kIsSubByteInt<From>) {
        absl::Span<const From> in = operand.data<From>();
        primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto to) {
          using To = typename decltype(to)::type;
          if constexpr (kIsSubByteInt<To>) {
            absl::Span<To> out = result.data<To>();
            for (size_t i = 0; i < in.size(); ++i) out[i] = To(in[i].bits());
          }
        });
      }
    });
    return result;
  }
  if (shape.element_type() == PRED) {
    // Any nonzero byte is true; copying it into a bool would not be.
    const auto* bytes = static_cast<const uint8_t*>(operand.untyped_data());
    absl::Span<bool> out = result.data<bool>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = bytes[i] != 0;
    return result;
  }
  if (operand.size_bytes() > 0) {
    std::memcpy(result.untyped_data(), operand.untyped_data(),
                operand.size_bytes());
  }
  return result;
}

}  // namespace mxla::semantics
