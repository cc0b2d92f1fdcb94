#include "codegen/depthwise_emitter.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "codegen/llvm_pipeline.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/prefetch.h"
#include "codegen/streaming_store_emitter.h"
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

int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// `row_index` extended by `column`: a position's index.
IrIndex WithColumn(const IrIndex& row_index, llvm::Value* column) {
  IrIndex index = row_index;
  index.push_back(column);
  return index;
}

// The address of a tap's input features from c0, for the block's position
// p: (tap, p, c0) -> pointer.
using TapAddress = std::function<llvm::Value*(size_t, int64_t, llvm::Value*)>;

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
        vector_type_(llvm::FixedVectorType::get(element_type_, lanes_)) {
    const Shape& input = conv.operand(0)->shape();
    strides_.assign(rank_, 1);
    for (int64_t d = rank_ - 2; d >= 0; --d) {
      strides_[d] = strides_[d + 1] * input.dimensions(d + 1);
    }
  }

  absl::Status Emit(llvm::Value* begin, llvm::Value* end);

 private:
  // The weights' rows and the rows of sums, and with streaming stores the
  // staging rows and whether the result is aligned for them.
  void AllocateRows();
  // head_ and shift_: where the input's vectors start in a position's
  // features.
  void AlignToInput();
  // The positions of units [begin, end): rows in segments (EmitSegment),
  // or positions one by one without spatial dimensions.
  absl::Status EmitPositions(llvm::Value* begin, llvm::Value* end);
  llvm::Value* I64(int64_t value) { return b_.getInt64(value); }
  llvm::Value* At(llvm::Value* buffer, llvm::Value* index) {
    return b_.CreateInBoundsGEP(element_type_, buffer, index);
  }
  llvm::Value* EntryArray(int64_t count, const char* name);
  // The weights, a row of features per tap in window order.
  absl::Status FillWeights();
  // The lanes below `count` of a vector.
  llvm::Value* LanesBelow(llvm::Value* count);
  // One vector of features from c0 (lanes under `mask` only, if given) of
  // `positions` consecutive positions: the sum over taps of input times
  // weights, taps where `valid` says not skipped (all taps without it),
  // into the rows of sums.
  void SumVector(const TapAddress& address,
                 const std::vector<llvm::Value*>* valid, int64_t positions,
                 llvm::Value* c0, llvm::Value* mask);
  // The positions' vectors of features: the whole ones, then the head (up
  // to the input's alignment) and the tail, masked.
  absl::Status SumRows(const TapAddress& address,
                       const std::vector<llvm::Value*>* valid,
                       int64_t positions);
  // The input coordinate along spatial dimension i of `index`'s tap t.
  llvm::Value* Coordinate(const IrIndex& index, int64_t i, int64_t t);
  // The sums of output position `index` alone, into the first row.
  absl::Status SumPosition(const IrIndex& index);
  // The sums of kDepthwiseBlock positions from `index` along the last
  // dimension, every tap of each on the input, into the rows.
  absl::Status SumBlock(const IrIndex& index);
  // The row of positions [from, to) of row `row_index` (rank >= 3).
  absl::Status EmitSegment(const IrIndex& row_index, llvm::Value* row_start,
                           llvm::Value* from, llvm::Value* to);
  // Whether the taps of row `row_index` along the dimensions before the
  // last all land on the input (each coordinate moves monotonically with
  // the tap, so its first and last taps say).
  llvm::Value* RowOnInput(const IrIndex& row_index);
  // The columns [begin, end) of [from, to) whose taps along the last
  // dimension all land on the input where `inside` holds (else [to, to)).
  struct Columns {
    llvm::Value* begin;
    llvm::Value* end;
  };
  Columns ColumnsOnInput(llvm::Value* inside, llvm::Value* from,
                         llvm::Value* to);
  // The epilogue (or a copy) over the rows of sums of `positions`
  // positions from `index` (linear `linear`) along the last dimension.
  absl::Status EmitEpilogue(const IrIndex& index, llvm::Value* linear,
                            llvm::Value* positions);
  absl::Status EpilogueInto(const IrIndex& index, llvm::Value* positions,
                            llvm::Value* output, llvm::Value* first);

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
  std::vector<int64_t> strides_;  // the input's, in elements
  llvm::Value* input_ = nullptr;
  llvm::Value* weights_ = nullptr;
  llvm::Value* sums_ = nullptr;
  // Features in the first vector (those before the input's first vector
  // boundary, 0 when aligned or when positions are not whole vectors), whole
  // vectors after it, and the features left for the last.
  llvm::Value* head_ = nullptr;
  llvm::Value* whole_ = nullptr;
  llvm::Value* tail_ = nullptr;
  // Feature c of the weights' rows and the rows of sums is element shift_
  // + c, so that their vectors are aligned where the input's are (the rows
  // are row_ elements apart, whole vectors).
  llvm::Value* shift_ = nullptr;
  int64_t row_ = 0;
  // Streaming: the epilogue's values go through `staged_` (aligned rows of
  // features) when `aligned_` (the result's address is vector-aligned).
  bool streams_ = false;
  llvm::Value* staged_ = nullptr;
  llvm::Value* aligned_ = nullptr;
  // Called per vector of features from c0 while a block sums: its
  // prefetches (null elsewhere).
  std::function<void(llvm::Value*)> prefetch_;
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
              w, At(weights_, b_.CreateAdd(I64(static_cast<int64_t>(t) * row_),
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

void DepthwiseEmitter::SumVector(const TapAddress& address,
                                 const std::vector<llvm::Value*>* valid,
                                 int64_t positions, llvm::Value* c0,
                                 llvm::Value* mask) {
  const llvm::Align align(primitive_util::ByteWidth(type_));
  llvm::Value* zero = llvm::Constant::getNullValue(vector_type_);
  auto load = [&](llvm::Value* pointer) -> llvm::Value* {
    if (mask == nullptr)
      return b_.CreateAlignedLoad(vector_type_, pointer, align);
    return b_.CreateMaskedLoad(vector_type_, pointer, align, mask, zero);
  };
  if (prefetch_) prefetch_(c0);
  std::vector<llvm::Value*> sums(positions, zero);
  for (size_t t = 0; t < taps_.size(); ++t) {
    llvm::Value* w =
        load(At(weights_, b_.CreateAdd(I64(static_cast<int64_t>(t) * row_),
                                       b_.CreateAdd(shift_, c0))));
    for (int64_t p = 0; p < positions; ++p) {
      llvm::Value* x = load(address(t, p, c0));
      llvm::Value* next = b_.CreateIntrinsic(llvm::Intrinsic::fmuladd,
                                             {vector_type_}, {x, w, sums[p]});
      sums[p] =
          valid == nullptr ? next : b_.CreateSelect((*valid)[t], next, sums[p]);
    }
  }
  for (int64_t p = 0; p < positions; ++p) {
    llvm::Value* out =
        At(sums_, b_.CreateAdd(I64(p * row_), b_.CreateAdd(shift_, c0)));
    if (mask == nullptr) {
      b_.CreateAlignedStore(sums[p], out, align);
    } else {
      b_.CreateMaskedStore(sums[p], out, align, mask);
    }
  }
}

absl::Status DepthwiseEmitter::SumRows(const TapAddress& address,
                                       const std::vector<llvm::Value*>* valid,
                                       int64_t positions) {
  RETURN_IF_ERROR(EmitForLoop(
      b_, I64(0), whole_, "features",
      [&](llvm::Value* v) {
        SumVector(address, valid, positions,
                  b_.CreateAdd(head_, b_.CreateMul(v, I64(lanes_))), nullptr);
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten));
  // The head (features [0, head_)) and the tail (the tail_ after the whole
  // vectors) are masked vectors: one copy of the code for both.
  return EmitForLoop(
      b_, I64(0), I64(2), "edge",
      [&](llvm::Value* e) {
        llvm::Value* tail = b_.CreateICmpNE(e, I64(0));
        llvm::Value* count = b_.CreateSelect(tail, tail_, head_);
        llvm::Value* c0 = b_.CreateSelect(
            tail, b_.CreateAdd(head_, b_.CreateMul(whole_, I64(lanes_))),
            I64(0));
        return EmitIf(b_, b_.CreateICmpUGT(count, I64(0)), [&] {
          SumVector(address, valid, positions, c0, LanesBelow(count));
          return absl::OkStatus();
        });
      },
      LoopHints::kKeepAsWritten);
}

llvm::Value* DepthwiseEmitter::Coordinate(const IrIndex& index, int64_t i,
                                          int64_t t) {
  const WindowDimension& d = window_[i];
  return b_.CreateSub(b_.CreateAdd(b_.CreateMul(index[1 + i], I64(d.stride)),
                                   I64(taps_[t][i] * d.window_dilation)),
                      I64(d.padding_low));
}

absl::Status DepthwiseEmitter::SumPosition(const IrIndex& index) {
  const int64_t n = rank_ - 2;
  const Shape& input = conv_.operand(0)->shape();
  // Each tap's pointer to its input features, and whether it lands on the
  // input (a tap off it points at the position's batch element's first
  // features, read but never added). Blocks take most positions whose taps
  // all land, so these are summed alike, through the selects.
  std::vector<llvm::Value*> pointers, valid;
  llvm::Value* batch_offset = b_.CreateMul(index[0], I64(strides_[0]));
  for (size_t t = 0; t < taps_.size(); ++t) {
    llvm::Value* offset = batch_offset;
    llvm::Value* on_input = b_.getTrue();
    for (int64_t i = 0; i < n; ++i) {
      llvm::Value* p = Coordinate(index, i, t);
      on_input = b_.CreateAnd(
          on_input,
          b_.CreateAnd(b_.CreateICmpSGE(p, I64(0)),
                       b_.CreateICmpSLT(p, I64(input.dimensions(1 + i)))));
      offset = b_.CreateAdd(offset, b_.CreateMul(p, I64(strides_[1 + i])));
    }
    valid.push_back(on_input);
    pointers.push_back(
        At(input_, b_.CreateSelect(on_input, offset, batch_offset)));
  }
  const TapAddress address = [&](size_t t, int64_t, llvm::Value* c0) {
    return At(pointers[t], c0);
  };
  return SumRows(address, &valid, 1);
}

absl::Status DepthwiseEmitter::SumBlock(const IrIndex& index) {
  // One pointer per tap of the window's other dimensions (a window row),
  // at the block's first position; a tap's input for position p is a
  // constant number of elements past it, the same constant (so the same
  // load) wherever two taps of the block read one input vector.
  const int64_t n = rank_ - 2;
  const WindowDimension& last = window_[n - 1];
  std::vector<llvm::Value*> rows;
  for (size_t t = 0; t < taps_.size(); t += last.size) {
    llvm::Value* offset = b_.CreateMul(index[0], I64(strides_[0]));
    for (int64_t i = 0; i < n; ++i) {
      offset = b_.CreateAdd(
          offset, b_.CreateMul(Coordinate(index, i, t), I64(strides_[1 + i])));
    }
    rows.push_back(At(input_, offset));
  }
  const TapAddress address = [&](size_t t, int64_t p, llvm::Value* c0) {
    const int64_t past =
        (taps_[t][n - 1] * last.window_dilation + p * last.stride) *
        strides_[n];
    return At(rows[t / last.size], b_.CreateAdd(c0, I64(past)));
  };
  // The input kDepthwisePrefetch positions ahead is asked for, a vector of
  // features at a time, where the next blocks first read it (their last
  // window row's rightmost taps: a row-major walk meets those lines last):
  // lines a position apart are too far apart for the hardware to foresee.
  prefetch_ = [&](llvm::Value* c0) {
    const int64_t right = (last.size - 1) * last.window_dilation;
    for (int64_t p = 0; p < kDepthwiseBlock; ++p) {
      const int64_t ahead = kDepthwisePrefetch + p;
      EmitPrefetch(
          b_,
          At(rows.back(), b_.CreateAdd(c0, I64((right + ahead * last.stride) *
                                               strides_[n]))),
          3);
    }
  };
  absl::Status status = SumRows(address, nullptr, kDepthwiseBlock);
  prefetch_ = nullptr;
  return status;
}

llvm::Value* DepthwiseEmitter::RowOnInput(const IrIndex& row_index) {
  const int64_t n = rank_ - 2;
  const Shape& input = conv_.operand(0)->shape();
  llvm::Value* inside = b_.getTrue();
  for (int64_t i = 0; i + 1 < n; ++i) {
    const WindowDimension& d = window_[i];
    llvm::Value* first = b_.CreateSub(
        b_.CreateMul(row_index[1 + i], I64(d.stride)), I64(d.padding_low));
    llvm::Value* last =
        b_.CreateAdd(first, I64((d.size - 1) * d.window_dilation));
    inside = b_.CreateAnd(
        inside,
        b_.CreateAnd(b_.CreateICmpSGE(first, I64(0)),
                     b_.CreateICmpSLT(last, I64(input.dimensions(1 + i)))));
  }
  return inside;
}

DepthwiseEmitter::Columns DepthwiseEmitter::ColumnsOnInput(llvm::Value* inside,
                                                           llvm::Value* from,
                                                           llvm::Value* to) {
  // col * stride - padding_low >= 0 and col * stride + (size - 1) *
  // dilation - padding_low < input.
  const int64_t n = rank_ - 2;
  const Shape& input = conv_.operand(0)->shape();
  const WindowDimension& d = window_[n - 1];
  const int64_t lo =
      std::max<int64_t>(0, FloorDiv(d.padding_low + d.stride - 1, d.stride));
  const int64_t hi = std::max<int64_t>(
      lo, FloorDiv(input.dimensions(n) - (d.size - 1) * d.window_dilation +
                       d.padding_low + d.stride - 1,
                   d.stride));
  auto clamp = [&](llvm::Value* v, llvm::Value* low, llvm::Value* high) {
    v = b_.CreateSelect(b_.CreateICmpSLT(v, low), low, v);
    return b_.CreateSelect(b_.CreateICmpSGT(v, high), high, v);
  };
  Columns columns;
  columns.begin = b_.CreateSelect(inside, clamp(I64(lo), from, to), to);
  columns.end = b_.CreateSelect(inside, clamp(I64(hi), columns.begin, to), to);
  return columns;
}

absl::Status DepthwiseEmitter::EmitSegment(const IrIndex& row_index,
                                           llvm::Value* row_start,
                                           llvm::Value* from, llvm::Value* to) {
  // The columns whose taps all land on the input, along the other
  // dimensions (the row's) and along the last.
  const Columns on_input = ColumnsOnInput(RowOnInput(row_index), from, to);
  llvm::Value* a = on_input.begin;
  llvm::Value* z = on_input.end;
  // Steps along the row: a block where one fits in [a, z) (the last one
  // ending at z, over positions the one before computed already: the same
  // values again), a position alone elsewhere; then the step's epilogue.
  llvm::Value* fits =
      b_.CreateICmpSGE(b_.CreateSub(z, a), I64(kDepthwiseBlock));
  llvm::Value* last_start = b_.CreateSub(z, I64(kDepthwiseBlock));
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* entry = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context, "dw_step", function);
  auto* body = llvm::BasicBlock::Create(context, "dw_step_body", function);
  auto* block = llvm::BasicBlock::Create(context, "dw_block", function);
  auto* single = llvm::BasicBlock::Create(context, "dw_single", function);
  auto* join = llvm::BasicBlock::Create(context, "dw_step_sums", function);
  auto* exit = llvm::BasicBlock::Create(context, "dw_row_done", function);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* col = b_.CreatePHI(b_.getInt64Ty(), 2, "col");
  col->addIncoming(from, entry);
  b_.CreateCondBr(b_.CreateICmpSLT(col, to), body, exit);
  b_.SetInsertPoint(body);
  llvm::Value* blockable = b_.CreateAnd(
      fits, b_.CreateAnd(b_.CreateICmpSGE(col, a), b_.CreateICmpSLT(col, z)));
  b_.CreateCondBr(blockable, block, single);
  b_.SetInsertPoint(block);
  llvm::Value* start =
      b_.CreateSelect(b_.CreateICmpSLT(col, last_start), col, last_start);
  RETURN_IF_ERROR(SumBlock(WithColumn(row_index, start)));
  llvm::BasicBlock* block_end = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(single);
  RETURN_IF_ERROR(SumPosition(WithColumn(row_index, col)));
  llvm::BasicBlock* single_end = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  llvm::PHINode* first = b_.CreatePHI(b_.getInt64Ty(), 2, "first");
  first->addIncoming(start, block_end);
  first->addIncoming(col, single_end);
  llvm::PHINode* count = b_.CreatePHI(b_.getInt64Ty(), 2, "count");
  count->addIncoming(I64(kDepthwiseBlock), block_end);
  count->addIncoming(I64(1), single_end);
  RETURN_IF_ERROR(EmitEpilogue(WithColumn(row_index, first),
                               b_.CreateAdd(row_start, first), count));
  col->addIncoming(b_.CreateAdd(first, count), b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status DepthwiseEmitter::EpilogueInto(const IrIndex& index,
                                            llvm::Value* positions,
                                            llvm::Value* output,
                                            llvm::Value* first) {
  // The conv's element at the index being generated: its position's row
  // of sums.
  llvm::Value* row = nullptr;
  elements_.Bind(conv_, [&](const IrIndex& at) -> llvm::Value* {
    return b_.CreateLoad(
        element_type_,
        At(sums_, b_.CreateAdd(row, b_.CreateAdd(shift_, at.back()))));
  });
  absl::Status status = EmitForLoop(
      b_, I64(0), positions, "epilogue_position",
      [&](llvm::Value* p) -> absl::Status {
        row = b_.CreateMul(p, I64(row_));
        IrIndex at = index;
        if (rank_ > 2) at.back() = b_.CreateAdd(at.back(), p);
        llvm::Value* start =
            b_.CreateAdd(first, b_.CreateMul(p, I64(features_)));
        return EmitForLoop(
            b_, I64(0), I64(features_), "epilogue",
            [&](llvm::Value* f) -> absl::Status {
              IrIndex element = at;
              element.push_back(f);
              elements_.ClearCache();
              ASSIGN_OR_RETURN(llvm::Value * value,
                               elements_.Generate(root_, element));
              StoreElement(b_, root_.shape().element_type(), output,
                           b_.CreateAdd(start, f), value);
              return absl::OkStatus();
            });
      },
      LoopHints::kKeepAsWritten);
  elements_.Unbind(conv_);
  elements_.ClearCache();
  return status;
}

absl::Status DepthwiseEmitter::EmitEpilogue(const IrIndex& index,
                                            llvm::Value* linear,
                                            llvm::Value* positions) {
  llvm::Value* first = b_.CreateMul(linear, I64(features_));
  if (!streams_) return EpilogueInto(index, positions, result_, first);
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  auto* streamed = llvm::BasicBlock::Create(context, "dw_stream", function);
  auto* plain = llvm::BasicBlock::Create(context, "dw_plain", function);
  auto* done = llvm::BasicBlock::Create(context, "dw_stored", function);
  b_.CreateCondBr(aligned_, streamed, plain);
  b_.SetInsertPoint(streamed);
  RETURN_IF_ERROR(EpilogueInto(index, positions, staged_, I64(0)));
  // The positions' rows are contiguous in the output and whole aligned
  // vectors there: copy them out without reading the output's lines.
  llvm::MDNode* nontemporal =
      llvm::MDNode::get(context, llvm::ConstantAsMetadata::get(b_.getInt32(1)));
  const llvm::Align align(HostVectorBytes());
  RETURN_IF_ERROR(EmitForLoop(
      b_, I64(0), b_.CreateMul(positions, I64(features_ / lanes_)),
      "dw_stream_vector",
      [&](llvm::Value* v) {
        llvm::Value* offset = b_.CreateMul(v, I64(lanes_));
        llvm::Value* vector =
            b_.CreateAlignedLoad(vector_type_, At(staged_, offset), align);
        llvm::StoreInst* store = b_.CreateAlignedStore(
            vector, At(result_, b_.CreateAdd(first, offset)), align);
        store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten));
  b_.CreateBr(done);
  b_.SetInsertPoint(plain);
  RETURN_IF_ERROR(EpilogueInto(index, positions, result_, first));
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return absl::OkStatus();
}

absl::Status DepthwiseEmitter::Emit(llvm::Value* begin, llvm::Value* end) {
  RET_CHECK(conv_.operand(0)->opcode() == HloOpcode::kParameter,
            conv_.ToString());
  input_ = elements_.parameter_buffer(conv_.operand(0)->parameter_number());
  AllocateRows();
  AlignToInput();
  RETURN_IF_ERROR(FillWeights());
  whole_ = b_.CreateUDiv(b_.CreateSub(I64(features_), head_), I64(lanes_));
  tail_ = b_.CreateSub(b_.CreateSub(I64(features_), head_),
                       b_.CreateMul(whole_, I64(lanes_)));
  absl::Status status = EmitPositions(begin, end);
  if (status.ok() && streams_) EmitStreamingFence(b_);
  return status;
}

void DepthwiseEmitter::AllocateRows() {
  const int64_t positions = rank_ > 2 ? kDepthwiseBlock : 1;
  row_ = (features_ + 2 * lanes_ - 1) / lanes_ * lanes_;
  weights_ =
      EntryArray(static_cast<int64_t>(taps_.size()) * row_, "dw_weights");
  sums_ = EntryArray(positions * row_, "dw_sums");
  // Streamed: vectors of the result's own type, each position's row whole
  // vectors.
  streams_ =
      plan_.store == StoreKind::kStreaming &&
      root_.shape().element_type() == type_ &&
      features_ * primitive_util::ByteWidth(type_) % HostVectorBytes() == 0;
  if (streams_) {
    staged_ = EntryArray(positions * features_, "dw_staged");
    aligned_ = b_.CreateICmpEQ(
        b_.CreateAnd(b_.CreatePtrToInt(result_, b_.getInt64Ty()),
                     I64(HostVectorBytes() - 1)),
        I64(0));
  }
}

void DepthwiseEmitter::AlignToInput() {
  // The first vector ends at the input's first vector boundary when every
  // position's features are whole vectors (so all start alike). (With
  // AVX2's 32-byte vectors, not at a 64-byte line: a head longer than a
  // vector would leave features out.)
  const int64_t bytes = primitive_util::ByteWidth(type_);
  const int64_t vector_bytes = HostVectorBytes();
  head_ = I64(0);
  shift_ = I64(0);
  if (features_ * bytes % vector_bytes != 0) return;
  llvm::Value* misaligned = b_.CreateAnd(
      b_.CreatePtrToInt(input_, b_.getInt64Ty()), I64(vector_bytes - 1));
  llvm::Value* head =
      b_.CreateUDiv(b_.CreateSub(I64(vector_bytes), misaligned), I64(bytes));
  llvm::Value* usable = b_.CreateAnd(
      b_.CreateICmpNE(misaligned, I64(0)),
      b_.CreateICmpEQ(b_.CreateURem(misaligned, I64(bytes)), I64(0)));
  head_ = b_.CreateSelect(usable, head, I64(0));
  shift_ =
      b_.CreateSelect(usable, b_.CreateUDiv(misaligned, I64(bytes)), I64(0));
}

absl::Status DepthwiseEmitter::EmitPositions(llvm::Value* begin,
                                             llvm::Value* end) {
  const int64_t m = FlattenProduct(conv_).m;
  const Shape& out = conv_.shape();
  const std::vector<int64_t> dims(out.dimensions().begin(),
                                  out.dimensions().end() - 1);
  llvm::Value* m0 = b_.CreateMul(begin, I64(plan_.m_block));
  llvm::Value* m1 = b_.CreateMul(end, I64(plan_.m_block));
  m1 = b_.CreateSelect(b_.CreateICmpSLT(m1, I64(m)), m1, I64(m));
  if (rank_ > 2) {
    return EmitRowSegments(b_, dims, m0, m1,
                           [&](const IrIndex& row_index, llvm::Value* row_start,
                               llvm::Value* from, llvm::Value* to) {
                             return EmitSegment(row_index, row_start, from, to);
                           });
  }
  return EmitForLoop(
      b_, m0, m1, "position",
      [&](llvm::Value* position) {
        RETURN_IF_ERROR(SumPosition({position}));
        return EmitEpilogue({position}, position, I64(1));
      },
      LoopHints::kKeepAsWritten);
}

}  // namespace

absl::Status EmitDepthwiseKernel(
    llvm::IRBuilder<>& b, const HloComputation& fused,
    const HloInstruction& conv, const DotPlan& plan, ElementalEmitter& elements,
    llvm::Value* result, llvm::Value* begin, llvm::Value* end) {
  RET_CHECK(IsDepthwiseProduct(conv), conv.ToString());
  DepthwiseEmitter emitter(b, fused, conv, plan, elements, result);
  return emitter.Emit(begin, end);
}

}  // namespace mxla::codegen
