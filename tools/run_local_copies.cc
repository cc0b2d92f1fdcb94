#include "tools/run_local_copies.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/status_macros.h"

#ifdef MXLA_HAVE_GLOO
#include "distributed/local_processes.h"
#endif

namespace mxla::tools {
#ifdef MXLA_HAVE_GLOO
namespace {

// This process's arguments (argv[1...]) without --local-processes and its
// value.
absl::StatusOr<std::vector<std::string>> OwnArgumentsWithoutCopies() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  if (text.empty()) {
    return absl::InternalError(
        "--local-processes: cannot read this process's command line from "
        "/proc/self/cmdline");
  }
  std::vector<std::string> all = absl::StrSplit(text, '\0');
  if (!all.empty() && all.back().empty()) all.pop_back();
  std::vector<std::string> kept;
  for (size_t i = 1; i < all.size(); ++i) {
    if (all[i] == "--local-processes") {
      ++i;  // and its value
    } else if (!absl::StartsWith(all[i], "--local-processes=")) {
      kept.push_back(all[i]);
    }
  }
  return kept;
}

// What each copy that failed did, or "" when all exited 0.
template <typename Ends>
std::string Failures(const Ends& ends) {
  std::vector<std::string> failed;
  for (size_t i = 0; i < ends.size(); ++i) {
    if (ends[i].exited && ends[i].exit_code == 0) continue;
    failed.push_back(
        ends[i].exited
            ? absl::StrCat("process ", i, " exited with ", ends[i].exit_code)
            : absl::StrCat("process ", i, " was ended by signal ",
                           ends[i].signal));
  }
  return absl::StrJoin(failed, ", ");
}

}  // namespace
#endif

absl::Status RunLocalCopies(int64_t copies) {
#ifdef MXLA_HAVE_GLOO
  ASSIGN_OR_RETURN(const std::vector<std::string> own,
                   OwnArgumentsWithoutCopies());
  std::string pattern =
      (std::filesystem::temp_directory_path() / "mxla_run_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat(
        "--local-processes: cannot make a rendezvous directory ", pattern));
  }
  std::vector<std::vector<std::string>> arguments;
  for (int64_t i = 0; i < copies; ++i) {
    arguments.push_back(own);
    arguments.back().insert(
        arguments.back().end(),
        {"--processes", absl::StrCat(copies), "--process-id", absl::StrCat(i),
         "--rendezvous", pattern});
  }
  // The copies end by themselves (every wait is bounded by the collective
  // timeout); the deadline only stops a computation that never ends.
  absl::StatusOr<std::vector<ProcessEnd>> ends =
      RunLocalProcesses("/proc/self/exe", arguments, std::chrono::hours(24));
  std::error_code ignored;
  std::filesystem::remove_all(pattern, ignored);
  if (!ends.ok()) return ends.status();
  const std::string failures = Failures(*ends);
  if (!failures.empty()) {
    return absl::AbortedError(absl::StrCat("--local-processes ", copies, ": ",
                                           failures,
                                           " (their errors are above)"));
  }
  return absl::OkStatus();
#else
  (void)copies;
  return absl::FailedPreconditionError(
      "--local-processes: mxla was built without gloo (Debian: "
      "libgloo-dev), so it cannot run devices in other processes; rebuild "
      "with gloo, or drop --local-processes to run every device in this "
      "process");
#endif
}

}  // namespace mxla::tools
