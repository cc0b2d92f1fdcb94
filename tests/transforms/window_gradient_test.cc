// The reduce-window rule (sum, average, max and min pooling) against
// central finite differences in f64 at seeded random points (no ties), the
// tie rule by hand, and the forms without a rule refused by name.
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
#include "tests/testlib/gradient_check.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::GradientAt;
using testing::OneRandom;
using testing::Scalarized;

using Reducer = XlaComputation (*)(PrimitiveType, XlaBuilder*);

struct PoolCase {
  std::string name;
  Shape shape;
  std::vector<int64_t> window, strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> base_dilation = {}, window_dilation = {};
};

XlaOp Pool(XlaOp x, Reducer reducer, double init, const PoolCase& c) {
  XlaBuilder* b = x.builder();
  const PrimitiveType type = b->GetShape(x)->element_type();
  return ReduceWindowWithGeneralPadding(
      x, ScalarLike(x, init), reducer(type, b), c.window, c.strides,
      c.base_dilation, c.window_dilation, c.padding);
}

XlaComputation PoolLoss(const PoolCase& c, Reducer reducer, double init) {
  return Scalarized(
      c.name, {c.shape}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
        return Sin(Pool(p[0], reducer, init, c));
      });
}

void ExpectPoolGradientMatchesDifferences(const PoolCase& c, Reducer reducer,
                                          double init, uint64_t seed) {
  SCOPED_TRACE(c.name);
  ExpectGradientMatchesDifferences(PoolLoss(c, reducer, init),
                                   OneRandom(c.shape, seed), {0});
}

const std::vector<PoolCase>& PoolCases() {
  static const auto* cases = new std::vector<PoolCase>{
      {"2x2_stride2_nhwc", F64Shape({2, 4, 4, 3}), {1, 2, 2, 1},
       {1, 2, 2, 1}, {}},
      {"3x3_stride2_padded_nchw", F64Shape({1, 2, 5, 6}), {1, 1, 3, 3},
       {1, 1, 2, 2}, {{0, 0}, {0, 0}, {1, 1}, {1, 0}}},
      // The stride does not reach the last row: it gets no cotangent.
      {"3x3_stride2_unpadded", F64Shape({6, 5}), {3, 3}, {2, 2}, {}},
      {"overlapping_1d", F64Shape({7}), {3}, {1}, {{2, 1}}},
  };
  return *cases;
}

TEST(WindowGradientTest, SumAndAveragePoolingMatchFiniteDifferences) {
  uint64_t seed = 2000;
  for (const PoolCase& c : PoolCases()) {
    ExpectPoolGradientMatchesDifferences(c, CreateScalarAddComputation, 0,
                                         seed++);
  }
  // Average pooling: the sum times a constant.
  const PoolCase& c = PoolCases()[1];
  XlaComputation average = Scalarized(
      "average", {c.shape}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
        return Sin(Pool(p[0], CreateScalarAddComputation, 0, c) * (1.0 / 9));
      });
  ExpectGradientMatchesDifferences(average, OneRandom(c.shape, seed), {0});
}

TEST(WindowGradientTest, SumPoolingWithDilationsAndAnInitialValue) {
  const PoolCase dilated = {"dilated", F64Shape({2, 5, 4}), {1, 3, 2},
                            {1, 2, 1}, {{0, 0}, {1, 2}, {0, 1}},
                            {1, 2, 1}, {1, 1, 2}};
  ExpectPoolGradientMatchesDifferences(dilated, CreateScalarAddComputation, 0,
                                       2100);
  // The initial value is added once per result: it gets the cotangent's sum.
  XlaComputation f = Scalarized(
      "init", {F64Shape({4, 5}), F64Shape({})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return Sin(ReduceWindowWithGeneralPadding(
            p[0], p[1], CreateScalarAddComputation(F64, &b), {2, 3}, {1, 2},
            {}, {}, {{1, 0}, {0, 1}}));
      });
  std::vector<Literal> args = OneRandom(F64Shape({4, 5}), 2101);
  args.push_back(LiteralUtil::CreateR0<double>(0.3));
  ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
}

TEST(WindowGradientTest, MaxAndMinPoolingMatchFiniteDifferences) {
  uint64_t seed = 2200;
  for (const PoolCase& c : PoolCases()) {
    ExpectPoolGradientMatchesDifferences(c, CreateScalarMaxComputation,
                                         -INFINITY, seed++);
    ExpectPoolGradientMatchesDifferences(c, CreateScalarMinComputation,
                                         INFINITY, seed++);
  }
  const PoolCase base_dilated = {"base_dilated", F64Shape({4, 5}), {3, 2},
                                 {2, 1}, {{1, 0}, {0, 1}}, {2, 2}, {}};
  ExpectPoolGradientMatchesDifferences(base_dilated,
                                       CreateScalarMaxComputation, -INFINITY,
                                       seed++);
  // Initial value 0 (a pooled relu): windows where it wins pass nothing
  // back, which the differences see as slope 0.
  ExpectPoolGradientMatchesDifferences(PoolCases()[0],
                                       CreateScalarMaxComputation, 0, seed++);
}

// The JIT's select-and-scatter and window kernels in f32 against the
// interpreter on the gradients.
TEST(WindowGradientTest, F32GradientsJitMatchesInterpreter) {
  for (PoolCase c : PoolCases()) {
    SCOPED_TRACE(c.name);
    c.shape = testing::AsF32(c.shape);
    testing::ExpectJitGradientMatchesInterpreter(
        PoolLoss(c, CreateScalarAddComputation, 0), {0}, 1e-5);
    testing::ExpectJitGradientMatchesInterpreter(
        PoolLoss(c, CreateScalarMaxComputation, -INFINITY), {0}, 1e-5);
  }
}

TEST(WindowGradientTest, TiesGoToTheFirstElementOfTheWindowAsInJax) {
  const PoolCase pairs = {"pairs", F64Shape({4}), {2}, {1}, {}};
  XlaComputation max_pool = Scalarized(
      "max_pool", {F64Shape({4})}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
        return Pool(p[0], CreateScalarMaxComputation, -INFINITY, pairs);
      });
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({1, 3, 3, 2}));
  // Windows [1 3], [3 3] and [3 2]: the middle one's tie goes to its first.
  absl::StatusOr<Literal> g = GradientAt(max_pool, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(), ElementsAre(0, 2, 1, 0));

  const PoolCase square = {"square", F64Shape({2, 2}), {2, 2}, {1, 1}, {}};
  XlaComputation min_pool = Scalarized(
      "min_pool", {F64Shape({2, 2})},
      [&](XlaBuilder&, const std::vector<XlaOp>& p) {
        return Pool(p[0], CreateScalarMinComputation, INFINITY, square);
      });
  args.clear();
  args.push_back(LiteralUtil::CreateR2<double>({{5, 4}, {4, 4}}));
  g = GradientAt(min_pool, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(), ElementsAre(0, 1, 0, 0));
}

absl::Status GradientStatus(
    const std::function<XlaOp(XlaBuilder&, const std::vector<XlaOp>&)>& body) {
  XlaComputation f =
      Scalarized("refused", {F64Shape({4, 4}), F64Shape({})}, body);
  return Gradient(f, {0}).status();
}

TEST(WindowGradientTest, FormsWithoutARuleAreRefusedByName) {
  absl::Status product = GradientStatus([](XlaBuilder& b, const auto& p) {
    return ReduceWindowWithGeneralPadding(
        p[0], ConstantR0<double>(&b, 1), CreateScalarMulComputation(F64, &b),
        {2, 2}, {1, 1}, {}, {}, {});
  });
  EXPECT_EQ(product.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(product.message(),
              HasSubstr("gradient: no rule for 'reduce-window' with a reducer "
                        "other than add, max or min yet (instruction"));
  absl::Status dilated = GradientStatus([](XlaBuilder& b, const auto& p) {
    return ReduceWindowWithGeneralPadding(
        p[0], ConstantR0<double>(&b, -INFINITY),
        CreateScalarMaxComputation(F64, &b), {2, 2}, {1, 1}, {}, {2, 1}, {});
  });
  EXPECT_THAT(dilated.message(),
              HasSubstr("no rule for 'reduce-window' with a max or min "
                        "reducer and window dilation yet"));
  absl::Status variable_init = GradientStatus([](XlaBuilder& b, const auto& p) {
    return ReduceWindowWithGeneralPadding(
        p[0], p[1], CreateScalarMaxComputation(F64, &b), {2, 2}, {1, 1}, {},
        {}, {});
  });
  EXPECT_THAT(variable_init.message(),
              HasSubstr("no rule for 'reduce-window' with a max or min "
                        "reducer and an initial value that is not a constant "
                        "yet"));
  // Two operands reduced at once.
  absl::StatusOr<std::unique_ptr<HloModule>> variadic = ParseHloModule(R"(
HloModule variadic
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
pair_add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  c = f64[] parameter(2)
  d = f64[] parameter(3)
  s = f64[] add(a, c)
  t = f64[] add(b, d)
  ROOT r = (f64[], f64[]) tuple(s, t)
}
ENTRY e {
  x = f64[4] parameter(0)
  y = f64[4] parameter(1)
  zero = f64[] constant(0)
  w = (f64[3], f64[3]) reduce-window(x, y, zero, zero), window={size=2}, to_apply=pair_add
  first = f64[3] get-tuple-element(w), index=0
  ROOT r = f64[] reduce(first, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_TRUE(variadic.ok()) << variadic.status();
  absl::Status two = Gradient(XlaComputation(*std::move(variadic)), {0}).status();
  EXPECT_EQ(two.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(two.message(),
              HasSubstr("gradient: no rule for 'reduce-window' with several "
                        "operands yet (instruction 'w', (f64[3], f64[3]))"));
}

}  // namespace
}  // namespace mxla
