#include "codegen/streaming_store_emitter.h"

#include "codegen/llvm_pipeline.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "ir/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/MDBuilder.h"

namespace mxla::codegen {
namespace {

constexpr int64_t kBlockElements = 512;  // one block: 2 KiB of f32, in L1

llvm::AllocaInst* EntryBlockBuffer(llvm::IRBuilder<>& b, llvm::Type* type,
                                   int64_t count) {
  llvm::IRBuilder<>::InsertPointGuard guard(b);
  llvm::BasicBlock& entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  b.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* buffer = b.CreateAlloca(type, b.getInt64(count));
  buffer->setAlignment(llvm::Align(64));
  return buffer;
}

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

}  // namespace

absl::Status EmitStreamingRangeLoops(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    llvm::Value* begin, llvm::Value* end, PrimitiveType type,
    llvm::Value* output,
    const std::function<absl::StatusOr<llvm::Value*>(const IrIndex&)>& value,
    bool fence) {
  RET_CHECK(type != PRED);
  llvm::LLVMContext& context = b.getContext();
  llvm::Type* memory_type = MemoryType(type, context);
  const int64_t element_bytes = primitive_util::ByteWidth(type);
  const int64_t vector_bytes = HostVectorBytes();
  RET_CHECK(vector_bytes % element_bytes == 0 &&
            kBlockElements * element_bytes % vector_bytes == 0);
  const int64_t lanes = vector_bytes / element_bytes;
  llvm::Type* vector_type = llvm::FixedVectorType::get(memory_type, lanes);
  llvm::AllocaInst* block = EntryBlockBuffer(b, memory_type, kBlockElements);
  llvm::MDNode* nontemporal = llvm::MDNode::get(
      context, llvm::ConstantAsMetadata::get(b.getInt32(1)));
  llvm::Value* output_address = b.CreatePtrToInt(output, b.getInt64Ty());

  RETURN_IF_ERROR(EmitRowSegments(
      b, dimensions, begin, end,
      [&](const IrIndex& row_index, llvm::Value* row_start, llvm::Value* from,
          llvm::Value* to) {
        return EmitStepLoop(b, from, to, [&](llvm::Value* col)
                                             -> absl::StatusOr<llvm::Value*> {
          llvm::Value* position = b.CreateAdd(row_start, col);
          // Up to the next aligned address first, then whole blocks.
          llvm::Value* misaligned = b.CreateAnd(
              b.CreateAdd(output_address,
                          b.CreateMul(position, b.getInt64(element_bytes))),
              b.getInt64(vector_bytes - 1));
          // Rounded up: a caller's buffer that is not even element-aligned
          // never reaches the alignment, but still advances.
          llvm::Value* head = b.CreateUDiv(
              b.CreateSub(b.getInt64(vector_bytes + element_bytes - 1),
                          misaligned),
              b.getInt64(element_bytes));
          llvm::Value* aligned = b.CreateICmpEQ(misaligned, b.getInt64(0));
          llvm::Value* count =
              b.CreateSelect(aligned, b.getInt64(kBlockElements), head);
          llvm::Value* left = b.CreateSub(to, col);
          count = b.CreateSelect(b.CreateICmpSLT(left, count), left, count);

          RETURN_IF_ERROR(EmitForLoop(
              b, b.getInt64(0), count, "compute", [&](llvm::Value* j) {
                IrIndex index = row_index;
                index.push_back(b.CreateAdd(col, j));
                ASSIGN_OR_RETURN(llvm::Value * element, value(index));
                StoreElement(b, type, block, j, element);
                return absl::OkStatus();
              }));

          // An aligned block streams its whole vectors, however short (a
          // row end cuts it); the rest (a head up to the alignment, or the
          // part of a vector before the row's end) takes plain stores.
          llvm::Value* vectors = b.CreateSelect(
              aligned, b.CreateUDiv(count, b.getInt64(lanes)), b.getInt64(0));
          RETURN_IF_ERROR(EmitForLoop(
              b, b.getInt64(0), vectors, "vector",
              [&](llvm::Value* v) {
                llvm::Value* offset = b.CreateMul(v, b.getInt64(lanes));
                llvm::Value* from_block =
                    b.CreateInBoundsGEP(memory_type, block, offset);
                llvm::Value* to_output = b.CreateInBoundsGEP(
                    memory_type, output, b.CreateAdd(position, offset));
                llvm::Value* vector = b.CreateAlignedLoad(
                    vector_type, from_block, llvm::Align(vector_bytes));
                llvm::StoreInst* store = b.CreateAlignedStore(
                    vector, to_output, llvm::Align(vector_bytes));
                store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                                   nontemporal);
                return absl::OkStatus();
              },
              LoopHints::kKeepAsWritten));
          RETURN_IF_ERROR(EmitForLoop(
              b, b.CreateMul(vectors, b.getInt64(lanes)), count, "tail",
              [&](llvm::Value* j) {
                llvm::Value* element = b.CreateLoad(
                    memory_type, b.CreateInBoundsGEP(memory_type, block, j));
                b.CreateStore(element,
                              b.CreateInBoundsGEP(memory_type, output,
                                                  b.CreateAdd(position, j)));
                return absl::OkStatus();
              },
              LoopHints::kKeepAsWritten));
          return count;
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
