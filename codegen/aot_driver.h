// The LLVM IR of an ahead-of-time driver (aot_module.h): F_parallel and F
// for an AotProgram, and an internal function of F_parallel's signature for
// every computation its control steps call. The kernels the program names
// must already be in `module`. Internal to codegen/aot_module.cc; the
// loops of sort, scatter and select-and-scatter are in
// aot_driver_loops.cc.
#ifndef MXLA_CODEGEN_AOT_DRIVER_H_
#define MXLA_CODEGEN_AOT_DRIVER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/aot_module.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace mxla::codegen {

inline int64_t AotAlign64(int64_t bytes) { return (bytes + 63) / 64 * 64; }

// The driver functions of one AotProgram tree.
class AotDriverEmitter {
 public:
  explicit AotDriverEmitter(llvm::Module& module);

  // Internal if a step names a kernel or constant the module lacks.
  absl::Status Emit(const AotProgram& program);

 private:
  // One driver function being emitted.
  struct Frame {
    llvm::Function* function;
    llvm::Value* arguments;
    llvm::Value* results;
    llvm::Value* temp;
    llvm::Value* parallel_for;
    llvm::Value* pool;
    std::vector<llvm::GlobalVariable*> constants;
    llvm::BasicBlock* allocas;  // the entry block, for every alloca
    // An aliased argument leaf's result leaf (AotProgram::aliases): the
    // argument is read and written there.
    absl::flat_hash_map<int64_t, int64_t> aliased;
  };

  // The aliases' copies in (where the caller did not donate) and the
  // copies set aside before the first step.
  absl::Status EmitPrologue(llvm::IRBuilder<>& b, const AotProgram& program,
                            const Frame& frame);

  // A function of F_parallel's signature for `program`, after the
  // functions of the computations its control steps call.
  absl::StatusOr<llvm::Function*> EmitFunction(
      const AotProgram& program, const std::string& name,
      llvm::GlobalValue::LinkageTypes linkage);

  // The functions of the computations each step calls, per step.
  absl::StatusOr<std::vector<std::vector<llvm::Function*>>> EmitCallees(
      const AotProgram& program);

  // One step: a kernel's call, or a control step over its `callees`.
  absl::Status EmitStep(llvm::IRBuilder<>& b, const AotStep& step,
                        const std::vector<llvm::Function*>& callees,
                        const Frame& frame, llvm::Value* table);

  // The program's copies into result leaves after its last step.
  absl::Status EmitCopies(llvm::IRBuilder<>& b, const AotProgram& program,
                          const Frame& frame);

  std::vector<llvm::GlobalVariable*> EmitConstants(const AotProgram& program);

  llvm::Value* Alloca(const Frame& frame, llvm::Type* type, int64_t count,
                      const char* name);

  // Copies `bytes` from `from` to `to` unless they are one buffer, which
  // is then not written at all (it may be the caller's, read-only);
  // `overlap`: the two may overlap otherwise too (memmove).
  void CopyUnlessSame(llvm::IRBuilder<>& b, const Frame& frame,
                      llvm::Value* to, llvm::Value* from, int64_t bytes,
                      bool overlap = false);

  // A table of pointers holding `values` (at least one entry).
  llvm::Value* Table(llvm::IRBuilder<>& b, const Frame& frame,
                     const std::vector<llvm::Value*>& values);

  llvm::Value* TempAt(llvm::IRBuilder<>& b, const Frame& frame, int64_t offset);

  absl::Status CheckBuffer(const AotBuffer& buffer, const Frame& frame);

  llvm::Value* Address(llvm::IRBuilder<>& b, const AotBuffer& buffer,
                       const Frame& frame);

  std::vector<llvm::Value*> Addresses(llvm::IRBuilder<>& b, const AotStep& step,
                                      size_t begin, size_t end,
                                      const Frame& frame);

  // Calls a computation's driver with its tables and the control step's
  // share of temp.
  void CallComputation(llvm::IRBuilder<>& b, llvm::Function* callee,
                       llvm::Value* arguments, llvm::Value* results,
                       const AotControl& control, const Frame& frame);

  // for (i = begin; i < end; i += step) body(i), i an i64.
  void For(llvm::IRBuilder<>& b, const Frame& frame, llvm::Value* begin,
           llvm::Value* end, llvm::Value* step,
           const std::function<void(llvm::Value*)>& body);

  absl::Status EmitKernelStep(llvm::IRBuilder<>& b, const AotStep& step,
                              const Frame& frame, llvm::Value* table);

  // As the JIT's RunLoop: the state starts as a copy of the initial leaves
  // in the result's buffers (none where they are the same buffer); while
  // the condition holds, the body updates it in place (body_in_place), or
  // else maps it into the next state in temp, which is copied back.
  void EmitWhile(llvm::IRBuilder<>& b, const AotStep& step,
                 const std::vector<llvm::Function*>& callees,
                 const Frame& frame);

  // As the JIT's RunConditional: the index (pred: true is branch 0; s32:
  // out of range is the last branch) picks the branch, which runs on its
  // operand's leaves and writes the result's.
  void EmitConditional(llvm::IRBuilder<>& b, const AotStep& step,
                       const std::vector<llvm::Function*>& callees,
                       const Frame& frame);

  // In aot_driver_loops.cc:
  // A stable sort of each row, as semantics/sort_rows.h defines it: a
  // bottom-up merge sort of the row's index permutation (the right run's
  // element goes first only when the comparator says it is less), then a
  // gather of every operand into its result.
  void EmitSort(llvm::IRBuilder<>& b, const AotStep& step,
                llvm::Function* comparator, const Frame& frame);
  struct SortRows;
  struct SortMerge;
  // One row from `base`: the identity permutation, merge passes of runs
  // twice as wide each until one run holds the row, then the gather.
  void EmitSortRow(llvm::IRBuilder<>& b, const SortRows& rows,
                   llvm::Value* base);
  // Entry k of a merge: the left run's next entry unless the right one's
  // is less (or the left run is done).
  void EmitMergeStep(llvm::IRBuilder<>& b, const SortRows& rows,
                     const SortMerge& merge, llvm::Value* k);
  // Every operand's row in the sorted permutation's order into its result.
  void EmitSortGather(llvm::IRBuilder<>& b, const SortRows& rows,
                      llvm::Value* base);
  // As semantics/scatter_elements.h: the operands copied to the results,
  // then each update element combined into the result element it lands
  // on by the combiner, its scalars in temp, then copied.
  void EmitScatter(llvm::IRBuilder<>& b, const AotStep& step,
                   llvm::Function* combiner, const Frame& frame);
  struct ScatterLoop;
  // The operand index of the window the update position `position`
  // (scatter dimensions) starts at: its index vector, and its batching
  // dimensions' own positions.
  std::vector<llvm::Value*> ScatterStart(
      llvm::IRBuilder<>& b, const ScatterLoop& loop,
      const std::vector<llvm::Value*>& position);
  // The update window at scatter position `flat`, skipped unless it fits.
  void EmitScatterPosition(llvm::IRBuilder<>& b, const ScatterLoop& loop,
                           llvm::Value* flat);
  // The update element at `window` of the window whose first elements are
  // at operand_offset and update_offset, combined into its result element.
  void EmitScatterElement(llvm::IRBuilder<>& b, const ScatterLoop& loop,
                          const std::vector<llvm::Value*>& window,
                          llvm::Value* operand_offset,
                          llvm::Value* update_offset);
  // As semantics/select_and_scatter.h: init everywhere, then each source
  // element scattered onto the operand element its window selects.
  void EmitSelectAndScatter(llvm::IRBuilder<>& b, const AotStep& step,
                            llvm::Function* select, llvm::Function* scatter,
                            const Frame& frame);
  struct SelectAndScatterLoop;
  // Calls `callee` on the pair (lhs, rhs) into `results`.
  void CallOnPair(llvm::IRBuilder<>& b, const SelectAndScatterLoop& loop,
                  llvm::Function* callee, llvm::Value* lhs, llvm::Value* rhs,
                  llvm::Value* results);
  // Tap `tap` of window position `position`: selected if it is the first
  // valid one, or if select(selected so far, it) is false.
  void EmitSelectTap(llvm::IRBuilder<>& b, const SelectAndScatterLoop& loop,
                     const std::vector<llvm::Value*>& position,
                     const std::vector<llvm::Value*>& tap);
  // Source element `source_index` combined by scatter into the result
  // element its window selected (none where no tap was valid).
  void EmitScatterSelected(llvm::IRBuilder<>& b,
                           const SelectAndScatterLoop& loop,
                           llvm::Value* source_index);
  // Row-major indices of `flat` over `sizes`.
  std::vector<llvm::Value*> Unflatten(llvm::IRBuilder<>& b, llvm::Value* flat,
                                      const std::vector<int64_t>& sizes);

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::PointerType* ptr_;
  llvm::Type* i64_;
  llvm::FunctionType* kernel_type_;
  llvm::FunctionType* driver_type_;
};

// AotDriverEmitter(module).Emit(program).
absl::Status EmitAotDriver(llvm::Module& module, const AotProgram& program);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_AOT_DRIVER_H_
