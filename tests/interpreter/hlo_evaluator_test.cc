// The reference evaluator: every op and element type on hand-computed
// values, the semantics edge cases of scalar_semantics.h, every example of
// docs/broadcasting.md in builder form and (bitwise identical) in lowered form,
// reduce order, data-movement ops, tuples, fusion, zero-element shapes,
// argument errors and a very deep chain.
#include "interpreter/hlo_evaluator.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

// Parses, verifies in `mode` and evaluates the entry computation.
absl::StatusOr<Literal> Eval(const std::string& text,
                             const std::vector<Literal>& args,
                             VerifierMode mode = VerifierMode::kBuilder) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  RETURN_IF_ERROR(VerifyModule(*module, mode));
  std::vector<const Literal*> pointers;
  for (const Literal& arg : args) pointers.push_back(&arg);
  return EvaluateModule(*module, pointers);
}

// A module whose root is `op(p0, p1, ...)attributes`, one parameter per
// argument, with the first argument's dimensions and `result_type`.
std::string OneOp(absl::string_view op, const std::vector<Literal>& args,
                  PrimitiveType result_type,
                  absl::string_view attributes = "") {
  std::string text = "HloModule one_op\n\nENTRY main {\n";
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    names.push_back(absl::StrCat("p", i));
    absl::StrAppend(&text, "  p", i, " = ", args[i].shape().ToString(),
                    " parameter(", i, ")\n");
  }
  Shape result = ShapeUtil::ChangeElementType(args[0].shape(), result_type);
  absl::StrAppend(&text, "  ROOT r = ", result.ToString(), " ", op, "(",
                  absl::StrJoin(names, ", "), ")", attributes, "\n}\n");
  return text;
}

absl::StatusOr<Literal> EvalOp(absl::string_view op,
                               const std::vector<Literal>& args,
                               absl::string_view attributes = "") {
  PrimitiveType type = args[0].shape().element_type();
  if (op == "compare") type = PRED;
  if (op == "select") type = args[1].shape().element_type();
  return Eval(OneOp(op, args, type, attributes), args);
}

// Computation `name` of two `type` scalars a and b whose root is `root`
// (e.g. "add(b, a)"), or with `two_ops`, that root converted to its own
// type after it: the same values through a computation of two ops, which
// the interpreter evaluates per element rather than as a typed loop.
std::string ScalarComputation(absl::string_view name, absl::string_view type,
                              absl::string_view root, bool two_ops) {
  return absl::StrCat(
      name, " {\n  a = ", type, "[] parameter(0)\n  b = ", type,
      "[] parameter(1)\n", two_ops ? "  c = " : "  ROOT r = ", type, "[] ",
      root, "\n",
      two_ops ? absl::StrCat("  ROOT r = ", type, "[] convert(c)\n") : "",
      "}\n");
}

// Reproducible pseudo-random 24-bit values (a fixed-seed linear
// congruential generator), the same on every machine.
class FixedRandom {
 public:
  explicit FixedRandom(uint32_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ = state_ * 1664525u + 1013904223u;
    return state_ >> 8;
  }
  // In [0, 1).
  float Unit() { return static_cast<float>(Next()) / (1 << 24); }

 private:
  uint32_t state_;
};

// Bitwise equality (NaN payloads and the sign of zero included).
::testing::AssertionResult Equals(const absl::StatusOr<Literal>& actual,
                                  const Literal& expected) {
  if (!actual.ok()) {
    return ::testing::AssertionFailure() << actual.status().ToString();
  }
  if (*actual != expected) {
    return ::testing::AssertionFailure() << "\nexpected " << expected.ToString()
                                         << "\n  actual " << actual->ToString();
  }
  return ::testing::AssertionSuccess();
}

template <typename T>
Literal R1(std::initializer_list<T> values) {
  return LiteralUtil::CreateR1<T>(values);
}

// ---- Arithmetic on every number type ---------------------------------------

template <typename T>
class NumberTypesTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(NumberTypesTest, NumberTypes);

TYPED_TEST(NumberTypesTest, BinaryOps) {
  using T = TypeParam;
  const bool is_float = std::is_floating_point_v<T>;
  std::vector<Literal> ab;
  ab.push_back(R1<T>({6, -7, 3, 0}));
  ab.push_back(R1<T>({3, 2, -2, 5}));
  EXPECT_TRUE(Equals(EvalOp("add", ab), R1<T>({9, -5, 1, 5})));
  EXPECT_TRUE(Equals(EvalOp("subtract", ab), R1<T>({3, -9, 5, -5})));
  EXPECT_TRUE(Equals(EvalOp("multiply", ab), R1<T>({18, -14, -6, 0})));
  EXPECT_TRUE(Equals(EvalOp("divide", ab), is_float
                                               ? R1<T>({2, T(-3.5), T(-1.5), 0})
                                               : R1<T>({2, -3, -1, 0})));
  EXPECT_TRUE(Equals(EvalOp("remainder", ab), R1<T>({0, -1, 1, 0})));
  EXPECT_TRUE(Equals(EvalOp("maximum", ab), R1<T>({6, 2, 3, 5})));
  EXPECT_TRUE(Equals(EvalOp("minimum", ab), R1<T>({3, -7, -2, 0})));
  EXPECT_TRUE(Equals(EvalOp("power", ab),
                     R1<T>({216, 49, is_float ? T(1) / T(9) : T(0), 0})));
}

TYPED_TEST(NumberTypesTest, UnaryOpsAndSelect) {
  using T = TypeParam;
  std::vector<Literal> a;
  a.push_back(R1<T>({6, -7, 3, 1}));
  EXPECT_TRUE(Equals(EvalOp("negate", a), R1<T>({-6, 7, -3, -1})));
  EXPECT_TRUE(Equals(EvalOp("abs", a), R1<T>({6, 7, 3, 1})));
  EXPECT_TRUE(Equals(EvalOp("sign", a), R1<T>({1, -1, 1, 1})));
  std::vector<Literal> select_args;
  select_args.push_back(R1<bool>({true, false, true, false}));
  select_args.push_back(R1<T>({6, -7, 3, 0}));
  select_args.push_back(R1<T>({3, 2, -2, 5}));
  EXPECT_TRUE(Equals(EvalOp("select", select_args), R1<T>({6, 2, 3, 5})));
}

TYPED_TEST(NumberTypesTest, ReduceSum) {
  using T = TypeParam;
  std::string type(
      primitive_util::LowercaseName(primitive_util::kNativeToPrimitive<T>));
  std::string text = absl::StrCat(
      "HloModule sum\n\nadd {\n  a = ", type, "[] parameter(0)\n  b = ", type,
      "[] parameter(1)\n  ROOT s = ", type, "[] add(a, b)\n}\n\n",
      "ENTRY main {\n  x = ", type, "[2,3] parameter(0)\n  zero = ", type,
      "[] constant(0)\n  rows = ", type,
      "[2] reduce(x, zero), dimensions={1}, to_apply=add\n  cols = ", type,
      "[3] reduce(x, zero), dimensions={0}, to_apply=add\n  ROOT t = (", type,
      "[2], ", type, "[3]) tuple(rows, cols)\n}\n");
  std::vector<Literal> x;
  x.push_back(LiteralUtil::CreateR2<T>({{1, 2, 3}, {4, 5, 6}}));
  std::vector<Literal> sums;
  sums.push_back(R1<T>({6, 15}));
  sums.push_back(R1<T>({5, 7, 9}));
  EXPECT_TRUE(Equals(Eval(text, x), LiteralUtil::MakeTuple(std::move(sums))));
}

TYPED_TEST(NumberTypesTest, Compare) {
  using T = TypeParam;
  std::vector<Literal> ab;
  ab.push_back(R1<T>({1, 2, 3}));
  ab.push_back(R1<T>({2, 2, 2}));
  auto cmp = [&](absl::string_view direction) {
    return EvalOp("compare", ab, absl::StrCat(", direction=", direction));
  };
  EXPECT_TRUE(Equals(cmp("EQ"), R1<bool>({false, true, false})));
  EXPECT_TRUE(Equals(cmp("NE"), R1<bool>({true, false, true})));
  EXPECT_TRUE(Equals(cmp("LT"), R1<bool>({true, false, false})));
  EXPECT_TRUE(Equals(cmp("LE"), R1<bool>({true, true, false})));
  EXPECT_TRUE(Equals(cmp("GT"), R1<bool>({false, false, true})));
  EXPECT_TRUE(Equals(cmp("GE"), R1<bool>({false, true, true})));
}

template <typename T>
class IntegerTypesTest : public ::testing::Test {};
using IntegerTypes = ::testing::Types<int32_t, int64_t>;
TYPED_TEST_SUITE(IntegerTypesTest, IntegerTypes);

TYPED_TEST(IntegerTypesTest, BitwiseOps) {
  using T = TypeParam;
  std::vector<Literal> ab;
  ab.push_back(R1<T>({12, -1, 0, 5}));
  ab.push_back(R1<T>({10, 7, 3, -6}));
  EXPECT_TRUE(Equals(EvalOp("and", ab), R1<T>({8, 7, 0, 0})));
  EXPECT_TRUE(Equals(EvalOp("or", ab), R1<T>({14, -1, 3, -1})));
  EXPECT_TRUE(Equals(EvalOp("xor", ab), R1<T>({6, -8, 3, -1})));
  ab.pop_back();
  EXPECT_TRUE(Equals(EvalOp("not", ab), R1<T>({-13, 0, -1, -6})));
}

TYPED_TEST(IntegerTypesTest, WrapDivideRemainderEdges) {
  using T = TypeParam;
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  std::vector<Literal> ab;
  ab.push_back(R1<T>({7, -7, 0, kMin, kMin, 7, -7, kMax}));
  ab.push_back(R1<T>({0, 0, 0, -1, 1, -2, 2, 1}));
  EXPECT_TRUE(Equals(EvalOp("divide", ab),
                     R1<T>({-1, -1, -1, kMin, kMin, -3, -3, kMax})));
  EXPECT_TRUE(
      Equals(EvalOp("remainder", ab), R1<T>({7, -7, 0, 0, 0, 1, -1, 0})));
  EXPECT_TRUE(Equals(EvalOp("add", ab),
                     R1<T>({7, -7, 0, kMax, kMin + 1, 5, -5, kMin})));
  EXPECT_TRUE(Equals(EvalOp("subtract", ab),
                     R1<T>({7, -7, 0, kMin + 1, kMax, 9, -9, kMax - 1})));
  EXPECT_TRUE(Equals(EvalOp("multiply", ab),
                     R1<T>({0, 0, 0, kMin, kMin, -14, -14, kMax})));
  ab.pop_back();
  EXPECT_TRUE(Equals(EvalOp("negate", ab),
                     R1<T>({-7, 7, 0, kMin, kMin, -7, 7, kMin + 1})));
  EXPECT_TRUE(
      Equals(EvalOp("abs", ab), R1<T>({7, 7, 0, kMin, kMin, 7, 7, kMax})));
  EXPECT_TRUE(Equals(EvalOp("sign", ab), R1<T>({1, -1, 0, -1, -1, 1, -1, 1})));
}

TYPED_TEST(IntegerTypesTest, Power) {
  using T = TypeParam;
  std::vector<Literal> ab;
  ab.push_back(R1<T>({2, 2, 1, -1, -1, 0, 0, 5, -3, 2}));
  ab.push_back(R1<T>({10, -1, -5, -3, -4, 0, -2, 1, 3, 8 * sizeof(T) - 1}));
  EXPECT_TRUE(Equals(
      EvalOp("power", ab),
      R1<T>({1024, 0, 1, 0, 0, 1, 0, 5, -27, std::numeric_limits<T>::min()})));
  // 3^40 wraps modulo 2^bits.
  std::vector<Literal> wrap;
  wrap.push_back(R1<T>({3}));
  wrap.push_back(R1<T>({40}));
  T expected = sizeof(T) == 4 ? T(689956897) : T(-6289078614652622815);
  EXPECT_TRUE(Equals(EvalOp("power", wrap), R1<T>({expected})));
}

template <typename T>
class FloatTypesTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FloatTypesTest, FloatTypes);

TYPED_TEST(FloatTypesTest, UnaryOps) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  auto run = [](absl::string_view op, Literal x) {
    std::vector<Literal> args;
    args.push_back(std::move(x));
    return EvalOp(op, args);
  };
  EXPECT_TRUE(Equals(run("exponential", R1<T>({0, 1, -inf})),
                     R1<T>({1, std::exp(T(1)), 0})));
  EXPECT_TRUE(Equals(run("log", R1<T>({1, 0, 2})),
                     R1<T>({0, -inf, std::log(T(2))})));
  EXPECT_TRUE(std::isnan(run("log", R1<T>({-1}))->template data<T>()[0]));
  EXPECT_TRUE(Equals(run("sqrt", R1<T>({4, 0, T(-0.0), 2})),
                     R1<T>({2, 0, T(-0.0), std::sqrt(T(2))})));
  EXPECT_TRUE(Equals(run("rsqrt", R1<T>({4, 0, inf, 2})),
                     R1<T>({T(0.5), inf, 0, T(1) / std::sqrt(T(2))})));
  EXPECT_TRUE(Equals(run("tanh", R1<T>({0, inf, T(0.5)})),
                     R1<T>({0, 1, std::tanh(T(0.5))})));
  EXPECT_TRUE(Equals(run("logistic", R1<T>({0, -inf, T(2)})),
                     R1<T>({T(0.5), 0, T(1) / (T(1) + std::exp(T(-2)))})));
  EXPECT_TRUE(Equals(run("floor", R1<T>({T(-1.5), T(1.5), T(-0.0), inf})),
                     R1<T>({-2, 1, T(-0.0), inf})));
  EXPECT_TRUE(Equals(run("ceil", R1<T>({T(-1.5), T(1.5), T(-0.5), -inf})),
                     R1<T>({-1, 2, T(-0.0), -inf})));
  // sign keeps NaN and the sign of zero.
  EXPECT_TRUE(Equals(run("sign", R1<T>({T(-2.5), T(-0.0), 0, nan, inf})),
                     R1<T>({-1, T(-0.0), 0, nan, 1})));
  EXPECT_TRUE(Equals(run("negate", R1<T>({0, T(-0.0)})), R1<T>({T(-0.0), 0})));
  EXPECT_TRUE(Equals(run("abs", R1<T>({T(-0.0), -inf})), R1<T>({0, inf})));
}

TYPED_TEST(FloatTypesTest, NaNAndSignedZeroInBinaryOps) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<Literal> ab;
  ab.push_back(R1<T>({nan, 1, T(-0.0), 0, 1, nan}));
  ab.push_back(R1<T>({1, nan, 0, T(-0.0), 2, nan}));
  EXPECT_TRUE(Equals(EvalOp("maximum", ab), R1<T>({nan, nan, 0, 0, 2, nan})));
  EXPECT_TRUE(Equals(EvalOp("minimum", ab),
                     R1<T>({nan, nan, T(-0.0), T(-0.0), 1, nan})));
  auto cmp = [&](absl::string_view direction) {
    return EvalOp("compare", ab, absl::StrCat(", direction=", direction));
  };
  // NaN compares false except NE; -0 == +0.
  EXPECT_TRUE(Equals(cmp("EQ"), R1<bool>({0, 0, 1, 1, 0, 0})));
  EXPECT_TRUE(Equals(cmp("NE"), R1<bool>({1, 1, 0, 0, 1, 1})));
  EXPECT_TRUE(Equals(cmp("LT"), R1<bool>({0, 0, 0, 0, 1, 0})));
  EXPECT_TRUE(Equals(cmp("LE"), R1<bool>({0, 0, 1, 1, 1, 0})));
  EXPECT_TRUE(Equals(cmp("GT"), R1<bool>({0, 0, 0, 0, 0, 0})));
  EXPECT_TRUE(Equals(cmp("GE"), R1<bool>({0, 0, 1, 1, 0, 0})));
  std::vector<Literal> rem;
  rem.push_back(R1<T>({T(5.5), T(-5.5), 1, 1}));
  rem.push_back(R1<T>({2, 2, 0, std::numeric_limits<T>::infinity()}));
  Literal r = *EvalOp("remainder", rem);
  EXPECT_EQ(r.data<T>()[0], T(1.5));
  EXPECT_EQ(r.data<T>()[1], T(-1.5));
  EXPECT_TRUE(std::isnan(r.data<T>()[2]));
  EXPECT_EQ(r.data<T>()[3], T(1));
}

// ---- pred -----------------------------------------------------------------

TEST(HloEvaluatorTest, PredOps) {
  std::vector<Literal> ab;
  ab.push_back(R1<bool>({false, false, true, true}));
  ab.push_back(R1<bool>({false, true, false, true}));
  Literal any = R1<bool>({false, true, true, true});
  Literal all = R1<bool>({false, false, false, true});
  EXPECT_TRUE(Equals(EvalOp("add", ab), any));
  EXPECT_TRUE(Equals(EvalOp("or", ab), any));
  EXPECT_TRUE(Equals(EvalOp("maximum", ab), any));
  EXPECT_TRUE(Equals(EvalOp("multiply", ab), all));
  EXPECT_TRUE(Equals(EvalOp("and", ab), all));
  EXPECT_TRUE(Equals(EvalOp("minimum", ab), all));
  EXPECT_TRUE(Equals(EvalOp("xor", ab), R1<bool>({false, true, true, false})));
  EXPECT_TRUE(Equals(EvalOp("compare", ab, ", direction=LT"),
                     R1<bool>({false, true, false, false})));
  EXPECT_TRUE(Equals(EvalOp("compare", ab, ", direction=GE"),
                     R1<bool>({true, false, true, true})));
  std::vector<Literal> select_args;
  select_args.push_back(R1<bool>({true, false}));
  select_args.push_back(R1<bool>({true, true}));
  select_args.push_back(R1<bool>({false, false}));
  EXPECT_TRUE(Equals(EvalOp("select", select_args), R1<bool>({true, false})));
  ab.pop_back();
  EXPECT_TRUE(Equals(EvalOp("not", ab), R1<bool>({true, true, false, false})));
}

// ---- convert --------------------------------------------------------------

TEST(HloEvaluatorTest, ConvertBetweenEveryPairOfTypes) {
  const PrimitiveType kTypes[] = {PRED, S32, S64, F32, F64};
  for (PrimitiveType from : kTypes) {
    for (PrimitiveType to : kTypes) {
      // {0, 1, 3} (pred: {0, 1, 1}) converts to {0, 1, 3} or {0, 1, 1}.
      auto make = [](PrimitiveType type, bool small) {
        return primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          return LiteralUtil::CreateR1<T>(
              {T(0), T(1), T(std::is_same_v<T, bool> || small ? 1 : 3)});
        });
      };
      std::vector<Literal> args;
      args.push_back(make(from, false));
      Literal expected = make(to, from == PRED);
      EXPECT_TRUE(Equals(Eval(OneOp("convert", args, to), args), expected))
          << primitive_util::LowercaseName(from) << " -> "
          << primitive_util::LowercaseName(to);
    }
  }
}

absl::StatusOr<Literal> Convert(Literal x, PrimitiveType to) {
  std::vector<Literal> args;
  args.push_back(std::move(x));
  return Eval(OneOp("convert", args, to), args);
}

TEST(HloEvaluatorTest, ConvertEdgeCases) {
  // Float -> int: NaN is 0, out of range saturates, the rest truncates.
  EXPECT_TRUE(
      Equals(Convert(R1<float>({kNaN, 1e10f, -1e10f, 2.9f, -2.9f, kInf, -kInf,
                                2147483520.0f, 2147483648.0f, -2147483648.0f}),
                     S32),
             R1<int32_t>({0, kMax32, kMin32, 2, -2, kMax32, kMin32, 2147483520,
                          kMax32, kMin32})));
  EXPECT_TRUE(
      Equals(Convert(R1<double>({9.3e18, -9.3e18, -9223372036854775808.0, 1e18,
                                 -0.99, std::nan("")}),
                     S64),
             R1<int64_t>({kMax64, kMin64, kMin64, 1000000000000000000, 0, 0})));
  EXPECT_TRUE(Equals(Convert(R1<double>({3e9, -3e9, 42.6}), S32),
                     R1<int32_t>({kMax32, kMin32, 42})));
  // To pred: x != 0, so NaN is true and -0 false.
  EXPECT_TRUE(Equals(Convert(R1<float>({0, -0.0f, kNaN, 0.5f}), PRED),
                     R1<bool>({false, false, true, true})));
  EXPECT_TRUE(
      Equals(Convert(R1<int32_t>({0, -5}), PRED), R1<bool>({false, true})));
  // Int -> float rounds to nearest even; s64 -> s32 keeps the low bits.
  EXPECT_TRUE(Equals(Convert(R1<int32_t>({16777217, 16777219}), F32),
                     R1<float>({16777216.0f, 16777220.0f})));
  EXPECT_TRUE(Equals(Convert(R1<int64_t>({4294967297, -1}), S32),
                     R1<int32_t>({1, -1})));
  EXPECT_TRUE(
      Equals(Convert(R1<double>({0.1, 1e300}), F32), R1<float>({0.1f, kInf})));
}

// ---- Broadcasting: builder form against lowered form ----------------------

struct BroadcastCase {
  std::string name;
  std::string builder;  // Entry body in builder form.
  std::string lowered;  // The same computation with explicit broadcasts.
};

// Evaluates both forms, checks the builder form's value and that the lowered
// form is bitwise identical.
void CheckBothForms(const BroadcastCase& c, const std::vector<Literal>& args,
                    const Literal& expected) {
  SCOPED_TRACE(c.name);
  std::string head = absl::StrCat("HloModule ", c.name, "\n\nENTRY main {\n");
  absl::StatusOr<Literal> builder =
      Eval(absl::StrCat(head, c.builder, "}\n"), args, VerifierMode::kBuilder);
  EXPECT_TRUE(Equals(builder, expected));
  EXPECT_TRUE(Equals(
      Eval(absl::StrCat(head, c.lowered, "}\n"), args, VerifierMode::kLowered),
      expected));
}

std::vector<Literal> Args(Literal a) {
  std::vector<Literal> args;
  args.push_back(std::move(a));
  return args;
}
std::vector<Literal> Args(Literal a, Literal b) {
  std::vector<Literal> args = Args(std::move(a));
  args.push_back(std::move(b));
  return args;
}

Literal Matrix23() {
  return LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
}
Literal Matrix33() {
  return LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
}

TEST(HloEvaluatorBroadcastTest, MatrixPlusScalar) {
  CheckBothForms({"matrix_plus_scalar",
                  "  x = f32[2,3] parameter(0)\n  c = f32[] constant(7)\n"
                  "  ROOT r = f32[2,3] add(x, c)\n",
                  "  x = f32[2,3] parameter(0)\n  c = f32[] constant(7)\n"
                  "  c.b = f32[2,3] broadcast(c), dimensions={}\n"
                  "  ROOT r = f32[2,3] add(x, c.b)\n"},
                 Args(Matrix23()),
                 LiteralUtil::CreateR2<float>({{8, 9, 10}, {11, 12, 13}}));
}

TEST(HloEvaluatorBroadcastTest, MatrixPlusVector) {
  CheckBothForms({"x_plus_v",
                  "  x = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)\n"
                  "  ROOT r = f32[2,3] add(x, v), broadcast_dimensions={1}\n",
                  "  x = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)\n"
                  "  v.b = f32[2,3] broadcast(v), dimensions={1}\n"
                  "  ROOT r = f32[2,3] add(x, v.b)\n"},
                 Args(Matrix23(), R1<float>({7, 8, 9})),
                 LiteralUtil::CreateR2<float>({{8, 10, 12}, {11, 13, 15}}));
}

TEST(HloEvaluatorBroadcastTest, SquareMatrixPlusVectorOnEitherDimension) {
  for (int dim : {0, 1}) {
    std::string d = absl::StrCat(dim);
    CheckBothForms(
        {absl::StrCat("square_plus_v", d),
         absl::StrCat("  x = f32[3,3] parameter(0)\n  v = f32[3] parameter(1)\n"
                      "  ROOT r = f32[3,3] add(x, v), broadcast_dimensions={",
                      d, "}\n"),
         absl::StrCat("  x = f32[3,3] parameter(0)\n  v = f32[3] parameter(1)\n"
                      "  v.b = f32[3,3] broadcast(v), dimensions={",
                      d,
                      "}\n"
                      "  ROOT r = f32[3,3] add(x, v.b)\n")},
        Args(Matrix33(), R1<float>({7, 8, 9})),
        dim == 1 ? LiteralUtil::CreateR2<float>(
                       {{8, 10, 12}, {11, 13, 15}, {14, 16, 18}})
                 : LiteralUtil::CreateR2<float>(
                       {{8, 9, 10}, {12, 13, 14}, {16, 17, 18}}));
  }
}

TEST(HloEvaluatorBroadcastTest, VectorPlusOneByTwoMatrix) {
  CheckBothForms(
      {"composition",
       "  v = f32[4] parameter(0)\n  m = f32[1,2] parameter(1)\n"
       "  ROOT r = f32[4,2] add(v, m), broadcast_dimensions={0}\n",
       "  v = f32[4] parameter(0)\n  m = f32[1,2] parameter(1)\n"
       "  v.b = f32[4,2] broadcast(v), dimensions={0}\n"
       "  m.r = f32[2] reshape(m)\n"
       "  m.b = f32[4,2] broadcast(m.r), dimensions={1}\n"
       "  ROOT r = f32[4,2] add(v.b, m.b)\n"},
      Args(R1<float>({1, 2, 3, 4}), LiteralUtil::CreateR2<float>({{5, 6}})),
      LiteralUtil::CreateR2<float>({{6, 7}, {7, 8}, {8, 9}, {9, 10}}));
}

TEST(HloEvaluatorBroadcastTest, OneByTwoPlusFourByThreeByOne) {
  Literal big = LiteralUtil::CreateR3<float>({{{0}, {1}, {2}},
                                              {{10}, {11}, {12}},
                                              {{20}, {21}, {22}},
                                              {{30}, {31}, {32}}});
  CheckBothForms(
      {"composition3",
       "  m = f32[1,2] parameter(0)\n  c = f32[4,3,1] parameter(1)\n"
       "  ROOT r = f32[4,3,2] add(m, c), broadcast_dimensions={1,2}\n",
       "  m = f32[1,2] parameter(0)\n  c = f32[4,3,1] parameter(1)\n"
       "  m.b = f32[4,1,2] broadcast(m), dimensions={1,2}\n"
       "  m.r = f32[4,2] reshape(m.b)\n"
       "  m.b2 = f32[4,3,2] broadcast(m.r), dimensions={0,2}\n"
       "  c.r = f32[4,3] reshape(c)\n"
       "  c.b = f32[4,3,2] broadcast(c.r), dimensions={0,1}\n"
       "  ROOT r = f32[4,3,2] add(m.b2, c.b)\n"},
      Args(LiteralUtil::CreateR2<float>({{100, 200}}), std::move(big)),
      LiteralUtil::CreateR3<float>({{{100, 200}, {101, 201}, {102, 202}},
                                    {{110, 210}, {111, 211}, {112, 212}},
                                    {{120, 220}, {121, 221}, {122, 222}},
                                    {{130, 230}, {131, 231}, {132, 232}}}));
}

TEST(HloEvaluatorBroadcastTest, OuterProductAndDegenerateColumn) {
  CheckBothForms({"outer",
                  "  a = f32[2,1] parameter(0)\n  b = f32[1,3] parameter(1)\n"
                  "  ROOT r = f32[2,3] add(a, b)\n",
                  "  a = f32[2,1] parameter(0)\n  b = f32[1,3] parameter(1)\n"
                  "  a.r = f32[2] reshape(a)\n"
                  "  a.b = f32[2,3] broadcast(a.r), dimensions={0}\n"
                  "  b.r = f32[3] reshape(b)\n"
                  "  b.b = f32[2,3] broadcast(b.r), dimensions={1}\n"
                  "  ROOT r = f32[2,3] add(a.b, b.b)\n"},
                 Args(LiteralUtil::CreateR2<float>({{1}, {2}}),
                      LiteralUtil::CreateR2<float>({{10, 20, 30}})),
                 LiteralUtil::CreateR2<float>({{11, 21, 31}, {12, 22, 32}}));
  CheckBothForms({"column",
                  "  a = f32[2,1] parameter(0)\n  b = f32[2,3] parameter(1)\n"
                  "  ROOT r = f32[2,3] subtract(a, b)\n",
                  "  a = f32[2,1] parameter(0)\n  b = f32[2,3] parameter(1)\n"
                  "  a.r = f32[2] reshape(a)\n"
                  "  a.b = f32[2,3] broadcast(a.r), dimensions={0}\n"
                  "  ROOT r = f32[2,3] subtract(a.b, b)\n"},
                 Args(LiteralUtil::CreateR2<float>({{10}, {20}}), Matrix23()),
                 LiteralUtil::CreateR2<float>({{9, 8, 7}, {16, 15, 14}}));
}

// A [d0,d1,d2] array with value 100*i + 10*j + k + offset.
Literal Cube(int64_t d0, int64_t d1, int64_t d2, float offset) {
  std::vector<float> values;
  for (int64_t i = 0; i < d0; ++i)
    for (int64_t j = 0; j < d1; ++j)
      for (int64_t k = 0; k < d2; ++k)
        values.push_back(100 * i + 10 * j + k + offset);
  return LiteralUtil::CreateFromFlat<float>({d0, d1, d2}, values);
}

TEST(HloEvaluatorBroadcastTest, DegenerateRank3) {
  // (7,2,5) * (7,1,5): r[i][j][k] = a[i][j][k] * b[i][0][k].
  Literal a = Cube(7, 2, 5, 0), b = Cube(7, 1, 5, 0.5);
  std::vector<float> product;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 5; ++k)
        product.push_back((100.0f * i + 10 * j + k) * (100.0f * i + k + 0.5f));
  CheckBothForms(
      {"degenerate_middle",
       "  a = f32[7,2,5] parameter(0)\n  b = f32[7,1,5] parameter(1)\n"
       "  ROOT r = f32[7,2,5] multiply(a, b)\n",
       "  a = f32[7,2,5] parameter(0)\n  b = f32[7,1,5] parameter(1)\n"
       "  b.r = f32[7,5] reshape(b)\n"
       "  b.b = f32[7,2,5] broadcast(b.r), dimensions={0,2}\n"
       "  ROOT r = f32[7,2,5] multiply(a, b.b)\n"},
      Args(std::move(a), std::move(b)),
      LiteralUtil::CreateFromFlat<float>({7, 2, 5}, product));
  // (1,2,5) - (7,2,5): r[i][j][k] = c[0][j][k] - d[i][j][k] = -100 i + 0.5.
  std::vector<float> difference;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 10; ++j) difference.push_back(0.5f - 100.0f * i);
  CheckBothForms(
      {"degenerate_leading",
       "  c = f32[1,2,5] parameter(0)\n  d = f32[7,2,5] parameter(1)\n"
       "  ROOT r = f32[7,2,5] subtract(c, d)\n",
       "  c = f32[1,2,5] parameter(0)\n  d = f32[7,2,5] parameter(1)\n"
       "  c.r = f32[2,5] reshape(c)\n"
       "  c.b = f32[7,2,5] broadcast(c.r), dimensions={1,2}\n"
       "  ROOT r = f32[7,2,5] subtract(c.b, d)\n"},
      Args(Cube(1, 2, 5, 0.5), Cube(7, 2, 5, 0)),
      LiteralUtil::CreateFromFlat<float>({7, 2, 5}, difference));
}

TEST(HloEvaluatorBroadcastTest, SizeOneVectorOntoMatrix) {
  // f32[1] + f32[2,2] with {1}: XLA emits broadcast, reshape, broadcast.
  CheckBothForms(
      {"one_onto_matrix",
       "  a = f32[1] parameter(0)\n  b = f32[2,2] parameter(1)\n"
       "  ROOT r = f32[2,2] add(a, b), broadcast_dimensions={1}\n",
       "  a = f32[1] parameter(0)\n  b = f32[2,2] parameter(1)\n"
       "  a.b = f32[2,1] broadcast(a), dimensions={1}\n"
       "  a.r = f32[2] reshape(a.b)\n"
       "  a.b2 = f32[2,2] broadcast(a.r), dimensions={0}\n"
       "  ROOT r = f32[2,2] add(a.b2, b)\n"},
      Args(R1<float>({5}), LiteralUtil::CreateR2<float>({{1, 2}, {3, 4}})),
      LiteralUtil::CreateR2<float>({{6, 7}, {8, 9}}));
}

TEST(HloEvaluatorBroadcastTest, BiasReluCompareAndSelect) {
  CheckBothForms({"bias_relu",
                  "  x = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)\n"
                  "  sum = f32[2,3] add(x, v), broadcast_dimensions={1}\n"
                  "  zero = f32[] constant(0)\n"
                  "  ROOT relu = f32[2,3] maximum(sum, zero)\n",
                  "  x = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)\n"
                  "  v.b = f32[2,3] broadcast(v), dimensions={1}\n"
                  "  sum = f32[2,3] add(x, v.b)\n  zero = f32[] constant(0)\n"
                  "  zero.b = f32[2,3] broadcast(zero), dimensions={}\n"
                  "  ROOT relu = f32[2,3] maximum(sum, zero.b)\n"},
                 Args(Matrix23(), R1<float>({-2, -5, 0})),
                 LiteralUtil::CreateR2<float>({{0, 0, 3}, {2, 0, 6}}));
  // compare broadcasts like the other binary ops; select takes scalars.
  CheckBothForms({"compare_select",
                  "  x = f32[2,3] parameter(0)\n  v = f32[2] parameter(1)\n"
                  "  big = pred[2,3] compare(x, v), direction=GT, "
                  "broadcast_dimensions={0}\n"
                  "  minus = f32[] constant(-1)\n"
                  "  ROOT r = f32[2,3] select(big, x, minus)\n",
                  "  x = f32[2,3] parameter(0)\n  v = f32[2] parameter(1)\n"
                  "  v.b = f32[2,3] broadcast(v), dimensions={0}\n"
                  "  big = pred[2,3] compare(x, v.b), direction=GT\n"
                  "  minus = f32[] constant(-1)\n"
                  "  minus.b = f32[2,3] broadcast(minus), dimensions={}\n"
                  "  ROOT r = f32[2,3] select(big, x, minus.b)\n"},
                 Args(Matrix23(), R1<float>({2, 4})),
                 LiteralUtil::CreateR2<float>({{-1, -1, 3}, {-1, 5, 6}}));
  CheckBothForms({"scalar_pred",
                  "  p = pred[] parameter(0)\n  x = f32[2,3] parameter(1)\n"
                  "  ROOT r = f32[2,3] select(p, x, x)\n",
                  "  p = pred[] parameter(0)\n  x = f32[2,3] parameter(1)\n"
                  "  p.b = pred[2,3] broadcast(p), dimensions={}\n"
                  "  ROOT r = f32[2,3] select(p.b, x, x)\n"},
                 Args(LiteralUtil::CreateR0<bool>(true), Matrix23()),
                 Matrix23());
}

// ---- Reduce ---------------------------------------------------------------

TEST(HloEvaluatorReduceTest, RowMaxMask) {
  // xla-semantics.md §c.2 example 3: reduce, compare, select, convert.
  constexpr char kText[] = R"(
HloModule reduce_compare_select_convert

max_f32 {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT m = f32[] maximum(lhs, rhs)
}

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  neg_inf = f32[] constant(-inf)
  rowmax = f32[2]{0} reduce(x, neg_inf), dimensions={1}, to_apply=max_f32
  rowmax.b = f32[2,3]{1,0} broadcast(rowmax), dimensions={0}
  is_max = pred[2,3]{1,0} compare(x, rowmax.b), direction=EQ
  one = f32[] constant(1)
  zero = f32[] constant(0)
  one.b = f32[2,3]{1,0} broadcast(one), dimensions={}
  zero.b = f32[2,3]{1,0} broadcast(zero), dimensions={}
  mask = f32[2,3]{1,0} select(is_max, one.b, zero.b)
  ROOT mask.s32 = s32[2,3]{1,0} convert(mask)
}
)";
  EXPECT_TRUE(Equals(
      Eval(kText, Args(LiteralUtil::CreateR2<float>({{1, 5, 3}, {7, 2, 7}})),
           VerifierMode::kLowered),
      LiteralUtil::CreateR2<int32_t>({{0, 1, 0}, {1, 0, 1}})));
}

TEST(HloEvaluatorReduceTest, VariadicArgmax) {
  constexpr char kText[] = R"(
HloModule argmax

argmax {
  acc_v = f32[] parameter(0)
  acc_i = s32[] parameter(1)
  v = f32[] parameter(2)
  i = s32[] parameter(3)
  gt = pred[] compare(v, acc_v), direction=GT
  best_v = f32[] select(gt, v, acc_v)
  best_i = s32[] select(gt, i, acc_i)
  ROOT t = (f32[], s32[]) tuple(best_v, best_i)
}

ENTRY main {
  x = f32[2,4] parameter(0)
  idx = s32[2,4] iota(), iota_dimension=1
  init_v = f32[] constant(-inf)
  init_i = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(x, idx, init_v, init_i), dimensions={1}, to_apply=argmax
}
)";
  std::vector<Literal> expected;
  expected.push_back(R1<float>({9, 5}));
  expected.push_back(R1<int32_t>({1, 2}));  // The first maximum wins.
  EXPECT_TRUE(Equals(Eval(kText, Args(LiteralUtil::CreateR2<float>(
                                     {{3, 9, 9, 1}, {-1, -2, 5, 5}}))),
                     LiteralUtil::MakeTuple(std::move(expected))));
}

TEST(HloEvaluatorReduceTest, VisitsElementsInRowMajorOrder) {
  // acc * 10 + x records the visiting order; dimensions={2,0} is unsorted.
  // sub/rsub run as typed loops, gsub (an extra multiply) through the
  // general path; all fold left from init: ((10 - 1) - 2) - 3 = 4.
  constexpr char kText[] = R"(
HloModule order

digits {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ten = s32[] constant(10)
  a10 = s32[] multiply(a, ten)
  ROOT r = s32[] add(a10, b)
}

sub {
  sa = s32[] parameter(0)
  sb = s32[] parameter(1)
  ROOT sr = s32[] subtract(sa, sb)
}

rsub {
  ra = s32[] parameter(0)
  rb = s32[] parameter(1)
  ROOT rr = s32[] subtract(rb, ra)
}

gsub {
  ga = s32[] parameter(0)
  gb = s32[] parameter(1)
  one = s32[] constant(1)
  gb1 = s32[] multiply(gb, one)
  ROOT gr = s32[] subtract(ga, gb1)
}

ENTRY main {
  x = s32[2,2,2] parameter(0)
  v = s32[3] parameter(1)
  nine = s32[] constant(9)
  ten.1 = s32[] constant(10)
  d = s32[2] reduce(x, nine), dimensions={2,0}, to_apply=digits
  s = s32[] reduce(v, ten.1), dimensions={0}, to_apply=sub
  rs = s32[] reduce(v, ten.1), dimensions={0}, to_apply=rsub
  gs = s32[] reduce(v, ten.1), dimensions={0}, to_apply=gsub
  ROOT t = (s32[2], s32[], s32[], s32[]) tuple(d, s, rs, gs)
}
)";
  std::vector<Literal> expected;
  expected.push_back(R1<int32_t>({90145, 92367}));
  expected.push_back(LiteralUtil::CreateR0<int32_t>(4));
  expected.push_back(LiteralUtil::CreateR0<int32_t>(-8));  // x - acc.
  expected.push_back(LiteralUtil::CreateR0<int32_t>(4));
  EXPECT_TRUE(Equals(Eval(kText, Args(LiteralUtil::CreateR3<int32_t>(
                                          {{{0, 1}, {2, 3}}, {{4, 5}, {6, 7}}}),
                                      R1<int32_t>({1, 2, 3}))),
                     LiteralUtil::MakeTuple(std::move(expected))));
}

constexpr char kSumPrefix[] = R"(
HloModule sums

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(HloEvaluatorReduceTest, FloatSumIsSequential) {
  // Sequential: ((1e8 + 1) - 1e8) + 1 = 1 in f32 (pairwise would give 0).
  std::string text = absl::StrCat(kSumPrefix, R"(
ENTRY main {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
}
)");
  EXPECT_TRUE(Equals(Eval(text, Args(R1<float>({1e8f, 1, -1e8f, 1}))),
                     LiteralUtil::CreateR0<float>(1)));
}

TEST(HloEvaluatorReduceTest, ZeroElementsAndNoDimensions) {
  std::string text = absl::StrCat(kSumPrefix, R"(
ENTRY main {
  x = f32[0,3] parameter(0)
  y = f32[3,0] parameter(1)
  z = f32[2] parameter(2)
  five = f32[] constant(5)
  ra = f32[3] reduce(x, five), dimensions={0}, to_apply=add
  rb = f32[0] reduce(y, five), dimensions={0}, to_apply=add
  rc = f32[] reduce(x, five), dimensions={0,1}, to_apply=add
  rd = f32[2] reduce(z, five), dimensions={}, to_apply=add
  ROOT t = (f32[3], f32[0], f32[], f32[2]) tuple(ra, rb, rc, rd)
}
)");
  std::vector<Literal> args;
  args.emplace_back(ShapeUtil::MakeShape(F32, {0, 3}));
  args.emplace_back(ShapeUtil::MakeShape(F32, {3, 0}));
  args.push_back(R1<float>({1, 2}));
  std::vector<Literal> expected;
  expected.push_back(R1<float>({5, 5, 5}));
  expected.emplace_back(ShapeUtil::MakeShape(F32, {0}));
  expected.push_back(LiteralUtil::CreateR0<float>(5));
  expected.push_back(R1<float>({6, 7}));
  EXPECT_TRUE(
      Equals(Eval(text, args), LiteralUtil::MakeTuple(std::move(expected))));
}

// ---- Data movement, tuples, fusion ----------------------------------------

TEST(HloEvaluatorTest, Iota) {
  constexpr char kText[] = R"(
HloModule iota

ENTRY main {
  rows = s32[2,3] iota(), iota_dimension=0
  cols = s64[2,3] iota(), iota_dimension=1
  f = f64[3] iota(), iota_dimension=0
  p = pred[3] iota(), iota_dimension=0
  ROOT t = (s32[2,3], s64[2,3], f64[3], pred[3]) tuple(rows, cols, f, p)
}
)";
  std::vector<Literal> expected;
  expected.push_back(LiteralUtil::CreateR2<int32_t>({{0, 0, 0}, {1, 1, 1}}));
  expected.push_back(LiteralUtil::CreateR2<int64_t>({{0, 1, 2}, {0, 1, 2}}));
  expected.push_back(R1<double>({0, 1, 2}));
  expected.push_back(R1<bool>({false, true, true}));
  EXPECT_TRUE(
      Equals(Eval(kText, {}), LiteralUtil::MakeTuple(std::move(expected))));
}

TEST(HloEvaluatorTest, TransposeRank3) {
  // Output dimension i is operand dimension dimensions[i]:
  // out[a][b][c] = in[c][a][b] = 6c + 2a + b.
  constexpr char kText[] = R"(
HloModule transpose

ENTRY main {
  x = f32[2,3,2] parameter(0)
  ROOT t = f32[3,2,2] transpose(x), dimensions={1,2,0}
}
)";
  Literal x = LiteralUtil::CreateR3<float>(
      {{{0, 1}, {2, 3}, {4, 5}}, {{6, 7}, {8, 9}, {10, 11}}});
  EXPECT_TRUE(
      Equals(Eval(kText, Args(std::move(x))),
             LiteralUtil::CreateR3<float>(
                 {{{0, 6}, {1, 7}}, {{2, 8}, {3, 9}}, {{4, 10}, {5, 11}}})));
}

TEST(HloEvaluatorTest, BroadcastWithUnsortedDimensions) {
  constexpr char kText[] = R"(
HloModule unsorted

ENTRY main {
  m = s32[2,2] parameter(0)
  x = s32[2,3] parameter(1)
  swapped = s32[2,2] broadcast(m), dimensions={1,0}
  raised = s32[3,4,2] broadcast(x), dimensions={2,0}
  ROOT t = (s32[2,2], s32[3,4,2]) tuple(swapped, raised)
}
)";
  std::vector<Literal> expected;
  expected.push_back(LiteralUtil::CreateR2<int32_t>({{1, 3}, {2, 4}}));
  // raised[a][b][c] = x[c][a].
  expected.push_back(
      LiteralUtil::CreateR3<int32_t>({{{1, 4}, {1, 4}, {1, 4}, {1, 4}},
                                      {{2, 5}, {2, 5}, {2, 5}, {2, 5}},
                                      {{3, 6}, {3, 6}, {3, 6}, {3, 6}}}));
  EXPECT_TRUE(
      Equals(Eval(kText,
                  Args(LiteralUtil::CreateR2<int32_t>({{1, 2}, {3, 4}}),
                       LiteralUtil::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}})),
                  VerifierMode::kLowered),
             LiteralUtil::MakeTuple(std::move(expected))));
}

TEST(HloEvaluatorTest, ReshapeIsRowMajor) {
  constexpr char kText[] = R"(
HloModule reshape

ENTRY main {
  x = s64[2,3] parameter(0)
  a = s64[3,2] reshape(x)
  b = s64[1,6,1] reshape(a)
  ROOT t = (s64[3,2], s64[1,6,1]) tuple(a, b)
}
)";
  std::vector<Literal> expected;
  expected.push_back(LiteralUtil::CreateR2<int64_t>({{1, 2}, {3, 4}, {5, 6}}));
  expected.push_back(
      LiteralUtil::CreateR3<int64_t>({{{1}, {2}, {3}, {4}, {5}, {6}}}));
  EXPECT_TRUE(Equals(
      Eval(kText, Args(LiteralUtil::CreateR2<int64_t>({{1, 2, 3}, {4, 5, 6}}))),
      LiteralUtil::MakeTuple(std::move(expected))));
}

TEST(HloEvaluatorTest, TuplesAndGetTupleElement) {
  constexpr char kText[] = R"(
HloModule tuples

ENTRY main {
  in = (f32[2], pred[]) parameter(0)
  x = f32[2] get-tuple-element(in), index=0
  seven = s32[] constant(7)
  t = (f32[2], s32[]) tuple(x, seven)
  g = s32[] get-tuple-element(t), index=1
  g0 = f32[2] get-tuple-element(t), index=0
  n = f32[2] negate(g0)
  ROOT r = (s32[], f32[2], (f32[2], s32[])) tuple(g, n, t)
}
)";
  std::vector<Literal> in;
  in.push_back(R1<float>({1, 2}));
  in.push_back(LiteralUtil::CreateR0<bool>(true));
  std::vector<Literal> inner;
  inner.push_back(R1<float>({1, 2}));
  inner.push_back(LiteralUtil::CreateR0<int32_t>(7));
  std::vector<Literal> expected;
  expected.push_back(LiteralUtil::CreateR0<int32_t>(7));
  expected.push_back(R1<float>({-1, -2}));
  expected.push_back(LiteralUtil::MakeTuple(std::move(inner)));
  EXPECT_TRUE(Equals(Eval(kText, Args(LiteralUtil::MakeTuple(std::move(in)))),
                     LiteralUtil::MakeTuple(std::move(expected))));
}

TEST(HloEvaluatorTest, FusionEvaluatesItsComputation) {
  // xla-semantics.md §c.2 example 4.
  constexpr char kText[] = R"(
HloModule loop_fusion_iota_constant

fused_bias_scale {
  p0 = f32[2,3]{1,0} parameter(0)
  p1 = f32[3]{0} parameter(1)
  b = f32[2,3]{1,0} broadcast(p1), dimensions={1}
  s = f32[2,3]{1,0} add(p0, b)
  io = s32[2,3]{1,0} iota(), iota_dimension=0
  iof = f32[2,3]{1,0} convert(io)
  ROOT r = f32[2,3]{1,0} multiply(s, iof)
}

ENTRY main {
  c = f32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  bias = f32[3]{0} parameter(0)
  f = f32[2,3]{1,0} fusion(c, bias), kind=kLoop, calls=fused_bias_scale
  n = f32[2,3]{1,0} negate(f)
  ROOT t = (f32[2,3]{1,0}, f32[2,3]{1,0}) tuple(f, n)
}
)";
  std::vector<Literal> expected;
  expected.push_back(LiteralUtil::CreateR2<float>({{0, 0, 0}, {14, 25, 36}}));
  // negate(+0) is -0: bitwise equality sees the sign.
  expected.push_back(
      LiteralUtil::CreateR2<float>({{-0.0f, -0.0f, -0.0f}, {-14, -25, -36}}));
  EXPECT_TRUE(
      Equals(Eval(kText, Args(R1<float>({10, 20, 30})), VerifierMode::kLowered),
             LiteralUtil::MakeTuple(std::move(expected))));
}

TEST(HloEvaluatorTest, ZeroElementShapes) {
  constexpr char kText[] = R"(
HloModule empty

ENTRY main {
  x = f32[0,3] parameter(0)
  v = f32[3] parameter(1)
  e = f32[0] parameter(2)
  sum = f32[0,3] add(x, v), broadcast_dimensions={1}
  b = f32[2,0] broadcast(e), dimensions={1}
  t = f32[3,0] transpose(sum), dimensions={1,0}
  r = f32[3,0,1] reshape(t)
  c = s32[3,0,1] convert(r)
  i = s32[0] iota(), iota_dimension=0
  ROOT out = (f32[2,0], s32[3,0,1], s32[0]) tuple(b, c, i)
}
)";
  std::vector<Literal> args;
  args.emplace_back(ShapeUtil::MakeShape(F32, {0, 3}));
  args.push_back(R1<float>({1, 2, 3}));
  args.emplace_back(ShapeUtil::MakeShape(F32, {0}));
  std::vector<Literal> expected;
  expected.emplace_back(ShapeUtil::MakeShape(F32, {2, 0}));
  expected.emplace_back(ShapeUtil::MakeShape(S32, {3, 0, 1}));
  expected.emplace_back(ShapeUtil::MakeShape(S32, {0}));
  EXPECT_TRUE(
      Equals(Eval(kText, args), LiteralUtil::MakeTuple(std::move(expected))));
}

// ---- Entry points and errors ----------------------------------------------

constexpr char kTwoParameters[] = R"(
HloModule two

ENTRY main {
  x = f32[3] parameter(0)
  v = f32[3] parameter(1)
  ROOT r = f32[3] add(x, v)
}
)";

TEST(HloEvaluatorErrorsTest, ArgumentCountShapeAndType) {
  EXPECT_THAT(Eval(kTwoParameters, Args(R1<float>({1, 2, 3}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "computation 'main' expects 2 arguments, got 1"));
  EXPECT_THAT(
      Eval(kTwoParameters, Args(R1<float>({1, 2, 3}), R1<float>({1, 2, 3, 4}))),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "argument 1 (parameter 'v') has shape f32[4] but the "
               "computation expects f32[3]"));
  EXPECT_THAT(
      Eval(kTwoParameters, Args(R1<int32_t>({1, 2, 3}), R1<float>({1, 2, 3}))),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("argument 0 (parameter 'x') has shape s32[3] but the "
                         "computation expects f32[3]")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kTwoParameters));
  Literal x = R1<float>({1, 2, 3});
  EXPECT_THAT(EvaluateModule(*module, {&x, nullptr}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument 1 (parameter 'v') is null")));
}

TEST(HloEvaluatorTest, EvaluateComputationAndInstruction) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(absl::StrCat(kSumPrefix, R"(
ENTRY main {
  x = f32[3] parameter(0)
  ROOT r = f32[3] negate(x)
}
)")));
  Literal a = LiteralUtil::CreateR0<float>(1.5f);
  Literal b = LiteralUtil::CreateR0<float>(2);
  EXPECT_TRUE(Equals(
      EvaluateComputation(*module->GetComputationWithName("add"), {&a, &b}),
      LiteralUtil::CreateR0<float>(3.5f)));
  // Constant folding: one instruction on given operand values.
  const HloInstruction& negate =
      *module->entry_computation()->root_instruction();
  Literal x = R1<float>({1, -2, 0});
  EXPECT_TRUE(
      Equals(EvaluateInstruction(negate, {&x}), R1<float>({-1, 2, -0.0f})));
  EXPECT_THAT(EvaluateInstruction(negate, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 1 operands, got 0 values")));
  EXPECT_THAT(EvaluateInstruction(negate, {&a}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("operand 0 value has shape f32[]")));
  EXPECT_THAT(EvaluateInstruction(*negate.operand(0), {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no value outside a computation call")));
}

// API misuse on an unverified module: a reduce or fusion without its
// computation, or a reducer without a root, is InvalidArgument from the
// evaluator (and prints and fails the verifier), never an exception or a
// null dereference.
TEST(HloEvaluatorErrorsTest, MissingOrRootlessCalledComputation) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(absl::StrCat(kSumPrefix, R"(
ENTRY main {
  x = f32[3] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
}
)")));
  HloInstruction* reduce = module->entry_computation()->root_instruction();
  Literal x = R1<float>({1, 2, 3});
  Literal zero = LiteralUtil::CreateR0<float>(0);
  EXPECT_TRUE(Equals(EvaluateInstruction(*reduce, {&x, &zero}),
                     LiteralUtil::CreateR0<float>(6)));
  reduce->set_called_computations({});
  EXPECT_EQ(reduce->to_apply(), nullptr);
  EXPECT_THAT(EvaluateInstruction(*reduce, {&x, &zero}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduce 'r' has no reducer computation")));
  EXPECT_THAT(reduce->ToString(), HasSubstr("to_apply=<none>"));
  EXPECT_THAT(VerifyModule(*module, VerifierMode::kLowered),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs exactly one called computation")));
  HloComputation* rootless = module->AddComputation("rootless", false);
  reduce->set_called_computations({rootless});
  EXPECT_THAT(EvaluateInstruction(*reduce, {&x, &zero}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has no reducer computation")));
  EXPECT_THAT(EvaluateModule(*module, {&x}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has no reducer computation")));
}

TEST(HloEvaluatorErrorsTest, FusionWithoutComputation) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
body {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY main {
  x = f32[2] parameter(0)
  ROOT f = f32[2] fusion(x), kind=kLoop, calls=body
})"));
  HloInstruction* fusion = module->entry_computation()->root_instruction();
  fusion->set_called_computations({});
  Literal x = R1<float>({1, 2});
  EXPECT_THAT(EvaluateModule(*module, {&x}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("fusion 'f' has no fused computation")));
  EXPECT_THAT(fusion->ToString(), HasSubstr("calls=<none>"));
}

TEST(HloEvaluatorTest, DeepChainDoesNotOverflowTheStack) {
  HloModule module("deep");
  HloComputation* entry = module.AddComputation("main", /*is_entry=*/true);
  Shape shape = ShapeUtil::MakeShape(F32, {2});
  HloInstruction* value =
      entry->AddInstruction(HloInstruction::CreateParameter(0, shape, "x"));
  for (int i = 0; i < 100000; ++i) {
    value = entry->AddInstruction(
        HloInstruction::CreateUnary(shape, HloOpcode::kNegate, value));
  }
  entry->set_root_instruction(value);
  Literal x = R1<float>({1, -2});
  EXPECT_TRUE(Equals(EvaluateModule(module, {&x}), R1<float>({1, -2})));
}

// A recv between devices is paired with its send by a pass
// (pair-sends-and-recvs); an unpassed module asking the evaluator for one
// gets the reason, not "unknown opcode". (A send without peers sends to
// nobody: collectives_test.)
TEST(HloEvaluatorTest, RecvSaysMxlaHasOneDevice) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1
  ROOT d = (f32[2], token[]) recv-done(r), channel_id=1
})"));
  EXPECT_THAT(
      EvaluateModule(*module, {}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("evaluating r (recv): recv 'r' transfers between "
                         "devices or to the host; mxla runs one device")));
}

// A reduce whose reducer is one op (binary_reducer.h) runs as a typed
// loop; narrow floats still round to their type after every step, as the
// reducer evaluated on each pair does: 1 + 2^-9 is 1 in bf16 (and 1 +
// 2^-12 in f16), so sixteen such steps leave 1, where a sum kept in f32
// would reach 1 + 2^-5.
TEST(HloEvaluatorTest, OneOpReducersOfNarrowFloatsRoundEveryStep) {
  for (const auto& [type, small] :
       std::vector<std::pair<std::string, float>>{{"bf16", 0x1p-9f},
                                                  {"f16", 0x1p-12f}}) {
    for (const char* root : {"add(a, b)", "add(b, a)"}) {
      const std::string text = absl::StrCat(
          "HloModule narrow\nsum {\n  a = ", type, "[] parameter(0)\n  b = ",
          type, "[] parameter(1)\n  ROOT r = ", type, "[] ", root,
          "\n}\nENTRY main {\n  x = f32[17] parameter(0)\n  n = ", type,
          "[17] convert(x)\n  zero = ", type,
          "[] constant(0)\n  s = ", type,
          "[] reduce(n, zero), dimensions={0}, to_apply=sum\n  ROOT f = f32[] "
          "convert(s)\n}\n");
      std::vector<float> values(17, small);
      values[0] = 1.0f;
      std::vector<Literal> args;
      args.push_back(LiteralUtil::CreateR1<float>(values));
      EXPECT_TRUE(Equals(Eval(text, args), LiteralUtil::CreateR0<float>(1.0f)))
          << type << " " << root;
    }
  }
}

// The typed loop and the reducer evaluated per element agree bit for bit:
// the same reduce with a reducer of two ops (a convert to its own type
// after the add) takes the per-element path.
TEST(HloEvaluatorTest, OneOpReducersMatchTheGeneralPath) {
  auto module = [](absl::string_view type, absl::string_view op,
                   bool two_ops) {
    return absl::StrCat(
        "HloModule r\n",
        ScalarComputation("f", type, absl::StrCat(op, "(b, a)"), two_ops),
        "ENTRY main {\n  x = f32[40,37] parameter(0)\n  n = ", type,
        "[40,37] convert(x)\n  init = ", type, "[] constant(1)\n  s = ",
        type, "[37] reduce(n, init), dimensions={0}, to_apply=f\n  ROOT o = "
        "f32[37] convert(s)\n}\n");
  };
  std::vector<float> values;
  FixedRandom random(12345);
  for (int i = 0; i < 40 * 37; ++i) {
    values.push_back(random.Unit() * 8.0f - 4.0f);
  }
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateFromFlat<float>({40, 37}, values));
  for (const char* type : {"bf16", "f16", "f32", "f8e4m3fn"}) {
    for (const char* op : {"add", "subtract", "multiply", "maximum"}) {
      absl::StatusOr<Literal> general = Eval(module(type, op, true), args);
      ASSERT_OK(general.status());
      EXPECT_TRUE(Equals(Eval(module(type, op, false), args), *general))
          << type << " " << op;
    }
  }
}

// dot sums each result element's products in row-major order of the lhs's
// contracting dimensions, from 0, one rounding per step, even though the
// interpreter takes blocks of elements through the products together:
// against that sum written out here, on values of mixed magnitudes (where
// another order changes the bits), over more than one block, with the rhs
// read along its rows, across them (transposed) and with two contracting
// dimensions and a batch.
TEST(HloEvaluatorTest, DotSumsEachElementInContractingOrder) {
  FixedRandom random(99);
  auto values = [&](int64_t count) {
    std::vector<float> v;
    for (int64_t i = 0; i < count; ++i) {
      const uint32_t r = random.Next();
      const float unit = static_cast<float>(r) / (1 << 24) - 0.5f;
      v.push_back(unit * ((r & 3) == 0 ? 1e6f : 1.0f));
    }
    return v;
  };
  const int64_t m = 45, k = 33, n = 70;
  // lhs [m, k]; rhs [k, n] and its transpose [n, k].
  const std::vector<float> a = values(m * k), b = values(k * n);
  std::vector<float> bt(n * k);
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t c = 0; c < n; ++c) bt[c * k + r] = b[r * n + c];
  }
  std::vector<float> expected(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t r = 0; r < k; ++r) sum = sum + a[i * k + r] * b[r * n + j];
      expected[i * n + j] = sum;
    }
  }
  const Literal want = LiteralUtil::CreateFromFlat<float>({m, n}, expected);
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateFromFlat<float>({m, k}, a));
  args.push_back(LiteralUtil::CreateFromFlat<float>({k, n}, b));
  // f32[45,33] . rhs, contracting rhs dimension `contracting`.
  auto product = [](const char* rhs, int contracting) {
    return absl::StrCat("HloModule p\nENTRY main {\n  a = f32[45,33] "
                        "parameter(0)\n  b = ", rhs, " parameter(1)\n  ROOT d "
                        "= f32[45,70] dot(a, b), lhs_contracting_dims={1}, "
                        "rhs_contracting_dims={", contracting, "}\n}\n");
  };
  EXPECT_TRUE(Equals(Eval(product("f32[33,70]", 0), args), want));
  args[1] = LiteralUtil::CreateFromFlat<float>({n, k}, bt);
  EXPECT_TRUE(Equals(Eval(product("f32[70,33]", 1), args), want));
  // k = 33 as 3 x 11 (row-major, so the same order) and a batch of 1.
  args[0] = LiteralUtil::CreateFromFlat<float>({1, m, 3, 11}, a);
  args[1] = LiteralUtil::CreateFromFlat<float>({1, 3, 11, n}, b);
  const std::string two = R"(HloModule two
ENTRY main {
  a = f32[1,45,3,11] parameter(0)
  b = f32[1,3,11,70] parameter(1)
  ROOT d = f32[1,45,70] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
    lhs_contracting_dims={2,3}, rhs_contracting_dims={1,2}
})";
  EXPECT_TRUE(Equals(Eval(two, args),
                     LiteralUtil::CreateFromFlat<float>({1, m, n}, expected)));
}

// A scatter whose combiner is one op runs as a typed loop; it lands the
// updates in the order the per-element path does, with the op's operands
// as the combiner takes them: against the same scatter with a two-op
// combiner (a convert to its own type after the op), bf16 sums of many
// updates into few elements (where order changes the rounding) and f32
// differences, the current element first or the update first.
TEST(HloEvaluatorTest, OneOpScatterCombinersMatchTheGeneralPath) {
  auto module = [](absl::string_view type, absl::string_view root,
                   bool two_ops) {
    return absl::StrCat(
        "HloModule s\n", ScalarComputation("f", type, root, two_ops),
        "ENTRY main {\n  x = f32[7,5] parameter(0)\n  i = s32[300,1] "
        "parameter(1)\n  u = f32[300,5] parameter(2)\n  xn = ", type,
        "[7,5] convert(x)\n  un = ", type, "[300,5] convert(u)\n  s = ",
        type, "[7,5] scatter(xn, i, un), update_window_dims={1}, "
        "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1, to_apply=f\n  ROOT o = f32[7,5] convert(s)\n}\n");
  };
  FixedRandom random(5);
  std::vector<float> x(35), u(1500);
  std::vector<int32_t> indices(300);
  for (float& v : x) v = random.Unit() * 16.0f;
  for (float& v : u) v = random.Unit() - 0.5f;
  // 0 to 6 land; -1 and 7 are out of bounds.
  for (int32_t& v : indices) v = static_cast<int32_t>(random.Next() % 9) - 1;
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateFromFlat<float>({7, 5}, x));
  args.push_back(LiteralUtil::CreateFromFlat<int32_t>({300, 1}, indices));
  args.push_back(LiteralUtil::CreateFromFlat<float>({300, 5}, u));
  for (const auto& [type, root] :
       std::vector<std::pair<std::string, std::string>>{
           {"bf16", "add(a, b)"}, {"f16", "add(b, a)"},
           {"f32", "subtract(a, b)"}, {"f32", "subtract(b, a)"},
           {"s32", "maximum(a, b)"}}) {
    absl::StatusOr<Literal> general = Eval(module(type, root, true), args);
    ASSERT_OK(general.status());
    EXPECT_TRUE(Equals(Eval(module(type, root, false), args), *general))
        << type << " " << root;
  }
}

// A select-and-scatter whose select is one compare and whose scatter is one
// op runs as typed code; it picks and lands elements as the evaluated
// computations do: against the same op with a two-op select (the compare
// and-ed with itself) and scatter (a convert after the add), on values
// that tie (where the select decides) and overlapping windows (where
// the scatter order rounds), in bf16, f32 (also by total order, and with
// the compare's operands swapped) and s32.
TEST(HloEvaluatorTest, OneOpSelectAndScatterMatchesTheGeneralPath) {
  auto module = [](absl::string_view type, absl::string_view compare,
                   bool two_ops) {
    const std::string t(type);
    return absl::StrCat(
        "HloModule sas\nsel {\n  a = ", t, "[] parameter(0)\n  b = ", t,
        "[] parameter(1)\n", two_ops ? "  c = " : "  ROOT c = ",
        "pred[] compare(", compare, "\n",
        two_ops ? "  ROOT k = pred[] and(c, c)\n" : "", "}\n",
        ScalarComputation("sum", t, "add(a, b)", two_ops),
        "ENTRY main {\n  x = f32[12,10] parameter(0)\n  y = f32[6,5] "
        "parameter(1)\n  xn = ", t, "[12,10] convert(x)\n  yn = ", t,
        "[6,5] convert(y)\n  zero = ", t, "[] constant(0)\n  r = ", t,
        "[12,10] select-and-scatter(xn, yn, zero), window={size=3x3 "
        "stride=2x2 pad=1_1x1_1}, select=sel, scatter=sum\n  ROOT o = "
        "f32[12,10] convert(r)\n}\n");
  };
  FixedRandom random(17);
  std::vector<float> x(120), y(30);
  // -0, +0 and -1: the windows' maxima tie, and by the total order -0 is
  // below +0.
  const float levels[] = {-0.0f, 0.0f, -1.0f};
  for (float& v : x) v = levels[random.Next() % 3];
  for (float& v : y) v = random.Unit() * 16.0f + 1.0f;
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateFromFlat<float>({12, 10}, x));
  args.push_back(LiteralUtil::CreateFromFlat<float>({6, 5}, y));
  for (const auto& [type, compare] :
       std::vector<std::pair<std::string, std::string>>{
           {"bf16", "a, b), direction=GE"},
           {"f32", "a, b), direction=GT"},
           {"f32", "b, a), direction=LE"},
           {"f32", "a, b), direction=GE, type=TOTALORDER"},
           {"s32", "a, b), direction=GE"}}) {
    absl::StatusOr<Literal> general = Eval(module(type, compare, true), args);
    ASSERT_OK(general.status()) << type << " " << compare;
    EXPECT_TRUE(Equals(Eval(module(type, compare, false), args), *general))
        << type << " " << compare;
  }
}

}  // namespace
}  // namespace mxla
