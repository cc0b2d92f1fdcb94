// What the passes that expand an op into simpler HLO (expand-dots,
// expand-convolutions, expand-reduce-windows, expand-rngs, ...) build
// with: index lists, transposes that vanish when they are identities, the
// scalar add computation a sum reduces with, made once per module and
// type, elementwise builders, and the replace-and-remove step.
#ifndef MXLA_PASSES_EXPANSION_UTIL_H_
#define MXLA_PASSES_EXPANSION_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"
#include "ir/shape_util.h"

namespace mxla::expansion {

// from, from + 1, ..., from + count - 1.
std::vector<int64_t> Iota(int64_t from, int64_t count);

template <typename... Lists>
std::vector<int64_t> Concat(const Lists&... lists) {
  std::vector<int64_t> all;
  (all.insert(all.end(), lists.begin(), lists.end()), ...);
  return all;
}

// `operand` with its dimensions in the order `permutation` (result
// dimension i is operand dimension permutation[i]); `operand` itself when
// that is the identity.
HloInstruction* Transposed(HloComputation& computation,
                           HloInstruction* operand,
                           const std::vector<int64_t>& permutation);
// `operand` reshaped to `dims` (same element type); itself if unchanged.
HloInstruction* Reshaped(HloComputation& computation, HloInstruction* operand,
                         const std::vector<int64_t>& dims);
// Element `index` of a tuple-shaped instruction.
HloInstruction* TupleElement(HloComputation& computation,
                             HloInstruction* tuple, int64_t index);
// The s64 scalar constant `value` (loop counters, slice starts).
HloInstruction* S64Constant(HloComputation& computation, int64_t value);
// The scalar constant 0 (false for pred) of `type`.
HloInstruction* Zero(HloComputation& computation, PrimitiveType type);

// The computations the JIT compiles as programs of their own: the entry,
// and the conditions, bodies and branches of its while loops and
// conditionals, at any depth. Their dots and convolutions may stay whole
// for the matrix-product kernel; those of other computations (a reduce's
// or a sort's scalar computation) are expanded.
absl::flat_hash_set<const HloComputation*> ProgramComputations(
    const HloModule& module);

// Whether the matrix-product kernel can compute `product` (a dot or a
// convolution) in f32 from 16-bit floats: operands and result each f16,
// bf16 or f32, not all f32 (XLA:CPU's rule for bf16 and f16 dots).
bool IsWidenableToF32(const HloInstruction& product);

// Replaces `product` by a clone computing in f32: its operands converted
// to f32 where they are not (the kernel converts them while reading them),
// its result converted back once (one rounding, as the interpreter's).
// Returns the f32 clone.
absl::StatusOr<HloInstruction*> WidenToF32(HloComputation& computation,
                                           HloInstruction* product);

// Replaces `old` by `expansion` (given old's metadata, and its shape, with
// the layout, when both are arrays) and removes `old`.
absl::Status ReplaceByExpansion(HloComputation& computation,
                                HloInstruction* old,
                                HloInstruction* expansion);

// Runs `expand` on every instruction of `opcodes` in every computation and
// puts its result in the instruction's place (ReplaceByExpansion); true if
// any was expanded.
absl::StatusOr<bool> ExpandEach(
    HloModule& module, absl::Span<const HloOpcode> opcodes,
    absl::FunctionRef<absl::StatusOr<HloInstruction*>(HloComputation&,
                                                      HloInstruction*)>
        expand);

// Builds elementwise HLO over one array's dimensions (row-major): what the
// expansions of elementwise definitions (rng, stochastic-convert) are
// made of.
class ElementwiseBuilder {
 public:
  ElementwiseBuilder(HloComputation& computation,
                     absl::Span<const int64_t> dims)
      : computation_(computation), dims_(dims.begin(), dims.end()) {}

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    return computation_.AddInstruction(std::move(instruction));
  }
  Shape ArrayOf(PrimitiveType type) const {
    return ShapeUtil::MakeShape(type, dims_);
  }
  // A scalar instruction repeated over the dimensions.
  HloInstruction* Splat(HloInstruction* scalar);
  template <typename T>
  HloInstruction* Constant(T value) {
    return Add(HloInstruction::CreateConstant(LiteralUtil::CreateR0<T>(value)));
  }
  template <typename T>
  HloInstruction* Splat(T value) {
    return Splat(Constant(value));
  }
  // `value` converted to `type` as the interpreter converts, repeated.
  HloInstruction* SplatAs(const Literal& value, PrimitiveType type);
  HloInstruction* Unary(HloOpcode opcode, HloInstruction* x);
  HloInstruction* Binary(HloOpcode opcode, HloInstruction* x,
                         HloInstruction* y);
  // `x` itself when it already has `type`.
  HloInstruction* Convert(HloInstruction* x, PrimitiveType type);
  HloInstruction* Compare(HloInstruction* x, HloInstruction* y,
                          ComparisonDirection direction);
  HloInstruction* Select(HloInstruction* pred, HloInstruction* on_true,
                         HloInstruction* on_false);

 protected:
  HloComputation& computation_;
  std::vector<int64_t> dims_;
};

// The scalar `add` computation per element type, added to the module on
// first use under `prefix`_<type>.
class AddComputations {
 public:
  AddComputations(HloModule& module, absl::string_view prefix)
      : module_(module), prefix_(prefix) {}
  HloComputation* Get(PrimitiveType type);

 private:
  HloModule& module_;
  std::string prefix_;
  absl::flat_hash_map<PrimitiveType, HloComputation*> made_;
};

}  // namespace mxla::expansion

#endif  // MXLA_PASSES_EXPANSION_UTIL_H_
