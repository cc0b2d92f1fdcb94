#include "distributed/gloo_communicator.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/gloo_exchange.h"
#include "distributed/gloo_store.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"
#include "ir/status_macros.h"

namespace mxla {

struct GlooCommunicator::Transport {
  std::shared_ptr<::gloo::transport::Device> device;
  std::shared_ptr<::gloo::rendezvous::Context> context;
};

namespace {

// gloo writes to sockets that a dead peer may have closed and expects
// EPIPE; the default SIGPIPE would kill the process instead. A handler the
// program installed itself is left alone.
void IgnoreSigpipe() {
  struct sigaction current = {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 &&
      current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
}

// The devices behind the store keys a rendezvous waited for in vain: gloo
// names them "<run>/rank_<d>" (its hostname) and "<run>/<d>" (its
// addresses).
std::string MissingDevices(const std::vector<std::string>& keys) {
  std::set<int64_t> devices;
  for (const std::string& key : keys) {
    std::string last = key.substr(key.rfind('/') + 1);
    if (last.rfind("rank_", 0) == 0) last = last.substr(5);
    devices.insert(std::atoll(last.c_str()));
  }
  return absl::StrCat(devices.size() == 1 ? "device " : "devices ",
                      absl::StrJoin(devices, ", "));
}

bool Overlap(ConstBytes a, MutableBytes b) {
  return !a.empty() && !b.empty() && a.data() < b.data() + b.size() &&
         b.data() < a.data() + a.size();
}

void Copy(char* to, const char* from, size_t bytes) {
  if (bytes > 0) std::memmove(to, from, bytes);
}

}  // namespace

namespace {

absl::Status CheckOptions(int64_t device_id, int64_t device_count,
                          const GlooOptions& options,
                          const std::string& where) {
  if (device_count < 1 || device_count > INT_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": a run of ", device_count,
                     " devices (it needs 1 to ", INT_MAX, ")"));
  }
  if (device_id < 0 || device_id >= device_count) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": device ", device_id, " is not one of the run's ",
                     device_count, " devices (0 to ", device_count - 1, ")"));
  }
  if (options.run_name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": the run needs a name"));
  }
  if (options.timeout.count() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": the timeout must be positive, not ",
                     options.timeout.count(), " ms"));
  }
  struct stat info;
  if (stat(options.store_directory.c_str(), &info) != 0 ||
      !S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": the store directory does not exist"));
  }
  return absl::OkStatus();
}

// What a failed connectFullMesh means: devices that never wrote their
// keys, keys left by an earlier run, or a connection that failed.
absl::Status RendezvousError(const std::exception& error,
                             const TimedFileStore& store, int64_t device_id,
                             int64_t device_count, const GlooOptions& options,
                             const std::string& where) {
  const std::string what = error.what();
  if (!store.missing().empty()) {
    return absl::DeadlineExceededError(absl::StrCat(
        where, ": ", MissingDevices(store.missing()), " did not arrive within ",
        options.timeout.count(), " ms (device ", device_id, " of ",
        device_count, " waited)"));
  }
  if (what.find("already exists") != std::string::npos) {
    return absl::AlreadyExistsError(absl::StrCat(
        where,
        ": the directory holds this run's files from before; each run needs "
        "a fresh name or directory (gloo: ",
        what, ")"));
  }
  return absl::UnavailableError(
      absl::StrCat(where, ": device ", device_id,
                   " could not connect to the others (gloo: ", what, ")"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<GlooCommunicator>> GlooCommunicator::Connect(
    int64_t device_id, int64_t device_count, const GlooOptions& options) {
  const std::string where =
      absl::StrCat("gloo rendezvous of run '", options.run_name, "' in '",
                   options.store_directory, "'");
  RETURN_IF_ERROR(CheckOptions(device_id, device_count, options, where));
  IgnoreSigpipe();
  auto transport = std::make_unique<Transport>();
  try {
    ::gloo::transport::tcp::attr attr;
    attr.hostname = options.hostname;
    transport->device = ::gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& error) {
    return absl::UnavailableError(
        absl::StrCat(where, ": gloo cannot listen on '", options.hostname,
                     "': ", error.what()));
  }
  TimedFileStore store(options.store_directory, options.timeout);
  ::gloo::rendezvous::PrefixStore run_store(options.run_name, store);
  auto context = std::make_shared<::gloo::rendezvous::Context>(
      static_cast<int>(device_id), static_cast<int>(device_count));
  context->setTimeout(options.timeout);
  try {
    context->connectFullMesh(run_store, transport->device);
  } catch (const std::exception& error) {
    return RendezvousError(error, store, device_id, device_count, options,
                           where);
  }
  transport->context = std::move(context);
  return std::unique_ptr<GlooCommunicator>(new GlooCommunicator(
      device_id, device_count, options.timeout, std::move(transport)));
}

GlooCommunicator::GlooCommunicator(int64_t device_id, int64_t device_count,
                                   std::chrono::milliseconds timeout,
                                   std::unique_ptr<Transport> transport)
    : device_id_(device_id),
      device_count_(device_count),
      timeout_(timeout),
      transport_(std::move(transport)) {}

// The context closes its connections gently (what was sent still arrives)
// before the device's event loop stops.
GlooCommunicator::~GlooCommunicator() = default;

absl::StatusOr<uint64_t> GlooCommunicator::Begin(absl::string_view op,
                                                 uint64_t calls) {
  if (!failure_.ok()) {
    return absl::Status(
        failure_.code(),
        absl::StrCat(op, ": not run, an earlier collective failed: ",
                     failure_.message()));
  }
  const uint64_t first = sequence_;
  sequence_ += calls;
  return first;
}

absl::Status GlooCommunicator::Fail(absl::Status error) {
  if (failure_.ok()) {
    failure_ = error;
    // Closing makes every peer's pending and later transfers with this
    // device fail at once, rather than at their timeout.
    try {
      transport_->context->closeConnections();
    } catch (const std::exception&) {
      // Already closed: nothing more to tell the peers.
    }
  }
  return error;
}

absl::Status GlooCommunicator::Exchange(
    absl::string_view op, uint64_t sequence,
    absl::Span<const PeerTransfer> transfers,
    std::chrono::steady_clock::time_point deadline) {
  absl::Status status = ExchangeWithPeers(*transport_->context, op, sequence,
                                          transfers, deadline, timeout_);
  if (!status.ok()) return Fail(status);
  return status;
}

absl::Status GlooCommunicator::CheckGroup(const CollectiveCall& call,
                                          size_t sends, size_t receives) const {
  const int64_t members = call.group.size();
  if (sends != call.group.size() || receives != call.group.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(call.op, ": a group of ", members, " devices with ", sends,
                     " send and ", receives, " receive buffers"));
  }
  if (call.rank < 0 || call.rank >= members ||
      call.group[call.rank] != device_id_) {
    return absl::InvalidArgumentError(absl::StrCat(
        call.op, ": device ", device_id_, " is not at rank ", call.rank,
        " of group {", absl::StrJoin(call.group, ","), "}"));
  }
  std::vector<bool> seen(device_count_);
  for (int64_t device : call.group) {
    if (device < 0 || device >= device_count_ || seen[device]) {
      return absl::InvalidArgumentError(absl::StrCat(
          call.op, ": group {", absl::StrJoin(call.group, ","),
          "} names device ", device,
          device < 0 || device >= device_count_
              ? absl::StrCat(", not one of the run's ", device_count_)
              : std::string(" twice")));
    }
    seen[device] = true;
  }
  return absl::OkStatus();
}

absl::Status GlooCommunicator::AllToAll(const CollectiveCall& call,
                                        absl::Span<const ConstBytes> send,
                                        absl::Span<const MutableBytes> recv) {
  ASSIGN_OR_RETURN(uint64_t sequence, Begin(call.op));
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  if (absl::Status status = CheckGroup(call, send.size(), recv.size());
      !status.ok()) {
    return Fail(status);
  }
  const int64_t rank = call.rank;
  if (send[rank].size() != recv[rank].size()) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        call.op, ": device ", device_id_, " sends ", send[rank].size(),
        " bytes to itself into ", recv[rank].size(), " bytes")));
  }
  std::vector<PeerTransfer> transfers;
  for (int64_t k = 0; k < static_cast<int64_t>(call.group.size()); ++k) {
    if (k != rank) {
      transfers.push_back({call.group[k], true, send[k], true, recv[k]});
    }
  }
  RETURN_IF_ERROR(Exchange(call.op, sequence, transfers, deadline));
  Copy(recv[rank].data(), send[rank].data(), send[rank].size());
  return absl::OkStatus();
}

absl::Status GlooCommunicator::AllGather(const CollectiveCall& call,
                                         ConstBytes send,
                                         absl::Span<const MutableBytes> recv) {
  ASSIGN_OR_RETURN(uint64_t sequence, Begin(call.op));
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  if (absl::Status status = CheckGroup(call, call.group.size(), recv.size());
      !status.ok()) {
    return Fail(status);
  }
  const int64_t rank = call.rank;
  if (send.size() != recv[rank].size()) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat(call.op, ": device ", device_id_, " gathers ", send.size(),
                     " bytes of its own into ", recv[rank].size(), " bytes")));
  }
  std::vector<PeerTransfer> transfers;
  for (int64_t k = 0; k < static_cast<int64_t>(call.group.size()); ++k) {
    if (k != rank)
      transfers.push_back({call.group[k], true, send, true, recv[k]});
  }
  RETURN_IF_ERROR(Exchange(call.op, sequence, transfers, deadline));
  Copy(recv[rank].data(), send.data(), send.size());
  return absl::OkStatus();
}

absl::Status GlooCommunicator::Permute(absl::string_view op, ConstBytes send,
                                       absl::Span<const int64_t> targets,
                                       std::optional<int64_t> source,
                                       MutableBytes recv) {
  ASSIGN_OR_RETURN(uint64_t sequence, Begin(op));
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  auto bad = [&](int64_t device, absl::string_view what) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        op, ": device ", device_id_, " ", what, " device ", device,
        device < 0 || device >= device_count_
            ? absl::StrCat(", not one of the run's ", device_count_)
            : std::string(" twice"))));
  };
  std::vector<bool> seen(device_count_);
  for (int64_t target : targets) {
    if (target < 0 || target >= device_count_ || seen[target]) {
      return bad(target, "sends to");
    }
    seen[target] = true;
  }
  if (source && (*source < 0 || *source >= device_count_)) {
    return bad(*source, "receives from");
  }
  const bool to_self = seen[device_id_];
  const bool from_self = source == device_id_;
  if (to_self != from_self) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        op, ": device ", device_id_,
        to_self ? " sends to itself but receives from "
                : " receives from itself but does not send to itself",
        to_self ? (source ? absl::StrCat("device ", *source) : "no device")
                : "")));
  }
  if (from_self && send.size() != recv.size()) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat(op, ": device ", device_id_, " sends ", send.size(),
                     " bytes to itself into ", recv.size(), " bytes")));
  }
  std::vector<PeerTransfer> transfers;
  for (int64_t target : targets) {
    if (target != device_id_) {
      transfers.push_back({target, true, send, false, MutableBytes()});
    }
  }
  if (source && !from_self) {
    auto it = std::find_if(
        transfers.begin(), transfers.end(),
        [&](const PeerTransfer& transfer) { return transfer.peer == *source; });
    if (it == transfers.end()) {
      transfers.push_back({*source, false, ConstBytes(), true, recv});
    } else {
      it->receives = true;
      it->recv = recv;
    }
  }
  RETURN_IF_ERROR(Exchange(op, sequence, transfers, deadline));
  if (from_self) Copy(recv.data(), send.data(), send.size());
  return absl::OkStatus();
}

absl::Status GlooCommunicator::AllReduce(const CollectiveCall& call,
                                         ConstBytes send, MutableBytes recv,
                                         const ElementCombiner& combiner) {
  ASSIGN_OR_RETURN(uint64_t sequence, Begin(call.op, 2));
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const int64_t width = combiner.element_bytes;
  if (width < 1 || send.size() != recv.size() || send.size() % width != 0) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat(call.op, ": all-reduce of ", send.size(), " bytes into ",
                     recv.size(), " bytes of ", width, "-byte elements")));
  }
  const int64_t members = call.group.size();
  if (absl::Status status = CheckGroup(call, members, members); !status.ok()) {
    return Fail(status);
  }
  const int64_t rank = call.rank;
  const int64_t elements = send.size() / width;
  // The reduction writes this member's chunk of `recv` while the other
  // chunks of `send` are still to go out: an operand that shares memory
  // with the result is copied first.
  std::vector<char> copy;
  if (Overlap(send, recv)) {
    copy.assign(send.begin(), send.end());
    send = ConstBytes(copy.data(), copy.size());
  }
  auto chunk_of = [&](auto bytes, int64_t k) {
    const ElementRange chunk = ChunkOf(elements, members, k);
    return bytes.subspan(chunk.begin * width, chunk.size * width);
  };
  const ElementRange mine = ChunkOf(elements, members, rank);
  const MutableBytes reduced = chunk_of(recv, rank);
  const size_t chunk_bytes = reduced.size();
  if (staging_size_ < chunk_bytes * members) {
    staging_size_ = chunk_bytes * members;
    staging_.reset(new char[staging_size_]);
  }
  // Step 1: chunk `rank` of every member; member 0's lands in place, the
  // start of the left-to-right reduction.
  std::vector<PeerTransfer> transfers;
  for (int64_t k = 0; k < members; ++k) {
    if (k == rank) continue;
    const MutableBytes into =
        k == 0 ? reduced
               : MutableBytes(staging_.get() + k * chunk_bytes, chunk_bytes);
    transfers.push_back({call.group[k], true, chunk_of(send, k), true, into});
  }
  RETURN_IF_ERROR(Exchange(call.op, sequence, transfers, deadline));
  if (rank == 0) Copy(reduced.data(), chunk_of(send, 0).data(), chunk_bytes);
  if (mine.size > 0) {
    for (int64_t k = 1; k < members; ++k) {
      const char* other = k == rank ? chunk_of(send, rank).data()
                                    : staging_.get() + k * chunk_bytes;
      RETURN_IF_ERROR(combiner.combine(reduced.data(), other, mine.size));
    }
  }
  // Step 2: every member's reduced chunk, straight into its place.
  transfers.clear();
  for (int64_t k = 0; k < members; ++k) {
    if (k == rank) continue;
    transfers.push_back(
        {call.group[k], true, reduced, true, chunk_of(recv, k)});
  }
  return Exchange(call.op, sequence + 1, transfers, deadline);
}

}  // namespace mxla
