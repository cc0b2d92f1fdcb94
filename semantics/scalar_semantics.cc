#include "semantics/scalar_semantics.h"

#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"

namespace mxla::semantics {

// The integer corner cases of the contract, checked at compile time.
static_assert(Add<int32_t>(std::numeric_limits<int32_t>::max(), 1) ==
              std::numeric_limits<int32_t>::min());
static_assert(Neg<int32_t>(std::numeric_limits<int32_t>::min()) ==
              std::numeric_limits<int32_t>::min());
static_assert(Div<int32_t>(7, 0) == -1);
static_assert(Div<int64_t>(std::numeric_limits<int64_t>::min(), -1) ==
              std::numeric_limits<int64_t>::min());
static_assert(Div<int32_t>(-7, 2) == -3);
static_assert(Mul<int64_t>(std::numeric_limits<int64_t>::max(), 2) == -2);
static_assert(ShiftLeft<int8_t>(-1, 3) == -8);
static_assert(ShiftLeft<int32_t>(1, 32) == 0);
static_assert(ShiftLeft<int32_t>(1, -1) == 0);
static_assert(ShiftRightLogical<int8_t>(-128, 7) == 1);
static_assert(ShiftRightArithmetic<int8_t>(-128, 7) == -1);
static_assert(ShiftRightArithmetic<int16_t>(-5, 99) == -1);
static_assert(ShiftRightArithmetic<uint8_t>(0x80, 1) == 0xC0);
static_assert(Clz<uint16_t>(0) == 16 && Clz<int32_t>(-1) == 0);
static_assert(PopulationCount<int8_t>(-1) == 8);
static_assert(TotalOrderKey(-0.0f) < TotalOrderKey(0.0f));
static_assert(TotalOrderKey(-std::numeric_limits<double>::infinity()) <
              TotalOrderKey(-1.0));

namespace {

absl::Status CheckArray(const Literal& literal, absl::string_view what) {
  if (!literal.shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be an array, got ", literal.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status CheckSameShape(const Literal& a, const Literal& b,
                            absl::string_view op) {
  if (a.shape() != b.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": operands must have the same shape, got ",
                     a.shape().ToString(), " and ", b.shape().ToString()));
  }
  return CheckArray(a, op);
}

absl::Status Unsupported(absl::string_view op, PrimitiveType type) {
  return absl::InternalError(absl::StrCat(op,
                                          " is not defined for element type ",
                                          primitive_util::LowercaseName(type)));
}

// f16 and bf16 compute in f32: the literal widened, exactly.
absl::StatusOr<Literal> Widen(const Literal& narrow) {
  return ApplyConvert(narrow, F32);
}

// s2..u4 compute in 32 bits (ir/sub_byte_int.h): the value extended is
// right for every op whose low bits depend only on its operands' low bits.
// shift-right-logical, popcnt and count-leading-zeros see the bits above,
// so they get the bare bits, zero-extended.
bool SeesBitsAbove(HloOpcode opcode) {
  return opcode == HloOpcode::kShiftRightLogical ||
         opcode == HloOpcode::kPopulationCount || opcode == HloOpcode::kClz;
}

absl::StatusOr<Literal> WidenSubByte(const Literal& narrow, HloOpcode opcode) {
  const PrimitiveType type = narrow.shape().element_type();
  if (!SeesBitsAbove(opcode)) {
    return ApplyConvert(narrow, primitive_util::IsSignedIntegralType(type)
                                    ? S32
                                    : U32);
  }
  Literal wide(ShapeUtil::ChangeElementType(narrow.shape(), U32));
  primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsSubByteInt<T>) {
      absl::Span<const T> in = narrow.data<T>();
      absl::Span<uint32_t> out = wide.data<uint32_t>();
      for (size_t i = 0; i < in.size(); ++i) out[i] = in[i].bits();
    }
  });
  return wide;
}

// shift-right-arithmetic reads an unsigned operand as the signed type of
// its width (XLA's HandleShiftRightArithmetic: u4 15 >> 1 is 15), so a u2
// or u4 operand, widened with zeros, gets its top bit copied up.
void SignExtendUnsigned(Literal& wide, PrimitiveType type) {
  const int shift = 32 - primitive_util::BitWidth(type);
  for (uint32_t& value : wide.data<uint32_t>()) {
    value = static_cast<uint32_t>(static_cast<int32_t>(value << shift) >> shift);
  }
}

// The op computed on the widened operands, wrapped back into `type`.
absl::StatusOr<Literal> NarrowSubByte(HloOpcode opcode, Literal result,
                                      PrimitiveType type) {
  if (opcode == HloOpcode::kClz) {
    const uint32_t extra = 32 - primitive_util::BitWidth(type);
    for (uint32_t& zeros : result.data<uint32_t>()) zeros -= extra;
  }
  return ApplyConvert(result, type);
}

}  // namespace

absl::StatusOr<Literal> ApplyUnaryOp(HloOpcode opcode, const Literal& operand) {
  RETURN_IF_ERROR(CheckArray(operand, HloOpcodeString(opcode)));
  if (primitive_util::IsNarrowFloatType(operand.shape().element_type())) {
    ASSIGN_OR_RETURN(Literal wide, Widen(operand));
    ASSIGN_OR_RETURN(Literal result, ApplyUnaryOp(opcode, wide));
    return ApplyConvert(result, operand.shape().element_type());
  }
  if (primitive_util::IsSubByteIntType(operand.shape().element_type())) {
    ASSIGN_OR_RETURN(Literal wide, WidenSubByte(operand, opcode));
    ASSIGN_OR_RETURN(Literal result, ApplyUnaryOp(opcode, wide));
    return NarrowSubByte(opcode, std::move(result),
                         operand.shape().element_type());
  }
  Literal result(operand.shape());
  PrimitiveType type = operand.shape().element_type();
  bool defined = primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return WithUnaryOp<T>(opcode, [&](auto op) {
      absl::Span<const T> in = operand.data<T>();
      absl::Span<T> out = result.data<T>();
      for (size_t i = 0; i < in.size(); ++i) out[i] = op(in[i]);
    });
  });
  if (!defined) return Unsupported(HloOpcodeString(opcode), type);
  return result;
}

absl::StatusOr<Literal> ApplyBinaryOp(HloOpcode opcode, const Literal& lhs,
                                      const Literal& rhs) {
  RETURN_IF_ERROR(CheckSameShape(lhs, rhs, HloOpcodeString(opcode)));
  if (primitive_util::IsNarrowFloatType(lhs.shape().element_type())) {
    ASSIGN_OR_RETURN(Literal wide_lhs, Widen(lhs));
    ASSIGN_OR_RETURN(Literal wide_rhs, Widen(rhs));
    ASSIGN_OR_RETURN(Literal result, ApplyBinaryOp(opcode, wide_lhs, wide_rhs));
    return ApplyConvert(result, lhs.shape().element_type());
  }
  if (primitive_util::IsSubByteIntType(lhs.shape().element_type())) {
    ASSIGN_OR_RETURN(Literal wide_lhs, WidenSubByte(lhs, opcode));
    ASSIGN_OR_RETURN(Literal wide_rhs, WidenSubByte(rhs, opcode));
    if (opcode == HloOpcode::kShiftRightArithmetic &&
        primitive_util::IsUnsignedIntegralType(lhs.shape().element_type())) {
      SignExtendUnsigned(wide_lhs, lhs.shape().element_type());
    }
    ASSIGN_OR_RETURN(Literal result, ApplyBinaryOp(opcode, wide_lhs, wide_rhs));
    return NarrowSubByte(opcode, std::move(result),
                         lhs.shape().element_type());
  }
  Literal result(lhs.shape());
  PrimitiveType type = lhs.shape().element_type();
  bool defined = primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return WithBinaryOp<T>(opcode, [&](auto op) {
      absl::Span<const T> a = lhs.data<T>();
      absl::Span<const T> b = rhs.data<T>();
      absl::Span<T> out = result.data<T>();
      for (size_t i = 0; i < a.size(); ++i) out[i] = op(a[i], b[i]);
    });
  });
  if (!defined) return Unsupported(HloOpcodeString(opcode), type);
  return result;
}

absl::StatusOr<Literal> ApplyCompare(ComparisonDirection direction,
                                     const Literal& lhs, const Literal& rhs,
                                     bool total_order) {
  RETURN_IF_ERROR(CheckSameShape(lhs, rhs, "compare"));
  if (primitive_util::IsNarrowFloatType(lhs.shape().element_type())) {
    // Widening is exact and keeps the total order (NaNs keep their sign).
    ASSIGN_OR_RETURN(Literal wide_lhs, Widen(lhs));
    ASSIGN_OR_RETURN(Literal wide_rhs, Widen(rhs));
    return ApplyCompare(direction, wide_lhs, wide_rhs, total_order);
  }
  if (primitive_util::IsSubByteIntType(lhs.shape().element_type())) {
    ASSIGN_OR_RETURN(Literal wide_lhs, WidenSubByte(lhs, HloOpcode::kCompare));
    ASSIGN_OR_RETURN(Literal wide_rhs, WidenSubByte(rhs, HloOpcode::kCompare));
    return ApplyCompare(direction, wide_lhs, wide_rhs, total_order);
  }
  Literal result(ShapeUtil::ChangeElementType(lhs.shape(), PRED));
  primitive_util::ArrayTypeSwitch(lhs.shape().element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Element<T>) {
    absl::Span<const T> a = lhs.data<T>();
    absl::Span<const T> b = rhs.data<T>();
    absl::Span<bool> out = result.data<bool>();
    // The direction is a template argument so the switch stays out of the
    // element loop.
    auto loop = [&](auto kDirection) {
      if constexpr (Float<T>) {
        if (total_order) {
          for (size_t i = 0; i < a.size(); ++i) {
            out[i] = Compare(kDirection.value, TotalOrderKey(a[i]),
                             TotalOrderKey(b[i]));
          }
          return;
        }
      }
      for (size_t i = 0; i < a.size(); ++i) {
        out[i] = Compare(kDirection.value, a[i], b[i]);
      }
    };
    using D = ComparisonDirection;
    switch (direction) {
      case D::kEq:
        return loop(std::integral_constant<D, D::kEq>{});
      case D::kNe:
        return loop(std::integral_constant<D, D::kNe>{});
      case D::kLt:
        return loop(std::integral_constant<D, D::kLt>{});
      case D::kLe:
        return loop(std::integral_constant<D, D::kLe>{});
      case D::kGt:
        return loop(std::integral_constant<D, D::kGt>{});
      case D::kGe:
        return loop(std::integral_constant<D, D::kGe>{});
    }
    }
  });
  return result;
}

absl::StatusOr<Literal> ApplySelect(const Literal& pred, const Literal& on_true,
                                    const Literal& on_false) {
  RETURN_IF_ERROR(CheckSameShape(on_true, on_false, "select"));
  if (pred.shape() != ShapeUtil::ChangeElementType(on_true.shape(), PRED)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "select: pred must be pred with the dimensions of ",
        on_true.shape().ToString(), ", got ", pred.shape().ToString()));
  }
  Literal result(on_true.shape());
  primitive_util::ArrayTypeSwitch(
      on_true.shape().element_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        absl::Span<const bool> p = pred.data<bool>();
        absl::Span<const T> t = on_true.data<T>();
        absl::Span<const T> f = on_false.data<T>();
        absl::Span<T> out = result.data<T>();
        for (size_t i = 0; i < p.size(); ++i) out[i] = p[i] ? t[i] : f[i];
      });
  return result;
}

absl::StatusOr<Literal> ApplyConvert(const Literal& operand,
                                     PrimitiveType new_type) {
  RETURN_IF_ERROR(CheckArray(operand, "convert"));
  if (!primitive_util::IsArrayType(new_type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("convert: cannot convert to ",
                     primitive_util::LowercaseName(new_type)));
  }
  Literal result(ShapeUtil::ChangeElementType(operand.shape(), new_type));
  primitive_util::ArrayTypeSwitch(
      operand.shape().element_type(), [&](auto from_tag) {
        using From = typename decltype(from_tag)::type;
        primitive_util::ArrayTypeSwitch(new_type, [&](auto to_tag) {
          using To = typename decltype(to_tag)::type;
          absl::Span<const From> in = operand.data<From>();
          absl::Span<To> out = result.data<To>();
          for (size_t i = 0; i < in.size(); ++i)
            out[i] = Convert<To, From>(in[i]);
        });
      });
  return result;
}

}  // namespace mxla::semantics
