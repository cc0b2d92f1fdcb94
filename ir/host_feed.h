// The host side of XLA's infeed and outfeed: what a run's `infeed` reads
// and its `outfeed` writes, in the order the ops run (their tokens order
// them). A caller hands one to a run (RunOptions::host_feed, or
// EvaluatorOptions::host_feed for the interpreter); a module that uses the
// ops and runs without one fails naming the op.
#ifndef MXLA_IR_HOST_FEED_H_
#define MXLA_IR_HOST_FEED_H_

#include <deque>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/string_view.h"
#include "ir/literal.h"

namespace mxla {

class HostFeed {
 public:
  virtual ~HostFeed() = default;
  // The value the next infeed reads. The run checks that it has `shape`,
  // the infeed's data shape.
  virtual absl::StatusOr<Literal> Infeed(const Shape& shape) = 0;
  // Takes the value an outfeed writes.
  virtual absl::Status Outfeed(Literal value) = 0;
};

// A queue of infeed values given in advance, and the outfeed values
// collected, each in order. Thread-safe.
class HostFeedQueue : public HostFeed {
 public:
  void PushInfeed(Literal value);
  // The outfeed values written so far, oldest first; the queue keeps none.
  std::vector<Literal> TakeOutfeed();

  // ResourceExhausted when no value is left (an infeed waits for none).
  absl::StatusOr<Literal> Infeed(const Shape& shape) override;
  absl::Status Outfeed(Literal value) override;

 private:
  absl::Mutex mutex_;
  std::deque<Literal> infeed_ ABSL_GUARDED_BY(mutex_);
  std::vector<Literal> outfeed_ ABSL_GUARDED_BY(mutex_);
};

// What both backends do for the infeed or outfeed named `name`: the next
// value from `feed`, checked against the infeed's data shape, or the data
// handed to it. FailedPrecondition naming the op without a feed;
// InvalidArgument when the fed value has another shape.
absl::StatusOr<Literal> ReadInfeed(absl::string_view name, const Shape& data,
                                   HostFeed* feed);
absl::Status WriteOutfeed(absl::string_view name, Literal data,
                          HostFeed* feed);

}  // namespace mxla

#endif  // MXLA_IR_HOST_FEED_H_
