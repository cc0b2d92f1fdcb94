// The rendezvous' key-value store: gloo's FileStore (a directory every
// process can read and write) whose waits keep one timeout to the
// millisecond, where gloo's own get waits its default 30 s and its wait
// counts whole seconds, and which remembers the keys a wait that timed out
// was missing, so that the rendezvous can name the devices that did not
// arrive. Internal to distributed/.
#ifndef MXLA_DISTRIBUTED_GLOO_STORE_H_
#define MXLA_DISTRIBUTED_GLOO_STORE_H_

#include <chrono>
#include <string>
#include <vector>

#include "gloo/rendezvous/file_store.h"

namespace mxla {

class TimedFileStore : public ::gloo::rendezvous::FileStore {
 public:
  // `directory` must exist (gloo throws otherwise).
  TimedFileStore(const std::string& directory,
                 std::chrono::milliseconds timeout)
      : FileStore(directory), timeout_(timeout) {}

  // Both wait until every key is set, or throw ::gloo::IoException after
  // the store's timeout (the first) or `timeout`, whichever is shorter.
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The keys the last wait that timed out was missing (empty before).
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  const std::chrono::milliseconds timeout_;
  std::vector<std::string> missing_;
};

}  // namespace mxla

#endif  // MXLA_DISTRIBUTED_GLOO_STORE_H_
