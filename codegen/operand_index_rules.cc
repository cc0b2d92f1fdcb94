// ElementalEmitter::OperandIndexRules: the index at which each op reads an
// operand, given the index of the element it generates. One handler per op
// of the op table (ir/hlo_op_visitor.h), as in element_rules.cc.
#include <algorithm>

#include "absl/status/status.h"
#include "codegen/elemental_emitter.h"
#include "ir/hlo_op_visitor.h"
#include "ir/status_macros.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {

class ElementalEmitter::OperandIndexRules {
 public:
  using Result = absl::StatusOr<IrIndex>;
  using Op = HloOpcode;

  OperandIndexRules(ElementalEmitter& emitter,
                    const HloInstruction& instruction, int64_t operand_number,
                    const IrIndex& index)
      : e_(emitter),
        b_(emitter.b_),
        instruction_(instruction),
        operand_number_(operand_number),
        operand_(*instruction.operand(operand_number)),
        index_(index) {}

  // Same index in, same index out.
  template <Op op>
    requires(IsScalarFunctionOp(op) ||
             OpIn<Op::kSelect, Op::kConvert, Op::kIsFinite, Op::kClamp,
                  Op::kReducePrecision>(op))
  Result Handle(OpTag<op>) {
    RET_CHECK(operand_.shape().rank() == static_cast<int64_t>(index_.size()),
              instruction_.ToString());
    return index_;
  }
  template <Op op>
    requires(!IsFusibleOp(op))
  Result Handle(OpTag<op>) {
    return NotFusible(instruction_);
  }
  Result Handle(OpTag<Op::kReduce>) { return NotFusible(instruction_); }
  // Generate never asks: they read no operand element.
  template <Op op>
    requires(OpIn<Op::kIota, Op::kGetDimensionSize>(op))
  Result Handle(OpTag<op>) {
    return absl::InternalError(absl::StrCat(
        instruction_.ToString(), " reads no operand element"));
  }

  Result Handle(OpTag<Op::kBroadcast>) {
    IrIndex operand_index;
    for (int64_t d : instruction_.dimensions()) {
      operand_index.push_back(index_[d]);
    }
    return operand_index;
  }
  Result Handle(OpTag<Op::kTranspose>) {
    IrIndex operand_index(index_.size());
    for (size_t i = 0; i < index_.size(); ++i) {
      operand_index[instruction_.dimensions(i)] = index_[i];
    }
    return operand_index;
  }
  Result Handle(OpTag<Op::kReshape>) {
    return e_.ReshapeOperandIndex(instruction_, index_);
  }
  Result Handle(OpTag<Op::kBitcast>) {
    return e_.ReshapeOperandIndex(instruction_, index_);
  }
  Result Handle(OpTag<Op::kCustomCall>) { return index_; }
  Result Handle(OpTag<Op::kGather>) {
    return e_.GatherOperandIndex(instruction_, index_);
  }
  Result Handle(OpTag<Op::kReverse>) {
    IrIndex operand_index = index_;
    for (int64_t d : instruction_.dimensions()) {
      operand_index[d] = b_.CreateSub(
          b_.getInt64(operand_.shape().dimensions(d) - 1), index_[d]);
    }
    return operand_index;
  }
  Result Handle(OpTag<Op::kSlice>) {
    const std::vector<int64_t> starts = instruction_.slice_starts();
    const std::vector<int64_t> strides = instruction_.slice_strides();
    IrIndex operand_index(index_.size());
    for (size_t d = 0; d < index_.size(); ++d) {
      operand_index[d] = b_.CreateAdd(
          b_.CreateMul(index_[d], b_.getInt64(strides[d]), "", true, true),
          b_.getInt64(starts[d]), "", true, true);
    }
    return operand_index;
  }
  Result Handle(OpTag<Op::kConcatenate>);
  Result Handle(OpTag<Op::kDynamicSlice>);
  Result Handle(OpTag<Op::kDynamicUpdateSlice>);
  Result Handle(OpTag<Op::kBitcastConvert>);
  Result Handle(OpTag<Op::kPad>);

 private:
  // `value` clamped into [0, size - 1].
  llvm::Value* ClampInto(llvm::Value* value, int64_t size) {
    return b_.CreateBinaryIntrinsic(
        llvm::Intrinsic::smax,
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, value,
                                 b_.getInt64(size - 1)),
        b_.getInt64(0));
  }

  ElementalEmitter& e_;
  llvm::IRBuilder<>& b_;
  const HloInstruction& instruction_;
  int64_t operand_number_;
  const HloInstruction& operand_;
  const IrIndex& index_;
};

// Every operand is read, at its own offset clamped into range; the element
// rule then selects the one whose range holds the index.
ElementalEmitter::OperandIndexRules::Result
ElementalEmitter::OperandIndexRules::Handle(OpTag<Op::kConcatenate>) {
  const int64_t d = instruction_.dimensions(0);
  int64_t offset = 0;
  for (int64_t i = 0; i < operand_number_; ++i) {
    offset += instruction_.operand(i)->shape().dimensions(d);
  }
  const int64_t size = operand_.shape().dimensions(d);
  IrIndex operand_index = index_;
  llvm::Value* shifted = b_.CreateSub(index_[d], b_.getInt64(offset));
  llvm::Value* low = b_.CreateSelect(
      b_.CreateICmpSLT(shifted, b_.getInt64(0)), b_.getInt64(0), shifted);
  operand_index[d] = b_.CreateSelect(
      b_.CreateICmpSGT(low, b_.getInt64(size - 1)), b_.getInt64(size - 1),
      low);
  return operand_index;
}

// The start vector of XLA's older form is read element by element in
// WindowStarts; its own index here is only a placeholder.
ElementalEmitter::OperandIndexRules::Result
ElementalEmitter::OperandIndexRules::Handle(OpTag<Op::kDynamicSlice>) {
  if (operand_number_ != 0) return IrIndex{b_.getInt64(0)};
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                   e_.WindowStarts(instruction_, 1, operand_.shape(),
                                   instruction_.dynamic_slice_sizes()));
  IrIndex operand_index(index_.size());
  for (size_t d = 0; d < index_.size(); ++d) {
    operand_index[d] = b_.CreateAdd(index_[d], starts[d], "", true, true);
  }
  return operand_index;
}

// The update element under the output element, clamped into the update so
// that the load stays in bounds where the element rule takes the operand
// instead.
ElementalEmitter::OperandIndexRules::Result
ElementalEmitter::OperandIndexRules::Handle(OpTag<Op::kDynamicUpdateSlice>) {
  if (operand_number_ == 0) return index_;
  if (operand_number_ != 1) return IrIndex{b_.getInt64(0)};
  const Shape& update = operand_.shape();
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                   e_.WindowStarts(instruction_, 2,
                                   instruction_.operand(0)->shape(),
                                   update.dimensions()));
  IrIndex update_index(index_.size());
  for (size_t d = 0; d < index_.size(); ++d) {
    update_index[d] = ClampInto(b_.CreateSub(index_[d], starts[d]),
                                update.dimensions(d));
  }
  return update_index;
}

// Narrower result: the operand element holding this piece; wider result:
// its first piece (the element rule generates the others).
ElementalEmitter::OperandIndexRules::Result
ElementalEmitter::OperandIndexRules::Handle(OpTag<Op::kBitcastConvert>) {
  const int64_t operand_rank = operand_.shape().rank();
  IrIndex operand_index(
      index_.begin(),
      index_.begin() + std::min<int64_t>(operand_rank, index_.size()));
  if (operand_rank > static_cast<int64_t>(index_.size())) {
    operand_index.push_back(b_.getInt64(0));
  }
  return operand_index;
}

// The operand element this output element would be, clamped into the
// operand so the load is in bounds where the element rule picks the padding
// value instead.
ElementalEmitter::OperandIndexRules::Result
ElementalEmitter::OperandIndexRules::Handle(OpTag<Op::kPad>) {
  IrIndex operand_index(index_.size());
  const PaddingConfig config = instruction_.padding_config();
  for (size_t d = 0; d < index_.size(); ++d) {
    llvm::Value* t = b_.CreateSub(index_[d], b_.getInt64(config[d].low));
    llvm::Value* i = b_.CreateSDiv(t, b_.getInt64(config[d].interior + 1));
    operand_index[d] = ClampInto(i, operand_.shape().dimensions(d));
  }
  return operand_index;
}

absl::StatusOr<IrIndex> ElementalEmitter::OperandIndex(
    const HloInstruction& instruction, int64_t operand_number,
    const IrIndex& index) {
  if (instruction.operand(operand_number)->shape().IsScalar()) {
    return IrIndex{};
  }
  OperandIndexRules rules(*this, instruction, operand_number, index);
  return VisitOp<absl::StatusOr<IrIndex>>(rules, instruction.opcode());
}

}  // namespace mxla::codegen
