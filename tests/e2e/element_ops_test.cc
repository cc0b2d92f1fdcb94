// The ops that map elements in place or reorder them, across the layers:
// is-finite, clamp, reduce-precision, bitcast-convert, reverse,
// get-dimension-size, opt-barrier and domain. Their text forms, XLA's shape rules
// and messages, the builder, the evaluator's values (edge values written
// from XLA's rules), and the JIT against the interpreter.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<Literal> Evaluate(const std::string& text,
                                 std::vector<const Literal*> arguments) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  RETURN_IF_ERROR(VerifyModule(*module, VerifierMode::kLowered));
  return EvaluateModule(*module, arguments);
}

// A module applying `body` (which reads `x` and defines the root) to one
// parameter x of `shape`.
std::string OneParameter(const std::string& shape, const std::string& body) {
  return absl::StrCat("HloModule m\nENTRY main {\n  x = ", shape,
                      " parameter(0)\n", body, "\n}\n");
}

std::string Message(const absl::StatusOr<Shape>& shape) {
  return std::string(shape.status().message());
}

TEST(ElementOpsTest, IsFinite) {
  using SI = ShapeInference;
  EXPECT_EQ(*SI::InferIsFiniteShape(ShapeUtil::MakeShape(BF16, {2, 3})),
            ShapeUtil::MakeShape(PRED, {2, 3}));
  EXPECT_EQ(Message(SI::InferIsFiniteShape(ShapeUtil::MakeShape(S32, {2}))),
            "is-finite: Expected element type in shape to be floating point "
            "for IsFinite operation; got S32. Operand is s32[2].");
  Literal x = LiteralUtil::CreateR1<float>(
      {1, kInf, -kInf, kNan, -0.0f, 3.4028235e38f, 1e-45f});
  ASSERT_OK_AND_ASSIGN(
      Literal finite,
      Evaluate(OneParameter("f32[7]", "  ROOT f = pred[7] is-finite(x)"), {&x}));
  EXPECT_EQ(finite, LiteralUtil::CreateR1<bool>(
                        {true, false, false, false, true, true, true}));
  XlaBuilder b("is_finite");
  IsFinite(ConstantR1<int32_t>(&b, {1}));
  const std::string error(b.Build().status().message());
  EXPECT_THAT(error, HasSubstr("IsFinite(s32[1])"));
  EXPECT_THAT(error, HasSubstr("is-finite: Expected element type"));
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    const std::string text = OneParameter(
        absl::StrCat(type, "[64]"),
        absl::StrCat("  d = ", type, "[64] divide(x, x)\n  l = ", type,
                     "[64] log(x)\n  a = pred[64] is-finite(d)\n  b = "
                     "pred[64] is-finite(l)\n  ROOT r = pred[64] and(a, b)"));
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
}

TEST(ElementOpsTest, Clamp) {
  using SI = ShapeInference;
  const Shape s32 = ShapeUtil::MakeShape(S32, {});
  const Shape v = ShapeUtil::MakeShape(S32, {3});
  EXPECT_EQ(*SI::InferClampShape(s32, v, v), v);
  EXPECT_EQ(Message(SI::InferClampShape(ShapeUtil::MakeShape(F32, {}), v, s32)),
            "clamp: Clamp with different shapes: f32[], s32[3], s32[].");
  EXPECT_EQ(Message(SI::InferClampShape(ShapeUtil::MakeShape(S32, {2}), v, s32)),
            "clamp: Clamp with incompatible shapes: s32[2], s32[3], s32[].");
  XlaBuilder b("clamp");
  Clamp(ConstantR0<int32_t>(&b, 0), ConstantR1<int32_t>(&b, {-5, 3, 12}),
        ConstantR1<int32_t>(&b, {10, 1, 10}));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal ints, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(ints, LiteralUtil::CreateR1<int32_t>({0, 1, 10}));
  // NaN propagates (maximum's and minimum's rule); -0 and +0 order.
  Literal x = LiteralUtil::CreateR1<float>({kNan, -0.0f, 5, -kInf});
  ASSERT_OK_AND_ASSIGN(
      Literal floats,
      Evaluate(OneParameter("f32[4]",
                            "  lo = f32[] constant(0)\n  hi = f32[] "
                            "constant(1)\n  ROOT c = f32[4] clamp(lo, x, hi)"),
               {&x}));
  EXPECT_TRUE(std::isnan(floats.data<float>()[0]));
  EXPECT_FALSE(std::signbit(floats.data<float>()[1]));
  EXPECT_EQ(floats.data<float>()[2], 1);
  EXPECT_EQ(floats.data<float>()[3], 0);
  for (const char* type : {"f32", "s32", "u8", "bf16"}) {
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY main {\n  x = ", type, "[33,7] parameter(0)\n  lo = ",
        type, "[] parameter(1)\n  hi = ", type, "[33,7] parameter(2)\n  c = ",
        type, "[33,7] clamp(lo, x, hi)\n  ROOT n = ", type,
        "[33,7] multiply(c, c)\n}\n");
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
}

TEST(ElementOpsTest, ReducePrecisionFollowsXlasRule) {
  using SI = ShapeInference;
  const Shape f32 = ShapeUtil::MakeShape(F32, {2});
  EXPECT_EQ(*SI::InferReducePrecisionShape(f32, 5, 10), f32);
  EXPECT_THAT(Message(SI::InferReducePrecisionShape(
                  ShapeUtil::MakeShape(S8, {2}), 5, 10)),
              HasSubstr("to be floating point for ReducePrecision operation; "
                        "got S8"));
  EXPECT_EQ(Message(SI::InferReducePrecisionShape(f32, 0, 10)),
            "reduce-precision: Expected exponent_bits >= 1; got 0.");
  EXPECT_EQ(Message(SI::InferReducePrecisionShape(f32, 5, -1)),
            "reduce-precision: Expected non-negative mantissa_bits; got -1.");
  // To f16's 5 exponent and 10 mantissa bits: 65504 is the largest value,
  // 65520 (halfway to the next) rounds to inf; 2^-14 is the smallest
  // normal and 2^-15 flushes to 0 (no subnormals); 1 + 2^-11 ties to 1
  // and 1 + 3 * 2^-11 to 1 + 2^-9; NaN stays NaN.
  Literal x = LiteralUtil::CreateR1<float>(
      {65504, 65520, -65520, std::ldexp(1.0f, -14), -std::ldexp(1.0f, -15),
       1 + std::ldexp(1.0f, -11), 1 + 3 * std::ldexp(1.0f, -11), kNan});
  ASSERT_OK_AND_ASSIGN(
      Literal half,
      Evaluate(OneParameter("f32[8]",
                            "  ROOT r = f32[8] reduce-precision(x), "
                            "exponent_bits=5, mantissa_bits=10"),
               {&x}));
  absl::Span<const float> r = half.data<float>();
  EXPECT_EQ(r[0], 65504);
  EXPECT_EQ(r[1], kInf);
  EXPECT_EQ(r[2], -kInf);
  EXPECT_EQ(r[3], std::ldexp(1.0f, -14));
  EXPECT_EQ(r[4], 0);
  EXPECT_TRUE(std::signbit(r[4]));
  EXPECT_EQ(r[5], 1);
  EXPECT_EQ(r[6], 1 + std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(r[7]));
  // With no mantissa bits a NaN becomes +inf, as in XLA.
  ASSERT_OK_AND_ASSIGN(
      Literal none,
      Evaluate(OneParameter("f32[8]",
                            "  ROOT r = f32[8] reduce-precision(x), "
                            "exponent_bits=8, mantissa_bits=0"),
               {&x}));
  EXPECT_EQ(none.data<float>()[7], kInf);
  EXPECT_EQ(none.data<float>()[6], 1);
  // Each type is reduced on its own bits: f16's subnormals stay when the
  // exponent keeps f16's 5 bits, and flush with 4.
  Literal tiny = LiteralUtil::CreateR1<Half>(
      {Half::FromBits(0x0001), Half::FromBits(0x8200), Half(1.5f)});
  ASSERT_OK_AND_ASSIGN(
      Literal kept,
      Evaluate(OneParameter("f16[3]",
                            "  ROOT r = f16[3] reduce-precision(x), "
                            "exponent_bits=5, mantissa_bits=10"),
               {&tiny}));
  EXPECT_EQ(kept, tiny);
  ASSERT_OK_AND_ASSIGN(
      Literal flushed,
      Evaluate(OneParameter("f16[3]",
                            "  ROOT r = f16[3] reduce-precision(x), "
                            "exponent_bits=4, mantissa_bits=10"),
               {&tiny}));
  EXPECT_EQ(flushed.data<Half>()[0].bits(), 0x0000);
  EXPECT_EQ(flushed.data<Half>()[1].bits(), 0x8000);
  EXPECT_EQ(static_cast<float>(flushed.data<Half>()[2]), 1.5f);
  for (const char* bits : {"exponent_bits=5, mantissa_bits=10",
                           "exponent_bits=4, mantissa_bits=3"}) {
    EXPECT_TRUE(RunAndCompare(
        OneParameter("f16[3]", absl::StrCat("  ROOT r = f16[3] "
                                            "reduce-precision(x), ",
                                            bits)),
        {&tiny}));
  }
  // bf16's widths are exactly convert to bf16 (round to nearest even).
  XlaBuilder b("reduce_precision");
  XlaOp p = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {8}), "x");
  Sub(ReducePrecision(p, 8, 7),
      ConvertElementType(ConvertElementType(p, BF16), F32));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal difference,
                       EvaluateModule(computation.module(), {&x}));
  for (int i = 0; i < 7; ++i) EXPECT_EQ(difference.data<float>()[i], 0) << i;
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    for (const char* bits : {"exponent_bits=5, mantissa_bits=10",
                             "exponent_bits=8, mantissa_bits=7",
                             "exponent_bits=2, mantissa_bits=1",
                             "exponent_bits=11, mantissa_bits=0"}) {
      const std::string text = OneParameter(
          absl::StrCat(type, "[40]"),
          absl::StrCat("  e = ", type, "[40] exponential(x)\n  r = ", type,
                       "[40] reduce-precision(e), ", bits, "\n  ROOT s = ",
                       type, "[40] subtract(r, x)"));
      EXPECT_TRUE(RunAndCompare(text)) << text;
    }
  }
  Literal edges = LiteralUtil::CreateR1<float>(
      {65504, 65520, -65520, 1e-8f, -1e-30f, 1e38f, kNan, -kInf});
  EXPECT_TRUE(RunAndCompare(
      OneParameter("f32[8]",
                   "  ROOT r = f32[8] reduce-precision(x), exponent_bits=5, "
                   "mantissa_bits=10"),
      {&edges}));
}

TEST(ElementOpsTest, BitcastConvert) {
  using SI = ShapeInference;
  EXPECT_EQ(*SI::InferBitcastConvertShape(ShapeUtil::MakeShape(F32, {2, 3}),
                                          U8),
            ShapeUtil::MakeShape(U8, {2, 3, 4}));
  EXPECT_EQ(*SI::InferBitcastConvertShape(ShapeUtil::MakeShape(S16, {5, 4}),
                                          F64),
            ShapeUtil::MakeShape(F64, {5}));
  EXPECT_EQ(*SI::InferBitcastConvertShape(ShapeUtil::MakeShape(S8, {10}),
                                          PRED),
            ShapeUtil::MakeShape(PRED, {10}));
  EXPECT_EQ(Message(SI::InferBitcastConvertShape(
                ShapeUtil::MakeShape(S16, {5, 3}), F64)),
            "bitcast-convert: Last dimension of input shape=3 is not equal to "
            "ratio of bit-widths=4 for bitcast-convert from s16[5,3] to f64.");
  EXPECT_THAT(Message(SI::InferBitcastConvertShape(
                  ShapeUtil::MakeTupleShape({}), F32)),
              HasSubstr("Cannot convert from or to tuple type"));
  // Little-endian bytes: 0x04030201 is {1, 2, 3, 4}; 1.0f is 0x3f800000.
  XlaBuilder b("bitcast_convert");
  XlaOp words = ConstantR1<int32_t>(&b, {0x04030201, -1});
  XlaOp bytes = BitcastConvertType(words, U8);
  Tuple(&b, {bytes, BitcastConvertType(bytes, S32),
             BitcastConvertType(ConstantR1<float>(&b, {1.0f, -0.0f}), S32)});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result.tuple_element(0),
            LiteralUtil::CreateR2<uint8_t>({{1, 2, 3, 4}, {255, 255, 255, 255}}));
  EXPECT_EQ(result.tuple_element(1),
            LiteralUtil::CreateR1<int32_t>({0x04030201, -1}));
  EXPECT_EQ(result.tuple_element(2),
            LiteralUtil::CreateR1<int32_t>({0x3f800000, INT32_MIN}));
  // Equal widths, narrower and wider results, pred, and the f16/bf16
  // types held in f32 registers, fused into loops.
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{
           {"f32[6,5]", "s32[6,5]"},   {"s32[6,5]", "f32[6,5]"},
           {"f32[6,5]", "u8[6,5,4]"},  {"s16[6,5,4]", "f64[6,5]"},
           {"u8[6,5,2]", "bf16[6,5]"}, {"f16[6,5]", "s8[6,5,2]"},
           {"s8[6,5]", "pred[6,5]"},   {"f64[6,5]", "u16[6,5,4]"}}) {
    const std::string text = OneParameter(
        from, absl::StrCat("  n = ", from, " negate(x)\n  ROOT c = ", to,
                           " bitcast-convert(n)"));
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
}

TEST(ElementOpsTest, Reverse) {
  using SI = ShapeInference;
  const Shape x = ShapeUtil::MakeShape(F32, {2, 3});
  EXPECT_EQ(*SI::InferReverseShape(x, {1, 0}), x);
  EXPECT_EQ(Message(SI::InferReverseShape(x, {0, 0})),
            "reverse: a dimension number is duplicated in reverse: {0,0}.");
  EXPECT_EQ(Message(SI::InferReverseShape(x, {2})),
            "reverse: One of the reverse dimensions (2) is out-of-bounds in "
            "shape f32[2,3].");
  XlaBuilder b("rev");
  Rev(ConstantR2<int32_t>(&b, {{1, 2, 3}, {4, 5, 6}}), {1, 0});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR2<int32_t>({{6, 5, 4}, {3, 2, 1}}));
  for (const char* dims : {"{}", "{0}", "{2}", "{0,2}", "{2,1,0}"}) {
    const std::string text = OneParameter(
        "f32[5,1,7]",
        absl::StrCat("  r = f32[5,1,7] reverse(x), dimensions=", dims,
                     "\n  ROOT s = f32[5,1,7] subtract(r, x)"));
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
  EXPECT_TRUE(RunAndCompare(OneParameter(
      "s32[0,3]", "  ROOT r = s32[0,3] reverse(x), dimensions={0,1}")));
}

TEST(ElementOpsTest, GetDimensionSizeAndOptimizationBarrier) {
  EXPECT_EQ(Message(ShapeInference::InferGetDimensionSizeShape(
                ShapeUtil::MakeShape(F32, {3}), 1)),
            "get-dimension-size: GetDimensionSize dimension out of bounds: 1. "
            "Operand is f32[3].");
  XlaBuilder b("dimension_size");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3, 7}), "x");
  XlaOp fenced = OptimizationBarrier(Tuple(&b, {x, GetDimensionSize(x, 1)}));
  Add(GetTupleElement(fenced, 1), GetDimensionSize(x, 0));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  Literal argument(ShapeUtil::MakeShape(F32, {3, 7}));
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(computation.module(), {&argument}));
  EXPECT_EQ(result, LiteralUtil::CreateR0<int32_t>(10));
  EXPECT_TRUE(RunAndCompare(computation.module(), {&argument}));
  EXPECT_TRUE(RunAndCompare(R"(
HloModule m
ENTRY main {
  x = f32[4,6] parameter(0)
  y = f32[4,6] parameter(1)
  t = (f32[4,6], f32[4,6]) tuple(x, y)
  b = (f32[4,6], f32[4,6]) opt-barrier(t)
  l = f32[4,6] get-tuple-element(b), index=0
  r = f32[4,6] get-tuple-element(b), index=1
  s = s32[] get-dimension-size(l), dimensions={1}
  f = f32[] convert(s)
  fb = f32[4,6] broadcast(f), dimensions={}
  m = f32[4,6] multiply(l, r)
  ROOT a = f32[4,6] add(m, fb)
})"));
}

// XLA's sharding-domain boundary (hlo_domain_test's form): on one device the
// operand's value, its metadata dropped; a result shape other than the
// operand's is refused.
TEST(ElementOpsTest, DomainIsItsOperandOnOneDevice) {
  const std::string text = R"(
HloModule m
add_func {
  a = f32[2] parameter(0), sharding={devices=[2]0,1}
  da = f32[2] domain(a), domain={kind="sharding", entry={}, exit={devices=[2]0,1}}
  b = f32[2] parameter(1), sharding={replicated}
  db = f32[2] domain(b), domain={kind="sharding", entry={}, exit={replicated}}
  s = f32[2] add(da, db)
  ROOT ds = f32[2] domain(s), domain={kind="sharding", entry={devices=[2]0,1}, exit={}}
}
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  r = f32[2] call(x, y), to_apply=add_func
  ROOT t = (f32[2]) tuple(r)
})";
  Literal x = LiteralUtil::CreateR1<float>({1.5f, -2});
  Literal y = LiteralUtil::CreateR1<float>({4, kInf});
  ASSERT_OK_AND_ASSIGN(Literal result, Evaluate(text, {&x, &y}));
  EXPECT_EQ(result.tuple_element(0),
            LiteralUtil::CreateR1<float>({5.5f, kInf}));
  EXPECT_TRUE(RunAndCompare(text, {&x, &y}));
  EXPECT_THAT(
      Evaluate(OneParameter("f32[2]",
                            "  ROOT d = f32[3] domain(x), domain={kind=\"s\"}"),
               {&x})
          .status()
          .message(),
      HasSubstr("instruction 'd' (domain): declared shape f32[3] differs "
                "from the inferred shape f32[2]"));
}

}  // namespace
}  // namespace mxla
