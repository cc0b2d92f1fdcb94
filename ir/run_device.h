// Which copy of a replicated program one run is, and how it reaches the
// other copies: what RunOptions::device (runtime/executable.h) and
// EvaluatorOptions::device (the interpreter) carry. A run without one is
// device 0 of one replica of one partition, where collectives have a
// single participant.
#ifndef MXLA_IR_RUN_DEVICE_H_
#define MXLA_IR_RUN_DEVICE_H_

#include <cstdint>

#include "ir/communicator.h"
#include "ir/device_assignment.h"

namespace mxla {

struct RunDevice {
  int64_t replica = 0;
  int64_t partition = 0;
  // Both borrowed for the run; the communicator serves this device only.
  const DeviceAssignment* assignment = nullptr;
  Communicator* communicator = nullptr;

  int64_t device_id() const { return (*assignment)(replica, partition); }
};

}  // namespace mxla

#endif  // MXLA_IR_RUN_DEVICE_H_
