// cholesky and triangular-solve: hand-computed cases, the JIT's loops
// (expand-choleskys, expand-triangular-solves) against the interpreter,
// bit for bit in exact mode and within rounding by default (their dots
// then run on the matrix-product kernel), on seeded matrices of every
// option, what each result
// solves, the shape rules' errors and the builder.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/shape_util.h"
#include "semantics/scalar_semantics.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::fixtures::OneOpModule;
using ::mxla::testing::ErrorSpec;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An f64 array of `dims` with `values`, converted to `type`.
Literal Array(PrimitiveType type, const std::vector<int64_t>& dims,
              const std::vector<double>& values) {
  Literal wide(ShapeUtil::MakeShape(F64, dims));
  absl::c_copy(values, wide.data<double>().begin());
  return semantics::ApplyConvert(wide, type).value();
}

std::vector<double> Values(const Literal& literal) {
  const Literal wide = semantics::ApplyConvert(literal, F64).value();
  absl::Span<const double> values = wide.data<double>();
  return std::vector<double>(values.begin(), values.end());
}

// The seeded cases: in exact mode the JIT's loops match the interpreter
// bit for bit; by default (reassociation) the dots inside them run on the
// matrix-product kernel, which rounds with fused multiply-adds, so within
// `tolerance`. Returns the interpreter's result.
Literal EvaluateAndCompareBothModes(const std::string& text,
                                    absl::Span<const Literal* const> arguments,
                                    double tolerance) {
  RunAndCompareOptions exact;
  exact.compile.codegen.reassociate_reductions = false;
  Literal result = EvaluateAndCompare(text, arguments, exact);
  RunAndCompareOptions close;
  close.error = ErrorSpec{tolerance, tolerance};
  EvaluateAndCompare(text, arguments, close);
  return result;
}

TEST(CholeskyTest, HandComputedLowerAndUpperFactors) {
  // XLA's own example: l = {{1,0,0},{2,4,0},{3,5,6}}.
  const Literal a = Array(F64, {3, 3}, {1, 2, 3, 2, 20, 26, 3, 26, 70});
  EXPECT_THAT(Values(EvaluateAndCompare(OneOpModule("cholesky", {"f64[3,3]"},
                                                    "f64[3,3]", "lower=true"),
                                        {&a})),
              ElementsAre(1, 0, 0, 2, 4, 0, 3, 5, 6));
  // The upper factor reads only the upper triangle: NaN below is ignored.
  const Literal upper =
      Array(F32, {3, 3}, {1, 2, 3, kNaN, 20, 26, kNaN, kNaN, 70});
  EXPECT_THAT(
      Values(EvaluateAndCompare(
          OneOpModule("cholesky", {"f32[3,3]"}, "f32[3,3]", ""), {&upper})),
      ElementsAre(1, 2, 3, 0, 4, 5, 0, 0, 6));
}

TEST(CholeskyTest, AMatrixThatIsNotPositiveDefiniteBecomesNaN) {
  // The second matrix of the batch has a negative pivot; the first is fine.
  const Literal a = Array(F32, {2, 2, 2}, {4, kNaN, 2, 5, -1, 0, 0, 1});
  const std::vector<double> l = Values(EvaluateAndCompare(
      OneOpModule("cholesky", {"f32[2,2,2]"}, "f32[2,2,2]", "lower=true"),
      {&a}));
  EXPECT_THAT(std::vector<double>(l.begin(), l.begin() + 4),
              ElementsAre(2, 0, 1, 2));
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(l[i])) << i;
}

// Batches of n x n matrices x x^T + n I, symmetric positive definite.
std::vector<double> SpdMatrices(int64_t batch, int64_t n, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> a(batch * n * n);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> x(n * n);
    for (double& v : x) v = uniform(random);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = i == j ? n : 0;
        for (int64_t k = 0; k < n; ++k) sum += x[i * n + k] * x[j * n + k];
        a[(b * n + i) * n + j] = sum;
      }
    }
  }
  return a;
}

TEST(CholeskyTest, FactorsReconstructSeededMatricesInEveryFloatType) {
  const int64_t batch = 3, n = 6;
  for (const auto& [type, tolerance] :
       std::vector<std::pair<PrimitiveType, double>>{
           {F64, 1e-12}, {F32, 1e-5}, {F16, 1e-2}, {BF16, 5e-2}}) {
    for (bool lower : {true, false}) {
      const std::string name(primitive_util::LowercaseName(type));
      SCOPED_TRACE(name + (lower ? " lower" : " upper"));
      const std::string shape = name + "[3,6,6]";
      const Literal a = Array(type, {batch, n, n}, SpdMatrices(batch, n, 7));
      const std::vector<double> f = Values(EvaluateAndCompareBothModes(
          OneOpModule("cholesky", {shape}, shape, lower ? "lower=true" : ""),
          {&a}, tolerance));
      const std::vector<double> given = Values(a);
      for (int64_t b = 0; b < batch; ++b) {
        const double* m = f.data() + b * n * n;
        // l[i][k] (or u[k][i]) with the other triangle 0.
        auto factor = [&](int64_t i, int64_t k) {
          return lower ? m[i * n + k] : m[k * n + i];
        };
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            if (j > i) EXPECT_EQ(factor(i, j), 0);
            double sum = 0;
            for (int64_t k = 0; k < n; ++k) sum += factor(i, k) * factor(j, k);
            const double expected = given[(b * n + i) * n + j];
            EXPECT_NEAR(sum, expected, tolerance * n * n) << i << "," << j;
          }
        }
      }
    }
  }
}

TEST(TriangularSolveTest, HandComputedCases) {
  // [[2, .], [1, 1]] x = [2, 3]: x = [1, 2]; the upper triangle is unread.
  const Literal a = Array(F32, {2, 2}, {2, kNaN, 1, 1});
  const Literal b = Array(F32, {2, 1}, {2, 3});
  EXPECT_THAT(
      Values(EvaluateAndCompare(
          OneOpModule("triangular-solve", {"f32[2,2]", "f32[2,1]"}, "f32[2,1]",
                      "left_side=true, lower=true, transpose_a=NO_TRANSPOSE"),
          {&a, &b})),
      ElementsAre(1, 2));
  // unit_diagonal reads neither the diagonal nor the other triangle.
  const Literal unit = Array(F64, {2, 2}, {kNaN, kNaN, 3, kNaN});
  const Literal c = Array(F64, {2, 1}, {1, 5});
  EXPECT_THAT(
      Values(EvaluateAndCompare(
          OneOpModule("triangular-solve", {"f64[2,2]", "f64[2,1]"}, "f64[2,1]",
                      "left_side=true, lower=true, unit_diagonal=true, "
                      "transpose_a=NO_TRANSPOSE"),
          {&unit, &c})),
      ElementsAre(1, 2));
  // x a^T = b with a = [[2, .], [1, 1]]: x [[2, 1], [0, 1]] = [4, 5] gives
  // x = [2, 3].
  const Literal row = Array(F32, {1, 2}, {4, 5});
  EXPECT_THAT(Values(EvaluateAndCompare(
                  OneOpModule("triangular-solve", {"f32[2,2]", "f32[1,2]"},
                              "f32[1,2]", "lower=true, transpose_a=TRANSPOSE"),
                  {&a, &row})),
              ElementsAre(2, 3));
}

// Every option on a batch of seeded, well-conditioned triangular matrices
// whose unread parts are NaN: the JIT matches the interpreter bit for bit
// and op(a) x = b (or x op(a) = b) holds.
TEST(TriangularSolveTest, EveryOptionSolvesItsSystem) {
  const int64_t batch = 2, m = 5, n = 3;
  std::mt19937 random(11);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (PrimitiveType type : {F32, F64}) {
    const std::string name(primitive_util::LowercaseName(type));
    for (bool left_side : {true, false}) {
      for (bool lower : {true, false}) {
        for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
          for (bool unit_diagonal : {false, true}) {
            SCOPED_TRACE(name + " left_side=" + (left_side ? "1" : "0") +
                         " lower=" + (lower ? "1" : "0") + " " + transpose +
                         " unit_diagonal=" + (unit_diagonal ? "1" : "0"));
            // The triangle that is read; NaN elsewhere.
            std::vector<double> a(batch * m * m), dense(batch * m * m);
            for (int64_t k = 0; k < batch * m * m; ++k) {
              const int64_t i = k / m % m, j = k % m;
              const bool read = lower ? j < i : j > i;
              if (i == j) {
                dense[k] = unit_diagonal ? 1 : 2 + uniform(random);
                a[k] = unit_diagonal ? kNaN : dense[k];
              } else {
                dense[k] = read ? uniform(random) / m : 0;
                a[k] = read ? dense[k] : kNaN;
              }
            }
            std::vector<double> b(batch * m * n);
            for (double& v : b) v = uniform(random);
            const std::vector<int64_t> b_dims =
                left_side ? std::vector<int64_t>{batch, m, n}
                          : std::vector<int64_t>{batch, n, m};
            const std::string b_shape = left_side ? "[2,5,3]" : "[2,3,5]";
            const Literal a_literal = Array(type, {batch, m, m}, a);
            const Literal b_literal = Array(type, b_dims, b);
            std::string attributes =
                std::string("transpose_a=") + transpose +
                (left_side ? ", left_side=true" : "") +
                (lower ? ", lower=true" : "") +
                (unit_diagonal ? ", unit_diagonal=true" : "");
            const std::vector<double> x = Values(EvaluateAndCompareBothModes(
                OneOpModule("triangular-solve",
                            {name + "[2,5,5]", name + b_shape}, name + b_shape,
                            attributes),
                {&a_literal, &b_literal}, type == F32 ? 1e-5 : 1e-12));
            const std::vector<double> given_b = Values(b_literal);
            const bool transposed = std::string(transpose) != "NO_TRANSPOSE";
            // op(a)[i][k] from the dense triangle.
            auto op = [&](int64_t batch_index, int64_t i, int64_t k) {
              const double* d = dense.data() + batch_index * m * m;
              return transposed ? d[k * m + i] : d[i * m + k];
            };
            for (int64_t bi = 0; bi < batch; ++bi) {
              for (int64_t r = 0; r < (left_side ? m : n); ++r) {
                for (int64_t c = 0; c < (left_side ? n : m); ++c) {
                  double sum = 0;
                  const int64_t cols = left_side ? n : m;
                  for (int64_t k = 0; k < m; ++k) {
                    sum += left_side
                               ? op(bi, r, k) * x[(bi * m + k) * cols + c]
                               : x[(bi * n + r) * cols + k] * op(bi, k, c);
                  }
                  EXPECT_NEAR(
                      sum, given_b[(bi * (left_side ? m : n) + r) * cols + c],
                      1e-5)
                      << bi << "," << r << "," << c;
                }
              }
            }
          }
        }
      }
    }
  }
}

// Empty batches, empty matrices and solutions without columns run in both
// backends (the loops run zero times or over nothing).
TEST(LinearAlgebraTest, ZeroSizedOperands) {
  for (const char* shape : {"f32[0,3,3]", "f32[2,0,0]", "f64[0,0]"}) {
    SCOPED_TRACE(shape);
    EXPECT_TRUE(::mxla::testing::RunAndCompare(
        OneOpModule("cholesky", {shape}, shape, "lower=true")));
  }
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"f32[3,3]", "f32[3,0]"},
           {"f32[0,0]", "f32[0,4]"},
           {"f32[0,2,2]", "f32[0,2,5]"}}) {
    SCOPED_TRACE(a + " " + b);
    EXPECT_TRUE(::mxla::testing::RunAndCompare(
        OneOpModule("triangular-solve", {a, b}, b,
                    "left_side=true, transpose_a=TRANSPOSE")));
  }
}

TEST(LinearAlgebraTest, ShapeRuleErrors) {
  using ::absl::StatusCode;
  EXPECT_THAT(VerifyHloText(OneOpModule("cholesky", {"s32[2,2]"}, "s32[2,2]", "")),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("cholesky: Expected element type in shape to "
                                 "be floating or complex for Cholesky; got "
                                 "s32.")));
  EXPECT_THAT(VerifyHloText(OneOpModule("cholesky", {"f32[4]"}, "f32[4]", "")),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("cholesky: The 'a' argument to Cholesky must "
                                 "have rank >= 2, got shape f32[4]")));
  EXPECT_THAT(VerifyHloText(OneOpModule("cholesky", {"f32[2,3]"}, "f32[2,3]", "")),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("cholesky: The two minor dimensions of 'a' "
                                 "must have equal size, got f32[2,3].")));
  const std::string no_transpose = "transpose_a=NO_TRANSPOSE";
  EXPECT_THAT(
      VerifyHloText(OneOpModule("triangular-solve", {"f32[2,2]", "f64[2,2]"},
                         "f64[2,2]", no_transpose)),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("triangular-solve: Expected element types in shape "
                         "to be floating or complex and identical for "
                         "TriangularSolve; got f32 and f64.")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("triangular-solve", {"f32[2,2]", "f32[3,2,2]"},
                         "f32[3,2,2]", no_transpose)),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("triangular-solve: Arguments to triangular solve "
                         "must have equal rank; got f32[3,2,2] and "
                         "f32[2,2].")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("triangular-solve", {"f32[3,3]", "f32[2,3]"},
                         "f32[2,3]", "left_side=true, " + no_transpose)),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("triangular-solve: The shared dimension of 'a' and "
                         "'b' does not match, got shapes f32[3,3] and "
                         "f32[2,3]")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("triangular-solve", {"f32[2,3,3]", "f32[4,3,1]"},
                         "f32[4,3,1]", "left_side=true, " + no_transpose)),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("triangular-solve: The leading batch dimensions of "
                         "the arguments to triangular solve must be equal; "
                         "got f32[4,3,1] and f32[2,3,3].")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("triangular-solve", {"f32[2,2]", "f32[2,2]"},
                         "f32[2,2]", "left_side=true")),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("triangular-solve: missing attribute transpose_a "
                         "(NO_TRANSPOSE, TRANSPOSE or ADJOINT)")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("triangular-solve", {"f32[2,2]", "f32[2,2]"},
                         "f32[2,2]", "transpose_a=CONJUGATE")),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("triangular-solve: transpose_a must be NO_TRANSPOSE, "
                         "TRANSPOSE or ADJOINT; got CONJUGATE")));
  EXPECT_THAT(
      VerifyHloText(OneOpModule("cholesky", {"f32[2,2]"}, "f32[2,2]", "lower=yes")),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("cholesky: lower must be true or false; got "
                         "yes")));
}

TEST(LinearAlgebraTest, BuilderFunctions) {
  XlaBuilder builder("solve");
  XlaOp a = Parameter(&builder, 0, ShapeUtil::MakeShape(F32, {4, 4}), "a");
  XlaOp b = Parameter(&builder, 1, ShapeUtil::MakeShape(F32, {4, 2}), "b");
  XlaOp l = Cholesky(a, /*lower=*/true);
  TriangularSolve(l, b, /*left_side=*/true, /*lower=*/true,
                  /*unit_diagonal=*/false, TriangularSolveTranspose::kAdjoint);
  absl::StatusOr<XlaComputation> computation = builder.Build();
  ASSERT_OK(computation.status());
  const std::string text = computation->module().ToString();
  EXPECT_THAT(text, HasSubstr("cholesky(a), lower=true"));
  EXPECT_THAT(text, HasSubstr("left_side=true, lower=true, "
                              "transpose_a=ADJOINT"));
  // The printed module parses back to the same text.
  EXPECT_EQ(ParseHloModule(text).value()->ToString(), text);

  XlaBuilder bad("solve");
  XlaOp x = Parameter(&bad, 0, ShapeUtil::MakeShape(F32, {3, 3}), "x");
  XlaOp y = Parameter(&bad, 1, ShapeUtil::MakeShape(F32, {2, 3}), "y");
  TriangularSolve(x, y, true, false, false,
                  TriangularSolveTranspose::kNoTranspose);
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("TriangularSolve(f32[3,3], f32[2,3], "
                                 "left_side=true, lower=false, "
                                 "unit_diagonal=false, "
                                 "transpose_a=NO_TRANSPOSE)")));
}

}  // namespace
}  // namespace mxla
