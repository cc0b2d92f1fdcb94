// The explicit instructions that realize one operand's broadcast to an output
// shape, exactly as XlaBuilder emits them (xla-semantics.md §a.3):
//
//   1. rank raise: a lower-rank, non-scalar operand becomes one `broadcast`
//      to the output sizes with the operand's own sizes kept at
//      `broadcast_dimensions` (so no size-1 dimension is stretched yet);
//   2. degenerate expansion: if the dimensions still differ, a scalar gets
//      `broadcast(x), dimensions={}`; otherwise a `reshape` drops the size-1
//      dimensions that must stretch and a `broadcast` with exact sizes maps
//      the kept ones onto the output.
//
// Used by the builder's BroadcastInDim and by the lower-broadcasts pass. The
// caller has already validated the shapes with ShapeInference.
#ifndef MXLA_SHAPE_INFERENCE_BROADCAST_SEQUENCE_H_
#define MXLA_SHAPE_INFERENCE_BROADCAST_SEQUENCE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_computation.h"

namespace mxla {

struct BroadcastSequenceOptions {
  // XlaBuilder::BroadcastInDim emits the step-1 broadcast even when the ranks
  // are equal (an identity broadcast); binary-op lowering does not.
  bool always_emit_rank_raise = false;
  // Applied to every instruction the sequence adds.
  OpMetadata metadata;
  // If set, new instructions are named `<hint>.b` (broadcasts) and
  // `<hint>.r` (reshapes), made unique; otherwise after their opcode.
  std::string name_hint;
};

// Returns the instruction whose dimensions equal `output_dimensions` (the
// operand itself when nothing is needed). New instructions are added to
// `computation`; element types stay the operand's. An empty
// `broadcast_dimensions` with a lower-rank operand means a scalar operand.
absl::StatusOr<HloInstruction*> EmitBroadcastSequence(
    HloComputation* computation, HloInstruction* operand,
    absl::Span<const int64_t> output_dimensions,
    absl::Span<const int64_t> broadcast_dimensions,
    const BroadcastSequenceOptions& options = {});

}  // namespace mxla

#endif  // MXLA_SHAPE_INFERENCE_BROADCAST_SEQUENCE_H_
