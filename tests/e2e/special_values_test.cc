// The documented semantics of NaN, infinities, signed zeros, integer
// overflow and integer division by zero (semantics/scalar_semantics.h,
// docs/numerics.md), pinned to their documented values in both backends:
// the JIT and the interpreter must each give exactly these bits.
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "ir/status_macros.h"
#include "ir/sub_byte_int.h"
#include "semantics/scalar_semantics.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

using BinaryOp = XlaOp (*)(XlaOp, XlaOp, Dims, SourceLocation);
using UnaryOp = XlaOp (*)(XlaOp, SourceLocation);

// `actual` equals `expected` bit for bit (the sign of zero included), except
// that where `expected` has a NaN any NaN will do: invalid operations give
// the hardware's default NaN (on x86-64 the sign bit is set), which the two
// backends must then agree on exactly.
bool MatchesDocumented(const Literal& actual, const Literal& expected) {
  if (actual.shape() != expected.shape()) return false;
  if (!expected.shape().IsArray() || expected.shape().element_type() != F32) {
    return actual == expected;
  }
  absl::Span<const float> a = actual.data<float>(), e = expected.data<float>();
  for (size_t i = 0; i < e.size(); ++i) {
    if (std::isnan(e[i]) ? !std::isnan(a[i])
                         : std::bit_cast<uint32_t>(a[i]) !=
                               std::bit_cast<uint32_t>(e[i])) {
      return false;
    }
  }
  return true;
}

// Compiles `computation` for `backend` and runs it once.
absl::StatusOr<Literal> RunOnBackend(
    Backend backend, const XlaComputation& computation,
    absl::Span<const Literal* const> arguments) {
  CompileOptions options;
  options.backend = backend;
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(computation.module(), options));
  return executable->Run(arguments);
}

// Runs `build` (which adds ops on parameters made from `inputs`) on both
// backends: each must give `expected` (see MatchesDocumented), and the two
// must give the same bits.
void ExpectBothBackends(const std::string& what,
                        const std::vector<Literal>& inputs,
                        const std::function<void(std::vector<XlaOp>&)>& build,
                        const Literal& expected) {
  XlaBuilder b(what);
  std::vector<XlaOp> parameters;
  for (size_t i = 0; i < inputs.size(); ++i) {
    parameters.push_back(
        Parameter(&b, i, inputs[i].shape(), "p" + std::to_string(i)));
  }
  build(parameters);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  std::vector<const Literal*> arguments;
  for (const Literal& input : inputs) arguments.push_back(&input);
  std::vector<Literal> results;
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    ASSERT_OK_AND_ASSIGN(Literal result,
                         RunOnBackend(backend, computation, arguments));
    EXPECT_TRUE(MatchesDocumented(result, expected))
        << what << " on " << BackendName(backend) << ": got "
        << result.ToString() << ", documented " << expected.ToString();
    results.push_back(std::move(result));
  }
  EXPECT_OK(LiteralUtil::SameValues(results[0], results[1]))
      << what << ": the backends differ";
}

void ExpectBinary(const std::string& what, BinaryOp op, Literal lhs,
                  Literal rhs, const Literal& expected) {
  std::vector<Literal> inputs;
  inputs.push_back(std::move(lhs));
  inputs.push_back(std::move(rhs));
  ExpectBothBackends(
      what, inputs,
      [op](std::vector<XlaOp>& p) { op(p[0], p[1], {}, SourceLocation::current()); },
      expected);
}

void ExpectUnary(const std::string& what, UnaryOp op, Literal operand,
                 const Literal& expected) {
  std::vector<Literal> inputs;
  inputs.push_back(std::move(operand));
  ExpectBothBackends(
      what, inputs,
      [op](std::vector<XlaOp>& p) { op(p[0], SourceLocation::current()); },
      expected);
}

template <typename T>
Literal R1(std::initializer_list<T> values) {
  return LiteralUtil::CreateR1<T>(values);
}

TEST(SpecialValuesTest, MaximumAndMinimumPropagateNaNAndOrderSignedZeros) {
  ExpectBinary("maximum", Max, R1<float>({kNaN, 1, -0.0f, 0.0f, -kInf}),
               R1<float>({1, kNaN, 0.0f, -0.0f, kInf}),
               R1<float>({kNaN, kNaN, 0.0f, 0.0f, kInf}));
  ExpectBinary("minimum", Min, R1<float>({kNaN, 1, -0.0f, 0.0f, -kInf}),
               R1<float>({1, kNaN, 0.0f, -0.0f, kInf}),
               R1<float>({kNaN, kNaN, -0.0f, -0.0f, -kInf}));
}

// Every pair of special values, with the second operand a parameter or a
// constant (the JIT's compare-and-blend form for relu and clamp bounds), in
// both operand orders, bit for bit against semantics/scalar_semantics.h:
// NaN payloads too, since max and min pass a NaN operand through. The
// input repeats so that the kernels' vector loops see every case.
TEST(SpecialValuesTest, MaximumAndMinimumAgainstEveryBoundBitForBit) {
  const std::vector<float> specials = {
      std::bit_cast<float>(0x7fc00001u), std::bit_cast<float>(0xffc00002u),
      -kInf, -1.5f, -0.0f, 0.0f, std::numeric_limits<float>::denorm_min(),
      1.5f, kInf};
  std::vector<float> x;
  for (int repeat = 0; repeat < 8; ++repeat) {
    x.insert(x.end(), specials.begin(), specials.end());
  }
  const Literal x_literal = LiteralUtil::CreateR1<float>(x);
  for (float bound : specials) {
    for (bool maximum : {true, false}) {
      for (bool bound_first : {false, true}) {
        for (bool bound_constant : {false, true}) {
          XlaBuilder b("max_min_bound");
          XlaOp p = Parameter(&b, 0, x_literal.shape(), "x");
          XlaOp c = bound_constant
                        ? ConstantR0<float>(&b, bound)
                        : Parameter(&b, 1, ShapeUtil::MakeShape(F32, {}), "c");
          XlaOp lhs = bound_first ? c : p, rhs = bound_first ? p : c;
          maximum ? Max(lhs, rhs) : Min(lhs, rhs);
          ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
          const Literal c_literal = LiteralUtil::CreateR0<float>(bound);
          std::vector<const Literal*> arguments = {&x_literal};
          if (!bound_constant) arguments.push_back(&c_literal);
          for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
            ASSERT_OK_AND_ASSIGN(Literal result,
                                 RunOnBackend(backend, computation, arguments));
            absl::Span<const float> got = result.data<float>();
            for (size_t i = 0; i < x.size(); ++i) {
              const float l = bound_first ? bound : x[i];
              const float r = bound_first ? x[i] : bound;
              const float want = maximum ? semantics::Max(l, r)
                                         : semantics::Min(l, r);
              ASSERT_EQ(std::bit_cast<uint32_t>(got[i]),
                        std::bit_cast<uint32_t>(want))
                  << (maximum ? "maximum(" : "minimum(") << l << ", " << r
                  << ") on " << BackendName(backend)
                  << (bound_constant ? " with a constant bound" : "");
            }
          }
        }
      }
    }
  }
}

TEST(SpecialValuesTest, FloatDivisionByZeroAndDomainErrorsAreIeee) {
  ExpectBinary("divide", Div, R1<float>({1, -1, 0, 1, kInf}),
               R1<float>({0.0f, 0.0f, 0.0f, -0.0f, kInf}),
               R1<float>({kInf, -kInf, kNaN, -kInf, kNaN}));
  ExpectUnary("log", Log, R1<float>({-1, 0, -0.0f, kInf, 1}),
              R1<float>({kNaN, -kInf, -kInf, kInf, 0}));
  ExpectUnary("sqrt", Sqrt, R1<float>({-1, -0.0f, kInf}),
              R1<float>({kNaN, -0.0f, kInf}));
  ExpectUnary("rsqrt", Rsqrt, R1<float>({0.0f, -0.0f, kInf, -1}),
              R1<float>({kInf, -kInf, 0, kNaN}));
}

TEST(SpecialValuesTest, IntegerOverflowWraps) {
  ExpectBinary("add", Add, R1<int32_t>({kMax, kMin}), R1<int32_t>({1, -1}),
               R1<int32_t>({kMin, kMax}));
  ExpectBinary("multiply", Mul, R1<int32_t>({kMin, 65536}),
               R1<int32_t>({-1, 65536}), R1<int32_t>({kMin, 0}));
  ExpectUnary("negate", Neg, R1<int32_t>({kMin, kMax}),
              R1<int32_t>({kMin, -kMax}));
  ExpectUnary("abs", Abs, R1<int32_t>({kMin, -5}), R1<int32_t>({kMin, 5}));
}

TEST(SpecialValuesTest, IntegerDivisionByZeroFollowsXla) {
  ExpectBinary("divide", Div, R1<int32_t>({7, -7, 0, kMin, -7}),
               R1<int32_t>({0, 0, 0, -1, 2}),
               R1<int32_t>({-1, -1, -1, kMin, -3}));
  ExpectBinary("remainder", Rem, R1<int32_t>({7, -7, kMin, -7}),
               R1<int32_t>({0, 0, -1, 2}), R1<int32_t>({7, -7, 0, -1}));
}

// XLA's evaluator (HandlePower): a negative exponent gives 1 for base 1 and
// 0 for any other base, -1 and 0 included; x^0 = 1, 0^0 too. Checked in
// every signed width, the sub-byte s4 included, and unsigned exponents
// with the top bit set are exponents, not negative ones.
TEST(SpecialValuesTest, IntegerPowerWithNegativeExponentFollowsXla) {
  ExpectBinary("power", Pow, R1<int32_t>({-1, -1, 1, 0, 2, -2, 0, -1, 5, kMin}),
               R1<int32_t>({-3, -4, -7, -1, -1, -2, 0, 0, kMin, -1}),
               R1<int32_t>({0, 0, 1, 0, 0, 0, 1, 1, 0, 0}));
  ExpectBinary("power", Pow, R1<int8_t>({-1, -1, 1, -128, 3, -1}),
               R1<int8_t>({-3, -128, -1, -1, 5, 7}),
               R1<int8_t>({0, 0, 1, 0, -13, -1}));
  ExpectBinary("power", Pow, R1<int16_t>({-1, 1, 7}), R1<int16_t>({-1, -32768, -2}),
               R1<int16_t>({0, 1, 0}));
  ExpectBinary("power", Pow, R1<int64_t>({-1, -1, 1, 3}),
               R1<int64_t>({-3, -4, std::numeric_limits<int64_t>::min(), 40}),
               R1<int64_t>({0, 0, 1, -6289078614652622815}));
  ExpectBinary("power", Pow, R1<Int4>({Int4(-1), Int4(1), Int4(-2), Int4(3)}),
               R1<Int4>({Int4(-3), Int4(-8), Int4(-1), Int4(2)}),
               R1<Int4>({Int4(0), Int4(1), Int4(0), Int4(-7)}));
  ExpectBinary("power", Pow, R1<uint8_t>({255, 2, 3, 1}),
               R1<uint8_t>({255, 200, 128, 255}),
               R1<uint8_t>({255, 0, 1, 1}));
}

TEST(SpecialValuesTest, FloatToIntConversionsSaturateAndNaNIsZero) {
  std::vector<Literal> inputs;
  inputs.push_back(R1<float>({kNaN, 1e10f, -1e10f, kInf, -2.9f, 2.9f}));
  ExpectBothBackends(
      "convert", inputs,
      [](std::vector<XlaOp>& p) { ConvertElementType(p[0], S32); },
      R1<int32_t>({0, kMax, kMin, kMax, -2, 2}));
}

TEST(SpecialValuesTest, ComparisonsWithNaNAreFalseExceptNe) {
  std::vector<Literal> inputs;
  inputs.push_back(R1<float>({kNaN, kNaN, 1, -0.0f}));
  inputs.push_back(R1<float>({kNaN, 1, kNaN, 0.0f}));
  ExpectBothBackends(
      "compare", inputs,
      [](std::vector<XlaOp>& p) {
        Tuple(p[0].builder(), {Eq(p[0], p[1]), Ne(p[0], p[1]),
                               Lt(p[0], p[1]), Ge(p[0], p[1])});
      },
      LiteralUtil::MakeTuple([] {
        std::vector<Literal> elements;
        elements.push_back(R1<bool>({false, false, false, true}));
        elements.push_back(R1<bool>({true, true, true, false}));
        elements.push_back(R1<bool>({false, false, false, false}));
        elements.push_back(R1<bool>({false, false, false, true}));
        return elements;
      }()));
}

}  // namespace
}  // namespace mxla
