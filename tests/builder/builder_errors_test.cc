// The builder's error behaviour: the first error sticks and Build() returns
// it; messages name the op, the operand shapes, the broadcast_dimensions,
// the offending dimension and the caller's file:line; nothing aborts.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

Shape F32(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(mxla::F32, dims);
}

std::string Here(int line) { return absl::StrCat("builder_errors_test.cc:", line); }

TEST(BuilderErrorsTest, MessageNamesOpShapesDimensionsAndCallSite) {
  XlaBuilder b("errors");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp v = Parameter(&b, 1, F32({3}), "v");
  const int line = __LINE__ + 1;
  XlaOp sum = Add(x, v, {0});
  EXPECT_FALSE(sum.valid());
  EXPECT_THAT(b.Build(),
              StatusIs(kInvalid,
                       AllOf(StartsWith("Add(f32[2,3], f32[3], "
                                        "broadcast_dimensions={0}) at "),
                             HasSubstr(Here(line)),
                             HasSubstr("Broadcast dimension 0 mismatch: 3 != 2"),
                             HasSubstr("f32[3] and f32[2,3]"))));
}

// An op with a string attribute quotes it in the message's prefix.
TEST(BuilderErrorsTest, CustomCallNamesItsQuotedTarget) {
  XlaBuilder b("custom");
  XlaOp x = Parameter(&b, 0, F32({4}), "x");
  EXPECT_FALSE(CustomCall(&b, "fancy", {x}, F32({4})).valid());
  EXPECT_THAT(b.Build(),
              StatusIs(kInvalid,
                       AllOf(StartsWith("CustomCall(f32[4], "
                                        "call_target_name=\"fancy\") at "),
                             HasSubstr("custom_call_target \"fancy\" is not "
                                       "supported by mxla"))));
}

TEST(BuilderErrorsTest, FirstErrorSticksAndLaterOpsAreNoOps) {
  XlaBuilder b("sticky");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp bad = Add(x, Parameter(&b, 1, F32({4}), "v"));  // Rank mismatch.
  XlaOp later = Mul(x, x);                               // Valid, but skipped.
  XlaOp other_error = Sub(x, ConstantR0<int32_t>(&b, 1));  // Type mismatch.
  EXPECT_FALSE(bad.valid());
  EXPECT_FALSE(later.valid());
  EXPECT_FALSE(other_error.valid());
  absl::Status first = b.first_error();
  EXPECT_THAT(first, StatusIs(kInvalid, HasSubstr("Shapes must be equal rank")));
  EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("Shapes must be equal rank")));
  EXPECT_THAT(b.GetShape(x), StatusIs(kInvalid, HasSubstr("equal rank")));
}

TEST(BuilderErrorsTest, PinnedFullMessage) {
  XlaBuilder b("pinned");
  XlaOp x = Parameter(&b, 0, F32({7, 2, 5}), "x");
  XlaOp y = Parameter(&b, 1, F32({7, 2, 6}), "y");
  const int line = __LINE__ + 1;
  Add(x, y);
  absl::Status status = b.Build().status();
  std::string message(status.message());
  // The prefix is mxla's, the rest comes from shape inference.
  EXPECT_THAT(message, StartsWith(absl::StrCat(
                           "Add(f32[7,2,5], f32[7,2,6]) at ", __FILE__, ":",
                           line, ": ")));
  EXPECT_THAT(message, HasSubstr("Binary op add with incompatible shapes: "
                                 "f32[7,2,5] and f32[7,2,6]"));
}

TEST(BuilderErrorsTest, ElementTypeMismatch) {
  XlaBuilder b("types");
  Add(Parameter(&b, 0, F32({2}), "x"),
      Parameter(&b, 1, ShapeUtil::MakeShape(S32, {2}), "y"));
  EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("different element types: "
                                                      "f32[2] and s32[2]")));
}

TEST(BuilderErrorsTest, BroadcastDimensionsOnEqualRanks) {
  XlaBuilder b("equal_ranks");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  Add(x, x, {1, 0});
  EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("must either be not set or "
                                                      "be the identity")));
}

TEST(BuilderErrorsTest, BroadcastDimensionsLengthAndRange) {
  {
    XlaBuilder b("length");
    Add(Parameter(&b, 0, F32({2, 3}), "x"), Parameter(&b, 1, F32({3}), "v"),
        {0, 1});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("Size of broadcast_dimensions has to match")));
  }
  {
    XlaBuilder b("negative");
    Add(Parameter(&b, 0, F32({2, 3}), "x"), Parameter(&b, 1, F32({3}), "v"),
        {-1});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("(-1) cannot be negative")));
  }
  {
    XlaBuilder b("too_large");
    Add(Parameter(&b, 0, F32({2, 3}), "x"), Parameter(&b, 1, F32({3}), "v"),
        {2});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("(2) too large; higher-rank operand has rank 2")));
  }
  {
    XlaBuilder b("scalar_with_dims");
    Add(Parameter(&b, 0, F32({2, 3}), "x"), ConstantR0<float>(&b, 1), {0});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("Size of broadcast_dimensions has to match")));
  }
}

TEST(BuilderErrorsTest, PredArithmeticAndFloatLogic) {
  {
    XlaBuilder b("pred_sub");
    XlaOp p = ConstantR0<bool>(&b, true);
    Sub(p, p);
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("arithmetic type for operation subtract; got PRED")));
  }
  {
    XlaBuilder b("float_and");
    XlaOp f = ConstantR0<float>(&b, 1);
    And(f, f);
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("got F32")));
  }
}

TEST(BuilderErrorsTest, ShapeOps) {
  {
    XlaBuilder b("reshape");
    Reshape(Parameter(&b, 0, F32({2, 3}), "x"), {5});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, AllOf(HasSubstr("Reshape(f32[2,3], new_sizes={5})"), HasSubstr("mismatched element counts"))));
  }
  {
    XlaBuilder b("transpose");
    Transpose(Parameter(&b, 0, F32({2, 3}), "x"), {0, 0});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("not a permutation")));
  }
  {
    XlaBuilder b("broadcast");
    Broadcast(Parameter(&b, 0, F32({2}), "x"), {-1});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("negative dimension size -1")));
  }
  {
    XlaBuilder b("broadcast_in_dim");
    BroadcastInDim(Parameter(&b, 0, F32({2}), "x"), {3, 4}, {0});
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("either 1 or equal to the output dimension")));
  }
  {
    XlaBuilder b("select");
    XlaOp x = Parameter(&b, 0, F32({2}), "x");
    XlaOp y = Parameter(&b, 1, F32({3}), "y");
    Select(ConstantR0<bool>(&b, true), x, y);
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("select")));
  }
  {
    XlaBuilder b("gte");
    XlaOp t = Tuple(&b, {ConstantR0<float>(&b, 1)});
    GetTupleElement(t, 1);
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("GetTupleElement")));
  }
  {
    XlaBuilder b("iota");
    Iota(&b, F32({2, 3}), 2);
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("Iota")));
  }
}

TEST(BuilderErrorsTest, ReduceErrors) {
  XlaBuilder b("reduce");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  Reduce(x, ConstantR0<float>(&b, 0), CreateScalarAddComputation(mxla::F32, &b),
         {2});
  EXPECT_THAT(b.Build(), StatusIs(kInvalid, AllOf(HasSubstr("Reduce(f32[2,3], f32[]"), HasSubstr("dimensions={2}"))));

  XlaBuilder wrong_type("reduce_type");
  XlaOp y = Parameter(&wrong_type, 0, F32({2, 3}), "y");
  Reduce(y, ConstantR0<float>(&wrong_type, 0),
         CreateScalarAddComputation(S32, &wrong_type), {1});
  EXPECT_FALSE(wrong_type.Build().ok());
}

TEST(BuilderErrorsTest, OpFromAnotherBuilder) {
  XlaBuilder b1("b1");
  XlaBuilder main("main");
  XlaOp foreign = Parameter(&b1, 0, F32({2}), "x");
  XlaOp local = Parameter(&main, 0, F32({2}), "y");
  Add(local, foreign);
  EXPECT_THAT(main.Build(),
              StatusIs(kInvalid, HasSubstr("XlaOp built by builder 'b1' is used "
                                           "in builder 'main'")));
  EXPECT_OK(b1.Build());
}

TEST(BuilderErrorsTest, InvalidOpsAreErrorsNotCrashes) {
  XlaBuilder b("invalid");
  XlaOp x = Parameter(&b, 0, F32({2}), "x");
  Add(x, XlaOp());
  EXPECT_THAT(b.Build(), StatusIs(kInvalid, AllOf(HasSubstr("Add(f32[2], <invalid XlaOp>)"), HasSubstr("invalid XlaOp"))));
  // An op whose only operands are invalid has no builder to report to.
  EXPECT_FALSE(Neg(XlaOp()).valid());
  EXPECT_FALSE(Add(XlaOp(), XlaOp()).valid());
}

TEST(BuilderErrorsTest, ParameterNumbers) {
  {
    XlaBuilder b("duplicate");
    Parameter(&b, 0, F32({2}), "x");
    Parameter(&b, 0, F32({2}), "y");
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("parameter 0 already registered")));
  }
  {
    XlaBuilder b("gap");
    XlaOp x = Parameter(&b, 0, F32({2}), "x");
    XlaOp z = Parameter(&b, 2, F32({2}), "z");
    Add(x, z);
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, AllOf(HasSubstr("parameter 1 is missing"), HasSubstr("{0,2}"))));
  }
  {
    XlaBuilder b("negative");
    Parameter(&b, -1, F32({2}), "x");
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("negative")));
  }
  {
    XlaBuilder b("bad_shape");
    Parameter(&b, 0, F32({2, -3}), "x");
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("Invalid dimension size -3")));
  }
  {
    XlaBuilder b("overflow");
    Parameter(&b, 0, F32({1LL << 40, 1LL << 40}), "x");
    EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("overflows")));
  }
}

TEST(BuilderErrorsTest, EmptyBuilderAndForeignRoot) {
  XlaBuilder empty("empty");
  EXPECT_THAT(empty.Build(), StatusIs(kInvalid, HasSubstr("has no ops")));
  XlaBuilder other("other");
  XlaOp foreign = Parameter(&other, 0, F32({2}), "x");
  XlaBuilder b("b");
  Parameter(&b, 0, F32({2}), "y");
  EXPECT_THAT(b.Build(foreign), StatusIs(kInvalid, HasSubstr("builder 'other'")));
  // The failed Build(root) leaves the builder usable.
  EXPECT_OK(b.Build());
}

TEST(BuilderErrorsTest, ReducerOfNonArrayTypeIsAnError) {
  XlaBuilder b("reducer");
  XlaOp x = Parameter(&b, 0, F32({2}), "x");
  Reduce(x, ConstantR0<float>(&b, 0), CreateScalarAddComputation(TUPLE, &b), {0});
  EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("not an array element type")));
}

// A reducer made from a module nobody verified (an empty one, or parsed
// text whose declared shape is wrong) is an error, not a crash.
TEST(BuilderErrorsTest, UnverifiedReducerComputationsAreErrors) {
  XlaComputation empty(std::make_unique<HloModule>("empty"));
  XlaBuilder b("reduce");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(mxla::F32, {4}), "x");
  Reduce(x, ConstantR0<float>(&b, 0), empty, {0});
  EXPECT_THAT(b.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the reducer computation 'empty' is not "
                                 "valid: ")));

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> gap, ParseHloModule(R"(
HloModule gap
ENTRY add {
  a = f32[] parameter(0)
  c = f32[] parameter(1)
  ROOT s = f32[3] add(a, c)
})"));
  XlaBuilder g("reduce_gap");
  XlaOp y = Parameter(&g, 0, ShapeUtil::MakeShape(mxla::F32, {4}), "y");
  Reduce(y, ConstantR0<float>(&g, 0), XlaComputation(std::move(gap)), {0});
  EXPECT_THAT(g.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the reducer computation 'gap' is not valid")));
}

}  // namespace
}  // namespace mxla
