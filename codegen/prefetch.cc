#include "codegen/prefetch.h"

#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {

void EmitPrefetch(llvm::IRBuilder<>& b, llvm::Value* address, int locality) {
  llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(
      b.GetInsertBlock()->getModule(), llvm::Intrinsic::prefetch,
      {b.getPtrTy()});
  // Operands: address, read (0), locality, data cache (1).
  b.CreateCall(prefetch, {address, b.getInt32(0), b.getInt32(locality),
                          b.getInt32(1)});
}

}  // namespace mxla::codegen
