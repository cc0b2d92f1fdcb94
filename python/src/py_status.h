// How mxla's errors reach Python: an absl::Status becomes an mxla.Error
// (a ValueError) with the same message and a `code` attribute ("INVALID_
// ARGUMENT", ...); a builder error's call site, which would name the
// binding's C++ line, names the user's Python file and line instead.
#ifndef MXLA_PYTHON_SRC_PY_STATUS_H_
#define MXLA_PYTHON_SRC_PY_STATUS_H_

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "builder/xla_builder.h"

namespace mxla::python {

// The call site every builder op made from Python is given; ThrowStatus
// replaces it in messages with the Python caller's.
const SourceLocation& BindingSite();

// "path/file.py:12" for the innermost Python frame running now that is
// not the mxla package's own (the user's line that called the binding, or
// mxla.numpy under @mxla.jit), or "<unknown>" outside Python code.
std::string PythonCallSite();

// What ThrowStatus throws; the module translates it to mxla.Error.
class StatusException : public std::exception {
 public:
  StatusException(std::string code, std::string message)
      : code_(std::move(code)), message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& code() const { return code_; }

 private:
  std::string code_;
  std::string message_;
};

// Registers mxla.Error in `module` and the translation of StatusException.
void RegisterErrors(pybind11::module_& module);

// Throws StatusException for `status` (not OK), the Python call site in
// place of the binding's.
[[noreturn]] void ThrowStatus(const absl::Status& status);

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) ThrowStatus(value.status());
  return *std::move(value);
}

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

}  // namespace mxla::python

#endif  // MXLA_PYTHON_SRC_PY_STATUS_H_
