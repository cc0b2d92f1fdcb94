#include "codegen/streaming_store_emitter.h"

#include "codegen/llvm_pipeline.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "ir/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/MDBuilder.h"

namespace mxla::codegen {
namespace {

// Elements per aligned block: the vector loop's trip count bound.
constexpr int64_t kBlockElements = 512;

// while (pos < to) { n = step(pos); body(pos, n); pos += n; }
absl::Status EmitStepLoop(
    llvm::IRBuilder<>& b, llvm::Value* from, llvm::Value* to,
    const std::function<absl::StatusOr<llvm::Value*>(llvm::Value*)>& body) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context, "block.header", function);
  auto* body_block = llvm::BasicBlock::Create(context, "block.body", function);
  auto* exit = llvm::BasicBlock::Create(context, "block.exit", function);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* position = b.CreatePHI(b.getInt64Ty(), 2, "block");
  position->addIncoming(from, preheader);
  b.CreateCondBr(b.CreateICmpSLT(position, to), body_block, exit);
  b.SetInsertPoint(body_block);
  ASSIGN_OR_RETURN(llvm::Value * count, body(position));
  position->addIncoming(b.CreateAdd(position, count), b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

using ElementGenerator =
    std::function<absl::StatusOr<llvm::Value*>(const IrIndex&)>;

// One kernel's streaming output: its constants, and the steps of each
// block of a row segment: size it, stream its whole aligned vectors, store
// the rest plainly.
class StreamingBlocks {
 public:
  // `type` is not pred, and its vectors split a block evenly.
  StreamingBlocks(llvm::IRBuilder<>& b, PrimitiveType type,
                  llvm::Value* output,
                  const std::function<void(llvm::Value*)>& per_vector);

  // Emits the block at column `col` of a row segment ending at `to`;
  // returns how many elements it stored.
  absl::StatusOr<llvm::Value*> Emit(const IrIndex& row_index,
                                    llvm::Value* row_start, llvm::Value* col,
                                    llvm::Value* to,
                                    const ElementGenerator& value);

 private:
  struct Size {
    llvm::Value* count;    // elements in the block
    llvm::Value* aligned;  // i1: the block starts on a vector boundary
  };

  Size EmitSize(llvm::Value* position, llvm::Value* col, llvm::Value* to);
  absl::Status EmitVectors(const IrIndex& row_index, llvm::Value* position,
                           llvm::Value* col, llvm::Value* vectors,
                           const ElementGenerator& value);
  absl::Status EmitRest(const IrIndex& row_index, llvm::Value* position,
                        llvm::Value* col, llvm::Value* from,
                        llvm::Value* count, const ElementGenerator& value);

  llvm::IRBuilder<>& b_;
  PrimitiveType type_;
  llvm::Type* memory_type_;
  int64_t element_bytes_;
  int64_t vector_bytes_;
  int64_t lanes_;
  llvm::Value* output_;
  llvm::MDNode* nontemporal_;
  llvm::Value* output_address_;
  const std::function<void(llvm::Value*)>& per_vector_;
};

StreamingBlocks::StreamingBlocks(
    llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* output,
    const std::function<void(llvm::Value*)>& per_vector)
    : b_(b),
      type_(type),
      memory_type_(MemoryType(type, b.getContext())),
      element_bytes_(primitive_util::ByteWidth(type)),
      vector_bytes_(HostVectorBytes()),
      lanes_(vector_bytes_ / element_bytes_),
      output_(output),
      nontemporal_(llvm::MDNode::get(
          b.getContext(), llvm::ConstantAsMetadata::get(b.getInt32(1)))),
      output_address_(b.CreatePtrToInt(output, b.getInt64Ty())),
      per_vector_(per_vector) {}

absl::StatusOr<llvm::Value*> StreamingBlocks::Emit(
    const IrIndex& row_index, llvm::Value* row_start, llvm::Value* col,
    llvm::Value* to, const ElementGenerator& value) {
  llvm::Value* position = b_.CreateAdd(row_start, col);
  Size size = EmitSize(position, col, to);
  llvm::Value* vectors = b_.CreateSelect(
      size.aligned, b_.CreateUDiv(size.count, b_.getInt64(lanes_)),
      b_.getInt64(0));
  RETURN_IF_ERROR(EmitVectors(row_index, position, col, vectors, value));
  RETURN_IF_ERROR(EmitRest(row_index, position, col,
                           b_.CreateMul(vectors, b_.getInt64(lanes_)),
                           size.count, value));
  return size.count;
}

// Up to the next aligned address first, then whole blocks; never past `to`.
StreamingBlocks::Size StreamingBlocks::EmitSize(llvm::Value* position,
                                                llvm::Value* col,
                                                llvm::Value* to) {
  llvm::Value* misaligned = b_.CreateAnd(
      b_.CreateAdd(output_address_,
                   b_.CreateMul(position, b_.getInt64(element_bytes_))),
      b_.getInt64(vector_bytes_ - 1));
  // Rounded up: a caller's buffer that is not even element-aligned never
  // reaches the alignment, but still advances.
  llvm::Value* head = b_.CreateUDiv(
      b_.CreateSub(b_.getInt64(vector_bytes_ + element_bytes_ - 1), misaligned),
      b_.getInt64(element_bytes_));
  llvm::Value* aligned = b_.CreateICmpEQ(misaligned, b_.getInt64(0));
  llvm::Value* count =
      b_.CreateSelect(aligned, b_.getInt64(kBlockElements), head);
  llvm::Value* left = b_.CreateSub(to, col);
  count = b_.CreateSelect(b_.CreateICmpSLT(left, count), left, count);
  return {count, aligned};
}

// Whole vectors of an aligned block, each computed lane by lane (the SLP
// vectorizer packs the isomorphic lanes into vector code) and streamed with
// one aligned non-temporal store: no staging buffer, whose extra store and
// load per vector cost most of what streaming saves.
absl::Status StreamingBlocks::EmitVectors(const IrIndex& row_index,
                                          llvm::Value* position,
                                          llvm::Value* col,
                                          llvm::Value* vectors,
                                          const ElementGenerator& value) {
  llvm::Type* vector_type = llvm::FixedVectorType::get(memory_type_, lanes_);
  return EmitForLoop(
      b_, b_.getInt64(0), vectors, "vector",
      [&](llvm::Value* v) -> absl::Status {
        llvm::Value* offset = b_.CreateMul(v, b_.getInt64(lanes_));
        llvm::Value* vector = llvm::PoisonValue::get(vector_type);
        for (int64_t lane = 0; lane < lanes_; ++lane) {
          IrIndex index = row_index;
          index.push_back(
              b_.CreateAdd(col, b_.CreateAdd(offset, b_.getInt64(lane))));
          ASSIGN_OR_RETURN(llvm::Value * element, value(index));
          vector = b_.CreateInsertElement(vector, ToMemory(b_, type_, element),
                                          lane);
        }
        llvm::Value* to_output = b_.CreateInBoundsGEP(
            memory_type_, output_, b_.CreateAdd(position, offset));
        llvm::StoreInst* store = b_.CreateAlignedStore(
            vector, to_output, llvm::Align(vector_bytes_));
        store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal_);
        if (per_vector_) per_vector_(b_.CreateAdd(position, offset));
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten);
}

// The rest of a block (a head up to the alignment, or the part of a vector
// before the row's end): plain stores.
absl::Status StreamingBlocks::EmitRest(const IrIndex& row_index,
                                       llvm::Value* position, llvm::Value* col,
                                       llvm::Value* from, llvm::Value* count,
                                       const ElementGenerator& value) {
  return EmitForLoop(
      b_, from, count, "tail",
      [&](llvm::Value* j) -> absl::Status {
        IrIndex index = row_index;
        index.push_back(b_.CreateAdd(col, j));
        ASSIGN_OR_RETURN(llvm::Value * element, value(index));
        StoreElement(b_, type_, output_, b_.CreateAdd(position, j), element);
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten);
}

}  // namespace

absl::Status EmitStreamingRangeLoops(llvm::IRBuilder<>& b,
                                     absl::Span<const int64_t> dimensions,
                                     llvm::Value* begin, llvm::Value* end,
                                     PrimitiveType type, llvm::Value* output,
                                     const ElementGenerator& value,
                                     bool fence,
                                     const std::function<void(llvm::Value*)>& per_vector) {
  RET_CHECK(type != PRED);
  const int64_t element_bytes = primitive_util::ByteWidth(type);
  RET_CHECK(HostVectorBytes() % element_bytes == 0 &&
            kBlockElements * element_bytes % HostVectorBytes() == 0);
  StreamingBlocks blocks(b, type, output, per_vector);
  RETURN_IF_ERROR(EmitRowSegments(
      b, dimensions, begin, end,
      [&](const IrIndex& row_index, llvm::Value* row_start, llvm::Value* from,
          llvm::Value* to) {
        return EmitStepLoop(b, from, to, [&](llvm::Value* col) {
          return blocks.Emit(row_index, row_start, col, to, value);
        });
      }));
  if (fence) EmitStreamingFence(b);
  return absl::OkStatus();
}

void EmitStreamingFence(llvm::IRBuilder<>& b) {
  // Non-temporal stores are weakly ordered; a full fence (mfence on x86)
  // drains them.
  b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
}

}  // namespace mxla::codegen
