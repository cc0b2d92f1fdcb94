// The fusion pass: what becomes a fusion root, what is duplicated, what the
// entry keeps, and that fused modules verify, round-trip and evaluate to the
// same bits (hand-written cases and 1000 random graphs).
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/hlo_evaluator.h"
#include "ir/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "passes/fusion.h"
#include "passes/pass_registry.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::vector<HloInstruction*> EntryOf(const HloModule& module, HloOpcode opcode) {
  std::vector<HloInstruction*> found;
  for (HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    if (instruction->opcode() == opcode) found.push_back(instruction);
  }
  return found;
}

int64_t CountIn(const HloComputation& computation, HloOpcode opcode) {
  int64_t count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    count += instruction->opcode() == opcode;
  }
  return count;
}

// Fuses `text` and checks the invariants every fused module must keep.
std::unique_ptr<HloModule> Fuse(const std::string& text,
                                const std::vector<Literal>& arguments) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  if (!module.ok()) return nullptr;
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments) pointers.push_back(&argument);
  absl::StatusOr<Literal> before = EvaluateModule(**module, pointers);
  EXPECT_OK(before.status());
  absl::StatusOr<bool> changed = FusionPass().Run(**module);
  EXPECT_OK(changed.status());
  EXPECT_OK(VerifyModule(**module, VerifierMode::kLowered));
  std::string printed = (*module)->ToString();
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(printed);
  EXPECT_OK(reparsed.status());
  if (reparsed.ok()) EXPECT_EQ((*reparsed)->ToString(), printed);
  absl::StatusOr<Literal> after = EvaluateModule(**module, pointers);
  EXPECT_OK(after.status());
  if (before.ok() && after.ok()) EXPECT_EQ(*before, *after) << printed;
  absl::StatusOr<bool> again = FusionPass().Run(**module);
  EXPECT_OK(again.status());
  if (again.ok()) EXPECT_FALSE(*again) << "a second run changed " << printed;
  return std::move(*module);
}

Literal Iota(const Shape& shape) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.data<float>()[i] = 0.25f * i - 1;
  }
  return literal;
}

TEST(FusionTest, BiasReluIsOneLoopFusionWithItsBroadcasts) {
  std::vector<Literal> args;
  args.push_back(Iota(ShapeUtil::MakeShape(F32, {2, 3})));
  args.push_back(Iota(ShapeUtil::MakeShape(F32, {3})));
  auto module = Fuse(R"(HloModule bias_relu
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  vb = f32[2,3] broadcast(v), dimensions={1}
  sum = f32[2,3] add(x, vb)
  zero = f32[] constant(0)
  zb = f32[2,3] broadcast(zero), dimensions={}
  ROOT relu = f32[2,3] maximum(sum, zb)
})", args);
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(entry.instruction_count(), 3);
  HloInstruction* fusion = entry.root_instruction();
  ASSERT_EQ(fusion->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(fusion->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(CountIn(*fusion->to_apply(), HloOpcode::kBroadcast), 2);
  EXPECT_EQ(CountIn(*fusion->to_apply(), HloOpcode::kConstant), 1);
}

TEST(FusionTest, CheapOpsAreDuplicatedExpensiveOnesMaterialized) {
  std::vector<Literal> args;
  args.push_back(Iota(ShapeUtil::MakeShape(F32, {4})));
  auto module = Fuse(R"(HloModule dup
ENTRY main {
  x = f32[4] parameter(0)
  b = f32[4,3] broadcast(x), dimensions={0}
  e = f32[4,3] exponential(b)
  n = f32[4,3] negate(e)
  a = f32[4,3] add(e, b)
  ROOT t = (f32[4,3], f32[4,3]) tuple(n, a)
})", args);
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = EntryOf(*module, HloOpcode::kFusion);
  ASSERT_EQ(fusions.size(), 3u);  // exp, negate, add
  int64_t broadcasts = 0;
  for (const HloInstruction* fusion : fusions) {
    broadcasts += CountIn(*fusion->to_apply(), HloOpcode::kBroadcast);
    const HloInstruction* root = fusion->to_apply()->root_instruction();
    if (root->opcode() != HloOpcode::kExp) {
      // Consumers of the exponential read it as a parameter.
      EXPECT_EQ(CountIn(*fusion->to_apply(), HloOpcode::kExp), 0);
    }
  }
  EXPECT_EQ(broadcasts, 2);  // in exp's fusion and in add's fusion
}

TEST(FusionTest, SoftmaxHasInputFusionsForItsReductions) {
  std::vector<Literal> args;
  args.push_back(Iota(ShapeUtil::MakeShape(F32, {3, 5})));
  auto module = Fuse(R"(HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT mx = f32[] maximum(a, b)
}
add {
  c = f32[] parameter(0)
  d = f32[] parameter(1)
  ROOT sum = f32[] add(c, d)
}
ENTRY main {
  x = f32[3,5] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[3] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[3,5] broadcast(m), dimensions={0}
  sub = f32[3,5] subtract(x, mb)
  e = f32[3,5] exponential(sub)
  zero = f32[] constant(0)
  s = f32[3] reduce(e, zero), dimensions={1}, to_apply=add
  sb = f32[3,5] broadcast(s), dimensions={0}
  ROOT out = f32[3,5] divide(e, sb)
})", args);
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = EntryOf(*module, HloOpcode::kFusion);
  int64_t inputs = 0, loops = 0;
  for (const HloInstruction* fusion : fusions) {
    const HloInstruction* root = fusion->to_apply()->root_instruction();
    bool reduce = root->opcode() == HloOpcode::kReduce;
    EXPECT_EQ(fusion->fusion_kind(),
              reduce ? FusionKind::kInput : FusionKind::kLoop);
    inputs += reduce;
    loops += !reduce;
  }
  EXPECT_EQ(inputs, 2);
  // exp has two users (the sum and the divide): materialized once.
  EXPECT_EQ(loops, 2);
  EXPECT_NE(module->GetComputationWithName("max"), nullptr);
}

TEST(FusionTest, EntryKeepsArrayConstantsTuplesAndExistingFusions) {
  std::vector<Literal> args;
  args.push_back(Iota(ShapeUtil::MakeShape(F32, {2})));
  auto module = Fuse(R"(HloModule keep
neg {
  q = f32[2] parameter(0)
  ROOT nq = f32[2] negate(q)
}
ENTRY main {
  x = f32[2] parameter(0)
  c = f32[2] constant({3, 4})
  one = f32[] constant(1)
  ob = f32[2] broadcast(one), dimensions={}
  s = f32[2] add(x, c)
  p = f32[2] multiply(s, ob)
  f = f32[2] fusion(p), kind=kLoop, calls=neg
  ROOT t = (f32[2], f32[2], f32[]) tuple(f, x, one)
})", args);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(EntryOf(*module, HloOpcode::kConstant).size(), 2u);  // c, one
  EXPECT_EQ(EntryOf(*module, HloOpcode::kFusion).size(), 2u);
  EXPECT_NE(module->GetComputationWithName("neg"), nullptr);
}

TEST(FusionTest, ImplicitBroadcastsAreAPreconditionError) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT s = f32[2,3] add(x, v), broadcast_dimensions={1}
})"));
  EXPECT_THAT(FusionPass().Run(*module),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("fusion needs lowered HLO; run "
                                 "lower-broadcasts first: s = f32[2,3]")));
}

TEST(FusionTest, DeepChainsFuseWithoutRecursion) {
  std::string text = "HloModule deep\nENTRY main {\n  v0 = f32[8] parameter(0)\n";
  constexpr int kDepth = 100000;
  for (int i = 1; i <= kDepth; ++i) {
    absl::StrAppend(&text, i == kDepth ? "  ROOT " : "  ", "v", i,
                    " = f32[8] negate(v", i - 1, ")\n");
  }
  text += "}\n";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(bool changed, FusionPass().Run(*module));
  EXPECT_TRUE(changed);
  EXPECT_EQ(module->entry_computation()->instruction_count(), 2);
}

TEST(FusionTest, RandomGraphsFuseAndKeepTheirValues) {
  RandomGraphOptions options;
  options.element_types = {F32, S32, PRED, F64, S64};
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    ASSERT_OK_AND_ASSIGN(RandomGraph graph, GenerateRandomGraph(seed, options));
    std::unique_ptr<HloModule> module = graph.computation.CloneModule();
    ASSERT_OK(CreateDefaultPipeline({})->Run(*module).status());
    std::vector<Literal> args;
    for (const Literal& argument : graph.arguments) args.push_back(argument);
    std::unique_ptr<HloModule> fused = Fuse(module->ToString(), args);
    ASSERT_NE(fused, nullptr);
    for (const HloInstruction* instruction :
         fused->entry_computation()->instructions()) {
      HloOpcode opcode = instruction->opcode();
      EXPECT_TRUE(opcode == HloOpcode::kParameter ||
                  opcode == HloOpcode::kConstant ||
                  opcode == HloOpcode::kFusion ||
                  opcode == HloOpcode::kTuple ||
                  opcode == HloOpcode::kGetTupleElement)
          << graph.description << ": " << instruction->ToString();
    }
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << graph.description << "\n" << fused->ToString();
      return;
    }
  }
}

}  // namespace
}  // namespace mxla
