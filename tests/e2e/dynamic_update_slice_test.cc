// dynamic-update-slice across the layers: its text form, XLA's shape rule
// and messages, the builder, the evaluator's clamping of start indices,
// and the JIT (a fused select between the operand and the clamped update)
// against the interpreter.
#include <memory>
#include <string>
#include <tuple>
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

TEST(DynamicUpdateSliceTest, PrintsLikeXlaAndRoundTrips) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[5,7] parameter(0)
  u = f32[2,3] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[5,7] dynamic-update-slice(x, u, i, i)
})"));
  EXPECT_THAT(module->ToString(),
              HasSubstr("d = f32[5,7]{1,0} dynamic-update-slice(x, u, i, i)"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
}

TEST(DynamicUpdateSliceTest, ShapeRuleAndXlaMessages) {
  const Shape x = ShapeUtil::MakeShape(F32, {5, 7});
  const Shape u = ShapeUtil::MakeShape(F32, {2, 3});
  const Shape s32 = ShapeUtil::MakeShape(S32, {});
  using SI = ShapeInference;
  EXPECT_EQ(*SI::InferDynamicUpdateSliceShape(x, u, {&s32, &s32}), x);
  auto error = [&](const Shape& update, std::vector<const Shape*> starts) {
    return std::string(
        SI::InferDynamicUpdateSliceShape(x, update, starts).status().message());
  };
  EXPECT_EQ(error(u, {&s32}),
            "dynamic-update-slice: Dynamic update slice start number of "
            "dimensions 1 must match rank 2 of slice input (f32[5,7]).");
  EXPECT_THAT(error(ShapeUtil::MakeShape(F32, {2}), {&s32, &s32}),
              HasSubstr("update rank does not match argument rank: 1 vs 2"));
  EXPECT_THAT(error(ShapeUtil::MakeShape(S32, {2, 3}), {&s32, &s32}),
              HasSubstr("update element type does not match argument. "
                        "operand.element_type: F32 vs update.element_type: "
                        "S32."));
  EXPECT_THAT(error(ShapeUtil::MakeShape(F32, {6, 3}), {&s32, &s32}),
              HasSubstr("Slice dim size 6 greater than dynamic update slice "
                        "dimension: 5"));
  const Shape f32 = ShapeUtil::MakeShape(F32, {});
  EXPECT_THAT(error(u, {&s32, &f32}),
              HasSubstr("start indices must be integral scalars: start "
                        "index 1 is f32[]"));
}

TEST(DynamicUpdateSliceTest, BuilderRecordsTheOp) {
  XlaBuilder b("dus");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4, 6}), "x");
  XlaOp u = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {2, 2}), "u");
  XlaOp i = ConstantR0<int32_t>(&b, 1);
  XlaOp d = DynamicUpdateSlice(x, u, {i, i});
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(d));
  EXPECT_EQ(shape, ShapeUtil::MakeShape(F32, {4, 6}));
  DynamicUpdateSlice(x, x, {i, i, i});
  EXPECT_THAT(b.Build().status().message(),
              HasSubstr("Dynamic update slice start number of dimensions 3"));
}

// The update lands at the clamped start: past either end, it is moved
// back inside.
TEST(DynamicUpdateSliceTest, StartIndicesAreClamped) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"s32", "-3"},
      {"s32", "2"},
      {"s32", "100"},
      {"u8", "255"},
      {"u64", "18446744073709551615"}};
  for (const auto& [type, value] : cases) {
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY main {\n  x = s32[6] parameter(0)\n  u = s32[2] "
        "parameter(1)\n  i = ",
        type, "[] constant(", value,
        ")\n  ROOT d = s32[6] dynamic-update-slice(x, u, i)\n}\n");
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    std::vector<Literal> arguments;
    arguments.push_back(LiteralUtil::CreateR1<int32_t>({0, 1, 2, 3, 4, 5}));
    arguments.push_back(LiteralUtil::CreateR1<int32_t>({-1, -2}));
    ASSERT_OK_AND_ASSIGN(Literal result,
                         EvaluateModule(*module, Pointers(arguments)));
    const int start = value == "2" ? 2 : value[0] == '-' ? 0 : 4;
    std::vector<int32_t> expected = {0, 1, 2, 3, 4, 5};
    expected[start] = -1;
    expected[start + 1] = -2;
    EXPECT_EQ(result, LiteralUtil::CreateR1<int32_t>(expected));
    EXPECT_TRUE(RunAndCompare(text, Pointers(arguments)));
  }
}

TEST(DynamicUpdateSliceTest, JitFusesItAndMatchesTheInterpreter) {
  // Run-time starts, a computed operand and update, a consumer in the same
  // fusion; rank 3, in range and clamped; the older start-vector form.
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[4,5,6] parameter(0)
  u = f32[2,3,4] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  k = s32[] parameter(4)
  n = f32[4,5,6] negate(x)
  e = f32[2,3,4] exponential(u)
  d = f32[4,5,6] dynamic-update-slice(n, e, i, j, k)
  ROOT a = f32[4,5,6] add(d, x)
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  for (auto [i, j, k] : std::vector<std::tuple<int32_t, int32_t, int32_t>>{
           {0, 0, 0}, {1, 2, 2}, {-5, 9, 3}, {3, 1, -1}}) {
    std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 5);
    arguments[2] = LiteralUtil::CreateR0<int32_t>(i);
    arguments[3] = LiteralUtil::CreateR0<int32_t>(j);
    arguments[4] = LiteralUtil::CreateR0<int32_t>(k);
    EXPECT_TRUE(RunAndCompare(text, Pointers(arguments))) << i << j << k;
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, {}));
  EXPECT_THAT(fused->ToString(), HasSubstr("dynamic-update-slice("));
  EXPECT_EQ(fused->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kFusion);
  const std::string vector_form = R"(HloModule m
ENTRY main {
  x = u8[3,4] parameter(0)
  u = u8[2,2] parameter(1)
  s = u32[2] parameter(2)
  ROOT d = u8[3,4] dynamic-update-slice(x, u, s)
})";
  ASSERT_OK_AND_ASSIGN(module, ParseHloModule(vector_form));
  std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 1);
  arguments[2] = LiteralUtil::CreateR1<uint32_t>({5, 1});
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(*module, Pointers(arguments)));
  // Row start 5 clamps to 1; column start 1 fits.
  EXPECT_EQ(result.Get<uint8_t>({1, 1}), arguments[1].Get<uint8_t>({0, 0}));
  EXPECT_EQ(result.Get<uint8_t>({2, 2}), arguments[1].Get<uint8_t>({1, 1}));
  EXPECT_EQ(result.Get<uint8_t>({0, 1}), arguments[0].Get<uint8_t>({0, 1}));
  EXPECT_TRUE(RunAndCompare(vector_form, Pointers(arguments)));
}

}  // namespace
}  // namespace mxla
