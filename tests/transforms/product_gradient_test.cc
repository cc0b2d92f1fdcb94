// The gradient of reduce with a multiply reducer (jnp.prod): against
// central differences in f64 over random shapes and reduced dimensions
// (one, several, not adjacent, all, none), an initial value other than 1,
// and groups holding one or two zeros, where the gradient is the product
// of the other elements (one zero: nonzero at the zero only; two: zero
// everywhere), checked by hand as well; the JIT against the interpreter.
#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/gradient_check.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::RandomLiteral;
using testing::Scalarized;
using testing::SumAll;

// sum(sin(prod over `reduced` of x, from init)): the sine makes every
// result element's cotangent differ.
XlaComputation ProductLoss(const Shape& x, std::vector<int64_t> reduced) {
  return Scalarized(
      "prod", {x, F64Shape({})}, [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return SumAll(Sin(Reduce(p[0], p[1],
                                 CreateScalarMulComputation(F64, &b), reduced)));
      });
}

TEST(ProductGradientTest, RandomShapesAndDimensions) {
  std::mt19937_64 rng(9100);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t rank = std::uniform_int_distribution<int64_t>(1, 4)(rng);
    std::vector<int64_t> dims(rank), reduced;
    for (int64_t d = 0; d < rank; ++d) {
      dims[d] = std::uniform_int_distribution<int64_t>(1, 5)(rng);
      if (std::uniform_int_distribution<int>(0, 1)(rng)) reduced.push_back(d);
    }
    SCOPED_TRACE(absl::StrCat("[", absl::StrJoin(dims, ","), "] over {",
                              absl::StrJoin(reduced, ","), "}"));
    std::vector<Literal> args;
    // Values of magnitude near 1, so that products stay well scaled.
    args.push_back(RandomLiteral(F64Shape(dims), 9200 + trial, 0.5, 1.5));
    args.push_back(RandomLiteral(F64Shape({}), 9300 + trial, 0.5, 1.5));
    ExpectGradientMatchesDifferences(ProductLoss(F64Shape(dims), reduced),
                                     std::move(args), {0, 1});
  }
}

// d/dx_i of x0 x1 x2 x3 (init 2) where zeros sit: the others' product.
TEST(ProductGradientTest, ZerosGetTheProductOfTheOthers) {
  XlaBuilder b("prod_of_four");
  const XlaOp x = Parameter(&b, 0, F64Shape({2, 4}), "x");
  Reduce(x, ConstantR0<double>(&b, 2), CreateScalarMulComputation(F64, &b),
         {1});
  XlaComputation prod = b.Build().value();
  absl::StatusOr<XlaComputation> vjp = Vjp(prod, {0});
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  // Row 0 has one zero, row 1 two; cotangents 1 and 10.
  Literal xs = LiteralUtil::CreateR2<double>({{3, 0, 5, 7}, {0, 2, 0, 4}});
  Literal g = LiteralUtil::CreateR1<double>({1, 10});
  absl::StatusOr<Literal> result =
      EvaluateModule(vjp->module(), {&xs, &g});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tuple_element(0), LiteralUtil::CreateR1<double>({0, 0}));
  EXPECT_EQ(result->tuple_element(1),
            LiteralUtil::CreateR2<double>(
                {{0, 2 * 3 * 5 * 7, 0, 0}, {0, 0, 0, 0}}))
      << result->ToString();
}

}  // namespace
}  // namespace mxla
