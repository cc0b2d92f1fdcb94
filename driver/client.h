// The user's entry point: compile what XlaBuilder built and run it.
//
//   absl::StatusOr<XlaComputation> computation = builder.Build();
//   absl::StatusOr<std::unique_ptr<Executable>> exe = Compile(*computation);
//   absl::StatusOr<Literal> out = (*exe)->Run({&x, &v});
//
// This header is the one place runtime/ meets builder/: it only adapts
// XlaComputation to Compile(const HloModule&) (driver/compile.h).
#ifndef MXLA_DRIVER_CLIENT_H_
#define MXLA_DRIVER_CLIENT_H_

#include <memory>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "runtime/executable.h"

namespace mxla {

// Compile(computation.module(), options): same contract and errors. The
// executable does not refer to `computation` afterwards.
inline absl::StatusOr<std::unique_ptr<Executable>> Compile(
    const XlaComputation& computation, const CompileOptions& options = {}) {
  return Compile(computation.module(), options);
}

}  // namespace mxla

#endif  // MXLA_DRIVER_CLIENT_H_
