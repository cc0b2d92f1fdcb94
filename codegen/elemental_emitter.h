// Element generators (XLA's elemental IR emitter): the LLVM value of one
// element of any instruction of a fused computation, at a multi-dimensional
// index, composed through its operands. Broadcast, transpose, reshape and
// iota are index maps: they never read or write a buffer of their own.
//
// Before: `computation` is a verified, lowered fusion body (or reducer);
// `parameter_buffers[i]` points at parameter i's row-major data (nullptr is
// allowed for a parameter that is bound by value instead, see BindScalar).
// After: each Generate call emits straight-line IR at the builder's insertion
// point. Values are cached per (instruction, index) until ClearCache(), so a
// value shared inside a fused DAG is computed once; call ClearCache() whenever
// the insertion point moves to a block the cached values do not dominate.
// Generation is iterative: fused chains of any depth do not use the C++ stack.
#ifndef MXLA_CODEGEN_ELEMENTAL_EMITTER_H_
#define MXLA_CODEGEN_ELEMENTAL_EMITTER_H_

#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/scalar_emitter.h"
#include "ir/hlo_computation.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

// One i64 value per dimension; empty for a scalar.
using IrIndex = std::vector<llvm::Value*>;

class ElementalEmitter {
 public:
  ElementalEmitter(llvm::IRBuilder<>& b, const HloComputation& computation,
                   std::vector<llvm::Value*> parameter_buffers);

  // Makes parameter `number` (a scalar) evaluate to `value` everywhere:
  // how a reducer's accumulator and element are passed in.
  void BindScalar(int64_t number, llvm::Value* value);
  // Makes `instruction` evaluate through `generator` (given the index)
  // instead of through its operands; kept across ClearCache(). How a row
  // kernel feeds in reduce results and row buffers.
  using Generator = std::function<llvm::Value*(const IrIndex&)>;
  void Bind(const HloInstruction& instruction, Generator generator);
  void Unbind(const HloInstruction& instruction) { bound_.erase(&instruction); }

  absl::StatusOr<llvm::Value*> Generate(const HloInstruction& instruction,
                                        const IrIndex& index);
  // The values of a computation's root: one per tuple element for a tuple
  // root (a variadic reducer), else one.
  absl::StatusOr<std::vector<llvm::Value*>> GenerateRoot(const IrIndex& index);

  void ClearCache() { cache_.clear(); }

  // The buffer of the computation's parameter `number`.
  llvm::Value* parameter_buffer(int64_t number) const {
    return parameter_buffers_[number];
  }

  // The run-time starts of dynamic-slice's or dynamic-update-slice's
  // `window` in `operand`, from the start operands at `first_start` on
  // (scalars or one vector), each clamped into [0, size - window], as i64.
  absl::StatusOr<std::vector<llvm::Value*>> WindowStarts(
      const HloInstruction& instruction, int64_t first_start,
      const Shape& operand, absl::Span<const int64_t> window);

  // Row-major linear index of `index` in `dimensions`.
  static llvm::Value* Linearize(llvm::IRBuilder<>& b,
                                absl::Span<const int64_t> dimensions,
                                const IrIndex& index);
  // The inverse: the index of row-major position `linear`.
  static IrIndex Delinearize(llvm::IRBuilder<>& b,
                             absl::Span<const int64_t> dimensions,
                             llvm::Value* linear);

 private:
  using Key = std::pair<const HloInstruction*, IrIndex>;
  // One handler per op (ir/hlo_op_visitor.h): element_rules.cc and
  // operand_index_rules.cc.
  class ElementRules;
  class OperandIndexRules;

  // Unimplemented: `instruction` cannot be an element of a fused kernel.
  static absl::Status NotFusible(const HloInstruction& instruction);

  // The index at which `instruction` reads operand `operand_number`.
  absl::StatusOr<IrIndex> OperandIndex(const HloInstruction& instruction,
                                       int64_t operand_number,
                                       const IrIndex& index);
  IrIndex ReshapeOperandIndex(const HloInstruction& reshape,
                              const IrIndex& index);
  // The operand element a gather's output element at `index` reads: its
  // slice's start, read from the start indices and clamped, plus its
  // offset in the slice.
  absl::StatusOr<IrIndex> GatherOperandIndex(const HloInstruction& gather,
                                             const IrIndex& index);
  // Emits `instruction` at `index` once its operands' values are cached at
  // `operand_indices`.
  absl::StatusOr<llvm::Value*> EmitOne(
      const HloInstruction& instruction, const IrIndex& index,
      const std::vector<IrIndex>& operand_indices);
  llvm::Value* EmitConstant(const HloInstruction& constant,
                            const IrIndex& index);
  // bitcast-convert at `index`, given the operand's value at the index
  // OperandIndex chose (`first`).
  absl::StatusOr<llvm::Value*> EmitBitcastConvert(
      const HloInstruction& instruction, const IrIndex& index,
      llvm::Value* first);

  llvm::IRBuilder<>& b_;
  const HloComputation& computation_;
  std::vector<llvm::Value*> parameter_buffers_;
  absl::flat_hash_map<int64_t, llvm::Value*> bound_scalars_;
  absl::flat_hash_map<const HloInstruction*, Generator> bound_;
  absl::flat_hash_map<Key, llvm::Value*> cache_;
  ScalarEmitter scalars_;
};

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_ELEMENTAL_EMITTER_H_
