// `mxla stats` on a module that runs on several devices: compiled once for
// them by the JIT and by the interpreter, run on as many in-process devices
// (Executable::RunReplicated), each device with arguments of its own, and
// compared device by device.
#ifndef MXLA_TOOLS_CORPUS_DEVICES_H_
#define MXLA_TOOLS_CORPUS_DEVICES_H_

#include <string>

#include "ir/hlo_module.h"
#include "tools/corpus_stats.h"
#include "tools/smallest_device_counts.h"

namespace mxla::tools {

// The outcome of `module` (at `path`) on `counts` devices (more than one),
// its `devices` field set: kVerify when the verifier refuses it on those
// counts, kCompile when either backend does, kRun
// when a run fails or a device's results differ, kTooLarge when one
// device's arguments and results, or its work, pass the options' limits,
// or all devices' pass all_devices_factor times them, else kPassed (or
// kEndless, as on one device).
ModuleOutcome RunOnDevicesAndCompare(const std::string& path,
                                     const HloModule& module,
                                     const DeviceCountsNeeded& counts,
                                     const CorpusOptions& options);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_CORPUS_DEVICES_H_
