// sort across the layers: its text form, XLA's shape rule, the builder,
// the evaluator (stable: equal keys keep their order) and the JIT, which
// sorts each row at run time by calling the compiled comparator, against
// the interpreter.
#include <limits>
#include <memory>
#include <tuple>
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
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

// Keys of type `type` in [rows, columns], sorted along `dimension` with
// their positions (an iota) carried along; `direction` LT is ascending.
std::string KeyValueSort(const std::string& type, int64_t rows,
                         int64_t columns, int64_t dimension,
                         const std::string& direction) {
  const std::string keys = absl::StrCat(type, "[", rows, ",", columns, "]");
  const std::string values = absl::StrCat("s32[", rows, ",", columns, "]");
  return absl::StrCat(
      "HloModule sort\nless {\n  a = ", type, "[] parameter(0)\n  b = ", type,
      "[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
      "  ROOT lt = pred[] compare(a, b), direction=",
      direction, "\n}\nENTRY main {\n  x = ", keys,
      " parameter(0)\n  i = ", values, " iota(), iota_dimension=", dimension,
      "\n  s = (", keys, ", ", values, ") sort(x, i), dimensions={", dimension,
      "}, is_stable=true, to_apply=less\n  k = ", keys,
      " get-tuple-element(s), index=0\n  v = ", values,
      " get-tuple-element(s), index=1\n  ROOT t = (", keys, ", ", values,
      ") tuple(k, v)\n}\n");
}

TEST(SortTest, TextFormAndShapeRule) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(KeyValueSort("f32", 2, 3, 1, "LT")));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  // is_stable is dropped: mxla's sort is always stable.
  EXPECT_THAT(module->ToString(),
              HasSubstr("sort(x, i), dimensions={1}, to_apply=less"));
  using SI = ShapeInference;
  const Shape f = ShapeUtil::MakeShape(F32, {2, 3});
  const Shape s = ShapeUtil::MakeShape(S32, {2, 3});
  const Shape scalar_f = ShapeUtil::MakeShape(F32, {});
  const Shape pred = ShapeUtil::MakeShape(PRED, {});
  const ProgramShape less{{scalar_f, scalar_f}, pred};
  EXPECT_EQ(*SI::InferSortShape({&f}, 1, less), f);
  auto error = [&](std::vector<const Shape*> operands, int64_t d,
                   const ProgramShape& comparator) {
    return std::string(
        SI::InferSortShape(operands, d, comparator).status().message());
  };
  EXPECT_EQ(error({&f}, 2, less),
            "sort: dimension 2 is out of range for f32[2,3].");
  EXPECT_EQ(error({&f, &s}, 1, less),
            "sort: The comparator takes 2 parameters, but sort has 2 "
            "operands: it needs 2 per operand.");
  const Shape vector = ShapeUtil::MakeShape(S32, {3});
  EXPECT_EQ(error({&f, &vector}, 0, less),
            "sort: Expected sort operands to have the same dimensions; got "
            "f32[2,3] and s32[3].");
  EXPECT_EQ(error({&s}, 0, less),
            "sort: comparator parameter 0 must be s32[] (an element of "
            "operand 0); got f32[].");
  EXPECT_EQ(error({&f}, 0, ProgramShape{{scalar_f, scalar_f}, scalar_f}),
            "sort: The comparator must return pred[]; got f32[].");
}

TEST(SortTest, BuilderAndStableValues) {
  XlaBuilder less("less");
  XlaOp lt = Lt(Parameter(&less, 0, ShapeUtil::MakeShape(S32, {}), "a"),
                Parameter(&less, 1, ShapeUtil::MakeShape(S32, {}), "b"));
  Parameter(&less, 2, ShapeUtil::MakeShape(F32, {}), "c");
  Parameter(&less, 3, ShapeUtil::MakeShape(F32, {}), "d");
  ASSERT_OK_AND_ASSIGN(XlaComputation comparator, less.Build(lt));
  XlaBuilder b("sort");
  Sort({ConstantR1<int32_t>(&b, {3, 1, 3, 0, 1}),
        ConstantR1<float>(&b, {0, 1, 2, 3, 4})},
       comparator);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(computation.module(), {}));
  // Equal keys keep their order: the 1s from positions 1, 4; the 3s 0, 2.
  EXPECT_EQ(result.tuple_element(0),
            LiteralUtil::CreateR1<int32_t>({0, 1, 1, 3, 3}));
  EXPECT_EQ(result.tuple_element(1),
            LiteralUtil::CreateR1<float>({3, 1, 4, 0, 2}));
  EXPECT_TRUE(RunAndCompare(computation.module(), {}));
  XlaBuilder bad("bad");
  Sort({ConstantR1<float>(&bad, {1})}, comparator);
  EXPECT_THAT(bad.Build().status().message(),
              HasSubstr("The comparator takes 4 parameters, but sort has 1"));
}

TEST(SortTest, JitMatchesTheInterpreter) {
  for (const auto& [type, rows, columns, dimension, direction] :
       std::vector<std::tuple<std::string, int64_t, int64_t, int64_t,
                              std::string>>{{"f32", 5, 33, 1, "LT"},
                                            {"f32", 40, 3, 0, "GT"},
                                            {"s32", 7, 64, 1, "LT"},
                                            {"bf16", 3, 17, 1, "GE"},
                                            {"u8", 0, 4, 1, "LT"},
                                            {"f64", 1, 1, 0, "LT"}}) {
    const std::string text =
        KeyValueSort(type, rows, columns, dimension, direction);
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
  // NaN keys: LT is not a strict weak order with NaN, but the comparator
  // gives the same answers in both backends, so the order is the same.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(KeyValueSort("f32", 1, 6, 1, "LT")));
  Literal keys = LiteralUtil::CreateR2<float>(
      {{2, std::numeric_limits<float>::quiet_NaN(), -1, 2, -0.0f, 0}});
  EXPECT_TRUE(RunAndCompare(*module, {&keys}));
}

// type=TOTALORDER: -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN, in both
// backends and every float type; XLA's argsorts compare this way.
TEST(SortTest, TotalOrderComparison) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[64] parameter(0)
  y = f32[64] parameter(1)
  t = pred[64] compare(x, y), direction=LT, type=TOTALORDER
  f = pred[64] compare(x, y), direction=LT, type=FLOAT
  ROOT r = (pred[64], pred[64]) tuple(t, f)
})"));
  const std::string text = module->ToString();
  EXPECT_THAT(text, HasSubstr("compare(x, y), direction=LT, type=TOTALORDER"));
  EXPECT_THAT(text, HasSubstr("f = pred[64]{0} compare(x, y), direction=LT\n"));
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY e {\n  x = s32[2] "
                             "parameter(0)\n  ROOT c = pred[2] compare(x, x), "
                             "direction=LT, type=TOTALORDER\n}\n")
                  .status()
                  .message(),
              HasSubstr("unsupported comparison type 'TOTALORDER' for s32 "
                        "operands (only SIGNED is supported)"));
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> ordered = {-kNan, -kInf, -1, -0.0f,
                                      0.0f,  1,     kInf, kNan};
  std::vector<float> xs, ys;
  for (float a : ordered) {
    for (float b : ordered) {
      xs.push_back(a);
      ys.push_back(b);
    }
  }
  Literal x = LiteralUtil::CreateR1<float>(xs);
  Literal y = LiteralUtil::CreateR1<float>(ys);
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x, &y}));
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(result.tuple_element(0).data<bool>()[i], i / 8 < i % 8) << i;
  }
  EXPECT_TRUE(RunAndCompare(*module, {&x, &y}));
  for (const char* type : {"f64", "f16", "bf16"}) {
    for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n  x = f32[64] parameter(0)\n  y = f32[64] "
          "parameter(1)\n  a = ", type, "[64] convert(x)\n  b = ", type,
          "[64] convert(y)\n  ROOT c = pred[64] compare(a, b), direction=",
          direction, ", type=TOTALORDER\n}\n");
      EXPECT_TRUE(RunAndCompare(text, {&x, &y})) << text;
    }
  }
  XlaBuilder b("total_order");
  GtTotalOrder(ConstantR1<float>(&b, {-0.0f, kNan}),
               ConstantR1<float>(&b, {0.0f, kInf}));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal gt, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(gt, LiteralUtil::CreateR1<bool>({false, true}));
  XlaBuilder bad("bad");
  LtTotalOrder(ConstantR1<int32_t>(&bad, {1}), ConstantR1<int32_t>(&bad, {2}));
  EXPECT_THAT(bad.Build().status().message(),
              HasSubstr("comparison type TOTALORDER needs floating-point "
                        "operands; got s32[1]"));
}

}  // namespace
}  // namespace mxla
