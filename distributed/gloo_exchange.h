// One collective call's point-to-point transfers over a connected gloo
// context, the engine under GlooCommunicator (internal to distributed/).
//
// Matching: every transfer of call `sequence` uses gloo slots made of the
// sequence number, and gloo matches a slot per pair of processes, so
// transfers of different calls, and of calls on disjoint groups at the same
// time, never mix.
//
// Checking: before any payload moves, the two ends of each edge exchange a
// small header (the op's name, the bytes each sends and expects), so that
// devices whose programs diverged, or whose sizes disagree, get an error
// naming both devices rather than gloo overrunning a buffer (which it
// treats as fatal). Payloads up to kEagerBytes travel inside the header
// (one message each way); larger ones go straight between the callers'
// buffers once the sender has seen that the receiver expects its size.
#ifndef MXLA_DISTRIBUTED_GLOO_EXCHANGE_H_
#define MXLA_DISTRIBUTED_GLOO_EXCHANGE_H_

#include <chrono>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "gloo/context.h"
#include "ir/communicator.h"

namespace mxla {

inline constexpr int64_t kEagerBytes = 64 << 10;

// What this device exchanges with one peer (another rank of the context):
// `send` goes to it when `sends`, and its payload lands in `recv` when
// `receives` (its size is what this device expects).
struct PeerTransfer {
  int64_t peer = 0;
  bool sends = false;
  ConstBytes send;
  bool receives = false;
  MutableBytes recv;
};

// Runs every transfer and returns once all are done, or the first error:
// InvalidArgument when a peer is at another op or its sizes disagree,
// DeadlineExceeded when a peer has not taken part by `deadline`, and
// Unavailable when a peer's connection closed or failed; each names the op
// and the peer. After an error the context may hold unfinished transfers:
// the caller must not use it for further calls.
absl::Status ExchangeWithPeers(::gloo::Context& context, absl::string_view op,
                               uint64_t sequence,
                               absl::Span<const PeerTransfer> transfers,
                               std::chrono::steady_clock::time_point deadline,
                               std::chrono::milliseconds timeout);

}  // namespace mxla

#endif  // MXLA_DISTRIBUTED_GLOO_EXCHANGE_H_
