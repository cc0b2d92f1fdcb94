// scaled-dot (shape_inference/scaled_dot.h): hand-computed block-scaled
// products, the dequantized type's rounding and overflow, scale blocks along
// any dimension with batch dimensions, scalar and f32 scales, empty operands
// and the shape rule's errors; the JIT's expansion (expand-scaled-dots) against
// the interpreter everywhere.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "shape_inference/scaled_dot.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::VerifyHloText;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

// f32 parameters converted to the operand and scale types in the module,
// then `ROOT d = <result> scaled-dot(...)`.
std::string Module(const std::string& lhs_dims, const std::string& rhs_dims,
                   const std::string& lhs_scale_dims,
                   const std::string& rhs_scale_dims,
                   const std::string& result, const std::string& attributes,
                   const std::string& value_type = "f8e4m3fn",
                   const std::string& scale_type = "f8e8m0fnu") {
  auto convert = [&](const char* name, int number, const std::string& dims,
                     const std::string& type) {
    return std::string("  ") + name + "32 = f32" + dims + " parameter(" +
           std::to_string(number) + ")\n  " + name + " = " + type + dims +
           " convert(" + name + "32)\n";
  };
  return "HloModule t\nENTRY main {\n" +
         convert("l", 0, lhs_dims, value_type) +
         convert("r", 1, rhs_dims, value_type) +
         convert("ls", 2, lhs_scale_dims, scale_type) +
         convert("rs", 3, rhs_scale_dims, scale_type) + "  ROOT d = " +
         result + " scaled-dot(l, r, ls, rs), " + attributes + "\n}\n";
}

const char kMatmul[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";

TEST(ScaledDotTest, BlocksOfTheContractedDimensionShareAScale) {
  const std::string text =
      Module("[2,4]", "[4,2]", "[2,2]", "[]", "f32[2,2]", kMatmul);
  const Literal lhs =
      LiteralUtil::CreateR2<float>({{1, 2, 3, 4}, {-1, 0.5, 2, 1}});
  const Literal rhs =
      LiteralUtil::CreateR2<float>({{1, 0}, {0, 1}, {1, 1}, {2, -1}});
  // Row 0's first two elements scale by 1, its last two by 2; row 1's by
  // 0.5 and 4; all of rhs by 2.
  const Literal lhs_scale = LiteralUtil::CreateR2<float>({{1, 2}, {0.5, 4}});
  const Literal rhs_scale = LiteralUtil::CreateR0<float>(2);
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &rhs, &lhs_scale, &rhs_scale}),
            LiteralUtil::CreateR2<float>({{46, 0}, {31, 8.5}}));
}

TEST(ScaledDotTest, DequantizedValuesRoundToTheirTypeAndNaNScalesStayInBlock) {
  // 448 * 2^127 overflows bf16 (the dequantized type of f8 and f8e8m0fnu):
  // inf, and inf * 0 in the dot is NaN. A negative scale is f8e8m0fnu's
  // NaN: only its block's products are NaN.
  const std::string text =
      Module("[2,4]", "[4,1]", "[2,2]", "[1,1]", "f32[2,1]", kMatmul);
  const Literal lhs =
      LiteralUtil::CreateR2<float>({{448, 1, 1, 1}, {1, 1, 1, 1}});
  const Literal lhs_scale = LiteralUtil::CreateR2<float>(
      {{std::ldexp(1.0f, 127), 1}, {1, -1}});
  const Literal rhs = LiteralUtil::CreateR2<float>({{1}, {1}, {0}, {0}});
  const Literal rhs_scale = LiteralUtil::CreateR2<float>({{1}});
  const Literal result =
      EvaluateAndCompare(text, {&lhs, &rhs, &lhs_scale, &rhs_scale});
  ASSERT_EQ(result.shape().ToString(), "f32[2,1]");
  const float* out = static_cast<const float*>(result.untyped_data());
  EXPECT_EQ(out[0], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(out[1]));  // NaN scale times 0 is NaN
  const Literal zero_rhs = LiteralUtil::CreateR2<float>({{0}, {1}, {1}, {1}});
  const Literal second =
      EvaluateAndCompare(text, {&lhs, &zero_rhs, &lhs_scale, &rhs_scale});
  EXPECT_TRUE(std::isnan(static_cast<const float*>(second.untyped_data())[0]));
}

// Scales of lhs f32[2,2,4] blocked along its free dimension (blocks of 2)
// and the contracted one (blocks of 2); rhs f32[2,4,1]'s along the
// contracted one (one block); against the definition computed here.
TEST(ScaledDotTest, BatchDimensionsAndBlocksAlongAnyDimension) {
  const std::string text = Module(
      "[2,2,4]", "[2,4,1]", "[2,1,2]", "[2,1,1]", "f32[2,2,1]",
      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={1}");
  std::vector<float> l(16), r(8);
  for (int i = 0; i < 16; ++i) l[i] = static_cast<float>(i % 7) - 3;
  for (int i = 0; i < 8; ++i) r[i] = static_cast<float>(i % 3) + 0.5f;
  const std::vector<float> ls = {0.5, 2, 4, 0.25};  // [2,1,2]
  const std::vector<float> rs = {2, 8};             // [2,1,1]
  std::vector<float> expected(4);
  for (int b = 0; b < 2; ++b) {
    for (int m = 0; m < 2; ++m) {
      float sum = 0;
      for (int k = 0; k < 4; ++k) {
        sum += l[b * 8 + m * 4 + k] * ls[b * 2 + k / 2] * r[b * 4 + k] * rs[b];
      }
      expected[b * 2 + m] = sum;
    }
  }
  auto literal = [](const std::vector<float>& values,
                    std::vector<int64_t> dims) {
    Literal x(ShapeUtil::MakeShape(F32, dims));
    std::copy(values.begin(), values.end(),
              static_cast<float*>(x.untyped_data()));
    return x;
  };
  const Literal lhs = literal(l, {2, 2, 4});
  const Literal rhs = literal(r, {2, 4, 1});
  const Literal lhs_scale = literal(ls, {2, 1, 2});
  const Literal rhs_scale = literal(rs, {2, 1, 1});
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &rhs, &lhs_scale, &rhs_scale}),
            literal(expected, {2, 2, 1}));
}

TEST(ScaledDotTest, DequantizedTypeFollowsXla) {
  EXPECT_EQ(DequantizedType(F8E4M3FN, F8E8M0FNU), BF16);
  EXPECT_EQ(DequantizedType(F4E2M1FN, F8E4M3FN), BF16);
  EXPECT_EQ(DequantizedType(F8E4M3FN, F32), F32);
  EXPECT_EQ(DequantizedType(F16, BF16), F32);
  EXPECT_EQ(DequantizedType(F16, F16), F16);
  EXPECT_EQ(DequantizedType(F8E5M2, F16), F16);
  EXPECT_EQ(DequantizedType(F64, F32), F64);
}

TEST(ScaledDotTest, F32ScalesDequantizeInF32) {
  // 1.125 * 1.001 is not a bf16 value: the f32 scale keeps it.
  const std::string text = Module("[1,2]", "[2,1]", "[1,1]", "[]", "f32[1,1]",
                                  kMatmul, "f8e4m3fn", "f32");
  const Literal lhs = LiteralUtil::CreateR2<float>({{1.125, 0}});
  const Literal rhs = LiteralUtil::CreateR2<float>({{1}, {1}});
  const Literal lhs_scale = LiteralUtil::CreateR2<float>({{1.001f}});
  const Literal rhs_scale = LiteralUtil::CreateR0<float>(1);
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &rhs, &lhs_scale, &rhs_scale}),
            LiteralUtil::CreateR2<float>({{1.125f * 1.001f}}));
}

TEST(ScaledDotTest, EmptyOperands) {
  const std::string text =
      Module("[0,4]", "[4,3]", "[0,2]", "[1,3]", "f32[0,3]", kMatmul);
  const Literal lhs(ShapeUtil::MakeShape(F32, {0, 4}));
  const Literal lhs_scale(ShapeUtil::MakeShape(F32, {0, 2}));
  Literal rhs(ShapeUtil::MakeShape(F32, {4, 3}));
  Literal rhs_scale(ShapeUtil::MakeShape(F32, {1, 3}));
  for (int i = 0; i < 12; ++i) static_cast<float*>(rhs.untyped_data())[i] = 1;
  for (int i = 0; i < 3; ++i) {
    static_cast<float*>(rhs_scale.untyped_data())[i] = 1;
  }
  EXPECT_EQ(EvaluateAndCompare(text, {&lhs, &rhs, &lhs_scale, &rhs_scale}),
            Literal(ShapeUtil::MakeShape(F32, {0, 3})));
}

TEST(ScaledDotTest, ShapeRuleErrors) {
  EXPECT_THAT(
      VerifyHloText(Module("[2,4]", "[4,2]", "[2]", "[]", "f32[2,2]", kMatmul)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("scaled-dot: lhs scale f8e8m0fnu[2] must be a scalar "
                         "or have the rank of lhs f8e4m3fn[2,4] (2)")));
  EXPECT_THAT(
      VerifyHloText(Module("[2,4]", "[4,2]", "[2,3]", "[]", "f32[2,2]", kMatmul)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("scaled-dot: lhs f8e4m3fn[2,4] and its scale "
                         "f8e8m0fnu[2,3]: a scale dimension must divide the "
                         "operand's, but dimension 1 is 4 vs 3")));
  EXPECT_THAT(
      VerifyHloText(Module("[2,4]", "[4,2]", "[2,1]", "[4,0]", "f32[2,2]", kMatmul)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("scaled-dot: rhs f8e4m3fn[4,2] and its scale "
                         "f8e8m0fnu[4,0]: a scale dimension must divide the "
                         "operand's, but dimension 1 is 2 vs 0")));
  EXPECT_THAT(
      VerifyHloText(Module("[2,4]", "[3,2]", "[2,1]", "[]", "f32[2,2]", kMatmul)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("scaled-dot: on the dequantized operands: Cannot "
                         "infer shape for dot operation: bf16[2,4] <dot> "
                         "bf16[3,2]. Contracting dimension sizes do not "
                         "match.")));
  EXPECT_THAT(VerifyHloText(Module("[2,4]", "[4,2]", "[]", "[]", "f32[2,2]", kMatmul,
                            "pred", "f8e8m0fnu")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("scaled-dot: lhs must be a numeric array, "
                                 "but is pred[2,4]")));
}

TEST(ScaledDotTest, BuilderFunction) {
  XlaBuilder builder("mx");
  XlaOp l = Parameter(&builder, 0, ShapeUtil::MakeShape(F8E4M3FN, {2, 64}), "l");
  XlaOp r = Parameter(&builder, 1, ShapeUtil::MakeShape(F8E4M3FN, {64, 3}), "r");
  XlaOp ls = Parameter(&builder, 2, ShapeUtil::MakeShape(F8E8M0FNU, {2, 2}), "ls");
  XlaOp rs = Parameter(&builder, 3, ShapeUtil::MakeShape(F8E8M0FNU, {2, 3}), "rs");
  DotDimensionNumbers dnums;
  dnums.lhs_contracting = {1};
  dnums.rhs_contracting = {0};
  ScaledDot(l, r, ls, rs, dnums);
  absl::StatusOr<XlaComputation> computation = builder.Build();
  ASSERT_OK(computation.status());
  const std::string text = computation->module().ToString();
  EXPECT_THAT(text, HasSubstr("bf16[2,3]{1,0} scaled-dot(l, r, ls, rs), "
                              "lhs_contracting_dims={1}, "
                              "rhs_contracting_dims={0}"));
  EXPECT_EQ(ParseHloModule(text).value()->ToString(), text);

  XlaBuilder bad("mx");
  XlaOp x = Parameter(&bad, 0, ShapeUtil::MakeShape(F8E4M3FN, {2, 64}), "x");
  XlaOp scale = Parameter(&bad, 1, ShapeUtil::MakeShape(F8E8M0FNU, {2, 3}), "s");
  ScaledDot(x, x, scale, scale, dnums);
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ScaledDot(f8e4m3fn[2,64], f8e4m3fn[2,64], "
                                 "f8e8m0fnu[2,3], f8e8m0fnu[2,3], "
                                 "lhs_batch_dims={}, "
                                 "lhs_contracting_dims={1}")));
}

}  // namespace
}  // namespace mxla
