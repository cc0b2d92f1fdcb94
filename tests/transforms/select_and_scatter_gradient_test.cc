// The select-and-scatter rule (a max pool's gradient, differentiated
// again): against central differences in f64 at seeded random shapes and
// points, windows overlapping and not, padded and not; a max pool's second
// derivative; ties chosen as select-and-scatter chooses them, by hand, in
// the interpreter and the JIT; and a scatter other than add refused by
// name.
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::ElementsAre;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using ::testing::HasSubstr;
using testing::RandomLiteral;
using testing::Scalarized;

struct WindowCase {
  std::string name;
  std::vector<int64_t> dims, window, strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
};

int64_t Windows(int64_t in, int64_t size, int64_t stride,
                std::pair<int64_t, int64_t> pad) {
  const int64_t padded = in + pad.first + pad.second;
  return padded < size ? 0 : (padded - size) / stride + 1;
}

std::vector<int64_t> SourceDims(const WindowCase& c) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < c.dims.size(); ++d) {
    dims.push_back(Windows(
        c.dims[d], c.window[d], c.strides[d],
        c.padding.empty() ? std::pair<int64_t, int64_t>{} : c.padding[d]));
  }
  return dims;
}

// Rank-2 cases of random sizes, windows, strides (some overlapping, some
// not) and padding, each with at least one window per dimension.
std::vector<WindowCase> RandomCases(uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<WindowCase> cases;
  while (static_cast<int>(cases.size()) < count) {
    WindowCase c{absl::StrCat("random", cases.size()), {}, {}, {}, {}};
    for (int d = 0; d < 2; ++d) {
      c.dims.push_back(pick(2, 6));
      c.window.push_back(pick(1, 3));
      c.strides.push_back(pick(1, 3));
      c.padding.push_back(
          {pick(0, c.window.back() - 1), pick(0, c.window.back() - 1)});
    }
    bool some = true;
    for (int64_t n : SourceDims(c)) some = some && n > 0;
    if (some) cases.push_back(std::move(c));
  }
  return cases;
}

XlaComputation Comparison(const std::string& name,
                          XlaOp (*compare)(XlaOp, XlaOp, Dims,
                                           SourceLocation)) {
  XlaBuilder b(name);
  const Shape scalar = ShapeUtil::MakeScalarShape(F64);
  compare(Parameter(&b, 0, scalar, "a"), Parameter(&b, 1, scalar, "b"), {},
          SourceLocation::current());
  return *b.Build();
}

XlaOp MaxPoolGradient(XlaOp x, XlaOp source, XlaOp init, const WindowCase& c,
                      const XlaComputation& select) {
  return SelectAndScatterWithGeneralPadding(
      x, select, c.window, c.strides, c.padding, source, init,
      CreateScalarAddComputation(F64, x.builder()));
}

TEST(SelectAndScatterGradientTest, SourceAndInitMatchFiniteDifferences) {
  std::vector<WindowCase> cases = {
      {"2x2_stride2", {4, 6}, {2, 2}, {2, 2}, {}},
      {"3x3_stride1_padded", {5, 4}, {3, 3}, {1, 1}, {{1, 1}, {1, 1}}},
      {"3x2_stride2_padded", {5, 5}, {3, 2}, {2, 1}, {{1, 0}, {0, 1}}},
  };
  for (WindowCase& c : RandomCases(4100, 6)) cases.push_back(std::move(c));
  const XlaComputation ge = Comparison("ge", Ge);
  uint64_t seed = 4200;
  for (const WindowCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Shape x = F64Shape(c.dims), s = F64Shape(SourceDims(c));
    XlaComputation f =
        Scalarized(c.name, {x, s, F64Shape({})},
                   [&](XlaBuilder&, const std::vector<XlaOp>& p) {
                     return Sin(MaxPoolGradient(p[0], p[1], p[2], c, ge));
                   });
    std::vector<Literal> args;
    args.push_back(RandomLiteral(x, seed++));
    args.push_back(RandomLiteral(s, seed++));
    args.push_back(LiteralUtil::CreateR0<double>(0.25));
    // The operand's derivative is 0 away from ties, as the differences see.
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1, 2});
  }
}

// d/dx and d/dc of sum(sin(x * vjp_maxpool(x, c))): the max pool's
// gradient, differentiated again through its select-and-scatter.
TEST(SelectAndScatterGradientTest, MaxPoolSecondDerivativeMatchesDifferences) {
  std::vector<WindowCase> cases = {
      {"overlapping_padded", {5, 6}, {3, 3}, {2, 1}, {{1, 1}, {0, 2}}},
      {"disjoint", {4, 6}, {2, 3}, {2, 3}, {}},
  };
  for (WindowCase& c : RandomCases(4300, 3)) cases.push_back(std::move(c));
  uint64_t seed = 4400;
  for (const WindowCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Shape x = F64Shape(c.dims);
    XlaComputation pool = Scalarized(
        "pool", {x}, [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
          return ReduceWindowWithGeneralPadding(
              p[0], ConstantR0<double>(&b, -INFINITY),
              CreateScalarMaxComputation(F64, &b), c.window, c.strides, {}, {},
              c.padding);
        });
    // Scalarized sums the pool: its vjp at c is the pool's gradient at c.
    XlaComputation f = Scalarized(
        c.name, {x, F64Shape({})},
        [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
          absl::StatusOr<VjpOps> vjp = EmitVjp(b, pool, {p[0]}, p[1], {0});
          EXPECT_TRUE(vjp.ok()) << vjp.status();
          return vjp.ok() ? Sin(p[0] * vjp->cotangents[0]) : XlaOp();
        });
    std::vector<Literal> args;
    args.push_back(RandomLiteral(x, seed++));
    args.push_back(LiteralUtil::CreateR0<double>(0.7));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
  }
}

// f(s, x) = sum(g * select_and_scatter(x, s)), so df/ds is g gathered at
// each window's choice.
absl::StatusOr<Literal> SourceGradient(const XlaComputation& select,
                                       const std::vector<double>& x,
                                       const std::vector<double>& g,
                                       bool check_jit) {
  const WindowCase c = {"ties", {5}, {3}, {1}, {{1, 1}}};
  const int64_t n = x.size();
  XlaComputation f =
      Scalarized("ties", {F64Shape({n}), F64Shape({n})},
                 [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
                   return ConstantR1<double>(&b, g) *
                          MaxPoolGradient(p[1], p[0], ConstantR0<double>(&b, 0),
                                          c, select);
                 });
  absl::StatusOr<XlaComputation> gradient = Gradient(f, {0});
  if (!gradient.ok()) return gradient.status();
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({1, 1, 1, 1, 1}));
  args.push_back(LiteralUtil::CreateR1<double>(x));
  if (check_jit) {
    EXPECT_TRUE(
        testing::RunAndCompare(gradient->module(), testing::Pointers(args)));
  }
  absl::StatusOr<Literal> result =
      EvaluateModule(gradient->module(), testing::Pointers(args));
  if (!result.ok()) return result.status();
  return Literal(result->tuple_element(0));
}

TEST(SelectAndScatterGradientTest, TiesGoWhereSelectAndScatterSentThem) {
  // Windows of 3 over x padded by one each side: {pad 1 3} {1 3 3} {3 3 2}
  // {3 2 3} {2 3 pad}. With GE the first maximum stays selected
  // (x1, x1, x1, x2, x4); with GT each later equal one replaces it
  // (x1, x2, x2, x4, x4).
  const std::vector<double> x = {1, 3, 3, 2, 3};
  const std::vector<double> g = {10, 20, 30, 40, 50};
  absl::StatusOr<Literal> ge = SourceGradient(Comparison("ge", Ge), x, g, true);
  ASSERT_TRUE(ge.ok()) << ge.status();
  EXPECT_THAT(ge->data<double>(), ElementsAre(20, 20, 20, 30, 50));
  absl::StatusOr<Literal> gt = SourceGradient(Comparison("gt", Gt), x, g, true);
  ASSERT_TRUE(gt.ok()) << gt.status();
  EXPECT_THAT(gt->data<double>(), ElementsAre(20, 30, 30, 50, 50));
}

TEST(SelectAndScatterGradientTest, F32GradientJitMatchesInterpreter) {
  const WindowCase c = {"f32", {6, 7}, {3, 2}, {2, 1}, {{1, 1}, {0, 1}}};
  XlaBuilder sb("ge32");
  const Shape scalar = ShapeUtil::MakeScalarShape(F32);
  Ge(Parameter(&sb, 0, scalar, "a"), Parameter(&sb, 1, scalar, "b"));
  const XlaComputation ge = *sb.Build();
  XlaComputation f = Scalarized(
      "f32",
      {testing::AsF32(F64Shape(c.dims)),
       testing::AsF32(F64Shape(SourceDims(c)))},
      [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return Sin(SelectAndScatterWithGeneralPadding(
            p[0], ge, c.window, c.strides, c.padding, p[1],
            ConstantR0<float>(&b, 0), CreateScalarAddComputation(F32, &b)));
      });
  testing::ExpectJitGradientMatchesInterpreter(f, {1}, 1e-5);
}

TEST(SelectAndScatterGradientTest, AScatterOtherThanAddIsRefusedByName) {
  const WindowCase c = {"max_scatter", {4}, {2}, {2}, {}};
  XlaComputation f = Scalarized(
      "max_scatter", {F64Shape({4}), F64Shape({2})},
      [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return SelectAndScatterWithGeneralPadding(
            p[0], Comparison("ge", Ge), c.window, c.strides, c.padding, p[1],
            ConstantR0<double>(&b, 0), CreateScalarMaxComputation(F64, &b));
      });
  EXPECT_THAT(Gradient(f, {1}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for 'select-and-scatter' "
                                 "whose scatter computation is not an add")));
}

}  // namespace
}  // namespace mxla
