// Gradients checked as JAX's check_grads does: against central finite
// differences in f64, at seeded random points, for every rule; by hand
// where the rule makes a choice (ties, kinks); and the JIT against the
// interpreter on the gradient computations themselves.
#include "transforms/autodiff.h"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"

#include "builder/arithmetic.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/read_file.h"
#include "transforms/gradient_rules.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;

using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::GradientAt;
using testing::OneRandom;
using testing::RandomLiteral;
using testing::Scalarized;
using testing::SumAll;

struct UnaryCase {
  std::string name;
  XlaOp (*op)(XlaOp, SourceLocation);
  double lo, hi;  // where the derivative exists
};

TEST(AutodiffTest, EveryUnaryRuleMatchesFiniteDifferences) {
  const std::vector<UnaryCase> cases = {
      {"neg", Neg, -2, 2},        {"abs", Abs, 0.1, 2},
      {"exp", Exp, -2, 2},        {"log", Log, 0.1, 3},
      {"sqrt", Sqrt, 0.1, 3},     {"rsqrt", Rsqrt, 0.1, 3},
      {"tanh", Tanh, -2, 2},      {"logistic", Logistic, -3, 3},
      {"sin", Sin, -3, 3},        {"cos", Cos, -3, 3},
      {"tan", Tan, -1, 1},        {"expm1", Expm1, -2, 2},
      {"log1p", Log1p, -0.5, 2},  {"cbrt", Cbrt, 0.2, 3},
      {"erf", Erf, -2, 2},        {"asin", Asin, -0.9, 0.9},
      {"acos", Acos, -0.9, 0.9},  {"sinh", Sinh, -2, 2},
      {"cosh", Cosh, -2, 2},      {"asinh", Asinh, -2, 2},
      {"acosh", Acosh, 1.1, 3},   {"atan", Atan, -2, 2},
      {"copy", Copy, -2, 2},      {"floor", Floor, 0.1, 0.9},
      {"ceil", Ceil, 0.1, 0.9},   {"sign", Sign, 0.1, 2},
      {"round", Round, 0.1, 0.4},
  };
  uint64_t seed = 1;
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(c.name);
    XlaComputation f = Scalarized(
        c.name, {F64Shape({2, 3})},
        [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          return c.op(p[0], SourceLocation::current());
        });
    std::vector<Literal> args;
    args.push_back(RandomLiteral(F64Shape({2, 3}), seed++, c.lo, c.hi));
    ExpectGradientMatchesDifferences(f, std::move(args), {0});
  }
}

struct BinaryCase {
  std::string name;
  XlaOp (*op)(XlaOp, XlaOp, Dims, SourceLocation);
  double lo, hi;
};

TEST(AutodiffTest, EveryBinaryRuleMatchesFiniteDifferencesWithBroadcasts) {
  const std::vector<BinaryCase> cases = {
      {"add", Add, -2, 2},     {"sub", Sub, -2, 2},   {"mul", Mul, -2, 2},
      {"div", Div, 0.5, 2},    {"rem", Rem, 0.3, 2},  {"max", Max, -2, 2},
      {"min", Min, -2, 2},     {"pow", Pow, 0.5, 2},  {"atan2", Atan2, 0.2, 2},
  };
  uint64_t seed = 100;
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(c.name);
    // y is stretched along dimension 0 (XLA's broadcast_dimensions {1}),
    // so its cotangent is a sum.
    XlaComputation f = Scalarized(
        c.name, {F64Shape({3, 4}), F64Shape({4})},
        [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          return c.op(p[0], p[1], {1}, SourceLocation::current());
        });
    std::vector<Literal> args;
    args.push_back(RandomLiteral(F64Shape({3, 4}), seed++, c.lo, c.hi));
    args.push_back(RandomLiteral(F64Shape({4}), seed++, c.lo, c.hi));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
  }
}

TEST(AutodiffTest, SelectClampAndConvertRules) {
  ExpectGradientMatchesDifferences(
      Scalarized("select", {F64Shape({5}), F64Shape({5})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return Select(Gt(p[0], p[1]), p[0] * p[1], Sin(p[1]));
                 }),
      [] {
        std::vector<Literal> a;
        a.push_back(RandomLiteral(F64Shape({5}), 7));
        a.push_back(RandomLiteral(F64Shape({5}), 8));
        return a;
      }(),
      {0, 1});
  // clamp with array bounds and with scalar ones (their shares are sums).
  ExpectGradientMatchesDifferences(
      Scalarized("clamp", {F64Shape({}), F64Shape({6}), F64Shape({})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return Clamp(p[0], p[1], p[2]) * p[1];
                 }),
      [] {
        std::vector<Literal> a;
        a.push_back(LiteralUtil::CreateR0<double>(-0.5));
        a.push_back(LiteralUtil::CreateR1<double>({-1.3, -0.2, 0.1, 0.7, 1.4, 2}));
        a.push_back(LiteralUtil::CreateR0<double>(0.9));
        return a;
      }(),
      {0, 1, 2});
  // Through f32: differences would see f32's rounding steps, so check the
  // exact slope 2x (in f32 precision) instead.
  XlaComputation through_f32 = Scalarized(
      "convert", {F64Shape({4})}, [](XlaBuilder&, const std::vector<XlaOp>& p) {
        XlaOp narrow = ConvertElementType(p[0], F32);
        return ConvertElementType(narrow * narrow, F64);
      });
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({0.5, -1.25, 3, 1e-3}));
  absl::StatusOr<XlaComputation> gradient = Gradient(through_f32, {0});
  ASSERT_TRUE(gradient.ok()) << gradient.status();
  absl::StatusOr<Literal> slope =
      EvaluateModule(gradient->module(), testing::Pointers(args));
  ASSERT_TRUE(slope.ok()) << slope.status();
  EXPECT_THAT(slope->tuple_element(0).data<double>(),
              ::testing::ElementsAre(1, -2.5, 6, ::testing::DoubleNear(2e-3, 1e-9)));
}

TEST(AutodiffTest, DataMovementRulesMatchFiniteDifferences) {
  // Each weighted by a fixed ramp after the op, so that every element's
  // cotangent differs and a misplaced one shows.
  auto weighted = [](XlaOp y) {
    absl::StatusOr<Shape> shape = y.builder()->GetShape(y);
    XlaOp ramp = ConvertElementType(
        Iota(y.builder(), ShapeUtil::MakeShape(S32, shape->dimensions()),
             shape->dimensions().empty() ? 0 : shape->dimensions().size() - 1),
        F64);
    return Sin(y) * (ramp + 1.0);
  };
  struct Case {
    std::string name;
    Shape shape;
    std::function<XlaOp(XlaOp)> op;
  };
  PaddingConfig pad_config = {{2, -1, 1}, {-1, 3, 0}};
  const std::vector<Case> cases = {
      {"broadcast", F64Shape({3}), [](XlaOp x) { return Broadcast(x, {2}); }},
      {"broadcast_in_dim_stretch", F64Shape({3, 1}),
       [](XlaOp x) { return BroadcastInDim(x, {2, 3, 4}, {1, 2}); }},
      {"reshape", F64Shape({2, 6}), [](XlaOp x) { return Reshape(x, {3, 4}); }},
      {"transpose", F64Shape({2, 3, 4}),
       [](XlaOp x) { return Transpose(x, {2, 0, 1}); }},
      {"reverse", F64Shape({3, 4}), [](XlaOp x) { return Rev(x, {1}); }},
      {"strided_slice", F64Shape({7, 5}),
       [](XlaOp x) { return Slice(x, {1, 0}, {7, 5}, {2, 3}); }},
      {"pad", F64Shape({3, 4}),
       [&](XlaOp x) { return Pad(x, ScalarLike(x, 0.25), pad_config); }},
      {"concatenate", F64Shape({2, 3}),
       [](XlaOp x) {
         return ConcatInDim(x.builder(), {x, Sin(x), x * 2.0}, 1);
       }},
      {"dynamic_slice", F64Shape({5, 4}),
       [](XlaOp x) {
         // Start 4 is clamped to 3 so that the window fits.
         return DynamicSlice(x, {ConstantR0<int32_t>(x.builder(), 1),
                                 ConstantR0<int32_t>(x.builder(), 4)},
                             {2, 1});
       }},
      {"dynamic_update_slice", F64Shape({4, 4}),
       [](XlaOp x) {
         XlaOp update = Slice(x, {0, 0}, {2, 2}, {1, 1}) * 3.0;
         return DynamicUpdateSlice(x, update,
                                   {ConstantR0<int32_t>(x.builder(), 3),
                                    ConstantR0<int32_t>(x.builder(), 1)});
       }},
  };
  uint64_t seed = 200;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    XlaComputation f =
        Scalarized(c.name, {c.shape},
                   [&](XlaBuilder&, const std::vector<XlaOp>& p) {
                     return weighted(c.op(p[0]));
                   });
    ExpectGradientMatchesDifferences(f, OneRandom(c.shape, seed++), {0});
  }
}

TEST(AutodiffTest, PadValueGetsTheCotangentOfEveryPaddedElement) {
  PaddingConfig config = {{1, 2, 1}};
  XlaComputation f = Scalarized(
      "pad_value", {F64Shape({3}), F64Shape({})},
      [&](XlaBuilder&, const std::vector<XlaOp>& p) {
        return Sin(Pad(p[0], p[1], config));
      });
  std::vector<Literal> args;
  args.push_back(RandomLiteral(F64Shape({3}), 5));
  args.push_back(LiteralUtil::CreateR0<double>(0.3));
  ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
}

TEST(AutodiffTest, DotRulesMatchFiniteDifferencesForEveryDimensionOrder) {
  struct Case {
    std::string name;
    Shape lhs, rhs;
    DotDimensionNumbers dnums;
  };
  const std::vector<Case> cases = {
      {"matmul", F64Shape({3, 4}), F64Shape({4, 2}), {{}, {1}, {}, {0}}},
      {"vector_matrix", F64Shape({4}), F64Shape({4, 5}), {{}, {0}, {}, {0}}},
      // Batch dimension last on lhs, contracting dimensions out of order.
      {"batched", F64Shape({3, 2, 4}), F64Shape({2, 4, 5}), {{2}, {1}, {1}, {0}}},
      {"two_contracting", F64Shape({2, 3, 4}), F64Shape({4, 5, 3}),
       {{}, {1, 2}, {}, {2, 0}}},
      {"batch_and_two_free", F64Shape({2, 3, 2}), F64Shape({3, 2, 2, 4}),
       {{0}, {1}, {1}, {0}}},
  };
  uint64_t seed = 300;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    XlaComputation f = Scalarized(
        c.name, {c.lhs, c.rhs}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          return Sin(DotGeneral(p[0], p[1], c.dnums));
        });
    std::vector<Literal> args;
    args.push_back(RandomLiteral(c.lhs, seed++));
    args.push_back(RandomLiteral(c.rhs, seed++));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
  }
}

TEST(AutodiffTest, ReduceRulesMatchFiniteDifferences) {
  for (auto make : {CreateScalarAddComputation, CreateScalarMaxComputation,
                    CreateScalarMinComputation}) {
    XlaComputation f = Scalarized(
        "reduce", {F64Shape({3, 4, 2})},
        [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
          const bool is_sum = make == CreateScalarAddComputation;
          XlaOp init = ConstantR0<double>(&b, is_sum ? 0.5 : 0.0);
          if (!is_sum) {
            init = ConstantR0<double>(
                &b, make == CreateScalarMaxComputation ? -INFINITY : INFINITY);
          }
          return Sin(Reduce(p[0], init, make(F64, &b), {0, 2}));
        });
    ExpectGradientMatchesDifferences(f, OneRandom(F64Shape({3, 4, 2}), 400), {0});
  }
}

TEST(AutodiffTest, TiesShareTheCotangentAsJaxDoes) {
  // max over [1, 3, 3, 2]: the two 3s get 1/2 each.
  XlaComputation reduce_max = Scalarized(
      "reduce_max", {F64Shape({4})}, [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return Reduce(p[0], ConstantR0<double>(&b, -INFINITY),
                      CreateScalarMaxComputation(F64, &b), {0});
      });
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({1, 3, 3, 2}));
  absl::StatusOr<Literal> g = GradientAt(reduce_max, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(), ::testing::ElementsAre(0, 0.5, 0.5, 0));
  // max(x, 2) at x = [1, 2, 3]: the tie at 2 gives x half.
  XlaComputation maximum = Scalarized(
      "maximum", {F64Shape({3})}, [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return Max(p[0], ConstantR0<double>(&b, 2.0));
      });
  args.clear();
  args.push_back(LiteralUtil::CreateR1<double>({1, 2, 3}));
  g = GradientAt(maximum, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(), ::testing::ElementsAre(0, 0.5, 1));
  // abs at 0 and pow's exponent at base 0 have slope 0.
  XlaComputation abs_pow = Scalarized(
      "abs_pow", {F64Shape({2})}, [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return Abs(p[0]) + Pow(ConstantR1<double>(&b, {0.0, 2.0}), p[0]);
      });
  args.clear();
  args.push_back(LiteralUtil::CreateR1<double>({0, 1}));
  g = GradientAt(abs_pow, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(),
              ::testing::ElementsAre(0, 1 + 2 * std::log(2.0)));
}

TEST(AutodiffTest, ModelLossesMatchFiniteDifferences) {
  // A tanh layer and softmax cross-entropy against fixed labels.
  XlaComputation loss = Scalarized(
      "mlp_xent", {F64Shape({4, 3}), F64Shape({3}), F64Shape({5, 4})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        XlaOp hidden = Tanh(Add(Dot(p[2], p[0]), p[1], {1}));
        XlaOp max = Reduce(hidden, ConstantR0<double>(&b, -INFINITY),
                           CreateScalarMaxComputation(F64, &b), {1});
        XlaOp shifted = Sub(hidden, max, {0});
        XlaOp log_sum = Log(Reduce(Exp(shifted), ConstantR0<double>(&b, 0),
                                   CreateScalarAddComputation(F64, &b), {1}));
        XlaOp labels = ConstantR2<double>(
            &b, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0}});
        return labels * Sub(log_sum, shifted, {0});
      });
  std::vector<Literal> args;
  args.push_back(RandomLiteral(F64Shape({4, 3}), 11));
  args.push_back(RandomLiteral(F64Shape({3}), 12));
  args.push_back(RandomLiteral(F64Shape({5, 4}), 13));
  ExpectGradientMatchesDifferences(loss, std::move(args), {0, 1, 2});
}

TEST(AutodiffTest, SecondDerivativesThroughTheRulesThemselves) {
  // h(x) = sum(d/dx sum(sin(x) * x)) = sum(cos(x) * x + sin(x)).
  XlaComputation f = Scalarized(
      "f", {F64Shape({5})}, [](XlaBuilder&, const std::vector<XlaOp>& p) {
        return Sin(p[0]) * p[0];
      });
  XlaBuilder b("h");
  XlaOp x = Parameter(&b, 0, F64Shape({5}), "x");
  absl::StatusOr<VjpOps> inner =
      EmitVjp(b, f, {x}, ConstantR0<double>(&b, 1.0), {0});
  ASSERT_TRUE(inner.ok()) << inner.status();
  SumAll(inner->cotangents[0]);
  absl::StatusOr<XlaComputation> h = b.Build();
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectGradientMatchesDifferences(*h, OneRandom(F64Shape({5}), 21), {0});
}

TEST(AutodiffTest, ValueAndGradientAndVjpReturnTheValueFirst) {
  XlaComputation f = Scalarized(
      "square", {F64Shape({3})},
      [](XlaBuilder&, const std::vector<XlaOp>& p) { return p[0] * p[0]; });
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({1, 2, 3}));
  absl::StatusOr<XlaComputation> both = ValueAndGradient(f, {0});
  ASSERT_TRUE(both.ok()) << both.status();
  absl::StatusOr<Literal> result = EvaluateModule(both->module(), testing::Pointers(args));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tuple_element(0).data<double>()[0], 14);
  EXPECT_THAT(result->tuple_element(1).data<double>(),
              ::testing::ElementsAre(2, 4, 6));

  // Vjp of an array-valued function: cotangent [1, 10] on x * y.
  // y is added before x, so parameter_instructions() is not in number order.
  XlaBuilder b("product");
  XlaOp y = Parameter(&b, 1, F64Shape({2}), "y");
  Mul(Parameter(&b, 0, F64Shape({2}), "x"), y);
  absl::StatusOr<XlaComputation> product = b.Build();
  ASSERT_TRUE(product.ok());
  absl::StatusOr<XlaComputation> vjp = Vjp(*product, {1});
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  args.clear();
  args.push_back(LiteralUtil::CreateR1<double>({3, 4}));
  args.push_back(LiteralUtil::CreateR1<double>({5, 6}));
  args.push_back(LiteralUtil::CreateR1<double>({1, 10}));
  result = EvaluateModule(vjp->module(), testing::Pointers(args));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->tuple_element(0).data<double>(),
              ::testing::ElementsAre(15, 24));
  EXPECT_THAT(result->tuple_element(1).data<double>(),
              ::testing::ElementsAre(3, 40));
}

TEST(AutodiffTest, ParametersOffThePathGetZerosAndOpsOffThePathNeedNoRule) {
  // y only feeds a reduce whose reducer (a power) has no rule: asking for
  // x's gradient works.
  XlaBuilder b("mixed");
  XlaOp x = Parameter(&b, 0, F64Shape({3}), "x");
  XlaOp y = Parameter(&b, 1, F64Shape({3}), "y");
  std::unique_ptr<XlaBuilder> power = b.CreateSubBuilder("power");
  Pow(Parameter(power.get(), 0, F64Shape({}), "a"),
      Parameter(power.get(), 1, F64Shape({}), "b"));
  XlaOp product = BroadcastInDim(
      Reduce(y, ConstantR0<double>(&b, 1), power->Build().value(), {0}),
      {3}, {});
  SumAll(x * x + product * 0.0);
  absl::StatusOr<XlaComputation> f = b.Build();
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({1, 2, 3}));
  args.push_back(LiteralUtil::CreateR1<double>({3, 1, 2}));
  absl::StatusOr<Literal> g = GradientAt(*f, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(), ::testing::ElementsAre(2, 4, 6));

  absl::StatusOr<XlaComputation> through_product = Gradient(*f, {1});
  EXPECT_EQ(through_product.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(through_product.status().message(),
              HasSubstr("gradient: no rule for 'reduce' yet (instruction"));

  // A parameter that the result does not read gets zeros.
  XlaBuilder unused("unused");
  XlaOp u = Parameter(&unused, 0, F64Shape({2}), "u");
  Parameter(&unused, 1, F64Shape({2, 2}), "v");
  SumAll(u * u);
  absl::StatusOr<XlaComputation> g_unused = Gradient(*unused.Build(), {1});
  ASSERT_TRUE(g_unused.ok()) << g_unused.status();
  args.clear();
  args.push_back(LiteralUtil::CreateR1<double>({1, 2}));
  args.push_back(RandomLiteral(F64Shape({2, 2}), 3));
  absl::StatusOr<Literal> zeros = EvaluateModule(g_unused->module(), testing::Pointers(args));
  ASSERT_TRUE(zeros.ok());
  EXPECT_THAT(zeros->tuple_element(0).data<double>(),
              ::testing::ElementsAre(0, 0, 0, 0));
}

TEST(AutodiffTest, BadRequestsAreRefusedByName) {
  XlaBuilder b("f");
  XlaOp x = Parameter(&b, 0, F64Shape({3}), "x");
  Parameter(&b, 1, ShapeUtil::MakeShape(S32, {3}), "index");
  SumAll(x);
  const XlaComputation f = *b.Build();
  EXPECT_THAT(Gradient(f, {2}).status().message(),
              HasSubstr("gradient of 'f': parameter 2 is out of range: it "
                        "has 2 parameters"));
  EXPECT_THAT(Gradient(f, {0, 0}).status().message(),
              HasSubstr("parameter 0 is named twice in wrt"));
  EXPECT_THAT(Gradient(f, {1}).status().message(),
              HasSubstr("parameter 1 ('index', s32[3]) is not a "
                        "floating-point array, so it has no gradient"));

  XlaBuilder v("vector");
  Sin(Parameter(&v, 0, F64Shape({3}), "x"));
  const XlaComputation vector_valued = *v.Build();
  absl::Status status = Gradient(vector_valued, {0}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("gradient of 'vector': it returns f64[3], not a "
                        "floating-point scalar; use Vjp"));

  XlaBuilder outer("outer");
  XlaOp y = Parameter(&outer, 0, F64Shape({3}), "y");
  absl::StatusOr<VjpOps> wrong = EmitVjp(
      outer, vector_valued, {y}, ConstantR0<double>(&outer, 1.0), {0});
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("the result's cotangent is f64[] but the result is "
                        "f64[3]"));
  absl::StatusOr<VjpOps> wrong_count =
      EmitVjp(outer, vector_valued, {}, ConstantR1<double>(&outer, {1, 1, 1}),
              {});
  EXPECT_THAT(wrong_count.status().message(),
              HasSubstr("it takes 1 parameters but 0 arguments were given"));
}

TEST(AutodiffTest, TupleElementsCarryTheirOwnCotangents) {
  // t = (2x, cos(y), x * x): element 0 read twice (its cotangents add up),
  // element 2 never (it gets none, so x gets only element 0's).
  XlaComputation f = Scalarized(
      "tuple", {F64Shape({3}), F64Shape({3})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        XlaOp t = Tuple(&b, {p[0] * 2.0, Cos(p[1]), p[0] * p[0]});
        return Sin(GetTupleElement(t, 0)) * GetTupleElement(t, 1) +
               GetTupleElement(t, 0) * GetTupleElement(t, 0);
      });
  std::vector<Literal> args;
  args.push_back(RandomLiteral(F64Shape({3}), 31));
  args.push_back(RandomLiteral(F64Shape({3}), 32));
  ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});

  // Through add-dependency of the tuple: an identity passes on the whole
  // tuple's cotangent.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule dependency
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY e {
  x = f64[3] parameter(0)
  y = f64[3] parameter(1)
  s = f64[3] sine(x)
  m = f64[3] multiply(y, x)
  t = (f64[3], f64[3]) tuple(s, m)
  token = token[] after-all()
  d = (f64[3], f64[3]) add-dependency(t, token)
  a = f64[3] get-tuple-element(d), index=0
  b = f64[3] get-tuple-element(d), index=1
  p = f64[3] multiply(a, b)
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(p, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  args.clear();
  args.push_back(RandomLiteral(F64Shape({3}), 33));
  args.push_back(RandomLiteral(F64Shape({3}), 34));
  ExpectGradientMatchesDifferences(XlaComputation(*std::move(module)),
                                   std::move(args), {0, 1});

  // A tuple inside a tuple (the interpreter's: the JIT takes flat tuples):
  // d/dx sum(((x, 3x), x)[0][1]) = 3.
  XlaComputation nested = Scalarized(
      "nested", {F64Shape({2})}, [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        XlaOp inner = Tuple(&b, {p[0], p[0] * 3.0});
        return GetTupleElement(GetTupleElement(Tuple(&b, {inner, p[0]}), 0), 1);
      });
  args.clear();
  args.push_back(LiteralUtil::CreateR1<double>({0.5, -1}));
  absl::StatusOr<Literal> g = GradientAt(nested, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(), ::testing::ElementsAre(3, 3));
}

// docs/autodiff.md's list of ops without a rule is the rules' own.
TEST(AutodiffTest, TheDocsListTheOpsWithoutARule) {
  const std::string page = testing::ReadFile(MXLA_SOURCE_DIR "/docs/autodiff.md");
  const std::string begin = "<!-- ops without a gradient rule: begin -->";
  const size_t start = page.find(begin);
  const size_t end = page.find("<!-- ops without a gradient rule: end -->");
  ASSERT_NE(start, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::vector<std::string> documented = absl::StrSplit(
      page.substr(start + begin.size(), end - start - begin.size()),
      absl::ByAnyChar(", \n"), absl::SkipEmpty());
  std::vector<std::string> without_rule;
#define MXLA_HLO_OP(e, ...)                                   \
  if (!HasGradientRule(HloOpcode::e)) {                        \
    without_rule.push_back(std::string(HloOpcodeString(HloOpcode::e))); \
  }
#include "ir/hlo_ops.def"
  EXPECT_THAT(documented, ::testing::UnorderedElementsAreArray(without_rule));
}

}  // namespace
}  // namespace mxla
