// How the devices of one replicated run exchange bytes: the small interface
// every collective goes through, in the JIT's runtime and in the
// interpreter alike (each builds XLA's collectives on it in its own way).
// One Communicator serves one device for one run (ir/run_device.h). Two
// implementations: devices in one process over shared memory
// (runtime/in_process_communicator.h), and devices in other processes over
// a transport library, built as a library of its own (distributed/). It
// sits in ir/, as HostFeed does, so that the interpreter can use it.
//
// Matching. Every device runs the same program, so every device makes the
// same collective calls in the same order; a call is matched with the
// other devices' calls of the same sequence number (the count of calls the
// communicator has made). Every method blocks until its group has arrived.
//
// Errors. A call that cannot complete (a device failed or never arrived
// within the communicator's timeout, a size disagrees) returns an error
// naming the op, and every later call on any device of the run fails
// too, so that no device waits forever for one that gave up.
#ifndef MXLA_IR_COMMUNICATOR_H_
#define MXLA_IR_COMMUNICATOR_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace mxla {

using ConstBytes = absl::Span<const char>;
using MutableBytes = absl::Span<char>;

// One call's participants: global device ids in rank order, this device at
// `rank`; `op` names the instruction for errors.
struct CollectiveCall {
  absl::string_view op;
  absl::Span<const int64_t> group;
  int64_t rank = 0;
};

// An all-reduce's combiner on `element_bytes`-wide elements:
// accumulator[i] = combine(accumulator[i], other[i]) for i < elements. An
// error (a compiled reducer that failed) fails the collective.
struct ElementCombiner {
  int64_t element_bytes = 1;
  std::function<absl::Status(char* accumulator, const char* other,
                             int64_t elements)>
      combine;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  // This device's global id, and how many devices the run has.
  virtual int64_t device_id() const = 0;
  virtual int64_t device_count() const = 0;

  // This device sends send[k] to member k and receives member j's
  // send[rank] into recv[j] (sizes must agree pairwise). Both spans have
  // group.size() entries; send[rank] lands in recv[rank].
  virtual absl::Status AllToAll(const CollectiveCall& call,
                                absl::Span<const ConstBytes> send,
                                absl::Span<const MutableBytes> recv) = 0;

  // recv[j] = member j's `send`, for every member (equal sizes).
  virtual absl::Status AllGather(const CollectiveCall& call, ConstBytes send,
                                 absl::Span<const MutableBytes> recv) = 0;

  // Sends `send` to each of `targets` (global ids) and, when `source` is
  // set, receives that device's `send` into `recv` (equal sizes). Every
  // device of the run makes the call, those with no peers too.
  virtual absl::Status Permute(absl::string_view op, ConstBytes send,
                               absl::Span<const int64_t> targets,
                               std::optional<int64_t> source,
                               MutableBytes recv) = 0;

  // recv = member 0's send ⊕ member 1's ⊕ ... (left to right, in rank
  // order), elementwise with `combiner`: the same bits on every member and
  // in every run, whatever the transport. send and recv have equal sizes,
  // a multiple of the element size. The default splits the elements into
  // one chunk per member, gathers chunk k of every member at member k
  // (AllToAll), reduces it there in rank order and shares the reduced
  // chunks (AllGather); an implementation may do better as long as it
  // keeps the order.
  virtual absl::Status AllReduce(const CollectiveCall& call, ConstBytes send,
                                 MutableBytes recv,
                                 const ElementCombiner& combiner);
};

// Chunk k of `elements` split into `parts` nearly equal, contiguous chunks
// (the first elements % parts chunks one longer): {begin, size}.
struct ElementRange {
  int64_t begin = 0;
  int64_t size = 0;
};
ElementRange ChunkOf(int64_t elements, int64_t parts, int64_t k);

}  // namespace mxla

#endif  // MXLA_IR_COMMUNICATOR_H_
