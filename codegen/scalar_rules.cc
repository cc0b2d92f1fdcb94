// ScalarEmitter's unary and binary ops, one handler per op of the op table
// (ir/hlo_op_visitor.h): a unary or binary op added to ir/hlo_ops.def
// without its LLVM emission here fails to compile. Each handler returns
// null for an element type the op has no meaning for. Narrow floats are
// widened to f32 before they get here (scalar_emitter.cc).
#include "codegen/llvm_float_ops.h"
#include "codegen/scalar_emitter.h"
#include "ir/hlo_op_visitor.h"
#include "semantics/float32_math.h"

namespace mxla::codegen {
namespace {

// The element types the rules tell apart.
enum class Kind { kFloat, kSigned, kUnsigned, kPred, kOther };

Kind KindOf(PrimitiveType type) {
  if (primitive_util::IsFloatingPointType(type)) return Kind::kFloat;
  if (primitive_util::IsSignedIntegralType(type)) return Kind::kSigned;
  if (primitive_util::IsIntegralType(type)) return Kind::kUnsigned;
  if (type == PRED) return Kind::kPred;
  return Kind::kOther;
}

llvm::Value* AllOnes(llvm::Type* type) {
  return llvm::Constant::getAllOnesValue(type);
}

}  // namespace

// f32 has inline IR for the transcendentals (so their loops vectorize); f64
// takes LLVM's intrinsics or libm.
class ScalarEmitter::UnaryRules {
 public:
  using Op = HloOpcode;
  UnaryRules(ScalarEmitter& e, PrimitiveType type, llvm::Value* x)
      : e_(e), b_(e.b_), kind_(KindOf(type)), f32_(type == F32), x_(x) {}

  llvm::Value* NotInCategory(HloOpcode) { return nullptr; }

  llvm::Value* Handle(OpTag<Op::kCopy>) { return x_; }
  llvm::Value* Handle(OpTag<Op::kNegate>) {
    if (kind_ == Kind::kFloat) return b_.CreateFNeg(x_);
    if (IsInt()) return b_.CreateSub(Zero(), x_);
    return nullptr;
  }
  llvm::Value* Handle(OpTag<Op::kAbs>) {
    if (kind_ == Kind::kFloat) return e_.Intrinsic(llvm::Intrinsic::fabs, x_);
    if (kind_ == Kind::kUnsigned) return x_;
    if (kind_ != Kind::kSigned) return nullptr;
    // Its own statement: argument order is unspecified, and the IR must
    // not depend on the compiler.
    llvm::Value* negative = b_.CreateICmpSLT(x_, Zero());
    return b_.CreateSelect(negative, b_.CreateNeg(x_), x_);
  }
  llvm::Value* Handle(OpTag<Op::kSign>) {
    llvm::Type* t = x_->getType();
    switch (kind_) {
      case Kind::kFloat:
        return e_.FloatSign(x_);
      case Kind::kUnsigned:
        return b_.CreateZExt(b_.CreateICmpNE(x_, Zero()), t);
      case Kind::kSigned: {
        llvm::Value* positive = b_.CreateZExt(b_.CreateICmpSGT(x_, Zero()), t);
        llvm::Value* negative = b_.CreateZExt(b_.CreateICmpSLT(x_, Zero()), t);
        return b_.CreateSub(positive, negative);
      }
      default:
        return nullptr;
    }
  }
  llvm::Value* Handle(OpTag<Op::kNot>) {
    if (IsInt() || kind_ == Kind::kPred) {
      return b_.CreateXor(x_, AllOnes(x_->getType()));
    }
    return nullptr;
  }
  llvm::Value* Handle(OpTag<Op::kPopulationCount>) {
    return IsInt() ? e_.Intrinsic(llvm::Intrinsic::ctpop, x_) : nullptr;
  }
  // Defined at zero: the bit width.
  llvm::Value* Handle(OpTag<Op::kClz>) {
    return IsInt() ? b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x_,
                                              b_.getFalse())
                   : nullptr;
  }
  llvm::Value* Handle(OpTag<Op::kExp>) {
    if (!IsFloat()) return nullptr;
    if (f32_) return e_.Float32Math(&float32_math::Exp<LlvmFloatOps>, x_);
    return e_.Intrinsic(llvm::Intrinsic::exp, x_);
  }
  llvm::Value* Handle(OpTag<Op::kLog>) {
    if (!IsFloat()) return nullptr;
    if (f32_) return e_.Float32Math(&float32_math::Log<LlvmFloatOps>, x_);
    return e_.Intrinsic(llvm::Intrinsic::log, x_);
  }
  llvm::Value* Handle(OpTag<Op::kSqrt>) {
    return IsFloat() ? e_.Intrinsic(llvm::Intrinsic::sqrt, x_) : nullptr;
  }
  llvm::Value* Handle(OpTag<Op::kRsqrt>) {
    if (!IsFloat()) return nullptr;
    return b_.CreateFDiv(llvm::ConstantFP::get(x_->getType(), 1.0),
                         e_.Intrinsic(llvm::Intrinsic::sqrt, x_));
  }
  llvm::Value* Handle(OpTag<Op::kTanh>) {
    if (!IsFloat()) return nullptr;
    if (f32_) return e_.Float32Math(&float32_math::Tanh<LlvmFloatOps>, x_);
    return e_.LibmCall("tanhf", "tanh", {x_});
  }
  llvm::Value* Handle(OpTag<Op::kLogistic>) {
    if (!IsFloat()) return nullptr;
    if (f32_) return e_.Float32Math(&float32_math::Logistic<LlvmFloatOps>, x_);
    llvm::Value* one = llvm::ConstantFP::get(x_->getType(), 1.0);
    llvm::Value* e = e_.Intrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(x_));
    return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
  }
  llvm::Value* Handle(OpTag<Op::kFloor>) { return Rounding(llvm::Intrinsic::floor); }
  llvm::Value* Handle(OpTag<Op::kCeil>) { return Rounding(llvm::Intrinsic::ceil); }
  llvm::Value* Handle(OpTag<Op::kRoundNearestAfz>) {
    return Rounding(llvm::Intrinsic::round);
  }
  llvm::Value* Handle(OpTag<Op::kRoundNearestEven>) {
    return Rounding(llvm::Intrinsic::roundeven);
  }
  llvm::Value* Handle(OpTag<Op::kSin>) { return Libm("sinf", "sin"); }
  llvm::Value* Handle(OpTag<Op::kCos>) { return Libm("cosf", "cos"); }
  llvm::Value* Handle(OpTag<Op::kTan>) { return Libm("tanf", "tan"); }
  llvm::Value* Handle(OpTag<Op::kExpm1>) { return Libm("expm1f", "expm1"); }
  llvm::Value* Handle(OpTag<Op::kLog1p>) { return Libm("log1pf", "log1p"); }
  llvm::Value* Handle(OpTag<Op::kCbrt>) { return Libm("cbrtf", "cbrt"); }
  llvm::Value* Handle(OpTag<Op::kErf>) { return Libm("erff", "erf"); }
  llvm::Value* Handle(OpTag<Op::kAsin>) { return Libm("asinf", "asin"); }
  llvm::Value* Handle(OpTag<Op::kAcos>) { return Libm("acosf", "acos"); }
  llvm::Value* Handle(OpTag<Op::kSinh>) { return Libm("sinhf", "sinh"); }
  llvm::Value* Handle(OpTag<Op::kCosh>) { return Libm("coshf", "cosh"); }
  llvm::Value* Handle(OpTag<Op::kAsinh>) { return Libm("asinhf", "asinh"); }
  llvm::Value* Handle(OpTag<Op::kAcosh>) { return Libm("acoshf", "acosh"); }
  llvm::Value* Handle(OpTag<Op::kAtan>) { return Libm("atanf", "atan"); }

 private:
  bool IsFloat() const { return kind_ == Kind::kFloat; }
  bool IsInt() const {
    return kind_ == Kind::kSigned || kind_ == Kind::kUnsigned;
  }
  llvm::Value* Zero() const { return llvm::Constant::getNullValue(x_->getType()); }
  llvm::Value* Rounding(llvm::Intrinsic::ID id) {
    return IsFloat() ? e_.Intrinsic(id, x_) : nullptr;
  }
  llvm::Value* Libm(const char* f32_name, const char* f64_name) {
    return IsFloat() ? e_.LibmCall(f32_name, f64_name, {x_}) : nullptr;
  }

  ScalarEmitter& e_;
  llvm::IRBuilder<>& b_;
  Kind kind_;
  bool f32_;
  llvm::Value* x_;
};

class ScalarEmitter::BinaryRules {
 public:
  using Op = HloOpcode;
  BinaryRules(ScalarEmitter& e, PrimitiveType type, llvm::Value* a,
              llvm::Value* b)
      : e_(e), b_(e.b_), kind_(KindOf(type)), a_(a), rhs_(b) {}

  llvm::Value* NotInCategory(HloOpcode) { return nullptr; }

  // pred: or, and and are add, multiply, maximum and minimum.
  llvm::Value* Handle(OpTag<Op::kAdd>) {
    if (kind_ == Kind::kPred) return b_.CreateOr(a_, rhs_);
    return IsFloat() ? b_.CreateFAdd(a_, rhs_) : b_.CreateAdd(a_, rhs_);
  }
  llvm::Value* Handle(OpTag<Op::kSubtract>) {
    if (kind_ == Kind::kPred) return nullptr;
    return IsFloat() ? b_.CreateFSub(a_, rhs_) : b_.CreateSub(a_, rhs_);
  }
  llvm::Value* Handle(OpTag<Op::kMultiply>) {
    if (kind_ == Kind::kPred) return b_.CreateAnd(a_, rhs_);
    return IsFloat() ? b_.CreateFMul(a_, rhs_) : b_.CreateMul(a_, rhs_);
  }
  llvm::Value* Handle(OpTag<Op::kDivide>) {
    if (IsFloat()) return b_.CreateFDiv(a_, rhs_);
    if (IsInt()) return e_.IntDivide(a_, rhs_, /*remainder=*/false, IsSigned());
    return nullptr;
  }
  llvm::Value* Handle(OpTag<Op::kRemainder>) {
    if (IsFloat()) return b_.CreateFRem(a_, rhs_);
    if (IsInt()) return e_.IntDivide(a_, rhs_, /*remainder=*/true, IsSigned());
    return nullptr;
  }
  llvm::Value* Handle(OpTag<Op::kMaximum>) { return MaxMin(true); }
  llvm::Value* Handle(OpTag<Op::kMinimum>) { return MaxMin(false); }
  llvm::Value* Handle(OpTag<Op::kPower>) {
    if (IsFloat()) {
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a_, rhs_);
    }
    if (IsInt()) return e_.IntPower(a_, rhs_, IsSigned());
    return nullptr;
  }
  llvm::Value* Handle(OpTag<Op::kAnd>) {
    return IsFloat() ? nullptr : b_.CreateAnd(a_, rhs_);
  }
  llvm::Value* Handle(OpTag<Op::kOr>) {
    return IsFloat() ? nullptr : b_.CreateOr(a_, rhs_);
  }
  llvm::Value* Handle(OpTag<Op::kXor>) {
    return IsFloat() ? nullptr : b_.CreateXor(a_, rhs_);
  }
  llvm::Value* Handle(OpTag<Op::kAtan2>) {
    return IsFloat() ? e_.LibmCall("atan2f", "atan2", {a_, rhs_}) : nullptr;
  }
  template <Op op>
    requires(OpIn<Op::kShiftLeft, Op::kShiftRightLogical,
                  Op::kShiftRightArithmetic>(op))
  llvm::Value* Handle(OpTag<op>) {
    return IsInt() ? e_.Shift(op, a_, rhs_) : nullptr;
  }

 private:
  bool IsFloat() const { return kind_ == Kind::kFloat; }
  bool IsSigned() const { return kind_ == Kind::kSigned; }
  bool IsInt() const { return IsSigned() || kind_ == Kind::kUnsigned; }
  llvm::Value* MaxMin(bool maximum) {
    if (kind_ == Kind::kPred) {
      return maximum ? b_.CreateOr(a_, rhs_) : b_.CreateAnd(a_, rhs_);
    }
    if (IsFloat()) return e_.FloatMaxMin(a_, rhs_, maximum);
    llvm::Value* a_wins;
    if (IsSigned()) {
      a_wins = maximum ? b_.CreateICmpSGE(a_, rhs_) : b_.CreateICmpSLE(a_, rhs_);
    } else {
      a_wins = maximum ? b_.CreateICmpUGE(a_, rhs_) : b_.CreateICmpULE(a_, rhs_);
    }
    return b_.CreateSelect(a_wins, a_, rhs_);
  }

  ScalarEmitter& e_;
  llvm::IRBuilder<>& b_;
  Kind kind_;
  llvm::Value* a_;
  llvm::Value* rhs_;
};

llvm::Value* ScalarEmitter::EmitUnary(HloOpcode opcode, PrimitiveType type,
                                      llvm::Value* x) {
  UnaryRules rules(*this, type, x);
  return VisitUnaryOp<llvm::Value*>(rules, opcode);
}

llvm::Value* ScalarEmitter::EmitBinary(HloOpcode opcode, PrimitiveType type,
                                       llvm::Value* a, llvm::Value* b) {
  BinaryRules rules(*this, type, a, b);
  return VisitBinaryOp<llvm::Value*>(rules, opcode);
}

}  // namespace mxla::codegen
