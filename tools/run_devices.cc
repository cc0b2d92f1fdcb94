#include "tools/run_devices.h"

#include <iostream>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "driver/compile.h"
#include "ir/status_macros.h"
#include "runtime/thread_pool.h"
#include "tools/compare_results.h"
#include "tools/run_inputs.h"

namespace mxla::tools {
namespace {

// "D:I=PATH" as (D, "I=PATH"); a shared binding as (-1, itself).
absl::StatusOr<std::pair<int64_t, std::string>> SplitDevice(
    const std::string& binding, int64_t devices) {
  if (!NamesDevice(binding)) return std::make_pair(int64_t{-1}, binding);
  const size_t colon = binding.find(':');
  int64_t device = -1;
  if (!absl::SimpleAtoi(binding.substr(0, colon), &device) || device < 0 ||
      device >= devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input ", binding, ": device ", binding.substr(0, colon),
        " is not one of the run's ", devices, " devices (0 to ", devices - 1,
        ")"));
  }
  return std::make_pair(device, binding.substr(colon + 1));
}

// Each device's bindings: the shared ones, except where the device has its
// own for the same parameter.
absl::StatusOr<std::vector<std::vector<std::string>>> BindingsPerDevice(
    const std::vector<std::string>& bindings, int64_t devices) {
  std::vector<std::string> shared;
  std::vector<std::map<std::string, std::string>> own(devices);
  for (const std::string& binding : bindings) {
    ASSIGN_OR_RETURN(auto split, SplitDevice(binding, devices));
    if (split.first < 0) {
      shared.push_back(binding);
    } else {
      const std::string key = split.second.substr(0, split.second.find('='));
      own[split.first][key] = split.second;
    }
  }
  std::vector<std::vector<std::string>> per_device(devices);
  for (int64_t d = 0; d < devices; ++d) {
    for (const std::string& binding : shared) {
      if (!own[d].contains(binding.substr(0, binding.find('=')))) {
        per_device[d].push_back(binding);
      }
    }
    for (const auto& [key, binding] : own[d]) per_device[d].push_back(binding);
  }
  return per_device;
}

absl::StatusOr<std::vector<Literal>> RunOn(
    const HloModule& module, const CompileOptions& options,
    const std::vector<std::vector<Literal>>& inputs,
    const DeviceAssignment& assignment) {
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(module, options));
  std::vector<std::vector<const Literal*>> arguments(inputs.size());
  for (size_t d = 0; d < inputs.size(); ++d) {
    for (const Literal& input : inputs[d]) arguments[d].push_back(&input);
  }
  const int threads = ThreadPool::Default().threads();
  const int64_t devices = assignment.device_count();
  std::cerr << devices << " devices in this process on " << threads
            << " threads: " << ThreadsPerDevice(threads, devices)
            << " each\n";
  return executable->RunReplicated(arguments, assignment);
}

}  // namespace

bool NamesDevice(const std::string& binding) {
  const size_t colon = binding.find(':');
  const size_t equal = binding.find('=');
  return colon != std::string::npos && colon < equal;
}

absl::Status CheckDevicesOutput(const std::string& output, int64_t devices) {
  if (!output.empty() && !absl::EndsWith(output, "/")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--output ", output, ": a run on ", devices,
        " devices writes a directory per device: pass DIR/"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<Literal>>> LoadDeviceInputs(
    const HloModule& module, const std::vector<std::string>& bindings,
    int64_t devices, absl::Span<const int64_t> which) {
  ASSIGN_OR_RETURN(auto per_device, BindingsPerDevice(bindings, devices));
  std::vector<std::vector<Literal>> inputs;
  for (int64_t d : which) {
    absl::StatusOr<std::vector<Literal>> loaded =
        LoadInputs(*module.entry_computation(), per_device[d]);
    if (!loaded.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", d, ": ", loaded.status().message()));
    }
    inputs.push_back(*std::move(loaded));
  }
  return inputs;
}

absl::Status ReportDeviceResult(const DeviceRunFlags& flags,
                                const DeviceAssignment& assignment, int64_t d,
                                const Literal& result) {
  if (!flags.output.empty()) {
    return WriteResult(absl::StrCat(flags.output, "device", d, "/"), result);
  }
  const DeviceCoordinates at = assignment.CoordinatesOf(d);
  std::cout << "device " << d << " (replica " << at.replica << ", partition "
            << at.partition << "): "
            << (flags.print_full ? result.ToFullString() : result.ToString())
            << "\n";
  return absl::OkStatus();
}

absl::Status RunOnDevices(const HloModule& module,
                          const CompileOptions& options,
                          const DeviceRunFlags& flags) {
  const DeviceAssignment assignment =
      DeviceAssignment::Default(*options.replicas, *options.partitions);
  const int64_t devices = assignment.device_count();
  RETURN_IF_ERROR(CheckDevicesOutput(flags.output, devices));
  std::vector<int64_t> all(devices);
  for (int64_t d = 0; d < devices; ++d) all[d] = d;
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> inputs,
                   LoadDeviceInputs(module, flags.bindings, devices, all));
  ASSIGN_OR_RETURN(std::vector<Literal> results,
                   RunOn(module, options, inputs, assignment));
  if (flags.compare) {
    CompileOptions other = options;
    other.backend = options.backend == Backend::kJit ? Backend::kInterpreter
                                                     : Backend::kJit;
    other.pipeline.dump_dir.clear();
    ASSIGN_OR_RETURN(std::vector<Literal> others,
                     RunOn(module, other, inputs, assignment));
    for (int64_t d = 0; d < devices; ++d) {
      std::cerr << "compare: device " << d
                << ": largest difference between jit and interpreter: "
                << LargestDifference(results[d], others[d]) << "\n";
      absl::Status same = CompareResults(results[d], others[d], flags.tolerance);
      if (!same.ok()) {
        return absl::Status(same.code(),
                            absl::StrCat("device ", d, ": ", same.message()));
      }
    }
  }
  for (int64_t d = 0; d < devices; ++d) {
    RETURN_IF_ERROR(ReportDeviceResult(flags, assignment, d, results[d]));
  }
  return absl::OkStatus();
}

}  // namespace mxla::tools
