// The JIT's form of XLA's in-place collective-permute(input, output,
// input_start_indices, output_start_indices) with slice_sizes (and of its
// start), for lower-collectives: per buffer, a dynamic-slice of the input
// at its start indices (clamped, as dynamic-slice clamps), moved by a
// plain collective-permute with the op's pairs and channel (a device
// step), and written into the output by a dynamic-update-slice kept only
// where this device is a target (a select on a table of the targets,
// indexed by partition-id with a channel_id, else replica-id); elements
// not written keep the output's values. On one device (`devices` 1) no
// permute: the slice is written when the pair {0,0} is given, else the
// output stays. Before: `permute` verified. After: the replacement, of
// `permute`'s shape, added to its computation (not yet used).
#ifndef MXLA_PASSES_INPLACE_PERMUTE_LOWERING_H_
#define MXLA_PASSES_INPLACE_PERMUTE_LOWERING_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "ir/hlo_instruction.h"

namespace mxla {

absl::StatusOr<HloInstruction*> LowerInPlacePermute(HloInstruction* permute,
                                                    int64_t devices);

}  // namespace mxla

#endif  // MXLA_PASSES_INPLACE_PERMUTE_LOWERING_H_
