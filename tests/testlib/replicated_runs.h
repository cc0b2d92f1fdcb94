// Runs on several in-process devices for the tests: HLO text compiled by
// one backend for R replicas x P partitions and run through
// Executable::RunReplicated, and the check that both backends agree on
// every device.
#ifndef MXLA_TESTS_TESTLIB_REPLICATED_RUNS_H_
#define MXLA_TESTS_TESTLIB_REPLICATED_RUNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/compile_options.h"
#include "ir/literal.h"

namespace mxla::testing {

struct Devices {
  int64_t replicas;
  int64_t partitions;
  int64_t count() const { return replicas * partitions; }
};

// Each device's arguments, in device-id order.
using DeviceArguments = std::vector<std::vector<Literal>>;

// The run of `text` on `devices` by `backend`: each device's result, or
// the parse, compile or run error.
absl::StatusOr<std::vector<Literal>> RunOnDevices(
    Backend backend, const std::string& text, const Devices& devices,
    const DeviceArguments& arguments);

// Both backends' runs: the jit's results, after checking (as test
// failures) that both succeed and give the same literal on every device.
// Empty when a run failed.
std::vector<Literal> RunBothBackends(const std::string& text,
                                     const Devices& devices,
                                     const DeviceArguments& arguments);

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_REPLICATED_RUNS_H_
