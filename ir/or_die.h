// OrDie and CheckOk: for examples, a program's main and quick experiments
// that would rather stop than handle an error. On an error they print the
// call site, the status code and the message to stderr and exit(1); on
// success OrDie returns the value.
//
//   mxla::XlaComputation computation = mxla::OrDie(b.Build());
//   mxla::CheckOk(executable->RunBuffers(arguments, results));
#ifndef MXLA_IR_OR_DIE_H_
#define MXLA_IR_OR_DIE_H_

#include <cstdlib>
#include <iostream>
#include <source_location>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mxla {

inline void CheckOk(
    const absl::Status& status,
    std::source_location location = std::source_location::current()) {
  if (status.ok()) return;
  std::cerr << location.file_name() << ":" << location.line() << ": error: "
            << status.ToString() << "\n";
  std::exit(1);
}

template <typename T>
T OrDie(absl::StatusOr<T> value,
        std::source_location location = std::source_location::current()) {
  CheckOk(value.status(), location);
  return *std::move(value);
}

}  // namespace mxla

#endif  // MXLA_IR_OR_DIE_H_
