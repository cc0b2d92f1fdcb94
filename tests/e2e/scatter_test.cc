// scatter across the layers: the text form with every dimension number,
// XLA's shape rule and messages, the builder, the evaluator on XLA's
// documented example (repeated indices combine in order; a window that
// does not fit is skipped), and the JIT (its own step calling the compiled
// combiner) against the interpreter, including variadic and batched forms.
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
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

constexpr char kAdd[] = R"(
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
)";

// Rows of updates added into rows of a 3x3 matrix; row indices 0, 2, 0 and
// an out-of-range 3 (skipped).
constexpr char kRows[] = R"(
ENTRY main {
  x = s32[3,3] parameter(0)
  i = s32[4] parameter(1)
  u = s32[4,3] parameter(2)
  ROOT s = s32[3,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=false, unique_indices=false, to_apply=add
}
)";

TEST(ScatterTest, TextFormAndValues) {
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> module,
      ParseHloModule(absl::StrCat("HloModule rows\n", kAdd, kRows)));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("scatter(x, i, u), update_window_dims={1}, "
                        "inserted_window_dims={0}, "
                        "scatter_dims_to_operand_dims={0}, "
                        "index_vector_dim=1, to_apply=add\n"));
  Literal x = LiteralUtil::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  Literal i = LiteralUtil::CreateR1<int32_t>({0, 2, 0, 3});
  Literal u = LiteralUtil::CreateR2<int32_t>(
      {{10, 20, 30}, {70, 80, 90}, {100, 200, 300}, {5, 5, 5}});
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x, &i, &u}));
  EXPECT_EQ(result, LiteralUtil::CreateR2<int32_t>(
                        {{111, 222, 333}, {4, 5, 6}, {77, 88, 99}}));
  EXPECT_TRUE(RunAndCompare(*module, {&x, &i, &u}));
}

TEST(ScatterTest, ShapeRuleAndXlaMessages) {
  using SI = ShapeInference;
  const Shape x = ShapeUtil::MakeShape(F32, {3, 3});
  const Shape i = ShapeUtil::MakeShape(S32, {2});
  const Shape u = ShapeUtil::MakeShape(F32, {2, 3});
  const Shape scalar = ShapeUtil::MakeShape(F32, {});
  const ProgramShape add{{scalar, scalar}, scalar};
  ScatterDimensionNumbers rows;
  rows.update_window_dims = {1};
  rows.inserted_window_dims = {0};
  rows.scatter_dims_to_operand_dims = {0};
  rows.index_vector_dim = 1;
  EXPECT_EQ(*SI::InferScatterShape({&x, &i, &u}, rows, add), x);
  auto error = [&](std::vector<const Shape*> operands,
                   const ScatterDimensionNumbers& d) {
    return std::string(SI::InferScatterShape(operands, d, add).status().message());
  };
  const Shape fi = ShapeUtil::MakeShape(F32, {2});
  EXPECT_THAT(error({&x, &fi, &u}, rows),
              HasSubstr("scatter: Scatter indices parameter must be an "
                        "integral tensor; got f32[2]."));
  const Shape u3 = ShapeUtil::MakeShape(F32, {2, 3, 1});
  EXPECT_THAT(error({&x, &i, &u3}, rows),
              HasSubstr("Updates tensor must be of rank 2; got 3"));
  ScatterDimensionNumbers narrow = rows;
  narrow.update_window_dims = {};
  const Shape u1 = ShapeUtil::MakeShape(F32, {2});
  EXPECT_THAT(error({&x, &i, &u1}, narrow),
              HasSubstr("Scatter op has window of size 1; doesn't match "
                        "operand of rank 2"));
  ScatterDimensionNumbers unsorted = rows;
  unsorted.update_window_dims = {};
  unsorted.inserted_window_dims = {1, 0};
  EXPECT_THAT(error({&x, &i, &u1}, unsorted),
              HasSubstr("inserted_window_dims in scatter op must be sorted; "
                        "got {1,0}."));
  const Shape wide = ShapeUtil::MakeShape(F32, {2, 4});
  EXPECT_THAT(error({&x, &i, &wide}, rows),
              HasSubstr("Bounds of the window dimensions of updates must not "
                        "exceed the bounds of the corresponding dimensions "
                        "of operand. For dimension 1, updates bound is 4, "
                        "operand bound is 3."));
  const Shape tall = ShapeUtil::MakeShape(F32, {5, 3});
  EXPECT_THAT(error({&x, &i, &tall}, rows),
              HasSubstr("For scatter dimension 0, updates bound is 5, "
                        "scatter_indices bound is 2."));
  ScatterDimensionNumbers two = rows;
  two.scatter_dims_to_operand_dims = {0, 1};
  EXPECT_THAT(error({&x, &i, &u}, two),
              HasSubstr("Scatter op has 2 elements in "
                        "scatter_dims_to_operand_dims and the bound of "
                        "dimension index_vector_dim=1 of scatter_indices is "
                        "1."));
  const Shape s32_scalar = ShapeUtil::MakeShape(S32, {});
  EXPECT_THAT(
      std::string(SI::InferScatterShape({&x, &i, &u}, rows,
                                        {{s32_scalar, s32_scalar}, s32_scalar})
                      .status()
                      .message()),
      HasSubstr("scatter: Reduction function's accumulator shape at index 0 "
                "differs from the init_value shape: s32[] vs f32[]."));
  EXPECT_THAT(error({&x, &i}, rows),
              HasSubstr("Expected N operands, the scatter indices and N "
                        "updates"));
}

TEST(ScatterTest, Builder) {
  XlaBuilder b("scatter");
  ScatterDimensionNumbers elements;
  elements.inserted_window_dims = {0};
  elements.scatter_dims_to_operand_dims = {0};
  elements.index_vector_dim = 1;
  Scatter(ConstantR1<float>(&b, {1, 2, 3}), ConstantR1<int32_t>(&b, {2, 2, 0}),
          ConstantR1<float>(&b, {10, 20, 30}),
          CreateScalarAddComputation(F32, &b), elements);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR1<float>({31, 2, 33}));
}

TEST(ScatterTest, JitMatchesTheInterpreter) {
  constexpr char kReducers[] = R"(
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
minmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  m = f32[] minimum(a, b)
  n = s32[] maximum(ai, bi)
  ROOT t = (f32[], s32[]) tuple(m, n)
}
)";
  const char* bodies[] = {
      // 2-d windows at 2-d start indices, some out of range (skipped).
      "x = f32[6,5] parameter(0)\n  i = s32[4,2] parameter(1)\n  u = "
      "f32[4,2,3] parameter(2)\n  ROOT s = scatter(x, i, u), "
      "update_window_dims={1,2}, inserted_window_dims={}, "
      "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, "
      "to_apply=addf",
      // Assignment: the last update to an element wins; index vector first.
      "x = f32[7] parameter(0)\n  i = s64[1,5] parameter(1)\n  u = f32[5] "
      "parameter(2)\n  ROOT s = scatter(x, i, u), update_window_dims={}, "
      "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
      "index_vector_dim=0, to_apply=assign",
      // Variadic.
      "x = f32[4,3] parameter(0)\n  y = s32[4,3] parameter(1)\n  i = "
      "u8[3] parameter(2)\n  u = f32[3,3] parameter(3)\n  v = s32[3,3] "
      "parameter(4)\n  ROOT s = scatter(x, y, i, u, v), "
      "update_window_dims={1}, inserted_window_dims={0}, "
      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
      "to_apply=minmax",
      // Batching dimensions: batch b scatters into row b of x.
      "x = f32[3,5] parameter(0)\n  i = s32[3,2,1] parameter(1)\n  u = "
      "f32[3,2] parameter(2)\n  ROOT s = scatter(x, i, u), "
      "update_window_dims={}, inserted_window_dims={1}, "
      "scatter_dims_to_operand_dims={1}, input_batching_dims={0}, "
      "scatter_indices_batching_dims={0}, index_vector_dim=2, "
      "to_apply=addf",
  };
  for (const char* body : bodies) {
    const std::string text =
        absl::StrCat("HloModule m\n", kReducers, "ENTRY e {\n  ", body, "\n}\n");
    for (uint64_t seed : {1, 2, 3}) {
      // Seeded indices fall in [-8, 8): in range, and out of range both ways.
      ::mxla::testing::RunAndCompareOptions options;
      options.seed = seed;
      EXPECT_TRUE(RunAndCompare(text, options)) << text;
    }
  }
}

}  // namespace
}  // namespace mxla
