// while across the layers: its text form, XLA's shape rule and messages,
// the builder, the evaluator, and the JIT (condition and body compiled as
// programs of their own, run on the loop state in place) against the
// interpreter: counters, array states, zero trips, nested loops, reductions
// in the body, results in place, every thread count.
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
#include "runtime/thread_pool.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

// x * 2^5: five trips of a counter and a doubling.
constexpr char kCounter[] = R"(HloModule w
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[4] multiply(x, x)
  h = f32[] constant(0.5)
  x3 = f32[4] multiply(x2, h)
  ROOT t = (s32[], f32[4]) tuple(i2, x3)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
})";

TEST(WhileTest, PrintsLikeXlaAndEvaluates) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kCounter));
  EXPECT_THAT(module->ToString(),
              HasSubstr("w = (s32[], f32[4]{0}) while(init), condition=cond, "
                        "body=body"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  Literal x = LiteralUtil::CreateR1<float>({2, 1, 0.5f, -2});
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x}));
  // x -> x^2 / 2 five times: 2 stays 2, 1 -> 0.5 -> 0.125 -> ...
  EXPECT_EQ(result.Get<float>({0}), 2.0f);
  EXPECT_EQ(result.Get<float>({3}), 2.0f);
  EXPECT_FLOAT_EQ(result.Get<float>({1}), 0x1p-31f);
  EXPECT_TRUE(RunAndCompare(kCounter, {&x}));
}

TEST(WhileTest, ShapeRuleAndXlaMessages) {
  auto verify = [](const std::string& cond_root, const std::string& body_root,
                   const std::string& cond_params) {
    const std::string text = absl::StrCat(
        "HloModule m\ncond {\n", cond_params, "  ROOT c = ", cond_root,
        "\n}\nbody {\n  s = f32[2] parameter(0)\n  ROOT b = ", body_root,
        "\n}\nENTRY main {\n  x = f32[2] parameter(0)\n  ROOT w = f32[2] "
        "while(x), condition=cond, body=body\n}\n");
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) return module.status();
    return VerifyModule(**module, VerifierMode::kBuilder);
  };
  const std::string one_param = "  s = f32[2] parameter(0)\n";
  EXPECT_OK(verify("pred[] constant(true)", "f32[2] negate(s)", one_param));
  EXPECT_THAT(verify("pred[] constant(true)", "f32[2] negate(s)",
                     one_param + "  t = f32[2] parameter(1)\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Condition must take 1 arguments; got 2.")));
  EXPECT_THAT(
      verify("s32[] constant(1)", "f32[2] negate(s)", one_param),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Condition must return a boolean; got s32[].")));
  EXPECT_THAT(
      verify("pred[] constant(true)", "f32[1] slice(s), slice={[0:1]}",
             one_param),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("The parameter of condition and body, the result of "
                         "the body, and init must all have the same shape; "
                         "got Condition: (f32[2]) -> pred[]; body: (f32[2]) "
                         "-> f32[1]; init: f32[2].")));
}

TEST(WhileTest, Builder) {
  const Shape state = ShapeUtil::MakeShape(S32, {});
  XlaBuilder c("cond");
  Lt(Parameter(&c, 0, state, "i"), ConstantR0<int32_t>(&c, 10));
  ASSERT_OK_AND_ASSIGN(XlaComputation condition, c.Build());
  XlaBuilder b("body");
  Add(Parameter(&b, 0, state, "i"), ConstantR0<int32_t>(&b, 3));
  ASSERT_OK_AND_ASSIGN(XlaComputation body, b.Build());
  XlaBuilder main("main");
  While(condition, body, ConstantR0<int32_t>(&main, 1));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, main.Build());
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR0<int32_t>(10));  // 1, 4, 7, 10
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit,
                       Compile(computation.module()));
  ASSERT_OK_AND_ASSIGN(Literal compiled, jit->Run({}));
  EXPECT_EQ(compiled, result);
  XlaBuilder bad("bad");
  While(condition, condition, ConstantR0<int32_t>(&bad, 1));
  EXPECT_THAT(bad.Build().status().message(),
              HasSubstr("must all have the same shape"));
}

TEST(WhileTest, JitRunsLoopsLikeTheInterpreter) {
  const std::vector<std::string> modules = {
      // Zero trips: the state is the init, returned in place.
      R"(HloModule m
cond {
  s = f32[3] parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  s = f32[3] parameter(0)
  ROOT n = f32[3] negate(s)
}
ENTRY main {
  x = f32[3] parameter(0)
  ROOT w = f32[3] while(x), condition=cond, body=body
})",
      // A reduction in the condition and the body; a nested tuple state.
      R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  s = (f32[8,16], (s32[], f32[])) parameter(0)
  x = f32[8,16] get-tuple-element(s), index=0
  zero = f32[] constant(0)
  total = f32[] reduce(x, zero), dimensions={0,1}, to_apply=add
  limit = f32[] constant(1000)
  ROOT lt = pred[] compare(total, limit), direction=LT
}
body {
  s = (f32[8,16], (s32[], f32[])) parameter(0)
  x = f32[8,16] get-tuple-element(s), index=0
  inner = (s32[], f32[]) get-tuple-element(s), index=1
  i = s32[] get-tuple-element(inner), index=0
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  zero = f32[] constant(0)
  rows = f32[8] reduce(x, zero), dimensions={1}, to_apply=add
  m = f32[] reduce(rows, zero), dimensions={0}, to_apply=add
  b = f32[8,16] broadcast(rows), dimensions={0}
  scaled = f32[8,16] multiply(b, x)
  e = f32[8,16] exponential(x)
  x2 = f32[8,16] add(e, scaled)
  ROOT t = (f32[8,16], (s32[], f32[])) tuple(x2, (s32[], f32[]) tuple(i2, m))
}
ENTRY main {
  x = f32[8,16] parameter(0)
  zero = s32[] constant(0)
  z = f32[] constant(0)
  init = (f32[8,16], (s32[], f32[])) tuple(x, (s32[], f32[]) tuple(zero, z))
  ROOT w = (f32[8,16], (s32[], f32[])) while(init), condition=cond, body=body
})",
      // A loop inside a loop: 3 outer trips of 4 inner ones.
      R"(HloModule m
inner_cond {
  s = (s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(j, four), direction=LT
}
inner_body {
  s = (s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  acc2 = s32[] multiply(acc, j2)
  ROOT t = (s32[], s32[]) tuple(j2, acc2)
}
outer_cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
outer_body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  start = (s32[], s32[]) tuple(zero, acc)
  loop = (s32[], s32[]) while(start), condition=inner_cond, body=inner_body
  acc2 = s32[] get-tuple-element(loop), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
ENTRY main {
  a = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, a)
  ROOT w = (s32[], s32[]) while(init), condition=outer_cond, body=outer_body
})",
  };
  for (const std::string& text : modules) {
    for (int threads : {1, 2}) {
      RunAndCompareOptions options;
      options.run.threads = threads;
      options.compile.codegen.reassociate_reductions = false;
      EXPECT_TRUE(RunAndCompare(text, options)) << text;
    }
  }
  // (4!)^3 = 13824 times the argument.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> nested,
                       ParseHloModule(modules[2]));
  Literal a = LiteralUtil::CreateR0<int32_t>(2);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*nested));
  ASSERT_OK_AND_ASSIGN(Literal result, jit->Run({&a}));
  EXPECT_EQ(result.tuple_element(1), LiteralUtil::CreateR0<int32_t>(27648));
}

// A loop that never ends compiles (it is not folded, even on constants)
// and, with RunOptions::max_loop_trips, fails the run in both backends.
TEST(WhileTest, TripLimitStopsLoopsThatNeverEnd) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
forever {
  s = s32[3] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[3] parameter(0)
  one = s32[] constant(1)
  b = s32[3] broadcast(one), dimensions={}
  ROOT a = s32[3] add(s, b)
}
ENTRY main {
  c = s32[3] constant({0, 1, 2})
  ROOT w = s32[3] while(c), condition=forever, body=body
})"));
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    CompileOptions compile;
    compile.backend = backend;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*module, compile));
    RunOptions run;
    run.max_loop_trips = 1000;
    EXPECT_THAT(executable->Run({}, run),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         HasSubstr("while 'w' went through its body more "
                                   "than 1000 times (the limit of "
                                   "max_loop_trips)")));
  }
}

}  // namespace
}  // namespace mxla
