#include "tools/corpus_devices.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "ir/device_assignment.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_verifier.h"
#include "ir/memory_budget.h"
#include "tools/compare_results.h"
#include "tools/corpus_arguments.h"
#include "tools/ragged_arguments.h"

namespace mxla::tools {
namespace {

// Each device's arguments: device 0's are the one-device run's, and every
// other device redraws their floats from a state of its own, so that a
// collective that mixed up its members would show. Integers and booleans
// stay the same on every device: a loop's trip count or an index that
// differed would make the devices' programs diverge (a deadlock in XLA,
// a timeout here), which says nothing about the collectives. `elements`
// is one device's arguments and results; the list stops short when they
// pass `max_elements` or all devices' pass `max_total`.
std::vector<std::vector<Literal>> ArgumentsPerDevice(
    const HloComputation& entry, int64_t devices, int64_t max_elements,
    int64_t max_total, int64_t& elements) {
  std::vector<std::vector<Literal>> arguments;
  elements = ElementsOf(entry.root_instruction()->shape());
  arguments.push_back(ArgumentsWithin(entry, max_elements, elements));
  if (elements > max_elements || elements > max_total / devices) {
    return arguments;
  }
  for (int64_t d = 1; d < devices; ++d) {
    std::vector<Literal> mine(arguments[0].begin(), arguments[0].end());
    uint64_t state = 1 + 7919 * d;
    for (Literal& argument : mine) RedrawFloats(argument, state);
    arguments.push_back(std::move(mine));
  }
  return arguments;
}

// All devices' limit: `factor` times one device's, saturating (the
// command line takes any positive limit).
int64_t AllDevicesLimit(int64_t limit, int64_t factor) {
  return limit > std::numeric_limits<int64_t>::max() / factor
             ? std::numeric_limits<int64_t>::max()
             : limit * factor;
}

// Whether `per_device` (elements or work) passes the one-device `limit`,
// or, on all `devices`, `factor` times it.
bool OverLimit(int64_t per_device, int64_t devices, int64_t limit,
               int64_t factor) {
  return per_device > limit ||
         per_device > AllDevicesLimit(limit, factor) / devices;
}

std::vector<std::vector<const Literal*>> Pointers(
    const std::vector<std::vector<Literal>>& arguments) {
  std::vector<std::vector<const Literal*>> pointers(arguments.size());
  for (size_t d = 0; d < arguments.size(); ++d) {
    for (const Literal& argument : arguments[d]) {
      pointers[d].push_back(&argument);
    }
  }
  return pointers;
}

ModuleOutcome Outcome(const std::string& path, const DeviceCountsNeeded& counts,
                      CorpusStage stage, std::string reason) {
  ModuleOutcome outcome{path, stage, NormalizeReason(reason)};
  outcome.devices = counts.devices();
  return outcome;
}

// The first device whose results differ beyond the tolerance, if any.
absl::Status CompareDevices(const std::vector<Literal>& actual,
                            const std::vector<Literal>& expected,
                            double tolerance) {
  for (size_t d = 0; d < actual.size(); ++d) {
    absl::Status same = CompareResults(actual[d], expected[d], tolerance);
    if (!same.ok()) {
      return absl::InternalError(
          absl::StrCat("device ", d, ": ", same.message()));
    }
  }
  return absl::OkStatus();
}

// Both backends run on every device; the outcome once they are compiled.
ModuleOutcome RunBoth(const std::string& path, const HloModule& module,
                      const DeviceCountsNeeded& counts,
                      const Executable& interpreter, const Executable& jit,
                      const CorpusOptions& options) {
  const HloComputation& entry = *module.entry_computation();
  const int64_t devices = counts.devices();
  const int64_t factor = std::max<int64_t>(options.all_devices_factor, 1);
  int64_t elements = 0;
  std::vector<std::vector<Literal>> arguments = ArgumentsPerDevice(
      entry, devices, options.max_run_elements,
      AllDevicesLimit(options.max_run_elements, factor), elements);
  const int64_t work = std::max<int64_t>(EstimatedWork(module), 1);
  if (OverLimit(elements, devices, options.max_run_elements, factor) ||
      OverLimit(work, devices, options.max_run_work, factor) ||
      !RunFitsMemory(elements * devices, options)) {
    return Outcome(path, counts, CorpusStage::kTooLarge, "");
  }
  RunOptions run;
  // Devices wait at a collective only for those that diverged.
  run.collective_timeout = absl::Seconds(20);
  // A loop's trips multiply its body's work, as on one device: each
  // device's, and all devices' together, stay within the work limits.
  run.max_loop_trips = std::min(
      {options.max_loop_trips, options.max_run_work / work,
       AllDevicesLimit(options.max_run_work, factor) / work / devices});
  const DeviceAssignment assignment =
      DeviceAssignment::Default(counts.replicas, counts.partitions);
  FillRaggedAllToAllArguments(entry, assignment, arguments);
  const auto pointers = Pointers(arguments);
  absl::StatusOr<std::vector<Literal>> expected =
      interpreter.RunReplicated(pointers, assignment, run);
  absl::StatusOr<std::vector<Literal>> actual =
      jit.RunReplicated(pointers, assignment, run);
  if (absl::IsResourceExhausted(expected.status()) &&
      absl::IsResourceExhausted(actual.status())) {
    // Stopped by the work limits rather than the trip limit: too costly,
    // not endless.
    return Outcome(path, counts,
                   run.max_loop_trips < options.max_loop_trips
                       ? CorpusStage::kTooLarge
                       : CorpusStage::kEndless,
                   "");
  }
  if (!expected.ok()) {
    if (RefusedAlike(expected.status(), actual.status())) {
      return Outcome(path, counts, CorpusStage::kRefused, "");
    }
    return Outcome(
        path, counts, CorpusStage::kRun,
        absl::StrCat("interpreter: ", expected.status().message(),
                     actual.ok() ? "" : "; jit: ",
                     actual.ok() ? "" : actual.status().message()));
  }
  if (!actual.ok()) {
    return Outcome(path, counts, CorpusStage::kRun,
                   std::string(actual.status().message()));
  }
  if (!CompareDevices(*actual, *expected, options.tolerance).ok()) {
    return Outcome(path, counts, CorpusStage::kRun,
                   "the JIT and the interpreter differ beyond the tolerance");
  }
  return Outcome(path, counts, CorpusStage::kPassed, "");
}

}  // namespace

ModuleOutcome RunOnDevicesAndCompare(const std::string& path,
                                     const HloModule& module,
                                     const DeviceCountsNeeded& counts,
                                     const CorpusOptions& options) {
  // Verified on its counts first, as the one-device path verifies, so that
  // a module XLA's verifier refuses is told apart from one mxla cannot
  // compile.
  std::unique_ptr<HloModule> counted = module.Clone();
  counted->set_replica_count(counts.replicas);
  counted->set_num_partitions(counts.partitions);
  absl::Status verified = VerifyModule(*counted, VerifierMode::kBuilder);
  if (!verified.ok()) {
    return Outcome(path, counts, CorpusStage::kVerify,
                   std::string(verified.message()));
  }
  CompileOptions compile;
  compile.replicas = counts.replicas;
  compile.partitions = counts.partitions;
  compile.backend = Backend::kJit;
  absl::StatusOr<std::unique_ptr<Executable>> jit = Compile(module, compile);
  if (IsOverMemoryBudget(jit.status())) {
    // Its devices' buffers do not fit this machine's memory: accepted when
    // the JIT compiles it without a budget, as on one device.
    compile.memory_limit_bytes = std::numeric_limits<int64_t>::max();
    if (Compile(module, compile).ok()) {
      return Outcome(path, counts, CorpusStage::kTooLarge, "");
    }
  }
  if (!jit.ok()) {
    return Outcome(path, counts, CorpusStage::kCompile,
                   std::string(jit.status().message()));
  }
  compile.backend = Backend::kInterpreter;
  absl::StatusOr<std::unique_ptr<Executable>> interpreter =
      Compile(module, compile);
  if (!interpreter.ok()) {
    return Outcome(path, counts, CorpusStage::kCompile,
                   absl::StrCat("interpreter: ",
                                interpreter.status().message()));
  }
  return RunBoth(path, module, counts, **interpreter, **jit, options);
}

}  // namespace mxla::tools
