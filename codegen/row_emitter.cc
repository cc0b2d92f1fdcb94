#include "codegen/row_emitter.h"

#include <vector>

#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/reduction_emitter.h"
#include "codegen/streaming_store_emitter.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "llvm/IR/Function.h"

namespace mxla::codegen {
namespace {

// Allocas belong in the entry block, where mem2reg and the vectorizer
// expect them.
llvm::AllocaInst* EntryAlloca(llvm::IRBuilder<>& b, llvm::Type* type,
                              int64_t count) {
  llvm::IRBuilder<>::InsertPointGuard guard(b);
  llvm::BasicBlock& entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  b.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* alloca = b.CreateAlloca(
      type, count == 1 ? nullptr : b.getInt64(count));
  alloca->setAlignment(llvm::Align(64));
  return alloca;
}

IrIndex Concat(const IrIndex& row, const IrIndex& column) {
  IrIndex full = row;
  full.insert(full.end(), column.begin(), column.end());
  return full;
}

// The plan's buffered values as instructions of `fused`, with their writer
// phases.
absl::StatusOr<std::vector<std::pair<const HloInstruction*, int64_t>>>
ResolveBuffered(const HloComputation& fused, const RowPlan& rows) {
  std::vector<std::pair<const HloInstruction*, int64_t>> buffered;
  for (const BufferedValue& value : rows.buffered) {
    const HloInstruction* found = nullptr;
    for (const HloInstruction* instruction : fused.instructions()) {
      if (instruction->name() == value.name) found = instruction;
    }
    RET_CHECK(found != nullptr, value.name);
    buffered.push_back({found, value.writer});
  }
  return buffered;
}

}  // namespace

absl::Status EmitRowFusion(llvm::IRBuilder<>& b, const HloComputation& fused,
                           const RowPlan& rows, ElementalEmitter& elements,
                           llvm::Value* output, llvm::Value* begin,
                           llvm::Value* end, const CodegenOptions& options) {
  llvm::LLVMContext& context = b.getContext();
  const std::vector<int64_t>& row_dims = rows.row_dimensions;
  const std::vector<int64_t>& column_dims = rows.column_dimensions;
  const int64_t row_rank = row_dims.size();
  const int64_t columns =
      ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, column_dims));
  const std::vector<const HloInstruction*> reduces = ReducesInPostOrder(fused);
  const int64_t phases = reduces.size();
  using Buffered = std::vector<std::pair<const HloInstruction*, int64_t>>;
  ASSIGN_OR_RETURN(Buffered buffered, ResolveBuffered(fused, rows));

  std::vector<llvm::AllocaInst*> accumulators;
  for (const HloInstruction* reduce : reduces) {
    accumulators.push_back(EntryAlloca(
        b, RegisterType(reduce->shape().element_type(), context), 1));
  }
  absl::flat_hash_map<const HloInstruction*, llvm::AllocaInst*> row_buffers;
  for (const auto& [value, writer] : buffered) {
    row_buffers[value] = EntryAlloca(
        b, MemoryType(value->shape().element_type(), context), columns);
  }
  auto column_of = [&](const IrIndex& full) {
    IrIndex column(full.begin() + row_rank, full.end());
    return ElementalEmitter::Linearize(b, column_dims, column);
  };
  // Before loop `phase`: earlier reduces are registers and earlier-written
  // row buffers are loaded; everything else is computed.
  std::vector<llvm::Value*> results(phases, nullptr);
  auto bind_for_phase = [&](int64_t phase) {
    for (int64_t p = 0; p < phases; ++p) {
      if (p < phase) {
        llvm::Value* value = results[p];
        elements.Bind(*reduces[p],
                      [value](const IrIndex&) { return value; });
      } else {
        elements.Unbind(*reduces[p]);
      }
    }
    for (const auto& [value, writer] : buffered) {
      if (writer < phase) {
        llvm::AllocaInst* buffer = row_buffers.at(value);
        PrimitiveType type = value->shape().element_type();
        elements.Bind(*value, [&b, &column_of, buffer, type](
                                  const IrIndex& index) {
          return LoadElement(b, type, buffer, column_of(index));
        });
      } else {
        elements.Unbind(*value);
      }
    }
    elements.ClearCache();
  };
  auto store_buffers = [&](int64_t phase, const IrIndex& full) -> absl::Status {
    for (const auto& [value, writer] : buffered) {
      if (writer != phase) continue;
      ASSIGN_OR_RETURN(llvm::Value * element, elements.Generate(*value, full));
      StoreElement(b, value->shape().element_type(), row_buffers.at(value),
                   column_of(full), element);
    }
    return absl::OkStatus();
  };

  const HloInstruction& root = *fused.root_instruction();
  const PrimitiveType root_type = root.shape().element_type();
  std::vector<int64_t> full_dims = row_dims;
  full_dims.insert(full_dims.end(), column_dims.begin(), column_dims.end());
  const bool streaming = rows.store == StoreKind::kStreaming;
  RETURN_IF_ERROR(EmitForLoop(b, begin, end, "row", [&](llvm::Value* row) {
    IrIndex row_index = ElementalEmitter::Delinearize(b, row_dims, row);
    for (int64_t phase = 0; phase < phases; ++phase) {
      const HloInstruction& reduce = *reduces[phase];
      llvm::AllocaInst* slot = accumulators[phase];
      bind_for_phase(phase);
      ASSIGN_OR_RETURN(llvm::Value * init,
                       elements.Generate(*reduce.operand(1), {}));
      b.CreateStore(init, slot);
      RETURN_IF_ERROR(
          EmitLoopNest(b, column_dims, [&](const IrIndex& column) {
            elements.ClearCache();
            IrIndex full = Concat(row_index, column);
            ASSIGN_OR_RETURN(llvm::Value * x,
                             elements.Generate(*reduce.operand(0), full));
            RETURN_IF_ERROR(store_buffers(phase, full));
            llvm::Value* acc = b.CreateLoad(slot->getAllocatedType(), slot);
            ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                             ApplyReducer(b, reduce, {acc}, {x},
                                          options.reassociate_reductions));
            b.CreateStore(next[0], slot);
            return absl::OkStatus();
          }));
      results[phase] = b.CreateLoad(slot->getAllocatedType(), slot);
    }
    bind_for_phase(phases);
    if (root.shape().rank() == row_rank) {  // one value per row
      ASSIGN_OR_RETURN(llvm::Value * value, elements.Generate(root, row_index));
      StoreElement(b, root_type, output, row, value);
      return absl::OkStatus();
    }
    llvm::Value* row_start =
        b.CreateMul(row, b.getInt64(columns), "", /*HasNUW=*/true,
                    /*HasNSW=*/true);
    if (streaming) {
      return EmitStreamingRangeLoops(
          b, full_dims, row_start, b.CreateAdd(row_start, b.getInt64(columns)),
          root_type, output,
          [&](const IrIndex& full) -> absl::StatusOr<llvm::Value*> {
            elements.ClearCache();
            return elements.Generate(root, full);
          },
          /*fence=*/false);
    }
    return EmitLoopNest(b, column_dims, [&](const IrIndex& column) {
      elements.ClearCache();
      IrIndex full = Concat(row_index, column);
      ASSIGN_OR_RETURN(llvm::Value * value, elements.Generate(root, full));
      llvm::Value* position =
          b.CreateAdd(row_start, column_of(full), "", true, true);
      StoreElement(b, root_type, output, position, value);
      return absl::OkStatus();
    });
  }));
  if (streaming) EmitStreamingFence(b);
  return absl::OkStatus();
}

}  // namespace mxla::codegen
