#include "tests/testlib/gradient_check.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "transforms/autodiff.h"

namespace mxla::testing {
namespace {

double Evaluate(const XlaComputation& f, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> result = EvaluateModule(f.module(), Pointers(args));
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->data<double>()[0] : NAN;
}

}  // namespace

Shape F64Shape(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(F64, dims);
}

Literal RandomLiteral(const Shape& shape, uint64_t seed, double lo,
                      double hi) {
  Literal literal(shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(lo, hi);
  for (double& x : literal.data<double>()) x = value(rng);
  return literal;
}

std::vector<int64_t> RandomDims(std::mt19937_64& rng, int64_t min_rank,
                                int64_t max_rank, int64_t max_size) {
  std::uniform_int_distribution<int64_t> rank(min_rank, max_rank),
      size(1, max_size);
  std::vector<int64_t> dims(rank(rng));
  for (int64_t& d : dims) d = size(rng);
  return dims;
}

std::vector<Literal> OneRandom(const Shape& shape, uint64_t seed) {
  std::vector<Literal> args;
  args.push_back(RandomLiteral(shape, seed));
  return args;
}

std::vector<Literal> RandomArgs(const std::vector<Shape>& shapes,
                                uint64_t seed) {
  std::vector<Literal> args;
  for (const Shape& shape : shapes)
    args.push_back(RandomLiteral(shape, seed++));
  return args;
}

XlaOp SumAll(XlaOp x) {
  if (!x.valid()) return x;  // the builder holds the error
  absl::StatusOr<Shape> shape = x.builder()->GetShape(x);
  if (!shape.ok()) return XlaOp();
  std::vector<int64_t> all(shape->dimensions().size());
  for (size_t d = 0; d < all.size(); ++d) all[d] = d;
  return Reduce(x, ScalarLike(x, 0),
                CreateScalarAddComputation(shape->element_type(), x.builder()),
                all);
}

XlaComputation Scalarized(
    const std::string& name, const std::vector<Shape>& shapes,
    const std::function<XlaOp(XlaBuilder&, const std::vector<XlaOp>&)>&
        body) {
  XlaBuilder b(name);
  std::vector<XlaOp> params;
  for (size_t i = 0; i < shapes.size(); ++i) {
    params.push_back(Parameter(&b, i, shapes[i], absl::StrCat("p", i)));
  }
  SumAll(body(b, params));
  absl::StatusOr<XlaComputation> built = b.Build();
  if (built.ok()) return *std::move(built);
  ADD_FAILURE() << built.status();
  XlaBuilder zero(name);
  ConstantR0<double>(&zero, 0);
  return *zero.Build();
}

double CentralDifference(const XlaComputation& f, std::vector<Literal>& args,
                         int64_t parameter, int64_t element, double h) {
  double& x = args[parameter].data<double>()[element];
  const double saved = x;
  x = saved + h;
  const double up = Evaluate(f, args);
  x = saved - h;
  const double down = Evaluate(f, args);
  x = saved;
  return (up - down) / (2 * h);
}

void ExpectGradientMatchesDifferences(const XlaComputation& f,
                                      std::vector<Literal> args,
                                      std::vector<int64_t> wrt,
                                      double tolerance) {
  absl::StatusOr<XlaComputation> gradient = Gradient(f, wrt);
  ASSERT_TRUE(gradient.ok()) << gradient.status();
  absl::StatusOr<Literal> analytic =
      EvaluateModule(gradient->module(), Pointers(args));
  ASSERT_TRUE(analytic.ok()) << analytic.status();
  for (size_t k = 0; k < wrt.size(); ++k) {
    const Literal& dfdx = analytic->tuple_element(k);
    ASSERT_EQ(dfdx.shape(), args[wrt[k]].shape());
    for (int64_t i = 0; i < dfdx.element_count(); ++i) {
      const double saved = args[wrt[k]].data<double>()[i];
      const double numeric = CentralDifference(f, args, wrt[k], i);
      const double exact = dfdx.data<double>()[i];
      EXPECT_NEAR(exact, numeric, tolerance * (1 + std::abs(numeric)))
          << f.name() << ": d/dx" << wrt[k] << "[" << i << "] at " << saved;
    }
  }
  // The gradient computation compiles and the JIT agrees with the oracle.
  RunAndCompareOptions options;
  options.error = ErrorSpec{1e-9, 1e-9};
  EXPECT_TRUE(RunAndCompare(gradient->module(), Pointers(args), options));
}

void ExpectJitGradientMatchesInterpreter(const XlaComputation& f,
                                         std::vector<int64_t> wrt,
                                         double error, uint64_t seed) {
  absl::StatusOr<XlaComputation> gradient = Gradient(f, wrt);
  ASSERT_TRUE(gradient.ok()) << gradient.status();
  const std::vector<Literal> args =
      MakeSeededArguments(gradient->module(), seed);
  RunAndCompareOptions options;
  options.error = ErrorSpec{error, error};
  EXPECT_TRUE(RunAndCompare(gradient->module(), Pointers(args), options))
      << f.name();
}

Shape AsF32(const Shape& shape) {
  return ShapeUtil::ChangeElementType(shape, F32);
}

absl::StatusOr<Literal> GradientAt(const XlaComputation& f,
                                   std::vector<Literal> args) {
  absl::StatusOr<XlaComputation> gradient = Gradient(f, {0});
  if (!gradient.ok()) return gradient.status();
  absl::StatusOr<Literal> result =
      EvaluateModule(gradient->module(), Pointers(args));
  if (!result.ok()) return result.status();
  return Literal(result->tuple_element(0));
}

}  // namespace mxla::testing
