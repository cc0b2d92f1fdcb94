// CSE's hashing: instructions that differ in any compared attribute hash
// apart, so buckets hold only duplicates and the pass stays linear. The
// comparison count, not a timer, catches a hash that lumps values together
// (16,384 scalar constants cost 134 million comparisons when the literal
// was left out of the hash).
#include "passes/cse.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

constexpr int64_t kValues = 16384;

// An entry computation returning a tuple of `count` scalar constants
// (0, 1, ...), each made `copies` times.
std::unique_ptr<HloModule> Constants(int64_t count, int copies) {
  auto module = std::make_unique<HloModule>("constants");
  HloComputation* entry = module->AddComputation("main", true);
  std::vector<HloInstruction*> elements;
  for (int copy = 0; copy < copies; ++copy) {
    for (int64_t i = 0; i < count; ++i) {
      elements.push_back(entry->AddInstruction(HloInstruction::CreateConstant(
          LiteralUtil::CreateR0<float>(static_cast<float>(i)))));
    }
  }
  entry->set_root_instruction(
      entry->AddInstruction(HloInstruction::CreateTuple(elements)));
  return module;
}

TEST(CseHashTest, DistinctScalarConstantsNeedNoComparisons) {
  std::unique_ptr<HloModule> module = Constants(kValues, 1);
  CsePass cse;
  ASSERT_OK_AND_ASSIGN(bool changed, cse.Run(*module));
  EXPECT_FALSE(changed);
  EXPECT_EQ(cse.last_run_comparisons(), 0);
}

TEST(CseHashTest, EachDuplicateConstantIsComparedWithItsTwinOnly) {
  std::unique_ptr<HloModule> module = Constants(kValues, 2);
  CsePass cse;
  ASSERT_OK_AND_ASSIGN(bool changed, cse.Run(*module));
  EXPECT_TRUE(changed);
  EXPECT_EQ(cse.last_run_comparisons(), kValues);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  for (int64_t i = 0; i < kValues; ++i) {
    EXPECT_EQ(root->operand(i), root->operand(kValues + i));
  }
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
}

// 16,384 broadcasts of distinct constants into one chain, and the same
// broadcasts again: each second broadcast finds only its twin.
TEST(CseHashTest, BroadcastsOfDistinctOperandsHashApart) {
  std::string text = "HloModule b\nENTRY main {\n  x = f32[4] parameter(0)\n";
  std::string last = "x";
  for (int64_t i = 0; i < kValues; ++i) {
    const std::string n = std::to_string(i);
    text += "  c" + n + " = f32[] constant(" + n + ")\n";
    text += "  b" + n + " = f32[4] broadcast(c" + n + "), dimensions={}\n";
    text += "  d" + n + " = f32[4] broadcast(c" + n + "), dimensions={}\n";
    text += "  s" + n + " = f32[4] add(" + last + ", b" + n + ")\n";
    text += "  t" + n + " = f32[4] add(s" + n + ", d" + n + ")\n";
    last = "t" + n;
  }
  text += "  ROOT r = f32[4] negate(" + last + ")\n}\n";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(text));
  CsePass cse;
  ASSERT_OK_AND_ASSIGN(bool changed, cse.Run(*module));
  EXPECT_TRUE(changed);
  EXPECT_EQ(cse.last_run_comparisons(), kValues);
}

// Pairs of instructions that differ in exactly one compared attribute.
TEST(CseHashTest, EveryComparedAttributeChangesTheHash) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  v = f32[3] parameter(2)
  w = f32[2] parameter(3)
  zero = f32[] constant(0)
  negzero = f32[] constant(-0)
  one = f32[] constant(1)
  ione = s32[] constant(1)
  vec = f32[2] constant({1, 2})
  vec2 = f32[2] constant({2, 1})
  i0 = s32[2,3] iota(), iota_dimension=0
  i1 = s32[2,3] iota(), iota_dimension=1
  bv = f32[2,3] broadcast(v), dimensions={1}
  bw = f32[2,3] broadcast(w), dimensions={0}
  lt = pred[2,3] compare(x, y), direction=LT
  gt = pred[2,3] compare(x, y), direction=GT
  add = f32[2,3] add(x, y)
  addr = f32[2,3] add(y, x)
  sub = f32[2,3] subtract(x, y)
  t = (f32[2,3], f32[2]) tuple(x, w)
  g0 = f32[2,3] get-tuple-element(t), index=0
  tt = (f32[2,3], f32[2,3]) tuple(x, y)
  gt0 = f32[2,3] get-tuple-element(tt), index=0
  gt1 = f32[2,3] get-tuple-element(tt), index=1
  ROOT r = (f32[2,3]) tuple(x)
})"));
  auto get = [&](const std::string& name) -> const HloInstruction& {
    for (const HloInstruction* instruction :
         module->entry_computation()->instructions()) {
      if (instruction->name() == name) return *instruction;
    }
    ADD_FAILURE() << "no " << name;
    return *module->entry_computation()->root_instruction();
  };
  const std::pair<const char*, const char*> pairs[] = {
      {"x", "y"},     {"zero", "negzero"}, {"zero", "one"}, {"one", "ione"},
      {"vec", "vec2"}, {"i0", "i1"},       {"bv", "bw"},    {"lt", "gt"},
      {"add", "addr"}, {"add", "sub"},     {"gt0", "gt1"},  {"g0", "gt0"}};
  for (const auto& [a, b] : pairs) {
    EXPECT_NE(CseHash(get(a)), CseHash(get(b))) << a << " vs " << b;
    EXPECT_FALSE(get(a).IdenticalIgnoringName(get(b))) << a << " vs " << b;
  }
}

TEST(CseHashTest, IdenticalInstructionsHashAlike) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule m
ENTRY main {
  v = f32[3] parameter(0)
  a = f32[3] constant({1, nan, -0})
  b = f32[3] constant({1, nan, -0})
  ba = f32[2,3] broadcast(v), dimensions={1}
  bb = f32[2,3] broadcast(v), dimensions={1}
  ROOT r = (f32[3], f32[3], f32[2,3], f32[2,3]) tuple(a, b, ba, bb)
})"));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  for (int64_t i : {0, 2}) {
    ASSERT_TRUE(root->operand(i)->IdenticalIgnoringName(*root->operand(i + 1)));
    EXPECT_EQ(CseHash(*root->operand(i)), CseHash(*root->operand(i + 1)));
  }
}

}  // namespace
}  // namespace mxla
