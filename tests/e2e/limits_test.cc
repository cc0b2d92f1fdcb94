// Limits and bad input: shapes whose element count overflows, values past
// the memory limit, the rank limit and ragged constants are InvalidArgument
// before anything is allocated; and every failure leaves the builder, the
// module, the compile cache and the executable usable.
#include <memory>
#include <string>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "driver/compile_cache.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "runtime/memory_limit.h"
#include "runtime/npy.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// Sets the memory limit for a scope, then restores the one before.
class ScopedMemoryLimit {
 public:
  explicit ScopedMemoryLimit(int64_t bytes) : previous_(MemoryLimitBytes()) {
    SetMemoryLimitBytes(bytes);
  }
  ~ScopedMemoryLimit() { SetMemoryLimitBytes(previous_); }

 private:
  int64_t previous_;
};

TEST(LimitsTest, ElementCountsThatOverflowAreRejectedEverywhere) {
  XlaBuilder b("overflow");
  Parameter(&b, 0, ShapeUtil::MakeShape(F32, {int64_t{1} << 32, int64_t{1} << 32}),
            "x");
  EXPECT_THAT(b.Build().status(),
              StatusIs(kInvalid, HasSubstr("overflows int64")));

  EXPECT_THAT(ParseHloModule(R"(HloModule m
ENTRY main {
  ROOT x = f32[4294967296,4294967296] parameter(0)
})")
                  .status(),
              StatusIs(kInvalid, HasSubstr("overflows")));

  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
      "4294967296), }";
  header += std::string(118 - header.size(), ' ') + "\n";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) +
                    std::string(1, static_cast<char>(header.size())) +
                    std::string(1, '\0') + header;
  EXPECT_THAT(ParseNpy(npy).status(), StatusIs(kInvalid, HasSubstr("overflows")));
}

TEST(LimitsTest, TheRankLimitIsEnforced) {
  XlaBuilder b("rank");
  std::vector<int64_t> dims(ShapeUtil::kMaxRank + 1, 1);
  Parameter(&b, 0, ShapeUtil::MakeShape(F32, dims), "x");
  EXPECT_THAT(b.Build().status(),
              StatusIs(kInvalid, HasSubstr("the maximum rank is 32")));
}

// A 4 TB iota compiles to an error, not an out-of-memory abort.
TEST(LimitsTest, ResultsPastTheMemoryLimitFailToCompile) {
  XlaBuilder b("huge");
  Iota(&b, ShapeUtil::MakeShape(F32, {100000, 100000, 100}), 0);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  EXPECT_THAT(Compile(computation.module()).status(),
              StatusIs(kInvalid,
                       AllOf(HasSubstr("a run of computation 'huge' (result "
                                       "f32[100000,100000,100]"),
                             HasSubstr("over the memory limit of"))));
  EXPECT_THAT(EvaluateModule(computation.module(), {}).status(),
              StatusIs(kInvalid, HasSubstr("over the memory limit")));
}

TEST(LimitsTest, TheLimitIsConfigurableAndCountsTemporaries) {
  ScopedMemoryLimit limit(1 << 20);  // 1 MiB
  EXPECT_EQ(MemoryLimitBytes(), 1 << 20);
  XlaBuilder b("softmaxish");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {512, 512}), "x");
  Exp(x);  // 1 MiB result alone fits
  ASSERT_OK_AND_ASSIGN(XlaComputation fits, b.Build());
  EXPECT_OK(Compile(fits.module()).status());

  XlaBuilder big("big");
  XlaOp y = Parameter(&big, 0, ShapeUtil::MakeShape(F32, {1024, 1024}), "y");
  Neg(y);  // 4 MiB
  ASSERT_OK_AND_ASSIGN(XlaComputation too_big, big.Build());
  EXPECT_THAT(Compile(too_big.module()).status(),
              StatusIs(kInvalid, HasSubstr("needs 4194304 bytes, over the "
                                           "memory limit of 1048576 bytes")));

  // The result alone (1 MiB) would fit a 1.5 MiB limit; the materialized
  // exp (an expensive value with two users) needs another 1 MiB.
  {
    ScopedMemoryLimit larger(3 << 19);
    XlaBuilder t("temporaries");
    XlaOp z = Parameter(&t, 0, ShapeUtil::MakeShape(F32, {256, 1024}), "z");
    XlaOp e = Exp(z);
    Add(e, Neg(e));
    ASSERT_OK_AND_ASSIGN(XlaComputation with_temporaries, t.Build());
    EXPECT_THAT(Compile(with_temporaries.module()).status(),
                StatusIs(kInvalid, HasSubstr("1048576 bytes of temporaries")));
  }

  // The builder's budget is its own; here it follows the runtime's.
  XlaBuilder constants("constants");
  constants.set_memory_limit_bytes(MemoryLimitBytes());
  ConstantR1<float>(&constants, 1 << 20, 1.0f);
  EXPECT_THAT(constants.Build().status(),
              StatusIs(kInvalid, HasSubstr("ConstantR1(length=1048576) at ")));
}

TEST(LimitsTest, BadConstantsAreErrorsNotAborts) {
  XlaBuilder negative("negative");
  ConstantR1<float>(&negative, -1, 0.0f);
  EXPECT_THAT(negative.Build().status(),
              StatusIs(kInvalid, HasSubstr("ConstantR1(length=-1) at ")));
  XlaBuilder ragged("ragged");
  ConstantR2<float>(&ragged, {{1, 2, 3}, {4, 5}});
  EXPECT_THAT(ragged.Build().status(),
              StatusIs(kInvalid, HasSubstr("ConstantR2(2 rows) at ")));
  EXPECT_THAT(ragged.Build().status(),
              StatusIs(kInvalid,
                       HasSubstr("row 1 has 2 elements but row 0 has 3")));
}

// After each kind of failure the same objects keep working.
TEST(LimitsTest, FailuresLeaveEverythingUsable) {
  XlaBuilder b("bias");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  XlaOp v = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3}), "v");
  ASSERT_OK_AND_ASSIGN(XlaComputation good, b.Build(Add(x, v, {1})));
  // A failed op: the builder keeps its first error, answers every call.
  XlaOp bad = Add(x, v, {0});
  EXPECT_FALSE(bad.valid());
  EXPECT_THAT(b.GetShape(x).status(),
              StatusIs(kInvalid, HasSubstr("Broadcast dimension 0 mismatch")));
  EXPECT_THAT(b.Build().status(),
              StatusIs(kInvalid, HasSubstr("Broadcast dimension 0 mismatch")));

  // A failed compile (memory limit) leaves the module as it was, and the
  // cache serving the next compile.
  const std::string text = good.module().ToString();
  {
    ScopedMemoryLimit limit(16);
    EXPECT_THAT(Compile(good.module()).status(),
                StatusIs(kInvalid, HasSubstr("over the memory limit")));
  }
  EXPECT_EQ(good.module().ToString(), text);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(good.module()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> again,
                       Compile(good.module()));

  // A failed run (wrong argument shape) does not poison the executable.
  Literal xs = LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal vs = LiteralUtil::CreateR1<float>({7, 8, 9});
  Literal wrong = LiteralUtil::CreateR1<float>({1, 2});
  EXPECT_THAT(executable->Run({&xs, &wrong}).status(),
              StatusIs(kInvalid, HasSubstr("parameter 'v'")));
  ASSERT_OK_AND_ASSIGN(Literal out, executable->Run({&xs, &vs}));
  EXPECT_EQ(out, LiteralUtil::CreateR2<float>({{8, 10, 12}, {11, 13, 15}}));
  ASSERT_OK_AND_ASSIGN(Literal out_again, again->Run({&xs, &vs}));
  EXPECT_EQ(out_again, out);
}

}  // namespace
}  // namespace mxla
