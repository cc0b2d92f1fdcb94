// XLA's collectives on row-major byte buffers, built on a Communicator
// (ir/communicator.h): what the JIT's collective steps run. Each takes this
// device's call (its group and rank, ir/collective_groups.h decides them),
// its operand and its result buffer; element types enter only through
// their byte width and, for reductions, an ElementCombiner.
//
// Layout: along a dimension `d` of dims, a row-major array is `outer`
// blocks (the product of the dimensions before d) of `inner` bytes (the
// rest, element size included). A gather or a split along d moves whole
// such blocks; when outer is 1 it moves the buffer as it is, with no
// packing copy.
#ifndef MXLA_RUNTIME_COLLECTIVE_OPS_H_
#define MXLA_RUNTIME_COLLECTIVE_OPS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ir/communicator.h"
#include "ir/hlo_computation.h"
#include "ir/primitive_type.h"

namespace mxla {

// An array operand or result: its bytes, dimensions and element width.
struct ArrayBytes {
  char* data = nullptr;
  absl::Span<const int64_t> dims;
  int64_t element_bytes = 1;
  int64_t size() const;  // in bytes
};

// all-gather: the members' operands concatenated along `dimension` in rank
// order (result dims: the operand's with dimension × group size).
absl::Status GatherAlong(Communicator& communicator, const CollectiveCall& call,
                         const ArrayBytes& operand, int64_t dimension,
                         const ArrayBytes& result);

// reduce-scatter: the members' operands reduced (rank order), and this
// rank's slice along `dimension` of the sum (result dims: the operand's
// with dimension / group size).
absl::Status ReduceScatterAlong(Communicator& communicator,
                                const CollectiveCall& call,
                                const ArrayBytes& operand, int64_t dimension,
                                const ElementCombiner& combiner,
                                const ArrayBytes& result);

// all-to-all, array form: the operand split along `split_dimension` into
// group-size pieces, piece k sent to rank k, and the pieces received
// concatenated along `concat_dimension` in rank order.
absl::Status AllToAllAlong(Communicator& communicator,
                           const CollectiveCall& call,
                           const ArrayBytes& operand, int64_t split_dimension,
                           int64_t concat_dimension, const ArrayBytes& result);

// collective-broadcast: rank 0's operand, on every member.
absl::Status BroadcastFromFirst(Communicator& communicator,
                                const CollectiveCall& call,
                                const ArrayBytes& operand,
                                const ArrayBytes& result);

// The combiner of an all-reduce whose computation is one binary elementwise
// op of its two scalar parameters (`p0 op p1` or `p1 op p0`; add,
// subtract, multiply, minimum, maximum, and, or, xor, ...) on `type`,
// computed by the scalar semantics the interpreter uses (f16 and bf16 in
// f32, rounded). None for any other computation: the caller runs the
// computation itself.
std::optional<ElementCombiner> NativeCombiner(const HloComputation& reducer,
                                              PrimitiveType type);

}  // namespace mxla

#endif  // MXLA_RUNTIME_COLLECTIVE_OPS_H_
