// pad across the layers: its text form (`padding=1_2x0_0_1`, negative low
// and high crop), XLA's shape rule and messages, the builder, the
// evaluator's values, and the JIT (a fused select between the operand and
// the padding value) against the interpreter.
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
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(PadTest, PrintsLikeXlaAndRoundTrips) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[3,4] parameter(0)
  z = f32[] constant(0)
  ROOT p = f32[9,1] pad(x, z), padding=1_1_2x-1_-2
})"));
  const HloInstruction* pad = module->entry_computation()->root_instruction();
  EXPECT_EQ(pad->padding_config(), (PaddingConfig{{1, 1, 2}, {-1, -2, 0}}));
  EXPECT_THAT(module->ToString(),
              HasSubstr("p = f32[9,1]{1,0} pad(x, z), padding=1_1_2x-1_-2"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY main {\n  x = f32[3] "
                             "parameter(0)\n  z = f32[] constant(0)\n  ROOT p "
                             "= f32[3] pad(x, z), padding=0x1\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected a padding configuration like 1_2x0_0_1 "
                                 "but found '0x1'")));
}

TEST(PadTest, ShapeRuleAndXlaMessages) {
  const Shape x = ShapeUtil::MakeShape(F32, {3, 4});
  const Shape zero = ShapeUtil::MakeShape(F32, {});
  using SI = ShapeInference;
  EXPECT_EQ(*SI::InferPadShape(x, zero, {{1, 2, 1}, {0, -4, 0}}),
            ShapeUtil::MakeShape(F32, {8, 0}));
  auto error = [&](const Shape& value, PaddingConfig config) {
    return std::string(SI::InferPadShape(x, value, config).status().message());
  };
  EXPECT_EQ(error(zero, {{0, 0, 0}}),
            "pad: The rank of the operand and the padding configuration do "
            "not match: f32[3,4] vs 1 padding dimensions.");
  EXPECT_THAT(error(ShapeUtil::MakeShape(F32, {1}), {{0, 0, 0}, {0, 0, 0}}),
              HasSubstr("does not support non-scalar padding values: f32[1]"));
  EXPECT_THAT(error(ShapeUtil::MakeShape(S32, {}), {{0, 0, 0}, {0, 0, 0}}),
              HasSubstr("element types of the operands to Pad do not match"));
  EXPECT_THAT(error(zero, {{0, 0, -1}, {0, 0, 0}}),
              HasSubstr("Interior padding cannot be negative: -1"));
  EXPECT_THAT(error(zero, {{0, 0, 0}, {-3, -2, 0}}),
              HasSubstr("Padding result in negative size for dimension 1: -1"));
}

TEST(PadTest, BuilderAndValues) {
  XlaBuilder b("pad");
  XlaOp x = ConstantR1<int32_t>(&b, {1, 2, 3});
  XlaOp v = ConstantR0<int32_t>(&b, -9);
  Pad(x, v, {{2, -1, 1}});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(computation.module(), {}));
  // -9 -9 1 -9 2 -9 3, then the last element cropped.
  EXPECT_EQ(result, LiteralUtil::CreateR1<int32_t>({-9, -9, 1, -9, 2, -9}));
  XlaBuilder bad("pad");
  Pad(ConstantR1<int32_t>(&bad, {1}), ConstantR0<float>(&bad, 0), {{0, 0, 0}});
  EXPECT_THAT(bad.Build().status().message(),
              HasSubstr("element types of the operands to Pad do not match"));
}

TEST(PadTest, JitFusesItAndMatchesTheInterpreter) {
  for (const char* padding : {"0_0x0_0", "1_2x3_0", "2_1_1x0_2_3",
                              "-1_1x1_-2_1", "-2_-1_2x-3_-3_1", "0_0_4x-4_4"}) {
    const std::string probe = absl::StrCat(
        "HloModule m\nENTRY main {\n  x = f32[4,5] parameter(0)\n  v = f32[] "
        "parameter(1)\n  ROOT p = pad(x, v), padding=",
        padding, "\n}\n");
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> shaped,
                         ParseHloModule(probe));
    const std::string result =
        shaped->entry_computation()->root_instruction()->shape().ToString();
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY main {\n  x = f32[4,5] parameter(0)\n  y = "
        "f32[4,5] "
        "parameter(1)\n  v = f32[] parameter(2)\n  s = f32[4,5] add(x, y)\n  "
        "p = ",
        result, " pad(s, v), padding=", padding, "\n  ROOT e = ", result,
        " exponential(p)\n}\n");
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = bf16[6] parameter(0)
  v = bf16[] constant(-1)
  p = bf16[13] pad(x, v), padding=1_1_1
  ROOT n = bf16[13] negate(p)
})"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, {}));
  EXPECT_EQ(fused->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kFusion);
  std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 2);
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments)));
}

}  // namespace
}  // namespace mxla
