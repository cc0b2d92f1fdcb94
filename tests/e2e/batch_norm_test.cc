// batch-norm-training, -inference and -grad: hand-computed cases, the
// JIT's expansion (expand-batch-norms) against the interpreter on seeded
// operands in f32, bf16 and f64, the shape rule's errors and the builder.
#include <memory>
#include <string>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::fixtures::OneOpModule;
using ::mxla::testing::ErrorSpec;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(BatchNormTest, HandComputedCases) {
  const Literal x = LiteralUtil::CreateR2<float>({{1}, {3}});
  const Literal two = LiteralUtil::CreateR1<float>({2});
  const Literal one = LiteralUtil::CreateR1<float>({1});
  // mean 2, variance 1: y = (x - 2) / 1 * 2 + 1.
  Literal trained = EvaluateAndCompare(
      OneOpModule("batch-norm-training", {"f32[2,1]", "f32[1]", "f32[1]"},
                  "(f32[2,1], f32[1], f32[1])", "epsilon=0, feature_index=1"),
      {&x, &two, &one});
  EXPECT_EQ(trained.tuple_element(0),
            LiteralUtil::CreateR2<float>({{-1}, {3}}));
  EXPECT_EQ(trained.tuple_element(1), two);
  EXPECT_EQ(trained.tuple_element(2), one);

  const Literal grid = LiteralUtil::CreateR2<float>({{1, 2}, {3, 4}});
  const Literal scale = LiteralUtil::CreateR1<float>({1, 2});
  const Literal offset = LiteralUtil::CreateR1<float>({0, 1});
  const Literal mean = LiteralUtil::CreateR1<float>({2, 3});
  const Literal variance = LiteralUtil::CreateR1<float>({4, 0.25});
  EXPECT_EQ(
      EvaluateAndCompare(
          OneOpModule("batch-norm-inference",
                      {"f32[2,2]", "f32[2]", "f32[2]", "f32[2]", "f32[2]"},
                      "f32[2,2]", "epsilon=0, feature_index=1"),
          {&grid, &scale, &offset, &mean, &variance}),
      LiteralUtil::CreateR2<float>({{-0.5, -3}, {0.5, 5}}));

  // dy = 1 everywhere: grad_offset = 2, grad_scale = 0, dx = 0.
  const Literal dy = LiteralUtil::CreateR2<float>({{1}, {1}});
  Literal graded = EvaluateAndCompare(
      OneOpModule("batch-norm-grad",
                  {"f32[2,1]", "f32[1]", "f32[1]", "f32[1]", "f32[2,1]"},
                  "(f32[2,1], f32[1], f32[1])", "epsilon=0, feature_index=1"),
      {&x, &one, &two, &one, &dy});
  EXPECT_EQ(graded.tuple_element(0), LiteralUtil::CreateR2<float>({{0}, {0}}));
  EXPECT_EQ(graded.tuple_element(1), LiteralUtil::CreateR1<float>({0}));
  EXPECT_EQ(graded.tuple_element(2), two);
}

TEST(BatchNormTest, JitMatchesTheInterpreterOnSeededOperands) {
  RunAndCompareOptions options;
  options.error = ErrorSpec{1e-6, 1e-5};
  for (const std::string type : {"f32", "bf16", "f64"}) {
    SCOPED_TRACE(type);
    const std::string x = type + "[3,5,4,2]";
    const std::string v = type + "[5]";
    EXPECT_TRUE(RunAndCompare(OneOpModule("batch-norm-training", {x, v, v},
                                          "(" + x + ", " + v + ", " + v + ")",
                                          "epsilon=0.001, feature_index=1"),
                              options));
    EXPECT_TRUE(
        RunAndCompare(OneOpModule("batch-norm-inference", {x, v, v, v, v}, x,
                                  "epsilon=0.001, feature_index=1"),
                      options));
    EXPECT_TRUE(RunAndCompare(OneOpModule("batch-norm-grad", {x, v, v, v, x},
                                          "(" + x + ", " + v + ", " + v + ")",
                                          "epsilon=0.001, feature_index=1"),
                              options));
  }
}

TEST(BatchNormTest, ShapeRuleErrors) {
  EXPECT_THAT(
      VerifyHloText(OneOpModule(
          "batch-norm-training", {"f32[2,3]", "f32[3]", "f32[3]"},
          "(f32[2,3], f32[3], f32[3])", "epsilon=0.001, feature_index=2")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("batch-norm-training: Expected feature_index to be "
                         "in [0, rank of the operand); got feature_index 2 "
                         "for f32[2,3].")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule(
          "batch-norm-training", {"f32[2,3]", "f32[2]", "f32[3]"},
          "(f32[2,3], f32[3], f32[3])", "epsilon=0.001, feature_index=1")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("batch-norm-training: The shape of scale should be "
                         "f32[3] (one per feature), but it is f32[2].")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("batch-norm-inference",
                         {"s32[2,3]", "s32[3]", "s32[3]", "s32[3]", "s32[3]"},
                         "s32[2,3]", "epsilon=0.001, feature_index=1")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("batch-norm-inference: The operand must have a "
                         "floating point element type, but its shape is "
                         "s32[2,3].")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("batch-norm-grad",
                         {"f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f32[3,2]"},
                         "(f32[2,3], f32[3], f32[3])",
                         "epsilon=0.001, feature_index=1")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("batch-norm-grad: The shape of grad_output should be "
                         "f32[2,3] (the operand's), but it is f32[3,2].")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("batch-norm-inference",
                         {"f32[2,3]", "f32[3]", "f16[3]", "f32[3]", "f32[3]"},
                         "f32[2,3]", "epsilon=0.001, feature_index=1")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("batch-norm-inference: The inputs should have the "
                         "same element type; the shape of offset is f16[3]")));
}

TEST(BatchNormTest, BuilderFunctions) {
  XlaBuilder builder("bn");
  XlaOp x = Parameter(&builder, 0, ShapeUtil::MakeShape(F32, {4, 3}), "x");
  XlaOp s = Parameter(&builder, 1, ShapeUtil::MakeShape(F32, {3}), "s");
  XlaOp trained = BatchNormTraining(x, s, s, 1e-5f, 1);
  XlaOp y = GetTupleElement(trained, 0);
  BatchNormInference(y, s, s, s, s, 1e-5f, 1);
  absl::StatusOr<XlaComputation> computation = builder.Build();
  ASSERT_OK(computation.status());
  EXPECT_THAT(computation->module().ToString(),
              HasSubstr("epsilon=9.99999975e-06, feature_index=1"));

  XlaBuilder bad("bn");
  XlaOp z = Parameter(&bad, 0, ShapeUtil::MakeShape(F32, {4, 3}), "z");
  BatchNormGrad(z, z, z, z, z, 0.1f, 1);
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("BatchNormGrad(f32[4,3], f32[4,3], f32[4,3], "
                                 "f32[4,3], f32[4,3], epsilon=0.1, "
                                 "feature_index=1)")));
}

}  // namespace
}  // namespace mxla
