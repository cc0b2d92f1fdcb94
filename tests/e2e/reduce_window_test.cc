// reduce-window across the layers: the text form, XLA's shape rule and
// messages, the builder, the evaluator on hand-computed pools (padding and
// holes skipped, whatever the init value), and the JIT
// (expand-reduce-windows: one fused reduction kernel, or for a pooling a
// fold over taps in one loop kernel) against the interpreter, bit for bit,
// including variadic reducers.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kReducers[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

// reduce-window of x f32[n] with `reducer`, `init` and `window`, checked
// against the JIT; the interpreter's values.
absl::StatusOr<std::vector<float>> Pool1d(absl::string_view reducer,
                                          float init, absl::string_view window,
                                          std::vector<float> x) {
  const int64_t size = x.size();
  ASSIGN_OR_RETURN(
      std::unique_ptr<HloModule> module,
      ParseHloModule(absl::StrCat(
          "HloModule m\n", kReducers, "ENTRY e {\n  x = f32[", size,
          "] parameter(0)\n  i = f32[] parameter(1)\n  ROOT r = "
          "reduce-window(x, i), window={",
          window, "}, to_apply=", reducer, "\n}\n")));
  RETURN_IF_ERROR(VerifyModule(*module, VerifierMode::kLowered));
  Literal lx(ShapeUtil::MakeShape(F32, {size}));
  std::copy(x.begin(), x.end(), lx.data<float>().begin());
  Literal li = LiteralUtil::CreateR0<float>(init);
  if (!RunAndCompare(*module, {&lx, &li})) {
    return absl::InternalError("the JIT differs from the interpreter");
  }
  ASSIGN_OR_RETURN(Literal result, EvaluateModule(*module, {&lx, &li}));
  return std::vector<float>(result.data<float>().begin(),
                            result.data<float>().end());
}

TEST(ReduceWindowTest, HandComputedPools) {
  const float kLowest = -std::numeric_limits<float>::infinity();
  ASSERT_OK_AND_ASSIGN(std::vector<float> max_pool,
                       Pool1d("max", kLowest, "size=2 stride=2 pad=0_1",
                              {1, 3, 2, 5, 4}));
  EXPECT_THAT(max_pool, ElementsAre(3, 5, 4));
  // Padding is skipped, not combined: the init 10 counts once per window.
  ASSERT_OK_AND_ASSIGN(std::vector<float> sums,
                       Pool1d("add", 10, "size=2 pad=1_1", {1, 2, 3}));
  EXPECT_THAT(sums, ElementsAre(11, 13, 15, 13));
  // Holes of the dilated base too.
  ASSERT_OK_AND_ASSIGN(std::vector<float> holes,
                       Pool1d("add", 10, "size=1 lhs_dilate=2", {1, 2, 3}));
  EXPECT_THAT(holes, ElementsAre(11, 10, 12, 10, 13));
  ASSERT_OK_AND_ASSIGN(
      std::vector<float> dilated,
      Pool1d("add", 0, "size=2 stride=3 rhs_dilate=2", {1, 2, 3, 4, 5, 6}));
  EXPECT_THAT(dilated, ElementsAre(4, 10));
  ASSERT_OK_AND_ASSIGN(std::vector<float> none,
                       Pool1d("add", 0, "size=4", {1, 2, 3}));
  EXPECT_TRUE(none.empty());
}

TEST(ReduceWindowTest, TextFormAndShapeRule) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY e {
  x = f32[4,6] parameter(0)
  i = f32[] constant(0)
  ROOT r = f32[2,3] reduce-window(x, i), window={size=2x2 stride=2x2}, to_apply=add
})")));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("reduce-window(x, i), window={size=2x2 stride=2x2}, "
                        "to_apply=add\n"));
  const Shape x = ShapeUtil::MakeShape(F32, {4, 6});
  const Shape init = ShapeUtil::MakeShape(F32, {});
  const ProgramShape add{{init, init}, init};
  Window one(1);
  one[0].size = 2;
  EXPECT_THAT(std::string(ShapeInference::InferReduceWindowShape(
                              {&x, &init}, one, add)
                              .status()
                              .message()),
              HasSubstr("reduce-window: Window has dimension 1 but base "
                        "shape has dimension 2 (f32[4,6])."));
  const Shape s32_init = ShapeUtil::MakeShape(S32, {});
  Window two(2);
  EXPECT_THAT(std::string(ShapeInference::InferReduceWindowShape(
                              {&x, &s32_init}, two, add)
                              .status()
                              .message()),
              HasSubstr("reduce-window: Reduction function's accumulator "
                        "shape at index 0 differs from the init_value shape"));
  two[1].size = 0;
  EXPECT_THAT(std::string(ShapeInference::InferReduceWindowShape(
                              {&x, &init}, two, add)
                              .status()
                              .message()),
              HasSubstr("has a non-positive dimension."));
  EXPECT_THAT(std::string(ShapeInference::InferReduceWindowShape({&x}, two, add)
                              .status()
                              .message()),
              HasSubstr("reduce-window: Expected an even, non-zero number of "
                        "operands"));
}

TEST(ReduceWindowTest, BuilderReduceWindowWithGeneralPadding) {
  XlaBuilder b("pool");
  XlaOp x = ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}});
  ReduceWindowWithGeneralPadding(x, ConstantR0<float>(&b, 0),
                                 CreateScalarAddComputation(F32, &b), {2, 2},
                                 {1, 1}, {}, {}, {{0, 0}, {0, 1}});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  EXPECT_THAT(computation.module().ToString(),
              HasSubstr("window={size=2x2 pad=0_0x0_1}"));
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR2<float>({{12, 16, 9}}));

  XlaBuilder bad("bad");
  ReduceWindowWithGeneralPadding(
      ConstantR2<float>(&bad, {{1, 2}}), ConstantR0<float>(&bad, 0),
      CreateScalarAddComputation(F32, &bad), {2}, {1, 1}, {}, {}, {});
  EXPECT_THAT(std::string(bad.Build().status().message()),
              HasSubstr("reduce-window: window_dimensions has 1 entries but "
                        "the operand has rank 2"));
}

TEST(ReduceWindowTest, JitMatchesTheInterpreter) {
  const char* cases[] = {
      // Average-pool numerator, max pool with SAME padding, holes.
      "x = f32[2,7,9,3] parameter(0)\n  i = f32[] constant(0)\n  ROOT r = "
      "reduce-window(x, i), window={size=1x3x3x1 stride=1x2x2x1}, "
      "to_apply=add",
      "x = f32[2,7,9,3] parameter(0)\n  i = f32[] constant(-inf)\n  ROOT r = "
      "reduce-window(x, i), window={size=1x3x3x1 stride=1x2x2x1 "
      "pad=0_0x1_1x1_1x0_0}, to_apply=max",
      "x = f32[5,6] parameter(0)\n  i = f32[] parameter(1)\n  ROOT r = "
      "reduce-window(x, i), window={size=2x3 stride=2x1 pad=2_1x-1_2 "
      "lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=add",
      "x = f32[] parameter(0)\n  i = f32[] constant(1)\n  ROOT r = "
      "reduce-window(x, i), window={}, to_apply=add",
      // Sub-f32 and integer types.
      "x = bf16[4,9] parameter(0)\n  i = bf16[] constant(0)\n  ROOT r = "
      "reduce-window(x, i), window={size=1x4 pad=0_0x2_1}, to_apply=add_bf16",
      "x = s32[10] parameter(0)\n  i = s32[] constant(-100)\n  ROOT r = "
      "reduce-window(x, i), window={size=3 stride=2 pad=1_1}, "
      "to_apply=max_s32",
      // Variadic: the maximum and its position (first on ties).
      "x = f32[9,4] parameter(0)\n  n = s32[9,4] iota(), iota_dimension=0\n"
      "  lo = f32[] constant(-inf)\n  z = s32[] constant(-1)\n  ROOT r = "
      "(f32[4,4], s32[4,4]) reduce-window(x, n, lo, z), window={size=3x1 "
      "stride=2x1 pad=1_0x0_0}, to_apply=argmax",
  };
  constexpr char kMoreReducers[] = R"(
add_bf16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
max_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  keep = pred[] compare(av, bv), direction=GE
  v = f32[] select(keep, av, bv)
  i = s32[] select(keep, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";
  for (const char* body : cases) {
    const std::string text = absl::StrCat("HloModule m\n", kReducers,
                                          kMoreReducers, "ENTRY e {\n  ",
                                          body, "\n}\n");
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
}

// A pooling (one input, one elementwise op, at most 32 taps) is a fold
// over its taps in one loop kernel, in the interpreter's order: the same
// bits on NaN, infinities and signed zeros, whichever operand of the
// reducer is the accumulator. A larger window keeps the reduction.
TEST(ReduceWindowTest, PoolsFoldTheirTapsInLoopKernels) {
  constexpr char kPools[] = R"(HloModule m
max_swapped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(b, a)
}
ENTRY e {
  x = f32[2,9,9,16] parameter(0)
  lo = f32[] constant(-inf)
  m = f32[2,5,5,16] reduce-window(x, lo), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max_swapped
  ROOT r = f32[2,5,5,16] sqrt(m)
})";
  std::unique_ptr<HloModule> module = ParseHloModule(kPools).value();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, {}));
  int fusions = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    ++fusions;
    EXPECT_EQ(instruction->fusion_kind(), FusionKind::kLoop);
  }
  EXPECT_EQ(fusions, 1) << fused->ToString();
  Literal x(ShapeUtil::MakeShape(F32, {2, 9, 9, 16}));
  absl::Span<float> values = x.data<float>();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::nanf(""), -kInf, kInf, -0.0f, 0.0f, -1.5f};
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = i % 7 < 6 ? specials[i % 7] : static_cast<float>(i % 11);
  }
  EXPECT_TRUE(RunAndCompare(*module, {&x}));
  // An init that is not the op's identity (+0 for add: -0 + +0 is +0) is
  // kept out of the padded taps by a mask: still the interpreter's bits.
  std::unique_ptr<HloModule> masked = ParseHloModule(absl::StrCat(
      "HloModule m\n", kReducers,
      "ENTRY e {\n  x = f32[2,9,9,16] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[2,5,5,16] reduce-window(x, z), window={size=1x3x3x1 "
      "stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=add\n}\n")).value();
  EXPECT_TRUE(RunAndCompare(*masked, {&x}));

  // 6 x 6 taps: more than a chain takes, a reduction instead.
  std::unique_ptr<HloModule> wide = ParseHloModule(absl::StrCat(
      "HloModule m\n", kReducers,
      "ENTRY e {\n  x = f32[12,12] parameter(0)\n  i = f32[] constant(0)\n"
      "  ROOT r = f32[7,7] reduce-window(x, i), window={size=6x6}, "
      "to_apply=add\n}\n")).value();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> wide_fused,
                       OptimizeForBackend(*wide, {}));
  EXPECT_EQ(wide_fused->entry_computation()->root_instruction()->fusion_kind(),
            FusionKind::kInput);
}

}  // namespace
}  // namespace mxla
