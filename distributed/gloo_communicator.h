// Devices in separate processes, over gloo (github.com/facebookincubator/
// gloo, Debian's libgloo-dev): the transport JAX's CPU backend uses for its
// collectives across processes. gloo rather than MPI because it needs no
// launcher (`mpirun`): processes meet through a key-value store; and it
// bounds the rendezvous and every operation with a timeout, so a process
// that dies or never arrives gives the others an error instead of a hang.
//
// One GlooCommunicator serves one device: global device id d of a run of
// device_count devices is gloo rank d. GlooCommunicator::Connect is the
// rendezvous: every device of the run calls it (each from its own process,
// or several from threads of one process) with the same options, and it
// returns once all are connected to all (TCP, full mesh).
//
// Rendezvous. Processes meet in `store_directory`, a directory they share
// (gloo's FileStore: each device writes its addresses there as files named
// after `run_name`). On one machine any directory does; across machines it
// must be on a filesystem every machine mounts (NFS), or another gloo store
// (Redis) is needed, and `hostname` must be an address the other machines
// reach (the default is loopback). A run name can be used once per
// directory: the files stay after the run, so a second run needs a fresh
// name or directory.
//
// Timeouts. `timeout` bounds the rendezvous (DeadlineExceeded naming the
// devices that did not arrive) and each collective call from its start: a
// peer that has not taken part by then gives DeadlineExceeded naming the
// op and the peer; one whose process died gives Unavailable as soon as its
// connection closes. A size or op that disagrees between devices gives
// InvalidArgument naming both. After any error the communicator closes its
// connections, so that its peers fail fast too, and each later call fails
// at once with the first error. gloo's own exceptions never escape.
//
// Calls. Every collective is point-to-point sends and receives tagged with
// the call's sequence number, so calls on different groups at the same
// time cannot mix; all-reduce reduces in rank order (Communicator's
// contract), so its results are the bits an in-process run gives. Calls on
// one communicator must come from one thread at a time.
//
// The process ignores SIGPIPE once a communicator connects (gloo writes to
// sockets a dead peer may have closed, and expects EPIPE, not the signal).
#ifndef MXLA_DISTRIBUTED_GLOO_COMMUNICATOR_H_
#define MXLA_DISTRIBUTED_GLOO_COMMUNICATOR_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/communicator.h"

namespace mxla {

struct PeerTransfer;  // distributed/gloo_exchange.h

struct GlooOptions {
  // The shared directory (it must exist) and the run's name in it.
  std::string store_directory;
  std::string run_name;
  // The address this device listens on for its peers.
  std::string hostname = "127.0.0.1";
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
};

class GlooCommunicator final : public Communicator {
 public:
  // Device `device_id` of `device_count` joins the run: InvalidArgument for
  // options that cannot work (ids out of range, no such directory, an
  // empty run name, a timeout that is not positive), AlreadyExists when the
  // directory holds the run's files from before, DeadlineExceeded naming
  // the devices that did not arrive within the timeout, Unavailable when
  // gloo cannot listen on `hostname` or connect.
  static absl::StatusOr<std::unique_ptr<GlooCommunicator>> Connect(
      int64_t device_id, int64_t device_count, const GlooOptions& options);
  ~GlooCommunicator() override;

  int64_t device_id() const override { return device_id_; }
  int64_t device_count() const override { return device_count_; }

  absl::Status AllToAll(const CollectiveCall& call,
                        absl::Span<const ConstBytes> send,
                        absl::Span<const MutableBytes> recv) override;
  absl::Status AllGather(const CollectiveCall& call, ConstBytes send,
                         absl::Span<const MutableBytes> recv) override;
  absl::Status Permute(absl::string_view op, ConstBytes send,
                       absl::Span<const int64_t> targets,
                       std::optional<int64_t> source,
                       MutableBytes recv) override;
  // Member k reduces chunk k of every member's operand in rank order and
  // sends it to every member: the default's two steps, with no staging
  // copies.
  absl::Status AllReduce(const CollectiveCall& call, ConstBytes send,
                         MutableBytes recv,
                         const ElementCombiner& combiner) override;

  // The first error of any call (OK while none failed).
  absl::Status failure() const { return failure_; }

 private:
  struct Transport;  // gloo's device and context
  GlooCommunicator(int64_t device_id, int64_t device_count,
                   std::chrono::milliseconds timeout,
                   std::unique_ptr<Transport> transport);

  // Starts a call that takes `calls` sequence numbers: the first, or the
  // first error once a call failed.
  absl::StatusOr<uint64_t> Begin(absl::string_view op, uint64_t calls = 1);
  // Runs one call's transfers; an error fails the communicator.
  absl::Status Exchange(absl::string_view op, uint64_t sequence,
                        absl::Span<const PeerTransfer> transfers,
                        std::chrono::steady_clock::time_point deadline);
  // Records the first error and closes the connections; returns `error`.
  absl::Status Fail(absl::Status error);
  absl::Status CheckGroup(const CollectiveCall& call, size_t sends,
                          size_t receives) const;

  int64_t device_id_;
  int64_t device_count_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Transport> transport_;
  uint64_t sequence_ = 0;
  absl::Status failure_;
  // All-reduce's chunks of the other members, kept from call to call (a
  // fresh buffer would fault its pages in on every call).
  std::unique_ptr<char[]> staging_;
  size_t staging_size_ = 0;
};

}  // namespace mxla

#endif  // MXLA_DISTRIBUTED_GLOO_COMMUNICATOR_H_
