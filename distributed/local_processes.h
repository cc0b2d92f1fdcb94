// Starts several processes on this machine and waits for them, killing
// those that outlive a deadline: how tests and benchmarks run a
// multi-process run without a launcher (each copy is one or more devices
// that meet through GlooCommunicator's rendezvous).
#ifndef MXLA_DISTRIBUTED_LOCAL_PROCESSES_H_
#define MXLA_DISTRIBUTED_LOCAL_PROCESSES_H_

#include <chrono>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mxla {

// How one process ended.
struct ProcessEnd {
  bool exited = false;  // it returned or called exit
  int exit_code = -1;   // when it exited
  int signal = 0;       // the signal that ended it otherwise
  bool killed_at_deadline = false;
};

// Runs `program` once per entry of `arguments` (argv[1...] of that copy;
// argv[0] is `program`), all at once with this process's environment and
// output, and waits until every copy has ended. Copies still running
// `deadline` after the start are killed (SIGKILL) and reported so.
// Internal when a copy cannot be started (the ones started are killed).
absl::StatusOr<std::vector<ProcessEnd>> RunLocalProcesses(
    const std::string& program,
    const std::vector<std::vector<std::string>>& arguments,
    std::chrono::milliseconds deadline);

}  // namespace mxla

#endif  // MXLA_DISTRIBUTED_LOCAL_PROCESSES_H_
