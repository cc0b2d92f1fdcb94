// Grouped convolutions on the dot kernel (passes/grouped_convolution.h):
// with reassociation, a convolution of several feature groups or batch
// groups becomes one convolution product per group, concatenated. Checked
// against the interpreter over both dimension-label forms, window
// attributes, 2, 3 and 32 groups and batch groups of 2 and of the whole
// batch, at 1, 2 and 3 threads, against the same groups written out by
// hand (the same bits), and on seeded random grouped convolutions; and
// 16-bit depthwise convolutions widened to f32 like the others.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_groups.h"
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

// ROOT c = convolution(x, w) with `attributes`, the result shape inferred.
std::string ConvModule(const std::string& x, const std::string& w,
                       const std::string& attributes) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", x,
                      " parameter(0)\n  w = ", w,
                      " parameter(1)\n  ROOT c = convolution(x, w), ",
                      attributes, "\n}\n");
}

CompileOptions Reassociating() {
  CompileOptions options;
  options.codegen.reassociate_reductions = true;
  return options;
}

std::unique_ptr<HloModule> Fused(const std::string& text,
                                 const CompileOptions& options) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  return OptimizeForBackend(*module, options).value();
}

// Within rounding of the interpreter: the kernel sums in another order.
RunAndCompareOptions Close() {
  RunAndCompareOptions options;
  options.compile = Reassociating();
  options.error = ErrorSpec{2e-4, 2e-4};
  return options;
}

// The entry's fusions that compute a convolution, and those that reduce.
std::vector<const HloInstruction*> FusionsWith(const HloModule& fused,
                                               HloOpcode opcode) {
  std::vector<const HloInstruction*> found;
  for (const HloInstruction* instruction :
       fused.entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    for (const HloInstruction* member :
         instruction->to_apply()->instructions()) {
      if (member->opcode() == opcode) {
        found.push_back(instruction);
        break;
      }
    }
  }
  return found;
}

// Same bits at 1, 2 and 3 threads, near the interpreter's.
void ExpectSameBitsAtEveryThreadCount(const std::string& text, int seed) {
  SCOPED_TRACE(text);
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, seed);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, Reassociating()));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      RunAtThreadCounts(*executable, Pointers(arguments), {1, 2, 3}));
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, results[0], 2e-4, 2e-4));
}

TEST(GroupedConvolutionTest, GroupsBecomeDotKernels) {
  // ResNeXt's form: 4 groups of 8 features, 3x3.
  const std::string grouped = ConvModule(
      "f32[2,9,9,32]", "f32[3,3,8,48]",
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
      "feature_group_count=4");
  std::unique_ptr<HloModule> fused = Fused(grouped, Reassociating());
  std::vector<const HloInstruction*> kernels =
      FusionsWith(*fused, HloOpcode::kConvolution);
  ASSERT_EQ(kernels.size(), 4u) << fused->ToString();
  for (const HloInstruction* kernel : kernels) {
    EXPECT_EQ(kernel->fusion_kind(), FusionKind::kOutput);
    EXPECT_TRUE(kernel->fusion_plan()->is_dot());
    for (const HloInstruction* member : kernel->to_apply()->instructions()) {
      if (member->opcode() != HloOpcode::kConvolution) continue;
      EXPECT_TRUE(IsConvolutionProduct(*member)) << member->ToString();
      EXPECT_EQ(member->operand(0)->shape().dimensions(3), 8);
    }
  }
  EXPECT_TRUE(FusionsWith(*fused, HloOpcode::kReduce).empty())
      << fused->ToString();
  // Batch groups (a weight gradient's form) too.
  std::unique_ptr<HloModule> batch_grouped = Fused(
      ConvModule("f32[4,8,8,8]", "f32[3,3,8,6]",
                 "window={size=3x3}, dim_labels=b01f_01io->b01f, "
                 "batch_group_count=2"),
      Reassociating());
  EXPECT_EQ(FusionsWith(*batch_grouped, HloOpcode::kConvolution).size(), 2u)
      << batch_grouped->ToString();
  EXPECT_TRUE(FusionsWith(*batch_grouped, HloOpcode::kReduce).empty());
  // Without reassociation the expansion's reduction computes it in the
  // interpreter's order, bit for bit.
  CompileOptions exact;
  exact.codegen.reassociate_reductions = false;
  std::unique_ptr<HloModule> in_order = Fused(grouped, exact);
  EXPECT_TRUE(FusionsWith(*in_order, HloOpcode::kConvolution).empty());
  EXPECT_FALSE(FusionsWith(*in_order, HloOpcode::kReduce).empty());
  RunAndCompareOptions bit_exact;
  bit_exact.compile = exact;
  EXPECT_TRUE(RunAndCompare(grouped, bit_exact));
}

// The groups' products have equal shapes; kernel_groups.h shares one
// kernel between fusions that print alike.
TEST(GroupedConvolutionTest, GroupsShareTheirProductKernel) {
  std::unique_ptr<HloModule> fused = Fused(
      ConvModule("f32[1,10,10,48]", "f32[3,3,16,48]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=3"),
      Reassociating());
  ASSERT_OK_AND_ASSIGN(codegen::KernelGroups groups,
                       codegen::GroupKernels(*fused));
  std::vector<int64_t> conv_kernels;
  for (size_t i = 0; i < groups.fusions.size(); ++i) {
    for (const HloInstruction* member :
         groups.fusions[i]->to_apply()->instructions()) {
      if (member->opcode() == HloOpcode::kConvolution) {
        conv_kernels.push_back(groups.kernel_of_fusion[i]);
      }
    }
  }
  ASSERT_EQ(conv_kernels.size(), 3u) << fused->ToString();
  EXPECT_EQ(conv_kernels[0], conv_kernels[1]) << fused->ToString();
  EXPECT_EQ(conv_kernels[0], conv_kernels[2]);
  // The slices and the updates share theirs too: 16 groups compile no more
  // kernels than 3.
  std::unique_ptr<HloModule> sixteen = Fused(
      ConvModule("f32[1,10,10,128]", "f32[3,3,8,128]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=16"),
      Reassociating());
  ASSERT_OK_AND_ASSIGN(codegen::KernelGroups sixteen_groups,
                       codegen::GroupKernels(*sixteen));
  EXPECT_GT(sixteen_groups.fusions.size(), 16u * 3);
  EXPECT_EQ(sixteen_groups.first_fusion.size(), groups.first_fusion.size())
      << sixteen->ToString();
}

// Every dimension-label form and window attribute, odd sizes, 2, 3 and 32
// groups, a channel multiplier, batch groups of 2 and of the whole batch
// (JAX's depthwise weight gradient), f32 and f64, 16-bit widened; each
// group with kMinGroupProductFeatures input or output features, so each is
// a product.
TEST(GroupedConvolutionTest, EveryFormMatchesTheInterpreter) {
  struct Case {
    const char* x;
    const char* w;
    const char* attributes;
  };
  const Case cases[] = {
      {"f32[2,9,9,8]", "f32[3,3,4,16]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=2"},
      // PyTorch's NCHW/OIHW, 3 groups, stride 2.
      {"f32[2,24,7,7]", "f32[12,8,3,3]",
       "window={size=3x3 stride=2x2 pad=1_1x1_1}, "
       "dim_labels=bf01_oi01->bf01, feature_group_count=3"},
      // 32 groups of 8 features (ResNeXt's cardinality).
      {"f32[1,6,6,256]", "f32[3,3,8,256]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=32"},
      // Dilations, reversal, padding on one side only, negative padding.
      {"f32[1,11,10,6]", "f32[2,3,2,24]",
       "window={size=2x3 stride=2x1 pad=2_1x-1_2 lhs_dilate=1x2 "
       "rhs_dilate=2x1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=3"},
      // Stranger orders, 1-d, f64.
      {"f32[9,2,6,5]", "f32[2,3,2,24]",
       "window={size=3x2 pad=0_1x1_1 rhs_reversal=1x1}, "
       "dim_labels=0bf1_i01o->f01b, feature_group_count=3"},
      {"f32[3,17,4]", "f32[5,2,16]",
       "window={size=5 stride=3 pad=2_2}, dim_labels=b0f_0io->b0f, "
       "feature_group_count=2"},
      {"f64[1,6,6,6]", "f64[3,3,2,24]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=3"},
      // A depthwise convolution with a channel multiplier of 8.
      {"f32[1,7,7,4]", "f32[3,3,1,32]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=4"},
      // Batch groups: of 2, NCHW, and as many as the batch (the weight
      // gradient of a depthwise convolution: input channels as the batch).
      {"f32[4,8,8,3]", "f32[3,3,3,16]",
       "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2"},
      {"f32[6,5,7,7]", "f32[16,5,3,3]",
       "window={size=3x3 stride=2x2 pad=1_1x1_1}, "
       "dim_labels=bf01_oi01->bf01, batch_group_count=2"},
      {"f32[8,8,8,4]", "f32[8,8,8,4]",
       "window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, "
       "batch_group_count=4"},
      // 16-bit operands compute in f32 and round once.
      {"bf16[1,6,6,8]", "bf16[3,3,4,16]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=2"},
  };
  for (const Case& c : cases) {
    const std::string text = ConvModule(c.x, c.w, c.attributes);
    RunAndCompareOptions options = Close();
    if (std::string(c.x).starts_with("bf16")) {
      // One rounding to bf16 of sums within f32 rounding of the
      // interpreter's: at most one bf16 step apart.
      options.error = ErrorSpec{1e-2, 1e-2};
    }
    EXPECT_TRUE(RunAndCompare(text, options)) << text;
    std::unique_ptr<HloModule> fused = Fused(text, Reassociating());
    EXPECT_FALSE(FusionsWith(*fused, HloOpcode::kConvolution).empty())
        << text;
    EXPECT_TRUE(FusionsWith(*fused, HloOpcode::kReduce).empty()) << text;
  }
  ExpectSameBitsAtEveryThreadCount(
      ConvModule("f32[2,10,10,256]", "f32[3,3,8,256]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=32"),
      3);
  ExpectSameBitsAtEveryThreadCount(
      ConvModule("f32[2,24,13,13]", "f32[24,8,3,3]",
                 "window={size=3x3 stride=2x2 pad=1_1x1_1}, "
                 "dim_labels=bf01_oi01->bf01, feature_group_count=3"),
      4);
  ExpectSameBitsAtEveryThreadCount(
      ConvModule("f32[8,16,16,16]", "f32[8,16,16,32]",
                 "window={size=16x16 pad=1_1x1_1}, "
                 "dim_labels=f01b_i01o->01bf, batch_group_count=16"),
      5);
}

// Groups too thin to pay as products (fewer than kMinGroupProductFeatures
// features in and out: 32 groups of 4, a depthwise convolution's channel
// multiplier of 2) stay the expansion's reduction, in the interpreter's
// order.
TEST(GroupedConvolutionTest, ThinGroupsStayReductions) {
  const std::string cases[] = {
      ConvModule("f32[1,8,8,128]", "f32[3,3,4,128]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=32"),
      ConvModule("f32[1,7,7,4]", "f32[3,3,1,8]",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=4"),
  };
  for (const std::string& text : cases) {
    std::unique_ptr<HloModule> fused = Fused(text, Reassociating());
    EXPECT_TRUE(FusionsWith(*fused, HloOpcode::kConvolution).empty())
        << fused->ToString();
    EXPECT_FALSE(FusionsWith(*fused, HloOpcode::kReduce).empty());
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

// A grouped convolution gives the bits of its groups written out as
// slices, convolutions of one group and a concatenation: the split adds
// no arithmetic of its own.
TEST(GroupedConvolutionTest, SameBitsAsTheGroupsWrittenOut) {
  constexpr char kGrouped[] = R"(HloModule m
ENTRY e {
  x = f32[2,9,9,24] parameter(0)
  w = f32[3,3,8,15] parameter(1)
  ROOT c = f32[2,9,9,15] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3
})";
  constexpr char kWrittenOut[] = R"(HloModule m
ENTRY e {
  x = f32[2,9,9,24] parameter(0)
  w = f32[3,3,8,15] parameter(1)
  x0 = f32[2,9,9,8] slice(x), slice={[0:2], [0:9], [0:9], [0:8]}
  x1 = f32[2,9,9,8] slice(x), slice={[0:2], [0:9], [0:9], [8:16]}
  x2 = f32[2,9,9,8] slice(x), slice={[0:2], [0:9], [0:9], [16:24]}
  w0 = f32[3,3,8,5] slice(w), slice={[0:3], [0:3], [0:8], [0:5]}
  w1 = f32[3,3,8,5] slice(w), slice={[0:3], [0:3], [0:8], [5:10]}
  w2 = f32[3,3,8,5] slice(w), slice={[0:3], [0:3], [0:8], [10:15]}
  c0 = f32[2,9,9,5] convolution(x0, w0), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  c1 = f32[2,9,9,5] convolution(x1, w1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  c2 = f32[2,9,9,5] convolution(x2, w2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT c = f32[2,9,9,15] concatenate(c0, c1, c2), dimensions={3}
})";
  std::unique_ptr<HloModule> grouped = ParseHloModule(kGrouped).value();
  std::unique_ptr<HloModule> written = ParseHloModule(kWrittenOut).value();
  std::vector<Literal> arguments = MakeSeededArguments(*grouped, 11);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> a,
                       Compile(*grouped, Reassociating()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> b,
                       Compile(*written, Reassociating()));
  ASSERT_OK_AND_ASSIGN(Literal from_groups, a->Run(Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal from_slices, b->Run(Pointers(arguments)));
  EXPECT_TRUE(from_groups == from_slices)
      << "the grouped convolution's bits differ from its groups'";
}

// 16-bit depthwise convolutions compute in f32 on the depthwise kernel
// (no reduction), rounded once.
TEST(GroupedConvolutionTest, SixteenBitDepthwiseConvolutionsWiden) {
  for (const char* type : {"bf16", "f16"}) {
    const std::string text = ConvModule(
        absl::StrCat(type, "[2,9,10,16]"), absl::StrCat(type, "[3,3,1,16]"),
        "window={size=3x3 stride=2x1 pad=1_1x1_1}, "
        "dim_labels=b01f_01io->b01f, feature_group_count=16");
    std::unique_ptr<HloModule> fused = Fused(text, Reassociating());
    EXPECT_TRUE(FusionsWith(*fused, HloOpcode::kReduce).empty())
        << fused->ToString();
    std::vector<const HloInstruction*> kernels =
        FusionsWith(*fused, HloOpcode::kConvolution);
    ASSERT_EQ(kernels.size(), 1u) << fused->ToString();
    for (const HloInstruction* member : kernels[0]->to_apply()->instructions()) {
      if (member->opcode() != HloOpcode::kConvolution) continue;
      EXPECT_TRUE(IsDepthwiseProduct(*member)) << member->ToString();
      EXPECT_EQ(member->shape().element_type(), F32);
    }
    RunAndCompareOptions options = Close();
    options.error = ErrorSpec{1e-2, 1e-2};
    EXPECT_TRUE(RunAndCompare(text, options)) << text;
  }
}

// Seeded random grouped convolutions: random ranks, sizes, windows and
// layouts, feature groups or batch groups, as products or reductions.
TEST(GroupedConvolutionTest, RandomGroupedConvolutionsMatchTheInterpreter) {
  std::mt19937 rng(20261128);
  auto draw = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int tested = 0, products = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = draw(1, 2);
    const int rank = n + 2;
    const ConvolutionDimensionNumbers dnums = testing::RandomConvLabels(n, rng);
    const int64_t groups = draw(2, 4);
    const bool by_batch = draw(0, 2) == 0;
    const int64_t batch = by_batch ? groups * draw(1, 2) : draw(1, 3);
    // Per group 1 to 10 features in and out: about half the cases have
    // kMinGroupProductFeatures of either and become products.
    const int64_t features = by_batch ? draw(1, 10) : groups * draw(1, 10);
    const int64_t outputs = groups * draw(1, 10);
    std::vector<int64_t> x_dims(rank), w_dims(rank);
    x_dims[dnums.input_batch] = batch;
    x_dims[dnums.input_feature] = features;
    w_dims[dnums.kernel_input_feature] =
        by_batch ? features : features / groups;
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
    const int64_t feature_groups = by_batch ? 1 : groups;
    const int64_t batch_groups = by_batch ? groups : 1;
    absl::StatusOr<Shape> result = ShapeInference::InferConvolveShape(
        x, w, feature_groups, batch_groups, window, dnums);
    if (!result.ok()) continue;  // a padding that leaves no base
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = ", x.ToString(), " parameter(0)\n  w = ",
        w.ToString(), " parameter(1)\n  ROOT c = ", result->ToString(),
        " convolution(x, w), window={", WindowToString(window),
        "}, dim_labels=", ConvolutionDimLabelsToString(dnums),
        ", feature_group_count=", feature_groups,
        ", batch_group_count=", batch_groups, "\n}\n");
    RunAndCompareOptions options = Close();
    options.seed = trial;
    EXPECT_TRUE(RunAndCompare(text, options)) << text;
    ++tested;
    products += !FusionsWith(*Fused(text, Reassociating()),
                             HloOpcode::kConvolution)
                     .empty();
  }
  EXPECT_GE(tested, 25);
  EXPECT_GE(products, 10);
}

}  // namespace
}  // namespace mxla
