// GoogleMock matchers for absl::Status / StatusOr, as Abseil 20220623 has
// none:
//   EXPECT_THAT(status, IsOk());
//   EXPECT_THAT(status_or, StatusIs(absl::StatusCode::kInvalidArgument,
//                                   HasSubstr("Shapes must be equal rank")));
//   ASSERT_OK_AND_ASSIGN(Shape s, InferSomething(...));
#ifndef MXLA_TESTS_TESTLIB_STATUS_MATCHERS_H_
#define MXLA_TESTS_TESTLIB_STATUS_MATCHERS_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mxla::testing {

inline const absl::Status& GetStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  if (!status.ok()) *result_listener << "status: " << status.ToString();
  return status.ok();
}

MATCHER_P2(StatusIs, code, message_matcher,
           absl::StrCat("has code ", absl::StatusCodeToString(code))) {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status: " << status.ToString();
  return status.code() == code &&
         ::testing::ExplainMatchResult(message_matcher,
                                       std::string(status.message()),
                                       result_listener);
}

}  // namespace mxla::testing

#define MXLA_TEST_CONCAT_INNER(a, b) a##b
#define MXLA_TEST_CONCAT(a, b) MXLA_TEST_CONCAT_INNER(a, b)

#define ASSERT_OK(expr) ASSERT_THAT((expr), ::mxla::testing::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::mxla::testing::IsOk())

#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                   \
  auto MXLA_TEST_CONCAT(statusor_, __LINE__) = (expr);                    \
  ASSERT_THAT(MXLA_TEST_CONCAT(statusor_, __LINE__).status(),             \
              ::mxla::testing::IsOk());                                   \
  lhs = std::move(MXLA_TEST_CONCAT(statusor_, __LINE__)).value()

#endif  // MXLA_TESTS_TESTLIB_STATUS_MATCHERS_H_
