// The JIT's device steps (JitExecutable::Program::DeviceStep): a
// collective, replica-id or partition-id run for one device of a
// replicated run. The groups come from the instruction and the run's
// device assignment (ir/collective_groups.h), so one program serves any
// placement of its copies; the bytes move through the device's
// communicator (runtime/collective_ops.h).
#ifndef MXLA_RUNTIME_DEVICE_STEPS_H_
#define MXLA_RUNTIME_DEVICE_STEPS_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ir/run_device.h"
#include "runtime/jit_executable.h"

namespace mxla {

// Runs `step` for `device` (null: device 0 of one replica of one
// partition) on `buffers`: the instruction's operands' array leaves, then
// its result's. Errors: the groups' (an id the assignment does not have)
// and the communicator's, each naming the op.
absl::Status RunDeviceStep(const JitExecutable::Program::DeviceStep& step,
                           absl::Span<void* const> buffers,
                           const RunDevice* device);

}  // namespace mxla

#endif  // MXLA_RUNTIME_DEVICE_STEPS_H_
