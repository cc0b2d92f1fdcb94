// The cholesky and triangular-solve rules against central finite
// differences in f64 at seeded random batch shapes, the JIT against the
// interpreter: cholesky on symmetric positive-definite matrices
// (m m^T + n I) in its lower and upper forms, both read from one triangle
// (the other gets no cotangent), and triangular-solve on well-conditioned
// triangles in every form (left or right side, lower or upper, unit
// diagonal or not, a, a^T or the adjoint).
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
#include "tests/testlib/gradient_check.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::RandomDims;
using testing::RandomLiteral;
using testing::Scalarized;

// [batch..., n, n] with `batch` of rank 0 to 2, sizes 1 to 3.
std::vector<int64_t> RandomBatch(std::mt19937_64& rng) {
  return RandomDims(rng, /*min_rank=*/0, /*max_rank=*/2, /*max_size=*/3);
}

std::vector<int64_t> With(std::vector<int64_t> dims, int64_t rows,
                          int64_t columns) {
  dims.push_back(rows);
  dims.push_back(columns);
  return dims;
}

// Each matrix m m^T + n I, m uniform in [-1, 1): well inside the cone.
Literal PositiveDefinite(const Shape& shape, uint64_t seed) {
  const int64_t n = shape.dimensions(shape.rank() - 1);
  const Literal m = RandomLiteral(shape, seed, -1, 1);
  Literal a(shape);
  const int64_t matrices = ShapeUtil::ElementsIn(shape) / (n * n);
  for (int64_t k = 0; k < matrices; ++k) {
    const double* mk = m.data<double>().data() + k * n * n;
    double* ak = a.data<double>().data() + k * n * n;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = i == j ? n : 0;
        for (int64_t l = 0; l < n; ++l) sum += mk[i * n + l] * mk[j * n + l];
        ak[i * n + j] = sum;
      }
    }
  }
  return a;
}

// Each matrix random in [-0.5, 0.5) with 2 to 3 on the diagonal: both
// triangles are well conditioned.
Literal WellConditioned(const Shape& shape, uint64_t seed) {
  const int64_t n = shape.dimensions(shape.rank() - 1);
  Literal a = RandomLiteral(shape, seed, -0.5, 0.5);
  for (int64_t e = 0; e < ShapeUtil::ElementsIn(shape); ++e) {
    if ((e / n) % n == e % n) a.data<double>()[e] += 2.5;
  }
  return a;
}

// sum(weights * y): every element of y weighs differently.
XlaOp Weighted(XlaOp y, const Shape& shape, uint64_t seed) {
  return y * ConstantLiteral(y.builder(), RandomLiteral(shape, seed));
}

void ExpectCholeskyGradient(bool lower, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 4; ++trial) {
    std::uniform_int_distribution<int64_t> size(1, 4);
    const std::vector<int64_t> batch = RandomBatch(rng);
    const int64_t n = size(rng);
    const Shape square = F64Shape(With(batch, n, n));
    SCOPED_TRACE(absl::StrCat(square.ToString(), lower ? " lower" : " upper"));
    XlaComputation f = Scalarized(
        "cholesky", {square}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          return Weighted(Cholesky(p[0], lower), square, seed + 10 + trial);
        });
    std::vector<Literal> args;
    args.push_back(PositiveDefinite(square, seed + 20 + trial));
    ExpectGradientMatchesDifferences(f, std::move(args), {0});
  }
}

TEST(LinearAlgebraGradientTest, LowerCholeskyMatchesFiniteDifferences) {
  ExpectCholeskyGradient(/*lower=*/true, 7100);
}

TEST(LinearAlgebraGradientTest, UpperCholeskyMatchesFiniteDifferences) {
  ExpectCholeskyGradient(/*lower=*/false, 7200);
}

// Through a matrix built as m m^T + n I, so the perturbations are
// symmetric (the use a model makes of it: a covariance's factor).
TEST(LinearAlgebraGradientTest, CholeskyOfAGramMatrix) {
  const Shape m = F64Shape({2, 3, 3});
  XlaComputation f =
      Scalarized("gram", {m}, [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
        DotDimensionNumbers dnums{{0}, {2}, {0}, {2}};
        const XlaOp gram = DotGeneral(p[0], p[0], dnums);
        const XlaOp eye = ConvertElementType(
            Eq(Iota(&b, ShapeUtil::MakeShape(S32, {2, 3, 3}), 1),
               Iota(&b, ShapeUtil::MakeShape(S32, {2, 3, 3}), 2)),
            F64);
        return Sin(Cholesky(gram + eye * 3.0, /*lower=*/true));
      });
  ExpectGradientMatchesDifferences(f, testing::OneRandom(m, 7300), {0});
}

struct SolveForm {
  bool left_side, lower, unit_diagonal;
  TriangularSolveTranspose transpose;
};

std::string Name(const SolveForm& form) {
  return absl::StrCat(form.left_side ? "left" : "right",
                      form.lower ? " lower" : " upper",
                      form.unit_diagonal ? " unit" : "", " ",
                      TriangularSolveTransposeString(form.transpose));
}

std::vector<SolveForm> AllSolveForms() {
  std::vector<SolveForm> forms;
  for (bool left_side : {true, false}) {
    for (bool lower : {true, false}) {
      for (bool unit : {false, true}) {
        for (TriangularSolveTranspose t :
             {TriangularSolveTranspose::kNoTranspose,
              TriangularSolveTranspose::kTranspose,
              TriangularSolveTranspose::kAdjoint}) {
          forms.push_back({left_side, lower, unit, t});
        }
      }
    }
  }
  return forms;
}

TEST(LinearAlgebraGradientTest, TriangularSolveInEveryForm) {
  std::mt19937_64 rng(7400);
  uint64_t seed = 7500;
  for (const SolveForm& form : AllSolveForms()) {
    std::uniform_int_distribution<int64_t> size(1, 4);
    const std::vector<int64_t> batch = RandomBatch(rng);
    const int64_t m = size(rng), n = size(rng);
    const Shape a = F64Shape(With(batch, m, m));
    const Shape b =
        F64Shape(form.left_side ? With(batch, m, n) : With(batch, n, m));
    SCOPED_TRACE(
        absl::StrCat(Name(form), " ", a.ToString(), " ", b.ToString()));
    XlaComputation f = Scalarized(
        "solve", {a, b}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          return Weighted(
              TriangularSolve(p[0], p[1], form.left_side, form.lower,
                              form.unit_diagonal, form.transpose),
              b, seed);
        });
    std::vector<Literal> args;
    args.push_back(WellConditioned(a, seed + 1));
    args.push_back(RandomLiteral(b, seed + 2));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
    seed += 3;
  }
}

// The cholesky rule is written with triangular solves, whose rule then
// gives its second derivative: h(a) = sum(v * d/da sum(w * chol(a))).
TEST(LinearAlgebraGradientTest, SecondDerivativeOfCholeskyThroughItsSolves) {
  const Shape square = F64Shape({2, 3, 3});
  for (bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "lower" : "upper");
    XlaComputation f = Scalarized(
        "cholesky", {square}, [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          return Weighted(Cholesky(p[0], lower), square, 7600);
        });
    XlaBuilder b("second");
    const XlaOp a = Parameter(&b, 0, square, "a");
    absl::StatusOr<VjpOps> inner =
        EmitVjp(b, f, {a}, ConstantR0<double>(&b, 1.0), {0});
    ASSERT_TRUE(inner.ok()) << inner.status();
    testing::SumAll(Weighted(inner->cotangents[0], square, 7601));
    absl::StatusOr<XlaComputation> h = b.Build();
    ASSERT_TRUE(h.ok()) << h.status();
    std::vector<Literal> args;
    args.push_back(PositiveDefinite(square, 7602));
    ExpectGradientMatchesDifferences(*h, std::move(args), {0});
  }
}

}  // namespace
}  // namespace mxla
