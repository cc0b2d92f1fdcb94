#include "runtime/compile_cache.h"

namespace mxla {

CompileCache& CompileCache::Default() {
  static auto* cache = new CompileCache(256);
  return *cache;
}

std::shared_ptr<const CompileCache::Program> CompileCache::Lookup(
    const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  recency_.splice(recency_.begin(), recency_, it->second.recency);
  return it->second.program;
}

void CompileCache::Insert(const std::string& key,
                          std::shared_ptr<const Program> program) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = entries_.find(key); it != entries_.end()) {
    it->second.program = std::move(program);
    recency_.splice(recency_.begin(), recency_, it->second.recency);
    return;
  }
  recency_.push_front(key);
  entries_[key] = Entry{std::move(program), recency_.begin()};
  while (static_cast<int64_t>(entries_.size()) > capacity_) {
    entries_.erase(recency_.back());
    recency_.pop_back();
  }
}

void CompileCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
  recency_.clear();
}

CompileCache::Stats CompileCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {hits_, misses_, static_cast<int64_t>(entries_.size())};
}

}  // namespace mxla
