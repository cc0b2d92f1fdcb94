#include "codegen/reduction_emitter.h"

#include <algorithm>

#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/reduction_accumulator.h"
#include "ir/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {
namespace {

struct ReduceLayout {
  int64_t inputs = 0;                  // k inputs, then k inits.
  std::vector<int64_t> operand_dims;
  std::vector<int64_t> reduced;        // sorted operand dimensions
  std::vector<int64_t> kept;           // the others, in order
  std::vector<int64_t> reduced_sizes;
  std::vector<int64_t> output_dims;
  std::vector<PrimitiveType> types;    // per result
};

ReduceLayout Analyze(const HloInstruction& reduce) {
  ReduceLayout layout;
  layout.inputs = reduce.operand_count() / 2;
  absl::Span<const int64_t> dims = reduce.operand(0)->shape().dimensions();
  layout.operand_dims.assign(dims.begin(), dims.end());
  layout.reduced = reduce.dimensions();
  std::sort(layout.reduced.begin(), layout.reduced.end());
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (std::binary_search(layout.reduced.begin(), layout.reduced.end(), d)) {
      layout.reduced_sizes.push_back(dims[d]);
    } else {
      layout.kept.push_back(d);
      layout.output_dims.push_back(dims[d]);
    }
  }
  for (int64_t i = 0; i < layout.inputs; ++i) {
    layout.types.push_back(reduce.operand(i)->shape().element_type());
  }
  return layout;
}

// The operand index from output coordinates (kept dimensions) and reduced
// coordinates.
IrIndex OperandIndex(const ReduceLayout& layout, const IrIndex& kept_index,
                     const IrIndex& reduced_index) {
  IrIndex index(layout.operand_dims.size());
  for (size_t k = 0; k < layout.kept.size(); ++k) {
    index[layout.kept[k]] = kept_index[k];
  }
  for (size_t r = 0; r < layout.reduced.size(); ++r) {
    index[layout.reduced[r]] = reduced_index[r];
  }
  return index;
}

}  // namespace

bool MayReassociate(const HloComputation& reducer) {
  // f16 and bf16 round after every step; their order is part of the answer.
  if (primitive_util::IsNarrowFloatType(
          reducer.root_instruction()->shape().element_type())) {
    return false;
  }
  return IsPlainBinaryReducer(reducer, HloOpcode::kAdd);
}

absl::StatusOr<std::vector<llvm::Value*>> ApplyReducer(
    llvm::IRBuilder<>& b, const HloInstruction& reduce,
    const std::vector<llvm::Value*>& accumulators,
    const std::vector<llvm::Value*>& elements, bool reassociate) {
  llvm::IRBuilder<>::FastMathFlagGuard guard(b);
  // Only a plain add may be reassociated: any other reducer (a
  // variadic or compensated one, say) depends on its exact order of
  // operations, and `reassoc` on its ops would let LLVM undo it.
  if (reassociate && accumulators.size() == 1 &&
      MayReassociate(*reduce.to_apply())) {
    llvm::FastMathFlags flags;
    flags.setAllowReassoc();
    b.setFastMathFlags(flags);
  }
  ElementalEmitter reducer(b, *reduce.to_apply(), {});
  const int64_t k = accumulators.size();
  for (int64_t i = 0; i < k; ++i) {
    reducer.BindScalar(i, accumulators[i]);
    reducer.BindScalar(k + i, elements[i]);
  }
  return reducer.GenerateRoot({});
}

namespace {

absl::StatusOr<std::vector<llvm::Value*>> GenerateInputs(
    const HloInstruction& reduce, ElementalEmitter& fused,
    const IrIndex& operand_index) {
  std::vector<llvm::Value*> values;
  for (int64_t i = 0; i < reduce.operand_count() / 2; ++i) {
    ASSIGN_OR_RETURN(llvm::Value * value,
                     fused.Generate(*reduce.operand(i), operand_index));
    values.push_back(value);
  }
  return values;
}

absl::StatusOr<std::vector<llvm::Value*>> GenerateInits(
    const HloInstruction& reduce, ElementalEmitter& fused) {
  std::vector<llvm::Value*> values;
  const int64_t k = reduce.operand_count() / 2;
  for (int64_t i = 0; i < k; ++i) {
    ASSIGN_OR_RETURN(llvm::Value * value,
                     fused.Generate(*reduce.operand(k + i), {}));
    values.push_back(value);
  }
  return values;
}

// One output element per unit; accumulators in allocas (promoted to
// registers by mem2reg).
absl::Status EmitPerElement(llvm::IRBuilder<>& b, const HloInstruction& reduce,
                            const ReduceLayout& layout, ElementalEmitter& fused,
                            const std::vector<llvm::Value*>& outputs,
                            llvm::Value* begin, llvm::Value* end,
                            bool reassociate) {
  ReductionAccumulator accumulator(b, reduce, reassociate);
  return EmitForLoop(b, begin, end, "out", [&](llvm::Value* linear) {
    IrIndex kept = ElementalEmitter::Delinearize(b, layout.output_dims, linear);
    fused.ClearCache();
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> inits,
                     GenerateInits(reduce, fused));
    accumulator.Set(inits);
    RETURN_IF_ERROR(
        EmitLoopNest(b, layout.reduced_sizes, [&](const IrIndex& reduced) {
          fused.ClearCache();
          ASSIGN_OR_RETURN(
              std::vector<llvm::Value*> xs,
              GenerateInputs(reduce, fused, OperandIndex(layout, kept, reduced)));
          return accumulator.Fold(xs);
        }));
    fused.ClearCache();
    std::vector<llvm::Value*> values = accumulator.Get();
    for (size_t i = 0; i < values.size(); ++i) {
      StoreElement(b, layout.types[i], outputs[i], linear, values[i]);
    }
    return absl::OkStatus();
  });
}

// One block of one output row per unit (ReductionPlan::column_blocks
// blocks per row); the block is the accumulator and the innermost loop runs
// along it. Each element still folds its reduced elements in order, so the
// blocks change no bits.
absl::Status EmitPerRow(llvm::IRBuilder<>& b, const HloInstruction& reduce,
                        const ReduceLayout& layout, ElementalEmitter& fused,
                        const std::vector<llvm::Value*>& outputs,
                        llvm::Value* begin, llvm::Value* end,
                        const ReductionPlan& plan) {
  const int64_t inner = layout.output_dims.back();
  absl::Span<const int64_t> row_dims(layout.output_dims.data(),
                                     layout.output_dims.size() - 1);
  return EmitForLoop(b, begin, end, "unit", [&](llvm::Value* unit) {
    llvm::Value* row = unit;
    llvm::Value* from = b.getInt64(0);
    llvm::Value* to = b.getInt64(inner);
    if (plan.column_blocks > 1) {  // static bounds otherwise
      llvm::Value* blocks = b.getInt64(plan.column_blocks);
      row = b.CreateUDiv(unit, blocks);
      from = b.CreateMul(b.CreateURem(unit, blocks),
                         b.getInt64(plan.column_block), "", true, true);
      to = b.CreateAdd(from, b.getInt64(plan.column_block), "", true, true);
      to = b.CreateSelect(b.CreateICmpSLT(to, b.getInt64(inner)), to,
                          b.getInt64(inner));
    }
    IrIndex row_index = ElementalEmitter::Delinearize(b, row_dims, row);
    llvm::Value* row_start = b.CreateMul(row, b.getInt64(inner), "", true, true);
    auto position = [&](llvm::Value* col) {
      return b.CreateAdd(row_start, col, "", true, true);
    };
    RETURN_IF_ERROR(EmitForLoop(b, from, to, "init", [&](llvm::Value* col) {
      fused.ClearCache();
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> inits,
                       GenerateInits(reduce, fused));
      for (size_t i = 0; i < outputs.size(); ++i) {
        StoreElement(b, layout.types[i], outputs[i], position(col), inits[i]);
      }
      return absl::OkStatus();
    }));
    return EmitLoopNest(b, layout.reduced_sizes, [&](const IrIndex& reduced) {
      return EmitForLoop(b, from, to, "col", [&](llvm::Value* col) {
        fused.ClearCache();
        IrIndex kept = row_index;
        kept.push_back(col);
        ASSIGN_OR_RETURN(
            std::vector<llvm::Value*> xs,
            GenerateInputs(reduce, fused, OperandIndex(layout, kept, reduced)));
        std::vector<llvm::Value*> accs;
        for (size_t i = 0; i < outputs.size(); ++i) {
          accs.push_back(
              LoadElement(b, layout.types[i], outputs[i], position(col)));
        }
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                         ApplyReducer(b, reduce, accs, xs, false));
        for (size_t i = 0; i < outputs.size(); ++i) {
          StoreElement(b, layout.types[i], outputs[i], position(col), next[i]);
        }
        return absl::OkStatus();
      });
    });
  });
}

// One chunk of one output's reduced range per unit, folded into a partial
// result in `scratch[unit]`: the chunk's first element, then the others in
// order (the init value is folded in once, by EmitReductionCombine).
absl::Status EmitPartials(llvm::IRBuilder<>& b, const HloInstruction& reduce,
                          const ReduceLayout& layout, ElementalEmitter& fused,
                          llvm::Value* scratch, llvm::Value* begin,
                          llvm::Value* end, const ReductionPlan& plan,
                          bool reassociate) {
  const PrimitiveType type = layout.types[0];
  ReductionAccumulator accumulator(b, reduce, reassociate);
  int64_t reduced_elements = 1;
  for (int64_t size : layout.reduced_sizes) reduced_elements *= size;
  return EmitForLoop(b, begin, end, "chunk", [&](llvm::Value* unit) {
    llvm::Value* chunks = b.getInt64(plan.chunks);
    IrIndex kept = ElementalEmitter::Delinearize(b, layout.output_dims,
                                                 b.CreateUDiv(unit, chunks));
    llvm::Value* first = b.CreateMul(b.CreateURem(unit, chunks),
                                     b.getInt64(plan.chunk_elements), "",
                                     true, true);
    llvm::Value* last =
        b.CreateAdd(first, b.getInt64(plan.chunk_elements), "", true, true);
    last = b.CreateSelect(b.CreateICmpSLT(last, b.getInt64(reduced_elements)),
                          last, b.getInt64(reduced_elements));
    fused.ClearCache();
    IrIndex first_index =
        ElementalEmitter::Delinearize(b, layout.reduced_sizes, first);
    ASSIGN_OR_RETURN(
        std::vector<llvm::Value*> x0,
        GenerateInputs(reduce, fused, OperandIndex(layout, kept, first_index)));
    accumulator.Set(x0);
    RETURN_IF_ERROR(EmitLinearRangeLoops(
        b, layout.reduced_sizes,
        b.CreateAdd(first, b.getInt64(1), "", true, true), last,
        [&](const IrIndex& reduced, llvm::Value*) -> absl::Status {
          fused.ClearCache();
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> xs,
                           GenerateInputs(reduce, fused,
                                          OperandIndex(layout, kept, reduced)));
          return accumulator.Fold(xs);
        }));
    StoreElement(b, type, scratch, unit, accumulator.Get()[0]);
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status EmitReduction(llvm::IRBuilder<>& b, const HloInstruction& reduce,
                           ElementalEmitter& fused,
                           const std::vector<llvm::Value*>& outputs,
                           llvm::Value* scratch, llvm::Value* begin,
                           llvm::Value* end, const ReductionPlan& plan,
                           const CodegenOptions& options) {
  ReduceLayout layout = Analyze(reduce);
  RET_CHECK(static_cast<int64_t>(outputs.size()) == layout.inputs);
  if (plan.column_block > 0) {  // the last dimension is kept
    return EmitPerRow(b, reduce, layout, fused, outputs, begin, end, plan);
  }
  if (plan.chunks > 0) {
    RET_CHECK(scratch != nullptr && layout.inputs == 1);
    return EmitPartials(b, reduce, layout, fused, scratch, begin, end, plan,
                        options.reassociate_reductions);
  }
  return EmitPerElement(b, reduce, layout, fused, outputs, begin, end,
                        options.reassociate_reductions);
}

absl::Status EmitReductionCombine(llvm::IRBuilder<>& b,
                                  const HloInstruction& reduce,
                                  ElementalEmitter& fused, llvm::Value* output,
                                  llvm::Value* scratch,
                                  const ReductionPlan& plan) {
  ReduceLayout layout = Analyze(reduce);
  RET_CHECK(plan.chunks > 0 && layout.inputs == 1);
  const PrimitiveType type = layout.types[0];
  // In chunk order, never reassociated: the combined value is the same for
  // any thread count.
  ReductionAccumulator accumulator(b, reduce, /*reassociate=*/false);
  const int64_t outputs = plan.units / plan.chunks;
  return EmitForLoop(
      b, b.getInt64(0), b.getInt64(outputs), "out", [&](llvm::Value* out) {
        fused.ClearCache();
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> inits,
                         GenerateInits(reduce, fused));
        accumulator.Set(inits);
        llvm::Value* base =
            b.CreateMul(out, b.getInt64(plan.chunks), "", true, true);
        RETURN_IF_ERROR(EmitForLoop(
            b, b.getInt64(0), b.getInt64(plan.chunks), "partial",
            [&](llvm::Value* chunk) -> absl::Status {
              llvm::Value* partial = LoadElement(
                  b, type, scratch, b.CreateAdd(base, chunk, "", true, true));
              return accumulator.Fold({partial});
            },
            LoopHints::kKeepAsWritten));
        StoreElement(b, type, output, out, accumulator.Get()[0]);
        return absl::OkStatus();
      });
}

}  // namespace mxla::codegen
