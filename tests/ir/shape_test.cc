// Shape, ShapeUtil and PrimitiveType.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "ir/primitive_type.h"
#include "ir/shape.h"
#include "ir/shape_summary.h"
#include "ir/shape_util.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ShapeTest, ToStringForms) {
  Shape matrix = ShapeUtil::MakeShape(F32, {2, 3});
  EXPECT_EQ(matrix.ToString(), "f32[2,3]");
  EXPECT_EQ(matrix.ToStringWithLayout(), "f32[2,3]{1,0}");
  EXPECT_EQ(ShapeUtil::MakeScalarShape(PRED).ToStringWithLayout(), "pred[]");
  Shape tuple = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(S64, {4}), ShapeUtil::MakeScalarShape(F64)});
  EXPECT_EQ(tuple.ToString(), "(s64[4], f64[])");
  EXPECT_EQ(tuple.ToStringWithLayout(), "(s64[4]{0}, f64[])");
  EXPECT_EQ(ShapeUtil::MakeTupleShape({}).ToString(), "()");
}

// Messages summarize long tuples (a ResNet-50 module returns 321 arrays);
// short ones print whole.
TEST(ShapeTest, SummaryShortensLongTuples) {
  std::vector<Shape> leaves = {ShapeUtil::MakeShape(F32, {64, 3, 7, 7})};
  for (int i = 1; i < 320; ++i) leaves.push_back(ShapeUtil::MakeShape(F32, {i}));
  leaves.push_back(ShapeUtil::MakeShape(F32, {1000}));
  const Shape model = ShapeUtil::MakeTupleShape(leaves);
  EXPECT_EQ(ShapeSummary(model),
            "(f32[64,3,7,7], f32[1], f32[2], ... 316 more, f32[319], "
            "f32[1000])");
  // Nested tuples are summarized too, at any depth.
  const Shape nested = ShapeUtil::MakeTupleShape(
      {model, ShapeUtil::MakeScalarShape(S32)});
  EXPECT_EQ(ShapeSummary(nested), "(" + ShapeSummary(model) + ", s32[])");
  // Up to 8 elements: the whole shape, as ToString prints it.
  leaves.resize(8);
  const Shape eight = ShapeUtil::MakeTupleShape(leaves);
  EXPECT_EQ(ShapeSummary(eight), eight.ToString());
  leaves.push_back(ShapeUtil::MakeShape(F32, {8}));
  EXPECT_EQ(ShapeSummary(ShapeUtil::MakeTupleShape(leaves)),
            "(f32[64,3,7,7], f32[1], f32[2], ... 4 more, f32[7], f32[8])");
  EXPECT_EQ(ShapeSummary(ShapeUtil::MakeShape(BF16, {2, 3})), "bf16[2,3]");
  EXPECT_EQ(ShapeSummary(ShapeUtil::MakeTupleShape({})), "()");
}

TEST(ShapeTest, EqualityComparesTypeAndDimensions) {
  EXPECT_EQ(ShapeUtil::MakeShape(F32, {2}), ShapeUtil::MakeShape(F32, {2}));
  EXPECT_NE(ShapeUtil::MakeShape(F32, {2}), ShapeUtil::MakeShape(S32, {2}));
  EXPECT_NE(ShapeUtil::MakeShape(F32, {2}), ShapeUtil::MakeShape(F32, {2, 1}));
  EXPECT_TRUE(ShapeUtil::MakeScalarShape(F32).IsScalar());
  EXPECT_FALSE(ShapeUtil::MakeShape(F32, {1}).IsScalar());
}

TEST(ShapeTest, ElementCountAndBytes) {
  Shape shape = ShapeUtil::MakeShape(F64, {2, 3, 4});
  EXPECT_EQ(ShapeUtil::ElementsIn(shape), 24);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(shape), 192);
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeScalarShape(F32)), 1);
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {3, 0})), 0);
  EXPECT_EQ(ShapeUtil::RowMajorStrides(shape), (std::vector<int64_t>{12, 4, 1}));
}

TEST(ShapeTest, ValidationRejectsBadShapes) {
  EXPECT_OK(ShapeUtil::ValidateShape(ShapeUtil::MakeShape(F32, {0, 5})));
  EXPECT_THAT(ShapeUtil::ValidateShape(ShapeUtil::MakeShape(F32, {2, -1})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid dimension size -1 at dimension 1 in f32[2,-1]")));
  const int64_t big = int64_t{1} << 32;
  EXPECT_THAT(ShapeUtil::ValidateShape(ShapeUtil::MakeShape(F32, {big, big})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overflows")));
  // Fits as an element count, overflows as bytes.
  EXPECT_THAT(ShapeUtil::ValidateShape(
                  ShapeUtil::MakeShape(F64, {int64_t{1} << 61})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("byte size")));
  std::vector<int64_t> deep(ShapeUtil::kMaxRank + 1, 1);
  EXPECT_THAT(ShapeUtil::ValidateShape(ShapeUtil::MakeShape(F32, deep)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("maximum rank")));
  EXPECT_FALSE(ShapeUtil::ValidateShape(Shape()).ok());
  EXPECT_FALSE(ShapeUtil::ValidateShape(ShapeUtil::MakeTupleShape(
                   {ShapeUtil::MakeShape(F32, {-2})}))
                   .ok());
}

TEST(PrimitiveTypeTest, NamesAndProperties) {
  for (PrimitiveType type :
       {PRED, S2, S4, S8, S16, S32, S64, U2, U4, U8, U16, U32, U64, F16, BF16,
        F32, F64, F8E5M2, F8E4M3, F8E3M4, F8E4M3FN, F8E4M3FNUZ, F8E5M2FNUZ,
        F8E4M3B11FNUZ, F4E2M1FN, F8E8M0FNU}) {
    ASSERT_OK_AND_ASSIGN(PrimitiveType parsed,
                         primitive_util::ParseArrayType(
                             primitive_util::LowercaseName(type)));
    EXPECT_EQ(parsed, type);
  }
  EXPECT_EQ(primitive_util::UppercaseName(F32), "F32");
  EXPECT_TRUE(primitive_util::IsFloatingPointType(F64));
  EXPECT_TRUE(primitive_util::IsIntegralType(S32));
  EXPECT_FALSE(primitive_util::IsIntegralType(PRED));
  EXPECT_EQ(primitive_util::ByteWidth(S64), 8);
  EXPECT_EQ(primitive_util::ByteWidth(PRED), 1);
  EXPECT_TRUE(primitive_util::IsIntegralType(U8));
  EXPECT_TRUE(primitive_util::IsUnsignedIntegralType(U64));
  EXPECT_FALSE(primitive_util::IsSignedIntegralType(U32));
  EXPECT_TRUE(primitive_util::IsSignedIntegralType(S8));
  EXPECT_TRUE(primitive_util::IsFloatingPointType(BF16));
  EXPECT_TRUE(primitive_util::IsNarrowFloatType(F16));
  EXPECT_FALSE(primitive_util::IsNarrowFloatType(F32));
  EXPECT_EQ(primitive_util::ComputeType(BF16), F32);
  EXPECT_EQ(primitive_util::ComputeType(U16), U16);
  EXPECT_EQ(primitive_util::ByteWidth(BF16), 2);
  EXPECT_EQ(primitive_util::BitWidth(PRED), 1);
  EXPECT_EQ(primitive_util::BitWidth(S16), 16);
  // XLA's other types are named as such; anything else is unknown.
  EXPECT_THAT(primitive_util::ParseArrayType("c64"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("element type 'c64' (complex) is not "
                                 "supported by mxla")));
  EXPECT_THAT(primitive_util::ParseArrayType("f6e2m3fn"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'f6e2m3fn' (8-bit or smaller float)")));
  EXPECT_EQ(primitive_util::BitWidth(F4E2M1FN), 4);
  EXPECT_EQ(primitive_util::BitWidth(F8E8M0FNU), 8);
  EXPECT_EQ(primitive_util::ByteWidth(F8E4M3FN), 1);
  EXPECT_EQ(primitive_util::MantissaBits(F8E5M2), 2);
  EXPECT_TRUE(primitive_util::IsNarrowFloatType(F8E4M3B11FNUZ));
  EXPECT_EQ(primitive_util::ComputeType(F8E4M3FN), F32);
  EXPECT_THAT(primitive_util::ParseArrayType("s1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'s1' (1-bit integer)")));
  EXPECT_EQ(primitive_util::BitWidth(S4), 4);
  EXPECT_EQ(primitive_util::BitWidth(U2), 2);
  EXPECT_EQ(primitive_util::ByteWidth(S4), 1);
  EXPECT_TRUE(primitive_util::IsSignedIntegralType(S2));
  EXPECT_TRUE(primitive_util::IsUnsignedIntegralType(U4));
  EXPECT_TRUE(primitive_util::IsSubByteIntType(U2));
  EXPECT_FALSE(primitive_util::IsSubByteIntType(S8));
  EXPECT_THAT(primitive_util::ParseArrayType("f17"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown element type 'f17'")));
}

}  // namespace
}  // namespace mxla
