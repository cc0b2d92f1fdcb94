#include "driver/compile_cache.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "ir/module_fingerprint.h"

namespace mxla {
namespace {

bool Matches(const CompileKey& key, const HloModule& module,
             const std::string& options, uint64_t fingerprint) {
  return fingerprint == key.fingerprint() && options == key.options() &&
         IdenticalModules(module, key.module());
}

}  // namespace

CompileKey::CompileKey(const HloModule& module, std::string options)
    : CompileKey(module, std::move(options), FingerprintModule(module)) {}

CompileKey::CompileKey(const HloModule& module, std::string options,
                       uint64_t fingerprint)
    : module_(&module), options_(std::move(options)),
      fingerprint_(fingerprint) {}

CompileCache& CompileCache::Default() {
  static auto* cache = new CompileCache(256);
  return *cache;
}

CompileCache::EntryList::iterator CompileCache::Find(const CompileKey& key) {
  auto bucket = buckets_.find(key.fingerprint());
  if (bucket == buckets_.end()) return recency_.end();
  for (EntryList::iterator entry : bucket->second) {
    if (Matches(key, *entry->module, entry->options, entry->fingerprint)) {
      return entry;
    }
  }
  return recency_.end();
}

std::shared_ptr<CompileCache::Flight> CompileCache::FindFlight(
    const CompileKey& key) const {
  for (const std::shared_ptr<Flight>& flight : flights_) {
    if (Matches(key, flight->key->module(), flight->key->options(),
                flight->key->fingerprint())) {
      return flight;
    }
  }
  return nullptr;
}

void CompileCache::Unlink(EntryList::iterator entry) {
  auto bucket = buckets_.find(entry->fingerprint);
  std::vector<EntryList::iterator>& list = bucket->second;
  list.erase(std::find(list.begin(), list.end(), entry));
  if (list.empty()) buckets_.erase(bucket);
  recency_.erase(entry);
}

void CompileCache::Store(const CompileKey& key,
                         std::shared_ptr<const Program> program) {
  if (EntryList::iterator entry = Find(key); entry != recency_.end()) {
    entry->program = std::move(program);
    recency_.splice(recency_.begin(), recency_, entry);
    return;
  }
  recency_.push_front(Entry{key.module().Clone(), key.options(),
                            key.fingerprint(), std::move(program)});
  buckets_[key.fingerprint()].push_back(recency_.begin());
  while (static_cast<int64_t>(recency_.size()) > capacity_) {
    Unlink(std::prev(recency_.end()));
  }
}

std::shared_ptr<const CompileCache::Program> CompileCache::Lookup(
    const CompileKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  EntryList::iterator entry = Find(key);
  if (entry == recency_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  recency_.splice(recency_.begin(), recency_, entry);
  return entry->program;
}

void CompileCache::Insert(const CompileKey& key,
                          std::shared_ptr<const Program> program) {
  std::lock_guard<std::mutex> lock(mutex_);
  Store(key, std::move(program));
}

CompileCache::ProgramOrError CompileCache::GetOrCompile(
    const CompileKey& key, absl::FunctionRef<ProgramOrError()> compile) {
  std::shared_ptr<Flight> flight;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (EntryList::iterator entry = Find(key); entry != recency_.end()) {
      ++hits_;
      recency_.splice(recency_.begin(), recency_, entry);
      return entry->program;
    }
    if (std::shared_ptr<Flight> running = FindFlight(key)) {
      ++waits_;
      flight_landed_.wait(lock, [&] { return running->done; });
      return running->outcome;
    }
    ++misses_;
    flight = std::make_shared<Flight>();
    flight->key = &key;
    flights_.push_back(flight);
  }
  ProgramOrError outcome = compile();
  if (outcome.ok() && *outcome == nullptr) {
    outcome = absl::InternalError("a compile returned no program");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (outcome.ok()) Store(key, *outcome);
    flight->outcome = outcome;
    flight->done = true;
    flights_.erase(std::find(flights_.begin(), flights_.end(), flight));
  }
  flight_landed_.notify_all();
  return outcome;
}

void CompileCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  recency_.clear();
  buckets_.clear();
}

CompileCache::Stats CompileCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {hits_, misses_, waits_, static_cast<int64_t>(recency_.size())};
}

}  // namespace mxla
