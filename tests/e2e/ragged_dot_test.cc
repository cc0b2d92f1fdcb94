// ragged-dot's three modes on hand-computed cases, group sizes with lead
// dimensions and out-of-range or negative sizes, the shape rule's errors,
// and the JIT's expansion (expand-ragged-dots) against the interpreter.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::ErrorSpec;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::string Module(const std::string& lhs, const std::string& rhs,
                   const std::string& sizes, const std::string& result,
                   const std::string& attributes) {
  return "HloModule t\nENTRY main {\n  l = " + lhs +
         " parameter(0)\n  r = " + rhs + " parameter(1)\n  g = " + sizes +
         " parameter(2)\n  ROOT d = " + result + " ragged-dot(l, r, g), " +
         attributes + "\n}\n";
}

TEST(RaggedDotTest, NonContractingRowsUseTheirGroupsRhs) {
  const std::string text =
      Module("f32[5,2]", "f32[2,2,1]", "s32[2]", "f32[5,1]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}");
  const Literal lhs =
      LiteralUtil::CreateR2<float>({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}});
  // Group 0 sums a row, group 1 takes its difference; row 4 is in no group.
  const Literal rhs = LiteralUtil::CreateR3<float>({{{1}, {1}}, {{1}, {-1}}});
  const Literal sizes = LiteralUtil::CreateR1<int32_t>({2, 2});
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &rhs, &sizes}),
            LiteralUtil::CreateR2<float>({{3}, {7}, {-1}, {-1}, {0}}));
  // An infinity in another group's rhs does not reach a row.
  const Literal infinite = LiteralUtil::CreateR3<float>(
      {{{1}, {1}}, {{std::numeric_limits<float>::infinity()}, {-1}}});
  const Literal all_first = LiteralUtil::CreateR1<int32_t>({5, 0});
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &infinite, &all_first}),
            LiteralUtil::CreateR2<float>({{3}, {7}, {11}, {15}, {19}}));
}

TEST(RaggedDotTest, ContractingGroupsContractTheirPart) {
  const std::string text =
      Module("f32[2,4]", "f32[4,1]", "s64[2]", "f32[2,2,1]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
             "lhs_ragged_dims={1}");
  const Literal lhs =
      LiteralUtil::CreateR2<float>({{1, 2, 3, 4}, {5, 6, 7, 8}});
  const Literal rhs = LiteralUtil::CreateR2<float>({{1}, {1}, {1}, {1}});
  const Literal sizes = LiteralUtil::CreateR1<int64_t>({1, 3});
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &rhs, &sizes}),
            LiteralUtil::CreateR3<float>({{{1}, {5}}, {{9}, {21}}}));
}

TEST(RaggedDotTest, BatchModeIsADot) {
  const std::string text =
      Module("f32[2,1,2]", "f32[2,2,1]", "s32[2]", "f32[2,1,1]",
             "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={0}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}");
  const Literal lhs = LiteralUtil::CreateR3<float>({{{1, 2}}, {{3, 4}}});
  const Literal rhs = LiteralUtil::CreateR3<float>({{{1}, {10}}, {{1}, {10}}});
  const Literal sizes = LiteralUtil::CreateR1<int32_t>({1, 0});
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &rhs, &sizes}),
            LiteralUtil::CreateR3<float>({{{21}}, {{43}}}));
}

TEST(RaggedDotTest, GroupSizesPerBatchAndSeededOperands) {
  // Group sizes per batch element: batch 0 puts row 0 in group 0 and rows
  // 1-2 in group 1; batch 1 puts every row in group 0.
  const std::string batched =
      Module("f32[2,3,2]", "f32[2,2,2,1]", "s32[2,2]", "f32[2,3,1]",
             "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={1}, rhs_contracting_dims={2}, "
             "lhs_ragged_dims={1}, rhs_group_dims={0}");
  const Literal lhs = LiteralUtil::CreateR3<float>(
      {{{1, 2}, {3, 4}, {5, 6}}, {{1, 2}, {3, 4}, {5, 6}}});
  const Literal rhs = LiteralUtil::CreateFromFlat<float>(
      {2, 2, 2, 1}, {1, 1, 1, 1, 1, -1, 1, -1});
  const Literal sizes = LiteralUtil::CreateR2<int32_t>({{1, 2}, {3, 0}});
  EXPECT_EQ(
      EvaluateAndCompare(batched, {&lhs, &rhs, &sizes}),
      LiteralUtil::CreateR3<float>({{{3}, {-1}, {-1}}, {{3}, {7}, {11}}}));
  // Seeded operands: group sizes in [-8, 8), negative ones included, and
  // the contracting mode with per-batch sizes; bf16 accumulates in f32.
  // The JIT's f32 dots round with fused multiply-adds: close, not exact.
  RunAndCompareOptions fused_multiply_add;
  fused_multiply_add.error = ErrorSpec{1e-5, 1e-5};
  EXPECT_TRUE(RunAndCompare(batched, fused_multiply_add));
  EXPECT_TRUE(RunAndCompare(
      Module("f32[3,4,6]", "f32[3,6,5]", "s64[3,2]", "f32[2,3,4,5]",
             "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={0}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={2}"),
      fused_multiply_add));
  EXPECT_TRUE(RunAndCompare(
      Module("bf16[17,9]", "bf16[3,9,8]", "s32[3]", "bf16[17,8]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}")));
}

TEST(RaggedDotTest, ShapeRuleErrors) {
  const std::string contracting =
      "lhs_contracting_dims={1}, rhs_contracting_dims={1}, ";
  EXPECT_THAT(
      VerifyHloText(Module("f32[5,2]", "f32[2,2,1]", "s32[2]", "f32[5,1]",
                    contracting + "lhs_ragged_dims={0,1}, rhs_group_dims={0}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("ragged-dot: lhs_ragged_dims must name exactly one "
                         "dimension; got {0,1}.")));
  EXPECT_THAT(VerifyHloText(Module("f32[5,2]", "f32[2,2,1]", "s32[2]", "f32[5,1]",
                            contracting + "lhs_ragged_dims={0}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ragged-dot: a ragged non-contracting "
                                 "dimension needs exactly one rhs_group_dims; "
                                 "got {}.")));
  EXPECT_THAT(
      VerifyHloText(Module("f32[5,2]", "f32[2,2,1]", "s32[3]", "f32[5,1]",
                    contracting + "lhs_ragged_dims={0}, rhs_group_dims={0}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("ragged-dot: rhs group dimension 0 of f32[2,2,1] "
                         "has size 2 but group_sizes s32[3] has 3 groups.")));
  EXPECT_THAT(
      VerifyHloText(Module("f32[5,2]", "f32[2,2,1]", "f32[2]", "f32[5,1]",
                    contracting + "lhs_ragged_dims={0}, rhs_group_dims={0}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("ragged-dot: group_sizes must be an integer array of "
                         "rank >= 1; got f32[2].")));
  EXPECT_THAT(
      VerifyHloText(Module("f32[5,2]", "f32[2,2,1]", "s32[4,2]", "f32[5,1]",
                    contracting + "lhs_ragged_dims={0}, rhs_group_dims={0}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("ragged-dot: group_sizes s32[4,2] must have "
                         "dimensions [2] or {2}")));
  EXPECT_THAT(
      VerifyHloText(Module("f32[5,3]", "f32[2,2,1]", "s32[2]", "f32[5,1]",
                    contracting + "lhs_ragged_dims={0}, rhs_group_dims={0}")),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ragged-dot: ")));
  EXPECT_THAT(
      VerifyHloText(Module("f32[2,4]", "f32[4,1]", "s64[2]", "f32[2,2,1]",
                    "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                    "lhs_ragged_dims={1}, rhs_group_dims={0}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("ragged-dot: rhs_group_dims must be empty when the "
                         "ragged dimension is a contracting dimension; got "
                         "{0}.")));
}

}  // namespace
}  // namespace mxla
