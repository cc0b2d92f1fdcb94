// ElementalEmitter::ElementRules: the LLVM value of one element of each op,
// given its operands' values at the indices OperandIndexRules chose. One
// handler per op of the op table (ir/hlo_op_visitor.h): the table's
// unfusible ops and reduce (a kernel's root, never an element of another
// op) say so; a new fusible op without a rule fails to compile.
#include "absl/strings/str_cat.h"
#include "codegen/elemental_emitter.h"
#include "codegen/llvm_types.h"
#include "ir/hlo_op_visitor.h"
#include "ir/status_macros.h"

namespace mxla::codegen {

class ElementalEmitter::ElementRules {
 public:
  using Result = absl::StatusOr<llvm::Value*>;
  using Op = HloOpcode;

  ElementRules(ElementalEmitter& emitter, const HloInstruction& instruction,
               const IrIndex& index,
               const std::vector<IrIndex>& operand_indices)
      : e_(emitter),
        b_(emitter.b_),
        instruction_(instruction),
        index_(index),
        operand_indices_(operand_indices),
        type_(instruction.shape().element_type()) {}

  template <Op op>
    requires(IsScalarFunctionOp(op))
  Result Handle(OpTag<op>) {
    if constexpr (OpCategory(op) == HloOpcodeCategory::kUnary) {
      return e_.scalars_.Unary(op, type_, operand(0));
    } else {
      return e_.scalars_.Binary(op, type_, operand(0), operand(1));
    }
  }
  template <Op op>
    requires(!IsFusibleOp(op))
  Result Handle(OpTag<op>) {
    return NotFusible(instruction_);
  }
  Result Handle(OpTag<Op::kReduce>) { return NotFusible(instruction_); }

  // Index maps: the operand's element at the index they chose.
  template <Op op>
    requires(OpIn<Op::kBroadcast, Op::kReshape, Op::kBitcast,
                  Op::kTranspose, Op::kReverse, Op::kGather, Op::kSlice,
                  Op::kDynamicSlice, Op::kCustomCall>(op))
  Result Handle(OpTag<op>) {
    return operand(0);
  }

  Result Handle(OpTag<Op::kParameter>) {
    const int64_t number = instruction_.parameter_number();
    if (auto bound = e_.bound_scalars_.find(number);
        bound != e_.bound_scalars_.end()) {
      return bound->second;
    }
    RET_CHECK(
        number < static_cast<int64_t>(e_.parameter_buffers_.size()) &&
            e_.parameter_buffers_[number] != nullptr,
        instruction_.ToString());
    return LoadElement(
        b_, type_, e_.parameter_buffers_[number],
        Linearize(b_, instruction_.shape().dimensions(), index_));
  }
  Result Handle(OpTag<Op::kConstant>) {
    return e_.EmitConstant(instruction_, index_);
  }
  Result Handle(OpTag<Op::kIota>) {
    return e_.scalars_.Convert(S64, type_,
                               index_[instruction_.iota_dimension()]);
  }
  Result Handle(OpTag<Op::kPad>);
  Result Handle(OpTag<Op::kDynamicUpdateSlice>);
  Result Handle(OpTag<Op::kConcatenate>);
  Result Handle(OpTag<Op::kConvert>) {
    return e_.scalars_.Convert(instruction_.operand(0)->shape().element_type(),
                               type_, operand(0));
  }
  Result Handle(OpTag<Op::kIsFinite>) {
    return e_.scalars_.IsFinite(operand(0));
  }
  Result Handle(OpTag<Op::kReducePrecision>) {
    return e_.scalars_.ReducePrecision(type_, operand(0),
                                       instruction_.exponent_bits(),
                                       instruction_.mantissa_bits());
  }
  // min(max(x, low), high), in the operand order the interpreter uses.
  Result Handle(OpTag<Op::kClamp>) {
    ASSIGN_OR_RETURN(llvm::Value * low,
                     e_.scalars_.Binary(Op::kMaximum, type_, operand(1),
                                        operand(0)));
    return e_.scalars_.Binary(Op::kMinimum, type_, low, operand(2));
  }
  Result Handle(OpTag<Op::kGetDimensionSize>) {
    return b_.getInt32(instruction_.operand(0)->shape().dimensions(
        instruction_.dimensions(0)));
  }
  Result Handle(OpTag<Op::kBitcastConvert>) {
    return e_.EmitBitcastConvert(instruction_, index_, operand(0));
  }
  Result Handle(OpTag<Op::kSelect>) {
    return b_.CreateSelect(operand(0), operand(1), operand(2));
  }
  Result Handle(OpTag<Op::kCompare>) {
    return e_.scalars_.Compare(
        instruction_.comparison_direction(),
        instruction_.operand(0)->shape().element_type(), operand(0),
        operand(1), instruction_.total_order_comparison());
  }

 private:
  llvm::Value* operand(int64_t i) const {
    return e_.cache_.at(Key{instruction_.operand(i), operand_indices_[i]});
  }

  ElementalEmitter& e_;
  llvm::IRBuilder<>& b_;
  const HloInstruction& instruction_;
  const IrIndex& index_;
  const std::vector<IrIndex>& operand_indices_;
  PrimitiveType type_;
};

// An operand element where the output element is one: past the low
// padding, on the interior stride, and before the operand's end.
ElementalEmitter::ElementRules::Result ElementalEmitter::ElementRules::Handle(
    OpTag<Op::kPad>) {
  const PaddingConfig config = instruction_.padding_config();
  const Shape& in = instruction_.operand(0)->shape();
  llvm::Value* is_operand = b_.getTrue();
  for (size_t d = 0; d < index_.size(); ++d) {
    llvm::Value* t = b_.CreateSub(index_[d], b_.getInt64(config[d].low));
    const int64_t step = config[d].interior + 1;
    llvm::Value* on_stride =
        step == 1 ? b_.getTrue()
                  : b_.CreateICmpEQ(b_.CreateSRem(t, b_.getInt64(step)),
                                    b_.getInt64(0));
    llvm::Value* below_end =
        b_.CreateICmpSLT(t, b_.getInt64(in.dimensions(d) * step));
    is_operand = b_.CreateAnd(
        is_operand, b_.CreateAnd(b_.CreateICmpSGE(t, b_.getInt64(0)),
                                 b_.CreateAnd(on_stride, below_end)));
  }
  return b_.CreateSelect(is_operand, operand(0), operand(1));
}

// The update where the output element lies in its window.
ElementalEmitter::ElementRules::Result ElementalEmitter::ElementRules::Handle(
    OpTag<Op::kDynamicUpdateSlice>) {
  const Shape& update = instruction_.operand(1)->shape();
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                   e_.WindowStarts(instruction_, 2, instruction_.shape(),
                                   update.dimensions()));
  llvm::Value* inside = b_.getTrue();
  for (size_t d = 0; d < index_.size(); ++d) {
    llvm::Value* end =
        b_.CreateAdd(starts[d], b_.getInt64(update.dimensions(d)));
    inside = b_.CreateAnd(
        inside, b_.CreateAnd(b_.CreateICmpSGE(index_[d], starts[d]),
                             b_.CreateICmpSLT(index_[d], end)));
  }
  return b_.CreateSelect(inside, operand(1), operand(0));
}

// The operand whose range along the dimension holds the index.
ElementalEmitter::ElementRules::Result ElementalEmitter::ElementRules::Handle(
    OpTag<Op::kConcatenate>) {
  const int64_t d = instruction_.dimensions(0);
  int64_t end = 0;
  llvm::Value* value = operand(instruction_.operand_count() - 1);
  std::vector<int64_t> ends;
  for (const HloInstruction* part : instruction_.operands()) {
    end += part->shape().dimensions(d);
    ends.push_back(end);
  }
  for (int64_t i = instruction_.operand_count() - 2; i >= 0; --i) {
    value = b_.CreateSelect(b_.CreateICmpSLT(index_[d], b_.getInt64(ends[i])),
                            operand(i), value);
  }
  return value;
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitOne(
    const HloInstruction& instruction, const IrIndex& index,
    const std::vector<IrIndex>& operand_indices) {
  if (auto bound = bound_.find(&instruction); bound != bound_.end()) {
    return bound->second(index);
  }
  ElementRules rules(*this, instruction, index, operand_indices);
  return VisitOp<absl::StatusOr<llvm::Value*>>(rules, instruction.opcode());
}

}  // namespace mxla::codegen
