// The fusion pass: what becomes a fusion root, what is duplicated, what the
// entry keeps, and that fused modules verify, round-trip, evaluate to the
// same bits and are left alone by a second run (hand-written cases and
// random graphs).
#include "passes/fusion.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::StatusIs;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<HloInstruction*> EntryOf(const HloModule& module, HloOpcode op) {
  std::vector<HloInstruction*> found;
  for (HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    if (instruction->opcode() == op) found.push_back(instruction);
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

// The entry's fusion whose fused root has `opcode` (the first one).
HloInstruction* FusionOf(const HloModule& module, HloOpcode opcode) {
  for (HloInstruction* fusion : EntryOf(module, HloOpcode::kFusion)) {
    if (fusion->to_apply()->root_instruction()->opcode() == opcode) {
      return fusion;
    }
  }
  return nullptr;
}

// Fuses `text` and checks the invariants every fused module must keep.
std::unique_ptr<HloModule> Fuse(const std::string& text,
                                const std::vector<Literal>& arguments) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  if (!module.ok()) return nullptr;
  absl::StatusOr<Literal> before =
      EvaluateModule(**module, Pointers(arguments));
  EXPECT_OK(before.status());
  absl::StatusOr<bool> changed = FusionPass().Run(**module);
  EXPECT_OK(changed.status());
  EXPECT_OK(VerifyModule(**module, VerifierMode::kLowered));
  std::string printed = (*module)->ToString();
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(printed);
  EXPECT_OK(reparsed.status());
  if (reparsed.ok()) {
    EXPECT_EQ((*reparsed)->ToString(), printed);
  }
  absl::StatusOr<Literal> after = EvaluateModule(**module, Pointers(arguments));
  EXPECT_OK(after.status());
  if (before.ok() && after.ok()) {
    EXPECT_EQ(*before, *after) << printed;
  }
  absl::StatusOr<bool> again = FusionPass().Run(**module);
  EXPECT_OK(again.status());
  if (again.ok()) {
    EXPECT_FALSE(*again) << "a second run changed " << printed;
  }
  return std::move(*module);
}

Literal Iota(const Shape& shape) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.data<float>()[i] = 0.25f * i - 1;
  }
  return literal;
}

std::vector<Literal> F32Args(std::vector<std::vector<int64_t>> shapes) {
  std::vector<Literal> args;
  for (const auto& dims : shapes) {
    args.push_back(Iota(ShapeUtil::MakeShape(F32, dims)));
  }
  return args;
}

TEST(FusionTest, BiasReluIsOneLoopFusionWithItsBroadcasts) {
  auto module = Fuse(R"(HloModule bias_relu
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  vb = f32[2,3] broadcast(v), dimensions={1}
  sum = f32[2,3] add(x, vb)
  zero = f32[] constant(0)
  zb = f32[2,3] broadcast(zero), dimensions={}
  ROOT relu = f32[2,3] maximum(sum, zb)
})",
                     F32Args({{2, 3}, {3}}));
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(entry.instruction_count(), 3);
  HloInstruction* fusion = entry.root_instruction();
  ASSERT_EQ(fusion->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(fusion->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(CountIn(*fusion->to_apply(), HloOpcode::kBroadcast), 2);
  EXPECT_EQ(CountIn(*fusion->to_apply(), HloOpcode::kConstant), 1);
}

TEST(FusionTest, OperandsOnceEachInFirstUseOrderArrayConstantsIncluded) {
  auto module = Fuse(R"(HloModule order
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  c = f32[3] constant({1, 2, 3})
  m = f32[3] multiply(y, x)
  a = f32[3] add(x, m)
  ROOT s = f32[3] subtract(a, c)
})",
                     F32Args({{3}, {3}}));
  ASSERT_NE(module, nullptr);
  const HloInstruction* fusion =
      module->entry_computation()->root_instruction();
  ASSERT_EQ(fusion->opcode(), HloOpcode::kFusion);
  std::vector<std::string> names;
  for (const HloInstruction* operand : fusion->operands()) {
    names.push_back(operand->name());
  }
  EXPECT_THAT(names, ElementsAre("y", "x", "c"));
  EXPECT_EQ(fusion->to_apply()->parameter_instruction(0)->name(), "param_0");
}

TEST(FusionTest, CheapOpsAreDuplicatedExpensiveOnesMaterialized) {
  auto module = Fuse(R"(HloModule dup
ENTRY main {
  x = f32[4] parameter(0)
  b = f32[4,3] broadcast(x), dimensions={0}
  e = f32[4,3] exponential(b)
  n = f32[4,3] negate(e)
  a = f32[4,3] add(e, b)
  ROOT t = (f32[4,3], f32[4,3]) tuple(n, a)
})",
                     F32Args({{4}}));
  ASSERT_NE(module, nullptr);
  HloInstruction* exp = FusionOf(*module, HloOpcode::kExp);
  ASSERT_NE(exp, nullptr);
  EXPECT_EQ(EntryOf(*module, HloOpcode::kFusion).size(), 3u);
  for (HloOpcode root : {HloOpcode::kNegate, HloOpcode::kAdd}) {
    HloInstruction* fusion = FusionOf(*module, root);
    ASSERT_NE(fusion, nullptr);
    EXPECT_THAT(fusion->operands(), Contains(exp)) << module->ToString();
    EXPECT_EQ(CountIn(*fusion->to_apply(), HloOpcode::kExp), 0);
  }
  // The broadcast is recomputed where it is read: by exp and by add.
  EXPECT_EQ(CountIn(*exp->to_apply(), HloOpcode::kBroadcast), 1);
  EXPECT_EQ(CountIn(*FusionOf(*module, HloOpcode::kAdd)->to_apply(),
                    HloOpcode::kBroadcast),
            1);
}

// A value that combines two arrays its size is not duplicated into two
// fusions (each would read both again); one that reads one such array (a
// bias add) still is.
TEST(FusionTest, WideValuesReadByTwoFusionsAreMaterialized) {
  auto module = Fuse(R"(HloModule wide
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY main {
  x = f32[4,8] parameter(0)
  y = f32[4,8] parameter(1)
  v = f32[8] parameter(2)
  vb = f32[4,8] broadcast(v), dimensions={1}
  wide = f32[4,8] add(x, y)
  narrow = f32[4,8] multiply(x, vb)
  zero = f32[] constant(0)
  r1 = f32[4] reduce(wide, zero), dimensions={1}, to_apply=add
  r2 = f32[4] reduce(narrow, zero), dimensions={1}, to_apply=add
  e = f32[4,8] subtract(wide, narrow)
  ROOT t = (f32[4], f32[4], f32[4,8]) tuple(r1, r2, e)
})",
                     F32Args({{4, 8}, {4, 8}, {8}}));
  ASSERT_NE(module, nullptr);
  HloInstruction* wide = FusionOf(*module, HloOpcode::kAdd);
  ASSERT_NE(wide, nullptr) << module->ToString();
  HloInstruction* subtract = FusionOf(*module, HloOpcode::kSubtract);
  ASSERT_NE(subtract, nullptr);
  EXPECT_THAT(subtract->operands(), Contains(wide)) << module->ToString();
  // `narrow` is duplicated: recomputed by its reduce and by the subtract.
  EXPECT_EQ(CountIn(*subtract->to_apply(), HloOpcode::kMultiply), 1);
  EXPECT_EQ(CountIn(*subtract->to_apply(), HloOpcode::kAdd), 0);
}

// A residual stream, x <- x + f(x) read by two fusions per step, is
// materialized at every step: each step's fusions read a bounded number of
// operands instead of every earlier step's output.
TEST(FusionTest, ResidualChainsDoNotGrowTheirFusions) {
  std::string text = R"(HloModule residual
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY main {
  x0 = f32[4,8] parameter(0)
  zero = f32[] constant(0)
)";
  constexpr int kSteps = 12;
  for (int i = 0; i < kSteps; ++i) {
    absl::StrAppend(
        &text, "  r", i, " = f32[4] reduce(x", i,
        ", zero), dimensions={1}, to_apply=add\n", "  rb", i,
        " = f32[4,8] broadcast(r", i, "), dimensions={0}\n", "  f", i,
        " = f32[4,8] exponential(rb", i, ")\n", "  x", i + 1,
        " = f32[4,8] add(x", i, ", f", i, ")\n");
  }
  absl::StrAppend(&text, "  ROOT out = f32[4,8] negate(x", kSteps, ")\n}\n");
  auto module = Fuse(text, F32Args({{4, 8}}));
  ASSERT_NE(module, nullptr);
  for (HloInstruction* fusion : EntryOf(*module, HloOpcode::kFusion)) {
    EXPECT_LE(fusion->operand_count(), 2) << fusion->ToString();
  }
}

// XLA's rule: an expensive producer is not fused into a consumer that
// reuses its elements. Fused, each exp here would run once per row.
TEST(FusionTest, ExpensiveValueReadThroughAGrowingBroadcastIsMaterialized) {
  auto module = Fuse(R"(HloModule reuse
ENTRY main {
  x = f32[5,3] parameter(0)
  v = f32[3] parameter(1)
  e = f32[3] exponential(v)
  eb = f32[5,3] broadcast(e), dimensions={1}
  ROOT m = f32[5,3] multiply(x, eb)
})",
                     F32Args({{5, 3}, {3}}));
  ASSERT_NE(module, nullptr);
  ASSERT_EQ(EntryOf(*module, HloOpcode::kFusion).size(), 2u)
      << module->ToString();
  HloInstruction* exp = FusionOf(*module, HloOpcode::kExp);
  HloInstruction* multiply = FusionOf(*module, HloOpcode::kMultiply);
  ASSERT_NE(exp, nullptr);
  ASSERT_NE(multiply, nullptr);
  EXPECT_EQ(exp->shape(), ShapeUtil::MakeShape(F32, {3}));
  EXPECT_THAT(multiply->operands(), Contains(exp));
  EXPECT_EQ(CountIn(*multiply->to_apply(), HloOpcode::kExp), 0);
  EXPECT_EQ(CountIn(*multiply->to_apply(), HloOpcode::kBroadcast), 1);
}

// The reuse may be several fused users away: through cheap ops and
// reshapes, and into a root that is itself the broadcast. The value made a
// root ends the path of what it reads, so the log under it stays fused.
TEST(FusionTest, ReuseIsFoundThroughCheapUsersAndEndsAtNewRoots) {
  auto module = Fuse(R"(HloModule reuse_path
ENTRY main {
  x = f32[4,6] parameter(0)
  v = f32[2,3] parameter(1)
  l = f32[2,3] log(v)
  e = f32[2,3] exponential(l)
  n = f32[2,3] negate(e)
  r = f32[6] reshape(n)
  rb = f32[4,6] broadcast(r), dimensions={1}
  a = f32[4,6] add(x, rb)
  s = f32[6] sqrt(r)
  sb = f32[4,6] broadcast(s), dimensions={1}
  ROOT t = (f32[4,6], f32[4,6]) tuple(a, sb)
})",
                     F32Args({{4, 6}, {2, 3}}));
  ASSERT_NE(module, nullptr);
  HloInstruction* exp = FusionOf(*module, HloOpcode::kExp);
  HloInstruction* sqrt = FusionOf(*module, HloOpcode::kSqrt);
  HloInstruction* add = FusionOf(*module, HloOpcode::kAdd);
  HloInstruction* broadcast = FusionOf(*module, HloOpcode::kBroadcast);
  ASSERT_NE(exp, nullptr) << module->ToString();
  ASSERT_NE(sqrt, nullptr) << module->ToString();
  ASSERT_NE(add, nullptr);
  ASSERT_NE(broadcast, nullptr);
  EXPECT_EQ(EntryOf(*module, HloOpcode::kFusion).size(), 4u);
  EXPECT_EQ(CountIn(*exp->to_apply(), HloOpcode::kLog), 1);
  // negate and reshape are cheap: duplicated into both readers of exp.
  for (HloInstruction* reader : {add, sqrt}) {
    EXPECT_THAT(reader->operands(), Contains(exp));
    EXPECT_EQ(CountIn(*reader->to_apply(), HloOpcode::kExp), 0);
    EXPECT_EQ(CountIn(*reader->to_apply(), HloOpcode::kNegate), 1);
  }
  EXPECT_THAT(broadcast->operands(), ElementsAre(sqrt));
  EXPECT_EQ(CountIn(*broadcast->to_apply(), HloOpcode::kSqrt), 0);
}

// A transformer MLP: gelu between two dots. The second dot reads its lhs
// once per column block, so the tanh must not be recomputed there; the
// whole gelu (an elementwise function of the tanh, at its size) is
// materialized instead, and so becomes the first dot's epilogue: two
// kernels, with no separate tanh kernel between them.
TEST(FusionTest, GeluBetweenDotsIsTheFirstDotsEpilogue) {
  auto module = Fuse(R"(HloModule mlp
ENTRY main {
  x = f32[4,6] parameter(0)
  w1 = f32[6,8] parameter(1)
  w2 = f32[8,5] parameter(2)
  h = f32[4,8] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  half = f32[] constant(0.5)
  halves = f32[4,8] broadcast(half), dimensions={}
  one = f32[] constant(1)
  ones = f32[4,8] broadcast(one), dimensions={}
  cube = f32[4,8] multiply(h, h)
  cube3 = f32[4,8] multiply(cube, h)
  inner = f32[4,8] add(h, cube3)
  t = f32[4,8] tanh(inner)
  onet = f32[4,8] add(ones, t)
  hh = f32[4,8] multiply(halves, h)
  g = f32[4,8] multiply(hh, onet)
  ROOT y = f32[4,5] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                     F32Args({{4, 6}, {6, 8}, {8, 5}}));
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = EntryOf(*module, HloOpcode::kFusion);
  ASSERT_EQ(fusions.size(), 2u) << module->ToString();
  HloInstruction* first = FusionOf(*module, HloOpcode::kMultiply);
  ASSERT_NE(first, nullptr) << module->ToString();
  EXPECT_EQ(CountIn(*first->to_apply(), HloOpcode::kDot), 1);
  EXPECT_EQ(CountIn(*first->to_apply(), HloOpcode::kTanh), 1);
  HloInstruction* second = FusionOf(*module, HloOpcode::kDot);
  ASSERT_NE(second, nullptr);
  EXPECT_THAT(second->operands(), Contains(first));
  EXPECT_EQ(CountIn(*second->to_apply(), HloOpcode::kTanh), 0);
  EXPECT_EQ(CountIn(*second->to_apply(), HloOpcode::kMultiply), 0);
}

// A dot's bias add read only by a residual add that several fusions read
// (the residual stream): the residual add is materialized, and the bias
// add, read by nothing else, joins it, so the dot, its bias and the
// residual are one kernel.
TEST(FusionTest, BiasAddReadOnlyByAMaterializedResidualJoinsItsFusion) {
  auto module = Fuse(R"(HloModule residual_epilogue
ENTRY main {
  x = f32[4,6] parameter(0)
  a = f32[4,6] parameter(1)
  w = f32[6,6] parameter(2)
  b = f32[6] parameter(3)
  d = f32[4,6] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,6] broadcast(b), dimensions={1}
  biased = f32[4,6] add(d, bb)
  r = f32[4,6] add(x, biased)
  n = f32[4,6] negate(r)
  e = f32[4,6] exponential(r)
  ROOT t = (f32[4,6], f32[4,6]) tuple(n, e)
})",
                     F32Args({{4, 6}, {4, 6}, {6, 6}, {6}}));
  ASSERT_NE(module, nullptr);
  HloInstruction* residual = nullptr;
  for (HloInstruction* fusion : EntryOf(*module, HloOpcode::kFusion)) {
    if (CountIn(*fusion->to_apply(), HloOpcode::kDot) == 1) residual = fusion;
  }
  ASSERT_NE(residual, nullptr) << module->ToString();
  EXPECT_EQ(CountIn(*residual->to_apply(), HloOpcode::kAdd), 2)
      << module->ToString();
  EXPECT_EQ(EntryOf(*module, HloOpcode::kFusion).size(), 3u)
      << module->ToString();
}

// Cheap producers are still duplicated through broadcasts, and expensive
// ones still fuse where each element is read once: after a broadcast, or
// through one that only adds a size-1 dimension.
TEST(FusionTest, CheapOrUnreusedValuesStillFuse) {
  auto module = Fuse(R"(HloModule no_reuse
ENTRY main {
  x = f32[5,3] parameter(0)
  v = f32[3] parameter(1)
  n = f32[3] negate(v)
  nb = f32[5,3] broadcast(n), dimensions={1}
  vb = f32[5,3] broadcast(v), dimensions={1}
  e = f32[5,3] exponential(vb)
  a = f32[5,3] add(nb, e)
  m = f32[5,3] multiply(a, x)
  l = f32[3] log(v)
  lb = f32[1,3] broadcast(l), dimensions={1}
  ROOT t = (f32[5,3], f32[1,3]) tuple(m, lb)
})",
                     F32Args({{5, 3}, {3}}));
  ASSERT_NE(module, nullptr);
  ASSERT_EQ(EntryOf(*module, HloOpcode::kFusion).size(), 2u)
      << module->ToString();
  HloInstruction* multiply = FusionOf(*module, HloOpcode::kMultiply);
  HloInstruction* broadcast = FusionOf(*module, HloOpcode::kBroadcast);
  ASSERT_NE(multiply, nullptr);
  ASSERT_NE(broadcast, nullptr);
  EXPECT_EQ(CountIn(*multiply->to_apply(), HloOpcode::kNegate), 1);
  EXPECT_EQ(CountIn(*multiply->to_apply(), HloOpcode::kExp), 1);
  EXPECT_EQ(CountIn(*multiply->to_apply(), HloOpcode::kBroadcast), 2);
  EXPECT_EQ(CountIn(*broadcast->to_apply(), HloOpcode::kLog), 1);
}

TEST(FusionTest, SoftmaxHasInputFusionsForItsReductions) {
  const std::string reducers = fixtures::MaxAndAddReducers();
  auto module = Fuse(fixtures::Softmax(3, 5), F32Args({{3, 5}}));
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = EntryOf(*module, HloOpcode::kFusion);
  ASSERT_EQ(fusions.size(), 4u);  // max, exp (two users), sum, divide
  for (const HloInstruction* fusion : fusions) {
    bool reduce =
        fusion->to_apply()->root_instruction()->opcode() == HloOpcode::kReduce;
    EXPECT_EQ(fusion->fusion_kind(),
              reduce ? FusionKind::kInput : FusionKind::kLoop);
  }
  HloInstruction* exp = FusionOf(*module, HloOpcode::kExp);
  HloInstruction* divide = FusionOf(*module, HloOpcode::kDivide);
  ASSERT_NE(exp, nullptr);
  ASSERT_NE(divide, nullptr);
  // exp's fusion recomputes the max broadcast and subtract; the sum reads it.
  EXPECT_EQ(CountIn(*exp->to_apply(), HloOpcode::kSubtract), 1);
  // Operands come in the order the fused post order first reads them: the
  // broadcast of the sum is cloned before the divide reads exp.
  ASSERT_EQ(divide->operand_count(), 2);
  HloInstruction* sum = divide->mutable_operand(0);
  EXPECT_EQ(sum->fusion_kind(), FusionKind::kInput) << module->ToString();
  EXPECT_THAT(sum->operands(), ElementsAre(exp));
  EXPECT_EQ(CountIn(*sum->to_apply(), HloOpcode::kConstant), 1);  // init
  EXPECT_EQ(divide->operand(1), exp);
  // The reducers are untouched.
  ASSERT_OK_AND_ASSIGN(auto original,
                       ParseHloModule("HloModule r" + reducers +
                                      "\nENTRY e {\n  ROOT p = f32[] "
                                      "parameter(0)\n}\n"));
  for (const char* name : {"max_f32", "add_f32"}) {
    ASSERT_NE(module->GetComputationWithName(name), nullptr);
    EXPECT_EQ(module->GetComputationWithName(name)->ToString(),
              original->GetComputationWithName(name)->ToString());
  }
}

TEST(FusionTest, VariadicReduceUnderGetTupleElements) {
  auto module = Fuse(R"(HloModule argmax
argmax {
  acc_v = f32[] parameter(0)
  acc_i = s32[] parameter(1)
  cur_v = f32[] parameter(2)
  cur_i = s32[] parameter(3)
  gt = pred[] compare(cur_v, acc_v), direction=GT
  best_v = f32[] select(gt, cur_v, acc_v)
  best_i = s32[] select(gt, cur_i, acc_i)
  ROOT best = (f32[], s32[]) tuple(best_v, best_i)
}
ENTRY main {
  x = f32[2,4] parameter(0)
  nx = f32[2,4] negate(x)
  idx = s32[2,4] iota(), iota_dimension=1
  init_v = f32[] constant(-inf)
  init_i = s32[] constant(-1)
  r = (f32[2], s32[2]) reduce(nx, idx, init_v, init_i), dimensions={1}, to_apply=argmax
  v = f32[2] get-tuple-element(r), index=0
  i = s32[2] get-tuple-element(r), index=1
  ni = s32[2] negate(i)
  ROOT t = (f32[2], s32[2]) tuple(v, ni)
})",
                     F32Args({{2, 4}}));
  ASSERT_NE(module, nullptr);
  HloInstruction* reduce = FusionOf(*module, HloOpcode::kReduce);
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(reduce->operand_count(), 1);  // x; negate, iota, inits fused
  EXPECT_EQ(CountIn(*reduce->to_apply(), HloOpcode::kIota), 1);
  EXPECT_EQ(CountIn(*reduce->to_apply(), HloOpcode::kConstant), 2);
  EXPECT_EQ(EntryOf(*module, HloOpcode::kGetTupleElement).size(), 2u);
  HloInstruction* negate = FusionOf(*module, HloOpcode::kNegate);
  ASSERT_NE(negate, nullptr);
  EXPECT_EQ(negate->operand(0)->opcode(), HloOpcode::kGetTupleElement);
}

TEST(FusionTest, EntryKeepsArrayConstantsTuplesAndExistingFusions) {
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
})",
                     F32Args({{2}}));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(EntryOf(*module, HloOpcode::kConstant).size(), 2u);  // c, one
  HloInstruction* kept =
      module->entry_computation()->root_instruction()->mutable_operand(0);
  EXPECT_EQ(kept->name(), "f");
  EXPECT_EQ(kept->to_apply(), module->GetComputationWithName("neg"));
  // p becomes a fusion (it feeds an existing one) reading x and c.
  HloInstruction* p = kept->mutable_operand(0);
  ASSERT_EQ(p->opcode(), HloOpcode::kFusion);
  EXPECT_THAT(p->operands(),
              ElementsAre(EntryOf(*module, HloOpcode::kParameter)[0],
                          EntryOf(*module, HloOpcode::kConstant)[0]));
  EXPECT_EQ(CountIn(*p->to_apply(), HloOpcode::kConstant), 1);  // one
}

TEST(FusionTest, LeafRootsAndScalarConstantRoots) {
  auto iota = Fuse(
      "HloModule i\nENTRY main {\n"
      "  ROOT i = s32[4] iota(), iota_dimension=0\n}\n",
      {});
  ASSERT_NE(iota, nullptr);
  EXPECT_EQ(iota->entry_computation()->root_instruction()->operand_count(), 0);
  ASSERT_OK_AND_ASSIGN(
      auto scalar,
      ParseHloModule(
          "HloModule c\nENTRY main {\n  ROOT c = f32[] constant(2)\n}\n"));
  ASSERT_OK_AND_ASSIGN(bool changed, FusionPass().Run(*scalar));
  EXPECT_FALSE(changed);  // a scalar constant root stays a constant
}

TEST(FusionTest, ImplicitBroadcastsAreAPreconditionError) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT s = f32[2,3] add(x, v), broadcast_dimensions={1}
})"));
  std::string before = module->ToString();
  EXPECT_THAT(FusionPass().Run(*module),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("fusion needs lowered HLO; run "
                                 "lower-broadcasts first: s = f32[2,3]")));
  EXPECT_EQ(module->ToString(), before);
}

// A 100,000-negate chain fuses without recursion into kernels of at most
// kMaxFusedInstructions + 1 negates, each negate in exactly one of them.
TEST(FusionTest, DeepChainsFuseWithoutRecursionIntoBoundedKernels) {
  std::string text =
      "HloModule deep\nENTRY main {\n  v0 = f32[8] parameter(0)\n";
  constexpr int64_t kDepth = 100000;
  for (int64_t i = 1; i <= kDepth; ++i) {
    absl::StrAppend(&text, i == kDepth ? "  ROOT " : "  ", "v", i,
                    " = f32[8] negate(v", i - 1, ")\n");
  }
  text += "}\n";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(bool changed, FusionPass().Run(*module));
  EXPECT_TRUE(changed);
  int64_t fusions = 0, fused_negates = 0;
  for (const HloInstruction* instruction :
       module->entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    ++fusions;
    int64_t negates = CountIn(*instruction->to_apply(), HloOpcode::kNegate);
    EXPECT_LE(negates, kMaxFusedInstructions + 1);
    fused_negates += negates;
  }
  EXPECT_EQ(fused_negates, kDepth);
  EXPECT_EQ(fusions, (kDepth + kMaxFusedInstructions) / (kMaxFusedInstructions + 1));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
}

// A wide DAG whose cheap values are shared (v[i+1] = v[i] + v[i]) counts a
// shared operand once per path: fusions are cut early, never too big.
TEST(FusionTest, SharedOperandsStillBoundTheFusionSize) {
  std::string text =
      "HloModule doubling\nENTRY main {\n  v0 = f32[4] parameter(0)\n";
  constexpr int kDepth = 3000;
  for (int i = 1; i <= kDepth; ++i) {
    absl::StrAppend(&text, i == kDepth ? "  ROOT " : "  ", "v", i,
                    " = f32[4] add(v", i - 1, ", v", i - 1, ")\n");
  }
  text += "}\n";
  std::unique_ptr<HloModule> module = Fuse(text, F32Args({{4}}));
  ASSERT_NE(module, nullptr);
  for (const HloInstruction* instruction :
       module->entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    EXPECT_LE(CountIn(*instruction->to_apply(), HloOpcode::kAdd),
              2 * kMaxFusedInstructions + 1);
  }
}

// The structural invariants of a fused entry.
void CheckFusedEntry(const HloModule& module, const std::string& what) {
  for (const HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    HloOpcode opcode = instruction->opcode();
    // dot, convolution, reduce-window, map, rng, rng-bit-generator,
    // stochastic-convert,
    // cholesky and triangular-solve do not fuse (the JIT expands or inlines
    // them first: passes/dot_expander.h, passes/convolution_expander.h,
    // passes/reduce_window_expander.h, passes/map_inliner.h,
    // passes/rng_expander.h, passes/rng_bit_generator_expander.h,
    // passes/stochastic_convert_expander.h,
    // passes/cholesky_expander.h, passes/triangular_solve_expander.h); sort
    // and scatter run as steps of their own (IsSubprogramOp).
    EXPECT_TRUE(opcode == HloOpcode::kParameter ||
                opcode == HloOpcode::kConstant ||
                opcode == HloOpcode::kFusion || opcode == HloOpcode::kTuple ||
                opcode == HloOpcode::kGetTupleElement ||
                opcode == HloOpcode::kDot || opcode == HloOpcode::kMap ||
                opcode == HloOpcode::kConvolution ||
                opcode == HloOpcode::kReduceWindow ||
                opcode == HloOpcode::kRng ||
                opcode == HloOpcode::kRngBitGenerator ||
                opcode == HloOpcode::kCholesky ||
                opcode == HloOpcode::kTriangularSolve ||
                opcode == HloOpcode::kScaledDot ||
                opcode == HloOpcode::kStochasticConvert ||
                IsSubprogramOp(opcode))
        << what << ": " << instruction->ToString();
    if (opcode != HloOpcode::kFusion) continue;
    const HloComputation& fused = *instruction->to_apply();
    EXPECT_EQ(instruction->fusion_kind(),
              fused.root_instruction()->opcode() == HloOpcode::kReduce
                  ? FusionKind::kInput
              : FusedDot(fused) != nullptr ? FusionKind::kOutput
                                           : FusionKind::kLoop)
        << what << ": " << instruction->ToString();
  }
}

TEST(FusionTest, RandomGraphsFuseAndKeepTheirValues) {
  RandomGraphOptions options;
  options.element_types = {F32, S32, PRED, F64, S64};
  // 1000 small graphs, then 300 larger ones where values are shared more.
  for (auto [size, seeds] : {std::pair{12, 1000}, std::pair{40, 300}}) {
    options.max_instructions = size;
    for (uint64_t seed = 0; seed < static_cast<uint64_t>(seeds); ++seed) {
      ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                           GenerateRandomGraph(seed, options));
      CompileOptions optimize;
      optimize.backend = Backend::kInterpreter;
      ASSERT_OK_AND_ASSIGN(
          std::unique_ptr<HloModule> module,
          OptimizeForBackend(graph.computation.module(), optimize));
      std::unique_ptr<HloModule> fused =
          Fuse(module->ToString(), graph.arguments);
      ASSERT_NE(fused, nullptr) << graph.description;
      CheckFusedEntry(*fused, graph.description);
      if (::testing::Test::HasFailure()) {
        ADD_FAILURE() << "max_instructions " << size << ", "
                      << graph.description << "\n"
                      << fused->ToString();
        return;
      }
    }
  }
}

}  // namespace
}  // namespace mxla
