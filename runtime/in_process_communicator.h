// Devices that are threads of one process, exchanging through shared
// memory: each call publishes its buffers' addresses, waits for its group,
// and then every member reads the others' buffers in place, so that an
// exchange costs the copies the op itself needs and no more. All-reduce
// goes further: member k reduces chunk k of every member's operand (in
// rank order, a cache-sized block at a time) and writes it straight into
// every member's result.
//
// A call waits for the other members for at most the rendezvous' timeout;
// a device that fails calls Abort, which wakes every waiting device with
// the error. Calls are matched by sequence number, and a member that
// arrives at another op than the others (programs that diverge) fails the
// call naming both ops.
#ifndef MXLA_RUNTIME_IN_PROCESS_COMMUNICATOR_H_
#define MXLA_RUNTIME_IN_PROCESS_COMMUNICATOR_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "ir/communicator.h"

namespace mxla {

// What one member of a call publishes: its op, and addresses the others
// read or write while the call lasts.
struct Contribution {
  std::string op;
  std::vector<ConstBytes> send;
  std::vector<MutableBytes> recv;
};

// The meeting place of one run's devices.
class InProcessRendezvous {
 public:
  InProcessRendezvous(int64_t device_count, absl::Duration timeout);

  int64_t device_count() const { return device_count_; }

  // Publishes `mine` as member `rank` of call `sequence` of `group`, waits
  // until every member has, runs `work` on all contributions (in rank
  // order), then waits until every member's work is done, so that no
  // member's buffers are released while another still uses them.
  // DeadlineExceeded naming the op and the devices that did not arrive, or
  // the abort's error.
  absl::Status Meet(int64_t sequence, absl::Span<const int64_t> group,
                    int64_t rank, Contribution mine,
                    const std::function<absl::Status(
                        const std::vector<const Contribution*>&)>& work);

  // Fails every waiting and every later call with `error`.
  void Abort(const absl::Status& error);

 private:
  struct Call {
    std::vector<std::optional<Contribution>> members;
    int64_t arrived = 0;
    int64_t finished = 0;
    int64_t left = 0;
  };
  // Waits, holding `lock` on mutex_, until `done` holds, the abort or the
  // deadline.
  absl::Status WaitFor(std::unique_lock<std::mutex>& lock,
                       const std::function<bool()>& done,
                       absl::Time deadline, const std::string& what);

  const int64_t device_count_;
  const absl::Duration timeout_;
  // A std::mutex rather than absl::Mutex: Debian's Abseil is not built
  // with ThreadSanitizer, so its locking would be invisible to the TSan
  // tests, while pthread's is intercepted.
  std::mutex mutex_;
  std::condition_variable changed_;
  // Keyed by the sequence number and the group's first device; guarded by
  // mutex_, as is aborted_.
  absl::node_hash_map<std::pair<int64_t, int64_t>, Call> calls_;
  absl::Status aborted_;
};

class InProcessCommunicator : public Communicator {
 public:
  InProcessCommunicator(std::shared_ptr<InProcessRendezvous> rendezvous,
                        int64_t device_id)
      : rendezvous_(std::move(rendezvous)), device_id_(device_id) {}

  int64_t device_id() const override { return device_id_; }
  int64_t device_count() const override {
    return rendezvous_->device_count();
  }

  absl::Status AllToAll(const CollectiveCall& call,
                        absl::Span<const ConstBytes> send,
                        absl::Span<const MutableBytes> recv) override;
  absl::Status AllGather(const CollectiveCall& call, ConstBytes send,
                         absl::Span<const MutableBytes> recv) override;
  absl::Status Permute(absl::string_view op, ConstBytes send,
                       absl::Span<const int64_t> targets,
                       std::optional<int64_t> source,
                       MutableBytes recv) override;
  absl::Status AllReduce(const CollectiveCall& call, ConstBytes send,
                         MutableBytes recv,
                         const ElementCombiner& combiner) override;

 private:
  std::shared_ptr<InProcessRendezvous> rendezvous_;
  int64_t device_id_;
  int64_t sequence_ = 0;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_IN_PROCESS_COMMUNICATOR_H_
