// convolution across the layers: the text form (window, dim_labels, group
// counts), XLA's shape rule and messages, the builder's ConvGeneralDilated,
// the evaluator on hand-computed cases, and the JIT (expand-convolutions:
// one fused reduction kernel) against the interpreter, bit for bit, over
// every dimension-label order, padding, dilation, reversal and grouping.
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

// A 1-d convolution: x f32[1,1,5] with kernel f32[1,1,3] and `window`.
absl::StatusOr<Literal> Convolve1d(absl::string_view window,
                                   std::vector<float> x,
                                   std::vector<float> w) {
  const int64_t positions = x.size();
  ASSIGN_OR_RETURN(
      std::unique_ptr<HloModule> module,
      ParseHloModule(absl::StrCat(
          "HloModule m\nENTRY e {\n  x = f32[1,1,", positions,
          "] parameter(0)\n  w = f32[1,1,", w.size(),
          "] parameter(1)\n  ROOT c = convolution(x, w), window={", window,
          "}, dim_labels=bf0_oi0->bf0\n}\n")));
  RETURN_IF_ERROR(VerifyModule(*module, VerifierMode::kLowered));
  Literal lx(ShapeUtil::MakeShape(F32, {1, 1, positions}));
  Literal lw(ShapeUtil::MakeShape(F32, {1, 1, static_cast<int64_t>(w.size())}));
  std::copy(x.begin(), x.end(), lx.data<float>().begin());
  std::copy(w.begin(), w.end(), lw.data<float>().begin());
  if (!RunAndCompare(*module, {&lx, &lw})) {
    return absl::InternalError("the JIT differs from the interpreter");
  }
  return EvaluateModule(*module, {&lx, &lw});
}

std::vector<float> Values(const Literal& literal) {
  return {literal.data<float>().begin(), literal.data<float>().end()};
}

TEST(ConvolutionTest, HandComputedValues) {
  using ::testing::ElementsAre;
  // Cross-correlation: taps read x[p - 1 + k]; padding adds nothing.
  ASSERT_OK_AND_ASSIGN(Literal plain,
                       Convolve1d("size=3 pad=1_1", {1, 2, 3, 4, 5}, {1, 0, -1}));
  EXPECT_THAT(Values(plain), ElementsAre(-2, -2, -2, -2, 4));
  ASSERT_OK_AND_ASSIGN(
      Literal reversed,
      Convolve1d("size=3 pad=1_1 rhs_reversal=1", {1, 2, 3, 4, 5}, {1, 0, -1}));
  EXPECT_THAT(Values(reversed), ElementsAre(2, 2, 2, 2, -4));
  // Base dilation puts holes between the elements.
  ASSERT_OK_AND_ASSIGN(Literal holes,
                       Convolve1d("size=1 lhs_dilate=2", {1, 2, 3}, {10}));
  EXPECT_THAT(Values(holes), ElementsAre(10, 0, 20, 0, 30));
  // Window dilation and stride: taps 0 and 2 of each window, every 2nd.
  ASSERT_OK_AND_ASSIGN(
      Literal dilated,
      Convolve1d("size=2 stride=2 rhs_dilate=2", {1, 2, 3, 4, 5, 6}, {1, 10}));
  EXPECT_THAT(Values(dilated), ElementsAre(31, 53));
  // Negative padding crops.
  ASSERT_OK_AND_ASSIGN(Literal cropped,
                       Convolve1d("size=1 pad=-1_-2", {1, 2, 3, 4, 5}, {1}));
  EXPECT_THAT(Values(cropped), ElementsAre(2, 3));
  // An infinite weight over padding is skipped, not multiplied by 0.
  ASSERT_OK_AND_ASSIGN(
      Literal guarded,
      Convolve1d("size=2 pad=1_0", {1, 2}, {std::numeric_limits<float>::infinity(), 1}));
  EXPECT_THAT(Values(guarded), ElementsAre(1, std::numeric_limits<float>::infinity()));
}

TEST(ConvolutionTest, TextFormRoundTrips) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  x = f32[2,6,6,4] parameter(0)
  w = f32[3,3,2,6] parameter(1)
  ROOT c = f32[2,3,6,6] convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, feature_group_count=2, precision_config={default,default}
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kText));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  const std::string printed = module->ToString();
  EXPECT_THAT(printed,
              HasSubstr("convolution(x, w), window={size=3x3 stride=2x1 "
                        "pad=1_1x1_1 rhs_reversal=0x1}, "
                        "dim_labels=b01f_01io->b01f, feature_group_count=2\n"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                       ParseHloModule(printed));
  EXPECT_EQ(again->ToString(), printed);
  // Labels that start with a spatial dimension lex as one word.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> digits, ParseHloModule(R"(
HloModule m
ENTRY e {
  x = f32[5,3,2] parameter(0)
  w = f32[2,3,4] parameter(1)
  ROOT c = f32[4,4,2] convolution(x, w), window={size=2}, dim_labels=0fb_0io->0fb
})"));
  EXPECT_OK(VerifyModule(*digits, VerifierMode::kLowered));
}

TEST(ConvolutionTest, ParseErrorsSayWhatIsWrong) {
  auto parse_error = [](absl::string_view attributes) {
    return std::string(
        ParseHloModule(absl::StrCat(
                           "HloModule m\nENTRY e {\n  x = f32[1,5,5,2] "
                           "parameter(0)\n  w = f32[3,3,2,4] parameter(1)\n  "
                           "ROOT c = f32[1,3,3,4] convolution(x, w), ",
                           attributes, "\n}\n"))
            .status()
            .message());
  };
  EXPECT_THAT(parse_error("window={size=3x3}, dim_labels=b01f_01io->b0f"),
              HasSubstr("dim_labels=b01f_01io->b0f: lhs, rhs and output "
                        "labels must have one rank"));
  EXPECT_THAT(parse_error("window={size=3x3}, dim_labels=b01b_01io->b01f"),
              HasSubstr("'b01b' names 'b' twice"));
  EXPECT_THAT(parse_error("window={size=3x3}, dim_labels=b02f_01io->b01f"),
              HasSubstr("unexpected '2' in 'b02f'"));
  EXPECT_THAT(parse_error("window={size=3x3 step=2x2}, dim_labels=b01f_01io->b01f"),
              HasSubstr("unknown window field 'step'"));
  EXPECT_THAT(parse_error("window={size=3x3 stride=2}, dim_labels=b01f_01io->b01f"),
              HasSubstr("window field stride=2 has 1 dimensions, but the "
                        "window has 2"));
  EXPECT_THAT(parse_error("window={size=3x3}"),
              HasSubstr("dim_labels"));
}

TEST(ConvolutionTest, ShapeRuleAndXlaMessages) {
  using SI = ShapeInference;
  ASSERT_OK_AND_ASSIGN(ConvolutionDimensionNumbers nhwc,
                       ParseConvolutionDimLabels("b01f_01io->b01f"));
  const Shape x = ShapeUtil::MakeShape(F32, {2, 9, 8, 4});
  const Shape w = ShapeUtil::MakeShape(F32, {3, 3, 4, 6});
  Window window(2);
  window[0] = {3, 2, 1, 1, 1, 1, false};
  window[1] = {3, 1, 0, 0, 1, 2, false};
  EXPECT_EQ(*SI::InferConvolveShape(x, w, 1, 1, window, nhwc),
            ShapeUtil::MakeShape(F32, {2, 5, 4, 6}));
  auto error = [&](const Shape& lhs, const Shape& rhs, int64_t groups,
                   int64_t batch_groups, const Window& win) {
    return std::string(SI::InferConvolveShape(lhs, rhs, groups, batch_groups,
                                              win, nhwc)
                           .status()
                           .message());
  };
  EXPECT_THAT(error(x, w, 0, 1, window),
              HasSubstr("convolution: feature_group_count must be a positive "
                        "number, got 0"));
  EXPECT_THAT(error(x, w, 2, 2, window),
              HasSubstr("both batch_group_count 2 and feature_group_count 2 "
                        "cannot be greater than 1"));
  EXPECT_THAT(error(ShapeUtil::MakeShape(F32, {2, 9, 4}), w, 1, 1, window),
              HasSubstr("The LHS argument to a convolution should have rank "
                        "4; lhs: f32[2,9,4]"));
  EXPECT_THAT(error(x, ShapeUtil::MakeShape(F32, {3, 3, 3, 6}), 1, 1, window),
              HasSubstr("Expected LHS feature dimension (value 4) to be a "
                        "multiple of feature_group_count (value 1), and LHS "
                        "feature dimension / feature_group_count = RHS "
                        "feature dimension (value 3); got <conv>(f32[2,9,8,4], "
                        "f32[3,3,3,6]) with dim_labels=b01f_01io->b01f."));
  EXPECT_THAT(error(x, ShapeUtil::MakeShape(F32, {3, 3, 2, 5}), 2, 1, window),
              HasSubstr("Expected output feature dimension (value 5) to be "
                        "divisible by feature_group_count (value 2)"));
  EXPECT_THAT(error(ShapeUtil::MakeShape(F32, {3, 9, 8, 4}), w, 1, 2, window),
              HasSubstr("Expected input batch dimension (value 3) to be "
                        "divisible by batch_group_count (value 2)"));
  EXPECT_THAT(error(x, ShapeUtil::MakeShape(F32, {3, 2, 4, 6}), 1, 1, window),
              HasSubstr("Window dimensions do not match RHS shape: RHS shape "
                        "f32[3,2,4,6], window {size=3x3 stride=2x1 "
                        "pad=1_1x0_0 rhs_dilate=1x2}"));
  Window zero_stride = window;
  zero_stride[1].stride = 0;
  EXPECT_THAT(error(x, w, 1, 1, zero_stride),
              HasSubstr("has a non-positive stride."));
  ConvolutionDimensionNumbers twice = nhwc;
  twice.input_spatial = {1, 1};
  EXPECT_THAT(std::string(SI::InferConvolveShape(x, w, 1, 1, window, twice)
                              .status()
                              .message()),
              HasSubstr("Input dimensions of convolution must contain each "
                        "dimension exactly once: dimension 1 appears twice."));
  twice.input_spatial = {1, 7};
  EXPECT_THAT(std::string(SI::InferConvolveShape(x, w, 1, 1, window, twice)
                              .status()
                              .message()),
              HasSubstr("A dimension number is out of range in convolution: "
                        "Input dimension 7 of rank 4."));
}

TEST(ConvolutionTest, BuilderConvGeneralDilated) {
  XlaBuilder b("conv");
  ASSERT_OK_AND_ASSIGN(ConvolutionDimensionNumbers dnums,
                       ParseConvolutionDimLabels("bf0_oi0->bf0"));
  XlaOp x = ConstantLiteral(&b, LiteralUtil::CreateR3<float>({{{1, 2, 3, 4, 5}}}));
  XlaOp w = ConstantLiteral(&b, LiteralUtil::CreateR3<float>({{{1, 0, -1}}}));
  ConvGeneralDilated(x, w, /*window_strides=*/{2}, /*padding=*/{{1, 1}},
                     /*lhs_dilation=*/{}, /*rhs_dilation=*/{}, dnums);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  EXPECT_THAT(computation.module().ToString(),
              HasSubstr("window={size=3 stride=2 pad=1_1}, "
                        "dim_labels=bf0_oi0->bf0"));
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR3<float>({{{-2, -2, 4}}}));

  XlaBuilder bad("bad");
  ConvGeneralDilated(ConstantLiteral(&bad, LiteralUtil::CreateR3<float>({{{1, 2}}})),
                     ConstantLiteral(&bad, LiteralUtil::CreateR3<float>({{{1}}})), {1, 1},
                     {{0, 0}}, {}, {}, dnums);
  EXPECT_THAT(std::string(bad.Build().status().message()),
              HasSubstr("convolution: window_strides has 2 entries but "
                        "dim_labels=bf0_oi0->bf0 has 1 spatial dimensions"));
}

// The JIT against the interpreter on seeded arguments, bit for bit, in
// the interpreter's order (with reassociation the dot kernel computes
// float convolutions: tests/e2e/convolution_gemm_test.cc).
TEST(ConvolutionTest, JitMatchesTheInterpreter) {
  ::mxla::testing::RunAndCompareOptions exact;
  exact.compile.codegen.reassociate_reductions = false;
  struct Case {
    const char* x;
    const char* w;
    const char* attributes;
  };
  const Case cases[] = {
      {"f32[2,7,6,3]", "f32[3,2,3,4]",
       "window={size=3x2 stride=2x1 pad=1_1x0_1}, dim_labels=b01f_01io->b01f"},
      {"f32[2,3,9]", "f32[5,3,2]",
       "window={size=2 stride=3 pad=2_1 lhs_dilate=2 rhs_dilate=3}, "
       "dim_labels=bf0_oi0->bf0"},
      {"f32[1,6,6,4]", "f32[3,3,2,6]",
       "window={size=3x3 pad=1_1x1_1 rhs_reversal=1x0}, "
       "dim_labels=b01f_01io->b01f, feature_group_count=2"},
      {"f32[4,5,3]", "f32[2,3,6]",
       "window={size=2}, dim_labels=b0f_0io->b0f, batch_group_count=2"},
      {"f32[3,4]", "f32[4,5]", "dim_labels=bf_io->bf"},
      {"f16[1,4,4,2]", "f32[2,2,2,3]",
       "window={size=2x2 pad=0_1x1_0}, dim_labels=b01f_01io->b01f"},
      {"bf16[2,5,3]", "bf16[3,3,2]",
       "window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f"},
      {"s32[1,5,2]", "s32[3,2,2]",
       "window={size=3 stride=2 pad=2_2}, dim_labels=b0f_0io->b0f"},
      {"f32[3,8,2]", "f32[2,3,4]",
       "window={size=3 pad=-1_2}, dim_labels=b0f_i0o->b0f"},
      {"f32[2,5,4,3]", "f32[2,3,3,4]",
       "window={size=3x3 stride=1x2 pad=0_2x1_1 lhs_dilate=2x1 "
       "rhs_dilate=1x2 rhs_reversal=1x1}, dim_labels=f01b_i01o->01bf"},
      {"f32[1,3,2]", "f32[5,2,4]",
       "window={size=5}, dim_labels=b0f_0io->b0f"},  // no window fits
  };
  for (const Case& c : cases) {
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = ", c.x, " parameter(0)\n  w = ", c.w,
        " parameter(1)\n  ROOT c = convolution(x, w), ", c.attributes,
        "\n}\n");
    EXPECT_TRUE(RunAndCompare(text, exact)) << text;
  }
}

TEST(ConvolutionTest, JitFusesTheWholeConvolution) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY e {
  x = f32[1,5,5,2] parameter(0)
  w = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,3,3,4] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"));
  // In the interpreter's order (without reassociation: with it, the dot
  // kernel computes it, tests/e2e/convolution_gemm_test.cc).
  CompileOptions exact;
  exact.codegen.reassociate_reductions = false;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, exact));
  // One reduction kernel reads x and w; no patch buffer is materialized.
  int reductions = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    if (instruction->fusion_kind() == FusionKind::kInput) {
      ++reductions;
      EXPECT_EQ(instruction->operand(0)->opcode(), HloOpcode::kParameter);
      EXPECT_EQ(instruction->operand(1)->opcode(), HloOpcode::kParameter);
    }
  }
  EXPECT_EQ(reductions, 1);
}

}  // namespace
}  // namespace mxla
