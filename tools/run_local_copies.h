// `mxla run --local-processes N`: the run over processes (run_processes.h)
// on this machine without starting the copies by hand. mxla starts N
// copies of its own command line (/proc/self/cmdline) with
// `--processes N --process-id I --rendezvous DIR` in place of
// `--local-processes N`, DIR a fresh directory under $TMPDIR (removed
// afterwards), waits for them all, and fails naming each copy that did
// not exit 0. The copies print to this process's stdout and stderr (each
// its own devices; the order between copies is not fixed).
#ifndef MXLA_TOOLS_RUN_LOCAL_COPIES_H_
#define MXLA_TOOLS_RUN_LOCAL_COPIES_H_

#include <cstdint>

#include "absl/status/status.h"

namespace mxla::tools {

// Runs `copies` copies (flags checked by CheckProcessFlags) and waits for
// them: Aborted naming each copy that did not exit 0, Internal when they
// cannot start, FailedPrecondition without gloo.
absl::Status RunLocalCopies(int64_t copies);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_RUN_LOCAL_COPIES_H_
