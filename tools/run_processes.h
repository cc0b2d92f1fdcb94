// `mxla run --processes N --process-id I --rendezvous DIR`: one process's
// share of a run on R replicas x P partitions whose devices are spread over
// N processes (issue 39). Every process is started with the same module and
// flags but its own --process-id; they meet in DIR (gloo's FileStore, one
// GlooCommunicator per device, distributed/gloo_communicator.h) and each
// runs its devices: process I runs the contiguous block of global device
// ids [I·D/N, (I+1)·D/N) of the run's D devices, each device on a thread of
// its own with its own communicator (so N may be anything from 1 to D).
// Inputs and outputs follow the in-process run's conventions
// (tools/run_devices.h): `-i D:I=PATH` for device D, results printed as
// "device D (replica r, partition p): ..." or written to DIR/device<D>/;
// the results are the bits the in-process run (--replicas without
// --processes) gives.
//
// --collective-timeout bounds the rendezvous and every collective: a device
// that never arrives fails the others' rendezvous with DeadlineExceeded
// naming it, one whose process dies fails them with Unavailable as soon as
// its connections close. Only when mxla is built with gloo; otherwise the
// flags are refused saying so.
#ifndef MXLA_TOOLS_RUN_PROCESSES_H_
#define MXLA_TOOLS_RUN_PROCESSES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "driver/compile_options.h"
#include "ir/hlo_module.h"
#include "tools/run_devices.h"

namespace mxla::tools {

struct ProcessFlags {
  std::optional<int64_t> local_processes;  // --local-processes N
  std::optional<int64_t> processes;        // --processes N
  std::optional<int64_t> process_id;       // --process-id I
  std::optional<std::string> rendezvous;   // --rendezvous DIR
  std::optional<std::string> run_name;     // --run-name NAME
  std::optional<std::string> hostname;     // --hostname ADDRESS
  std::optional<double> timeout_seconds;   // --collective-timeout SECONDS

  // Whether any of the flags was given.
  bool any() const;
};

inline constexpr char kDefaultRunName[] = "mxla-run";
inline constexpr double kDefaultTimeoutSeconds = 60;

// Adds --processes, --local-processes, --process-id, --rendezvous, --run-name,
// --hostname and
// --collective-timeout to `mxla run`.
void AddProcessFlags(CLI::App& run, ProcessFlags& flags);

// `flags` with --processes and --process-id taken, where they are not
// given, from the environment a launcher gives each copy it starts:
// mpirun's (Open MPI: OMPI_COMM_WORLD_SIZE and _RANK; MPICH and others:
// PMI_SIZE and PMI_RANK), so that `mpirun -np N mxla run ... --rendezvous
// DIR` works. Only with --rendezvous. InvalidArgument naming a variable
// that is not a number.
absl::StatusOr<ProcessFlags> WithLauncherEnvironment(ProcessFlags flags);

// The global device ids process `process` of `processes` runs in a run of
// `devices` (processes <= devices): a contiguous block, as even as can be.
std::vector<int64_t> DevicesOfProcess(int64_t process, int64_t processes,
                                      int64_t devices);

// Checks `flags` against a run of `devices` devices: InvalidArgument naming
// the flag for --processes without --rendezvous or --process-id, another
// flag without --processes (or --local-processes), --local-processes with
// --processes, --process-id or --rendezvous, a process id out of range,
// more processes than devices, a timeout that is not positive, or
// `compare` (the other backend's run would need the other processes);
// FailedPrecondition when mxla was built without gloo.
absl::Status CheckProcessFlags(const ProcessFlags& flags, int64_t devices,
                               bool compare);

// Runs this process's share of `module` on options.replicas x
// options.partitions devices (both set; `flags` checked): connects each of
// its devices, runs them, and prints or writes their results. Errors name
// the device and this process.
absl::Status RunProcessShare(const HloModule& module,
                             const CompileOptions& options,
                             const DeviceRunFlags& device_flags,
                             const ProcessFlags& flags);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_RUN_PROCESSES_H_
