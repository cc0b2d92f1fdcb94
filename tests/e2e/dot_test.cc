// dot: XLA's text form and shape rule with its messages, the builder's
// Dot and DotGeneral, and the JIT's expansion into a reduction
// (passes/dot_expander.h) against the interpreter: bit for bit without
// reassociation, within rounding with it.
#include <memory>
#include <string>
#include <vector>

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

using ::mxla::testing::ErrorSpec;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(DotTest, ShapeRuleAndXlaMessages) {
  using SI = ShapeInference;
  const Shape a = ShapeUtil::MakeShape(F32, {4, 2, 3});
  const Shape b = ShapeUtil::MakeShape(F32, {4, 3, 5});
  DotDimensionNumbers batched{{0}, {2}, {0}, {1}};
  EXPECT_EQ(*SI::InferDotShape(a, b, batched),
            ShapeUtil::MakeShape(F32, {4, 2, 5}));
  // No contraction: an outer product over the batch.
  EXPECT_EQ(*SI::InferDotShape(a, b, {{0}, {}, {0}, {}}),
            ShapeUtil::MakeShape(F32, {4, 2, 3, 3, 5}));
  auto error = [&](const Shape& x, const Shape& y, DotDimensionNumbers d) {
    return std::string(SI::InferDotShape(x, y, d).status().message());
  };
  // Mixed precision: the higher operand type, or the preferred type unless
  // that narrows an integer type.
  const Shape s8 = ShapeUtil::MakeShape(S8, {4, 3, 5});
  const Shape s16 = ShapeUtil::MakeShape(S16, {4, 2, 3});
  EXPECT_EQ(*SI::InferDotShape(a, s8, batched),
            ShapeUtil::MakeShape(F32, {4, 2, 5}));
  EXPECT_EQ(*SI::InferDotShape(s16, s8, batched),
            ShapeUtil::MakeShape(S16, {4, 2, 5}));
  EXPECT_EQ(*SI::InferDotShape(s16, s8, batched, S32),
            ShapeUtil::MakeShape(S32, {4, 2, 5}));
  EXPECT_EQ(*SI::InferDotShape(a, b, batched, BF16),
            ShapeUtil::MakeShape(BF16, {4, 2, 5}));
  EXPECT_EQ(std::string(SI::InferDotShape(s16, s8, batched, S8)
                            .status()
                            .message()),
            "dot: `preferred_element_type` must not be narrower than the "
            "original type: s8 for s16[4,2,3] <dot> s8[4,3,5].");
  EXPECT_THAT(error(a, b, {{0}, {2}, {0}, {2}}),
              HasSubstr("Contracting dimension sizes do not match."));
  EXPECT_THAT(error(a, b, {{0}, {2}, {}, {1}}),
              HasSubstr("Must the same number of batch dimensions"));
  EXPECT_THAT(error(a, b, {{0}, {2, 1}, {0}, {1}}),
              HasSubstr("Must specify the same number of contracting "
                        "dimensions for lhs and rhs."));
  EXPECT_THAT(error(a, b, {{0}, {3}, {0}, {1}}),
              HasSubstr("A dimension number is out of range in Dot: 3"));
  EXPECT_THAT(error(a, b, {{0}, {0}, {0}, {1}}),
              HasSubstr("A dimension number is not unique in Dot"));
}

TEST(DotTest, TextAndBuilder) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  a = f32[4,2,3] parameter(0)
  b = f32[4,3,5] parameter(1)
  ROOT d = f32[4,2,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, precision_config={default,default}, algorithm=dot_f32_f32_f32
})"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("dot(a, b), lhs_batch_dims={0}, "
                        "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                        "rhs_contracting_dims={1}\n"));
  XlaBuilder builder("matmul");
  XlaOp x = Parameter(&builder, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  XlaOp y = Parameter(&builder, 1, ShapeUtil::MakeShape(F32, {3, 4}), "y");
  Dot(x, y);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, builder.Build());
  EXPECT_EQ(computation.module().entry_computation()->root_instruction()->shape(),
            ShapeUtil::MakeShape(F32, {2, 4}));
  XlaBuilder bad("bad");
  XlaOp p = Parameter(&bad, 0, ShapeUtil::MakeShape(F32, {2, 3}), "p");
  Dot(p, p);
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Contracting dimension sizes do not match.")));
}

// Matrix, batched, transposed-contraction, vector, outer-product and
// integer dots, fused with producers and consumers.
TEST(DotTest, JitMatchesTheInterpreter) {
  const std::vector<std::string> bodies = {
      R"(  a = f32[17,9] parameter(0)
  b = f32[9,13] parameter(1)
  ROOT d = f32[17,13] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
      R"(  a = f32[3,5,7] parameter(0)
  b = f32[3,6,7] parameter(1)
  n = f32[3,6,7] negate(b)
  d = f32[3,5,6] dot(a, n), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  ROOT e = f32[3,5,6] exponential(d))",
      R"(  a = f32[64] parameter(0)
  b = f32[64] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0})",
      R"(  a = f32[6] parameter(0)
  b = f32[5] parameter(1)
  ROOT d = f32[6,5] dot(a, b))",
      R"(  a = s32[4,8] parameter(0)
  b = s32[8,3] parameter(1)
  ROOT d = s32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
      // Mixed precision and 16-bit floats (accumulated in f32).
      R"(  a = s8[4,8] parameter(0)
  b = s16[8,3] parameter(1)
  ROOT d = s32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
      R"(  a = bf16[5,16] parameter(0)
  b = f32[16,3] parameter(1)
  ROOT d = f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
      R"(  a = bf16[2,5,16] parameter(0)
  b = bf16[2,16,3] parameter(1)
  ROOT d = bf16[2,5,3] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1})",
      R"(  a = f16[7,33] parameter(0)
  b = f16[33] parameter(1)
  ROOT d = f16[7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
  };
  for (const std::string& body : bodies) {
    const std::string text =
        absl::StrCat("HloModule m\nENTRY main {\n", body, "\n}\n");
    RunAndCompareOptions exact;
    exact.compile.codegen.reassociate_reductions = false;
    EXPECT_TRUE(RunAndCompare(text, exact)) << text;
    RunAndCompareOptions reassociated;
    reassociated.error = ErrorSpec{1e-5, 1e-5};
    EXPECT_TRUE(RunAndCompare(text, reassociated)) << text;
  }
}

}  // namespace
}  // namespace mxla
