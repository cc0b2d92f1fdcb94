#include "codegen/scalar_emitter.h"

#include "absl/strings/str_cat.h"
#include "codegen/llvm_float_ops.h"
#include "codegen/llvm_types.h"
#include "ir/status_macros.h"
#include "semantics/float32_math.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"

namespace mxla::codegen {
namespace {

absl::Status Unsupported(HloOpcode opcode, PrimitiveType type) {
  return absl::InternalError(absl::StrCat("codegen: ", HloOpcodeString(opcode),
                                          " is not defined for ",
                                          primitive_util::LowercaseName(type)));
}

llvm::Value* AllOnes(llvm::Type* type) {
  return llvm::Constant::getAllOnesValue(type);
}

// Ops whose f32 result on f16/bf16 operands is again an f16/bf16 value, so
// they need no rounding.
bool ExactOnNarrowFloats(HloOpcode opcode, PrimitiveType type) {
  // An fnuz type has no -0: ceil(-0.5) or -(+0) must round to +0; an
  // unsigned type has neither zero nor negative values: floor(0.5) and -1
  // round to NaN.
  const SmallFloatFormat* format = primitive_util::SmallFloatFormatOf(type);
  if (format != nullptr &&
      (format->kind == SmallFloatKind::kFiniteNanNegativeZero ||
       !format->has_sign())) {
    return false;
  }
  switch (opcode) {
    case HloOpcode::kNegate:
    case HloOpcode::kAbs:
    case HloOpcode::kSign:
    case HloOpcode::kCopy:
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      return true;
    default:
      return false;
  }
}

}  // namespace

llvm::Value* ScalarEmitter::Intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
  return b_.CreateUnaryIntrinsic(id, x);
}

llvm::Value* ScalarEmitter::Float32Math(
    llvm::Value* (*function)(LlvmFloatOps&, llvm::Value*), llvm::Value* x) {
  LlvmFloatOps ops(b_, x);
  return function(ops, x);
}

// A call of libm's `f32_name` or `f64_name` on `args` (all of x's type).
// It is marked nobuiltin: LLVM would otherwise fold calls on constants with
// its own evaluation (for f32, in double and then rounded), which need not
// give glibc's bits that the interpreter gets.
llvm::Value* ScalarEmitter::LibmCall(const char* f32_name,
                                     const char* f64_name,
                                     std::initializer_list<llvm::Value*> args) {
  llvm::Module* module = b_.GetInsertBlock()->getModule();
  llvm::Type* type = (*args.begin())->getType();
  const char* name = type->isFloatTy() ? f32_name : f64_name;
  std::vector<llvm::Type*> parameters(args.size(), type);
  llvm::FunctionCallee callee = module->getOrInsertFunction(
      name, llvm::FunctionType::get(type, parameters, false));
  if (auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    function->setDoesNotAccessMemory();
    function->setDoesNotThrow();
  }
  llvm::CallInst* call = b_.CreateCall(callee, args);
  call->addFnAttr(llvm::Attribute::NoBuiltin);
  return call;
}

absl::StatusOr<llvm::Value*> ScalarEmitter::Unary(HloOpcode opcode,
                                                  PrimitiveType type,
                                                  llvm::Value* x) {
  if (opcode == HloOpcode::kCopy) return x;
  if (primitive_util::IsNarrowFloatType(type)) {
    ASSIGN_OR_RETURN(llvm::Value * wide, Unary(opcode, F32, x));
    if (ExactOnNarrowFloats(opcode, type)) return wide;
    return RoundToType(b_, type, wide);
  }
  llvm::Value* result = EmitUnary(opcode, type, x);
  if (result == nullptr) return Unsupported(opcode, type);
  return result;
}

// NaN stays NaN and ±0 stays itself; otherwise ±1.
llvm::Value* ScalarEmitter::FloatSign(llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
  llvm::Value* keep = b_.CreateFCmpUEQ(x, zero);  // NaN or ±0.
  llvm::Value* unit =
      b_.CreateSelect(b_.CreateFCmpOGT(x, zero), llvm::ConstantFP::get(t, 1.0),
                      llvm::ConstantFP::get(t, -1.0));
  return b_.CreateSelect(keep, x, unit);
}

absl::StatusOr<llvm::Value*> ScalarEmitter::Binary(HloOpcode opcode,
                                                   PrimitiveType type,
                                                   llvm::Value* a,
                                                   llvm::Value* b) {
  if (primitive_util::IsNarrowFloatType(type)) {
    ASSIGN_OR_RETURN(llvm::Value * wide, Binary(opcode, F32, a, b));
    if (ExactOnNarrowFloats(opcode, type)) return wide;
    return RoundToType(b_, type, wide);
  }
  llvm::Value* result = EmitBinary(opcode, type, a, b);
  if (result == nullptr) return Unsupported(opcode, type);
  return result;
}

// LLVM's shifts by the bit width or more are poison: such an amount (read
// as unsigned) shifts by 0 instead, and the result is then replaced by 0,
// or for an arithmetic shift by the operand shifted by width - 1.
llvm::Value* ScalarEmitter::Shift(HloOpcode opcode, llvm::Value* a,
                                  llvm::Value* b) {
  llvm::Type* t = a->getType();
  const unsigned bits = t->getScalarSizeInBits();
  llvm::Value* zero = llvm::Constant::getNullValue(t);
  llvm::Value* out_of_range =
      b_.CreateICmpUGE(b, llvm::ConstantInt::get(t, bits));
  llvm::Value* amount = b_.CreateSelect(out_of_range, zero, b);
  switch (opcode) {
    case HloOpcode::kShiftLeft:
      return b_.CreateSelect(out_of_range, zero, b_.CreateShl(a, amount));
    case HloOpcode::kShiftRightLogical:
      return b_.CreateSelect(out_of_range, zero, b_.CreateLShr(a, amount));
    default:
      return b_.CreateAShr(
          a, b_.CreateSelect(out_of_range, llvm::ConstantInt::get(t, bits - 1),
                             amount));
  }
}

// x / 0 = -1 (all ones) and x % 0 = x; signed MIN / -1 = MIN and
// MIN % -1 = 0. The divisor is made safe first: LLVM's division by zero or
// signed MIN/-1 is undefined even if the result is then discarded.
llvm::Value* ScalarEmitter::IntDivide(llvm::Value* a, llvm::Value* b,
                                      bool remainder, bool is_signed) {
  llvm::Type* t = a->getType();
  const unsigned bits = t->getScalarSizeInBits();
  llvm::Value* zero = llvm::Constant::getNullValue(t);
  llvm::Value* minus_one = AllOnes(t);
  llvm::Value* min = llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(bits));
  llvm::Value* by_zero = b_.CreateICmpEQ(b, zero);
  llvm::Value* overflow =
      is_signed ? b_.CreateAnd(b_.CreateICmpEQ(a, min),
                               b_.CreateICmpEQ(b, minus_one))
                : llvm::ConstantInt::getFalse(by_zero->getType());
  llvm::Value* special = b_.CreateOr(by_zero, overflow);
  llvm::Value* safe_b =
      b_.CreateSelect(special, llvm::ConstantInt::get(t, 1), b);
  if (remainder) {
    llvm::Value* r = is_signed ? b_.CreateSRem(a, safe_b)
                               : b_.CreateURem(a, safe_b);
    return b_.CreateSelect(by_zero, a, b_.CreateSelect(overflow, zero, r));
  }
  llvm::Value* q =
      is_signed ? b_.CreateSDiv(a, safe_b) : b_.CreateUDiv(a, safe_b);
  return b_.CreateSelect(by_zero, minus_one, b_.CreateSelect(overflow, a, q));
}

// NaN if either is NaN (the first NaN operand); max(-0, +0) = +0 and
// min(-0, +0) = -0 in either order. Written so that x86 needs one max/min
// (vmaxps returns its second operand on NaN or equality) plus two fix-ups,
// and a constant bound (relu, clamp) needs just a compare and a blend.
llvm::Value* ScalarEmitter::FloatMaxMin(llvm::Value* a, llvm::Value* b,
                                        bool maximum) {
  if (llvm::Value* bounded = FloatMaxMinByConstant(a, b, maximum)) {
    return bounded;
  }
  if (llvm::Value* bounded = FloatMaxMinByConstant(b, a, maximum)) {
    return bounded;
  }
  // a wins when it is strictly beyond b; else b, which also covers b NaN.
  llvm::Value* a_wins =
      maximum ? b_.CreateFCmpOGT(a, b) : b_.CreateFCmpOLT(a, b);
  llvm::Value* result = b_.CreateSelect(a_wins, a, b);
  // Equal values differ only as ±0: their bits' and is +0, their or is -0,
  // and identical values are left as they are.
  llvm::Type* int_type = b_.getIntNTy(a->getType()->getScalarSizeInBits());
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(a->getType())) {
    int_type = llvm::VectorType::get(int_type, vector->getElementCount());
  }
  llvm::Value* a_bits = b_.CreateBitCast(a, int_type);
  llvm::Value* b_bits = b_.CreateBitCast(b, int_type);
  llvm::Value* tie_bits = maximum ? b_.CreateAnd(a_bits, b_bits)
                                  : b_.CreateOr(a_bits, b_bits);
  result = b_.CreateSelect(b_.CreateFCmpOEQ(a, b),
                           b_.CreateBitCast(tie_bits, a->getType()), result);
  return b_.CreateSelect(IsNan(a), a, result);
}

// max(x, c) or min(x, c), in either operand order, for a constant c that is
// not NaN: then x is the only possible NaN, and the result is x exactly
// when x is NaN or beyond c, counting the tie as x's only when that picks
// the right zero (max(+0, -0) is +0: a tie goes to x when c is -0).
// Null when `bound` is not such a constant.
llvm::Value* ScalarEmitter::FloatMaxMinByConstant(llvm::Value* x,
                                                  llvm::Value* bound,
                                                  bool maximum) {
  const llvm::APFloat* c = nullptr;
  if (!llvm::PatternMatch::match(bound, llvm::PatternMatch::m_APFloat(c)) ||
      c->isNaN()) {
    return nullptr;
  }
  const bool tie_to_x = maximum ? c->isNegative() : !c->isNegative();
  llvm::Value* x_wins;
  if (maximum) {
    x_wins = tie_to_x ? b_.CreateFCmpUGE(x, bound) : b_.CreateFCmpUGT(x, bound);
  } else {
    x_wins = tie_to_x ? b_.CreateFCmpULE(x, bound) : b_.CreateFCmpULT(x, bound);
  }
  return b_.CreateSelect(x_wins, x, bound);
}

// Repeated squaring over every exponent bit, branch-free so it vectorizes.
// A negative (signed) exponent gives 1 for base 1 and 0 otherwise (XLA).
llvm::Value* ScalarEmitter::IntPower(llvm::Value* base, llvm::Value* exponent,
                                     bool is_signed) {
  llvm::Type* t = base->getType();
  const unsigned bits = t->getScalarSizeInBits();
  llvm::Value* zero = llvm::Constant::getNullValue(t);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* result = one;
  llvm::Value* square = base;
  const unsigned value_bits = is_signed ? bits - 1 : bits;
  for (unsigned bit = 0; bit < value_bits; ++bit) {
    llvm::Value* set = b_.CreateICmpNE(
        b_.CreateAnd(exponent, llvm::ConstantInt::get(t, uint64_t{1} << bit)),
        zero);
    result = b_.CreateSelect(set, b_.CreateMul(result, square), result);
    square = b_.CreateMul(square, square);
  }
  if (!is_signed) return result;
  llvm::Value* negative_result =
      b_.CreateZExt(b_.CreateICmpEQ(base, one), t);
  return b_.CreateSelect(b_.CreateICmpSLT(exponent, zero), negative_result,
                         result);
}

llvm::Value* ScalarEmitter::Compare(ComparisonDirection direction,
                                    PrimitiveType type, llvm::Value* a,
                                    llvm::Value* b, bool total_order) {
  using P = llvm::CmpInst::Predicate;
  P predicate = P::ICMP_EQ;
  bool is_float = primitive_util::IsFloatingPointType(type);
  // pred compares as 0 < 1: unsigned. f16 and bf16 values are f32 here.
  bool is_signed = primitive_util::IsSignedIntegralType(type);
  if (is_float && total_order) {
    // Signed integers ordered as the floats: negative values get their
    // magnitude bits flipped.
    auto key = [&](llvm::Value* x) {
      llvm::Type* int_type = x->getType()->getWithNewType(
          b_.getIntNTy(x->getType()->getScalarSizeInBits()));
      llvm::Value* bits = b_.CreateBitCast(x, int_type);
      llvm::Value* magnitude = b_.CreateLShr(
          llvm::Constant::getAllOnesValue(int_type), 1);
      llvm::Value* negative =
          b_.CreateICmpSLT(bits, llvm::Constant::getNullValue(int_type));
      return b_.CreateSelect(negative, b_.CreateXor(bits, magnitude), bits);
    };
    a = key(a);
    b = key(b);
    is_float = false;
    is_signed = true;
  }
  switch (direction) {
    case ComparisonDirection::kEq:
      predicate = is_float ? P::FCMP_OEQ : P::ICMP_EQ;
      break;
    case ComparisonDirection::kNe:
      predicate = is_float ? P::FCMP_UNE : P::ICMP_NE;
      break;
    case ComparisonDirection::kLt:
      predicate = is_float ? P::FCMP_OLT : is_signed ? P::ICMP_SLT : P::ICMP_ULT;
      break;
    case ComparisonDirection::kLe:
      predicate = is_float ? P::FCMP_OLE : is_signed ? P::ICMP_SLE : P::ICMP_ULE;
      break;
    case ComparisonDirection::kGt:
      predicate = is_float ? P::FCMP_OGT : is_signed ? P::ICMP_SGT : P::ICMP_UGT;
      break;
    case ComparisonDirection::kGe:
      predicate = is_float ? P::FCMP_OGE : is_signed ? P::ICMP_SGE : P::ICMP_UGE;
      break;
  }
  return is_float ? b_.CreateFCmp(predicate, a, b)
                  : b_.CreateICmp(predicate, a, b);
}

llvm::Value* ScalarEmitter::Convert(PrimitiveType from, PrimitiveType to,
                                    llvm::Value* x) {
  if (from == to) return x;
  // f16 and bf16 registers hold exact f32 values; into them is into f32,
  // then rounded (from f64 or an integer: twice, as the evaluator does).
  if (primitive_util::IsNarrowFloatType(from)) return Convert(F32, to, x);
  if (from == F64 && primitive_util::SmallFloatFormatOf(to) != nullptr) {
    // Into an f8/f4 type an f64 rounds once, as the evaluator's ml_dtypes
    // cast does: to f32 rounding to odd (semantics::RoundToOddF32), which
    // the f32 -> f8 rounding then rounds as the f64 would round.
    llvm::Value* narrow = b_.CreateFPTrunc(x, Like(x, b_.getFloatTy()));
    llvm::Value* back = b_.CreateFPExt(narrow, x->getType());
    llvm::Type* int_type = Like(narrow, b_.getInt32Ty());
    llvm::Value* bits = b_.CreateBitCast(narrow, int_type);
    llvm::Value* keep = b_.CreateOr(
        b_.CreateOr(b_.CreateFCmpOEQ(back, x), b_.CreateFCmpUNO(x, x)),
        b_.CreateICmpNE(b_.CreateAnd(bits, 1), llvm::ConstantInt::get(int_type, 0)));
    llvm::Value* rounded_down = b_.CreateFCmpOGT(
        b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
        b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back));
    llvm::Value* adjusted = b_.CreateSelect(
        rounded_down, b_.CreateAdd(bits, llvm::ConstantInt::get(int_type, 1)),
        b_.CreateSub(bits, llvm::ConstantInt::get(int_type, 1)));
    llvm::Value* odd = b_.CreateBitCast(b_.CreateSelect(keep, bits, adjusted),
                                        narrow->getType());
    return RoundToType(b_, to, odd);
  }
  if (primitive_util::IsNarrowFloatType(to)) {
    return RoundToType(b_, to, Convert(from, F32, x));
  }
  llvm::LLVMContext& context = b_.getContext();
  llvm::Type* to_type = x->getType()->isVectorTy()
                            ? llvm::VectorType::get(
                                  RegisterType(to, context),
                                  llvm::cast<llvm::VectorType>(x->getType())
                                      ->getElementCount())
                            : RegisterType(to, context);
  const bool from_float = primitive_util::IsFloatingPointType(from);
  const bool to_float = primitive_util::IsFloatingPointType(to);
  if (to == PRED) {
    llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
    return from_float ? b_.CreateFCmpUNE(x, zero) : b_.CreateICmpNE(x, zero);
  }
  if (from == PRED) {
    return to_float ? b_.CreateUIToFP(x, to_type) : b_.CreateZExt(x, to_type);
  }
  const bool from_signed = primitive_util::IsSignedIntegralType(from);
  if (from_float && to_float) return b_.CreateFPCast(x, to_type);
  if (!from_float && to_float) {
    return from_signed ? b_.CreateSIToFP(x, to_type)
                       : b_.CreateUIToFP(x, to_type);
  }
  if (from_float) {
    // Saturating, NaN -> 0: exactly mxla's float -> int rule.
    const llvm::Intrinsic::ID saturating =
        primitive_util::IsSignedIntegralType(to) ? llvm::Intrinsic::fptosi_sat
                                                 : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(saturating, {to_type, x->getType()}, {x});
  }
  return from_signed ? b_.CreateSExtOrTrunc(x, to_type)
                     : b_.CreateZExtOrTrunc(x, to_type);
}

}  // namespace mxla::codegen
