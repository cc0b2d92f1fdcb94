// dynamic-slice across the layers: its text form, XLA's shape rule and
// messages, the builder, the evaluator's clamping of start indices of every
// integer type, and the JIT (a fused index map reading run-time starts)
// against the interpreter.
#include <memory>
#include <string>
#include <tuple>
#include <utility>
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

TEST(DynamicSliceTest, PrintsLikeXlaAndRoundTrips) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[5,7] parameter(0)
  i = s32[] parameter(1)
  ROOT s = f32[2,3] dynamic-slice(x, i, i), dynamic_slice_sizes={2,3}
})"));
  const HloInstruction* slice = module->entry_computation()->root_instruction();
  EXPECT_THAT(slice->dynamic_slice_sizes(), ::testing::ElementsAre(2, 3));
  EXPECT_THAT(module->ToString(),
              HasSubstr("s = f32[2,3]{1,0} dynamic-slice(x, i, i), "
                        "dynamic_slice_sizes={2,3}"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
}

TEST(DynamicSliceTest, ShapeRuleAndXlaMessages) {
  const Shape x = ShapeUtil::MakeShape(F32, {5, 7});
  const Shape s32 = ShapeUtil::MakeShape(S32, {});
  const Shape u8 = ShapeUtil::MakeShape(U8, {});
  using SI = ShapeInference;
  EXPECT_EQ(*SI::InferDynamicSliceShape(x, {&s32, &s32}, {2, 7}),
            ShapeUtil::MakeShape(F32, {2, 7}));
  auto error = [&](std::vector<const Shape*> starts,
                   std::vector<int64_t> sizes) {
    return std::string(
        SI::InferDynamicSliceShape(x, starts, sizes).status().message());
  };
  EXPECT_EQ(error({&s32}, {2, 3}),
            "dynamic-slice: Dynamic slice start number of dimensions 1 must "
            "match rank 2 of slice input (f32[5,7]).");
  const Shape f32 = ShapeUtil::MakeShape(F32, {});
  const Shape vector = ShapeUtil::MakeShape(S32, {2});
  EXPECT_THAT(error({&s32, &f32}, {2, 3}),
              HasSubstr("start indices must be integral scalars: start "
                        "index 1 is f32[]"));
  EXPECT_THAT(error({&vector, &s32}, {2, 3}),
              HasSubstr("start index 0 is s32[2]"));
  EXPECT_THAT(error({&s32, &u8}, {2, 3}),
              HasSubstr("must all have the same type: s32[] and u8[]"));
  EXPECT_THAT(error({&s32, &s32}, {2}),
              HasSubstr("index count does not match argument rank: 1 vs 2"));
  EXPECT_THAT(error({&s32, &s32}, {-1, 3}),
              HasSubstr("Negative size index to dynamic slice: -1"));
  EXPECT_THAT(error({&s32, &s32}, {2, 8}),
              HasSubstr("Slice dim size 8 greater than dynamic slice "
                        "dimension: 7"));
}

TEST(DynamicSliceTest, BuilderRecordsTheOp) {
  XlaBuilder b("ds");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4, 6}), "x");
  XlaOp i = ConstantR0<int32_t>(&b, 1);
  XlaOp s = DynamicSlice(x, {i, i}, {2, 2});
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(s));
  EXPECT_EQ(shape, ShapeUtil::MakeShape(F32, {2, 2}));
  DynamicSlice(x, {i}, {2, 2});
  EXPECT_THAT(b.Build().status().message(),
              HasSubstr("Dynamic slice start number of dimensions 1"));
}

// Starts past either end are clamped so the window fits, for signed and
// unsigned start types.
TEST(DynamicSliceTest, StartIndicesAreClamped) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"s32", "-3"}, {"s32", "2"},   {"s32", "100"},
      {"u8", "255"}, {"s8", "-128"}, {"u64", "18446744073709551615"},
      {"s64", "3"}};
  for (const auto& [type, value] : cases) {
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY main {\n  x = s32[6] parameter(0)\n  i = ", type,
        "[] constant(", value,
        ")\n  ROOT s = s32[3] dynamic-slice(x, i), "
        "dynamic_slice_sizes={3}\n}\n");
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    Literal x = LiteralUtil::CreateR1<int32_t>({10, 11, 12, 13, 14, 15});
    ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x}));
    const int32_t first = value == "2"      ? 12
                          : value == "3"    ? 13
                          : value[0] == '-' ? 10
                                            : 13;
    EXPECT_EQ(result,
              LiteralUtil::CreateR1<int32_t>({first, first + 1, first + 2}));
    EXPECT_TRUE(RunAndCompare(text, Pointers(std::vector<Literal>{x})));
  }
}

// XLA's older form: every start index in one vector.
TEST(DynamicSliceTest, StartIndexVectorForm) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[4,6] parameter(0)
  i = s32[2] parameter(1)
  n = f32[4,6] negate(x)
  ROOT s = f32[2,3] dynamic-slice(n, i), dynamic_slice_sizes={2,3}
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 3);
  arguments[1] = LiteralUtil::CreateR1<int32_t>({1, 5});
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(*module, Pointers(arguments)));
  const Literal& x = arguments[0];
  EXPECT_EQ(result.Get<float>({0, 0}), -x.Get<float>({1, 3}));  // 5 -> 3
  EXPECT_EQ(result.Get<float>({1, 2}), -x.Get<float>({2, 5}));
  EXPECT_TRUE(RunAndCompare(text, Pointers(arguments)));
  const Shape x_shape = ShapeUtil::MakeShape(F32, {4, 6});
  const Shape wrong = ShapeUtil::MakeShape(S32, {3});
  EXPECT_THAT(std::string(ShapeInference::InferDynamicSliceShape(
                              x_shape, {&wrong}, {2, 3})
                              .status()
                              .message()),
              HasSubstr("start indices s32[3] must be integral with one "
                        "element per dimension of f32[4,6]"));
}

TEST(DynamicSliceTest, JitFusesItAndMatchesTheInterpreter) {
  // Starts from parameters (so they are run-time values), on a fused
  // operand, feeding elementwise ops; rank 3, mixed in-range and clamped.
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[4,5,6] parameter(0)
  y = f32[4,5,6] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  k = s32[] parameter(4)
  sum = f32[4,5,6] add(x, y)
  s = f32[2,3,4] dynamic-slice(sum, i, j, k), dynamic_slice_sizes={2,3,4}
  ROOT e = f32[2,3,4] exponential(s)
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  for (auto [i, j, k] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {0, 0, 0}, {1, 2, 2}, {-5, 9, 3}, {3, 1, -1}}) {
    std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 7);
    arguments[2] = LiteralUtil::CreateR0<int32_t>(i);
    arguments[3] = LiteralUtil::CreateR0<int32_t>(j);
    arguments[4] = LiteralUtil::CreateR0<int32_t>(k);
    EXPECT_TRUE(RunAndCompare(text, Pointers(arguments))) << i << j << k;
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, {}));
  // One loop fusion computes the sum, the window and the exponential.
  EXPECT_THAT(fused->ToString(), HasSubstr("dynamic-slice("));
  EXPECT_THAT(fused->entry_computation()->root_instruction()->opcode(),
              HloOpcode::kFusion);
}

}  // namespace
}  // namespace mxla
