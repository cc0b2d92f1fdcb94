// The running value of a reduce in an emitted loop, kept in entry-block
// allocas (mem2reg turns them into registers, the loop vectorizer into
// vector accumulators).
//
// Usually these are the reducer's own values, folded by ApplyReducer. A
// float maximum/minimum reducer that may be reassociated is kept instead as
// the largest and the smallest "order key" of the values folded so far: the
// float's bits with the magnitude bits flipped when the sign is set. Keys
// compare as signed integers exactly as the floats do, -0 < +0 included,
// with positive NaNs above +inf and negative NaNs below -inf; so the
// extremes give the result, or a NaN operand when there is one. Integer
// max/min are one-cycle vector instructions and plain vectorizable
// reductions, where a float maximum with XLA's semantics costs a compare,
// blends and a NaN fix-up on the loop's critical path.
#ifndef MXLA_CODEGEN_REDUCTION_ACCUMULATOR_H_
#define MXLA_CODEGEN_REDUCTION_ACCUMULATOR_H_

#include <vector>

#include "absl/status/status.h"
#include "ir/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

namespace mxla::codegen {

// An alloca of `count` elements of `type` in the entry block of b's
// function, 64-byte aligned.
llvm::AllocaInst* EntryAlloca(llvm::IRBuilder<>& b, llvm::Type* type,
                              int64_t count = 1);

class ReductionAccumulator {
 public:
  // `reassociate`: CodegenOptions::reassociate_reductions, for a loop whose
  // order may change (see ApplyReducer).
  ReductionAccumulator(llvm::IRBuilder<>& b, const HloInstruction& reduce,
                       bool reassociate);

  // Starts over from `values` (the init values, or a first element).
  void Set(const std::vector<llvm::Value*>& values);
  // Folds in one element per reduce input.
  absl::Status Fold(const std::vector<llvm::Value*>& elements);
  // The reduce's values for what has been folded.
  std::vector<llvm::Value*> Get();

 private:
  llvm::Value* FlipNegative(llvm::Value* bits);
  llvm::Value* Key(llvm::Value* value);
  llvm::Value* FromKey(llvm::Value* key);
  llvm::Value* Load(int i);

  llvm::IRBuilder<>& b_;
  const HloInstruction& reduce_;
  const bool reassociate_;
  // Float maximum/minimum in key form: slots_ are {largest, smallest} key.
  bool keyed_ = false;
  bool maximum_ = false;
  llvm::Type* float_type_ = nullptr;
  llvm::IntegerType* key_type_ = nullptr;
  std::vector<llvm::AllocaInst*> slots_;
};

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_REDUCTION_ACCUMULATOR_H_
