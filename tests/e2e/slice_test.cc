// slice across the layers: its text form, XLA's shape rule and messages,
// the builder, and the JIT (an index map inside fusions, strided or not)
// against the interpreter.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(SliceTest, PrintsLikeXlaAndRoundTrips) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[5,7] parameter(0)
  ROOT s = f32[3,2] slice(x), slice={[0:5:2], [1:3]}
})"));
  const HloInstruction* slice = module->entry_computation()->root_instruction();
  EXPECT_THAT(slice->slice_starts(), ::testing::ElementsAre(0, 1));
  EXPECT_THAT(slice->slice_limits(), ::testing::ElementsAre(5, 3));
  EXPECT_THAT(slice->slice_strides(), ::testing::ElementsAre(2, 1));
  EXPECT_THAT(module->ToString(),
              HasSubstr("s = f32[3,2]{1,0} slice(x), slice={[0:5:2], [1:3]}"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
}

TEST(SliceTest, ShapeRuleAndXlaMessages) {
  const Shape x = ShapeUtil::MakeShape(F32, {5, 7});
  using SI = ShapeInference;
  EXPECT_EQ(*SI::InferSliceShape(x, {0, 1}, {5, 7}, {2, 3}),
            ShapeUtil::MakeShape(F32, {3, 2}));
  EXPECT_EQ(*SI::InferSliceShape(x, {2, 7}, {2, 7}, {1, 1}),
            ShapeUtil::MakeShape(F32, {0, 0}));
  auto error = [&](std::vector<int64_t> starts, std::vector<int64_t> limits,
                   std::vector<int64_t> strides) {
    return std::string(
        SI::InferSliceShape(x, starts, limits, strides).status().message());
  };
  EXPECT_THAT(error({0}, {5}, {1}),
              HasSubstr("slice: Slice index count does not match argument "
                        "rank: 1 vs 2 in slice operation; argument shape: "
                        "f32[5,7]; starts: {0}; limits: {5}; strides: {1}."));
  EXPECT_THAT(error({-1, 0}, {5, 7}, {1, 1}),
              HasSubstr("Negative start index to slice: -1"));
  EXPECT_THAT(error({0, 0}, {6, 7}, {1, 1}),
              HasSubstr("limit index (6) must be less than or equal to "
                        "dimension size (5)"));
  EXPECT_THAT(error({3, 0}, {2, 7}, {1, 1}),
              HasSubstr("limit index (2) must be greater or equal to start "
                        "index (3) in slice with positive stride"));
  EXPECT_THAT(error({0, 0}, {5, 7}, {1, 0}),
              HasSubstr("Stride (0) must be positive"));
  EXPECT_THAT(error({0, 0}, {5}, {1, 1}),
              HasSubstr("slice start and limit sizes differ: 2 vs 1"));
}

TEST(SliceTest, BuilderRecordsTheBoundsOrTheError) {
  XlaBuilder b("slice");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {5, 7}), "x");
  Slice(x, {1, 0}, {5, 7}, {2, 3});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const HloInstruction* root =
      computation.module().entry_computation()->root_instruction();
  EXPECT_EQ(root->shape(), ShapeUtil::MakeShape(F32, {2, 3}));
  EXPECT_THAT(root->slice_strides(), ::testing::ElementsAre(2, 3));

  XlaBuilder bad("bad_slice");
  XlaOp y = Parameter(&bad, 0, ShapeUtil::MakeShape(F32, {5, 7}), "y");
  Slice(y, {0, 0}, {5, 8}, {1, 1});
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("limit index (8) must be less than or equal "
                                 "to dimension size (7)")));
}

// Fused with its producer and consumers, at odd sizes and strides; slices
// of slices; a slice feeding a reduction; an empty slice.
TEST(SliceTest, JitMatchesTheInterpreter) {
  for (const char* body : {
           R"(  a = f32[37,29] add(x, y)
  s = f32[12,9] slice(a), slice={[2:37:3], [3:29:3]}
  ROOT n = f32[12,9] negate(s))",
           R"(  s = f32[30,29] slice(x), slice={[7:37], [0:29]}
  t = f32[10,10] slice(s), slice={[1:30:3], [4:24:2]}
  ROOT m = f32[10,10] multiply(t, t))",
           R"(  s = f32[37,5] slice(y), slice={[0:37], [20:29:2]}
  z = f32[] constant(0)
  ROOT r = f32[37] reduce(s, z), dimensions={1}, to_apply=add)",
           R"(  ROOT s = f32[0,29] slice(x), slice={[5:5], [0:29]})"}) {
    const std::string text = absl::StrCat(R"(HloModule m
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY main {
  x = f32[37,29] parameter(0)
  y = f32[37,29] parameter(1)
)", body, "\n}\n");
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
}

}  // namespace
}  // namespace mxla
