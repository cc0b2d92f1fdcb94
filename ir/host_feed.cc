#include "ir/host_feed.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/shape_summary.h"

namespace mxla {

void HostFeedQueue::PushInfeed(Literal value) {
  absl::MutexLock lock(&mutex_);
  infeed_.push_back(std::move(value));
}

std::vector<Literal> HostFeedQueue::TakeOutfeed() {
  absl::MutexLock lock(&mutex_);
  return std::exchange(outfeed_, {});
}

absl::StatusOr<Literal> HostFeedQueue::Infeed(const Shape& shape) {
  absl::MutexLock lock(&mutex_);
  if (infeed_.empty()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "infeed of ", ShapeSummary(shape),
        ": the host feed has no value left"));
  }
  Literal value = std::move(infeed_.front());
  infeed_.pop_front();
  return value;
}

absl::Status HostFeedQueue::Outfeed(Literal value) {
  absl::MutexLock lock(&mutex_);
  outfeed_.push_back(std::move(value));
  return absl::OkStatus();
}

namespace {

absl::Status NoFeed(absl::string_view op, absl::string_view name) {
  return absl::FailedPreconditionError(
      absl::StrCat(op, " '", name,
                   "': the run has no host feed (RunOptions::host_feed)"));
}

}  // namespace

absl::StatusOr<Literal> ReadInfeed(absl::string_view name, const Shape& data,
                                   HostFeed* feed) {
  if (feed == nullptr) return NoFeed("infeed", name);
  absl::StatusOr<Literal> value = feed->Infeed(data);
  if (!value.ok()) return value.status();
  if (value->shape() != data) {
    return absl::InvalidArgumentError(absl::StrCat(
        "infeed '", name, "': the host feed gave ",
        ShapeSummary(value->shape()), " for data of shape ",
        ShapeSummary(data)));
  }
  return value;
}

absl::Status WriteOutfeed(absl::string_view name, Literal data,
                          HostFeed* feed) {
  if (feed == nullptr) return NoFeed("outfeed", name);
  return feed->Outfeed(std::move(data));
}

}  // namespace mxla
