#include "runtime/run_scratch.h"

#include "absl/strings/str_cat.h"

namespace mxla {

void RunScratchPool::Give(RunScratch* scratch) {
  RunScratch* empty = nullptr;
  if (fast_.compare_exchange_strong(empty, scratch, std::memory_order_acq_rel)) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(scratch);  // within the capacity reserved in Take
}

absl::StatusOr<RunScratchPool::Lease> RunScratchPool::Take() {
  if (RunScratch* scratch = fast_.exchange(nullptr, std::memory_order_acq_rel)) {
    return Lease(this, scratch);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      RunScratch* scratch = idle_.back();
      idle_.pop_back();
      return Lease(this, scratch);
    }
  }
  // Made outside the lock: other runs need not wait for the allocation.
  auto scratch = std::make_unique<RunScratch>();
  if (arena_bytes_ > 0) {
    scratch->arena = AllocateHostBuffer(arena_bytes_);
    if (scratch->arena == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", arena_bytes_, " bytes of temporaries"));
    }
  }
  scratch->pointers.resize(max_pointers_);
  RunScratch* raw = scratch.get();
  std::lock_guard<std::mutex> lock(mutex_);
  all_.push_back(std::move(scratch));
  idle_.reserve(all_.size());
  return Lease(this, raw);
}

}  // namespace mxla
