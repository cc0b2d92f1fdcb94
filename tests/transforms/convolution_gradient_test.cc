// The convolution rule against central finite differences in f64 at seeded
// random points, over dimension layouts, strides, padding (negative too),
// dilations, feature groups (depthwise included) and batch groups; the JIT
// against the interpreter on each gradient computation.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/convolution_dimension_numbers.h"
#include "tests/testlib/gradient_check.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::RandomLiteral;
using testing::Scalarized;

struct ConvCase {
  std::string name;
  std::string labels;
  Shape lhs, rhs;
  std::vector<int64_t> strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> lhs_dilation, rhs_dilation;
  int64_t feature_groups = 1, batch_groups = 1;
};

// sum(sin(conv(lhs, rhs))), in the case's element type.
XlaComputation ConvLoss(const ConvCase& c) {
  absl::StatusOr<ConvolutionDimensionNumbers> dnums =
      ParseConvolutionDimLabels(c.labels);
  EXPECT_TRUE(dnums.ok()) << dnums.status();
  return Scalarized(
      c.name, {c.lhs, c.rhs}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
        return Sin(ConvGeneralDilated(p[0], p[1], c.strides, c.padding,
                                      c.lhs_dilation, c.rhs_dilation,
                                      dnums.value_or(
                                          ConvolutionDimensionNumbers()),
                                      c.feature_groups, c.batch_groups));
      });
}

void ExpectConvGradientsMatchDifferences(const ConvCase& c, uint64_t seed) {
  SCOPED_TRACE(c.name);
  XlaComputation f = ConvLoss(c);
  std::vector<Literal> args;
  args.push_back(RandomLiteral(c.lhs, seed));
  args.push_back(RandomLiteral(c.rhs, seed + 1));
  ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
}

std::vector<ConvCase> LayoutCases() {
  return {
      {"nhwc_same", "b01f_01io->b01f", F64Shape({2, 5, 5, 3}),
       F64Shape({3, 3, 3, 2}), {1, 1}, {{1, 1}, {1, 1}}, {}, {}},
      {"nchw_stride2", "bf01_oi01->bf01", F64Shape({2, 3, 7, 6}),
       F64Shape({4, 3, 3, 2}), {2, 2}, {{1, 0}, {0, 1}}, {}, {}},
      // The stride does not divide the padded size: trailing rows unused.
      {"stride3_unused_rows", "b01f_01io->b01f", F64Shape({1, 8, 7, 2}),
       F64Shape({2, 3, 2, 3}), {3, 2}, {{0, 0}, {0, 0}}, {}, {}},
      {"negative_padding", "bf01_oi01->bf01", F64Shape({1, 2, 7, 6}),
       F64Shape({3, 2, 2, 3}), {1, 2}, {{-1, 2}, {2, -1}}, {}, {}},
      // Dimensions in unusual places: features first, batch last.
      {"odd_layout", "f01b_i01o->01fb", F64Shape({3, 5, 4, 2}),
       F64Shape({3, 2, 2, 4}), {1, 2}, {{0, 1}, {1, 0}}, {}, {}},
      {"conv1d", "bf0_oi0->bf0", F64Shape({2, 3, 9}), F64Shape({2, 3, 4}),
       {2}, {{2, 1}}, {}, {}},
      // No spatial dimensions: a matrix product.
      {"no_spatial", "bf_io->bf", F64Shape({3, 4}), F64Shape({4, 2}), {}, {},
       {}, {}},
  };
}

TEST(ConvolutionGradientTest, LayoutsStridesAndPadding) {
  uint64_t seed = 1000;
  for (const ConvCase& c : LayoutCases()) {
    ExpectConvGradientsMatchDifferences(c, seed);
    seed += 2;
  }
}

std::vector<ConvCase> DilationCases() {
  return {
      {"rhs_dilation", "b01f_01io->b01f", F64Shape({1, 7, 6, 2}),
       F64Shape({2, 3, 2, 2}), {1, 1}, {{1, 1}, {0, 0}}, {}, {2, 2}},
      // A transposed convolution: lhs dilation with a stride over it.
      {"lhs_dilation_stride", "bf01_oi01->bf01", F64Shape({1, 2, 4, 3}),
       F64Shape({3, 2, 3, 3}), {2, 1}, {{2, 2}, {1, 2}}, {2, 3}, {}},
      {"both_dilations", "b0f_0io->b0f", F64Shape({2, 5, 2}),
       F64Shape({3, 2, 3}), {2}, {{1, -1}}, {2}, {2}},
  };
}

TEST(ConvolutionGradientTest, Dilations) {
  uint64_t seed = 1100;
  for (const ConvCase& c : DilationCases()) {
    ExpectConvGradientsMatchDifferences(c, seed);
    seed += 2;
  }
}

std::vector<ConvCase> GroupCases() {
  return {
      // Two groups of two input features, three outputs each.
      {"feature_groups", "b01f_01io->b01f", F64Shape({2, 5, 4, 4}),
       F64Shape({2, 2, 2, 6}), {1, 2}, {{1, 0}, {0, 1}}, {}, {}, 2},
      // Depthwise with multiplier 2, strided, NCHW.
      {"depthwise", "bf01_oi01->bf01", F64Shape({2, 3, 6, 6}),
       F64Shape({6, 1, 3, 3}), {2, 2}, {{1, 1}, {1, 1}}, {}, {}, 3},
      {"feature_groups_dilated", "b0f_0io->b0f", F64Shape({1, 7, 4}),
       F64Shape({2, 2, 4}), {1}, {{0, 1}}, {}, {3}, 2},
      // batch_group_count: the weight gradient's own form, differentiated.
      {"batch_groups", "b01f_01io->b01f", F64Shape({4, 4, 4, 3}),
       F64Shape({2, 2, 3, 4}), {1, 1}, {{0, 1}, {1, 0}}, {}, {}, 1, 2},
      {"batch_groups_nchw_strided", "bf01_oi01->bf01", F64Shape({6, 2, 5, 5}),
       F64Shape({3, 2, 3, 2}), {2, 2}, {{1, 1}, {0, 0}}, {}, {}, 1, 3},
  };
}

TEST(ConvolutionGradientTest, FeatureAndBatchGroups) {
  uint64_t seed = 1200;
  for (const ConvCase& c : GroupCases()) {
    ExpectConvGradientsMatchDifferences(c, seed);
    seed += 2;
  }
}

// The JIT's own convolution kernels (grouped, depthwise, batch-grouped)
// are chosen for f32: its gradients against the interpreter's.
TEST(ConvolutionGradientTest, F32GradientsJitMatchesInterpreter) {
  std::vector<ConvCase> cases = LayoutCases();
  for (std::vector<ConvCase> more : {DilationCases(), GroupCases()}) {
    cases.insert(cases.end(), more.begin(), more.end());
  }
  for (ConvCase c : cases) {
    SCOPED_TRACE(c.name);
    c.lhs = testing::AsF32(c.lhs);
    c.rhs = testing::AsF32(c.rhs);
    testing::ExpectJitGradientMatchesInterpreter(ConvLoss(c), {0, 1}, 1e-4);
  }
}

TEST(ConvolutionGradientTest, SmallCnnLossMatchesFiniteDifferences) {
  // conv 3x3 SAME -> relu -> max pool 2x2/2 -> dense -> softmax
  // cross-entropy against fixed labels; gradients of the image, the
  // kernel and the dense weights.
  absl::StatusOr<ConvolutionDimensionNumbers> nhwc =
      ParseConvolutionDimLabels("b01f_01io->b01f");
  ASSERT_TRUE(nhwc.ok());
  XlaComputation loss = Scalarized(
      "cnn", {F64Shape({2, 6, 6, 2}), F64Shape({3, 3, 2, 3}),
              F64Shape({27, 4})},
      [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
        XlaOp conv = ConvGeneralDilated(p[0], p[1], {1, 1}, {{1, 1}, {1, 1}},
                                        {}, {}, *nhwc);
        XlaOp relu = Max(conv, ConstantR0<double>(&b, 0));
        XlaOp pooled = ReduceWindowWithGeneralPadding(
            relu, ConstantR0<double>(&b, -INFINITY),
            CreateScalarMaxComputation(F64, &b), {1, 2, 2, 1}, {1, 2, 2, 1},
            {}, {}, {});
        XlaOp logits = Dot(Reshape(pooled, {2, 27}), p[2]);
        XlaOp log_sum = Log(Reduce(Exp(logits), ConstantR0<double>(&b, 0),
                                   CreateScalarAddComputation(F64, &b), {1}));
        XlaOp labels = ConstantR2<double>(&b, {{0, 1, 0, 0}, {0, 0, 0, 1}});
        return labels * Sub(log_sum, logits, {0});
      });
  std::vector<Literal> args;
  args.push_back(RandomLiteral(F64Shape({2, 6, 6, 2}), 1300));
  args.push_back(RandomLiteral(F64Shape({3, 3, 2, 3}), 1301, -0.5, 0.5));
  args.push_back(RandomLiteral(F64Shape({27, 4}), 1302, -0.5, 0.5));
  ExpectGradientMatchesDifferences(loss, std::move(args), {0, 1, 2});
}

TEST(ConvolutionGradientTest, WindowReversalIsRefusedByName) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule reversed
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY e {
  x = f64[1,5,1] parameter(0)
  k = f64[3,1,1] parameter(1)
  c = f64[1,3,1] convolution(x, k), window={size=3 rhs_reversal=1}, dim_labels=b0f_0io->b0f
  zero = f64[] constant(0)
  ROOT s = f64[] reduce(c, zero), dimensions={0,1,2}, to_apply=add
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status status = Gradient(XlaComputation(*std::move(module)), {0}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(),
              HasSubstr("gradient: no rule for 'convolution' with window "
                        "reversal (in window dimension 0) yet (instruction "
                        "'c', f64[1,3,1])"));
}

}  // namespace
}  // namespace mxla
