#include "distributed/gloo_exchange.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gloo/common/error.h"
#include "gloo/transport/unbound_buffer.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// What one end of an edge tells the other before any payload moves.
struct Header {
  int64_t sends = -1;    // bytes the writer sends to the reader; -1: none
  int64_t expects = -1;  // bytes the writer expects from the reader
  int64_t op_size = 0;
  char op[104] = {};  // the op's name, cut to this length
};
static_assert(sizeof(Header) == 128);

// Slots of mxla's calls carry a prefix of their own, so that they cannot
// meet the slots of gloo's own algorithms (small prefixes) on a shared
// context.
constexpr uint64_t kSlotPrefix = uint64_t{0x6d} << 56;
enum SlotKind : uint64_t { kHeaderSlot = 0, kPayloadSlot = 1 };
uint64_t Slot(uint64_t sequence, SlotKind kind) {
  return kSlotPrefix | (sequence << 1) | kind;
}

std::chrono::milliseconds Remaining(
    std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return std::max(left, std::chrono::milliseconds(1));
}

std::string Bytes(int64_t count) {
  return count < 0 ? "nothing" : absl::StrCat(count, " bytes");
}

absl::string_view OpName(absl::string_view op) {
  return op.substr(0, sizeof(Header::op));
}

absl::Status CheckHeader(absl::string_view op, int64_t self,
                         const PeerTransfer& transfer, const Header& header) {
  if (header.op_size < 0 ||
      header.op_size > static_cast<int64_t>(sizeof(header.op))) {
    return absl::InternalError(absl::StrCat(op, ": device ", transfer.peer,
                                            " sent a malformed header"));
  }
  absl::string_view theirs(header.op, header.op_size);
  if (theirs != OpName(op)) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": device ", transfer.peer, " is at ", theirs,
                     " in the same call (the devices' programs diverge)"));
  }
  const int64_t expected = transfer.receives ? transfer.recv.size() : -1;
  if (header.sends != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": device ", transfer.peer, " sends ", Bytes(header.sends),
        " to device ", self, ", which expects ", Bytes(expected)));
  }
  const int64_t sending = transfer.sends ? transfer.send.size() : -1;
  if (header.expects != sending) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": device ", self, " sends ", Bytes(sending), " to device ",
        transfer.peer, ", which expects ", Bytes(header.expects)));
  }
  return absl::OkStatus();
}

// gloo reports a timeout and a lost connection alike as an IoException;
// its message tells them apart.
absl::Status TransportError(absl::string_view op, int64_t peer,
                            std::chrono::milliseconds timeout,
                            const std::exception& error) {
  const std::string what = error.what();
  if (what.find("Timed out") != std::string::npos ||
      what.find("timed out") != std::string::npos) {
    return absl::DeadlineExceededError(absl::StrCat(
        op, ": device ", peer, " did not take part within the timeout of ",
        timeout.count(), " ms (gloo: ", what, ")"));
  }
  return absl::UnavailableError(absl::StrCat(
      op, ": the connection to device ", peer,
      " closed or failed, as when its process has failed or exited (gloo: ",
      what, ")"));
}

// One peer's buffers for the call: gloo holds on to them until the
// transfers complete.
struct PeerState {
  std::unique_ptr<char[]> header_in;
  std::vector<char> header_out;
  std::unique_ptr<::gloo::transport::UnboundBuffer> in, out, payload_in,
      payload_out;
};

constexpr int64_t kHeaderInBytes = sizeof(Header) + kEagerBytes;

void Wait(::gloo::transport::UnboundBuffer& buffer, bool receive,
          std::chrono::steady_clock::time_point deadline) {
  const bool done = receive ? buffer.waitRecv(nullptr, Remaining(deadline))
                            : buffer.waitSend(nullptr, Remaining(deadline));
  // Nothing here aborts a wait; gloo says false only for an abort.
  if (!done) throw ::gloo::IoException("wait aborted");
}

// Receives are posted first: gloo moves a payload only to a posted
// receive. A large payload's receive is posted at once too, as its sender
// ships it only after checking that this device expects its size.
void PostReceives(::gloo::Context& context, uint64_t sequence,
                  const PeerTransfer& transfer, PeerState& peer) {
  peer.header_in.reset(new char[kHeaderInBytes]);
  peer.in = context.createUnboundBuffer(peer.header_in.get(), kHeaderInBytes);
  peer.in->recv(transfer.peer, Slot(sequence, kHeaderSlot));
  if (transfer.receives && transfer.recv.size() > kEagerBytes) {
    peer.payload_in =
        context.createUnboundBuffer(transfer.recv.data(), transfer.recv.size());
    peer.payload_in->recv(transfer.peer, Slot(sequence, kPayloadSlot));
  }
}

void PostHeader(::gloo::Context& context, absl::string_view op,
                uint64_t sequence, const PeerTransfer& transfer,
                PeerState& peer) {
  Header header;
  header.sends = transfer.sends ? transfer.send.size() : -1;
  header.expects = transfer.receives ? transfer.recv.size() : -1;
  const absl::string_view name = OpName(op);
  header.op_size = name.size();
  std::memcpy(header.op, name.data(), name.size());
  const bool eager = transfer.sends && transfer.send.size() <= kEagerBytes;
  peer.header_out.resize(sizeof(Header) + (eager ? transfer.send.size() : 0));
  std::memcpy(peer.header_out.data(), &header, sizeof(Header));
  if (eager && !transfer.send.empty()) {
    std::memcpy(peer.header_out.data() + sizeof(Header), transfer.send.data(),
                transfer.send.size());
  }
  peer.out = context.createUnboundBuffer(peer.header_out.data(),
                                         peer.header_out.size());
  peer.out->send(transfer.peer, Slot(sequence, kHeaderSlot));
}

// Waits for the peer's header and checks it; then takes a small payload
// out of it and starts sending a large one.
absl::Status ReadHeader(::gloo::Context& context, absl::string_view op,
                        uint64_t sequence, const PeerTransfer& transfer,
                        PeerState& peer,
                        std::chrono::steady_clock::time_point deadline) {
  Wait(*peer.in, /*receive=*/true, deadline);
  Header header;
  std::memcpy(&header, peer.header_in.get(), sizeof(Header));
  RETURN_IF_ERROR(CheckHeader(op, context.rank, transfer, header));
  if (transfer.receives && !transfer.recv.empty() &&
      transfer.recv.size() <= kEagerBytes) {
    std::memcpy(transfer.recv.data(), peer.header_in.get() + sizeof(Header),
                transfer.recv.size());
  }
  if (transfer.sends && transfer.send.size() > kEagerBytes) {
    // gloo only reads a buffer it sends from.
    peer.payload_out = context.createUnboundBuffer(
        const_cast<char*>(transfer.send.data()), transfer.send.size());
    peer.payload_out->send(transfer.peer, Slot(sequence, kPayloadSlot));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ExchangeWithPeers(::gloo::Context& context, absl::string_view op,
                               uint64_t sequence,
                               absl::Span<const PeerTransfer> transfers,
                               std::chrono::steady_clock::time_point deadline,
                               std::chrono::milliseconds timeout) {
  const size_t n = transfers.size();
  std::vector<PeerState> peers(n);
  int64_t current = -1;  // the peer a gloo error concerns
  try {
    for (size_t i = 0; i < n; ++i) {
      current = transfers[i].peer;
      PostReceives(context, sequence, transfers[i], peers[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      current = transfers[i].peer;
      PostHeader(context, op, sequence, transfers[i], peers[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      current = transfers[i].peer;
      RETURN_IF_ERROR(
          ReadHeader(context, op, sequence, transfers[i], peers[i], deadline));
    }
    for (size_t i = 0; i < n; ++i) {
      current = transfers[i].peer;
      if (peers[i].payload_in) {
        Wait(*peers[i].payload_in, /*receive=*/true, deadline);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      current = transfers[i].peer;
      Wait(*peers[i].out, /*receive=*/false, deadline);
      if (peers[i].payload_out) {
        Wait(*peers[i].payload_out, /*receive=*/false, deadline);
      }
    }
  } catch (const std::exception& error) {
    return TransportError(op, current, timeout, error);
  }
  return absl::OkStatus();
}

}  // namespace mxla
