#include "codegen/depthwise_emitter.h"

#include <algorithm>
#include <vector>

#include "codegen/llvm_pipeline.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "ir/conv_product.h"
#include "ir/flat_dot.h"
#include "ir/status_macros.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {
namespace {

// The window's taps in row-major order, each a position per dimension.
std::vector<std::vector<int64_t>> WindowTaps(const Window& window) {
  std::vector<std::vector<int64_t>> taps = {{}};
  for (const WindowDimension& d : window) {
    std::vector<std::vector<int64_t>> next;
    for (const std::vector<int64_t>& tap : taps) {
      for (int64_t i = 0; i < d.size; ++i) {
        next.push_back(tap);
        next.back().push_back(i);
      }
    }
    taps = std::move(next);
  }
  return taps;
}

class DepthwiseEmitter {
 public:
  DepthwiseEmitter(llvm::IRBuilder<>& b, const HloComputation& fused,
                   const HloInstruction& conv, const DotPlan& plan,
                   ElementalEmitter& elements, llvm::Value* result)
      : b_(b),
        root_(*fused.root_instruction()),
        conv_(conv),
        plan_(plan),
        elements_(elements),
        result_(result),
        type_(conv.shape().element_type()),
        rank_(conv.shape().rank()),
        features_(conv.shape().dimensions(rank_ - 1)),
        window_(conv.window()),
        taps_(WindowTaps(window_)),
        lanes_(HostVectorBytes() / primitive_util::ByteWidth(type_)),
        element_type_(RegisterType(type_, b.getContext())),
        vector_type_(llvm::FixedVectorType::get(element_type_, lanes_)) {}

  absl::Status Emit(llvm::Value* begin, llvm::Value* end);

 private:
  llvm::Value* I64(int64_t value) { return b_.getInt64(value); }
  llvm::Value* At(llvm::Value* buffer, llvm::Value* index) {
    return b_.CreateInBoundsGEP(element_type_, buffer, index);
  }
  llvm::Value* EntryArray(int64_t count, const char* name);
  // The weights, a row of features per tap in window order.
  absl::Status FillWeights();
  // The lanes below `count` of a vector.
  llvm::Value* LanesBelow(llvm::Value* count);
  // One vector of features from c0 (lanes under `mask` only, if given):
  // the sum over taps of input (from each tap's pointer) times weights,
  // taps where `valid` says not skipped (all taps without it), into the
  // row of sums.
  void SumVector(const std::vector<llvm::Value*>& pointers,
                 const std::vector<llvm::Value*>* valid, llvm::Value* c0,
                 llvm::Value* mask);
  // The position's vectors of features: the first up to the input's
  // alignment, whole ones, the last.
  absl::Status SumRow(const std::vector<llvm::Value*>& pointers,
                      const std::vector<llvm::Value*>* valid);
  // Output position `row`: its sums, then the epilogue over them.
  absl::Status EmitPosition(llvm::Value* row);

  llvm::IRBuilder<>& b_;
  const HloInstruction& root_;
  const HloInstruction& conv_;
  const DotPlan& plan_;
  ElementalEmitter& elements_;
  llvm::Value* result_;
  const PrimitiveType type_;
  const int64_t rank_;
  const int64_t features_;
  const Window window_;
  const std::vector<std::vector<int64_t>> taps_;
  const int64_t lanes_;
  llvm::Type* element_type_;
  llvm::FixedVectorType* vector_type_;
  llvm::Value* input_ = nullptr;
  llvm::Value* weights_ = nullptr;
  llvm::Value* sums_ = nullptr;
  // Features in the first vector (those before the input's first 64-byte
  // boundary, 0 when aligned or when positions are not whole lines), whole
  // vectors after it, and the features left for the last.
  llvm::Value* head_ = nullptr;
  llvm::Value* whole_ = nullptr;
  llvm::Value* tail_ = nullptr;
  // Feature c of the weights' rows and the row of sums is element shift_ +
  // c, so that their vectors are aligned where the input's are (the rows
  // are row_ elements apart, whole vectors).
  llvm::Value* shift_ = nullptr;
  int64_t row_ = 0;
};

llvm::Value* DepthwiseEmitter::EntryArray(int64_t count, const char* name) {
  llvm::IRBuilder<>::InsertPointGuard guard(b_);
  llvm::BasicBlock& entry = b_.GetInsertBlock()->getParent()->getEntryBlock();
  b_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* array = b_.CreateAlloca(element_type_, I64(count), name);
  array->setAlignment(llvm::Align(64));
  return array;
}

absl::Status DepthwiseEmitter::FillWeights() {
  const HloInstruction& kernel = *conv_.operand(1);
  const int64_t n = rank_ - 2;
  for (size_t t = 0; t < taps_.size(); ++t) {
    IrIndex index;
    for (int64_t i = 0; i < n; ++i) {
      const WindowDimension& d = window_[i];
      index.push_back(I64(d.reversal ? d.size - 1 - taps_[t][i] : taps_[t][i]));
    }
    index.push_back(I64(0));
    RETURN_IF_ERROR(EmitForLoop(
        b_, I64(0), I64(features_), "weights",
        [&](llvm::Value* f) -> absl::Status {
          IrIndex at = index;
          at.push_back(f);
          elements_.ClearCache();
          ASSIGN_OR_RETURN(llvm::Value * w, elements_.Generate(kernel, at));
          b_.CreateStore(
              w, At(weights_,
                    b_.CreateAdd(I64(static_cast<int64_t>(t) * row_),
                                 b_.CreateAdd(shift_, f))));
          return absl::OkStatus();
        }));
  }
  elements_.ClearCache();
  return absl::OkStatus();
}

llvm::Value* DepthwiseEmitter::LanesBelow(llvm::Value* count) {
  std::vector<llvm::Constant*> lanes;
  for (int64_t i = 0; i < lanes_; ++i) lanes.push_back(b_.getInt64(i));
  return b_.CreateICmpULT(llvm::ConstantVector::get(lanes),
                          b_.CreateVectorSplat(lanes_, count));
}

void DepthwiseEmitter::SumVector(const std::vector<llvm::Value*>& pointers,
                                 const std::vector<llvm::Value*>* valid,
                                 llvm::Value* c0, llvm::Value* mask) {
  const llvm::Align align(primitive_util::ByteWidth(type_));
  llvm::Value* zero = llvm::Constant::getNullValue(vector_type_);
  auto load = [&](llvm::Value* pointer) -> llvm::Value* {
    if (mask == nullptr) return b_.CreateAlignedLoad(vector_type_, pointer, align);
    return b_.CreateMaskedLoad(vector_type_, pointer, align, mask, zero);
  };
  llvm::Value* sum = zero;
  for (size_t t = 0; t < taps_.size(); ++t) {
    llvm::Value* x = load(At(pointers[t], c0));
    llvm::Value* w = load(At(
        weights_, b_.CreateAdd(I64(static_cast<int64_t>(t) * row_),
                               b_.CreateAdd(shift_, c0))));
    llvm::Value* next = b_.CreateIntrinsic(llvm::Intrinsic::fmuladd,
                                           {vector_type_}, {x, w, sum});
    sum = valid == nullptr ? next : b_.CreateSelect((*valid)[t], next, sum);
  }
  llvm::Value* out = At(sums_, b_.CreateAdd(shift_, c0));
  if (mask == nullptr) {
    b_.CreateAlignedStore(sum, out, align);
  } else {
    b_.CreateMaskedStore(sum, out, align, mask);
  }
}

absl::Status DepthwiseEmitter::SumRow(const std::vector<llvm::Value*>& pointers,
                                      const std::vector<llvm::Value*>* valid) {
  RETURN_IF_ERROR(EmitIf(b_, b_.CreateICmpUGT(head_, I64(0)), [&] {
    SumVector(pointers, valid, I64(0), LanesBelow(head_));
    return absl::OkStatus();
  }));
  RETURN_IF_ERROR(EmitForLoop(
      b_, I64(0), whole_, "features",
      [&](llvm::Value* v) {
        SumVector(pointers, valid, b_.CreateAdd(head_, b_.CreateMul(v, I64(lanes_))),
                  nullptr);
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten));
  return EmitIf(b_, b_.CreateICmpUGT(tail_, I64(0)), [&] {
    SumVector(pointers, valid,
              b_.CreateAdd(head_, b_.CreateMul(whole_, I64(lanes_))),
              LanesBelow(tail_));
    return absl::OkStatus();
  });
}

absl::Status DepthwiseEmitter::EmitPosition(llvm::Value* row) {
  const int64_t n = rank_ - 2;
  const Shape& out = conv_.shape();
  const Shape& input = conv_.operand(0)->shape();
  std::vector<int64_t> positions(out.dimensions().begin(),
                                 out.dimensions().end() - 1);
  const IrIndex index = ElementalEmitter::Delinearize(b_, positions, row);
  std::vector<int64_t> strides(rank_, 1);
  for (int64_t d = rank_ - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * input.dimensions(d + 1);
  }
  // Each tap's pointer to its input features, and whether it lands on the
  // input (a tap off it points at the position's batch element's first
  // features, read but never added).
  std::vector<llvm::Value*> pointers, valid;
  llvm::Value* all_valid = b_.getTrue();
  llvm::Value* batch_offset = b_.CreateMul(index[0], I64(strides[0]));
  for (const std::vector<int64_t>& tap : taps_) {
    llvm::Value* offset = batch_offset;
    llvm::Value* on_input = b_.getTrue();
    for (int64_t i = 0; i < n; ++i) {
      const WindowDimension& d = window_[i];
      llvm::Value* p = b_.CreateSub(
          b_.CreateAdd(b_.CreateMul(index[1 + i], I64(d.stride)),
                       I64(tap[i] * d.window_dilation)),
          I64(d.padding_low));
      on_input = b_.CreateAnd(
          on_input, b_.CreateAnd(b_.CreateICmpSGE(p, I64(0)),
                                 b_.CreateICmpSLT(p, I64(input.dimensions(1 + i)))));
      offset = b_.CreateAdd(offset, b_.CreateMul(p, I64(strides[1 + i])));
    }
    valid.push_back(on_input);
    all_valid = b_.CreateAnd(all_valid, on_input);
    pointers.push_back(
        At(input_, b_.CreateSelect(on_input, offset, batch_offset)));
  }
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  auto* inside = llvm::BasicBlock::Create(context, "dw_inside", function);
  auto* border = llvm::BasicBlock::Create(context, "dw_border", function);
  auto* done = llvm::BasicBlock::Create(context, "dw_summed", function);
  b_.CreateCondBr(all_valid, inside, border);
  b_.SetInsertPoint(inside);
  RETURN_IF_ERROR(SumRow(pointers, nullptr));
  b_.CreateBr(done);
  b_.SetInsertPoint(border);
  RETURN_IF_ERROR(SumRow(pointers, &valid));
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  // The epilogue (or a copy) over the row of sums.
  llvm::Value* first = b_.CreateMul(row, I64(features_));
  elements_.Bind(conv_, [&](const IrIndex& at) -> llvm::Value* {
    return b_.CreateLoad(element_type_,
                         At(sums_, b_.CreateAdd(shift_, at.back())));
  });
  absl::Status status = EmitForLoop(
      b_, I64(0), I64(features_), "epilogue",
      [&](llvm::Value* f) -> absl::Status {
        IrIndex at = index;
        at.push_back(f);
        elements_.ClearCache();
        ASSIGN_OR_RETURN(llvm::Value * value, elements_.Generate(root_, at));
        StoreElement(b_, root_.shape().element_type(), result_,
                     b_.CreateAdd(first, f), value);
        return absl::OkStatus();
      });
  elements_.Unbind(conv_);
  elements_.ClearCache();
  return status;
}

absl::Status DepthwiseEmitter::Emit(llvm::Value* begin, llvm::Value* end) {
  RET_CHECK(conv_.operand(0)->opcode() == HloOpcode::kParameter,
            conv_.ToString());
  input_ = elements_.parameter_buffer(conv_.operand(0)->parameter_number());
  row_ = (features_ + 2 * lanes_ - 1) / lanes_ * lanes_;
  weights_ = EntryArray(static_cast<int64_t>(taps_.size()) * row_,
                        "dw_weights");
  sums_ = EntryArray(row_, "dw_sums");
  // The first vector ends at the input's first 64-byte boundary when every
  // position's features are whole lines (so all start alike).
  const int64_t bytes = primitive_util::ByteWidth(type_);
  head_ = I64(0);
  shift_ = I64(0);
  if (features_ * bytes % 64 == 0) {
    llvm::Value* misaligned =
        b_.CreateAnd(b_.CreatePtrToInt(input_, b_.getInt64Ty()), I64(63));
    llvm::Value* head = b_.CreateUDiv(b_.CreateSub(I64(64), misaligned),
                                      I64(bytes));
    llvm::Value* usable = b_.CreateAnd(
        b_.CreateICmpNE(misaligned, I64(0)),
        b_.CreateICmpEQ(b_.CreateURem(misaligned, I64(bytes)), I64(0)));
    head_ = b_.CreateSelect(usable, head, I64(0));
    shift_ = b_.CreateSelect(usable, b_.CreateUDiv(misaligned, I64(bytes)),
                             I64(0));
  }
  RETURN_IF_ERROR(FillWeights());
  whole_ = b_.CreateUDiv(b_.CreateSub(I64(features_), head_), I64(lanes_));
  tail_ = b_.CreateSub(b_.CreateSub(I64(features_), head_),
                       b_.CreateMul(whole_, I64(lanes_)));
  const int64_t m = FlattenProduct(conv_).m;
  return EmitForLoop(b_, begin, end, "unit", [&](llvm::Value* unit) {
    llvm::Value* m0 = b_.CreateMul(unit, I64(plan_.m_block));
    llvm::Value* m1 = b_.CreateAdd(m0, I64(plan_.m_block));
    m1 = b_.CreateSelect(b_.CreateICmpSLT(m1, I64(m)), m1, I64(m));
    return EmitForLoop(
        b_, m0, m1, "position",
        [&](llvm::Value* row) { return EmitPosition(row); },
        LoopHints::kKeepAsWritten);
  });
}

}  // namespace

absl::Status EmitDepthwiseKernel(llvm::IRBuilder<>& b,
                                 const HloComputation& fused,
                                 const HloInstruction& conv,
                                 const DotPlan& plan,
                                 ElementalEmitter& elements,
                                 llvm::Value* result, llvm::Value* begin,
                                 llvm::Value* end) {
  RET_CHECK(IsDepthwiseProduct(conv), conv.ToString());
  DepthwiseEmitter emitter(b, fused, conv, plan, elements, result);
  return emitter.Emit(begin, end);
}

}  // namespace mxla::codegen
