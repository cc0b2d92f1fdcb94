#include "tools/run_processes.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "ir/run_device.h"
#include "ir/status_macros.h"
#include "runtime/executable.h"
#include "runtime/thread_pool.h"
#include "tools/run_inputs.h"

#ifdef MXLA_HAVE_GLOO
#include "distributed/gloo_communicator.h"
#endif

namespace mxla::tools {
namespace {

#ifdef MXLA_HAVE_GLOO
constexpr bool kHaveGloo = true;
#else
constexpr bool kHaveGloo = false;
#endif

// Where this process meets the others, as the flags give it.
struct Meeting {
  std::string directory;
  std::string run_name;
  std::string hostname;
  std::chrono::milliseconds timeout;
};

Meeting MeetingOf(const ProcessFlags& flags) {
  return {*flags.rendezvous, flags.run_name.value_or(kDefaultRunName),
          flags.hostname.value_or("127.0.0.1"),
          std::chrono::milliseconds(static_cast<int64_t>(
              flags.timeout_seconds.value_or(kDefaultTimeoutSeconds) * 1000))};
}

// Device `d` of `devices` joins the run (blocks until every device has).
absl::StatusOr<std::unique_ptr<Communicator>> Connect(int64_t d,
                                                      int64_t devices,
                                                      const Meeting& meeting) {
#ifdef MXLA_HAVE_GLOO
  ASSIGN_OR_RETURN(
      std::unique_ptr<GlooCommunicator> communicator,
      GlooCommunicator::Connect(d, devices,
                                {meeting.directory, meeting.run_name,
                                 meeting.hostname, meeting.timeout}));
  return std::unique_ptr<Communicator>(std::move(communicator));
#else
  (void)d, (void)devices, (void)meeting;
  return absl::FailedPreconditionError("mxla was built without gloo");
#endif
}

// This process's devices, run at once on threads of their own.
class ProcessShare {
 public:
  ProcessShare(const Executable& executable, const DeviceAssignment& assignment,
               const ProcessFlags& flags, std::vector<int64_t> devices)
      : executable_(executable),
        assignment_(assignment),
        flags_(flags),
        meeting_(MeetingOf(flags)),
        devices_(std::move(devices)),
        results_(devices_.size()) {}

  // Runs every device on its inputs (in the order of `devices`); the first
  // error, in time, names its device and this process.
  absl::StatusOr<std::vector<Literal>> Run(
      const std::vector<std::vector<Literal>>& inputs) {
    const int local = static_cast<int>(devices_.size());
    // The kernels' threads are shared among this process's devices, as
    // RunReplicated shares them among all.
    threads_ = std::max(1, ThreadPool::Default().threads() / local);
    std::vector<std::thread> workers;
    for (int i = 1; i < local; ++i) {
      workers.emplace_back([this, &inputs, i] { RunOne(i, inputs[i]); });
    }
    RunOne(0, inputs[0]);
    for (std::thread& worker : workers) worker.join();
    RETURN_IF_ERROR(first_error_);
    return std::move(results_);
  }

 private:
  void RunOne(int i, const std::vector<Literal>& inputs) {
    const int64_t d = devices_[i];
    absl::StatusOr<std::unique_ptr<Communicator>> communicator =
        Connect(d, assignment_.device_count(), meeting_);
    if (!communicator.ok()) {
      Failed(d, communicator.status(), /*connecting=*/true);
      return;
    }
    const DeviceCoordinates at = assignment_.CoordinatesOf(d);
    const RunDevice place{at.replica, at.partition, &assignment_,
                          communicator->get()};
    RunOptions options;
    options.threads = threads_;
    options.device = &place;
    std::vector<const Literal*> arguments;
    for (const Literal& input : inputs) arguments.push_back(&input);
    absl::StatusOr<Literal> result = executable_.Run(arguments, options);
    if (result.ok()) {
      results_[i] = *std::move(result);
      return;
    }
    // A failed device's connections close at once, so that its peers
    // fail now rather than at their timeout.
    communicator->reset();
    Failed(d, result.status(), /*connecting=*/false);
  }

  // Keeps the first error, naming the device and this process.
  void Failed(int64_t d, const absl::Status& error, bool connecting) {
    std::string hint;
    if (connecting && error.code() == absl::StatusCode::kDeadlineExceeded) {
      hint = absl::StrCat("; were all ", *flags_.processes,
                          " processes started, with the same --rendezvous, "
                          "--run-name, --replicas and --partitions?");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!first_error_.ok()) return;
    first_error_ = absl::Status(
        error.code(),
        absl::StrCat("device ", d, " (process ", *flags_.process_id, " of ",
                     *flags_.processes, "): ", error.message(), hint));
  }

  const Executable& executable_;
  const DeviceAssignment& assignment_;
  const ProcessFlags& flags_;
  const Meeting meeting_;
  const std::vector<int64_t> devices_;
  int threads_ = 1;
  std::vector<Literal> results_;
  std::mutex mutex_;
  absl::Status first_error_;
};

}  // namespace

bool ProcessFlags::any() const {
  return local_processes.has_value() || processes.has_value() ||
         process_id.has_value() || rendezvous.has_value() ||
         run_name.has_value() || hostname.has_value() ||
         timeout_seconds.has_value();
}

void AddProcessFlags(CLI::App& run, ProcessFlags& flags) {
  run.footer(
      "Devices over processes (mxla built with gloo), all in one command or "
      "one process each:\n"
      "  mxla run m.hlo --replicas 4 -i x=x.npy -o out/ --local-processes 2\n"
      "  mxla run m.hlo --replicas 4 -i x=x.npy -o out/ --processes 2 "
      "--process-id I --rendezvous /tmp/meet\n"
      "(the second once for each I in 0, 1; out/device<D>/ then holds what "
      "the in-process run writes)");
  run.add_option("--processes", flags.processes,
                 "Spread the run's devices over N processes (over gloo; "
                 "only when mxla is built with gloo): start N copies of the "
                 "same command, each with its own --process-id, and they "
                 "meet in --rendezvous DIR. Process I runs devices "
                 "[I*D/N, (I+1)*D/N) of the D devices, each on a thread of "
                 "its own; results equal the in-process run's")
      ->check(CLI::Range(1, 4096));
  run.add_option("--local-processes", flags.local_processes,
                 "Run as N processes on this machine: mxla starts N copies "
                 "of this command with --processes N, its own --process-id "
                 "and a fresh --rendezvous directory, and fails if any copy "
                 "fails")
      ->check(CLI::Range(1, 4096));
  run.add_option("--process-id", flags.process_id,
                 "This process's place among --processes (0 to N-1). "
                 "Started by mpirun (with --rendezvous), both default to "
                 "MPI's rank and size (OMPI_COMM_WORLD_RANK and _SIZE, or "
                 "PMI_RANK and PMI_SIZE)");
  run.add_option("--rendezvous", flags.rendezvous,
                 "The directory where the processes meet (gloo's FileStore; "
                 "made if missing; across machines, a shared filesystem). "
                 "A run name serves one run: use a fresh directory or "
                 "--run-name for the next");
  run.add_option("--run-name", flags.run_name,
                 absl::StrCat("The run's name in the --rendezvous directory "
                              "(default: ",
                              kDefaultRunName, ")"));
  run.add_option("--hostname", flags.hostname,
                 "The address this process's devices listen on for the "
                 "others (default: 127.0.0.1, loopback)");
  run.add_option("--collective-timeout", flags.timeout_seconds,
                 absl::StrCat("Seconds the rendezvous and each collective "
                              "wait for the other processes' devices before "
                              "the run fails naming the missing device "
                              "(default: ",
                              kDefaultTimeoutSeconds, ")"));
}

absl::StatusOr<ProcessFlags> WithLauncherEnvironment(ProcessFlags flags) {
  if (!flags.rendezvous.has_value()) return flags;
  struct Variable {
    const char* name;
    std::optional<int64_t>* flag;
  };
  const Variable variables[] = {{"OMPI_COMM_WORLD_SIZE", &flags.processes},
                                {"OMPI_COMM_WORLD_RANK", &flags.process_id},
                                {"PMI_SIZE", &flags.processes},
                                {"PMI_RANK", &flags.process_id}};
  for (const Variable& variable : variables) {
    const char* value = std::getenv(variable.name);
    if (value == nullptr || variable.flag->has_value()) continue;
    int64_t number = 0;
    if (!absl::SimpleAtoi(value, &number)) {
      return absl::InvalidArgumentError(absl::StrCat(
          variable.name, "='", value, "' (from the launcher, for ",
          variable.flag == &flags.processes ? "--processes" : "--process-id",
          ") is not a number"));
    }
    *variable.flag = number;
  }
  return flags;
}

std::vector<int64_t> DevicesOfProcess(int64_t process, int64_t processes,
                                      int64_t devices) {
  std::vector<int64_t> mine;
  for (int64_t d = process * devices / processes;
       d < (process + 1) * devices / processes; ++d) {
    mine.push_back(d);
  }
  return mine;
}

namespace {

// Flags without --processes or --local-processes: none of the others.
absl::Status CheckNoProcessFlags(const ProcessFlags& flags) {
  const std::pair<bool, const char*> needing[] = {
      {flags.process_id.has_value(), "--process-id"},
      {flags.rendezvous.has_value(), "--rendezvous"},
      {flags.run_name.has_value(), "--run-name"},
      {flags.hostname.has_value(), "--hostname"},
      {flags.timeout_seconds.has_value(), "--collective-timeout"}};
  for (const auto& [given, flag] : needing) {
    if (given) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag,
                       " is for a run over processes: pass --processes N, "
                       "--process-id I and --rendezvous DIR with it"));
    }
  }
  return absl::OkStatus();
}

// --processes: its company.
absl::Status CheckProcessesFlags(const ProcessFlags& flags) {
  const int64_t processes = *flags.processes;
  if (!flags.rendezvous.has_value() || flags.rendezvous->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--processes ", processes,
        ": a run over processes needs "
        "--rendezvous DIR, the directory where the processes meet"));
  }
  if (!flags.process_id.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--processes ", processes, ": pass --process-id I (0 to ",
                     processes - 1, "), this process's place in the run"));
  }
  if (*flags.process_id < 0 || *flags.process_id >= processes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--process-id ", *flags.process_id, " is not one of the ",
                     processes, " processes (0 to ", processes - 1, ")"));
  }
  return absl::OkStatus();
}

// --local-processes: the flags its copies get are not given.
absl::Status CheckLocalProcessesFlags(const ProcessFlags& flags) {
  const std::pair<bool, const char*> own[] = {
      {flags.processes.has_value(), "--processes"},
      {flags.process_id.has_value(), "--process-id"},
      {flags.rendezvous.has_value(), "--rendezvous"}};
  for (const auto& [given, flag] : own) {
    if (given) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--local-processes ", *flags.local_processes, " with ", flag,
          ": the copies get their own --processes, --process-id and "
          "--rendezvous; drop ",
          flag));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckProcessFlags(const ProcessFlags& flags, int64_t devices,
                               bool compare) {
  const char* flag =
      flags.local_processes.has_value() ? "--local-processes" : "--processes";
  const std::optional<int64_t> count = flags.local_processes.has_value()
                                           ? flags.local_processes
                                           : flags.processes;
  if (!count.has_value()) return CheckNoProcessFlags(flags);
  if (!kHaveGloo) {
    return absl::FailedPreconditionError(absl::StrCat(
        flag,
        ": mxla was built without gloo (Debian: libgloo-dev), so it "
        "cannot run devices in other processes; rebuild with gloo, or drop ",
        flag, " to run every device in this process"));
  }
  RETURN_IF_ERROR(flags.local_processes.has_value()
                      ? CheckLocalProcessesFlags(flags)
                      : CheckProcessesFlags(flags));
  if (*count > devices) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", *count, ": the run has ", devices, " device",
                     devices == 1 ? "" : "s",
                     ", and each process runs at least one: "
                     "pass at most ",
                     devices, " processes, or more --replicas"));
  }
  // At most a million seconds (11 days), so that it fits in the
  // milliseconds gloo counts.
  if (flags.timeout_seconds.has_value() &&
      !(*flags.timeout_seconds >= 0.001 && *flags.timeout_seconds <= 1e6)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--collective-timeout ", *flags.timeout_seconds,
        ": the timeout must be a positive number of seconds, from 0.001 to "
        "1000000"));
  }
  if (compare) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--compare: a run over processes is compared with nothing (the "
        "other backend would need the other processes too): compare the "
        "in-process run (--replicas without ",
        flag, ")"));
  }
  return absl::OkStatus();
}

absl::Status RunProcessShare(const HloModule& module,
                             const CompileOptions& options,
                             const DeviceRunFlags& device_flags,
                             const ProcessFlags& flags) {
  const DeviceAssignment assignment =
      DeviceAssignment::Default(*options.replicas, *options.partitions);
  const int64_t devices = assignment.device_count();
  RETURN_IF_ERROR(CheckDevicesOutput(device_flags.output, devices));
  const std::vector<int64_t> mine =
      DevicesOfProcess(*flags.process_id, *flags.processes, devices);
  ASSIGN_OR_RETURN(
      std::vector<std::vector<Literal>> inputs,
      LoadDeviceInputs(module, device_flags.bindings, devices, mine));
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(module, options));
  // Each process may be the first to arrive: the directory is made if it
  // is not there yet.
  std::error_code ignored;
  std::filesystem::create_directories(*flags.rendezvous, ignored);
  ProcessShare share(*executable, assignment, flags, mine);
  ASSIGN_OR_RETURN(std::vector<Literal> results, share.Run(inputs));
  for (size_t i = 0; i < mine.size(); ++i) {
    RETURN_IF_ERROR(
        ReportDeviceResult(device_flags, assignment, mine[i], results[i]));
  }
  return absl::OkStatus();
}

}  // namespace mxla::tools
