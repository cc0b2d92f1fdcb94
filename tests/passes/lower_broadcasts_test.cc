// lower-broadcasts on every docs/broadcasting.md example and builder case: the
// lowered verifier holds, no broadcast_dimensions remain, and the evaluator
// gives bitwise identical results before and after (and the document's
// printed values).
#include <memory>

#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "passes/lower_broadcasts.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"
#include "tools/demo_examples.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;

TEST(LowerBroadcastsTest, DocumentExamplesKeepTheirValues) {
  for (const tools::DemoExample& example : tools::DemoExamples()) {
    SCOPED_TRACE(example.name);
    ASSERT_OK_AND_ASSIGN(XlaComputation computation, example.build());
    std::unique_ptr<HloModule> module = computation.CloneModule();
    ASSERT_OK_AND_ASSIGN(Literal before,
                         EvaluateModule(*module, Pointers(example.inputs)));
    LowerBroadcastsPass pass;
    ASSERT_OK_AND_ASSIGN(bool changed, pass.Run(*module));
    EXPECT_TRUE(changed);
    EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
    ASSERT_OK_AND_ASSIGN(Literal after,
                         EvaluateModule(*module, Pointers(example.inputs)));
    EXPECT_EQ(before, after) << before.ToString() << " vs " << after.ToString();
    if (example.expected.has_value()) {
      EXPECT_EQ(after, *example.expected) << after.ToString();
    }
    // A second run finds nothing to do.
    ASSERT_OK_AND_ASSIGN(bool again, pass.Run(*module));
    EXPECT_FALSE(again);
  }
}

TEST(LowerBroadcastsTest, IdentityBroadcastDimensionsAreDropped) {
  XlaBuilder b("identity");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  Add(x, x, {0, 1});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  std::unique_ptr<HloModule> module = computation.CloneModule();
  ASSERT_OK_AND_ASSIGN(bool changed, LowerBroadcastsPass().Run(*module));
  EXPECT_TRUE(changed);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_FALSE(root->broadcast_dimensions().has_value());
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(module->entry_computation()->instruction_count(), 2);
}

TEST(LowerBroadcastsTest, LowersInsideCalledComputations) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
sum_plus_one {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  p = f32[2,3] parameter(0)
  q = f32[3] parameter(1)
  ROOT prod = f32[2,3] multiply(p, q), broadcast_dimensions={1}
}
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  f = f32[2,3] fusion(x, v), kind=kLoop, calls=fused
  zero = f32[] constant(0)
  ROOT r = f32[2] reduce(f, zero), dimensions={1}, to_apply=sum_plus_one
})"));
  Literal x = LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal v = LiteralUtil::CreateR1<float>({1, 10, 100});
  ASSERT_OK_AND_ASSIGN(Literal before, EvaluateModule(*module, {&x, &v}));
  ASSERT_OK_AND_ASSIGN(bool changed, LowerBroadcastsPass().Run(*module));
  EXPECT_TRUE(changed);
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  ASSERT_OK_AND_ASSIGN(Literal after, EvaluateModule(*module, {&x, &v}));
  EXPECT_EQ(before, after);
  EXPECT_EQ(after, LiteralUtil::CreateR1<float>({321, 654}));
}

}  // namespace
}  // namespace mxla
