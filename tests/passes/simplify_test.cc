// simplify, cse and dce: each rule on a small module, checked structurally
// and by evaluating before and after (bitwise equal).
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "passes/pass_registry.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  std::string text;      // the module after the passes
  bool changed = false;
};

// Parses `hlo`, runs `passes` (then dce, so replaced code disappears), checks
// the lowered verifier and that evaluation on `args` is bitwise unchanged.
Outcome RunPasses(const std::string& hlo, std::vector<std::string> passes,
                  const std::vector<Literal>& args) {
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(hlo);
  EXPECT_OK(parsed.status());
  if (!parsed.ok()) return {};
  HloModule& module = **parsed;
  std::vector<const Literal*> pointers;
  for (const Literal& arg : args) pointers.push_back(&arg);
  absl::StatusOr<Literal> before = EvaluateModule(module, pointers);
  EXPECT_OK(before.status());
  passes.push_back("dce");
  absl::StatusOr<std::unique_ptr<PassPipeline>> pipeline =
      CreatePipeline(passes, {});
  EXPECT_OK(pipeline.status());
  absl::StatusOr<bool> changed = (*pipeline)->Run(module);
  EXPECT_OK(changed.status());
  absl::StatusOr<Literal> after = EvaluateModule(module, pointers);
  EXPECT_OK(after.status());
  if (before.ok() && after.ok()) {
    EXPECT_EQ(*before, *after) << before->ToString() << " vs " << after->ToString();
  }
  return {module.ToString(), changed.ok() && *changed};
}

Literal Vector(std::initializer_list<float> values) {
  return LiteralUtil::CreateR1<float>(values);
}

TEST(SimplifyTest, ReshapeOfReshapeAndIdentityReshape) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  r1 = f32[6] reshape(x)
  r2 = f32[3,2] reshape(r1)
  r3 = f32[2,3] reshape(r2)
  ROOT n = f32[2,3] negate(r3)
})", {"simplify", "simplify"}, {LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})});
  EXPECT_TRUE(out.changed);
  EXPECT_THAT(out.text, Not(HasSubstr("reshape")));
  EXPECT_THAT(out.text, HasSubstr("negate(x)"));
}

// keepdims: mean(x, axis=1, keepdims=True) reshaped back for its broadcast.
// The divide and the add move below the reshapes, which then fold away.
TEST(SimplifyTest, ElementwiseOpsMoveBelowReshapesThatThenFold) {
  Outcome out = RunPasses(R"(
HloModule m
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  zero = f32[] constant(0)
  sum = f32[2] reduce(x, zero), dimensions={1}, to_apply=add
  keep = f32[2,1] reshape(sum)
  three = f32[] constant(3)
  threes = f32[2,1] broadcast(three), dimensions={}
  mean = f32[2,1] divide(keep, threes)
  eps = f32[] constant(0.5)
  epss = f32[2,1] broadcast(eps), dimensions={}
  shifted = f32[2,1] add(mean, epss)
  back = f32[2] reshape(shifted)
  ROOT b = f32[2,3] broadcast(back), dimensions={0}
})", {"simplify", "simplify"}, {LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 7}})});
  EXPECT_TRUE(out.changed);
  EXPECT_THAT(out.text, Not(HasSubstr("reshape")));
  EXPECT_THAT(out.text, HasSubstr("f32[2]{0} divide(sum,"));
}

// Reshapes of different shapes, or an operand that is not a reshape or a
// scalar broadcast, keep the op where it is.
TEST(SimplifyTest, ElementwiseOfMixedOperandsKeepsItsReshapes) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[6] parameter(0)
  y = f32[2,3] parameter(1)
  z = f32[3,2] parameter(2)
  rx = f32[3,2] reshape(x)
  ry = f32[3,2] reshape(y)
  a = f32[3,2] add(rx, ry)
  m = f32[3,2] multiply(rx, z)
  ROOT t = (f32[3,2], f32[3,2]) tuple(a, m)
})", {"simplify"}, {Vector({1, 2, 3, 4, 5, 6}),
                    LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}),
                    LiteralUtil::CreateR2<float>({{1, 2}, {3, 4}, {5, 6}})});
  EXPECT_THAT(out.text, HasSubstr("add(rx, ry)"));
  EXPECT_THAT(out.text, HasSubstr("multiply(rx, z)"));
}

// A reduce over size-1 dimensions is its reducer's op on the init and each
// element, in the reducer's operand order: -0 + (+0) is +0 either way, but
// a reducer subtract(acc, x) must keep init - x.
TEST(SimplifyTest, ReduceOverSizeOneDimensionsIsItsOpElementwise) {
  Outcome out = RunPasses(R"(
HloModule m
and {
  p = pred[] parameter(0)
  q = pred[] parameter(1)
  ROOT a = pred[] and(p, q)
}
minus {
  acc = f32[] parameter(0)
  x = f32[] parameter(1)
  ROOT s = f32[] subtract(acc, x)
}
ENTRY main {
  x = f32[2,1,3] parameter(0)
  zero = f32[] constant(0)
  ten = f32[] constant(10)
  gt = pred[2,1,3] compare(x, x), direction=EQ
  yes = pred[] constant(true)
  all = pred[2,3] reduce(gt, yes), dimensions={1}, to_apply=and
  diff = f32[2,3] reduce(x, ten), dimensions={1}, to_apply=minus
  ROOT t = (pred[2,3], f32[2,3]) tuple(all, diff)
})", {"simplify"}, {LiteralUtil::CreateR3<float>({{{1, -0.0f, 3}}, {{4, 5, 7}}})});
  EXPECT_TRUE(out.changed);
  EXPECT_THAT(out.text, Not(HasSubstr("reduce(")));
  EXPECT_THAT(out.text, HasSubstr("subtract("));
}

// A reduce that combines more than one element per result stays.
TEST(SimplifyTest, ReduceOverALongerDimensionStays) {
  Outcome out = RunPasses(R"(
HloModule m
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT a = f32[] add(p, q)
}
ENTRY main {
  x = f32[2,1,3] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[2] reduce(x, zero), dimensions={1,2}, to_apply=add
})", {"simplify"}, {LiteralUtil::CreateR3<float>({{{1, 2, 3}}, {{4, 5, 7}}})});
  EXPECT_THAT(out.text, HasSubstr("reduce("));
}

TEST(SimplifyTest, IdentityBroadcastTransposeConvert) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  b = f32[2,3] broadcast(x), dimensions={0,1}
  t = f32[2,3] transpose(b), dimensions={0,1}
  c = f32[2,3] convert(t)
  ROOT n = f32[2,3] negate(c)
})", {"simplify", "simplify", "simplify"}, {LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})});
  EXPECT_THAT(out.text, HasSubstr("ROOT n = f32[2,3]{1,0} negate(x)"));
}

TEST(SimplifyTest, BroadcastOfBroadcastComposesDimensions) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  b1 = f32[3,2] broadcast(x), dimensions={0}
  ROOT b2 = f32[4,2,3] broadcast(b1), dimensions={2,1}
})", {"simplify"}, {Vector({1, 2, 3})});
  EXPECT_THAT(out.text, HasSubstr("f32[4,2,3]{2,1,0} broadcast(x), dimensions={2}"));
}

TEST(SimplifyTest, TransposeOfTransposeComposes) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[2,3,4] parameter(0)
  t1 = f32[3,4,2] transpose(x), dimensions={1,2,0}
  ROOT t2 = f32[4,2,3] transpose(t1), dimensions={1,2,0}
})", {"simplify"}, {Literal(ShapeUtil::MakeShape(F32, {2, 3, 4}))});
  EXPECT_THAT(out.text, HasSubstr("transpose(x), dimensions={2,0,1}"));
}

TEST(SimplifyTest, NoOpPadSliceConcatAndCustomCall) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  p = f32[2,3] pad(x, z), padding=0_0x0_0
  s = f32[2,3] slice(p), slice={[0:2], [0:3]}
  c = f32[2,3] concatenate(s), dimensions={0}
  h = f32[2,3] custom-call(c), custom_call_target="Sharding"
  ROOT n = f32[2,3] negate(h)
})", {"simplify", "simplify", "simplify", "simplify"},
                          {LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})});
  EXPECT_THAT(out.text, HasSubstr("ROOT n = f32[2,3]{1,0} negate(x)"));
  // Real padding, a partial slice and two operands stay.
  Outcome kept = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  p = f32[2,4] pad(x, z), padding=0_0x0_1
  s = f32[2,2] slice(p), slice={[0:2], [1:3]}
  ROOT c = f32[4,2] concatenate(s, s), dimensions={0}
})", {"simplify"}, {LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})});
  EXPECT_FALSE(kept.changed);
}

TEST(SimplifyTest, NoOpReverseBitcastConvertBarrierAndStaticSizes) {
  Literal x(ShapeUtil::MakeShape(F32, {1, 3}));
  for (int64_t i = 0; i < 3; ++i) x.data<float>()[i] = i + 0.5f;
  std::vector<Literal> args;
  args.push_back(x);
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[1,3] parameter(0)
  r = f32[1,3] reverse(x), dimensions={0}
  c = f32[1,3] bitcast-convert(r)
  t = (f32[1,3]) tuple(c)
  b = (f32[1,3]) opt-barrier(t)
  d = (f32[1,3]) domain(b), domain={kind="sharding", entry={}, exit={}}
  g = f32[1,3] get-tuple-element(d), index=0
  s = s32[] get-dimension-size(g), dimensions={1}
  f = f32[] convert(s)
  fb = f32[1,3] broadcast(f), dimensions={}
  ROOT a = f32[1,3] add(g, fb)
})", {"simplify"}, args);
  EXPECT_TRUE(out.changed);
  for (const char* gone : {"reverse", "bitcast-convert", "opt-barrier",
                           "domain", "get-dimension-size"}) {
    EXPECT_THAT(out.text, Not(HasSubstr(gone)));
  }
  // A reverse of a dimension longer than 1 stays.
  out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[1,3] parameter(0)
  ROOT r = f32[1,3] reverse(x), dimensions={0,1}
})", {"simplify"}, args);
  EXPECT_THAT(out.text, HasSubstr("reverse(x), dimensions={0,1}"));
}

TEST(SimplifyTest, SliceOfSliceComposes) {
  Literal x(ShapeUtil::MakeShape(F32, {10, 9}));
  for (int64_t i = 0; i < 90; ++i) x.data<float>()[i] = i;
  std::vector<Literal> args;
  args.push_back(x);
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[10,9] parameter(0)
  a = f32[4,8] slice(x), slice={[1:9:2], [1:9]}
  ROOT b = f32[2,3] slice(a), slice={[1:4:2], [2:8:2]}
})", {"simplify"}, args);
  // Rows 1 + 2 * {1, 3} = {3, 7}: start 3, stride 4; columns 1 + {2, 4, 6}:
  // start 3, stride 2.
  EXPECT_THAT(out.text, HasSubstr("= f32[2,3]{1,0} slice(x), "
                                  "slice={[3:8:4], [3:8:2]}"));
}

// A dot reads a transposed operand through its dimension numbers (XLA's
// transpose folding) where the operand's free dimensions keep their order:
// a transposed rhs (a PyTorch Linear's weights), a transposed lhs, batch
// dimensions; a transpose that reorders the free dimensions stays.
TEST(SimplifyTest, DotsFoldTheTransposesOfTheirOperands) {
  struct Case {
    std::string hlo;
    std::string expected;  // in the simplified module
    bool folds;
  };
  const Case cases[] = {
      {"  x = f32[3,5] parameter(0)\n  w = f32[4,5] parameter(1)\n"
       "  t = f32[5,4] transpose(w), dimensions={1,0}\n"
       "  ROOT d = f32[3,4] dot(x, t), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}\n",
       "dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}", true},
      {"  a = f32[5,3] parameter(0)\n  b = f32[5,4] parameter(1)\n"
       "  t = f32[3,5] transpose(a), dimensions={1,0}\n"
       "  ROOT d = f32[3,4] dot(t, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}\n",
       "dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}", true},
      {"  x = f32[2,3,5] parameter(0)\n  w = f32[2,4,5] parameter(1)\n"
       "  t = f32[2,5,4] transpose(w), dimensions={0,2,1}\n"
       "  ROOT d = f32[2,3,4] dot(x, t), lhs_batch_dims={0}, "
       "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}\n",
       "dot(x, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
       "rhs_batch_dims={0}, rhs_contracting_dims={2}",
       true},
      {"  x = f32[3,5] parameter(0)\n  w = f32[4,6,5] parameter(1)\n"
       "  t = f32[5,6,4] transpose(w), dimensions={2,1,0}\n"
       "  ROOT d = f32[3,6,4] dot(x, t), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}\n",
       "transpose(w)", false},
  };
  for (const Case& c : cases) {
    const std::string hlo = "HloModule m\nENTRY main {\n" + c.hlo + "}\n";
    std::unique_ptr<HloModule> module = ParseHloModule(hlo).value();
    Outcome out = RunPasses(hlo, {"simplify"}, testing::MakeSeededArguments(*module, 5));
    EXPECT_EQ(out.changed, c.folds) << out.text;
    EXPECT_THAT(out.text, HasSubstr(c.expected)) << out.text;
    if (c.folds) EXPECT_THAT(out.text, Not(HasSubstr("transpose"))) << out.text;
  }
}

TEST(SimplifyTest, ReshapeOfScalarBroadcast) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  s = f32[] parameter(0)
  b = f32[2,3] broadcast(s), dimensions={}
  ROOT r = f32[3,2] reshape(b)
})", {"simplify"}, {LiteralUtil::CreateR0<float>(5)});
  EXPECT_THAT(out.text, HasSubstr("ROOT broadcast = f32[3,2]{1,0} broadcast(s), dimensions={}"));
}

TEST(SimplifyTest, NeutralOperandsOnlyWhereExact) {
  // x + 0 is not exact for floats (-0 + 0 = +0); x + -0, x - 0, x * 1 and
  // x / 1 are.
  const Literal x = Vector({-0.0f, 1.5f, -2});
  Outcome plus_zero = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  z = f32[] constant(0)
  zb = f32[3] broadcast(z), dimensions={}
  ROOT a = f32[3] add(x, zb)
})", {"simplify"}, {x});
  EXPECT_FALSE(plus_zero.changed);
  Outcome exact = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  nz = f32[] constant(-0)
  nzb = f32[3] broadcast(nz), dimensions={}
  a = f32[3] add(nzb, x)
  z = f32[] constant(0)
  zb = f32[3] broadcast(z), dimensions={}
  s = f32[3] subtract(a, zb)
  one = f32[3] constant({1, 1, 1})
  m = f32[3] multiply(s, one)
  ROOT d = f32[3] divide(m, one)
})", {"simplify", "simplify", "simplify", "simplify"}, {x});
  EXPECT_THAT(exact.text, HasSubstr("ROOT x = f32[3]{0} parameter(0)"));
  Outcome integer = RunPasses(R"(
HloModule m
ENTRY main {
  x = s32[3] parameter(0)
  z = s32[3] constant({0, 0, 0})
  ROOT a = s32[3] add(x, z)
})", {"simplify"}, {LiteralUtil::CreateR1<int32_t>({1, -2, 3})});
  EXPECT_THAT(integer.text, HasSubstr("ROOT x = s32[3]{0} parameter(0)"));
}

TEST(SimplifyTest, FoldsSmallConstantExpressionsOnly) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  a = f32[3] constant({1, 2, 3})
  b = f32[3] constant({10, 20, 30})
  s = f32[3] add(a, b)
  big = f32[] constant(2)
  wide = f32[4096] broadcast(big), dimensions={}
  x = f32[4096] parameter(0)
  m = f32[4096] multiply(x, wide)
  ROOT t = (f32[3], f32[4096]) tuple(s, m)
})", {"simplify"}, {Literal(ShapeUtil::MakeShape(F32, {4096}))});
  EXPECT_THAT(out.text, HasSubstr("constant({11, 22, 33})"));
  EXPECT_THAT(out.text, HasSubstr("broadcast(big)"));  // Not materialized.
}

TEST(CseTest, MergesIdenticalBroadcastsAndConstants) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  b1 = f32[2,3] broadcast(v), dimensions={1}
  b2 = f32[2,3] broadcast(v), dimensions={1}
  c1 = f32[] constant(2)
  c2 = f32[] constant(2)
  s = f32[] add(c1, c2)
  a = f32[2,3] add(x, b1)
  ROOT m = f32[2,3] multiply(a, b2)
})", {"cse"}, {Literal(ShapeUtil::MakeShape(F32, {2, 3})), Vector({1, 2, 3})});
  EXPECT_THAT(out.text, HasSubstr("multiply(a, b1)"));
  EXPECT_THAT(out.text, Not(HasSubstr("b2")));
}

TEST(CseTest, DifferentAttributesAreNotMerged) {
  Outcome out = RunPasses(R"(
HloModule m
ENTRY main {
  x = f32[3,3] parameter(0)
  v = f32[3] parameter(1)
  b1 = f32[3,3] broadcast(v), dimensions={1}
  b2 = f32[3,3] broadcast(v), dimensions={0}
  lt = pred[3,3] compare(x, b1), direction=LT
  gt = pred[3,3] compare(x, b1), direction=GT
  ROOT t = (pred[3,3], pred[3,3], f32[3,3]) tuple(lt, gt, b2)
})", {"cse"}, {Literal(ShapeUtil::MakeShape(F32, {3, 3})), Vector({1, 2, 3})});
  EXPECT_FALSE(out.changed);
}

TEST(DceTest, RemovesDeadCodeAndUnusedComputationsKeepsParameters) {
  Outcome out = RunPasses(R"(
HloModule m
unused {
  a = f32[] parameter(0)
  ROOT neg = f32[] negate(a)
}
ENTRY main {
  x = f32[2] parameter(0)
  unused_param = f32[5] parameter(1)
  dead = f32[2] exponential(x)
  ROOT n = f32[2] negate(x)
})", {}, {Vector({1, 2}), Literal(ShapeUtil::MakeShape(F32, {5}))});
  EXPECT_TRUE(out.changed);
  EXPECT_THAT(out.text, Not(HasSubstr("exponential")));
  EXPECT_THAT(out.text, Not(HasSubstr("unused {")));
  EXPECT_THAT(out.text, HasSubstr("unused_param = f32[5]{0} parameter(1)"));
}

}  // namespace
}  // namespace mxla
