// gather across the layers: its text form with every dimension-number
// attribute, XLA's shape rule and messages, the builder, the evaluator on
// XLA's documented examples, and the JIT (a fused index map reading the
// start indices in the kernel) against the interpreter.
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
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

// Rows 0 and 2 of a 3x3 matrix (XLA's operation semantics example).
constexpr char kRows[] = R"(HloModule rows
ENTRY main {
  x = s32[3,3] parameter(0)
  i = s32[2] parameter(1)
  ROOT g = s32[2,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true
}
)";

TEST(GatherTest, TextFormAndValues) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kRows));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("gather(x, i), offset_dims={1}, "
                        "collapsed_slice_dims={0}, start_index_map={0}, "
                        "index_vector_dim=1, slice_sizes={1,3}\n"));
  Literal x = LiteralUtil::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  Literal i = LiteralUtil::CreateR1<int32_t>({0, 2});
  ASSERT_OK_AND_ASSIGN(Literal rows, EvaluateModule(*module, {&x, &i}));
  EXPECT_EQ(rows, LiteralUtil::CreateR2<int32_t>({{1, 2, 3}, {7, 8, 9}}));
  // Start indices out of range are clamped so the slice fits.
  Literal far = LiteralUtil::CreateR1<int32_t>({-5, 9});
  ASSERT_OK_AND_ASSIGN(Literal clamped, EvaluateModule(*module, {&x, &far}));
  EXPECT_EQ(clamped, LiteralUtil::CreateR2<int32_t>({{1, 2, 3}, {7, 8, 9}}));
  EXPECT_TRUE(RunAndCompare(*module, {&x, &far}));

  // Batching dimensions: row b of the operand is indexed by indices[b].
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> batched, ParseHloModule(R"(
HloModule batched
ENTRY main {
  x = f32[2,4] parameter(0)
  i = s32[2,3,1] parameter(1)
  ROOT g = f32[2,3] gather(x, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}
})"));
  Literal bx = LiteralUtil::CreateR2<float>({{0, 1, 2, 3}, {10, 11, 12, 13}});
  Literal bi(ShapeUtil::MakeShape(S32, {2, 3, 1}));
  const int32_t picks[] = {3, 0, 1, 2, 2, 0};
  for (int k = 0; k < 6; ++k) bi.data<int32_t>()[k] = picks[k];
  ASSERT_OK_AND_ASSIGN(Literal gathered,
                       EvaluateModule(*batched, {&bx, &bi}));
  EXPECT_EQ(gathered,
            LiteralUtil::CreateR2<float>({{3, 0, 1}, {12, 12, 10}}));
  EXPECT_TRUE(RunAndCompare(*batched, {&bx, &bi}));
}

TEST(GatherTest, ShapeRuleAndXlaMessages) {
  using SI = ShapeInference;
  const Shape x = ShapeUtil::MakeShape(F32, {3, 4});
  const Shape i = ShapeUtil::MakeShape(S32, {5, 1});
  GatherDimensionNumbers rows;
  rows.offset_dims = {1};
  rows.collapsed_slice_dims = {0};
  rows.start_index_map = {0};
  rows.index_vector_dim = 1;
  EXPECT_EQ(*SI::InferGatherShape(x, i, rows, {1, 4}),
            ShapeUtil::MakeShape(F32, {5, 4}));
  auto error = [&](const Shape& indices, const GatherDimensionNumbers& d,
                   std::vector<int64_t> sizes) {
    return std::string(
        SI::InferGatherShape(x, indices, d, sizes).status().message());
  };
  EXPECT_THAT(error(ShapeUtil::MakeShape(F32, {5, 1}), rows, {1, 4}),
              HasSubstr("gather: Gather indices parameter must be an "
                        "integral tensor. (operand f32[3,4], start indices "
                        "f32[5,1]"));
  EXPECT_THAT(error(i, rows, {2, 4}),
              HasSubstr("Gather op can only collapse slice dims with bound "
                        "1, but bound is 2"));
  EXPECT_THAT(error(i, rows, {1, 5}),
              HasSubstr("Slice size at index 1 in gather op is out of range, "
                        "must be within [0, 4], got 5."));
  GatherDimensionNumbers collapse_only = rows;
  collapse_only.offset_dims.clear();
  EXPECT_THAT(
      std::string(SI::InferGatherShape(ShapeUtil::MakeShape(F32, {0}),
                                       ShapeUtil::MakeShape(S32, {1, 1}),
                                       collapse_only, {0})
                      .status()
                      .message()),
      HasSubstr("Gather op collapses dimension 0 of slice size 0: the slices "
                "are empty, but the result f32[1] has elements to read."));
  GatherDimensionNumbers two = rows;
  two.start_index_map = {0, 1};
  EXPECT_THAT(error(i, two, {1, 4}),
              HasSubstr("Gather op has 2 elements in start_index_map and the "
                        "bound of dimension index_vector_dim=1 of "
                        "start_indices is 1."));
  XlaBuilder b("gather");
  Gather(ConstantR2<float>(&b, {{1, 2}, {3, 4}}),
         ConstantR1<int32_t>(&b, {1}), rows, {1, 2});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR2<float>({{3, 4}}));
}

TEST(GatherTest, JitFusesItAndMatchesTheInterpreter) {
  // Windows of a 3-d operand at 2-d start indices (index_vector_dim last
  // and first), gathered, then fused with an elementwise consumer.
  for (const char* attributes :
       {"offset_dims={2,3}, collapsed_slice_dims={0}, start_index_map={0,1}, "
        "index_vector_dim=2, slice_sizes={1,3,4}",
        "offset_dims={1}, collapsed_slice_dims={0,2}, start_index_map={2,0}, "
        "index_vector_dim=2, slice_sizes={1,5,1}"}) {
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<HloModule> probe,
        ParseHloModule(absl::StrCat(
            "HloModule p\nENTRY e {\n  x = f32[6,5,7] parameter(0)\n  i = "
            "s32[4,3,2] parameter(1)\n  ROOT g = gather(x, i), ",
            attributes, "\n}\n")));
    const std::string shape =
        probe->entry_computation()->root_instruction()->shape().ToString();
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = f32[6,5,7] parameter(0)\n  i = "
        "s32[4,3,2] parameter(1)\n  g = ",
        shape, " gather(x, i), ", attributes, "\n  ROOT n = ", shape,
        " exponential(g)\n}\n");
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    // Start indices beyond either end, to be clamped.
    Literal x(ShapeUtil::MakeShape(F32, {6, 5, 7}));
    for (int64_t k = 0; k < x.element_count(); ++k) {
      x.data<float>()[k] = 0.01f * k;
    }
    Literal i(ShapeUtil::MakeShape(S32, {4, 3, 2}));
    for (int64_t k = 0; k < i.element_count(); ++k) {
      i.data<int32_t>()[k] = static_cast<int32_t>((k * 7) % 13) - 3;
    }
    EXPECT_TRUE(RunAndCompare(*module, {&x, &i})) << text;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                         OptimizeForBackend(*module, {}));
    EXPECT_EQ(fused->entry_computation()->root_instruction()->opcode(),
              HloOpcode::kFusion);
  }
}

}  // namespace
}  // namespace mxla
