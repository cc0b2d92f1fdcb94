// The per-run memory of one JitExecutable: the arena of temporaries and the
// table of buffer pointers a kernel is called with. A run leases one and
// gives it back, so a warm executable's runs allocate nothing (a RunBuffers
// on preallocated buffers makes no heap call at all).
//
// The pool keeps every scratch it has made until it is destroyed: as many
// as the most runs that were ever in flight at once, each arena_bytes plus
// the table. Thread-safe.
#ifndef MXLA_RUNTIME_RUN_SCRATCH_H_
#define MXLA_RUNTIME_RUN_SCRATCH_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/host_buffer.h"

namespace mxla {

struct RunScratch {
  HostBuffer arena;             // null when arena_bytes is 0
  std::vector<void*> pointers;  // sized to the largest kernel's table
};

class RunScratchPool {
 public:
  RunScratchPool(int64_t arena_bytes, int64_t max_pointers)
      : arena_bytes_(arena_bytes), max_pointers_(max_pointers) {}
  RunScratchPool(const RunScratchPool&) = delete;
  RunScratchPool& operator=(const RunScratchPool&) = delete;

  // Gives the scratch back to the pool when it goes out of scope.
  class Lease {
   public:
    Lease(RunScratchPool* pool, RunScratch* scratch)
        : pool_(pool), scratch_(scratch) {}
    Lease(Lease&& other)
        : pool_(other.pool_), scratch_(std::exchange(other.scratch_, nullptr)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (scratch_ != nullptr) pool_->Give(scratch_);
    }
    RunScratch& operator*() const { return *scratch_; }
    RunScratch* operator->() const { return scratch_; }

   private:
    RunScratchPool* pool_;
    RunScratch* scratch_;
  };

  int64_t max_pointers() const { return max_pointers_; }

  // An idle scratch, or a new one; ResourceExhausted if its arena cannot be
  // allocated.
  absl::StatusOr<Lease> Take();

 private:
  void Give(RunScratch* scratch);

  const int64_t arena_bytes_;
  const int64_t max_pointers_;
  // One idle scratch that a run takes and gives back without the lock: the
  // common case of one caller at a time costs two atomic operations.
  std::atomic<RunScratch*> fast_{nullptr};
  std::mutex mutex_;
  std::vector<std::unique_ptr<RunScratch>> all_;  // owns every scratch
  // The other idle ones. Its capacity is all_.size(), so giving a scratch
  // back never allocates.
  std::vector<RunScratch*> idle_;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_RUN_SCRATCH_H_
