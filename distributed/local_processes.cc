#include "distributed/local_processes.h"

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

namespace mxla {
namespace {

void KillAll(const std::vector<pid_t>& pids, std::vector<ProcessEnd>& ends,
             const std::vector<bool>& done) {
  for (size_t i = 0; i < pids.size(); ++i) {
    if (done[i]) continue;
    kill(pids[i], SIGKILL);
    int status = 0;
    while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR) {
    }
    ends[i].signal = SIGKILL;
    ends[i].killed_at_deadline = true;
  }
}

}  // namespace

absl::StatusOr<std::vector<ProcessEnd>> RunLocalProcesses(
    const std::string& program,
    const std::vector<std::vector<std::string>>& arguments,
    std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  std::vector<pid_t> pids;
  std::vector<ProcessEnd> ends(arguments.size());
  std::vector<bool> done(arguments.size());
  for (const std::vector<std::string>& args : arguments) {
    // argv is built before fork: the child of a threaded parent may only
    // call async-signal-safe functions until it execs.
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const std::string& arg : args) {
      argv.push_back(const_cast<char*>(arg.c_str()));
    }
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      execv(program.c_str(), argv.data());
      _exit(127);
    }
    if (pid < 0) {
      const int error = errno;
      std::vector<bool> started(pids.size());
      KillAll(pids, ends, started);
      return absl::InternalError(absl::StrCat(
          "cannot start ", program, ": fork: ", std::strerror(error)));
    }
    pids.push_back(pid);
  }
  size_t remaining = pids.size();
  while (remaining > 0) {
    for (size_t i = 0; i < pids.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      const pid_t got = waitpid(pids[i], &status, WNOHANG);
      if (got != pids[i]) continue;
      done[i] = true;
      --remaining;
      if (WIFEXITED(status)) {
        ends[i].exited = true;
        ends[i].exit_code = WEXITSTATUS(status);
      } else if (WIFSIGNALED(status)) {
        ends[i].signal = WTERMSIG(status);
      }
    }
    if (remaining == 0) break;
    if (std::chrono::steady_clock::now() >= end) {
      KillAll(pids, ends, done);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return ends;
}

}  // namespace mxla
