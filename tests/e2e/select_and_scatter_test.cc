// select-and-scatter across the layers: the text form, XLA's shape rule and
// messages, the builder, the evaluator on XLA's documented max-pool
// gradient, and the JIT (its own step calling the compiled select and
// scatter computations) against the interpreter.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

constexpr char kComputations[] = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(SelectAndScatterTest, MaxPoolGradient) {
  // Windows of 2 at stride 2 over 6 elements, and a padded overlapping
  // form; each source value lands on its window's maximum.
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> module,
      ParseHloModule(absl::StrCat("HloModule m\n", kComputations, R"(
ENTRY e {
  x = f32[6] parameter(0)
  src = f32[3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[6] select-and-scatter(x, src, z), window={size=2 stride=2}, select=ge, scatter=add
})")));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("select-and-scatter(x, src, z), window={size=2 "
                        "stride=2}, select=ge, scatter=add\n"));
  Literal x = LiteralUtil::CreateR1<float>({1, 5, 7, 3, 2, 2});
  Literal s = LiteralUtil::CreateR1<float>({10, 20, 30});
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x, &s}));
  // Ties keep the first (select(a, b) = a >= b keeps a).
  EXPECT_EQ(result, LiteralUtil::CreateR1<float>({0, 10, 20, 0, 30, 0}));
  EXPECT_TRUE(RunAndCompare(*module, {&x, &s}));

  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> padded,
      ParseHloModule(absl::StrCat("HloModule m\n", kComputations, R"(
ENTRY e {
  x = f32[4] parameter(0)
  src = f32[4] parameter(1)
  z = f32[] constant(1)
  ROOT r = f32[4] select-and-scatter(x, src, z), window={size=3 pad=1_1}, select=ge, scatter=add
})")));
  Literal px = LiteralUtil::CreateR1<float>({4, 1, 3, 9});
  Literal ps = LiteralUtil::CreateR1<float>({1, 2, 3, 4});
  ASSERT_OK_AND_ASSIGN(Literal overlap, EvaluateModule(*padded, {&px, &ps}));
  // Windows {4,1} {4,1,3} {1,3,9} {3,9}: maxima 4, 4, 9, 9.
  EXPECT_EQ(overlap, LiteralUtil::CreateR1<float>({4, 1, 1, 8}));
  EXPECT_TRUE(RunAndCompare(*padded, {&px, &ps}));
}

TEST(SelectAndScatterTest, ShapeRuleAndXlaMessages) {
  const Shape x = ShapeUtil::MakeShape(F32, {6});
  const Shape s = ShapeUtil::MakeShape(F32, {3});
  const Shape scalar = ShapeUtil::MakeShape(F32, {});
  const Shape pred = ShapeUtil::MakeShape(PRED, {});
  const ProgramShape ge{{scalar, scalar}, pred};
  const ProgramShape add{{scalar, scalar}, scalar};
  Window window(1);
  window[0].size = 2;
  window[0].stride = 2;
  EXPECT_EQ(*ShapeInference::InferSelectAndScatterShape(x, ge, window, s,
                                                        scalar, add),
            x);
  auto error = [&](const ProgramShape& select, const Shape& source) {
    return std::string(ShapeInference::InferSelectAndScatterShape(
                           x, select, window, source, scalar, add)
                           .status()
                           .message());
  };
  EXPECT_THAT(error(add, s),
              HasSubstr("select-and-scatter: Select function must have "
                        "rank-0 PRED result, but returns f32[]."));
  EXPECT_THAT(error({{scalar}, pred}, s),
              HasSubstr("Select function must take 2 parameters, but takes "
                        "1 parameter(s)."));
  EXPECT_THAT(error(ge, ShapeUtil::MakeShape(F32, {4})),
              HasSubstr("Source shape does not match the shape of "
                        "window-reduced operand: source(f32[4]), "
                        "window-reduced operand(f32[3])."));
}

TEST(SelectAndScatterTest, BuilderAndJit) {
  XlaBuilder b("pool_grad");
  XlaBuilder ge_builder("ge");
  Ge(Parameter(&ge_builder, 0, ShapeUtil::MakeShape(F32, {}), "a"),
     Parameter(&ge_builder, 1, ShapeUtil::MakeShape(F32, {}), "b"));
  ASSERT_OK_AND_ASSIGN(XlaComputation ge, ge_builder.Build());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {5, 7}), "x");
  XlaOp s = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3, 3}), "s");
  SelectAndScatterWithGeneralPadding(x, ge, {2, 3}, {2, 2}, {{1, 0}, {0, 1}},
                                     s, ConstantR0<float>(&b, 0),
                                     CreateScalarAddComputation(F32, &b));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  EXPECT_THAT(computation.module().ToString(),
              HasSubstr("window={size=2x3 stride=2x2 pad=1_0x0_1}"));
  EXPECT_TRUE(RunAndCompare(computation.module().ToString()));
}

}  // namespace
}  // namespace mxla
