#include "runtime/in_process_communicator.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"
#include "runtime/streaming_copy.h"

namespace mxla {
namespace {

// An all-reduce block: small enough to stay in the first-level cache while
// every member's elements are combined into it.
constexpr int64_t kReduceBlockBytes = 16 << 10;

// From this many bytes on, all-reduce writes its results with streaming
// stores (the JIT's threshold for its own, ir/fusion_plan_options.h): a
// result this large leaves the cache before its consumer reads it, so
// reading its lines in before overwriting them would only add a third of
// the op's memory traffic (2 devices: read 2 operands, write 2 results).
constexpr int64_t kStreamingMinBytes = int64_t{8} << 20;

absl::Status SizeMismatch(absl::string_view op, absl::string_view what,
                          int64_t rank, size_t got, size_t expected) {
  return absl::InvalidArgumentError(
      absl::StrCat(op, ": member ", rank, " ", what, " ", got,
                   " bytes where ", expected, " were expected"));
}

}  // namespace

InProcessRendezvous::InProcessRendezvous(int64_t device_count,
                                         absl::Duration timeout)
    : device_count_(device_count), timeout_(timeout) {}

void InProcessRendezvous::Abort(const absl::Status& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_.ok()) aborted_ = error;
  changed_.notify_all();
}

absl::Status InProcessRendezvous::WaitFor(std::unique_lock<std::mutex>& lock,
                                          const std::function<bool()>& done,
                                          absl::Time deadline,
                                          const std::string& what) {
  const auto until = absl::ToChronoTime(deadline);
  while (!done()) {
    if (!aborted_.ok()) return aborted_;
    if (changed_.wait_until(lock, until) == std::cv_status::timeout &&
        !done()) {
      if (!aborted_.ok()) return aborted_;
      return absl::DeadlineExceededError(
          absl::StrCat(what, " within ", absl::FormatDuration(timeout_)));
    }
  }
  return aborted_;
}

absl::Status InProcessRendezvous::Meet(
    int64_t sequence, absl::Span<const int64_t> group, int64_t rank,
    Contribution mine,
    const std::function<absl::Status(const std::vector<const Contribution*>&)>&
        work) {
  const std::string op = mine.op;
  const int64_t size = group.size();
  const absl::Time deadline = absl::Now() + timeout_;
  std::vector<const Contribution*> all;
  Call* call;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!aborted_.ok()) return aborted_;
    call = &calls_[{sequence, group[0]}];
    if (call->members.empty()) call->members.resize(size);
    call->members[rank] = std::move(mine);
    ++call->arrived;
    changed_.notify_all();
    absl::Status arrived = WaitFor(
        lock, [&] { return call->arrived == size; }, deadline,
        absl::StrCat(op, ": not every device arrived"));
    if (!arrived.ok() && absl::IsDeadlineExceeded(arrived)) {
      std::vector<int64_t> missing;
      for (int64_t r = 0; r < size; ++r) {
        if (!call->members[r].has_value()) missing.push_back(group[r]);
      }
      return absl::DeadlineExceededError(absl::StrCat(
          op, ": device(s) ", absl::StrJoin(missing, ","),
          " did not reach this collective within ",
          absl::FormatDuration(timeout_)));
    }
    RETURN_IF_ERROR(arrived);
    for (const std::optional<Contribution>& member : call->members) {
      all.push_back(&*member);
    }
  }
  for (int64_t r = 0; r < size; ++r) {
    if (all[r]->op != all[0]->op) {
      return absl::FailedPreconditionError(absl::StrCat(
          "devices diverged: device ", group[0], " is at collective '",
          all[0]->op, "' while device ", group[r], " is at '", all[r]->op,
          "'"));
    }
  }
  absl::Status worked = work(all);
  std::unique_lock<std::mutex> lock(mutex_);
  ++call->finished;
  changed_.notify_all();
  RETURN_IF_ERROR(WaitFor(lock, [&] { return call->finished == size; }, deadline,
                          absl::StrCat(op, ": not every device finished")));
  if (++call->left == size) calls_.erase({sequence, group[0]});
  return worked;
}

absl::Status InProcessCommunicator::AllToAll(
    const CollectiveCall& call, absl::Span<const ConstBytes> send,
    absl::Span<const MutableBytes> recv) {
  Contribution mine{std::string(call.op), {send.begin(), send.end()}, {}};
  const int64_t rank = call.rank;
  return rendezvous_->Meet(
      sequence_++, call.group, rank, std::move(mine),
      [&](const std::vector<const Contribution*>& all) -> absl::Status {
        for (size_t j = 0; j < all.size(); ++j) {
          const ConstBytes from = all[j]->send[rank];
          if (from.size() != recv[j].size()) {
            return SizeMismatch(call.op, "sends", j, from.size(),
                                recv[j].size());
          }
          if (!from.empty()) std::memcpy(recv[j].data(), from.data(), from.size());
        }
        return absl::OkStatus();
      });
}

absl::Status InProcessCommunicator::AllGather(
    const CollectiveCall& call, ConstBytes send,
    absl::Span<const MutableBytes> recv) {
  Contribution mine{std::string(call.op), {send}, {}};
  return rendezvous_->Meet(
      sequence_++, call.group, call.rank, std::move(mine),
      [&](const std::vector<const Contribution*>& all) -> absl::Status {
        for (size_t j = 0; j < all.size(); ++j) {
          const ConstBytes from = all[j]->send[0];
          if (from.size() != recv[j].size()) {
            return SizeMismatch(call.op, "sends", j, from.size(),
                                recv[j].size());
          }
          if (!from.empty()) std::memcpy(recv[j].data(), from.data(), from.size());
        }
        return absl::OkStatus();
      });
}

absl::Status InProcessCommunicator::Permute(absl::string_view op,
                                            ConstBytes send,
                                            absl::Span<const int64_t> targets,
                                            std::optional<int64_t> source,
                                            MutableBytes recv) {
  (void)targets;  // the receiver copies from its source's buffer
  std::vector<int64_t> everyone(device_count());
  for (int64_t d = 0; d < device_count(); ++d) everyone[d] = d;
  Contribution mine{std::string(op), {send}, {}};
  return rendezvous_->Meet(
      sequence_++, everyone, device_id_, std::move(mine),
      [&](const std::vector<const Contribution*>& all) -> absl::Status {
        if (!source.has_value()) return absl::OkStatus();
        const ConstBytes from = all[*source]->send[0];
        if (from.size() != recv.size()) {
          return SizeMismatch(op, "sends", *source, from.size(), recv.size());
        }
        if (!from.empty()) std::memcpy(recv.data(), from.data(), from.size());
        return absl::OkStatus();
      });
}

absl::Status InProcessCommunicator::AllReduce(const CollectiveCall& call,
                                              ConstBytes send,
                                              MutableBytes recv,
                                              const ElementCombiner& combiner) {
  const int64_t width = combiner.element_bytes;
  if (send.size() != recv.size() || send.size() % width != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        call.op, ": all-reduce of ", send.size(), " bytes into ", recv.size(),
        " bytes of ", width, "-byte elements"));
  }
  Contribution mine{std::string(call.op), {send}, {recv}};
  const int64_t members = call.group.size();
  const ElementRange chunk =
      ChunkOf(send.size() / width, members, call.rank);
  return rendezvous_->Meet(
      sequence_++, call.group, call.rank, std::move(mine),
      [&](const std::vector<const Contribution*>& all) -> absl::Status {
        for (size_t j = 0; j < all.size(); ++j) {
          if (all[j]->send[0].size() != send.size()) {
            return SizeMismatch(call.op, "reduces", j, all[j]->send[0].size(),
                                send.size());
          }
        }
        const int64_t block_elements =
            std::max<int64_t>(1, kReduceBlockBytes / width);
        std::vector<char> block(block_elements * width);
        const bool streaming =
            static_cast<int64_t>(send.size()) >= kStreamingMinBytes;
        for (int64_t begin = chunk.begin; begin < chunk.begin + chunk.size;
             begin += block_elements) {
          const int64_t count =
              std::min(block_elements, chunk.begin + chunk.size - begin);
          const int64_t offset = begin * width;
          const int64_t bytes = count * width;
          std::memcpy(block.data(), all[0]->send[0].data() + offset, bytes);
          for (size_t j = 1; j < all.size(); ++j) {
            RETURN_IF_ERROR(combiner.combine(
                block.data(), all[j]->send[0].data() + offset, count));
          }
          for (const Contribution* member : all) {
            char* to = member->recv[0].data() + offset;
            if (streaming) {
              StreamingCopy(to, block.data(), bytes);
            } else {
              std::memcpy(to, block.data(), bytes);
            }
          }
        }
        // Before Meet's barrier tells the members their results are done.
        if (streaming) StreamingCopyFence();
        return absl::OkStatus();
      });
}

}  // namespace mxla
