// The map rule (the mapped computation differentiated as the equivalent
// elementwise graph) against central differences in f64 at seeded random
// shapes and points, the JIT against the interpreter, an integer operand
// carrying no cotangent, a conditional inside the mapped computation, and
// a computation with no elementwise meaning refused by name.
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/parsed_computation.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using ::testing::HasSubstr;
using testing::Parsed;
using testing::RandomDims;
using testing::RandomLiteral;
using testing::Scalarized;

// (a, b) -> sin(a) * b + 2 * a * a - max(a, b) / (1 + b * b)
XlaComputation MappedScalarFunction() {
  XlaBuilder b("scalar_fn");
  const Shape scalar = ShapeUtil::MakeScalarShape(F64);
  const XlaOp x = Parameter(&b, 0, scalar, "a");
  const XlaOp y = Parameter(&b, 1, scalar, "b");
  const XlaOp one = ConstantR0<double>(&b, 1);
  Sin(x) * y + ConstantR0<double>(&b, 2) * x* x - Max(x, y) / (one + y * y);
  return *b.Build();
}

std::vector<int64_t> AllDimensions(const std::vector<int64_t>& dims) {
  std::vector<int64_t> all(dims.size());
  for (size_t d = 0; d < all.size(); ++d) all[d] = d;
  return all;
}

TEST(MapGradientTest, ABinaryMapMatchesFiniteDifferencesAtRandomShapes) {
  const XlaComputation fn = MappedScalarFunction();
  std::mt19937_64 rng(5100);
  for (int trial = 0; trial < 5; ++trial) {
    const std::vector<int64_t> dims =
        RandomDims(rng, /*min_rank=*/0, /*max_rank=*/3, /*max_size=*/4);
    SCOPED_TRACE(ShapeUtil::MakeShape(F64, dims).ToString());
    XlaComputation f =
        Scalarized("map", {F64Shape(dims), F64Shape(dims)},
                   [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
                     return Map(&b, {p[0], p[1]}, fn, AllDimensions(dims));
                   });
    std::vector<Literal> args;
    args.push_back(RandomLiteral(F64Shape(dims), 5200 + 2 * trial));
    args.push_back(RandomLiteral(F64Shape(dims), 5201 + 2 * trial));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
  }
}

// An s32 operand (a per-element count) gets no cotangent; the f64 one does.
TEST(MapGradientTest, AnIntegerOperandCarriesNoCotangent) {
  XlaBuilder fb("scaled");
  const XlaOp x = Parameter(&fb, 0, ShapeUtil::MakeScalarShape(F64), "x");
  const XlaOp k = Parameter(&fb, 1, ShapeUtil::MakeScalarShape(S32), "k");
  Exp(x * ConvertElementType(k, F64) * ConstantR0<double>(&fb, 0.3));
  const XlaComputation fn = *fb.Build();
  XlaComputation f = Scalarized(
      "int_operand", {F64Shape({2, 3})},
      [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
        const XlaOp counts = ConstantR2<int32_t>(&b, {{0, 1, 2}, {3, -1, 2}});
        return Map(&b, {p[0], counts}, fn, {0, 1});
      });
  ExpectGradientMatchesDifferences(
      f, testing::OneRandom(F64Shape({2, 3}), 5300), {0});
}

// The mapped computation branches per element (conditional-to-select
// turns it into a select first, as for the JIT).
TEST(MapGradientTest, AConditionalInsideTheMappedComputation) {
  XlaComputation f = Parsed(R"(HloModule map_cond
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
square { x = f64[] parameter(0)
         ROOT y = f64[] multiply(x, x) }
sine { x = f64[] parameter(0)
       ROOT y = f64[] sine(x) }
fn { x = f64[] parameter(0)
     zero = f64[] constant(0)
     positive = pred[] compare(x, zero), direction=GT
     ROOT r = f64[] conditional(positive, x, x), true_computation=square, false_computation=sine }
ENTRY e {
  x = f64[3,4] parameter(0)
  m = f64[3,4] map(x), dimensions={0,1}, to_apply=fn
  zero = f64[] constant(0)
  ROOT s = f64[] reduce(m, zero), dimensions={0,1}, to_apply=add
})");
  ExpectGradientMatchesDifferences(
      f, testing::OneRandom(F64Shape({3, 4}), 5400), {0});
}

TEST(MapGradientTest, AComputationWithNoElementwiseMeaningIsRefusedByName) {
  XlaComputation f = Parsed(R"(HloModule map_reshape
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
fn { x = f64[] parameter(0)
     r1 = f64[1] reshape(x)
     ROOT r = f64[] reshape(r1) }
ENTRY e {
  x = f64[3] parameter(0)
  m = f64[3] map(x), dimensions={0}, to_apply=fn
  zero = f64[] constant(0)
  ROOT s = f64[] reduce(m, zero), dimensions={0}, to_apply=add
})");
  EXPECT_THAT(Gradient(f, {0}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for 'map' whose "
                                 "computation 'fn' is not elementwise")));
  EXPECT_THAT(
      Gradient(f, {0}).status(),
      StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("(reshape)")));
}

}  // namespace
}  // namespace mxla
