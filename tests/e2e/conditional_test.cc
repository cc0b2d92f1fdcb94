// conditional across the layers: its two text forms (true_computation /
// false_computation for a pred, branch_computations={...} for an s32
// index), XLA's shape rule and messages, the builder, the evaluator (an
// index out of range runs the last branch), and the JIT, which compiles
// each branch as a program of its own, against the interpreter.
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
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

constexpr char kIndexed[] = R"(HloModule indexed
negate_first {
  t = (f32[4], s32[]) parameter(0)
  x = f32[4] get-tuple-element(t), index=0
  ROOT n = f32[4] negate(x)
}
doubled {
  y = f32[4] parameter(0)
  ROOT d = f32[4] add(y, y)
}
constant_branch {
  e = () parameter(0)
  ROOT c = f32[4] constant({7, 7, 7, 7})
}
ENTRY main {
  i = s32[] parameter(0)
  x = f32[4] parameter(1)
  k = s32[] constant(3)
  t = (f32[4], s32[]) tuple(x, k)
  e = () tuple()
  ROOT r = f32[4] conditional(i, t, x, e), branch_computations={negate_first, doubled, constant_branch}
}
)";

constexpr char kPredicated[] = R"(HloModule predicated
on_true {
  a = (f32[3,5], f32[3,5]) parameter(0)
  l = f32[3,5] get-tuple-element(a), index=0
  r = f32[3,5] get-tuple-element(a), index=1
  m = f32[3,5] multiply(l, r)
  ROOT t = (f32[3,5], f32[3,5]) tuple(m, r)
}
on_false {
  b = (f32[3,5], f32[3,5]) parameter(0)
  l = f32[3,5] get-tuple-element(b), index=0
  s = f32[3,5] subtract(l, l)
  ROOT t = (f32[3,5], f32[3,5]) tuple(l, s)
}
ENTRY main {
  p = pred[] parameter(0)
  x = f32[3,5] parameter(1)
  y = f32[3,5] parameter(2)
  e = f32[3,5] exponential(x)
  t = (f32[3,5], f32[3,5]) tuple(e, y)
  c = (f32[3,5], f32[3,5]) conditional(p, t, t), true_computation=on_true, false_computation=on_false
  g = f32[3,5] get-tuple-element(c), index=0
  ROOT s = f32[3,5] add(g, x)
}
)";

TEST(ConditionalTest, BothTextFormsRoundTrip) {
  for (const char* text : {kIndexed, kPredicated}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                         ParseHloModule(module->ToString()));
    EXPECT_EQ(again->ToString(), module->ToString());
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> indexed,
                       ParseHloModule(kIndexed));
  // (Entry names that repeat a branch's get a suffix: names are scoped per
  // computation.)
  EXPECT_THAT(indexed->ToString(),
              HasSubstr("conditional(i, t.1, x.1, e.1), branch_computations="
                        "{negate_first, doubled, constant_branch}"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> predicated,
                       ParseHloModule(kPredicated));
  EXPECT_THAT(predicated->ToString(),
              HasSubstr("conditional(p, t.2, t.2), true_computation=on_true, "
                        "false_computation=on_false"));
}

TEST(ConditionalTest, ShapeRuleAndXlaMessages) {
  using SI = ShapeInference;
  const Shape f = ShapeUtil::MakeShape(F32, {2});
  const Shape s32 = ShapeUtil::MakeShape(S32, {});
  const ProgramShape identity{{f}, f};
  const ProgramShape other{{f}, ShapeUtil::MakeShape(F32, {3})};
  auto error = [&](const Shape& index, std::vector<ProgramShape> branches,
                   std::vector<const Shape*> operands) {
    return std::string(
        SI::InferConditionalShape(index, branches, operands).status().message());
  };
  EXPECT_EQ(*SI::InferConditionalShape(s32, {identity, identity}, {&f, &f}), f);
  EXPECT_EQ(error(s32, {}, {}),
            "conditional: branch_computations is empty.");
  EXPECT_EQ(error(ShapeUtil::MakeShape(F32, {}), {identity}, {&f}),
            "conditional: branch_index must be a scalar bool or int32_t; got "
            "f32[].");
  EXPECT_EQ(error(ShapeUtil::MakeShape(PRED, {}), {identity}, {&f}),
            "conditional: In kConditional, when the predicate is PRED, there "
            "must be exactly 2 branch_computations, got 1.");
  EXPECT_THAT(error(s32, {identity, identity}, {&f, &s32}),
              HasSubstr("branch operand 1 must match the shape of the only "
                        "parameter of branch computation 1: got s32[] for "
                        "branch operand and f32[2] for branch computation "
                        "parameter."));
  EXPECT_EQ(error(s32, {identity, other}, {&f, &f}),
            "conditional: the result of branch 0 computation and branch 1 "
            "computation must have the same shape: got f32[2] and f32[3].");
  EXPECT_THAT(ParseHloModule(absl::StrCat(
                  "HloModule m\nb {\n  x = f32[] parameter(0)\n}\nENTRY e "
                  "{\n  i = s32[] parameter(0)\n  ROOT c = f32[] "
                  "conditional(i), branch_computations={b, nope}\n}\n"))
                  .status()
                  .message(),
              HasSubstr("computation does not exist: nope"));
}

TEST(ConditionalTest, BuilderAndEvaluator) {
  XlaBuilder add_one("add_one");
  Add(Parameter(&add_one, 0, ShapeUtil::MakeShape(S32, {}), "x"),
      ConstantR0<int32_t>(&add_one, 1));
  ASSERT_OK_AND_ASSIGN(XlaComputation plus, add_one.Build());
  XlaBuilder negate("negate");
  Neg(Parameter(&negate, 0, ShapeUtil::MakeShape(S32, {}), "x"));
  ASSERT_OK_AND_ASSIGN(XlaComputation minus, negate.Build());
  for (const auto& [index, expected] :
       std::vector<std::pair<int32_t, int32_t>>{
           {0, 11}, {1, -20}, {2, -20}, {-1, -20}}) {
    XlaBuilder b("conditional");
    const XlaComputation* branches[] = {&plus, &minus};
    Conditional(ConstantR0<int32_t>(&b, index), branches,
                {ConstantR0<int32_t>(&b, 10), ConstantR0<int32_t>(&b, 20)});
    ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
    ASSERT_OK_AND_ASSIGN(Literal result,
                         EvaluateModule(computation.module(), {}));
    EXPECT_EQ(result, LiteralUtil::CreateR0<int32_t>(expected)) << index;
    EXPECT_TRUE(RunAndCompare(computation.module(), {})) << index;
  }
  XlaBuilder b("pred");
  Conditional(ConstantR0<bool>(&b, false), ConstantR0<int32_t>(&b, 1), plus,
              ConstantR0<int32_t>(&b, 5), minus);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR0<int32_t>(-5));
  XlaBuilder bad("bad");
  Conditional(ConstantR0<bool>(&bad, true), ConstantR0<float>(&bad, 1), plus,
              ConstantR0<int32_t>(&bad, 5), minus);
  EXPECT_THAT(bad.Build().status().message(),
              HasSubstr("branch operand 0 must match the shape"));
}

TEST(ConditionalTest, JitRunsTheBranchTheIndexPicks) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> indexed,
                       ParseHloModule(kIndexed));
  Literal x = LiteralUtil::CreateR1<float>({1, -2, 3.5f, 0});
  for (int32_t index : {0, 1, 2, 3, -7}) {
    Literal i = LiteralUtil::CreateR0<int32_t>(index);
    EXPECT_TRUE(RunAndCompare(*indexed, {&i, &x})) << index;
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> predicated,
                       ParseHloModule(kPredicated));
  for (bool p : {true, false}) {
    Literal pred = LiteralUtil::CreateR0<bool>(p);
    std::vector<Literal> arguments =
        testing::MakeSeededArguments(*predicated, 3);
    EXPECT_TRUE(RunAndCompare(*predicated, {&pred, &arguments[1],
                                            &arguments[2]}))
        << p;
  }
}

}  // namespace
}  // namespace mxla
