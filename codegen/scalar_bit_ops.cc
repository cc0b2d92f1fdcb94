// ScalarEmitter's ops on an element's bits: is-finite, reduce-precision and
// the bit views bitcast-convert uses. The same operations as
// semantics/bit_ops.h, so the interpreter's bits are these.
#include "codegen/llvm_types.h"
#include "codegen/scalar_emitter.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {

llvm::Value* ScalarEmitter::IsFinite(llvm::Value* x) {
  // Ordered: false for NaN.
  return b_.CreateFCmpONE(Intrinsic(llvm::Intrinsic::fabs, x),
                          llvm::ConstantFP::getInfinity(x->getType()));
}

// On the type's own bits, as semantics::ReducePrecisionBits: f16 and bf16
// leave their f32 registers for their 16 bits and come back exactly; the
// 8-bit floats reduce their f32 value and round back.
llvm::Value* ScalarEmitter::ReducePrecision(PrimitiveType type,
                                            llvm::Value* x,
                                            int64_t exponent_bits,
                                            int64_t mantissa_bits) {
  if (primitive_util::SmallFloatFormatOf(type) != nullptr) {
    // As the interpreter: on the f32 value, rounded back to the type.
    return RoundToType(b_, type,
                       ReducePrecision(F32, x, exponent_bits, mantissa_bits));
  }
  llvm::Value* bits = ToBits(type, x);
  llvm::Type* int_type = bits->getType();
  const int width = int_type->getScalarSizeInBits();
  const int mantissa = primitive_util::MantissaBits(type);
  const int exponent = width - 1 - mantissa;
  auto constant = [&](uint64_t v) {
    return llvm::ConstantInt::get(int_type, v);
  };
  const uint64_t exponent_mask = ((uint64_t{1} << exponent) - 1) << mantissa;
  const uint64_t mantissa_mask = (uint64_t{1} << mantissa) - 1;
  llvm::Value* nan = b_.CreateAnd(
      b_.CreateICmpEQ(b_.CreateAnd(bits, constant(exponent_mask)),
                      constant(exponent_mask)),
      b_.CreateICmpNE(b_.CreateAnd(bits, constant(mantissa_mask)),
                      constant(0)));
  llvm::Value* original = bits;
  if (mantissa_bits < mantissa) {
    // Round to nearest even: add half an ulp minus one plus the last kept
    // bit, then truncate.
    const int dropped = mantissa - static_cast<int>(mantissa_bits);
    const uint64_t last_kept = uint64_t{1} << dropped;
    llvm::Value* tie = b_.CreateAnd(b_.CreateLShr(bits, dropped), 1);
    llvm::Value* bias = b_.CreateAdd(tie, constant((last_kept >> 1) - 1));
    bits = b_.CreateAnd(b_.CreateAdd(bits, bias), constant(~(last_kept - 1)));
  }
  if (exponent_bits < exponent) {
    const uint64_t bias = (uint64_t{1} << (exponent - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    llvm::Value* sign = b_.CreateAnd(bits, constant(uint64_t{1} << (width - 1)));
    llvm::Value* biased = b_.CreateAnd(bits, constant(exponent_mask));
    llvm::Value* overflow =
        b_.CreateICmpUGT(biased, constant((bias + reduced_bias) << mantissa));
    llvm::Value* underflow =
        b_.CreateICmpULE(biased, constant((bias - reduced_bias) << mantissa));
    bits = b_.CreateSelect(overflow, b_.CreateOr(sign, constant(exponent_mask)),
                           bits);
    bits = b_.CreateSelect(underflow, sign, bits);
  }
  llvm::Value* nan_bits =
      mantissa_bits > 0 ? original : constant(exponent_mask);  // +inf
  return FromBits(type, b_.CreateSelect(nan, nan_bits, bits));
}

llvm::Value* ScalarEmitter::ToBits(PrimitiveType type, llvm::Value* x) {
  llvm::Value* memory = ToMemory(b_, type, x);
  llvm::Type* int_type = memory->getType()->getWithNewType(
      b_.getIntNTy(primitive_util::ByteWidth(type) * 8));
  return b_.CreateBitCast(memory, int_type);  // pred: already its byte
}

llvm::Value* ScalarEmitter::FromBits(PrimitiveType type, llvm::Value* bits) {
  if (type == PRED) {
    return b_.CreateICmpNE(bits, llvm::Constant::getNullValue(bits->getType()));
  }
  llvm::Type* memory_type = MemoryType(type, b_.getContext());
  return FromMemory(b_, type, b_.CreateBitCast(bits, memory_type));
}

}  // namespace mxla::codegen
