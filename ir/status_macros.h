// Status plumbing. Debian's Abseil (20220623) ships no status macros, so the
// project defines them once, here.
//
//   RETURN_IF_ERROR(expr);            returns the status of `expr` if not OK.
//   ASSIGN_OR_RETURN(lhs, expr);      unwraps a StatusOr or returns its status.
//   RET_CHECK(cond, msg...);          an internal invariant: returns an
//                                     Internal error (never aborts) naming the
//                                     condition, file and line.
//
// User mistakes are InvalidArgument with a message naming the op, the shapes
// and the dimension; RET_CHECK is only for compiler bugs.
#ifndef MXLA_IR_STATUS_MACROS_H_
#define MXLA_IR_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace mxla::internal {

template <typename... Args>
absl::Status RetCheckFailure(const char* condition, const char* file, int line,
                             const Args&... message) {
  return absl::InternalError(absl::StrCat("RET_CHECK failure (", file, ":",
                                          line, ") ", condition, " ",
                                          message...));
}

}  // namespace mxla::internal

#define MXLA_STATUS_CONCAT_INNER(a, b) a##b
#define MXLA_STATUS_CONCAT(a, b) MXLA_STATUS_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                                 \
  do {                                                        \
    ::absl::Status mxla_status_ = (expr);                     \
    if (!mxla_status_.ok()) return mxla_status_;              \
  } while (false)

#define MXLA_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  MXLA_ASSIGN_OR_RETURN_IMPL(       \
      MXLA_STATUS_CONCAT(mxla_statusor_, __LINE__), lhs, expr)

#define RET_CHECK(cond, ...)                                        \
  if (cond) {                                                       \
  } else /* NOLINT */                                               \
    return ::mxla::internal::RetCheckFailure(#cond, __FILE__, __LINE__ \
                                             __VA_OPT__(, ) __VA_ARGS__)

#endif  // MXLA_IR_STATUS_MACROS_H_
