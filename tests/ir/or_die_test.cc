// ir/or_die.h: values pass through; an error exits with status 1 after
// printing the call site, the code and the message.
#include "ir/or_die.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mxla {
namespace {

TEST(OrDieTest, ReturnsTheValue) {
  EXPECT_EQ(OrDie(absl::StatusOr<std::string>("ok")), "ok");
  std::unique_ptr<int> moved = OrDie(absl::StatusOr<std::unique_ptr<int>>(
      std::make_unique<int>(7)));
  EXPECT_EQ(*moved, 7);
  CheckOk(absl::OkStatus());
}

TEST(OrDieDeathTest, ErrorsExitNamingTheCallSite) {
  EXPECT_EXIT(CheckOk(absl::InvalidArgumentError("bad shape")),
              ::testing::ExitedWithCode(1),
              "or_die_test.cc:[0-9]+: error: INVALID_ARGUMENT: bad shape");
  EXPECT_EXIT(OrDie(absl::StatusOr<int>(absl::NotFoundError("no file"))),
              ::testing::ExitedWithCode(1),
              "or_die_test.cc:[0-9]+: error: NOT_FOUND: no file");
}

}  // namespace
}  // namespace mxla
