#include "codegen/row_emitter.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/prefetch.h"
#include "codegen/reduction_accumulator.h"
#include "codegen/reduction_emitter.h"
#include "codegen/streaming_store_emitter.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "llvm/IR/Function.h"

namespace mxla::codegen {
namespace {

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

using Buffered = std::vector<std::pair<const HloInstruction*, int64_t>>;

// One row kernel being emitted: the phase loops (one per reduce, in post
// order) and the output loop of a row, sharing accumulators and row
// buffers (entry-block allocas) across rows.
class RowKernel {
 public:
  RowKernel(llvm::IRBuilder<>& b, const HloComputation& fused,
            const RowPlan& rows, ElementalEmitter& elements,
            Buffered buffered, const CodegenOptions& options)
      : b_(b), fused_(fused), rows_(rows), elements_(elements),
        buffered_(std::move(buffered)),
        reduces_(ReducesInPostOrder(fused)),
        columns_(ShapeUtil::ElementsIn(
            ShapeUtil::MakeShape(F32, rows.column_dimensions))),
        results_(reduces_.size(), nullptr) {
    llvm::LLVMContext& context = b.getContext();
    for (const HloInstruction* reduce : reduces_) {
      accumulators_.push_back(std::make_unique<ReductionAccumulator>(
          b, *reduce, options.reassociate_reductions));
    }
    for (const auto& [value, writer] : buffered_) {
      row_buffers_[value] = EntryAlloca(
          b, MemoryType(value->shape().element_type(), context), columns_);
    }
  }

  int64_t phases() const { return reduces_.size(); }

  // Loop `phase` along the row: reduces_[phase] into its register, storing
  // the row buffers this phase writes.
  absl::Status EmitPhase(int64_t phase, const IrIndex& row_index) {
    const HloInstruction& reduce = *reduces_[phase];
    ReductionAccumulator& accumulator = *accumulators_[phase];
    BindForPhase(phase);
    ASSIGN_OR_RETURN(llvm::Value * init,
                     elements_.Generate(*reduce.operand(1), {}));
    accumulator.Set({init});
    RETURN_IF_ERROR(EmitLoopNest(
        b_, rows_.column_dimensions, [&](const IrIndex& column) {
          elements_.ClearCache();
          IrIndex full = Concat(row_index, column);
          ASSIGN_OR_RETURN(llvm::Value * x,
                           elements_.Generate(*reduce.operand(0), full));
          RETURN_IF_ERROR(StoreBuffers(phase, full));
          return accumulator.Fold({x});
        }));
    results_[phase] = accumulator.Get()[0];
    return absl::OkStatus();
  }

  // The last phase: the root's value for the row, or its row of values.
  absl::Status EmitOutput(llvm::Value* row, const IrIndex& row_index,
                          llvm::Value* output) {
    BindForPhase(phases());
    const HloInstruction& root = *fused_.root_instruction();
    const PrimitiveType type = root.shape().element_type();
    const std::vector<int64_t>& column_dims = rows_.column_dimensions;
    if (root.shape().rank() ==
        static_cast<int64_t>(rows_.row_dimensions.size())) {
      ASSIGN_OR_RETURN(llvm::Value * value,
                       elements_.Generate(root, row_index));
      StoreElement(b_, type, output, row, value);
      return absl::OkStatus();
    }
    llvm::Value* row_start =
        b_.CreateMul(row, b_.getInt64(columns_), "", /*HasNUW=*/true,
                     /*HasNSW=*/true);
    if (rows_.store == StoreKind::kStreaming) {
      std::vector<int64_t> full_dims = rows_.row_dimensions;
      full_dims.insert(full_dims.end(), column_dims.begin(), column_dims.end());
      return EmitStreamingRangeLoops(
          b_, full_dims, row_start,
          b_.CreateAdd(row_start, b_.getInt64(columns_)), type, output,
          [&](const IrIndex& full) -> absl::StatusOr<llvm::Value*> {
            elements_.ClearCache();
            return elements_.Generate(root, full);
          },
          /*fence=*/false,
          [&](llvm::Value* position) { PrefetchNextRow(position); });
    }
    return EmitLoopNest(b_, column_dims, [&](const IrIndex& column) {
      elements_.ClearCache();
      IrIndex full = Concat(row_index, column);
      ASSIGN_OR_RETURN(llvm::Value * value, elements_.Generate(root, full));
      llvm::Value* position =
          b_.CreateAdd(row_start, ColumnOf(full), "", true, true);
      StoreElement(b_, type, output, position, value);
      return absl::OkStatus();
    });
  }

 private:
  // While the output pass computes and streams a row, the next row of each
  // parameter that is read row by row ([rows..., columns...]) is fetched,
  // one cache line per output vector: the next row's phases then start on
  // data in cache instead of waiting on memory while it idles.
  void PrefetchNextRow(llvm::Value* position) {
    std::vector<int64_t> full_dims = rows_.row_dimensions;
    full_dims.insert(full_dims.end(), rows_.column_dimensions.begin(),
                     rows_.column_dimensions.end());
    for (const HloInstruction* parameter : fused_.parameter_instructions()) {
      const Shape& shape = parameter->shape();
      if (!shape.IsArray() || shape.dimensions() != full_dims) continue;
      const int64_t element_bytes =
          primitive_util::ByteWidth(shape.element_type());
      // Not inbounds: past the last row this only names an address, and a
      // prefetch of it does nothing.
      llvm::Value* address = b_.CreateGEP(
          b_.getInt8Ty(),
          elements_.parameter_buffer(parameter->parameter_number()),
          b_.CreateMul(b_.CreateAdd(position, b_.getInt64(columns_)),
                       b_.getInt64(element_bytes)));
      EmitPrefetch(b_, address, /*locality=*/3);
    }
  }

  llvm::Value* ColumnOf(const IrIndex& full) {
    IrIndex column(full.begin() + rows_.row_dimensions.size(), full.end());
    return ElementalEmitter::Linearize(b_, rows_.column_dimensions, column);
  }

  // Before loop `phase`: earlier reduces are registers and earlier-written
  // row buffers are loaded; everything else is computed.
  void BindForPhase(int64_t phase) {
    for (int64_t p = 0; p < phases(); ++p) {
      if (p < phase) {
        llvm::Value* value = results_[p];
        elements_.Bind(*reduces_[p], [value](const IrIndex&) { return value; });
      } else {
        elements_.Unbind(*reduces_[p]);
      }
    }
    for (const auto& [value, writer] : buffered_) {
      if (writer < phase) {
        llvm::AllocaInst* buffer = row_buffers_.at(value);
        PrimitiveType type = value->shape().element_type();
        elements_.Bind(*value, [this, buffer, type](const IrIndex& index) {
          return LoadElement(b_, type, buffer, ColumnOf(index));
        });
      } else {
        elements_.Unbind(*value);
      }
    }
    elements_.ClearCache();
  }

  absl::Status StoreBuffers(int64_t phase, const IrIndex& full) {
    for (const auto& [value, writer] : buffered_) {
      if (writer != phase) continue;
      ASSIGN_OR_RETURN(llvm::Value * element, elements_.Generate(*value, full));
      StoreElement(b_, value->shape().element_type(), row_buffers_.at(value),
                   ColumnOf(full), element);
    }
    return absl::OkStatus();
  }

  llvm::IRBuilder<>& b_;
  const HloComputation& fused_;
  const RowPlan& rows_;
  ElementalEmitter& elements_;
  const Buffered buffered_;
  const std::vector<const HloInstruction*> reduces_;
  const int64_t columns_;
  std::vector<llvm::Value*> results_;  // per phase, once its loop ran
  std::vector<std::unique_ptr<ReductionAccumulator>> accumulators_;
  absl::flat_hash_map<const HloInstruction*, llvm::AllocaInst*> row_buffers_;
};

}  // namespace

absl::Status EmitRowFusion(llvm::IRBuilder<>& b, const HloComputation& fused,
                           const RowPlan& rows, ElementalEmitter& elements,
                           llvm::Value* output, llvm::Value* begin,
                           llvm::Value* end, const CodegenOptions& options) {
  ASSIGN_OR_RETURN(Buffered buffered, ResolveBuffered(fused, rows));
  RowKernel kernel(b, fused, rows, elements, std::move(buffered), options);
  RETURN_IF_ERROR(EmitForLoop(b, begin, end, "row", [&](llvm::Value* row) {
    IrIndex row_index =
        ElementalEmitter::Delinearize(b, rows.row_dimensions, row);
    for (int64_t phase = 0; phase < kernel.phases(); ++phase) {
      RETURN_IF_ERROR(kernel.EmitPhase(phase, row_index));
    }
    return kernel.EmitOutput(row, row_index, output);
  }));
  if (rows.store == StoreKind::kStreaming) EmitStreamingFence(b);
  return absl::OkStatus();
}

}  // namespace mxla::codegen
