// ragged-all-to-all as the JIT's device step runs it, on the Communicator
// (ir/communicator.h), so that it works in one process and over gloo
// alike. XLA's semantics: with k = (metadata length) / (group size)
// updates per peer, this device sends the peer of rank j, for each update
// u (metadata entry e = j·k + u), the rows
// input[input_offsets[e], +send_sizes[e]), which land in that peer's
// result at rows [output_offsets[e], +send_sizes[e]); recv_sizes[e] is
// how many rows it receives from the peer of rank j in update u. The
// result starts as `output`; rows nobody writes keep its values.
//
// First every member's metadata is gathered (AllGather), so that every
// device checks the whole group's alike and fails with the same
// InvalidArgument, naming the op, the devices and the numbers: input or
// output rows out of range, a recv_sizes entry that disagrees with its
// peer's send_sizes, or a metadata length that is no multiple of the
// group size. Only then do the rows move (one AllToAll of each peer's
// updates packed in update order), and are written in rank, then update,
// order.
#ifndef MXLA_RUNTIME_RAGGED_ALL_TO_ALL_H_
#define MXLA_RUNTIME_RAGGED_ALL_TO_ALL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ir/communicator.h"
#include "runtime/collective_ops.h"

namespace mxla {

// The op's buffers: `input` and `output` of one element width and rows
// of one size (dimension 0 counts rows), the four metadata arrays of one
// shape (rank 1, or XLA's rank 2 read row-major as one list) with 4- or
// 8-byte signed elements, and the `result`
// shaped as `output`.
struct RaggedBuffers {
  ArrayBytes input;
  ArrayBytes output;
  ArrayBytes input_offsets;
  ArrayBytes send_sizes;
  ArrayBytes output_offsets;
  ArrayBytes recv_sizes;
  ArrayBytes result;
};

// `opcode_text` starts the errors ("ragged-all-to-all 'name': ...").
absl::Status RaggedAllToAll(Communicator& communicator,
                            const CollectiveCall& call,
                            absl::string_view opcode_text,
                            const RaggedBuffers& buffers);

}  // namespace mxla

#endif  // MXLA_RUNTIME_RAGGED_ALL_TO_ALL_H_
