// inline-calls and `call` end to end: the pass leaves no call (nested calls
// included), copies the body with the call's operands as its parameters,
// and the JIT (which needs the calls gone) matches the interpreter (which
// evaluates them) bit for bit. Also inline-unplannable-fusions.
#include "passes/call_inliner.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "passes/dce.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;

constexpr char kNestedCalls[] = R"(HloModule nested_calls
square {
  x = f32[4] parameter(0)
  ROOT xx = f32[4] multiply(x, x)
}
first {
  x = f32[4] parameter(0)
  ROOT y = f32[4] parameter(1)
}
sum_of_squares {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  aa = f32[4] call(a), to_apply=square
  bb = f32[4] call(b), to_apply=square
  ROOT s = f32[4] add(aa, bb)
}
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  s = f32[4] call(p, q), to_apply=sum_of_squares
  passed = f32[4] call(p, s), to_apply=first
  ROOT r = f32[4] subtract(passed, p)
}
)";

TEST(CallInlinerTest, InlinesNestedCallsAndDceDropsTheCallees) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kNestedCalls));
  ASSERT_OK_AND_ASSIGN(bool changed, CallInlinerPass().Run(*module));
  EXPECT_TRUE(changed);
  ASSERT_OK(DcePass().Run(*module).status());
  EXPECT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  EXPECT_EQ(module->computations().size(), 1u) << module->ToString();
  const HloComputation& entry = *module->entry_computation();
  int64_t multiplies = 0;
  for (const HloInstruction* instruction : entry.instructions()) {
    EXPECT_NE(instruction->opcode(), HloOpcode::kCall);
    multiplies += instruction->opcode() == HloOpcode::kMultiply;
  }
  EXPECT_EQ(multiplies, 2);
  // `first` returned its second parameter: the subtract now reads the sum.
  const HloInstruction* root = entry.root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kParameter);
  ASSERT_OK_AND_ASSIGN(bool again, CallInlinerPass().Run(*module));
  EXPECT_FALSE(again);
}

TEST(CallInlinerTest, JitMatchesTheInterpreterThroughCalls) {
  EXPECT_TRUE(RunAndCompare(kNestedCalls));
}

TEST(CallInlinerTest, CallsMustMatchTheirComputation) {
  auto error = [](const std::string& call) {
    const std::string text = absl::StrCat(R"(HloModule bad
square {
  x = f32[4] parameter(0)
  ROOT xx = f32[4] multiply(x, x)
}
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[2] parameter(1)
  ROOT c = f32[4] )", call, R"(
})");
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) return std::string(module.status().message());
    return std::string(
        VerifyModule(**module, VerifierMode::kBuilder).message());
  };
  EXPECT_THAT(error("call(p, p), to_apply=square"),
              ::testing::HasSubstr(
                  "call: Call applied function arity must match number of "
                  "arguments; got: arity: 1, arguments: 2"));
  EXPECT_THAT(error("call(q), to_apply=square"),
              ::testing::HasSubstr(
                  "call: Call parameter must match argument; got parameter 0 "
                  "shape: f32[4], argument shape: f32[2]."));
  EXPECT_THAT(error("call(p)"),
              ::testing::HasSubstr("missing attribute 'to_apply'"));
}

// Fusions that come with the input and that mxla cannot emit as they are
// (a multi-output loop fusion; a fusion calling a fusion) are inlined and
// fused again by the JIT; a plannable one is kept.
TEST(CallInlinerTest, UnplannableInputFusionsAreRefused) {
  constexpr char kFusions[] = R"(HloModule input_fusions
two_outputs {
  a = f32[6,5] parameter(0)
  n = f32[6,5] negate(a)
  e = f32[6,5] exponential(a)
  ROOT t = (f32[6,5], f32[6,5]) tuple(n, e)
}
inner {
  b = f32[6,5] parameter(0)
  ROOT m = f32[6,5] multiply(b, b)
}
outer {
  c = f32[6,5] parameter(0)
  f = f32[6,5] fusion(c), kind=kLoop, calls=inner
  ROOT s = f32[6,5] add(f, c)
}
plain {
  d = f32[6,5] parameter(0)
  ROOT a = f32[6,5] abs(d)
}
ENTRY main {
  x = f32[6,5] parameter(0)
  two = (f32[6,5], f32[6,5]) fusion(x), kind=kLoop, calls=two_outputs
  g0 = f32[6,5] get-tuple-element(two), index=0
  g1 = f32[6,5] get-tuple-element(two), index=1
  nested = f32[6,5] fusion(g0), kind=kLoop, calls=outer
  kept = f32[6,5] fusion(g1), kind=kLoop, calls=plain
  ROOT r = f32[6,5] subtract(nested, kept)
}
)";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kFusions));
  ASSERT_OK_AND_ASSIGN(bool changed,
                       UnplannableFusionInlinerPass().Run(*module));
  EXPECT_TRUE(changed);
  // The plannable fusions stay, the one `outer` held included.
  std::vector<std::string> kept;
  for (const HloInstruction* instruction :
       module->entry_computation()->MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kFusion) {
      kept.push_back(instruction->to_apply()->name());
    }
  }
  EXPECT_THAT(kept, ::testing::UnorderedElementsAre("inner", "plain"))
      << module->ToString();
  EXPECT_TRUE(RunAndCompare(kFusions));
}

// kCustom fusions are another backend's (XLA:GPU's Triton and library
// calls, with their backend_config): they print back as such, their value
// is their computation's, and the JIT always inlines and re-fuses them.
TEST(CallInlinerTest, CustomFusionsAreInlined) {
  constexpr char kCustom[] = R"(HloModule custom_fusion
triton_gemm {
  a = bf16[8,16] parameter(0)
  b = bf16[16,4] parameter(1)
  ROOT d = bf16[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
plain {
  d = f32[8,4] parameter(0)
  ROOT a = f32[8,4] abs(d)
}
ENTRY main {
  x = bf16[8,16] parameter(0)
  y = bf16[16,4] parameter(1)
  g = bf16[8,4] fusion(x, y), kind=kCustom, calls=triton_gemm, backend_config={"fusion_backend_config":{"kind":"__triton_gemm"}}
  c = f32[8,4] convert(g)
  ROOT k = f32[8,4] fusion(c), kind=kLoop, calls=plain
}
)";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kCustom));
  EXPECT_THAT(module->ToString(),
              ::testing::HasSubstr("fusion(x, y), kind=kCustom, "
                                   "calls=triton_gemm"));
  ASSERT_OK_AND_ASSIGN(bool changed,
                       UnplannableFusionInlinerPass().Run(*module));
  EXPECT_TRUE(changed);
  std::vector<std::string> kept;
  for (const HloInstruction* instruction :
       module->entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kFusion) {
      kept.push_back(instruction->to_apply()->name());
    }
  }
  EXPECT_THAT(kept, ::testing::ElementsAre("plain"));
  EXPECT_TRUE(RunAndCompare(kCustom));
  EXPECT_THAT(ParseHloModule(absl::StrReplaceAll(
                                 kCustom, {{"kind=kCustom", "kind=kTriton"}}))
                  .status()
                  .message(),
              ::testing::HasSubstr("unknown fusion kind 'kTriton' (expected "
                                   "kLoop, kInput, kOutput or kCustom)"));
}

}  // namespace
}  // namespace mxla
