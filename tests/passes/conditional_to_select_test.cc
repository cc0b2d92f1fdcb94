// conditional-to-select: a conditional inside a map's computation becomes
// its inlined branches and selects (pred and s32 indices, out-of-range
// indices, tuples, nested conditionals), the JIT then runs the map and
// matches the interpreter, which runs the conditional itself; and what the
// pass must leave alone (a loop in a branch, a conditional outside maps).
#include "passes/conditional_to_select.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "passes/dce.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::Pointers;
using ::testing::HasSubstr;

int64_t CountOpcode(const HloModule& module, HloOpcode opcode) {
  int64_t count = 0;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      count += instruction->opcode() == opcode;
    }
  }
  return count;
}

// Runs the pass (and dce), checks the module still verifies, and returns
// whether it changed.
bool RunPass(HloModule& module) {
  absl::StatusOr<bool> changed = ConditionalToSelectPass().Run(module);
  EXPECT_OK(changed.status());
  EXPECT_OK(DcePass().Run(module).status());
  EXPECT_OK(VerifyModule(module, VerifierMode::kBuilder)) << module.ToString();
  return changed.value_or(false);
}

constexpr char kPredIndex[] = R"(HloModule pred_index
double_it {
  x = f32[] parameter(0)
  two = f32[] constant(2)
  ROOT y = f32[] multiply(x, two)
}
negate_it {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
body {
  x = f32[] parameter(0)
  zero = f32[] constant(0)
  positive = pred[] compare(x, zero), direction=GT
  ROOT c = f32[] conditional(positive, x, x), true_computation=double_it, false_computation=negate_it
}
ENTRY main {
  p = f32[6] parameter(0)
  ROOT m = f32[6] map(p), dimensions={0}, to_apply=body
}
)";

TEST(ConditionalToSelectTest, PredIndexBecomesSelectAndTheJitRunsTheMap) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kPredIndex));
  EXPECT_TRUE(RunPass(*module));
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kConditional), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kSelect), 1);
  EXPECT_FALSE(ConditionalToSelectPass().Run(*module).value());

  std::vector<Literal> arguments;
  arguments.push_back(LiteralUtil::CreateR1<float>({1.5f, -2, 0, -0.0f, 3, -4}));
  const Literal result = EvaluateAndCompare(kPredIndex, Pointers(arguments));
  EXPECT_EQ(result, LiteralUtil::CreateR1<float>({3, 2, -0.0f, 0, 6, 4}));
}

// Three branches on an s32 index, each with its own operand; indices out
// of [0, 3) run the last branch, as the conditional does.
constexpr char kS32Index[] = R"(HloModule s32_index
add_one {
  x = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT y = s32[] add(x, one)
}
times_ten {
  x = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT y = s32[] multiply(x, ten)
}
identity {
  ROOT x = s32[] parameter(0)
}
body {
  i = s32[] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT c = s32[] conditional(i, a, b, a), branch_computations={add_one, times_ten, identity}
}
ENTRY main {
  i = s32[7] parameter(0)
  a = s32[7] parameter(1)
  b = s32[7] parameter(2)
  ROOT m = s32[7] map(i, a, b), dimensions={0}, to_apply=body
}
)";

TEST(ConditionalToSelectTest, S32IndexSelectsItsBranchAndOutOfRangeTheLast) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kS32Index));
  EXPECT_TRUE(RunPass(*module));
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kConditional), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kSelect), 2);

  std::vector<Literal> arguments;
  arguments.push_back(LiteralUtil::CreateR1<int32_t>(
      {0, 1, 2, 3, -1, INT32_MIN, INT32_MAX}));
  arguments.push_back(LiteralUtil::CreateR1<int32_t>({5, 5, 5, 5, 5, 5, 5}));
  arguments.push_back(LiteralUtil::CreateR1<int32_t>({7, 7, 7, 7, 7, 7, 7}));
  const Literal result = EvaluateAndCompare(kS32Index, Pointers(arguments));
  EXPECT_EQ(result, LiteralUtil::CreateR1<int32_t>({6, 70, 5, 5, 5, 5, 5}));
}

// Branches taking and returning tuples, and a conditional nested in a
// branch: each leaf gets its own select, and the inner conditional, brought
// in by inlining its branch, is lowered too.
constexpr char kTuplesAndNesting[] = R"(HloModule tuples
swap {
  t = (f32[], s32[]) parameter(0)
  f = f32[] get-tuple-element(t), index=0
  s = s32[] get-tuple-element(t), index=1
  g = f32[] convert(s)
  u = s32[] convert(f)
  ROOT r = (f32[], s32[]) tuple(g, u)
}
small {
  x = f32[] parameter(0)
  ROOT y = f32[] floor(x)
}
large {
  x = f32[] parameter(0)
  ROOT y = f32[] ceil(x)
}
round_first {
  t = (f32[], s32[]) parameter(0)
  f = f32[] get-tuple-element(t), index=0
  s = s32[] get-tuple-element(t), index=1
  k = f32[] constant(0.5)
  lt = pred[] compare(f, k), direction=LT
  rounded = f32[] conditional(lt, f, f), true_computation=small, false_computation=large
  ROOT r = (f32[], s32[]) tuple(rounded, s)
}
body {
  x = f32[] parameter(0)
  n = s32[] parameter(1)
  t = (f32[], s32[]) tuple(x, n)
  zero = s32[] constant(0)
  use_swap = pred[] compare(n, zero), direction=LT
  c = (f32[], s32[]) conditional(use_swap, t, t), true_computation=swap, false_computation=round_first
  f = f32[] get-tuple-element(c), index=0
  s = s32[] get-tuple-element(c), index=1
  g = f32[] convert(s)
  ROOT sum = f32[] add(f, g)
}
ENTRY main {
  x = f32[6] parameter(0)
  n = s32[6] parameter(1)
  ROOT m = f32[6] map(x, n), dimensions={0}, to_apply=body
}
)";

TEST(ConditionalToSelectTest, TuplesLeafByLeafAndNestedConditionals) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kTuplesAndNesting));
  EXPECT_TRUE(RunPass(*module));
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kConditional), 0);
  // Two leaves of the outer conditional, one for the inner one.
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kSelect), 3);

  std::vector<Literal> arguments;
  arguments.push_back(
      LiteralUtil::CreateR1<float>({0.25f, 2.5f, -1.5f, 7.75f, 0.75f, -3}));
  arguments.push_back(LiteralUtil::CreateR1<int32_t>({1, 2, -3, -4, 0, 9}));
  const Literal result =
      EvaluateAndCompare(kTuplesAndNesting, Pointers(arguments));
  // n >= 0: round x (floor below 0.5, else ceil) plus n; n < 0: n + trunc(x).
  EXPECT_EQ(result, LiteralUtil::CreateR1<float>({1, 5, -4, 3, 1, 6}));
}

TEST(ConditionalToSelectTest, LeavesLoopsAndConditionalsOutsideMaps) {
  // A branch with a loop is not cheap to run speculatively: kept, and the
  // JIT's map inliner refuses it by name.
  constexpr char kLoopInBranch[] = R"(HloModule loop_in_branch
cond {
  s = f32[] parameter(0)
  k = f32[] constant(100)
  ROOT lt = pred[] compare(s, k), direction=LT
}
grow {
  s = f32[] parameter(0)
  ROOT d = f32[] add(s, s)
}
looping {
  x = f32[] parameter(0)
  ROOT w = f32[] while(x), condition=cond, body=grow
}
same {
  ROOT x = f32[] parameter(0)
}
body {
  x = f32[] parameter(0)
  zero = f32[] constant(0)
  positive = pred[] compare(x, zero), direction=GT
  ROOT c = f32[] conditional(positive, x, x), true_computation=looping, false_computation=same
}
ENTRY main {
  p = f32[4] parameter(0)
  outside = f32[4] negate(p)
  ROOT m = f32[4] map(outside), dimensions={0}, to_apply=body
}
)";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kLoopInBranch));
  EXPECT_FALSE(RunPass(*module));
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kConditional), 1);
  EXPECT_THAT(Compile(*module, {}).status().message(),
              HasSubstr("map 'm': the JIT runs a map whose computation is "
                        "elementwise, but 'c' (conditional) in 'body' is not"));

  // A conditional outside any map stays a conditional (the JIT runs it as
  // a branch).
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> entry, ParseHloModule(R"(
HloModule entry_conditional
double_it {
  x = f32[] parameter(0)
  ROOT y = f32[] add(x, x)
}
same {
  ROOT x = f32[] parameter(0)
}
ENTRY main {
  b = pred[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(b, x, x), true_computation=double_it, false_computation=same
}
)"));
  EXPECT_FALSE(RunPass(*entry));
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kConditional), 1);
}

}  // namespace
}  // namespace mxla
