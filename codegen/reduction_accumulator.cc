#include "codegen/reduction_accumulator.h"

#include "codegen/llvm_types.h"
#include "codegen/reduction_emitter.h"
#include "ir/fusion_plan.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {

llvm::AllocaInst* EntryAlloca(llvm::IRBuilder<>& b, llvm::Type* type,
                              int64_t count) {
  llvm::IRBuilder<>::InsertPointGuard guard(b);
  llvm::BasicBlock& entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  b.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* alloca =
      b.CreateAlloca(type, count == 1 ? nullptr : b.getInt64(count));
  alloca->setAlignment(llvm::Align(64));
  return alloca;
}

ReductionAccumulator::ReductionAccumulator(llvm::IRBuilder<>& b,
                                           const HloInstruction& reduce,
                                           bool reassociate)
    : b_(b), reduce_(reduce), reassociate_(reassociate) {
  llvm::LLVMContext& context = b.getContext();
  const int64_t inputs = reduce.operand_count() / 2;
  const PrimitiveType type = reduce.operand(0)->shape().element_type();
  const HloComputation& reducer = *reduce.to_apply();
  if (reassociate && inputs == 1 &&
      primitive_util::IsFloatingPointType(type) &&
      (IsPlainBinaryReducer(reducer, HloOpcode::kMaximum) ||
       IsPlainBinaryReducer(reducer, HloOpcode::kMinimum))) {
    keyed_ = true;
    maximum_ = IsPlainBinaryReducer(reducer, HloOpcode::kMaximum);
    float_type_ = RegisterType(type, context);
    key_type_ = b.getIntNTy(float_type_->getScalarSizeInBits());
    slots_ = {EntryAlloca(b, key_type_), EntryAlloca(b, key_type_)};
    return;
  }
  for (int64_t i = 0; i < inputs; ++i) {
    slots_.push_back(EntryAlloca(
        b, RegisterType(reduce.operand(i)->shape().element_type(), context)));
  }
}

// Flipping the magnitude bits of negative values makes the order of the
// bits as signed integers that of the floats; the same flip undoes it.
llvm::Value* ReductionAccumulator::FlipNegative(llvm::Value* bits) {
  const unsigned width = key_type_->getBitWidth();
  llvm::Value* magnitude_mask = b_.CreateLShr(
      b_.CreateAShr(bits, width - 1), 1);  // all ones below the sign, or 0
  return b_.CreateXor(bits, magnitude_mask);
}

llvm::Value* ReductionAccumulator::Key(llvm::Value* value) {
  return FlipNegative(b_.CreateBitCast(value, key_type_));
}

llvm::Value* ReductionAccumulator::FromKey(llvm::Value* key) {
  return b_.CreateBitCast(FlipNegative(key), float_type_);
}

llvm::Value* ReductionAccumulator::Load(int i) {
  return b_.CreateLoad(slots_[i]->getAllocatedType(), slots_[i]);
}

void ReductionAccumulator::Set(const std::vector<llvm::Value*>& values) {
  if (keyed_) {
    llvm::Value* key = Key(values[0]);
    b_.CreateStore(key, slots_[0]);
    b_.CreateStore(key, slots_[1]);
    return;
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    b_.CreateStore(values[i], slots_[i]);
  }
}

absl::Status ReductionAccumulator::Fold(
    const std::vector<llvm::Value*>& elements) {
  if (keyed_) {
    llvm::Value* key = Key(elements[0]);
    b_.CreateStore(
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, Load(0), key),
        slots_[0]);
    b_.CreateStore(
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, Load(1), key),
        slots_[1]);
    return absl::OkStatus();
  }
  std::vector<llvm::Value*> accumulators;
  for (size_t i = 0; i < slots_.size(); ++i) accumulators.push_back(Load(i));
  absl::StatusOr<std::vector<llvm::Value*>> next =
      ApplyReducer(b_, reduce_, accumulators, elements, reassociate_);
  if (!next.ok()) return next.status();
  for (size_t i = 0; i < slots_.size(); ++i) {
    b_.CreateStore((*next)[i], slots_[i]);
  }
  return absl::OkStatus();
}

// A NaN among the extremes is the result (the one at the end that decides
// first); else the largest key for maximum, the smallest for minimum.
std::vector<llvm::Value*> ReductionAccumulator::Get() {
  if (!keyed_) {
    std::vector<llvm::Value*> values;
    for (size_t i = 0; i < slots_.size(); ++i) values.push_back(Load(i));
    return values;
  }
  llvm::Value* largest = Load(0);
  llvm::Value* smallest = Load(1);
  llvm::Value* positive_nan = b_.CreateICmpSGT(
      largest, Key(llvm::ConstantFP::getInfinity(float_type_)));
  llvm::Value* negative_nan = b_.CreateICmpSLT(
      smallest,
      Key(llvm::ConstantFP::getInfinity(float_type_, /*Negative=*/true)));
  llvm::Value* key =
      maximum_ ? b_.CreateSelect(positive_nan, largest,
                                 b_.CreateSelect(negative_nan, smallest, largest))
               : b_.CreateSelect(negative_nan, smallest,
                                 b_.CreateSelect(positive_nan, largest, smallest));
  return {FromKey(key)};
}

}  // namespace mxla::codegen
