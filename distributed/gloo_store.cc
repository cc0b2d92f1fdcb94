#include "distributed/gloo_store.h"

#include <algorithm>
#include <thread>

#include "gloo/common/error.h"

namespace mxla {

void TimedFileStore::wait(const std::vector<std::string>& keys) {
  wait(keys, timeout_);
}

void TimedFileStore::wait(const std::vector<std::string>& keys,
                          const std::chrono::milliseconds& timeout) {
  const auto limit = std::min(timeout, timeout_);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  // Polled, as gloo's FileStore does: inotify does not work on the shared
  // filesystems (NFS) a store directory may live on.
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      missing_.clear();
      for (const std::string& key : keys) {
        if (!check({key})) missing_.push_back(key);
      }
      throw ::gloo::IoException("rendezvous: timed out after " +
                                std::to_string(limit.count()) +
                                " ms waiting for a key");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace mxla
