// `mxla run` on several devices: the module compiled once for R replicas x
// P partitions and run on that many in-process devices at once
// (Executable::RunReplicated). Inputs are shared (`-i I=PATH`) or given per
// device (`-i D:I=PATH` for device D, which takes the place of a shared
// `-i I=...` on that device). Each device's result is printed, or written
// under DIR/ as DIR/device<D>/ (one .npy per leaf); --compare runs the
// other backend on the same devices and compares device by device.
#ifndef MXLA_TOOLS_RUN_DEVICES_H_
#define MXLA_TOOLS_RUN_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "driver/compile_options.h"
#include "ir/device_assignment.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"

namespace mxla::tools {

struct DeviceRunFlags {
  std::vector<std::string> bindings;  // "I=PATH" or "D:I=PATH"
  std::string output;                 // "" or "DIR/"
  bool compare = false;
  double tolerance = 1e-5;
  bool print_full = false;
};

// Whether a binding names a device ("D:I=PATH").
bool NamesDevice(const std::string& binding);

// InvalidArgument unless `output` is "" or a directory ("DIR/"), which a
// run on `devices` devices needs.
absl::Status CheckDevicesOutput(const std::string& output, int64_t devices);

// The inputs of each device in `which` (global ids of a run of `devices`),
// in that order, from `bindings`: InvalidArgument for a binding's device
// out of range, or for any input error, naming the device.
absl::StatusOr<std::vector<std::vector<Literal>>> LoadDeviceInputs(
    const HloModule& module, const std::vector<std::string>& bindings,
    int64_t devices, absl::Span<const int64_t> which);

// Device d's result: printed as "device d (replica r, partition p): ..."
// or written to flags.output's device<d>/.
absl::Status ReportDeviceResult(const DeviceRunFlags& flags,
                                const DeviceAssignment& assignment, int64_t d,
                                const Literal& result);

// Runs `module` on options.replicas x options.partitions devices (both
// set). InvalidArgument for a device number out of range, an output that
// is not a directory, or any input error (naming the device).
absl::Status RunOnDevices(const HloModule& module,
                          const CompileOptions& options,
                          const DeviceRunFlags& flags);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_RUN_DEVICES_H_
