// The LLVM backend of semantics/float32_math.h: each operation emits the IR
// instruction with the same IEEE meaning as the C++ backend's (fma as
// llvm.fma, ordered compares), without fast-math flags,
// so the JIT computes the evaluator's bits. Works on f32 scalars and on
// vectors of f32 alike (the i32 values take the matching shape).
#ifndef MXLA_CODEGEN_LLVM_FLOAT_OPS_H_
#define MXLA_CODEGEN_LLVM_FLOAT_OPS_H_

#include <cstdint>

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {

class LlvmFloatOps {
 public:
  using F = llvm::Value*;
  using I = llvm::Value*;
  using B = llvm::Value*;

  // `like` is an f32 value whose type (scalar or vector) the results take.
  LlvmFloatOps(llvm::IRBuilder<>& b, llvm::Value* like)
      : b_(b), float_type_(like->getType()) {
    int_type_ = b.getInt32Ty();
    if (auto* vector = llvm::dyn_cast<llvm::VectorType>(float_type_)) {
      int_type_ = llvm::VectorType::get(int_type_, vector->getElementCount());
    }
  }

  F Float(float v) { return llvm::ConstantFP::get(float_type_, v); }
  I Int(int32_t v) { return llvm::ConstantInt::getSigned(int_type_, v); }
  F Add(F a, F c) { return b_.CreateFAdd(a, c); }
  F Sub(F a, F c) { return b_.CreateFSub(a, c); }
  F Mul(F a, F c) { return b_.CreateFMul(a, c); }
  F Div(F a, F c) { return b_.CreateFDiv(a, c); }
  F Fma(F a, F c, F d) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {float_type_}, {a, c, d});
  }
  F Neg(F a) { return b_.CreateFNeg(a); }
  F Abs(F a) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a); }
  B Less(F a, F c) { return b_.CreateFCmpOLT(a, c); }
  B Equal(F a, F c) { return b_.CreateFCmpOEQ(a, c); }
  B IsNan(F a) { return b_.CreateFCmpUNO(a, a); }
  F Select(B c, F a, F d) { return b_.CreateSelect(c, a, d); }
  I SelectInt(B c, I a, I d) { return b_.CreateSelect(c, a, d); }
  I Bits(F a) { return b_.CreateBitCast(a, int_type_); }
  F FromBits(I a) { return b_.CreateBitCast(a, float_type_); }
  I IntAdd(I a, I c) { return b_.CreateAdd(a, c); }
  I IntSub(I a, I c) { return b_.CreateSub(a, c); }
  I IntAnd(I a, I c) { return b_.CreateAnd(a, c); }
  I ShiftLeft(I a, int n) { return b_.CreateShl(a, n); }
  I ShiftRightArithmetic(I a, int n) { return b_.CreateAShr(a, n); }
  F IntToFloat(I a) { return b_.CreateSIToFP(a, float_type_); }

 private:
  llvm::IRBuilder<>& b_;
  llvm::Type* float_type_;
  llvm::Type* int_type_;
};

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_LLVM_FLOAT_OPS_H_
