#include "ir/communicator.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace mxla {

ElementRange ChunkOf(int64_t elements, int64_t parts, int64_t k) {
  const int64_t base = elements / parts;
  const int64_t longer = elements % parts;
  return {k * base + std::min(k, longer), base + (k < longer ? 1 : 0)};
}

absl::Status Communicator::AllReduce(const CollectiveCall& call,
                                     ConstBytes send, MutableBytes recv,
                                     const ElementCombiner& combiner) {
  const int64_t width = combiner.element_bytes;
  if (send.size() != recv.size() || send.size() % width != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        call.op, ": all-reduce of ", send.size(), " bytes into ", recv.size(),
        " bytes of ", width, "-byte elements"));
  }
  const int64_t members = call.group.size();
  const int64_t elements = send.size() / width;
  const ElementRange mine = ChunkOf(elements, members, call.rank);
  // Chunk `rank` of every member, in rank order, then reduced left to right.
  std::vector<char> gathered(mine.size * width * members);
  std::vector<ConstBytes> to_send;
  std::vector<MutableBytes> to_receive;
  for (int64_t k = 0; k < members; ++k) {
    const ElementRange chunk = ChunkOf(elements, members, k);
    to_send.push_back(send.subspan(chunk.begin * width, chunk.size * width));
    to_receive.push_back(MutableBytes(gathered.data() + k * mine.size * width,
                                      mine.size * width));
  }
  if (absl::Status status = AllToAll(call, to_send, to_receive); !status.ok()) {
    return status;
  }
  char* reduced = gathered.data();
  for (int64_t k = 1; k < members; ++k) {
    if (absl::Status status =
            combiner.combine(reduced, to_receive[k].data(), mine.size);
        !status.ok()) {
      return status;
    }
  }
  std::vector<MutableBytes> results;
  for (int64_t k = 0; k < members; ++k) {
    const ElementRange chunk = ChunkOf(elements, members, k);
    results.push_back(recv.subspan(chunk.begin * width, chunk.size * width));
  }
  // Chunks differ in length by one element: gather the longest size and
  // keep each member's own.
  const int64_t longest = ChunkOf(elements, members, 0).size * width;
  std::vector<char> padded(longest);
  std::memcpy(padded.data(), reduced, mine.size * width);
  std::vector<char> all(longest * members);
  std::vector<MutableBytes> slots;
  for (int64_t k = 0; k < members; ++k) {
    slots.push_back(MutableBytes(all.data() + k * longest, longest));
  }
  if (absl::Status status =
          AllGather(call, ConstBytes(padded.data(), longest), slots);
      !status.ok()) {
    return status;
  }
  for (int64_t k = 0; k < members; ++k) {
    std::memcpy(results[k].data(), slots[k].data(), results[k].size());
  }
  return absl::OkStatus();
}

}  // namespace mxla
