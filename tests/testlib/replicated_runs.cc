#include "tests/testlib/replicated_runs.h"

#include <memory>
#include <utility>

#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/device_assignment.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::testing {

absl::StatusOr<std::vector<Literal>> RunOnDevices(
    Backend backend, const std::string& text, const Devices& devices,
    const DeviceArguments& arguments) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  CompileOptions options;
  options.backend = backend;
  options.replicas = devices.replicas;
  options.partitions = devices.partitions;
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(**module, options);
  if (!executable.ok()) return executable.status();
  std::vector<std::vector<const Literal*>> pointers;
  for (const std::vector<Literal>& device : arguments) {
    pointers.emplace_back();
    for (const Literal& argument : device) pointers.back().push_back(&argument);
  }
  return (*executable)->RunReplicated(
      pointers, DeviceAssignment::Default(devices.replicas, devices.partitions));
}

std::vector<Literal> RunBothBackends(const std::string& text,
                                     const Devices& devices,
                                     const DeviceArguments& arguments) {
  std::vector<std::vector<Literal>> results;
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    absl::StatusOr<std::vector<Literal>> run =
        RunOnDevices(backend, text, devices, arguments);
    EXPECT_OK(run.status()) << BackendName(backend);
    if (!run.ok()) return {};
    results.push_back(*std::move(run));
  }
  for (int64_t d = 0; d < devices.count(); ++d) {
    EXPECT_EQ(results[0][d], results[1][d])
        << "device " << d << ": jit " << results[0][d].ToString()
        << " interpreter " << results[1][d].ToString();
  }
  return std::move(results[0]);
}

}  // namespace mxla::testing
