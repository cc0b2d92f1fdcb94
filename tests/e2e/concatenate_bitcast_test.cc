// concatenate and bitcast: XLA's shape rules and messages, the builder,
// and the JIT (concatenate selects among its operands inside a fusion;
// bitcast is a row-major reshape) against the interpreter.
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

using ::mxla::testing::RunAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ConcatenateTest, ShapeRuleAndXlaMessages) {
  const Shape a = ShapeUtil::MakeShape(F32, {2, 3});
  const Shape b = ShapeUtil::MakeShape(F32, {2, 5});
  const Shape c = ShapeUtil::MakeShape(F32, {4, 3});
  const Shape i = ShapeUtil::MakeShape(S32, {2, 3});
  const Shape v = ShapeUtil::MakeShape(F32, {3});
  using SI = ShapeInference;
  EXPECT_EQ(*SI::InferConcatenateShape({&a, &b, &a}, 1),
            ShapeUtil::MakeShape(F32, {2, 11}));
  auto error = [](std::vector<const Shape*> shapes, int64_t d) {
    return std::string(
        SI::InferConcatenateShape(shapes, d).status().message());
  };
  EXPECT_EQ(error({}, 0), "concatenate: Concatenate expects at least one argument.");
  EXPECT_EQ(error({&a, &b}, 2),
            "concatenate: Concatenate dimension out of bounds: 2.");
  EXPECT_THAT(error({&a, &v}, 0),
              HasSubstr("Cannot concatenate arrays with different ranks: 2 "
                        "(f32[2,3]) vs 1 (f32[3])."));
  EXPECT_THAT(error({&a, &i}, 0),
              HasSubstr("Cannot concatenate arrays with different element "
                        "types: f32 vs s32."));
  EXPECT_THAT(error({&a, &c}, 1),
              HasSubstr("Dimension 0 in both shapes must be equal: f32[2,3] vs "
                        "f32[4,3]."));
}

TEST(ConcatenateTest, BuilderRecordsTheDimension) {
  XlaBuilder b("concat");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  XlaOp y = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {4, 3}), "y");
  ConcatInDim(&b, {x, y, x}, 0);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const HloInstruction* root =
      computation.module().entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kConcatenate);
  EXPECT_EQ(root->shape(), ShapeUtil::MakeShape(F32, {8, 3}));
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kLowered));
  XlaBuilder bad("bad_concat");
  XlaOp p = Parameter(&bad, 0, ShapeUtil::MakeShape(F32, {2, 3}), "p");
  XlaOp q = Parameter(&bad, 1, ShapeUtil::MakeShape(F32, {4, 3}), "q");
  ConcatInDim(&bad, {p, q}, 1);
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimension 0 in both shapes must be equal")));
}

TEST(BitcastTest, IsARowMajorReshapeOfOneElementType) {
  auto verify = [](const std::string& result) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(absl::StrCat(R"(HloModule m
ENTRY main {
  x = f32[4,6] parameter(0)
  ROOT b = )", result, R"( bitcast(x)
})"));
    if (!module.ok()) return module.status();
    return VerifyModule(**module, VerifierMode::kLowered);
  };
  EXPECT_OK(verify("f32[2,12]"));
  EXPECT_THAT(verify("f32[5,5]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("mismatched element counts")));
  EXPECT_THAT(verify("s32[4,6]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("changes the element type")));
}

// Inside fusions: several operands, the concatenated dimension first, in
// the middle and last, concatenate feeding a reduction, bitcast between
// elementwise ops.
TEST(ConcatenateTest, JitMatchesTheInterpreter) {
  for (const char* body : {
           R"(  n = f32[5,7,3] negate(x)
  ROOT c = f32[13,7,3] concatenate(x, n, y), dimensions={0})",
           R"(  e = f32[5,2,3] slice(x), slice={[0:5], [3:5], [0:3]}
  ROOT c = f32[5,11,3] concatenate(e, x, e), dimensions={1})",
           R"(  c = f32[5,7,6] concatenate(x, x), dimensions={2}
  z = f32[] constant(0)
  ROOT r = f32[5,7] reduce(c, z), dimensions={2}, to_apply=add)",
           R"(  a = f32[5,7,3] add(x, x)
  b = f32[35,3] bitcast(a)
  ROOT m = f32[35,3] multiply(b, b))"}) {
    const std::string text = absl::StrCat(R"(HloModule m
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY main {
  x = f32[5,7,3] parameter(0)
  y = f32[3,7,3] parameter(1)
)", body, "\n}\n");
    EXPECT_TRUE(RunAndCompare(text)) << text;
  }
}

}  // namespace
}  // namespace mxla
