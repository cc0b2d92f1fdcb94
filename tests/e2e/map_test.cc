// map across the layers: text form (dimensions= optional), XLA's shape
// rule, the builder, the evaluator (the computation at each position) and
// the JIT, which inlines an elementwise computation onto whole arrays and
// fuses it, against the interpreter.
#include <memory>
#include <string>
#include <vector>

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

constexpr char kMaps[] = R"(HloModule maps
relu_plus {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  zero = f32[] constant(0)
  r = f32[] maximum(a, zero)
  c = f32[] convert(b)
  ROOT s = f32[] add(r, c)
}
is_big {
  x = f32[] parameter(0)
  k = f32[] constant(1)
  ROOT g = pred[] compare(x, k), direction=GT
}
ENTRY main {
  x = f32[5,7] parameter(0)
  i = s32[5,7] parameter(1)
  m = f32[5,7] map(x, i), dimensions={0,1}, to_apply=relu_plus
  ROOT p = pred[5,7] map(m), to_apply=is_big
}
)";

TEST(MapTest, TextFormShapeRuleAndValues) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kMaps));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("map(x.1, i), dimensions={0,1}, to_apply=relu_plus"));
  EXPECT_THAT(module->ToString(), HasSubstr("map(m), to_apply=is_big"));
  using SI = ShapeInference;
  const Shape f = ShapeUtil::MakeShape(F32, {2});
  const Shape scalar = ShapeUtil::MakeShape(F32, {});
  const ProgramShape negate{{scalar}, scalar};
  EXPECT_EQ(*SI::InferMapShape({&f}, negate, std::nullopt), f);
  auto error = [&](std::vector<const Shape*> operands,
                   const ProgramShape& to_apply,
                   std::optional<std::vector<int64_t>> dims) {
    return std::string(
        SI::InferMapShape(operands, to_apply, dims).status().message());
  };
  EXPECT_EQ(error({&f, &f}, negate, std::nullopt),
            "map: Map applied function arity must match number of arguments "
            "(1 != 2).");
  EXPECT_EQ(error({&f}, negate, std::vector<int64_t>{1}),
            "map: Map dimensions must be all the operand's, in order; got "
            "{1} for f32[2].");
  EXPECT_EQ(error({&f}, ProgramShape{{scalar}, f}, std::nullopt),
            "map: Mapped computation's result has to be a scalar; got f32[2].");

  XlaBuilder square("square");
  XlaOp a = Parameter(&square, 0, ShapeUtil::MakeShape(S32, {}), "a");
  Mul(a, a);
  ASSERT_OK_AND_ASSIGN(XlaComputation squared, square.Build());
  XlaBuilder b("map");
  Map(&b, {ConstantR1<int32_t>(&b, {1, -2, 3})}, squared, {0});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR1<int32_t>({1, 4, 9}));
  EXPECT_TRUE(RunAndCompare(computation.module(), {}));
}

TEST(MapTest, JitInlinesAndFusesElementwiseMaps) {
  EXPECT_TRUE(RunAndCompare(kMaps));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kMaps));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, {}));
  // One loop fusion, no map left.
  EXPECT_EQ(fused->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kFusion);
  // A map of a non-elementwise computation is refused by name.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> reducing, ParseHloModule(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
summed {
  x = f32[] parameter(0)
  v = f32[3] broadcast(x), dimensions={}
  z = f32[] constant(0)
  ROOT r = f32[] reduce(v, z), dimensions={0}, to_apply=add
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT m = f32[4] map(x), to_apply=summed
})"));
  EXPECT_THAT(Compile(*reducing, {}).status().message(),
              HasSubstr("map 'm': the JIT runs a map whose computation is "
                        "elementwise, but 'v' (broadcast) in 'summed' is not"));
}

// A map's computation may reach its elementwise ops through a fusion
// returning a tuple (XLA's multi-output fusion in a map), a call and a
// nested map; the JIT inlines each level onto the arrays.
TEST(MapTest, JitInlinesCallsFusionsAndTuplesInsideTheComputation) {
  EXPECT_TRUE(RunAndCompare(R"(HloModule m
fused_computation {
  p = f32[] parameter(0)
  square = f32[] multiply(p, p)
  less = pred[] compare(p, square), direction=LT
  ROOT t = (pred[], f32[]) tuple(less, square)
}
halve {
  h = f32[] parameter(0)
  half = f32[] constant(0.5)
  ROOT r = f32[] multiply(h, half)
}
negated {
  n = f32[] parameter(0)
  ROOT r = f32[] negate(n)
}
map_computation {
  p0 = f32[] parameter(0)
  fusion = (pred[], f32[]) fusion(p0), kind=kLoop, calls=fused_computation
  smaller = pred[] get-tuple-element(fusion), index=0
  square = f32[] get-tuple-element(fusion), index=1
  halved = f32[] call(square), to_apply=halve
  flipped = f32[] map(p0), to_apply=negated
  ROOT select = f32[] select(smaller, halved, flipped)
}
ENTRY main {
  x = f32[3,4] parameter(0)
  ROOT map = f32[3,4] map(x), to_apply=map_computation
}
)"));
}

}  // namespace
}  // namespace mxla
