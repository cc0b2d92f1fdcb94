// Tests of ShapeInference against xla-semantics.md §a: the broadcasting
// tables of §a.2, XLA's checking order, every error category of §a.5, and
// the non-binary ops.
#include "shape_inference/shape_inference.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/shape_util.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::IsOk;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
using Dims = std::vector<int64_t>;
using SI = ShapeInference;

// InvalidArgument whose message contains every fragment.
template <typename... Fragments>
auto Invalid(const Fragments&... fragments) {
  return StatusIs(kInvalid, AllOf(HasSubstr(std::string(fragments))...));
}

Shape S(PrimitiveType type, Dims dims) {
  return ShapeUtil::MakeShape(type, dims);
}
Shape F(Dims dims) { return S(F32, dims); }

absl::StatusOr<Shape> Add(const Shape& lhs, const Shape& rhs, Dims dims = {}) {
  return SI::InferBinaryOpShape(HloOpcode::kAdd, lhs, rhs, dims);
}

// §a.2 "Both operands can be stretched": each row is tried with the
// lower-rank operand on the left and on the right.
struct StretchRow {
  Dims small, large, dims, result;
};

TEST(BinaryShapeTest, StretchTableBothOrders) {
  const std::vector<StretchRow> rows = {
      {{}, {2, 3}, {}, {2, 3}},
      {{3}, {4, 3}, {1}, {4, 3}},
      {{4}, {4, 3}, {0}, {4, 3}},
      {{2, 1}, {2, 3, 4}, {0, 2}, {2, 3, 4}},
      {{2, 3}, {2, 1, 4}, {0, 1}, {2, 3, 4}},
      {{1, 2}, {4, 3, 1}, {1, 2}, {4, 3, 2}},
      {{4}, {1, 2}, {0}, {4, 2}},
  };
  for (const StretchRow& row : rows) {
    SCOPED_TRACE(F(row.small).ToString() + " vs " + F(row.large).ToString());
    ASSERT_OK_AND_ASSIGN(Shape left, Add(F(row.small), F(row.large), row.dims));
    EXPECT_EQ(left, F(row.result));
    ASSERT_OK_AND_ASSIGN(Shape right,
                         Add(F(row.large), F(row.small), row.dims));
    EXPECT_EQ(right, F(row.result));
  }
}

TEST(BinaryShapeTest, StretchTableErrorRows) {
  EXPECT_THAT(Add(F({3}), F({4, 3}), {0}),
              Invalid("Broadcast dimension 0 mismatch: 3 != 4"));
  EXPECT_THAT(Add(F({2, 3, 4}), F({2, 1}), {1, 2}),
              Invalid("dimension 0 mismatch: 2 != 3"));
}

TEST(BinaryShapeTest, Scalars) {
  ASSERT_OK_AND_ASSIGN(Shape a, Add(F({}), F({2, 3})));
  EXPECT_EQ(a, F({2, 3}));
  ASSERT_OK_AND_ASSIGN(Shape b, Add(F({}), F({1})));
  EXPECT_EQ(b, F({1}));
  ASSERT_OK_AND_ASSIGN(Shape c, Add(F({1}), F({0})));
  EXPECT_EQ(c, F({0}));
  ASSERT_OK_AND_ASSIGN(Shape d, Add(F({0}), F({1})));
  EXPECT_EQ(d, F({0}));
  ASSERT_OK_AND_ASSIGN(Shape e, Add(F({}), F({})));
  EXPECT_EQ(e, F({}));
  EXPECT_THAT(Add(F({}), F({2, 3}), {0}),
              Invalid("lower-rank operand's rank is 0, size of "
                      "broadcast_dimensions is 1."));
  // Two scalars: {0} is not the rank-0 identity.
  EXPECT_THAT(Add(F({}), F({}), {0}),
              Invalid("must either be not set or be the identity"));
}

TEST(BinaryShapeTest, EqualRankRules) {
  ASSERT_OK_AND_ASSIGN(Shape same, Add(F({2, 3}), F({2, 3}), {0, 1}));
  EXPECT_EQ(same, F({2, 3}));
  ASSERT_OK_AND_ASSIGN(Shape outer, Add(F({2, 1}), F({1, 3})));
  EXPECT_EQ(outer, F({2, 3}));
  EXPECT_THAT(Add(F({2, 3}), F({2, 3}), {1, 0}),
              Invalid("Broadcast dimensions field must either be not "
                      "set or be the identity on binary operations "
                      "with operands of the same rank."));
  EXPECT_THAT(Add(F({2, 3}), F({2, 3}), {0}), Invalid("be the identity"));
}

// Full message pinned verbatim (the op is named inside XLA's text).
TEST(BinaryShapeTest, IncompatibleShapesMessageVerbatim) {
  absl::StatusOr<Shape> result = Add(F({7, 2, 5}), F({7, 2, 6}));
  EXPECT_THAT(
      result,
      StatusIs(kInvalid, ::testing::Eq("Binary op add with incompatible "
                                       "shapes: f32[7,2,5] and f32[7,2,6].")));
}

// Full message pinned verbatim: mxla's prefix plus XLA's fragment.
TEST(BinaryShapeTest, RankMismatchMessageVerbatim) {
  EXPECT_THAT(
      Add(F({3}), F({2, 3})),
      StatusIs(kInvalid,
               ::testing::Eq("add(f32[3], f32[2,3]): Shapes must be "
                             "equal rank, but are f32[3] and f32[2,3]")));
}

TEST(BinaryShapeTest, InDimErrors) {
  // Messages keep lhs/rhs order; the lower-rank operand may be either.
  EXPECT_THAT(
      Add(F({2, 3}), F({3})),
      Invalid("Shapes must be equal rank, but are f32[2,3] and f32[3]"));
  EXPECT_THAT(Add(F({2, 3}), F({3}), {1, 0}),
              Invalid("lower-rank operand's rank is 1, size of "
                      "broadcast_dimensions is 2."));
  EXPECT_THAT(Add(F({3}), F({2, 3}), {0, 1}),
              Invalid("Size of broadcast_dimensions has to match "
                      "lower-rank operand's rank; lower-rank "
                      "operand's rank is 1, size of "
                      "broadcast_dimensions is 2.",
                      "add", "f32[2,3]"));
  EXPECT_THAT(Add(F({3}), F({2, 3}), {-1}),
              Invalid("Broadcast dimension number (-1) "
                      "cannot be negative."));
  EXPECT_THAT(Add(F({3}), F({2, 3}), {3}),
              Invalid("Broadcast dimension number (3) too large; "
                      "higher-rank operand has rank 2."));
  EXPECT_THAT(Add(F({3}), F({2, 3}), {0}),
              Invalid("Broadcast dimension 0 mismatch: "
                      "3 != 2; f32[3] and f32[2,3].",
                      "add("));
}

// §a.2 step 7.3: per index, negative/too large/size before order.
TEST(BinaryShapeTest, CheckingOrderExamples) {
  EXPECT_THAT(Add(F({2, 2}), F({2, 3, 1}), {1, 2}),
              Invalid("Broadcast dimension 0 mismatch: 2 != 3"));
  EXPECT_THAT(Add(F({16, 8, 4}), F({8, 4}), {2, 1}),
              Invalid("Broadcast dimension 0 mismatch: 8 != 4"));
  EXPECT_THAT(Add(F({8, 8}), F({8, 8, 8}), {1, 0}),
              Invalid("Broadcast dimensions order is wrong: "
                      "0 comes after 1."));
  EXPECT_THAT(Add(F({8, 8}), F({8, 8, 8}), {0, 0}),
              Invalid("Broadcast dimensions order is wrong: "
                      "0 comes after 0."));
  // Index 0 passes every check; index 1 fails the first one.
  EXPECT_THAT(Add(F({8, 8}), F({8, 8, 8}), {1, -1}),
              Invalid("(-1) cannot be negative"));
  // Size mismatch at index 0 wins over the out-of-range index 1.
  EXPECT_THAT(Add(F({5, 8}), F({8, 8, 8}), {0, 9}),
              Invalid("dimension 0 mismatch: 5 != 8"));
}

TEST(BinaryShapeTest, TypeRulesComeBeforeElementTypes) {
  auto infer = [](HloOpcode op, const Shape& l, const Shape& r) {
    return SI::InferBinaryOpShape(op, l, r, {});
  };
  const Shape p2 = S(PRED, {2});
  for (HloOpcode op : {HloOpcode::kSubtract, HloOpcode::kDivide,
                       HloOpcode::kPower, HloOpcode::kRemainder}) {
    std::string name(HloOpcodeString(op));
    EXPECT_THAT(infer(op, p2, p2),
                Invalid("Expected element type in shape to be "
                        "arithmetic type for operation " +
                        name + "; got PRED."));
    // PRED on the rhs only is rejected by the type rule, not step 3.
    EXPECT_THAT(infer(op, F({2}), p2), Invalid("arithmetic type"));
  }
  EXPECT_THAT(infer(HloOpcode::kAnd, F({2}), F({2})),
              Invalid("Expected element type in shape to be predicate "
                      "or integral for operation and; got F32."));
  EXPECT_THAT(infer(HloOpcode::kXor, S(F64, {}), S(F64, {})),
              Invalid("for operation xor; got F64."));
  EXPECT_OK(infer(HloOpcode::kOr, p2, p2));
  EXPECT_OK(infer(HloOpcode::kAnd, S(S32, {2}), S(S32, {2})));
  for (HloOpcode op : {HloOpcode::kAdd, HloOpcode::kMultiply,
                       HloOpcode::kMaximum, HloOpcode::kMinimum}) {
    EXPECT_OK(infer(op, p2, p2));
  }
  EXPECT_THAT(
      infer(HloOpcode::kAdd, F({2}), S(S32, {2})),
      StatusIs(kInvalid, ::testing::Eq("Binary op add with different "
                                       "element types: f32[2] and s32[2].")));
  // Element types are checked before shapes.
  EXPECT_THAT(infer(HloOpcode::kAdd, F({3}), S(S32, {2, 3})),
              Invalid("different element types"));
}

TEST(BinaryShapeTest, CompareGivesPred) {
  ASSERT_OK_AND_ASSIGN(
      Shape shape,
      SI::InferBinaryOpShape(HloOpcode::kCompare, F({3}), F({2, 3}), {1}));
  EXPECT_EQ(shape, S(PRED, {2, 3}));
  EXPECT_THAT(
      SI::InferBinaryOpShape(HloOpcode::kCompare, F({3}), F({2, 3}), {}),
      Invalid("compare("));
}

TEST(BinaryShapeTest, BadInputsNeverCrash) {
  const Shape tuple = ShapeUtil::MakeTupleShape({F({})});
  EXPECT_THAT(Add(tuple, F({})), Invalid("Expected array argument for lhs of "
                                         "binary operation add"));
  EXPECT_THAT(Add(F({}), tuple), Invalid("Expected array argument for rhs"));
  EXPECT_THAT(Add(Shape(), F({})), Invalid("lhs"));
  EXPECT_THAT(Add(F({-1}), F({-1})), Invalid("Invalid dimension size"));
  EXPECT_THAT(Add(F(Dims(40, 1)), F(Dims(40, 1))), Invalid("rank"));
  const int64_t big = int64_t{1} << 40;
  EXPECT_THAT(Add(F({big, 1}), F({1, big})), Invalid("overflows"));
  EXPECT_THAT(SI::InferBinaryOpShape(HloOpcode::kNegate, F({}), F({}), {}),
              Invalid("negate"));
}

TEST(UnaryShapeTest, TypeRules) {
  EXPECT_EQ(*SI::InferUnaryOpShape(HloOpcode::kNegate, S(S32, {2})),
            S(S32, {2}));
  EXPECT_THAT(SI::InferUnaryOpShape(HloOpcode::kNegate, S(PRED, {2})),
              Invalid("negate", "pred[2]", "got PRED"));
  EXPECT_THAT(SI::InferUnaryOpShape(HloOpcode::kAbs, S(PRED, {})),
              Invalid("abs"));
  for (HloOpcode op :
       {HloOpcode::kExp, HloOpcode::kLog, HloOpcode::kSqrt, HloOpcode::kRsqrt,
        HloOpcode::kTanh, HloOpcode::kLogistic, HloOpcode::kFloor,
        HloOpcode::kCeil, HloOpcode::kSin, HloOpcode::kCos, HloOpcode::kTan,
        HloOpcode::kExpm1, HloOpcode::kLog1p, HloOpcode::kCbrt,
        HloOpcode::kErf, HloOpcode::kAsin, HloOpcode::kAcos,
        HloOpcode::kSinh, HloOpcode::kCosh, HloOpcode::kAsinh,
        HloOpcode::kAcosh, HloOpcode::kAtan, HloOpcode::kRoundNearestAfz,
        HloOpcode::kRoundNearestEven}) {
    EXPECT_OK(SI::InferUnaryOpShape(op, S(F64, {3})));
    EXPECT_THAT(
        SI::InferUnaryOpShape(op, S(S32, {3})),
        Invalid(std::string(HloOpcodeString(op)), "floating", "s32[3]"));
  }
  for (PrimitiveType type : {PRED, S32, S64, F32, F64}) {
    EXPECT_EQ(*SI::InferUnaryOpShape(HloOpcode::kCopy, S(type, {2})),
              S(type, {2}));
  }
  EXPECT_OK(SI::InferUnaryOpShape(HloOpcode::kNot, S(PRED, {2})));
  EXPECT_OK(SI::InferUnaryOpShape(HloOpcode::kNot, S(S64, {2})));
  EXPECT_THAT(SI::InferUnaryOpShape(HloOpcode::kNot, F({2})), Invalid("not: "));
  EXPECT_THAT(SI::InferUnaryOpShape(HloOpcode::kAdd, F({2})), Invalid("add"));
  EXPECT_THAT(SI::InferUnaryOpShape(HloOpcode::kNegate, Shape()),
              Invalid("Expected array argument"));
}

TEST(SelectShapeTest, LoweredFormNeedsEqualDimensions) {
  const Shape p = S(PRED, {2, 3});
  ASSERT_OK_AND_ASSIGN(Shape shape,
                       SI::InferSelectShape(p, F({2, 3}), F({2, 3}), false));
  EXPECT_EQ(shape, F({2, 3}));
  EXPECT_THAT(SI::InferSelectShape(p, F({2, 3}), F({3, 2}), false),
              Invalid("select", "Operands to select must be the same shape",
                      "f32[3,2]"));
  EXPECT_THAT(SI::InferSelectShape(p, F({2, 3}), S(S32, {2, 3}), false),
              Invalid("Operands to select must be the same shape"));
  EXPECT_THAT(SI::InferSelectShape(F({2, 3}), F({2, 3}), F({2, 3}), false),
              Invalid("Select's pred operand must have PRED element type"));
  EXPECT_THAT(
      SI::InferSelectShape(S(PRED, {}), F({2, 3}), F({2, 3}), false),
      Invalid("Operands to select and predicate must be the same shape"));
  EXPECT_THAT(SI::InferSelectShape(p, F({}), F({2, 3}), false),
              Invalid("Operands to select must be the same shape"));
}

TEST(SelectShapeTest, BuilderFormBroadcastsScalars) {
  ASSERT_OK_AND_ASSIGN(Shape a,
                       SI::InferSelectShape(S(PRED, {}), F({2}), F({}), true));
  EXPECT_EQ(a, F({2}));
  ASSERT_OK_AND_ASSIGN(Shape b,
                       SI::InferSelectShape(S(PRED, {4}), F({}), F({}), true));
  EXPECT_EQ(b, F({4}));
  ASSERT_OK_AND_ASSIGN(Shape c,
                       SI::InferSelectShape(S(PRED, {}), F({}), F({}), true));
  EXPECT_EQ(c, F({}));
  EXPECT_THAT(
      SI::InferSelectShape(S(PRED, {3}), F({2}), F({}), true),
      Invalid("Operands to select and predicate must be the same shape"));
  EXPECT_THAT(SI::InferSelectShape(S(PRED, {}), F({2}), F({1}), true),
              Invalid("Operands to select must be the same shape"));
  EXPECT_THAT(SI::InferSelectShape(S(PRED, {}), ShapeUtil::MakeTupleShape({}),
                                   F({}), true),
              Invalid("Expected array argument for on_true"));
}

TEST(ConvertShapeTest, ChangesElementTypeOnly) {
  ASSERT_OK_AND_ASSIGN(Shape shape, SI::InferConvertShape(F({2, 3}), S32));
  EXPECT_EQ(shape, S(S32, {2, 3}));
  EXPECT_THAT(SI::InferConvertShape(F({2}), TUPLE), Invalid("convert"));
  EXPECT_THAT(SI::InferConvertShape(ShapeUtil::MakeTupleShape({}), F32),
              Invalid("convert"));
}

TEST(BroadcastInDimShapeTest, ResultAndStretching) {
  ASSERT_OK_AND_ASSIGN(Shape a, SI::InferBroadcastInDimShape(
                                    F({2, 1, 4}), {2, 3, 4}, {0, 1, 2}));
  EXPECT_EQ(a, F({2, 3, 4}));
  ASSERT_OK_AND_ASSIGN(
      Shape b, SI::InferBroadcastInDimShape(F({2, 3}), {2, 4, 3}, {0, 2}));
  EXPECT_EQ(b, F({2, 4, 3}));
  ASSERT_OK_AND_ASSIGN(Shape c, SI::InferBroadcastInDimShape(F({}), {5}, {}));
  EXPECT_EQ(c, F({5}));
}

// §a.4: output sizes, length, range, rank, then per index size and order.
TEST(BroadcastInDimShapeTest, CheckingOrder) {
  EXPECT_THAT(SI::InferBroadcastInDimShape(F({3}), {-1, 3}, {7, 7}),
              Invalid("broadcast", "Invalid dimension size"));
  EXPECT_THAT(
      SI::InferBroadcastInDimShape(F({3}), {2, 3}, {0, 1}),
      Invalid("Size of broadcast_dimensions has to match operand's rank"));
  EXPECT_THAT(SI::InferBroadcastInDimShape(F({3}), {2, 3}, {2}),
              Invalid("Broadcast dimension 2 is out of bound"));
  EXPECT_THAT(SI::InferBroadcastInDimShape(F({3}), {2, 3}, {-1}),
              Invalid("Broadcast dimension -1 is out of bound"));
  EXPECT_THAT(SI::InferBroadcastInDimShape(F({1, 1, 1}), {1, 1}, {0, 1, 1}),
              Invalid("InDim style broadcast must be to "
                      "an equal or higher ranked shape"));
  EXPECT_THAT(SI::InferBroadcastInDimShape(F({3, 2}), {2, 3}, {0, 1}),
              Invalid("Input dimension should be either 1 or equal to the "
                      "output dimension it is broadcasting into",
                      "f32[3,2]"));
  EXPECT_THAT(SI::InferBroadcastInDimShape(F({3, 3}), {3, 3}, {1, 0}),
              Invalid("Broadcast dimensions order is wrong: 0 comes after 1"));
  EXPECT_THAT(
      SI::InferBroadcastInDimShape(ShapeUtil::MakeTupleShape({}), {3}, {}),
      Invalid("Expected array argument"));
}

TEST(PrependBroadcastShapeTest, PrependsSizes) {
  ASSERT_OK_AND_ASSIGN(Shape a, SI::InferPrependBroadcastShape(F({1}), {3}));
  EXPECT_EQ(a, F({3, 1}));
  ASSERT_OK_AND_ASSIGN(Shape b, SI::InferPrependBroadcastShape(F({2}), {}));
  EXPECT_EQ(b, F({2}));
  EXPECT_THAT(SI::InferPrependBroadcastShape(F({2}), {4, -1}),
              Invalid("broadcast", "f32[2]",
                      "Broadcast with negative dimension size -1."));
  EXPECT_THAT(SI::InferPrependBroadcastShape(F({2}), Dims(40, 1)),
              Invalid("rank"));
}

TEST(CheckBroadcastTest, ExactSizes) {
  EXPECT_OK(SI::CheckBroadcast(F({3}), F({2, 3}), {1}));
  EXPECT_OK(SI::CheckBroadcast(F({2, 3}), F({3, 2}), {1, 0}));  // Unsorted.
  EXPECT_OK(SI::CheckBroadcast(F({}), F({2, 3}), {}));
  EXPECT_THAT(SI::CheckBroadcast(F({1}), F({2, 3}), {1}),
              Invalid("broadcast", "mismatch: 1 != 3"));
  EXPECT_THAT(SI::CheckBroadcast(F({3, 3}), F({3, 3}), {0, 0}),
              Invalid("repeated"));
  EXPECT_THAT(SI::CheckBroadcast(F({3}), F({2, 3}), {2}),
              Invalid("out of bound"));
  EXPECT_THAT(SI::CheckBroadcast(F({3}), F({2, 3}), {-1}),
              Invalid("out of bound"));
  EXPECT_THAT(SI::CheckBroadcast(F({3}), F({2, 3}), {0, 1}),
              Invalid("invalid number of dimensions", "f32[2,3]"));
}

TEST(ReshapeShapeTest, ElementCounts) {
  ASSERT_OK_AND_ASSIGN(Shape a, SI::InferReshapeShape(F({2, 3}), {3, 1, 2}));
  EXPECT_EQ(a, F({3, 1, 2}));
  ASSERT_OK_AND_ASSIGN(Shape b, SI::InferReshapeShape(F({1}), {}));
  EXPECT_EQ(b, F({}));
  EXPECT_THAT(SI::InferReshapeShape(F({2, 3}), {5}),
              StatusIs(kInvalid,
                       ::testing::Eq(
                           "reshape: Reshape operation has mismatched element "
                           "counts: from=6 (f32[2,3]) to=5 (f32[5]).")));
  EXPECT_THAT(SI::InferReshapeShape(F({2, 3}), {-2, -3}),
              Invalid("Invalid dimension size"));
}

TEST(TransposeShapeTest, Permutations) {
  ASSERT_OK_AND_ASSIGN(Shape a,
                       SI::InferTransposeShape(F({2, 3, 4}), {2, 0, 1}));
  EXPECT_EQ(a, F({4, 2, 3}));
  for (Dims bad :
       {Dims{0, 0}, Dims{0}, Dims{0, 2}, Dims{-1, 0}, Dims{0, 1, 2}}) {
    EXPECT_THAT(SI::InferTransposeShape(F({2, 3}), bad),
                Invalid("are not a permutation of the operand dimensions"));
  }
  EXPECT_THAT(SI::InferTransposeShape(F({2, 3}), {0, 0}),
              Invalid("transpose: Transpose dimensions [0,0] are not a "
                      "permutation of the operand dimensions (operand "
                      "shape is f32[2,3])."));
}

ProgramShape Reducer(std::vector<Shape> params, Shape result) {
  return ProgramShape{std::move(params), std::move(result)};
}

TEST(ReduceShapeTest, SingleInput) {
  const Shape input = F({2, 3, 4}), init = F({});
  const ProgramShape add = Reducer({init, init}, init);
  EXPECT_EQ(add.ToString(), "(f32[], f32[]) -> f32[]");
  ASSERT_OK_AND_ASSIGN(Shape a,
                       SI::InferReduceShape({&input, &init}, {2, 0}, add));
  EXPECT_EQ(a, F({3}));
  ASSERT_OK_AND_ASSIGN(Shape b, SI::InferReduceShape({&input, &init}, {}, add));
  EXPECT_EQ(b, input);
  EXPECT_THAT(SI::InferReduceShape({&input, &init}, {3}, add),
              Invalid("reduce: Reducing out-of-bounds dimension 3 in "
                      "shape f32[2,3,4]."));
  EXPECT_THAT(SI::InferReduceShape({&input, &init}, {-1}, add),
              Invalid("out-of-bounds dimension -1"));
  EXPECT_THAT(SI::InferReduceShape({&input, &init}, {1, 1}, add),
              Invalid("Duplicate reduction dimension: 1"));
}

TEST(ReduceShapeTest, BadReducers) {
  const Shape input = F({2, 3}), init = F({}), s32 = S(S32, {});
  auto reduce = [&](const ProgramShape& reducer) {
    return SI::InferReduceShape({&input, &init}, {0}, reducer);
  };
  EXPECT_THAT(reduce(Reducer({init}, init)),
              Invalid("Reduction function must take 2 parameters, "
                      "but takes 1 parameter(s)"));
  EXPECT_THAT(reduce(Reducer({init, init}, F({2}))),
              Invalid("must produce a scalar or a tuple of scalars"));
  EXPECT_THAT(reduce(Reducer({init, init}, ShapeUtil::MakeTupleShape({init}))),
              Invalid("must produce a scalar"));
  EXPECT_THAT(reduce(Reducer({s32, s32}, s32)),
              Invalid("differs from the init_value shape"));
  EXPECT_THAT(reduce(Reducer({init, s32}, init)),
              Invalid("1-th parameter shape differs from the result shape"));
  EXPECT_THAT(reduce(Reducer({Shape(), init}, init)),
              Invalid("0-th parameter"));
  const Shape int_input = S(S32, {2, 3});
  EXPECT_THAT(SI::InferReduceShape({&int_input, &init}, {0},
                                   Reducer({init, init}, init)),
              Invalid("input element type"));
  EXPECT_THAT(
      SI::InferReduceShape({&input, &input}, {0}, Reducer({init, init}, init)),
      Invalid("must be a scalar"));
  EXPECT_THAT(SI::InferReduceShape({&input}, {0}, Reducer({init, init}, init)),
              Invalid("even"));
  EXPECT_THAT(SI::InferReduceShape({}, {}, Reducer({}, init)),
              Invalid("reduce"));
}

TEST(ReduceShapeTest, Variadic) {
  const Shape a = F({2, 3}), b = S(S32, {2, 3}), fa = F({}), sb = S(S32, {});
  const ProgramShape argmax =
      Reducer({fa, sb, fa, sb}, ShapeUtil::MakeTupleShape({fa, sb}));
  ASSERT_OK_AND_ASSIGN(Shape result,
                       SI::InferReduceShape({&a, &b, &fa, &sb}, {1}, argmax));
  EXPECT_EQ(result, ShapeUtil::MakeTupleShape({F({2}), S(S32, {2})}));
  EXPECT_THAT(SI::InferReduceShape({&a, &b, &fa, &sb}, {1},
                                   Reducer({fa, sb, fa, sb}, fa)),
              Invalid("must produce a tuple with 2 elements, but produces 1"));
  EXPECT_THAT(
      SI::InferReduceShape({&a, &b, &fa, &sb}, {1}, Reducer({fa, fa}, fa)),
      Invalid("must take 4 parameters"));
  const Shape c = S(S32, {3, 2});
  EXPECT_THAT(SI::InferReduceShape({&a, &c, &fa, &sb}, {1}, argmax),
              Invalid("All reduced tensors must have the same dimension"));
}

TEST(TupleShapeTest, TupleAndGetTupleElement) {
  const Shape a = F({2}), b = S(S32, {});
  ASSERT_OK_AND_ASSIGN(Shape tuple, SI::InferTupleShape({&a, &b}));
  EXPECT_EQ(tuple.ToString(), "(f32[2], s32[])");
  ASSERT_OK_AND_ASSIGN(Shape nested, SI::InferTupleShape({&tuple, &a}));
  ASSERT_OK_AND_ASSIGN(Shape first, SI::InferGetTupleElementShape(nested, 0));
  EXPECT_EQ(first, tuple);
  ASSERT_OK_AND_ASSIGN(Shape second, SI::InferGetTupleElementShape(tuple, 1));
  EXPECT_EQ(second, b);
  EXPECT_THAT(
      SI::InferGetTupleElementShape(tuple, 2),
      Invalid("get-tuple-element", "index out of tuple bounds: 2 >= 2"));
  EXPECT_THAT(SI::InferGetTupleElementShape(tuple, -1),
              Invalid("out of tuple bounds"));
  EXPECT_THAT(SI::InferGetTupleElementShape(a, 0),
              Invalid("non-tuple: f32[2]"));
  const Shape bad = F({-3});
  EXPECT_THAT(SI::InferTupleShape({&a, &bad}), Invalid("tuple"));
  EXPECT_THAT(SI::InferTupleShape({nullptr}), Not(IsOk()));
}

TEST(IotaTest, Checks) {
  EXPECT_OK(SI::CheckIota(F({2, 3}), 1));
  EXPECT_THAT(SI::CheckIota(F({}), 0), Invalid("iota", "scalars"));
  EXPECT_THAT(SI::CheckIota(F({2, 3}), 2), Invalid("f32[2,3]"));
  EXPECT_THAT(SI::CheckIota(F({2, 3}), -1), Invalid("negative"));
  EXPECT_THAT(SI::CheckIota(ShapeUtil::MakeTupleShape({}), 0),
              Invalid("Expected array argument"));
}

}  // namespace
}  // namespace mxla
