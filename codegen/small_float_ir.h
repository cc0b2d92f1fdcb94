// The 8-bit and smaller floats (ir/small_float.h) in LLVM IR: their byte
// decoded to the f32 it names, and an f32 rounded to their byte, on scalars
// or vectors, bit for bit as ir/small_float.cc does in the interpreter.
#ifndef MXLA_CODEGEN_SMALL_FLOAT_IR_H_
#define MXLA_CODEGEN_SMALL_FLOAT_IR_H_

#include "ir/small_float.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

// i8 (or <N x i8>) -> float (or <N x float>), exact.
llvm::Value* EmitSmallFloatToF32(llvm::IRBuilder<>& b,
                                 const SmallFloatFormat& format,
                                 llvm::Value* bits);
// float -> i8: to nearest even, with the format's overflow, infinity and
// NaN encodings.
llvm::Value* EmitF32ToSmallFloat(llvm::IRBuilder<>& b,
                                 const SmallFloatFormat& format,
                                 llvm::Value* value);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_SMALL_FLOAT_IR_H_
