// Buffer assignment for a fused module: where every array value lives while
// an executable runs.
//
//   * parameters are read in place (a tuple parameter's elements each from
//     their own buffer) from the caller's buffers, and array
//     constants from the executable's literals: no copies;
//   * tuples and get-tuple-elements are aliases, never buffers;
//   * a fusion output that is (the first occurrence of) a result element is
//     written straight into the caller's result buffer;
//   * every other fusion output gets a slice of one per-run arena, reused
//     once its last reader has run (first fit, 64-byte aligned). A slice is
//     never reused by the fusion that reads it, so kernel buffers never
//     alias, with one exception: a step that can update an operand in
//     place (an in-place dynamic-update-slice fusion, ir/fusion_plan.h; a
//     scatter; a while loop's initial state) takes over that operand's
//     slice when the operand is read by nothing after it;
//   * with `aliases` (the module's input_output_alias, and every while
//     body's state), a result leaf aliased to an argument leaf is written
//     into that argument's buffer (the caller donates it, or the run copies
//     the argument into the result buffer first: JitExecutable). Its
//     producer writes there directly when every other reader of the
//     argument runs before it (or it is the producer itself, updating in
//     place as above); else the value is kept in the arena and copied in
//     at the end. An argument that is overwritten but also returned as a
//     result elsewhere is copied aside before the first step.
// Result elements that are not computed in place (a parameter or constant
// returned as is, or a value returned twice) are copied at the end.
#ifndef MXLA_RUNTIME_BUFFER_ASSIGNMENT_H_
#define MXLA_RUNTIME_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"

namespace mxla {

struct BufferSlot {
  enum Kind { kParameter, kConstant, kArena, kResult };
  Kind kind = kArena;
  int64_t index = 0;   // argument buffer, constant number, result element
  int64_t offset = 0;  // kArena: byte offset in the arena
  int64_t bytes = 0;
};

// A fusion's kernel, or a while loop or conditional (`fusion` is the while
// or conditional; its buffers are every leaf of its operands, depth-first,
// then the result's).
struct FusionStep {
  const HloInstruction* fusion = nullptr;
  std::vector<BufferSlot> buffers;  // operands, then outputs
};

struct BufferAssignment {
  std::vector<FusionStep> steps;                // in execution order
  std::vector<const HloInstruction*> constants;  // by constant number
  // Byte size of each argument buffer: one per array leaf of the
  // parameters, in XLA's order (runtime/buffer_leaves.h).
  std::vector<int64_t> argument_bytes;
  int64_t arena_bytes = 0;
  // Per result element: where its value is; a kResult slot with the same
  // index means it was written in place.
  std::vector<BufferSlot> results;
  // Peak bytes of arena in use (== arena_bytes) plus nothing else: inputs
  // and outputs are the caller's.

  // The aliases the assignment was made for: result leaf r lives in
  // argument leaf a's buffer, which a run must make results[r].
  std::vector<AliasedLeaf> aliases;
  // Copies before the first step, (from, to): an argument the steps
  // overwrite that a result still returns, into the arena.
  std::vector<std::pair<BufferSlot, BufferSlot>> copies_before;
};

// `entry` must be fused (only parameter, constant, fusion, while, tuple and
// get-tuple-element). Parameters and tuples may nest tuples to any depth:
// every value stands for its array leaves, depth-first (buffer_leaves.h).
// `aliases` (ResolveInputOutputAliases, ir/hlo_module.h) must name
// distinct result and argument leaves of matching shapes.
absl::StatusOr<BufferAssignment> AssignBuffers(
    const HloComputation& entry, absl::Span<const AliasedLeaf> aliases = {});

}  // namespace mxla

#endif  // MXLA_RUNTIME_BUFFER_ASSIGNMENT_H_
