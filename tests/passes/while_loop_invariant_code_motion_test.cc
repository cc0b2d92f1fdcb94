// while-loop-invariant-code-motion and while-loop-simplifier: what moves
// out of a loop (and what must stay), loops of 0 and 1 trips, invariant
// elements leaving the state; each rewrite evaluates bit for bit as the
// loop it replaces, on seeded arguments, in the interpreter and (through
// the default pipeline) the JIT. Also seeded random loops, and XLA's
// jax.b380442861 benchmark end to end when ../shared/real-hlo is there.
#include "passes/while_loop_invariant_code_motion.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/shape_util.h"
#include "passes/dce.h"
#include "passes/while_loop_simplifier.h"
#include "runtime/buffer_leaves.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

namespace fs = std::filesystem;
using ::mxla::testing::CompareLiterals;
using ::mxla::testing::MakeSeededArguments;
using ::mxla::testing::RunAndCompare;

// Runs `passes` (then dce) on a copy of `text`'s module and checks that
// the result verifies and evaluates to the same bits as the original on
// seeded arguments. Returns the rewritten module and whether a pass
// changed it.
struct Rewritten {
  std::unique_ptr<HloModule> module;
  bool changed = false;
};

Rewritten RewriteAndCheck(const std::string& text,
                          std::vector<HloPass*> passes, uint64_t seed = 1) {
  Rewritten out;
  absl::StatusOr<std::unique_ptr<HloModule>> original = ParseHloModule(text);
  EXPECT_OK(original.status());
  if (!original.ok()) return out;
  out.module = (*original)->Clone();
  for (HloPass* pass : passes) {
    absl::StatusOr<bool> changed = pass->Run(*out.module);
    EXPECT_OK(changed.status()) << pass->name();
    if (changed.ok()) out.changed |= *changed;
  }
  EXPECT_OK(DcePass().Run(*out.module).status());
  EXPECT_OK(VerifyModule(*out.module, VerifierMode::kBuilder))
      << out.module->ToString();
  std::vector<Literal> arguments = MakeSeededArguments(**original, seed);
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments) pointers.push_back(&argument);
  absl::StatusOr<Literal> before = EvaluateModule(**original, pointers);
  absl::StatusOr<Literal> after = EvaluateModule(*out.module, pointers);
  EXPECT_OK(before.status());
  EXPECT_OK(after.status());
  if (before.ok() && after.ok()) {
    EXPECT_TRUE(CompareLiterals(*before, *after, std::nullopt))
        << out.module->ToString();
  }
  return out;
}

Rewritten Hoist(const std::string& text, uint64_t seed = 1) {
  WhileLoopInvariantCodeMotionPass licm;
  return RewriteAndCheck(text, {&licm}, seed);
}

Rewritten Simplify(const std::string& text) {
  WhileLoopSimplifierPass simplifier;
  return RewriteAndCheck(text, {&simplifier});
}

int64_t Count(const HloComputation& computation, HloOpcode opcode) {
  int64_t count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    count += instruction->opcode() == opcode;
  }
  return count;
}

const HloInstruction* OnlyLoop(const HloModule& module) {
  const HloInstruction* loop = nullptr;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kWhile) continue;
      EXPECT_EQ(loop, nullptr) << "more than one while";
      loop = instruction;
    }
  }
  return loop;
}

// A loop of `trips` steps: acc += reduce(v * v) + i, where v never changes;
// `extra` goes into the body before its root, whose acc is `next_acc`.
std::string SumLoop(int64_t trips, const std::string& extra = "",
                    const std::string& next_acc = "next_acc") {
  return absl::StrReplaceAll(R"(HloModule sum_loop
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
body {
  state = (s32[], f32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  acc = f32[] get-tuple-element(state), index=1
  v = f32[64] get-tuple-element(state), index=2
  vv = f32[64] multiply(v, v)
  zero = f32[] constant(0)
  total = f32[] reduce(vv, zero), dimensions={0}, to_apply=sum
  fi = f32[] convert(i)
  step = f32[] add(total, fi)
  next_acc = f32[] add(acc, step)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  $EXTRA
  ROOT next = (s32[], f32[], f32[64]) tuple(next_i, $NEXT_ACC, v)
}
cond {
  state = (s32[], f32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant($TRIPS)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  v = f32[64] parameter(0)
  zero_i = s32[] constant(0)
  zero = f32[] constant(0)
  init = (s32[], f32[], f32[64]) tuple(zero_i, zero, v)
  loop = (s32[], f32[], f32[64]) while(init), condition=cond, body=body
  ROOT acc = f32[] get-tuple-element(loop), index=1
}
)",
                             {{"$TRIPS", std::to_string(trips)},
                              {"$EXTRA", extra},
                              {"$NEXT_ACC", next_acc}});
}

TEST(WhileLoopInvariantCodeMotionTest, HoistsTheReduceOfAnInvariantElement) {
  Rewritten out = Hoist(SumLoop(7));
  ASSERT_TRUE(out.changed);
  const HloInstruction* loop = OnlyLoop(*out.module);
  ASSERT_NE(loop, nullptr);
  const HloComputation& entry = *out.module->entry_computation();
  EXPECT_EQ(loop->parent(), &entry);
  // The reduce and its multiply run once, before the loop; the loop
  // carries their value as a fourth element.
  EXPECT_EQ(Count(entry, HloOpcode::kReduce), 1);
  EXPECT_EQ(Count(entry, HloOpcode::kMultiply), 1);
  const HloComputation& body = *loop->called_computations()[1];
  const HloComputation& condition = *loop->called_computations()[0];
  EXPECT_EQ(Count(body, HloOpcode::kReduce), 0);
  EXPECT_EQ(Count(body, HloOpcode::kMultiply), 0);
  EXPECT_EQ(body.name(), "body.licm");
  EXPECT_EQ(condition.name(), "cond.licm");
  ASSERT_EQ(loop->shape().tuple_shapes().size(), 4u);
  EXPECT_EQ(loop->shape().tuple_shapes(3).ToString(), "f32[]");
  EXPECT_EQ(condition.parameter_instruction(0)->shape(), loop->shape());
  // The new element passes through the body unchanged.
  const HloInstruction* passed = body.root_instruction()->operand(3);
  EXPECT_EQ(passed->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(passed->tuple_index(), 3);
  // Nothing is left to hoist.
  ASSERT_OK_AND_ASSIGN(bool again,
                       WhileLoopInvariantCodeMotionPass().Run(*out.module));
  EXPECT_FALSE(again);
}

TEST(WhileLoopInvariantCodeMotionTest, TheCallerSeesTheOldElements) {
  // The loop is the root: the module still returns its three elements.
  Rewritten out = Hoist(absl::StrReplaceAll(
      SumLoop(3), {{"  loop = (s32[], f32[], f32[64]) while",
                    "  ROOT loop = (s32[], f32[], f32[64]) while"},
                   {"  ROOT acc = f32[] get-tuple-element(loop), index=1\n",
                    ""}}));
  ASSERT_TRUE(out.changed);
  const HloInstruction* root = out.module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kTuple);
  EXPECT_EQ(root->shape().ToString(), "(s32[], f32[], f32[64])");
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(root->operand(i)->opcode(), HloOpcode::kGetTupleElement);
    EXPECT_EQ(root->operand(i)->tuple_index(), i);
    EXPECT_EQ(root->operand(i)->operand(0)->opcode(), HloOpcode::kWhile);
  }
}

TEST(WhileLoopInvariantCodeMotionTest, KeepsWorkOnTheCounter) {
  // The reduce reads v * i: it changes every trip.
  const std::string text = absl::StrReplaceAll(
      SumLoop(5), {{"vv = f32[64] multiply(v, v)",
                    "fiv = f32[] convert(i)\n"
                    "  fi64 = f32[64] broadcast(fiv), dimensions={}\n"
                    "  vv = f32[64] multiply(v, fi64)"}});
  Rewritten out = Hoist(text);
  EXPECT_FALSE(out.changed) << out.module->ToString();
}

TEST(WhileLoopInvariantCodeMotionTest, KeepsWorkOnAnElementTheBodyChanges) {
  // v is replaced by v + 1 each trip, so reduce(v * v) is not invariant.
  const std::string text = absl::StrReplaceAll(
      SumLoop(5),
      {{"tuple(next_i, next_acc, v)", "tuple(next_i, next_acc, v1)"},
       {"next_i = s32[] add(i, one)",
        "next_i = s32[] add(i, one)\n  c1 = f32[] constant(1)\n"
        "  b1 = f32[64] broadcast(c1), dimensions={}\n"
        "  v1 = f32[64] add(v, b1)"}});
  Rewritten out = Hoist(text);
  EXPECT_FALSE(out.changed) << out.module->ToString();
}

TEST(WhileLoopInvariantCodeMotionTest, KeepsSideEffectsAndWhatTheyCompute) {
  // An rng of invariant bounds is not hoisted, nor work on its numbers.
  const std::string text = absl::StrReplaceAll(
      SumLoop(5),
      {{"vv = f32[64] multiply(v, v)",
        "lo = f32[] constant(0)\n  hi = f32[] constant(1)\n"
        "  r = f32[64] rng(lo, hi), distribution=rng_uniform\n"
        "  vv = f32[64] multiply(r, r)"}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_OK(module.status());
  ASSERT_OK_AND_ASSIGN(bool changed,
                       WhileLoopInvariantCodeMotionPass().Run(**module));
  EXPECT_FALSE(changed) << (*module)->ToString();
}

TEST(WhileLoopInvariantCodeMotionTest, HoistsPureWorkBesideAnOutfeed) {
  // The outfeed stays (once per trip); the reduce it sends moves out.
  const std::string text = SumLoop(4,
                                   "t = token[] after-all()\n"
                                   "  o = token[] outfeed(total, t)");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_OK(module.status());
  ASSERT_OK_AND_ASSIGN(bool changed,
                       WhileLoopInvariantCodeMotionPass().Run(**module));
  ASSERT_TRUE(changed);
  ASSERT_OK(DcePass().Run(**module).status());
  EXPECT_OK(VerifyModule(**module, VerifierMode::kBuilder));
  const HloInstruction* loop = OnlyLoop(**module);
  ASSERT_NE(loop, nullptr);
  const HloComputation& body = *loop->called_computations()[1];
  EXPECT_EQ(Count(body, HloOpcode::kOutfeed), 1);
  EXPECT_EQ(Count(body, HloOpcode::kReduce), 0);
  EXPECT_EQ(Count(*(*module)->entry_computation(), HloOpcode::kOutfeed), 0);
}

TEST(WhileLoopInvariantCodeMotionTest, LeavesCheapOpsThatOnlyGrowTheState) {
  // broadcast(v[0]) and a reshape are invariant but worth nothing alone.
  const std::string text = absl::StrReplaceAll(
      SumLoop(5),
      {{"vv = f32[64] multiply(v, v)",
        "s = f32[1] slice(v), slice={[0:1]}\n"
        "  sr = f32[] reshape(s)\n"
        "  sb = f32[64] broadcast(sr), dimensions={}\n"
        "  acc64 = f32[64] broadcast(acc), dimensions={}\n"
        "  vv = f32[64] multiply(sb, acc64)"}});
  Rewritten out = Hoist(text);
  EXPECT_FALSE(out.changed) << out.module->ToString();
}

TEST(WhileLoopInvariantCodeMotionTest, LeavesLoopsOfAtMostOneTrip) {
  for (int64_t trips : {0, 1}) {
    Rewritten out = Hoist(SumLoop(trips));
    EXPECT_FALSE(out.changed) << trips;
  }
  EXPECT_TRUE(Hoist(SumLoop(2)).changed);
}

TEST(WhileLoopInvariantCodeMotionTest, MalformedLoopsAreLeftAlone) {
  // A while without computations, as a broken pass could leave one: the
  // pass does not touch it (the verifier reports it), and does not crash.
  HloModule module("m");
  HloComputation* entry = module.AddComputation("main", true);
  HloInstruction* zero = entry->AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<float>(0)));
  HloInstruction* init =
      entry->AddInstruction(HloInstruction::CreateTuple({zero}));
  HloInstruction* loop = entry->AddInstruction(
      HloInstruction::CreateGeneric(HloOpcode::kWhile, init->shape(), {init}));
  entry->set_root_instruction(loop);
  ASSERT_OK_AND_ASSIGN(bool changed,
                       WhileLoopInvariantCodeMotionPass().Run(module));
  EXPECT_FALSE(changed);
  ASSERT_OK_AND_ASSIGN(changed, WhileLoopSimplifierPass().Run(module));
  EXPECT_FALSE(changed);
}

TEST(WhileLoopInvariantCodeMotionTest, JitMatchesTheInterpreter) {
  // Through the default pipeline, which runs both passes: the JIT compiles
  // the new body (a computation the input does not have).
  EXPECT_TRUE(RunAndCompare(SumLoop(6)));
  EXPECT_TRUE(RunAndCompare(SumLoop(0)));
  EXPECT_TRUE(RunAndCompare(SumLoop(1)));
  // The interpreter's pipeline (no fusion to hide the reduce in).
  CompileOptions options;
  options.backend = Backend::kInterpreter;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(SumLoop(6)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> optimized,
                       OptimizeForBackend(*module, options));
  const HloInstruction* loop = OnlyLoop(*optimized);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(Count(*loop->called_computations()[1], HloOpcode::kReduce), 0)
      << optimized->ToString();
  EXPECT_EQ(Count(*optimized->entry_computation(), HloOpcode::kReduce), 1)
      << optimized->ToString();
}

// --- while-loop-simplifier ---

TEST(WhileLoopSimplifierTest, ALoopOfNoTripsIsItsInit) {
  Rewritten out = Simplify(SumLoop(0));
  EXPECT_TRUE(out.changed);
  EXPECT_EQ(OnlyLoop(*out.module), nullptr) << out.module->ToString();
}

TEST(WhileLoopSimplifierTest, ALoopOfOneTripIsItsBody) {
  Rewritten out = Simplify(SumLoop(1));
  EXPECT_TRUE(out.changed);
  EXPECT_EQ(OnlyLoop(*out.module), nullptr) << out.module->ToString();
  EXPECT_EQ(Count(*out.module->entry_computation(), HloOpcode::kReduce), 1);
}

TEST(WhileLoopSimplifierTest, CountsDownAndAcrossTypes) {
  // i from 10 down while i > 9 (one trip), u8 counters that wrap.
  const std::string down = absl::StrReplaceAll(
      SumLoop(9), {{"zero_i = s32[] constant(0)", "zero_i = s32[] constant(10)"},
                   {"next_i = s32[] add(i, one)",
                    "next_i = s32[] subtract(i, one)"},
                   {"direction=LT", "direction=GT"}});
  Rewritten out = Simplify(down);
  EXPECT_TRUE(out.changed);
  EXPECT_EQ(OnlyLoop(*out.module), nullptr);
  // i > 5 from 250 in steps of 10: 260 wraps to 4 in u8, one trip.
  std::string wraps = absl::StrReplaceAll(SumLoop(5), {{"s32", "u8"}});
  wraps = absl::StrReplaceAll(
      wraps, {{"zero_i = u8[] constant(0)", "zero_i = u8[] constant(250)"},
              {"one = u8[] constant(1)", "one = u8[] constant(10)"},
              {"direction=LT", "direction=GT"}});
  out = Simplify(wraps);
  EXPECT_TRUE(out.changed);
  EXPECT_EQ(OnlyLoop(*out.module), nullptr) << out.module->ToString();
}

TEST(WhileLoopSimplifierTest, KeepsLoopsOfTwoTripsAndSideEffectsOfOne) {
  Rewritten two = Simplify(SumLoop(2));
  ASSERT_NE(OnlyLoop(*two.module), nullptr);
  // An outfeed in a body of one trip: the loop stays.
  const std::string text = SumLoop(1,
                                   "t = token[] after-all()\n"
                                   "  o = token[] outfeed(total, t)");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_OK(module.status());
  ASSERT_OK_AND_ASSIGN(bool changed, WhileLoopSimplifierPass().Run(**module));
  EXPECT_FALSE(changed);
}

TEST(WhileLoopSimplifierTest, InvariantElementsLeaveTheState) {
  // Element 2 is an iota read by a dynamic-slice (fusible): it is
  // regenerated in the body. Element 3 is passed on and never read.
  const std::string text = R"(HloModule narrow
body {
  state = (s32[], s32[], s32[1000], f32[8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  acc = s32[] get-tuple-element(state), index=1
  table = s32[1000] get-tuple-element(state), index=2
  unused = f32[8] get-tuple-element(state), index=3
  x = s32[1] dynamic-slice(table, i), dynamic_slice_sizes={1}
  xs = s32[] reshape(x)
  next_acc = s32[] add(acc, xs)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], s32[], s32[1000], f32[8]) tuple(next_i, next_acc, table, unused)
}
cond {
  state = (s32[], s32[], s32[1000], f32[8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(37)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  p = f32[8] parameter(0)
  zero = s32[] constant(0)
  table = s32[1000] iota(), iota_dimension=0
  init = (s32[], s32[], s32[1000], f32[8]) tuple(zero, zero, table, p)
  loop = (s32[], s32[], s32[1000], f32[8]) while(init), condition=cond, body=body
  acc = s32[] get-tuple-element(loop), index=1
  rest = f32[8] get-tuple-element(loop), index=3
  ROOT r = (s32[], f32[8]) tuple(acc, rest)
}
)";
  Rewritten out = Simplify(text);
  ASSERT_TRUE(out.changed);
  const HloInstruction* loop = OnlyLoop(*out.module);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->shape().ToString(), "(s32[], s32[])");
  const HloComputation& body = *loop->called_computations()[1];
  EXPECT_EQ(body.name(), "body.simplified");
  EXPECT_EQ(Count(body, HloOpcode::kIota), 1);
  EXPECT_TRUE(RunAndCompare(text));
  // A dot reading the iota is not fusible: it stays in the state.
  const std::string dot = absl::StrReplaceAll(
      text, {{"x = s32[1] dynamic-slice(table, i), dynamic_slice_sizes={1}\n"
              "  xs = s32[] reshape(x)",
              "xs = s32[] dot(table, table), lhs_contracting_dims={0}, "
              "rhs_contracting_dims={0}"}});
  out = Simplify(dot);
  ASSERT_TRUE(out.changed);  // element 3 still leaves
  loop = OnlyLoop(*out.module);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->shape().ToString(), "(s32[], s32[], s32[1000])");
}

TEST(WhileLoopSimplifierTest, ALoopThatMayNotEndStaysAlive) {
  // The counter never moves: the loop never ends. Its elements are
  // invariant, but the root must still read the loop, not the init.
  const std::string text = R"(HloModule endless
body {
  p = (u32[], f32[1]) parameter(0)
  t0 = u32[] get-tuple-element(p), index=0
  t1 = f32[1] get-tuple-element(p), index=1
  ROOT next = (u32[], f32[1]) tuple(t0, t1)
}
cond {
  p = (u32[], f32[1]) parameter(0)
  count = u32[] get-tuple-element(p), index=0
  ub = u32[] constant(2)
  ROOT lt = pred[] compare(count, ub), direction=LT
}
ENTRY main {
  x = f32[1] parameter(0)
  one = u32[] constant(1)
  init = (u32[], f32[1]) tuple(one, x)
  loop = (u32[], f32[1]) while(init), condition=cond, body=body
  ROOT r = f32[1] get-tuple-element(loop), index=1
}
)";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(bool changed, WhileLoopSimplifierPass().Run(*module));
  EXPECT_TRUE(changed);  // the constant counter is sunk
  ASSERT_OK(DcePass().Run(*module).status());
  EXPECT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  const HloInstruction* loop = OnlyLoop(*module);
  ASSERT_NE(loop, nullptr) << module->ToString();
  EXPECT_EQ(loop->shape().ToString(), "(f32[1])");
  EXPECT_EQ(module->entry_computation()->root_instruction()->operand(0),
            loop);
}

TEST(WhileLoopSimplifierTest, SinksConstantElements) {
  const std::string text = absl::StrReplaceAll(
      SumLoop(4), {{"init = (s32[], f32[], f32[64]) tuple(zero_i, zero, v)",
                    "c = f32[64] constant({...})\n"
                    "  init = (s32[], f32[], f32[64]) tuple(zero_i, zero, c)"}});
  std::string constant = "{";
  for (int i = 0; i < 64; ++i) absl::StrAppend(&constant, i ? ", " : "", i);
  constant += "}";
  Rewritten out = Simplify(absl::StrReplaceAll(text, {{"{...}", constant}}));
  ASSERT_TRUE(out.changed);
  const HloInstruction* loop = OnlyLoop(*out.module);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->shape().ToString(), "(s32[], f32[])");
}

// --- seeded random loops ---

// A loop over (i, acc: f32[8], a: f32[8], b: f32[8]) whose body computes a
// random graph of elementwise ops and reductions from the state, constants
// and the counter; acc gets the last value, a and b pass through (or b is
// replaced, in one loop of three).
std::string RandomLoop(std::mt19937_64& rng) {
  std::vector<std::string> values = {"acc", "a", "b", "c2", "fi"};
  std::string body;
  const char* binary[] = {"add", "multiply", "subtract", "maximum"};
  const char* unary[] = {"negate", "exponential", "tanh", "abs"};
  const int ops = 3 + rng() % 8;
  for (int k = 0; k < ops; ++k) {
    const std::string name = absl::StrCat("t", k);
    const std::string& x = values[rng() % values.size()];
    const std::string& y = values[rng() % values.size()];
    switch (rng() % 3) {
      case 0:
        absl::StrAppend(&body, "  ", name, " = f32[8] ", binary[rng() % 4],
                        "(", x, ", ", y, ")\n");
        break;
      case 1:
        absl::StrAppend(&body, "  ", name, " = f32[8] ", unary[rng() % 4],
                        "(", x, ")\n");
        break;
      default:
        absl::StrAppend(&body, "  ", name, "r = f32[] reduce(", x,
                        ", zero), dimensions={0}, to_apply=sum\n  ", name,
                        " = f32[8] broadcast(", name, "r), dimensions={}\n");
        break;
    }
    values.push_back(name);
  }
  const bool replace_b = rng() % 3 == 0;
  const int64_t trips = rng() % 6;
  return absl::StrCat(R"(HloModule random_loop
sum {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
body {
  state = (s32[], f32[8], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  acc = f32[8] get-tuple-element(state), index=1
  a = f32[8] get-tuple-element(state), index=2
  b = f32[8] get-tuple-element(state), index=3
  zero = f32[] constant(0)
  half = f32[] constant(0.5)
  c2 = f32[8] broadcast(half), dimensions={}
  fis = f32[] convert(i)
  fi = f32[8] broadcast(fis), dimensions={}
)",
                      body, R"(  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], f32[8], f32[8], f32[8]) tuple(next_i, )",
                      values.back(), ", a, ", replace_b ? "acc" : "b",
                      R"()
}
cond {
  state = (s32[], f32[8], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant()",
                      trips, R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  acc = f32[8] parameter(0)
  a = f32[8] parameter(1)
  b = f32[8] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[8], f32[8], f32[8]) tuple(zero, acc, a, b)
  ROOT loop = (s32[], f32[8], f32[8], f32[8]) while(init), condition=cond, body=body
}
)");
}

TEST(WhileLoopInvariantCodeMotionTest, RandomLoopsKeepTheirBits) {
  std::mt19937_64 rng(20261128);
  int hoisted = 0, simplified = 0;
  for (int n = 0; n < 60; ++n) {
    const std::string text = RandomLoop(rng);
    SCOPED_TRACE(text);
    WhileLoopInvariantCodeMotionPass licm;
    WhileLoopSimplifierPass simplifier;
    hoisted += Hoist(text, n).changed;
    simplified += RewriteAndCheck(text, {&licm, &simplifier}, n).changed;
    if (n % 10 == 0) {
      // exp and tanh may round differently in the JIT.
      testing::RunAndCompareOptions options;
      options.error = testing::ErrorSpec{1e-5, 1e-5};
      EXPECT_TRUE(RunAndCompare(text, options));
    }
  }
  // The generator makes both kinds of loop: the test exercises the rewrite.
  EXPECT_GT(hoisted, 5);
  EXPECT_LT(hoisted, 60);
  EXPECT_GE(simplified, hoisted);
}

// --- XLA's jax.b380442861 benchmark ---

// ../shared/real-hlo/modules, found from the source directory upwards, or
// MXLA_REAL_HLO; empty when absent.
std::string RealHloModules() {
  if (const char* dir = std::getenv("MXLA_REAL_HLO")) return dir;
  for (fs::path dir = MXLA_SOURCE_DIR;; dir = dir.parent_path()) {
    const fs::path modules = dir / "shared" / "real-hlo" / "modules";
    if (fs::is_directory(modules)) return modules.string();
    if (dir == dir.parent_path()) return "";
  }
}

// XLA's modules with while loops (its own tests of these passes among
// them): both passes, then dce, leave a module that verifies and evaluates
// to the same bits as the original, wherever the original evaluates on
// seeded arguments (of at most 4M elements) within 100 trips per loop.
TEST(WhileLoopInvariantCodeMotionTest, RealModulesKeepTheirBits) {
  const std::string dir = RealHloModules();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/real-hlo/modules";
  EvaluatorOptions options;
  options.max_loop_trips = 100;
  options.memory_limit_bytes = int64_t{1} << 30;
  int compared = 0, rewritten = 0;
  std::vector<fs::path> paths;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& path : paths) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find(" while(") == std::string::npos) continue;
    absl::StatusOr<std::unique_ptr<HloModule>> original =
        ParseHloModule(text.str());
    if (!original.ok() ||
        !VerifyModule(**original, VerifierMode::kBuilder).ok()) {
      continue;
    }
    SCOPED_TRACE(path.filename().string());
    std::unique_ptr<HloModule> module = (*original)->Clone();
    bool changed = false;
    WhileLoopInvariantCodeMotionPass licm;
    WhileLoopSimplifierPass simplifier;
    for (HloPass* pass : std::vector<HloPass*>{&licm, &simplifier}) {
      absl::StatusOr<bool> result = pass->Run(*module);
      ASSERT_OK(result.status());
      changed |= *result;
    }
    ASSERT_OK(DcePass().Run(*module).status());
    ASSERT_OK(VerifyModule(*module, VerifierMode::kBuilder))
        << module->ToString();
    if (!changed) continue;
    ++rewritten;
    // Not the models with gigabytes of parameters (gemma2's 2.6 billion).
    int64_t argument_elements = 0;
    for (const HloInstruction* parameter :
         (*original)->entry_computation()->parameter_instructions()) {
      ForEachArrayLeaf(parameter->shape(), [&](const Shape& leaf) {
        argument_elements += ShapeUtil::ElementsIn(leaf);
      });
    }
    if (argument_elements > (int64_t{1} << 22)) continue;
    std::vector<Literal> arguments = MakeSeededArguments(**original, 7);
    std::vector<const Literal*> pointers;
    for (const Literal& argument : arguments) pointers.push_back(&argument);
    absl::StatusOr<Literal> before =
        EvaluateModule(**original, pointers, options);
    if (!before.ok()) continue;
    ASSERT_OK_AND_ASSIGN(Literal after,
                         EvaluateModule(*module, pointers, options));
    EXPECT_TRUE(CompareLiterals(*before, after, std::nullopt))
        << module->ToString();
    ++compared;
  }
  EXPECT_GT(rewritten, 10);
  EXPECT_GT(compared, 5);
  std::cout << rewritten << " modules rewritten, " << compared
            << " evaluated alike\n";
}

TEST(WhileLoopInvariantCodeMotionTest, JaxB380442861RunsInSeconds) {
  const std::string dir = RealHloModules();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/real-hlo/modules";
  std::ifstream in(dir + "/jax.b380442861__1.hlo");
  if (!in.good()) GTEST_SKIP() << "no jax.b380442861__1.hlo in " << dir;
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(text.str()));
  // 10^6 steps of acc += sum(j * j for j < 10^6) + table[i], table = iota,
  // in s32 (wrapping).
  uint32_t square_sum = 0;
  for (uint32_t j = 0; j < 1000000; ++j) square_sum += j * j;
  uint32_t expected = 0;
  for (uint32_t i = 0; i < 1000000; ++i) expected += square_sum + i;
  CompileOptions options;
  options.use_cache = false;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, options));
  ASSERT_OK_AND_ASSIGN(Literal result, executable->Run({}));
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.data<int32_t>()[0], static_cast<int32_t>(expected));
  EXPECT_LT(elapsed.count(), 20.0) << "seconds to compile and run";
}

}  // namespace
}  // namespace mxla
