// pair-sends-and-recvs: send and recv between devices (not over a host
// channel) as the collective-permute they make together. First, an
// async-start/-done wrapping a computation with a send or recv becomes
// that computation inlined. Then, in each computation the entry runs, the
// send and the recv of one channel_id are a pair (when a channel has
// several, each send pairs with the recv of the same source_target_pairs):
// the recv's context tuple (data, u32[], token[]) becomes a tuple of a
// collective-permute of the send's data over the pair's
// source_target_pairs, with the channel_id (so the ids are partition ids,
// as XLA's send/recv are), and the send's context holds its own data.
// Every send-done then gives its context's token and every recv-done its
// data and token, wherever they are: XLA's pipelined loops carry the
// contexts through the loop state to a -done in the next iteration or
// after the loop. A send with no source_target_pairs on a channel nothing
// receives from sends to no device and only keeps its context.
// Devices that no pair targets receive zeros, as from any permute.
//
// Both backends run it (it is one of the default passes), so that send and
// recv mean one thing everywhere; the interpreter then computes the permute
// itself. InvalidArgument, naming the op, the channel and the computation,
// for what cannot be paired: a send or recv without a partner of its
// channel in its computation (naming the partner in another computation,
// if any), several on one channel without pairs or two of one kind to the
// same peers, no pairs (or a send and recv whose pairs or data shapes
// differ), a send whose data depends on its own recv (a cycle once
// paired), a pair with an op that runs other transfers of its channel (a
// loop, a call) after one of the two and not after the other (XLA matches
// sends and recvs in the order they are issued, so which send meets which
// recv would depend on that order), or a wrapping async-start used other
// than by its -update and -done ops.
#ifndef MXLA_PASSES_PAIR_SENDS_AND_RECVS_H_
#define MXLA_PASSES_PAIR_SENDS_AND_RECVS_H_

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"

namespace mxla {

class PairSendsAndRecvsPass : public HloPass {
 public:
  absl::string_view name() const override { return "pair-sends-and-recvs"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace mxla

#endif  // MXLA_PASSES_PAIR_SENDS_AND_RECVS_H_
