#include "codegen/small_float_ir.h"

#include <cmath>

#include "codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {
namespace {

// f8e8m0fnu, as small_float_internal: the byte is the f32 exponent field,
// 0x00 is 2^-127 (an f32 subnormal) and 0xff NaN.
llvm::Value* EmitExponentOnlyToF32(llvm::IRBuilder<>& b,
                                   const SmallFloatFormat& format,
                                   llvm::Value* bits) {
  llvm::Type* i32 = Like(bits, b.getInt32Ty());
  auto constant = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* x = b.CreateZExt(bits, i32);
  llvm::Value* result = b.CreateSelect(b.CreateICmpEQ(x, constant(0)),
                                       constant(0x00400000u),
                                       b.CreateShl(x, 23));
  result = b.CreateSelect(b.CreateICmpEQ(x, constant(format.positive_nan())),
                          constant(0x7fc00000u), result);
  return b.CreateBitCast(result, Like(bits, b.getFloatTy()));
}

llvm::Value* EmitF32ToExponentOnly(llvm::IRBuilder<>& b,
                                   const SmallFloatFormat& format,
                                   llvm::Value* value) {
  llvm::Type* i32 = Like(value, b.getInt32Ty());
  auto constant = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* f32_bits = b.CreateBitCast(value, i32);
  llvm::Value* exponent = b.CreateLShr(f32_bits, 23);
  llvm::Value* mantissa = b.CreateAnd(f32_bits, constant(0x7fffffu));
  // A normal value rounds up from a mantissa of 1.5; a subnormal one is
  // 2^-126 above 2^-127, else 2^-127 (0x00).
  llvm::Value* normal = b.CreateAdd(
      exponent,
      b.CreateZExt(b.CreateICmpUGE(mantissa, constant(0x400000u)), i32));
  llvm::Value* subnormal =
      b.CreateZExt(b.CreateICmpUGT(mantissa, constant(0x400000u)), i32);
  llvm::Value* bits = b.CreateSelect(b.CreateICmpEQ(exponent, constant(0)),
                                     subnormal, normal);
  // Not above zero (so also -0, negatives and NaN), an infinity, or a
  // rounding past 2^127: NaN.
  llvm::Value* nan = constant(format.positive_nan());
  llvm::Value* positive = b.CreateFCmpOGT(
      value, llvm::ConstantFP::get(value->getType(), 0.0));
  llvm::Value* finite = b.CreateICmpULE(bits, constant(format.max_finite()));
  bits = b.CreateSelect(b.CreateAnd(positive, finite), bits, nan);
  return b.CreateTrunc(bits, Like(value, b.getInt8Ty()));
}

}  // namespace

llvm::Value* EmitSmallFloatToF32(llvm::IRBuilder<>& b,
                                 const SmallFloatFormat& format,
                                 llvm::Value* bits) {
  if (!format.has_sign()) return EmitExponentOnlyToF32(b, format, bits);
  llvm::Type* i32 = Like(bits, b.getInt32Ty());
  llvm::Type* f32 = Like(bits, b.getFloatTy());
  auto constant = [&](uint32_t value) {
    return llvm::ConstantInt::get(i32, value);
  };
  const int m = format.mantissa_bits;
  const uint32_t sign_mask = format.sign_mask();
  llvm::Value* x = b.CreateZExt(bits, i32);
  llvm::Value* magnitude = b.CreateAnd(x, constant(sign_mask - 1));
  llvm::Value* exponent = b.CreateLShr(magnitude, m);
  llvm::Value* mantissa = b.CreateAnd(magnitude, constant((1u << m) - 1));
  llvm::Value* sign32 =
      b.CreateShl(b.CreateAnd(x, constant(sign_mask)), 32 - format.bits());
  // Normal: the fields moved into place and the exponent rebiased.
  llvm::Value* normal = b.CreateAdd(
      b.CreateShl(magnitude, 23 - m),
      constant(static_cast<uint32_t>(127 - format.bias) << 23));
  // Zero or subnormal: mantissa * 2^(1 - bias - m), exact in f32.
  llvm::Value* subnormal = b.CreateBitCast(
      b.CreateFMul(b.CreateUIToFP(mantissa, f32),
                   llvm::ConstantFP::get(
                       f32, std::ldexp(1.0, 1 - format.bias - m))),
      i32);
  llvm::Value* result = b.CreateOr(
      b.CreateSelect(b.CreateICmpEQ(exponent, constant(0)), subnormal, normal),
      sign32);
  // Infinities and NaNs (f32's quiet NaN, with the byte's sign).
  const uint32_t top_exponent = (1u << format.exponent_bits) - 1;
  llvm::Value* nan = b.CreateOr(constant(0x7fc00000u), sign32);
  switch (format.kind) {
    case SmallFloatKind::kIeee: {
      llvm::Value* special = b.CreateICmpEQ(exponent, constant(top_exponent));
      llvm::Value* infinity = b.CreateOr(constant(0x7f800000u), sign32);
      llvm::Value* is_inf = b.CreateICmpEQ(mantissa, constant(0));
      result = b.CreateSelect(special, b.CreateSelect(is_inf, infinity, nan),
                              result);
      break;
    }
    case SmallFloatKind::kFiniteNanAllOnes:
      result = b.CreateSelect(b.CreateICmpEQ(magnitude, constant(sign_mask - 1)),
                              nan, result);
      break;
    case SmallFloatKind::kFiniteNanNegativeZero:
      result = b.CreateSelect(b.CreateICmpEQ(x, constant(sign_mask)), nan,
                              result);
      break;
    case SmallFloatKind::kFiniteOnly:
    case SmallFloatKind::kExponentOnly:  // handled above
      break;
  }
  return b.CreateBitCast(result, f32);
}

llvm::Value* EmitF32ToSmallFloat(llvm::IRBuilder<>& b,
                                 const SmallFloatFormat& format,
                                 llvm::Value* value) {
  if (!format.has_sign()) return EmitF32ToExponentOnly(b, format, value);
  llvm::Type* i32 = Like(value, b.getInt32Ty());
  llvm::Type* f32 = Like(value, b.getFloatTy());
  auto constant = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  const int m = format.mantissa_bits;
  llvm::Value* f32_bits = b.CreateBitCast(value, i32);
  llvm::Value* negative = b.CreateICmpSLT(f32_bits, constant(0));
  llvm::Value* magnitude = b.CreateAnd(f32_bits, constant(0x7fffffffu));
  // Normal: round the dropped mantissa bits to nearest even, then rebias.
  const int drop = 23 - m;
  llvm::Value* odd = b.CreateAnd(b.CreateLShr(magnitude, drop), constant(1));
  llvm::Value* rounded =
      b.CreateAdd(magnitude, b.CreateAdd(odd, constant((1u << (drop - 1)) - 1)));
  llvm::Value* normal =
      b.CreateSub(b.CreateLShr(rounded, drop),
                  constant(static_cast<uint32_t>(127 - format.bias) << m));
  // Below the smallest normal: a count of subnormal steps, rounded to even
  // (the scaling is exact).
  llvm::Value* scaled = b.CreateFMul(
      b.CreateBitCast(magnitude, f32),
      llvm::ConstantFP::get(f32, std::ldexp(1.0, format.bias - 1 + m)));
  llvm::Value* units = b.CreateFPToUI(
      b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, scaled), i32);
  const uint32_t min_normal = static_cast<uint32_t>(127 - format.bias + 1) << 23;
  llvm::Value* bits = b.CreateSelect(
      b.CreateICmpULT(magnitude, constant(min_normal)), units, normal);
  llvm::Value* infinity = constant(format.positive_infinity());
  bits = b.CreateSelect(b.CreateICmpUGT(bits, constant(format.max_finite())),
                        infinity, bits);
  bits = b.CreateSelect(b.CreateICmpEQ(magnitude, constant(0x7f800000u)),
                        infinity, bits);
  bits = b.CreateSelect(b.CreateICmpUGT(magnitude, constant(0x7f800000u)),
                        constant(format.positive_nan()), bits);
  // The sign, as SmallFloatFormat::Negated: an fnuz type keeps 0 and NaN.
  const uint32_t sign_mask = format.sign_mask();
  llvm::Value* negated = b.CreateXor(bits, constant(sign_mask));
  if (format.kind == SmallFloatKind::kFiniteNanNegativeZero) {
    llvm::Value* unsigned_part = b.CreateAnd(bits, constant(sign_mask - 1));
    negated = b.CreateSelect(b.CreateICmpEQ(unsigned_part, constant(0)), bits,
                             negated);
  }
  bits = b.CreateSelect(negative, negated, bits);
  return b.CreateTrunc(bits, Like(value, b.getInt8Ty()));
}

}  // namespace mxla::codegen
