// Vectorizing map (JAX's vmap) over built computations: a computation
// run on every element of a batch at once, written with the per-op rules
// of transforms/batching_rules.h. The result is an ordinary computation
// (or ops in a caller's builder): compile it, differentiate it, batch it
// again.
//
//   XlaComputation per_example = ...;           // f32[3] -> f32[]
//   XlaComputation batched = *Batch(per_example, {0}, 32);  // f32[32,3] -> f32[32]
//
// An op with no batching rule yet is refused with Unimplemented naming it
// (docs/vmap.md), and only when a batched value reaches it.
#ifndef MXLA_TRANSFORMS_BATCHING_H_
#define MXLA_TRANSFORMS_BATCHING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "builder/xla_builder.h"

namespace mxla {

// In `builder`: `f` applied to each batch element of `arguments`.
// `in_dims[i]` is the dimension of argument i that runs over the batch
// (of size `batch_size`), or nullopt for an argument every element sees
// whole. Returns one op per result (f's array result, or each element of
// its root tuple), each with the batch at dimension 0; a result that no
// batched argument reaches is broadcast along it (and, when `reached` is
// given, marked false there). InvalidArgument, naming the argument and
// both shapes, if a count, dimension or size disagrees.
absl::StatusOr<std::vector<XlaOp>> EmitBatched(
    XlaBuilder& builder, const XlaComputation& f,
    absl::Span<const XlaOp> arguments,
    absl::Span<const std::optional<int64_t>> in_dims, int64_t batch_size,
    std::vector<bool>* reached = nullptr);

// A computation of f's parameters, parameter i with a dimension of
// `batch_size` inserted at in_dims[i] (or as it is for nullopt), that
// returns f's result with the batch at dimension 0 (a tuple of them for a
// tuple result).
absl::StatusOr<XlaComputation> Batch(
    const XlaComputation& f, absl::Span<const std::optional<int64_t>> in_dims,
    int64_t batch_size);

}  // namespace mxla

#endif  // MXLA_TRANSFORMS_BATCHING_H_
