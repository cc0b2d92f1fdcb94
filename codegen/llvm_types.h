// How mxla element types live in LLVM: the register type an element
// generator produces (pred is i1; f16 and bf16 are f32 holding a value of
// the narrow type) and the memory type a buffer holds (pred is one byte, as
// in Literal; f16 and bf16 are i16). Load and store convert between the two.
#ifndef MXLA_CODEGEN_LLVM_TYPES_H_
#define MXLA_CODEGEN_LLVM_TYPES_H_

#include "ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

llvm::Type* RegisterType(PrimitiveType type, llvm::LLVMContext& context);
llvm::Type* MemoryType(PrimitiveType type, llvm::LLVMContext& context);

// `type`, or a vector of it with the element count of `like` when that is
// a vector: the type of a lane-wise result.
llvm::Type* Like(llvm::Value* like, llvm::Type* type);

// Register <-> memory value (scalars or vectors); identity for most types.
llvm::Value* FromMemory(llvm::IRBuilder<>& b, PrimitiveType type,
                        llvm::Value* value);
llvm::Value* ToMemory(llvm::IRBuilder<>& b, PrimitiveType type,
                      llvm::Value* value);
// An f32 register value rounded to f16 or bf16 (to nearest even), still in
// f32; other types pass through. Every op on a narrow type ends with it.
llvm::Value* RoundToType(llvm::IRBuilder<>& b, PrimitiveType type,
                         llvm::Value* value);

// Loads element `linear_index` of a `type` buffer as a register value.
llvm::Value* LoadElement(llvm::IRBuilder<>& b, PrimitiveType type,
                         llvm::Value* buffer, llvm::Value* linear_index);
// Stores a register value into element `linear_index`.
void StoreElement(llvm::IRBuilder<>& b, PrimitiveType type,
                  llvm::Value* buffer, llvm::Value* linear_index,
                  llvm::Value* value);

// A register constant of `type` with the given value.
llvm::Constant* ConstantOf(PrimitiveType type, double value,
                           llvm::LLVMContext& context);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_LLVM_TYPES_H_
