#include "codegen/loop_emitter.h"

#include "ir/status_macros.h"
#include "llvm/IR/Function.h"

namespace mxla::codegen {

namespace {

// !llvm.loop metadata that turns off vectorization and unrolling.
llvm::MDNode* KeepAsWritten(llvm::LLVMContext& context) {
  auto flag = [&](const char* name, llvm::Metadata* value) {
    llvm::Metadata* operands[] = {llvm::MDString::get(context, name), value};
    return llvm::MDNode::get(context, operands);
  };
  llvm::Metadata* hints[] = {
      nullptr,
      flag("llvm.loop.vectorize.width",
           llvm::ConstantAsMetadata::get(
               llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1))),
      flag("llvm.loop.interleave.count",
           llvm::ConstantAsMetadata::get(
               llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1))),
      llvm::MDNode::get(context,
                        {llvm::MDString::get(context, "llvm.loop.unroll.disable")}),
  };
  llvm::MDNode* loop = llvm::MDNode::getDistinct(context, hints);
  loop->replaceOperandWith(0, loop);  // loop IDs refer to themselves
  return loop;
}

}  // namespace

absl::Status EmitIf(llvm::IRBuilder<>& b, llvm::Value* condition,
                    const std::function<absl::Status()>& body) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  auto* then = llvm::BasicBlock::Create(context, "if.then", function);
  auto* done = llvm::BasicBlock::Create(context, "if.done", function);
  b.CreateCondBr(condition, then, done);
  b.SetInsertPoint(then);
  RETURN_IF_ERROR(body());
  b.CreateBr(done);
  b.SetInsertPoint(done);
  return absl::OkStatus();
}

absl::Status EmitForLoop(
    llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end,
    const char* name, const std::function<absl::Status(llvm::Value*)>& body,
    LoopHints hints) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context, std::string(name) + ".header",
                                          function);
  auto* body_block =
      llvm::BasicBlock::Create(context, std::string(name) + ".body", function);
  auto* exit =
      llvm::BasicBlock::Create(context, std::string(name) + ".exit", function);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name);
  i->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(i, end), body_block, exit);

  b.SetInsertPoint(body_block);
  RETURN_IF_ERROR(body(i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", /*HasNUW=*/true,
                                  /*HasNSW=*/true);
  i->addIncoming(next, b.GetInsertBlock());
  llvm::BranchInst* latch = b.CreateBr(header);
  if (hints == LoopHints::kKeepAsWritten) {
    latch->setMetadata(llvm::LLVMContext::MD_loop, KeepAsWritten(context));
  }

  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitRowSegments(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    llvm::Value* begin, llvm::Value* end,
    const std::function<absl::Status(const IrIndex&, llvm::Value*,
                                     llvm::Value*, llvm::Value*)>& row_body) {
  RET_CHECK(!dimensions.empty());
  const int64_t inner = dimensions.back();
  llvm::Value* inner_size = b.getInt64(inner);
  absl::Span<const int64_t> row_dims = dimensions.subspan(0, dimensions.size() - 1);
  llvm::Value* first_row = b.CreateUDiv(begin, inner_size);
  llvm::Value* last_row = b.CreateUDiv(
      b.CreateAdd(end, b.getInt64(inner - 1)), inner_size);
  return EmitForLoop(b, first_row, last_row, "row", [&](llvm::Value* row) {
    IrIndex row_index = ElementalEmitter::Delinearize(b, row_dims, row);
    llvm::Value* row_start = b.CreateMul(row, inner_size, "", true, true);
    // Clip the row to [begin, end).
    llvm::Value* from = b.CreateSub(begin, row_start);
    from = b.CreateSelect(b.CreateICmpSGT(from, b.getInt64(0)), from,
                          b.getInt64(0));
    llvm::Value* to = b.CreateSub(end, row_start);
    to = b.CreateSelect(b.CreateICmpSLT(to, inner_size), to, inner_size);
    return row_body(row_index, row_start, from, to);
  });
}

absl::Status EmitLinearRangeLoops(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    llvm::Value* begin, llvm::Value* end,
    const std::function<absl::Status(const IrIndex&, llvm::Value*)>& body) {
  return EmitRowSegments(
      b, dimensions, begin, end,
      [&](const IrIndex& row_index, llvm::Value* row_start, llvm::Value* from,
          llvm::Value* to) {
        return EmitForLoop(b, from, to, "col", [&](llvm::Value* col) {
          IrIndex index = row_index;
          index.push_back(col);
          return body(index, b.CreateAdd(row_start, col, "", true, true));
        });
      });
}

absl::Status EmitLoopNest(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    const std::function<absl::Status(const IrIndex&)>& body) {
  // Iterative over dimensions via a recursive lambda would recurse only
  // rank-deep (at most ShapeUtil::kMaxRank), which is bounded.
  std::function<absl::Status(size_t, IrIndex)> nest =
      [&](size_t dim, IrIndex index) -> absl::Status {
    if (dim == dimensions.size()) return body(index);
    if (dimensions[dim] == 1) {
      index.push_back(b.getInt64(0));
      return nest(dim + 1, std::move(index));
    }
    return EmitForLoop(b, b.getInt64(0), b.getInt64(dimensions[dim]), "dim",
                       [&](llvm::Value* i) {
                         IrIndex inner = index;
                         inner.push_back(i);
                         return nest(dim + 1, std::move(inner));
                       });
  };
  return nest(0, IrIndex{});
}

}  // namespace mxla::codegen
