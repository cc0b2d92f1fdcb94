// Emits one element of an elementwise op as LLVM IR, following
// semantics/scalar_semantics.h exactly (the evaluator's rules): f16 and bf16
// computed in f32 and rounded after each op, wrapping signed and unsigned
// integers, XLA's results for integer division by zero, NaN-propagating max/min with
// +0 > -0, saturating float->int convert, IEEE float math without fast-math.
//
// Values are register values (llvm_types.h: pred is i1). The functions work
// on scalars; they also accept vectors of those types except where they
// call libm (f64 tanh; sine, cosine, tan, exponential-minus-one,
// log-plus-one, cbrt, erf and atan2 in both float types), which takes
// scalars: the interpreter calls the same functions, so the bits agree.
// f32 exp, log, tanh and logistic are inline IR (semantics/float32_math.h), so
// loops of them vectorize.
// An op the element type does not support (shape inference rejects it) is an
// Internal error.
#ifndef MXLA_CODEGEN_SCALAR_EMITTER_H_
#define MXLA_CODEGEN_SCALAR_EMITTER_H_

#include "absl/status/statusor.h"
#include "ir/hlo_opcode.h"
#include "ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

class LlvmFloatOps;

class ScalarEmitter {
 public:
  explicit ScalarEmitter(llvm::IRBuilder<>& b) : b_(b) {}

  absl::StatusOr<llvm::Value*> Unary(HloOpcode opcode, PrimitiveType type,
                                     llvm::Value* x);
  // Every binary op except compare; `type` is the operands' and result's.
  absl::StatusOr<llvm::Value*> Binary(HloOpcode opcode, PrimitiveType type,
                                      llvm::Value* a, llvm::Value* b);
  // `type` is the operands' type; the result is i1. `total_order` (floats):
  // TOTALORDER, compared as semantics::TotalOrderKey.
  llvm::Value* Compare(ComparisonDirection direction, PrimitiveType type,
                       llvm::Value* a, llvm::Value* b,
                       bool total_order = false);
  llvm::Value* Convert(PrimitiveType from, PrimitiveType to, llvm::Value* x);

  // The ops on a value's bits (semantics/bit_ops.h; scalar_bit_ops.cc).
  // is-finite of a float register value: i1.
  llvm::Value* IsFinite(llvm::Value* x);
  llvm::Value* ReducePrecision(PrimitiveType type, llvm::Value* x,
                               int64_t exponent_bits, int64_t mantissa_bits);
  // A register value's memory bits as an integer of its byte width, and
  // back (pred: one byte, true when nonzero).
  llvm::Value* ToBits(PrimitiveType type, llvm::Value* x);
  llvm::Value* FromBits(PrimitiveType type, llvm::Value* bits);

 private:
  // One handler per unary or binary op of the op table (scalar_rules.cc).
  class UnaryRules;
  class BinaryRules;
  // The op on a type that is not a narrow float; null when the op has no
  // meaning for the type.
  llvm::Value* EmitUnary(HloOpcode opcode, PrimitiveType type, llvm::Value* x);
  llvm::Value* EmitBinary(HloOpcode opcode, PrimitiveType type, llvm::Value* a,
                          llvm::Value* b);
  llvm::Value* IntDivide(llvm::Value* a, llvm::Value* b, bool remainder,
                         bool is_signed);
  // shift-left, shift-right-logical or shift-right-arithmetic of integers.
  llvm::Value* Shift(HloOpcode opcode, llvm::Value* a, llvm::Value* b);
  llvm::Value* FloatMaxMin(llvm::Value* a, llvm::Value* b, bool maximum);
  llvm::Value* FloatMaxMinByConstant(llvm::Value* x, llvm::Value* bound,
                                     bool maximum);
  llvm::Value* IntPower(llvm::Value* base, llvm::Value* exponent,
                        bool is_signed);
  llvm::Value* FloatSign(llvm::Value* x);
  llvm::Value* Intrinsic(llvm::Intrinsic::ID id, llvm::Value* x);
  // f32 exp, log, tanh, logistic: semantics/float32_math.h emitted inline.
  llvm::Value* Float32Math(llvm::Value* (*function)(LlvmFloatOps&,
                                                    llvm::Value*),
                           llvm::Value* x);
  llvm::Value* LibmCall(const char* f32_name, const char* f64_name,
                        std::initializer_list<llvm::Value*> args);
  llvm::Value* IsNan(llvm::Value* x) { return b_.CreateFCmpUNO(x, x); }

  llvm::IRBuilder<>& b_;
};

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_SCALAR_EMITTER_H_
