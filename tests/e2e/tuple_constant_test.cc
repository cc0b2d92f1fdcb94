// Tuple-shaped constants: the interpreter reads the tuple literal, the JIT
// splits it into array constants (split-tuple-constants); both agree, in
// the entry and as a while loop's initial state.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "passes/tuple_constant_splitter.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::EvaluateAndCompare;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(TupleConstantTest, ElementsReachTheirUsers) {
  const std::string text = R"(HloModule t
ENTRY main {
  p = f32[2] parameter(0)
  c = (f32[2], (s32[], f32[2])) constant(({2, 1}, (7, {3, 1})))
  e = (s32[], f32[2]) get-tuple-element(c), index=1
  f = f32[2] get-tuple-element(e), index=1
  s = f32[2] add(p, f)
  ROOT r = (f32[2], (s32[], f32[2]), (f32[2], (s32[], f32[2]))) tuple(s, e, c)
})";
  const Literal p = LiteralUtil::CreateR1<float>({10, 20});
  const Literal result = EvaluateAndCompare(text, {&p});
  EXPECT_EQ(result.tuple_element(0), LiteralUtil::CreateR1<float>({13, 21}));
  EXPECT_EQ(result.tuple_element(1).tuple_element(0),
            LiteralUtil::CreateR0<int32_t>(7));
  EXPECT_EQ(result.tuple_element(2).tuple_element(0),
            LiteralUtil::CreateR1<float>({2, 1}));
}

TEST(TupleConstantTest, ALoopStartsFromOne) {
  const Literal result = EvaluateAndCompare(R"(HloModule t
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x2 = f32[2] add(x, x)
  ROOT next = (s32[], f32[2]) tuple(i1, x2)
}
condition {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT more = pred[] compare(i, three), direction=LT
}
ENTRY main {
  start = (s32[], f32[2]) constant((0, {1.5, -2}))
  ROOT loop = (s32[], f32[2]) while(start), condition=condition, body=body
})");
  EXPECT_EQ(result.tuple_element(1), LiteralUtil::CreateR1<float>({12, -16}));
}

TEST(TupleConstantTest, SplitterLeavesArrayConstantsOnly) {
  std::unique_ptr<HloModule> module = ParseHloModule(R"(HloModule t
ENTRY main {
  ROOT c = (f32[2], (s32[])) constant(({2, 1}, (7)))
})")
                                          .value();
  EXPECT_TRUE(TupleConstantSplitterPass().Run(*module).value());
  const std::string text = module->ToString();
  EXPECT_THAT(text, Not(HasSubstr(") constant(")));
  EXPECT_THAT(text, HasSubstr("f32[2]{0} constant({2, 1})"));
  EXPECT_THAT(text, HasSubstr("s32[] constant(7)"));
  EXPECT_FALSE(TupleConstantSplitterPass().Run(*module).value());
}

}  // namespace
}  // namespace mxla
