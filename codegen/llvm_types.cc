#include "codegen/llvm_types.h"

#include "codegen/small_float_ir.h"
#include "llvm/IR/Constants.h"

namespace mxla::codegen {

llvm::Type* RegisterType(PrimitiveType type, llvm::LLVMContext& context) {
  if (!primitive_util::IsArrayType(type)) return nullptr;
  switch (primitive_util::ComputeType(type)) {
    case F32:
      return llvm::Type::getFloatTy(context);
    case F64:
      return llvm::Type::getDoubleTy(context);
    default:  // pred and the integers
      return llvm::Type::getIntNTy(context, primitive_util::BitWidth(type));
  }
}

llvm::Type* MemoryType(PrimitiveType type, llvm::LLVMContext& context) {
  if (type == PRED || primitive_util::IsNarrowFloatType(type) ||
      primitive_util::IsSubByteIntType(type)) {
    return llvm::Type::getIntNTy(context, 8 * primitive_util::ByteWidth(type));
  }
  return RegisterType(type, context);
}

llvm::Type* Like(llvm::Value* like, llvm::Type* type) {
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(like->getType())) {
    return llvm::VectorType::get(type, vector->getElementCount());
  }
  return type;
}

llvm::Value* FromMemory(llvm::IRBuilder<>& b, PrimitiveType type,
                        llvm::Value* value) {
  // A pred byte is 0 or 1; any nonzero byte reads as true.
  if (type == PRED) {
    return b.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType()));
  }
  // A sub-byte integer's byte is its value extended; the low bits are it.
  if (primitive_util::IsSubByteIntType(type)) {
    return b.CreateTrunc(
        value, Like(value, b.getIntNTy(primitive_util::BitWidth(type))));
  }
  if (const SmallFloatFormat* format = primitive_util::SmallFloatFormatOf(type)) {
    return EmitSmallFloatToF32(b, *format, value);
  }
  if (type == BF16) {  // the top half of an f32
    llvm::Value* wide = b.CreateZExt(value, Like(value, b.getInt32Ty()));
    return b.CreateBitCast(b.CreateShl(wide, 16), Like(value, b.getFloatTy()));
  }
  if (type == F16) {
    llvm::Value* half = b.CreateBitCast(value, Like(value, b.getHalfTy()));
    llvm::Value* wide = b.CreateFPExt(half, Like(value, b.getFloatTy()));
    // fpext quiets a signalling NaN; its exact f32 keeps the quiet bit
    // clear (the sign, all-ones exponent and payload moved up), so that
    // what reads the bits (TOTALORDER compares, the sort comparator) sees
    // the f16's own order.
    auto bits16 = [&](uint64_t mask) {
      return llvm::ConstantInt::get(value->getType(), mask);
    };
    llvm::Value* signalling = b.CreateAnd(
        b.CreateICmpEQ(b.CreateAnd(value, bits16(0x7e00)), bits16(0x7c00)),
        b.CreateICmpNE(b.CreateAnd(value, bits16(0x01ff)), bits16(0)));
    llvm::Type* int32 = Like(value, b.getInt32Ty());
    llvm::Value* wide_bits = b.CreateZExt(value, int32);
    llvm::Value* sign = b.CreateShl(
        b.CreateAnd(wide_bits, llvm::ConstantInt::get(int32, 0x8000)), 16);
    llvm::Value* payload = b.CreateShl(
        b.CreateAnd(wide_bits, llvm::ConstantInt::get(int32, 0x03ff)), 13);
    llvm::Value* exact = b.CreateOr(
        b.CreateOr(sign, payload), llvm::ConstantInt::get(int32, 0x7f800000));
    return b.CreateSelect(signalling,
                          b.CreateBitCast(exact, wide->getType()), wide);
  }
  return value;
}

llvm::Value* ToMemory(llvm::IRBuilder<>& b, PrimitiveType type,
                      llvm::Value* value) {
  if (type == PRED) return b.CreateZExt(value, Like(value, b.getInt8Ty()));
  if (primitive_util::IsSubByteIntType(type)) {
    llvm::Type* byte = Like(value, b.getInt8Ty());
    return primitive_util::IsSignedIntegralType(type)
               ? b.CreateSExt(value, byte)
               : b.CreateZExt(value, byte);
  }
  if (const SmallFloatFormat* format = primitive_util::SmallFloatFormatOf(type)) {
    return EmitF32ToSmallFloat(b, *format, value);
  }
  // The value is already rounded to the narrow type, so both are exact.
  if (type == BF16) {
    llvm::Value* bits = b.CreateBitCast(value, Like(value, b.getInt32Ty()));
    return b.CreateTrunc(b.CreateLShr(bits, 16), Like(value, b.getInt16Ty()));
  }
  if (type == F16) {
    llvm::Value* half = b.CreateFPTrunc(value, Like(value, b.getHalfTy()));
    return b.CreateBitCast(half, Like(value, b.getInt16Ty()));
  }
  return value;
}

llvm::Value* RoundToType(llvm::IRBuilder<>& b, PrimitiveType type,
                         llvm::Value* value) {
  if (type == F16 || primitive_util::SmallFloatFormatOf(type) != nullptr) {
    return FromMemory(b, type, ToMemory(b, type, value));
  }
  if (type != BF16) return value;
  // Round the f32 bits to their top 16, to nearest even; a NaN only gets
  // its quiet bit set (adding could carry it into infinity).
  llvm::Type* int_type = Like(value, b.getInt32Ty());
  llvm::Value* bits = b.CreateBitCast(value, int_type);
  llvm::Value* odd = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value* rounded = b.CreateAdd(bits, b.CreateAdd(odd, llvm::ConstantInt::get(int_type, 0x7fff)));
  llvm::Value* nan = b.CreateFCmpUNO(value, value);
  llvm::Value* quiet = b.CreateOr(bits, llvm::ConstantInt::get(int_type, 0x00400000));
  llvm::Value* chosen = b.CreateSelect(nan, quiet, rounded);
  llvm::Value* top = b.CreateAnd(chosen, llvm::ConstantInt::get(int_type, 0xffff0000u));
  return b.CreateBitCast(top, value->getType());
}

llvm::Value* LoadElement(llvm::IRBuilder<>& b, PrimitiveType type,
                         llvm::Value* buffer, llvm::Value* linear_index) {
  llvm::Type* memory_type = MemoryType(type, b.getContext());
  llvm::Value* address = b.CreateInBoundsGEP(memory_type, buffer, linear_index);
  return FromMemory(b, type, b.CreateLoad(memory_type, address));
}

void StoreElement(llvm::IRBuilder<>& b, PrimitiveType type,
                  llvm::Value* buffer, llvm::Value* linear_index,
                  llvm::Value* value) {
  llvm::Type* memory_type = MemoryType(type, b.getContext());
  llvm::Value* address = b.CreateInBoundsGEP(memory_type, buffer, linear_index);
  b.CreateStore(ToMemory(b, type, value), address);
}

llvm::Constant* ConstantOf(PrimitiveType type, double value,
                           llvm::LLVMContext& context) {
  llvm::Type* register_type = RegisterType(type, context);
  if (primitive_util::IsFloatingPointType(type)) {
    return llvm::ConstantFP::get(register_type, value);
  }
  return llvm::ConstantInt::get(register_type, static_cast<int64_t>(value),
                                /*IsSigned=*/true);
}

}  // namespace mxla::codegen
