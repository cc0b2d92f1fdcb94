// builder/operators.h and builder/reductions.h: scalars that follow the
// operand's element type, C++ operators on XlaOp, NumPy-style reductions
// with keepdims (and the wrong-axis trap without them), and their errors.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "builder/numpy.h"
#include "builder/operators.h"
#include "builder/reductions.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

Shape F32Shape(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(F32, dims);
}

Literal RunOn(XlaBuilder& b, XlaOp root,
              const std::vector<const Literal*>& args) {
  std::unique_ptr<Executable> executable = Compile(b.Build(root).value()).value();
  return executable->Run(args).value();
}

TEST(OperatorsTest, ScalarsFollowTheOperandsElementType) {
  struct Case {
    PrimitiveType type;
    double value;
    const char* text;  // the constant as HLO prints it
  };
  for (const Case& c : {Case{F32, 0.5, "f32[] constant(0.5)"},
                        Case{F64, 0.1, "f64[] constant(0.1)"},
                        Case{S32, -3, "s32[] constant(-3)"},
                        Case{S64, 1e12, "s64[] constant(1000000000000)"},
                        Case{PRED, 2, "pred[] constant(true)"},
                        Case{F16, 0.5, "f16[] convert("},
                        Case{U8, 300, "u8[] convert("}}) {
    XlaBuilder b("scalar_like");
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(c.type, {2}), "x");
    XlaOp s = ScalarLike(x, c.value);
    ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(s));
    EXPECT_EQ(shape, ShapeUtil::MakeShape(c.type, {}));
    EXPECT_THAT(b.Build(s).value().ToString(), HasSubstr(c.text));
  }
  // Converted values round and saturate as ConvertElementType does.
  XlaBuilder b("saturate");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(U8, {1}), "x");
  Literal xs = LiteralUtil::CreateR1<uint8_t>({7});
  Literal out = RunOn(b, ScalarLike(x, 300) + x * 0, {&xs});
  EXPECT_EQ(out.data<uint8_t>()[0], 255);
}

TEST(OperatorsTest, OperatorsBuildTheOps) {
  XlaBuilder b("operators");
  XlaOp x = Parameter(&b, 0, F32Shape({3}), "x");
  XlaOp y = Parameter(&b, 1, F32Shape({3}), "y");
  XlaOp out = (x * 0.5 + y) / 2.0 - (1 - -x) * y;
  Literal xs = LiteralUtil::CreateR1<float>({1, 2, 3});
  Literal ys = LiteralUtil::CreateR1<float>({4, 5, 6});
  Literal got = RunOn(b, out, {&xs, &ys});
  for (int i = 0; i < 3; ++i) {
    const float x_i = xs.data<float>()[i], y_i = ys.data<float>()[i];
    EXPECT_FLOAT_EQ(got.data<float>()[i],
                    (x_i * 0.5f + y_i) / 2.0f - (1 + x_i) * y_i);
  }
  // Mismatched ranks need broadcast_dimensions, as for Add itself.
  XlaBuilder bad("ranks");
  XlaOp m = Parameter(&bad, 0, F32Shape({2, 3}), "m");
  XlaOp v = Parameter(&bad, 1, F32Shape({3}), "v");
  EXPECT_FALSE((m + v).valid());
  EXPECT_THAT(bad.first_error(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Add(f32[2,3], f32[3])")));
}

TEST(ReductionsTest, SumMaxMinMeanWithKeepdims) {
  XlaBuilder b("reductions");
  XlaOp x = Parameter(&b, 0, F32Shape({2, 3}), "x");
  XlaOp sum = ReduceSum(x, {1});
  XlaOp max = ReduceMax(x, {-1}, /*keepdims=*/true);
  XlaOp min = ReduceMin(x, {1, 0});
  XlaOp mean = ReduceMean(x, {0}, /*keepdims=*/true);
  ASSERT_OK_AND_ASSIGN(Shape max_shape, b.GetShape(max));
  EXPECT_EQ(max_shape, F32Shape({2, 1}));
  ASSERT_OK_AND_ASSIGN(Shape mean_shape, b.GetShape(mean));
  EXPECT_EQ(mean_shape, F32Shape({1, 3}));
  Literal xs = LiteralUtil::CreateR2<float>({{1, -2, 3}, {4, 5, -6}});
  Literal out = RunOn(b, Tuple(&b, {sum, max, min, mean}), {&xs});
  EXPECT_EQ(out.tuple_element(0), LiteralUtil::CreateR1<float>({2, 3}));
  EXPECT_EQ(out.tuple_element(1), LiteralUtil::CreateR2<float>({{3}, {5}}));
  EXPECT_EQ(out.tuple_element(2), LiteralUtil::CreateR0<float>(-6));
  EXPECT_EQ(out.tuple_element(3),
            LiteralUtil::CreateR2<float>({{2.5f, 1.5f, -1.5f}}));
  // Integer max/min start from the type's extremes (what an empty
  // reduction returns).
  XlaBuilder ints("ints");
  XlaOp n = Parameter(&ints, 0, ShapeUtil::MakeShape(S64, {0}), "n");
  Literal none = LiteralUtil::CreateR1<int64_t>({});
  Literal extremes = RunOn(
      ints, Tuple(&ints, {ReduceMax(n, {0}), ReduceMin(n, {0})}), {&none});
  EXPECT_EQ(extremes.tuple_element(0),
            LiteralUtil::CreateR0<int64_t>(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(extremes.tuple_element(1),
            LiteralUtil::CreateR0<int64_t>(std::numeric_limits<int64_t>::max()));
}

// Layer norm's centering on a square input: with keepdims the mean of
// each row is subtracted from that row; without it, NumPy's alignment puts
// the row means along the last axis, a different (wrong) answer that no
// shape check can catch.
TEST(ReductionsTest, KeepdimsAvoidsTheWrongAxisOnSquareInputs) {
  Literal xs = LiteralUtil::CreateR2<float>({{1, 2}, {10, 20}});
  XlaBuilder kept("kept");
  XlaOp x = Parameter(&kept, 0, F32Shape({2, 2}), "x");
  Literal right = RunOn(kept, numpy::Sub(x, ReduceMean(x, {1}, true)), {&xs});
  EXPECT_EQ(right, LiteralUtil::CreateR2<float>({{-0.5f, 0.5f}, {-5, 5}}));
  XlaBuilder dropped("dropped");
  XlaOp y = Parameter(&dropped, 0, F32Shape({2, 2}), "x");
  Literal wrong = RunOn(dropped, numpy::Sub(y, ReduceMean(y, {1})), {&xs});
  EXPECT_EQ(wrong, LiteralUtil::CreateR2<float>({{-0.5f, -13}, {8.5f, 5}}));
}

TEST(ReductionsTest, ErrorsNameTheOpTheShapeAndTheAxis) {
  struct Case {
    XlaOp (*reduce)(XlaOp, absl::Span<const int64_t>, bool, SourceLocation);
    std::vector<int64_t> axes;
    PrimitiveType type;
    const char* message;
  };
  for (const Case& c :
       {Case{&ReduceSum, {2}, F32,
             "ReduceSum(f32[2,3], axes={2}) at "},
        Case{&ReduceMax, {0, -2}, F32, "axis -2 is repeated"},
        Case{&ReduceMean, {1}, S32,
             "the mean needs a floating-point operand, not s32"}}) {
    XlaBuilder b("errors");
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(c.type, {2, 3}), "x");
    EXPECT_FALSE(c.reduce(x, c.axes, false, SourceLocation::current()).valid());
    EXPECT_THAT(b.first_error(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(c.message)));
  }
  XlaBuilder b("range");
  XlaOp x = Parameter(&b, 0, F32Shape({2, 3}), "x");
  ReduceSum(x, {2});
  EXPECT_THAT(b.first_error().message(),
              HasSubstr("operators_reductions_test.cc"));
  EXPECT_THAT(b.first_error().message(),
              HasSubstr("axis 2 is out of range for rank 2"));
}

}  // namespace
}  // namespace mxla
