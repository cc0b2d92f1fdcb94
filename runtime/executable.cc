#include "runtime/executable.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"
#include "runtime/host_buffer.h"
#include "runtime/in_process_communicator.h"
#include "runtime/machine_limits.h"
#include "runtime/memory_limit.h"
#include "runtime/profile.h"
#include "runtime/thread_pool.h"

namespace mxla {
namespace {

absl::StatusOr<ThreadPool*> ResolvePool(const RunOptions& options) {
  if (options.thread_pool != nullptr) return options.thread_pool;
  RETURN_IF_ERROR(ThreadPool::DefaultStatus());
  return &ThreadPool::Default();
}

}  // namespace

template <typename Result, typename Fn>
Result Executable::Profiled(const RunOptions& options, RunContext& context,
                            Fn run) {
  std::optional<RunProfile> own;
  RunProfile* profile = options.profile_sink;
  if (profile == nullptr) profile = &own.emplace();
  context.profile = profile;
  std::optional<Result> result;
  {
    RunProfile::RunScope scope(*profile, context.threads);
    result.emplace(run());
  }
  if (own.has_value() && result->ok()) {
    std::cerr << own->Format(MachineLimitsFor(*context.pool, context.threads));
  }
  return *std::move(result);
}

absl::StatusOr<Literal> Executable::Run(
    absl::Span<const Literal* const> arguments,
    const RunOptions& options) const {
  ASSIGN_OR_RETURN(RunContext threads, ResolveOptions(options));
  if (!options.profile) return DoRun(arguments, threads);
  return Profiled<absl::StatusOr<Literal>>(
      options, threads, [&] { return DoRun(arguments, threads); });
}

absl::Status Executable::RunBuffers(absl::Span<const void* const> arguments,
                                    absl::Span<void* const> results,
                                    const RunOptions& options) const {
  ASSIGN_OR_RETURN(RunContext threads, ResolveOptions(options));
  if (!options.profile) return DoRunBuffers(arguments, results, threads);
  return Profiled<absl::Status>(options, threads, [&] {
    return DoRunBuffers(arguments, results, threads);
  });
}

absl::StatusOr<Executable::RunContext> Executable::ResolveOptions(
    const RunOptions& options) {
  if (options.threads.has_value()) {
    RETURN_IF_ERROR(CheckThreadCount(*options.threads, "RunOptions::threads"));
  }
  ASSIGN_OR_RETURN(ThreadPool * pool, ResolvePool(options));
  int threads = std::min(options.threads.value_or(pool->threads()),
                         pool->threads());
  const BufferAllocator* allocator = options.allocator != nullptr
                                         ? options.allocator
                                         : &PooledHostAllocator();
  return RunContext{pool, threads, allocator,
                    MemoryLimitOr(options.memory_limit_bytes),
                    options.max_loop_trips.value_or(-1), options.host_feed,
                    /*profile=*/nullptr, options.device};
}

absl::Status Executable::DoRunBuffers(absl::Span<const void* const> arguments,
                                      absl::Span<void* const> results,
                                      const RunContext& threads) const {
  const HloComputation& entry = *module().entry_computation();
  int64_t argument_count = CountArgumentLeaves(entry);
  if (static_cast<int64_t>(arguments.size()) != argument_count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", argument_count,
        " argument buffers (one per array leaf of the parameters), got ",
        arguments.size()));
  }
  std::vector<Literal> literals;
  std::vector<const Literal*> pointers;
  literals.reserve(entry.num_parameters());
  size_t next = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    ASSIGN_OR_RETURN(
        Literal literal,
        Literal::CreateForOverwrite(entry.parameter_instruction(i)->shape(),
                                    *threads.allocator));
    literals.push_back(std::move(literal));
    std::vector<Literal*> leaves;
    CollectArrayLeaves(literals.back(), leaves);
    for (Literal* leaf : leaves) {
      std::memcpy(leaf->untyped_data(), arguments[next++], leaf->size_bytes());
    }
  }
  for (const Literal& literal : literals) pointers.push_back(&literal);
  ASSIGN_OR_RETURN(Literal result, DoRun(pointers, threads));
  std::vector<Literal*> leaves;
  CollectArrayLeaves(result, leaves);
  if (leaves.size() != results.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", leaves.size(), " result buffers, got ", results.size()));
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::memcpy(results[i], leaves[i]->untyped_data(), leaves[i]->size_bytes());
  }
  return absl::OkStatus();
}

absl::Status Executable::RunBuffers(
    absl::Span<const void* const> arguments,
    absl::Span<const int64_t> argument_sizes, absl::Span<void* const> results,
    absl::Span<const int64_t> result_sizes, const RunOptions& options) const {
  RETURN_IF_ERROR(CheckSizedBuffers(*module().entry_computation(), arguments,
                                    argument_sizes, results, result_sizes));
  return RunBuffers(arguments, results, options);
}

int ThreadsPerDevice(int threads, int64_t devices) {
  return static_cast<int>(std::max<int64_t>(1, threads / devices));
}

namespace {

// Which device's error a failed replicated run reports: the lowest-numbered
// device that failed on its own, rather than by the abort that the first
// failure (`first_error`, in time) sent the others, so that devices that
// fail alike at one op report the same error from run to run.
absl::Status OwnErrorOfFirstDevice(const std::vector<absl::Status>& results,
                                   const absl::Status& first_error) {
  if (first_error.ok()) return first_error;
  for (size_t d = 0; d < results.size(); ++d) {
    const absl::Status& status = results[d];
    if (status.ok() ||
        absl::StrContains(status.message(), first_error.message())) {
      continue;
    }
    return absl::Status(status.code(),
                        absl::StrCat("device ", d, ": ", status.message()));
  }
  return first_error;
}

}  // namespace

absl::Status Executable::RunEachDevice(
    const DeviceAssignment& assignment, const RunOptions& options,
    absl::FunctionRef<absl::Status(int64_t, const RunOptions&)> run) const {
  const int64_t devices = assignment.device_count();
  ASSIGN_OR_RETURN(ThreadPool * pool, ResolvePool(options));
  RETURN_IF_ERROR(ResolveOptions(options).status());
  const int threads =
      std::min(options.threads.value_or(pool->threads()), pool->threads());
  const int per_device = ThreadsPerDevice(threads, devices);
  auto rendezvous = std::make_shared<InProcessRendezvous>(
      devices, options.collective_timeout);
  std::vector<std::unique_ptr<InProcessCommunicator>> communicators;
  std::vector<RunDevice> places(devices);
  for (int64_t d = 0; d < devices; ++d) {
    communicators.push_back(
        std::make_unique<InProcessCommunicator>(rendezvous, d));
    const DeviceCoordinates at = assignment.CoordinatesOf(d);
    places[d] = {at.replica, at.partition, &assignment,
                 communicators.back().get()};
  }
  std::vector<absl::Status> results(devices,
                                    absl::InternalError("device did not run"));
  std::mutex first_mutex;  // std: visible to ThreadSanitizer
  absl::Status first_error;
  auto run_device = [&](int64_t d) {
    RunOptions mine = options;
    mine.thread_pool = pool;
    mine.threads = per_device;
    mine.device = &places[d];
    results[d] = run(d, mine);
    if (!results[d].ok()) {
      const absl::Status error(
          results[d].code(),
          absl::StrCat("device ", d, ": ", results[d].message()));
      {
        std::lock_guard<std::mutex> lock(first_mutex);
        if (first_error.ok()) first_error = error;
      }
      rendezvous->Abort(error);
    }
  };
  std::vector<std::thread> workers;
  for (int64_t d = 1; d < devices; ++d) workers.emplace_back(run_device, d);
  run_device(0);
  for (std::thread& worker : workers) worker.join();
  return OwnErrorOfFirstDevice(results, first_error);
}

absl::StatusOr<std::vector<Literal>> Executable::RunReplicated(
    absl::Span<const std::vector<const Literal*>> arguments,
    const DeviceAssignment& assignment, const RunOptions& options) const {
  const int64_t devices = assignment.device_count();
  if (options.device != nullptr) {
    return absl::InvalidArgumentError(
        "RunReplicated: RunOptions::device must be null (each device's is "
        "made by the call)");
  }
  if (static_cast<int64_t>(arguments.size()) != devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RunReplicated: ", arguments.size(), " argument lists for ", devices,
        " devices (", assignment.replica_count(), " replicas x ",
        assignment.partition_count(), " partitions)"));
  }
  std::vector<Literal> values(devices);
  RETURN_IF_ERROR(RunEachDevice(
      assignment, options, [&](int64_t d, const RunOptions& mine) {
        absl::StatusOr<Literal> result = Run(arguments[d], mine);
        if (!result.ok()) return result.status();
        values[d] = *std::move(result);
        return absl::OkStatus();
      }));
  return values;
}

absl::Status Executable::RunReplicatedBuffers(
    absl::Span<const DeviceBuffers> devices,
    const DeviceAssignment& assignment, const RunOptions& options) const {
  if (options.device != nullptr) {
    return absl::InvalidArgumentError(
        "RunReplicatedBuffers: RunOptions::device must be null (each "
        "device's is made by the call)");
  }
  if (static_cast<int64_t>(devices.size()) != assignment.device_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RunReplicatedBuffers: ", devices.size(), " buffer lists for ",
        assignment.device_count(), " devices (", assignment.replica_count(),
        " replicas x ", assignment.partition_count(), " partitions)"));
  }
  // Every device's buffers are checked before any device runs, so that a
  // mistake in one never leaves the others waiting at a collective.
  for (size_t d = 0; d < devices.size(); ++d) {
    const DeviceBuffers& mine = devices[d];
    absl::Status checked = CheckSizedBuffers(
        *module().entry_computation(), mine.arguments, mine.argument_sizes,
        mine.results, mine.result_sizes);
    if (!checked.ok()) {
      return absl::Status(checked.code(), absl::StrCat("device ", d, ": ",
                                                       checked.message()));
    }
  }
  return RunEachDevice(assignment, options,
                       [&](int64_t d, const RunOptions& mine) {
                         return RunBuffers(devices[d].arguments,
                                           devices[d].results, mine);
                       });
}

}  // namespace mxla
