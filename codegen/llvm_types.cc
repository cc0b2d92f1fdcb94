#include "codegen/llvm_types.h"

#include "llvm/IR/Constants.h"

namespace mxla::codegen {

llvm::Type* RegisterType(PrimitiveType type, llvm::LLVMContext& context) {
  switch (type) {
    case PRED:
      return llvm::Type::getInt1Ty(context);
    case S32:
      return llvm::Type::getInt32Ty(context);
    case S64:
      return llvm::Type::getInt64Ty(context);
    case F32:
      return llvm::Type::getFloatTy(context);
    case F64:
      return llvm::Type::getDoubleTy(context);
    default:
      return nullptr;
  }
}

llvm::Type* MemoryType(PrimitiveType type, llvm::LLVMContext& context) {
  if (type == PRED) return llvm::Type::getInt8Ty(context);
  return RegisterType(type, context);
}

llvm::Value* LoadElement(llvm::IRBuilder<>& b, PrimitiveType type,
                         llvm::Value* buffer, llvm::Value* linear_index) {
  llvm::Type* memory_type = MemoryType(type, b.getContext());
  llvm::Value* address = b.CreateInBoundsGEP(memory_type, buffer, linear_index);
  llvm::Value* value = b.CreateLoad(memory_type, address);
  // A pred byte is 0 or 1; any nonzero byte reads as true.
  if (type == PRED) return b.CreateICmpNE(value, b.getInt8(0));
  return value;
}

void StoreElement(llvm::IRBuilder<>& b, PrimitiveType type,
                  llvm::Value* buffer, llvm::Value* linear_index,
                  llvm::Value* value) {
  llvm::Type* memory_type = MemoryType(type, b.getContext());
  llvm::Value* address = b.CreateInBoundsGEP(memory_type, buffer, linear_index);
  if (type == PRED) value = b.CreateZExt(value, memory_type);
  b.CreateStore(value, address);
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
