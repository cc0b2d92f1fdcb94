// Convolutions on the dot kernel (ir/conv_product.h): with reassociation,
// an f32 or f64 convolution of one group stays a convolution, brought into
// the product form, and the dot kernel computes it as an implicit matrix
// product, reading its input's windows in place. Checked against the
// interpreter over every dimension-label form and window attribute, with
// epilogues, at 1, 2 and 3 threads, and on seeded random convolutions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/conv_product.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/random_conv_labels.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::ErrorSpec;
using ::mxla::testing::MakeSeededArguments;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::RunAtThreadCounts;
using ::mxla::testing::VerifyHloText;
using ::testing::HasSubstr;
using ::testing::Not;

// ROOT c = convolution(x, w) with `attributes`, the result shape inferred.
std::string ConvModule(const std::string& x, const std::string& w,
                       const std::string& attributes) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", x,
                      " parameter(0)\n  w = ", w,
                      " parameter(1)\n  ROOT c = convolution(x, w), ",
                      attributes, "\n}\n");
}

std::unique_ptr<HloModule> Fused(const std::string& text,
                                 const CompileOptions& options = {}) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  return OptimizeForBackend(*module, options).value();
}

// The kernel's sums run in another order with fused multiply-adds: within
// rounding of the interpreter's.
RunAndCompareOptions Close() {
  RunAndCompareOptions options;
  options.compile.codegen.reassociate_reductions = true;
  options.error = ErrorSpec{2e-4, 2e-4};
  return options;
}

// The fusions of `fused`'s entry that compute a convolution.
std::vector<const HloInstruction*> ConvolutionKernels(const HloModule& fused) {
  std::vector<const HloInstruction*> kernels;
  for (const HloInstruction* instruction :
       fused.entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    for (const HloInstruction* member : instruction->to_apply()->instructions()) {
      if (member->opcode() == HloOpcode::kConvolution) {
        kernels.push_back(instruction);
        break;
      }
    }
  }
  return kernels;
}

TEST(ConvolutionGemmTest, FloatConvolutionsBecomeDotKernels) {
  const std::string nhwc = ConvModule(
      "f32[2,9,9,16]", "f32[3,3,16,24]",
      "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  std::unique_ptr<HloModule> fused = Fused(nhwc);
  std::vector<const HloInstruction*> kernels = ConvolutionKernels(*fused);
  ASSERT_EQ(kernels.size(), 1u) << fused->ToString();
  EXPECT_EQ(kernels[0]->fusion_kind(), FusionKind::kOutput);
  EXPECT_TRUE(kernels[0]->fusion_plan()->is_dot());
  // Whole taps per k slice: 16 features x 9 taps = 144 steps.
  EXPECT_THAT(kernels[0]->fusion_plan()->ToString(), HasSubstr("k_block=144"));
  // The input and the kernel are read where they are.
  EXPECT_EQ(kernels[0]->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(kernels[0]->operand(1)->opcode(), HloOpcode::kParameter);
  // The plan round-trips through text and still verifies; a plan whose k
  // slices split a tap is refused.
  const std::string text = fused->ToString();
  EXPECT_EQ(ParseHloModule(text).value()->ToString(), text);
  std::string split = text;
  split.replace(split.find("k_block=144"), 11, "k_block=100");
  EXPECT_THAT(VerifyHloText(split).message(),
              HasSubstr("a convolution's k_block must hold whole taps: a "
                        "multiple of its 16 input features"));

  // NCHW/OIHW (what PyTorch exports): the input is made feature-minor and
  // the result transposed back, by kernels of their own.
  std::unique_ptr<HloModule> nchw = Fused(ConvModule(
      "f32[1,8,6,6]", "f32[4,8,3,3]",
      "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"));
  kernels = ConvolutionKernels(*nchw);
  ASSERT_EQ(kernels.size(), 1u) << nchw->ToString();
  const HloInstruction* conv = nullptr;
  for (const HloInstruction* member : kernels[0]->to_apply()->instructions()) {
    if (member->opcode() == HloOpcode::kConvolution) conv = member;
  }
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(IsConvolutionProduct(*conv)) << conv->ToString();
  EXPECT_THAT(conv->ToString(), HasSubstr("dim_labels=b01f_oi01->b01f"));

  // Without reassociation, and for integers, the expansion's reduction
  // computes it in the interpreter's order. Groups are a product each
  // (tests/e2e/grouped_convolution_test.cc).
  CompileOptions exact;
  exact.codegen.reassociate_reductions = false;
  EXPECT_TRUE(ConvolutionKernels(*Fused(nhwc, exact)).empty());
  EXPECT_EQ(ConvolutionKernels(*Fused(ConvModule(
                "f32[1,6,6,16]", "f32[3,3,8,6]",
                "window={size=3x3}, dim_labels=b01f_01io->b01f, "
                "feature_group_count=2")))
                .size(),
            2u);
  EXPECT_TRUE(ConvolutionKernels(*Fused(ConvModule(
                  "s32[1,6,6,4]", "s32[3,3,4,6]",
                  "window={size=3x3}, dim_labels=b01f_01io->b01f")))
                  .empty());
}

// Every dimension-label order and window attribute, odd sizes, inputs
// read in place (>= 8 features) and packed (fewer), f32 and f64.
TEST(ConvolutionGemmTest, EveryFormMatchesTheInterpreter) {
  struct Case {
    const char* x;
    const char* w;
    const char* attributes;
  };
  const Case cases[] = {
      // 1x1, stride 1: a plain matrix product over the rows.
      {"f32[2,7,5,32]", "f32[1,1,32,40]",
       "window={size=1x1}, dim_labels=b01f_01io->b01f"},
      // 7x7 stride 2 with 3 features (packed), as ResNet's first layer.
      {"f32[1,23,23,3]", "f32[7,7,3,16]",
       "window={size=7x7 stride=2x2 pad=3_3x3_3}, dim_labels=b01f_01io->b01f"},
      // 3x3 over 16 features, padded (in place, zero rows in the padding).
      {"f32[2,9,11,16]", "f32[3,3,16,70]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
      // Padding larger than the window, negative padding, dilations.
      {"f32[1,5,6,8]", "f32[2,2,8,5]",
       "window={size=2x2 pad=3_4x-1_2}, dim_labels=b01f_01io->b01f"},
      {"f32[1,9,9,8]", "f32[3,3,8,8]",
       "window={size=3x3 stride=2x1 pad=2_2x1_1 lhs_dilate=2x1 "
       "rhs_dilate=1x2 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f"},
      // PyTorch's NCHW/OIHW, and stranger orders.
      {"f32[2,12,7,7]", "f32[10,12,3,3]",
       "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
      {"f32[9,2,8,5]", "f32[8,3,2,6]",
       "window={size=3x2 pad=0_1x1_1 rhs_reversal=1x1}, "
       "dim_labels=0bf1_i01o->f01b"},
      // 1-d and 3-d, and no spatial dimension at all.
      {"f32[3,17,12]", "f32[5,12,9]",
       "window={size=5 stride=3 pad=2_2}, dim_labels=b0f_0io->b0f"},
      {"f32[1,4,5,6,8]", "f32[2,3,2,8,4]",
       "window={size=2x3x2 pad=1_0x1_1x0_1}, dim_labels=b012f_012io->b012f"},
      {"f32[5,12]", "f32[12,7]", "dim_labels=bf_io->bf"},
      // f64.
      {"f64[1,6,6,8]", "f64[3,3,8,5]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
      // No window position fits: an empty result.
      {"f32[1,3,2]", "f32[5,2,4]", "window={size=5}, dim_labels=b0f_0io->b0f"},
      // Empty features: sums of nothing.
      {"f32[1,4,0]", "f32[2,0,3]", "window={size=2}, dim_labels=b0f_0io->b0f"},
  };
  for (const Case& c : cases) {
    const std::string text = ConvModule(c.x, c.w, c.attributes);
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

// The convolution of x and w (window 2, padded 1 before, 8 output
// features) with w's first weight infinite and x positive: position 0
// takes that weight only in the padding, so stays finite, while position
// 1 (element 8) takes it on x and is infinite; the JIT agrees.
void ExpectInfiniteWeightInPaddingSkipped(const std::string& x,
                                          const std::string& w) {
  const std::string text =
      ConvModule(x, w, "window={size=2 pad=1_0}, dim_labels=b0f_0io->b0f");
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, 2);
  arguments[1].data<float>()[0] = std::numeric_limits<float>::infinity();
  for (float& v : arguments[0].data<float>()) v = std::abs(v) + 1;
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments), Close()));
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  EXPECT_TRUE(std::isfinite(expected.data<float>()[0]));  // position 0
  EXPECT_TRUE(std::isinf(expected.data<float>()[8]));     // position 1
}

// A tap in padding is skipped, as the interpreter skips it: an infinite
// weight there adds nothing (0 x inf would be NaN), in the masked border
// loop; inside, the same weight makes the sum infinite.
TEST(ConvolutionGemmTest, TapsInPaddingAreSkipped) {
  ExpectInfiniteWeightInPaddingSkipped("f32[1,3,8]", "f32[2,8,8]");
}

// Each output element is computed by one unit in one order: 1, 2 and 3
// threads give the same bits, near the interpreter's.
void ExpectSameBitsAtEveryThreadCount(const std::string& text, int seed) {
  SCOPED_TRACE(text);
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, seed);
  CompileOptions options;
  options.codegen.reassociate_reductions = true;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, options));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      RunAtThreadCounts(*executable, Pointers(arguments), {1, 2, 3}));
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, results[0], 2e-4, 2e-4));
}

// pad(x, 0) -> convolution, as Keras writes ResNet's first layer.
std::string PaddedConvModule(const std::string& pad_value,
                             const std::string& padding) {
  return absl::StrCat(R"(HloModule m
ENTRY e {
  x = f32[2,9,7,5] parameter(0)
  w = f32[3,2,5,6] parameter(1)
  zero = f32[] constant()", pad_value, R"()
  p = pad(x, zero), padding=)", padding, R"(
  ROOT c = convolution(p, w), window={size=3x2 stride=2x1 pad=1_0x0_1}, dim_labels=b01f_01io->b01f
})");
}

// A zero pad of the input joins the convolution's kernel, which reads x
// through it: the pad's taps multiply zeros, as over the padded input,
// while the window's own padding is skipped. Same bits at 1, 2 and 3
// threads, near the interpreter's.
TEST(ConvolutionGemmTest, AZeroPadOfTheInputJoinsTheKernel) {
  const std::string text = PaddedConvModule("0", "0_0x3_2x1_1x0_0");
  std::unique_ptr<HloModule> fused = Fused(text);
  std::vector<const HloInstruction*> kernels = ConvolutionKernels(*fused);
  ASSERT_EQ(kernels.size(), 1u) << fused->ToString();
  int64_t fusions = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    fusions += instruction->opcode() == HloOpcode::kFusion;
  }
  EXPECT_EQ(fusions, 1) << fused->ToString();
  EXPECT_EQ(kernels[0]->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_THAT(kernels[0]->to_apply()->ToString(), HasSubstr("pad("));
  ExpectSameBitsAtEveryThreadCount(text, 3);
}

// The pad's zeros are multiplied: an infinite weight on a tap that lands
// in them makes NaN, in the interpreter and in the kernel alike.
TEST(ConvolutionGemmTest, TapsOnAnInputPadMultiplyItsZeros) {
  const std::string text = PaddedConvModule("0", "0_0x3_2x1_1x0_0");
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, 4);
  arguments[1].data<float>()[0] = std::numeric_limits<float>::infinity();
  CompileOptions options;
  options.codegen.reassociate_reductions = true;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, options));
  ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run(Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  absl::Span<const float> want = expected.data<float>();
  absl::Span<const float> got = actual.data<float>();
  ASSERT_EQ(want.size(), got.size());
  int64_t nans = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(std::isnan(want[i]), std::isnan(got[i])) << "element " << i;
    nans += std::isnan(want[i]);
  }
  EXPECT_GT(nans, 0);  // output feature 0 where tap (0, 0) is in the pad
  EXPECT_OK(LiteralUtil::Near(expected, actual, 2e-4, 2e-4));
}

// Pads the kernel does not read through stay kernels of their own, and
// the result is still the interpreter's: another value (-0 too),
// interior padding, a padded batch, and negative padding.
TEST(ConvolutionGemmTest, OtherPadsOfTheInputStayMaterialized) {
  for (const auto& [value, padding] :
       std::vector<std::pair<std::string, std::string>>{
           {"1", "0_0x3_2x1_1x0_0"},
           {"-0", "0_0x3_2x1_1x0_0"},
           {"0", "0_0x1_1_1x1_1x0_0"},
           {"0", "1_0x1_1x1_1x0_0"},
           {"0", "0_0x-1_2x1_1x0_0"}}) {
    const std::string text = PaddedConvModule(value, padding);
    SCOPED_TRACE(text);
    std::unique_ptr<HloModule> fused = Fused(text);
    std::vector<const HloInstruction*> kernels = ConvolutionKernels(*fused);
    ASSERT_EQ(kernels.size(), 1u) << fused->ToString();
    EXPECT_THAT(kernels[0]->to_apply()->ToString(), Not(HasSubstr("pad(")));
    EXPECT_TRUE(RunAndCompare(text, Close()));
  }
}

// Seeded random zero pads in front of random 2-d convolutions.
TEST(ConvolutionGemmTest, RandomInputPadsMatchTheInterpreter) {
  std::mt19937 rng(29);
  auto draw = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 12; ++trial) {
    const int h = draw(1, 8), w = draw(1, 8), c = draw(1, 9), o = draw(1, 9);
    const int kh = draw(1, std::min(3, h)), kw = draw(1, std::min(3, w));
    const std::string padding =
        absl::StrCat("0_0x", draw(0, 3), "_", draw(0, 3), "x", draw(0, 3),
                     "_", draw(0, 3), "x0_0");
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = f32[", draw(1, 3), ",", h, ",", w, ",",
        c, "] parameter(0)\n  w = f32[", kh, ",", kw, ",", c, ",", o,
        "] parameter(1)\n  zero = f32[] constant(0)\n  p = pad(x, zero), "
        "padding=",
        padding, "\n  ROOT c = convolution(p, w), window={size=", kh, "x", kw,
        " stride=", draw(1, 2), "x", draw(1, 2), " pad=", draw(0, 1), "_",
        draw(0, 1), "x", draw(0, 1), "_", draw(0, 1), " lhs_dilate=1x",
        draw(1, 2), "}, dim_labels=b01f_01io->b01f\n}\n");
    RunAndCompareOptions options = Close();
    options.seed = trial;
    EXPECT_TRUE(RunAndCompare(text, options)) << text;
  }
}

// ResNet's block: conv -> batch norm (scale, shift) -> residual add ->
// relu is one kernel that writes its output once.
constexpr char kResidualBlock[] = R"(HloModule m
ENTRY e {
  x = f32[2,14,14,64] parameter(0)
  w = f32[3,3,64,64] parameter(1)
  scale = f32[64] parameter(2)
  shift = f32[64] parameter(3)
  c = f32[2,14,14,64] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  sb = f32[2,14,14,64] broadcast(scale), dimensions={3}
  hb = f32[2,14,14,64] broadcast(shift), dimensions={3}
  m = f32[2,14,14,64] multiply(c, sb)
  n = f32[2,14,14,64] add(m, hb)
  r = f32[2,14,14,64] add(n, x)
  z = f32[] constant(0)
  zb = f32[2,14,14,64] broadcast(z), dimensions={}
  ROOT y = f32[2,14,14,64] maximum(r, zb)
})";

TEST(ConvolutionGemmTest, EpiloguesJoinTheKernel) {
  std::unique_ptr<HloModule> fused = Fused(kResidualBlock);
  std::vector<const HloInstruction*> kernels = ConvolutionKernels(*fused);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0], fused->entry_computation()->root_instruction())
      << fused->ToString();
  int fusions = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    fusions += instruction->opcode() == HloOpcode::kFusion;
  }
  EXPECT_EQ(fusions, 1) << fused->ToString();
  EXPECT_TRUE(RunAndCompare(kResidualBlock, Close()));
  ExpectSameBitsAtEveryThreadCount(kResidualBlock, 4);
}

// A producer of the input is materialized (the kernel reads rows of a
// buffer), and a chain of convolutions gives each its own kernel.
TEST(ConvolutionGemmTest, InputProducersAreMaterialized) {
  constexpr char kChain[] = R"(HloModule m
ENTRY e {
  x = f32[1,10,10,8] parameter(0)
  w1 = f32[3,3,8,16] parameter(1)
  w2 = f32[1,1,16,12] parameter(2)
  z = f32[] constant(0)
  zx = f32[1,10,10,8] broadcast(z), dimensions={}
  rx = f32[1,10,10,8] maximum(x, zx)
  c1 = f32[1,10,10,16] convolution(rx, w1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  z1 = f32[1,10,10,16] broadcast(z), dimensions={}
  r1 = f32[1,10,10,16] maximum(c1, z1)
  ROOT c2 = f32[1,10,10,12] convolution(r1, w2), window={size=1x1}, dim_labels=b01f_01io->b01f
})";
  std::unique_ptr<HloModule> fused = Fused(kChain);
  std::vector<const HloInstruction*> kernels = ConvolutionKernels(*fused);
  ASSERT_EQ(kernels.size(), 2u) << fused->ToString();
  for (const HloInstruction* kernel : kernels) {
    // The kernel's input parameter feeds the convolution directly.
    EXPECT_NE(kernel->to_apply()
                  ->parameter_instruction(0)
                  ->users()[0]
                  ->opcode(),
              HloOpcode::kMaximum);
  }
  EXPECT_TRUE(RunAndCompare(kChain, Close()));
}

TEST(ConvolutionGemmTest, ThreadCountsGiveTheSameBits) {
  // Several units along m and a k split into whole-tap slices.
  ExpectSameBitsAtEveryThreadCount(
      ConvModule("f32[2,20,20,48]", "f32[3,3,48,80]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
      7);
  ExpectSameBitsAtEveryThreadCount(
      ConvModule("f32[1,32,32,3]", "f32[7,7,3,64]",
                 "window={size=7x7 stride=2x2 pad=3_3x3_3}, "
                 "dim_labels=b01f_01io->b01f"),
      8);
}

// The taps along the last window dimension read one contiguous run of the
// input per row where it is undilated and the second most minor: one loop
// over the run inside, the taps one by one where a row's run crosses the
// padding (left, right, both, an input pad's zeros), and the rows past m in
// a last partial tile. The same products in the same order: the same bits
// at 1, 2 and 3 threads, near the interpreter's.
TEST(ConvolutionGemmTest, RunsOfTapsMatchTheInterpreter) {
  const std::string cases[] = {
      // ResNet's first layer, smaller, with its bias and relu.
      R"(HloModule m
ENTRY e {
  x = f32[1,29,27,3] parameter(0)
  w = f32[7,7,3,20] parameter(1)
  b = f32[20] parameter(2)
  c = f32[1,15,14,20] convolution(x, w), window={size=7x7 stride=2x2 pad=3_3x3_3}, dim_labels=b01f_01io->b01f
  bb = f32[1,15,14,20] broadcast(b), dimensions={3}
  a = f32[1,15,14,20] add(c, bb)
  z = f32[] constant(0)
  zb = f32[1,15,14,20] broadcast(z), dimensions={}
  ROOT r = f32[1,15,14,20] maximum(a, zb)
})",
      // Asymmetric padding, a reversed run, a stride along it, odd m.
      ConvModule("f32[2,11,9,5]", "f32[3,5,5,7]",
                 "window={size=3x5 stride=1x2 pad=2_1x0_3 rhs_reversal=0x1}, "
                 "dim_labels=b01f_01io->b01f"),
      // Dilations on the other dimension only; a window wider than the
      // input, so that no run is inside.
      ConvModule("f32[1,6,4,9]", "f32[2,6,9,4]",
                 "window={size=2x6 pad=1_1x3_2 lhs_dilate=2x1 "
                 "rhs_dilate=2x1}, dim_labels=b01f_01io->b01f"),
      // 1-d, and 3-d (runs along the last of three).
      ConvModule("f32[3,19,4]", "f32[4,4,6]",
                 "window={size=4 stride=3 pad=1_2}, dim_labels=b0f_0io->b0f"),
      ConvModule("f32[1,4,5,7,3]", "f32[2,2,3,3,5]",
                 "window={size=2x2x3 pad=0_1x1_0x1_1}, "
                 "dim_labels=b012f_012io->b012f"),
      // PyTorch's NCHW (the input made feature-minor first), and f64.
      ConvModule("f32[2,6,10,9]", "f32[11,6,3,3]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"),
      ConvModule("f64[1,8,9,4]", "f64[3,3,4,5]",
                 "window={size=3x3 stride=2x2 pad=1_1x1_1}, "
                 "dim_labels=b01f_01io->b01f"),
  };
  for (const std::string& text : cases) {
    ExpectSameBitsAtEveryThreadCount(text, 12);
  }
}

// A convolution of few rows (batch x positions <= 512) and many features,
// as ResNet's 14x14 and 7x7 stages: each unit takes all the rows and 64
// features, k in one slice where the packed weights fit 1 MiB (with an
// epilogue too, past the 2,048 steps of a dot's), else in the fewest equal
// slices of whole taps. Same bits at 1, 2 and 3 threads, near the
// interpreter's.
TEST(ConvolutionGemmTest, FewRowsSplitTheFeatures) {
  struct Case {
    std::string text;
    const char* plan;
  };
  const std::string relu_bias = R"(
  b = f32[200] parameter(2)
  bb = f32[2,5,7,200] broadcast(b), dimensions={3}
  a = f32[2,5,7,200] add(c, bb)
  z = f32[] constant(0)
  zb = f32[2,5,7,200] broadcast(z), dimensions={}
  ROOT r = f32[2,5,7,200] maximum(a, zb)
})";
  const Case cases[] = {
      // 3x3 over 288 features: k = 2,592 in one slice; 200 features make
      // 4 units, the last of 8.
      {ConvModule("f32[1,9,9,288]", "f32[3,3,288,200]",
                  "window={size=3x3 pad=1_1x1_1}, "
                  "dim_labels=b01f_01io->b01f"),
       "units=4, m_block=81, n_block=64, k_block=2592"},
      // k = 5 x 5 x 200 = 5,000 (1.2 MiB of packed weights): two slices
      // of 13 and 12 taps.
      {ConvModule("f32[1,6,6,200]", "f32[5,5,200,130]",
                  "window={size=5x5 pad=2_2x2_2}, "
                  "dim_labels=b01f_01io->b01f"),
       "units=3, m_block=36, n_block=64, k_block=2600"},
      // The same rows in PyTorch's NCHW, with a stride.
      {ConvModule("f32[1,300,13,13]", "f32[140,300,3,3]",
                  "window={size=3x3 stride=2x2 pad=1_1x1_1}, "
                  "dim_labels=bf01_oi01->bf01"),
       "units=3, m_block=49, n_block=64, k_block=2700"},
      // An epilogue past 2,048 steps joins the kernel: k = 3 x 3 x 300.
      {absl::StrCat("HloModule m\nENTRY e {\n  x = f32[2,5,7,300] "
                    "parameter(0)\n  w = f32[3,3,300,200] parameter(1)\n  "
                    "c = f32[2,5,7,200] convolution(x, w), window={size=3x3 "
                    "pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
                    relu_bias),
       "units=4, m_block=70, n_block=64, k_block=2700"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::unique_ptr<HloModule> fused = Fused(c.text, Close().compile);
    std::vector<const HloInstruction*> kernels = ConvolutionKernels(*fused);
    ASSERT_EQ(kernels.size(), 1u) << fused->ToString();
    EXPECT_THAT(kernels[0]->fusion_plan()->ToString(), HasSubstr(c.plan));
    ExpectSameBitsAtEveryThreadCount(c.text, 11);
  }
  // The epilogue's kernel is the whole module.
  std::unique_ptr<HloModule> fused = Fused(cases[3].text, Close().compile);
  int fusions = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    fusions += instruction->opcode() == HloOpcode::kFusion;
  }
  EXPECT_EQ(fusions, 1) << fused->ToString();
}

// Depthwise convolutions (a group per feature) run on their own kernel
// (codegen/depthwise_emitter.h): one dot fusion whose unit takes all taps
// and features of its rows; base dilation falls back to the elementwise sum
// of taps (passes/depthwise_convolution.h). Every form near the
// interpreter's, the same bits at 1, 2 and 3 threads.
TEST(ConvolutionGemmTest, DepthwiseConvolutionsRunOnTheirKernel) {
  const std::string nhwc = ConvModule(
      "f32[2,9,10,24]", "f32[3,3,1,24]",
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
      "feature_group_count=24");
  std::unique_ptr<HloModule> fused = Fused(nhwc);
  int fusions = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    ++fusions;
    EXPECT_EQ(instruction->fusion_kind(), FusionKind::kOutput);
  }
  EXPECT_EQ(fusions, 1) << fused->ToString();
  std::vector<const HloInstruction*> kernels = ConvolutionKernels(*fused);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_THAT(kernels[0]->fusion_plan()->ToString(),
              HasSubstr("n_block=24, k_block=9"));
  // The plan round-trips; one that splits the taps is refused.
  const std::string text = fused->ToString();
  EXPECT_EQ(ParseHloModule(text).value()->ToString(), text);
  std::string split = text;
  split.replace(split.find("k_block=9"), 9, "k_block=3");
  EXPECT_THAT(VerifyHloText(split).message(),
              HasSubstr("a depthwise convolution's unit takes all its 9 taps "
                        "and 24 features"));
  // With base dilation, or weights past the kernel's stack bound (8x8
  // taps of 16,384 features: 4.2 MB), the elementwise sum, a loop kernel.
  EXPECT_TRUE(ConvolutionKernels(*Fused(ConvModule(
                  "f32[1,6,6,8]", "f32[3,3,1,8]",
                  "window={size=3x3 lhs_dilate=2x1}, "
                  "dim_labels=b01f_01io->b01f, feature_group_count=8")))
                  .empty());
  EXPECT_TRUE(ConvolutionKernels(*Fused(ConvModule(
                  "f32[1,8,8,16384]", "f32[8,8,1,16384]",
                  "window={size=8x8}, dim_labels=b01f_01io->b01f, "
                  "feature_group_count=16384")))
                  .empty());

  struct Case {
    const char* x;
    const char* w;
    const char* attributes;
  };
  const Case cases[] = {
      {"f32[2,9,10,24]", "f32[3,3,1,24]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=24"},
      {"f32[1,11,11,16]", "f32[5,5,1,16]",
       "window={size=5x5 stride=2x2 pad=2_1x0_3 rhs_dilate=1x2 "
       "lhs_dilate=2x1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=16"},
      {"f32[2,8,7,7]", "f32[8,1,3,3]",
       "window={size=3x3 stride=2x1 pad=1_1x-1_1}, dim_labels=bf01_oi01->bf01, "
       "feature_group_count=8"},
      {"f64[1,13,5]", "f64[3,1,5]",
       "window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f, "
       "feature_group_count=5"},
  };
  for (const Case& c : cases) {
    const std::string text = ConvModule(c.x, c.w, c.attributes);
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
  // An infinite weight over padding adds nothing.
  const std::string padded =
      ConvModule("f32[1,3,8]", "f32[2,1,8]",
                 "window={size=2 pad=1_0}, dim_labels=b0f_0io->b0f, "
                 "feature_group_count=8");
  std::unique_ptr<HloModule> module = ParseHloModule(padded).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, 3);
  arguments[1].data<float>()[0] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments), Close()));
  ExpectSameBitsAtEveryThreadCount(nhwc, 5);
}

// The depthwise kernel with an epilogue (MobileNet's bias and relu6), odd
// sizes, strides, dilations, padding, reversal, both layouts, f64, 16-bit
// operands (widened to f32) and features that are and are not whole
// vectors: near the interpreter's, the same bits at 1, 2 and 3 threads.
TEST(ConvolutionGemmTest, DepthwiseKernelForms) {
  const std::string relu6 = R"(HloModule m
ENTRY e {
  x = f32[2,13,11,48] parameter(0)
  w = f32[3,3,1,48] parameter(1)
  b = f32[48] parameter(2)
  c = f32[2,7,11,48] convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=48
  bb = f32[2,7,11,48] broadcast(b), dimensions={3}
  a = f32[2,7,11,48] add(c, bb)
  z = f32[] constant(0)
  six = f32[] constant(6)
  zb = f32[2,7,11,48] broadcast(z), dimensions={}
  sb = f32[2,7,11,48] broadcast(six), dimensions={}
  ROOT r = f32[2,7,11,48] clamp(zb, a, sb)
})";
  std::unique_ptr<HloModule> fused = Fused(relu6);
  int fusions = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    fusions += instruction->opcode() == HloOpcode::kFusion;
  }
  EXPECT_EQ(fusions, 1) << fused->ToString();
  ExpectSameBitsAtEveryThreadCount(relu6, 6);
  const std::string cases[] = {
      ConvModule("f32[1,9,10,37]", "f32[5,3,1,37]",
                 "window={size=5x3 stride=2x3 pad=2_3x0_2 rhs_dilate=2x1 "
                 "rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=37"),
      ConvModule("f32[3,20,6,6]", "f32[20,1,3,3]",
                 "window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, "
                 "dim_labels=bf01_oi01->bf01, feature_group_count=20"),
      ConvModule("f32[2,17,32]", "f32[7,1,32]",
                 "window={size=7 pad=3_3 rhs_dilate=2}, "
                 "dim_labels=b0f_0io->b0f, feature_group_count=32"),
      ConvModule("f64[1,5,6,24]", "f64[3,3,1,24]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=24"),
      ConvModule("bf16[1,7,7,16]", "bf16[3,3,1,16]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=16"),
      // Every tap of some positions off the input (a window wider than the
      // padded input's side).
      ConvModule("f32[1,2,3,17]", "f32[4,4,1,17]",
                 "window={size=4x4 pad=3_3x2_2}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=17"),
  };
  for (const std::string& text : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(ConvolutionKernels(*Fused(text)).size(), 1u);
    ExpectSameBitsAtEveryThreadCount(text, 7);
  }
}

// The kernel aligns its feature vectors to the input's address: an input
// at every offset from a 64-byte boundary (a NumPy array's is 16) gives
// the same bits as an aligned one.
TEST(ConvolutionGemmTest, DepthwiseInputAtAnyAlignment) {
  for (const char* type : {"f32", "f64"}) {
    const std::string text = ConvModule(
        absl::StrCat(type, "[1,6,7,32]"), absl::StrCat(type, "[3,3,1,32]"),
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
        "feature_group_count=32");
    SCOPED_TRACE(text);
    std::unique_ptr<HloModule> module = ParseHloModule(text).value();
    std::vector<Literal> arguments = MakeSeededArguments(*module, 8);
    CompileOptions options;
    options.codegen.reassociate_reductions = true;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*module, options));
    ASSERT_OK_AND_ASSIGN(Literal aligned, executable->Run(Pointers(arguments)));
    const int64_t bytes = arguments[0].size_bytes();
    const int64_t width = std::string(type) == "f32" ? 4 : 8;
    std::vector<char> storage(bytes + 128);
    char* base = storage.data() + (64 - reinterpret_cast<uintptr_t>(
                                            storage.data()) % 64);
    for (int64_t offset = 0; offset < 64; offset += width) {
      std::memcpy(base + offset, arguments[0].untyped_data(), bytes);
      Literal result = aligned;
      std::memset(result.untyped_data(), 0xff, result.size_bytes());
      const void* inputs[] = {base + offset, arguments[1].untyped_data()};
      void* results[] = {result.untyped_data()};
      ASSERT_OK(executable->RunBuffers(inputs, results));
      EXPECT_EQ(result, aligned) << "input " << offset << " bytes past a line";
    }
  }
}

// Tiles whose rows are consecutive positions of one output row read each
// tap through row 0's position (ContiguousTapRows): output rows a whole
// number of tiles wide and not, the 6-row and the 12-row tiles (64 and 8
// features out), one and three input features, stride 2, window
// dilation, padding on both sides wider than a tap, an infinite weight
// that the window's padding must skip, and batches. The same bits at 1, 2
// and 3 threads, near the interpreter's.
TEST(ConvolutionGemmTest, ContiguousRowsMatchTheInterpreter) {
  const std::string windows[] = {
      "window={size=3x3 pad=1_1x1_1}",
      "window={size=3x3 stride=2x2 pad=1_1x2_2}",
      "window={size=2x3 pad=0_1x2_1 rhs_dilate=1x2}",
      "window={size=5x5 pad=2_2x3_3}",
  };
  int seed = 0;
  for (const char* width : {"12", "13", "24", "7"}) {
    for (const char* in : {"1", "3"}) {
      for (const char* out : {"8", "64"}) {
        for (const std::string& window : windows) {
          ExpectSameBitsAtEveryThreadCount(
              ConvModule(absl::StrCat("f32[3,6,", width, ",", in, "]"),
                         absl::StrCat("f32[", window.find("size=2x3") !=
                                                      std::string::npos
                                                  ? "2,3"
                                                  : window.find("size=5x5") !=
                                                            std::string::npos
                                                        ? "5,5"
                                                        : "3,3",
                                      ",", in, ",", out, "]"),
                         window + ", dim_labels=b01f_01io->b01f"),
              ++seed);
        }
      }
    }
  }
  // An infinite weight under the window's padding adds nothing, in a
  // tile of 12 contiguous rows: position 0 stays finite, position 1 not.
  ExpectInfiniteWeightInPaddingSkipped("f32[1,12,1]", "f32[2,1,8]");
}

// Seeded random convolutions: random ranks, sizes, windows and layouts,
// dense or depthwise, each drawn so that the result is non-empty or empty
// by chance.
TEST(ConvolutionGemmTest, RandomConvolutionsMatchTheInterpreter) {
  std::mt19937 rng(20261128);
  auto draw = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int tested = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = draw(1, 2);
    const int rank = n + 2;
    const ConvolutionDimensionNumbers dnums = testing::RandomConvLabels(n, rng);
    const int64_t batch = draw(1, 3), features = draw(1, 20);
    // A quarter are depthwise: a group per feature.
    const int64_t groups = features > 1 && draw(0, 3) == 0 ? features : 1;
    const int64_t outputs = groups > 1 ? features : draw(1, 70);
    std::vector<int64_t> x_dims(rank), w_dims(rank);
    x_dims[dnums.input_batch] = batch;
    x_dims[dnums.input_feature] = features;
    w_dims[dnums.kernel_input_feature] = features / groups;
    w_dims[dnums.kernel_output_feature] = outputs;
    Window window;
    for (int i = 0; i < n; ++i) {
      WindowDimension d;
      d.size = draw(1, 4);
      d.stride = draw(1, 3);
      d.padding_low = draw(-1, 3);
      d.padding_high = draw(-1, 3);
      d.base_dilation = draw(1, 4) == 4 ? 2 : 1;
      d.window_dilation = draw(1, 4) == 4 ? 2 : 1;
      d.reversal = draw(0, 3) == 0;
      window.push_back(d);
      x_dims[dnums.input_spatial[i]] = draw(1, 12);
      w_dims[dnums.kernel_spatial[i]] = d.size;
    }
    const Shape x = ShapeUtil::MakeShape(F32, x_dims);
    const Shape w = ShapeUtil::MakeShape(F32, w_dims);
    absl::StatusOr<Shape> result =
        ShapeInference::InferConvolveShape(x, w, groups, 1, window, dnums);
    if (!result.ok()) continue;  // a padding that leaves no base
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = ", x.ToString(), " parameter(0)\n  w = ",
        w.ToString(), " parameter(1)\n  ROOT c = ", result->ToString(),
        " convolution(x, w), window={", WindowToString(window),
        "}, dim_labels=", ConvolutionDimLabelsToString(dnums),
        ", feature_group_count=", groups, "\n}\n");
    RunAndCompareOptions options = Close();
    options.seed = trial;
    EXPECT_TRUE(RunAndCompare(text, options)) << text;
    ++tested;
  }
  EXPECT_GE(tested, 40);
}

}  // namespace
}  // namespace mxla
