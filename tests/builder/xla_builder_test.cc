// What the builder records for each op: opcodes, shapes, attributes, called
// computations, metadata; and that built modules verify and survive Build().
#include <memory>
#include <string>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::mxla::testing::StatusIs;

Shape F32(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(mxla::F32, dims);
}

const HloInstruction* Root(const XlaComputation& computation) {
  return computation.module().entry_computation()->root_instruction();
}

TEST(XlaBuilderTest, DesignExampleRecordsImplicitBroadcasts) {
  XlaBuilder b("bias_relu");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp v = Parameter(&b, 1, F32({3}), "v");
  XlaOp y = Max(Add(x, v, {1}), ConstantR0<float>(&b, 0.0f));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build(y));
  const HloInstruction* relu = Root(computation);
  EXPECT_EQ(relu->opcode(), HloOpcode::kMaximum);
  EXPECT_EQ(relu->shape(), F32({2, 3}));
  EXPECT_FALSE(relu->broadcast_dimensions().has_value());
  const HloInstruction* sum = relu->operand(0);
  EXPECT_EQ(sum->opcode(), HloOpcode::kAdd);
  EXPECT_THAT(*sum->broadcast_dimensions(), ElementsAre(1));
  EXPECT_EQ(relu->operand(1)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(relu->operand(1)->shape(), F32({}));
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kBuilder));
  EXPECT_FALSE(VerifyModule(computation.module(), VerifierMode::kLowered).ok());
  ProgramShape program_shape = computation.GetProgramShape();
  EXPECT_EQ(program_shape.ToString(), "(f32[2,3], f32[3]) -> f32[2,3]");
}

TEST(XlaBuilderTest, EveryBinaryAndUnaryOpRecordsItsOpcode) {
  XlaBuilder b("ops");
  XlaOp x = Parameter(&b, 0, F32({4}), "x");
  XlaOp i = Parameter(&b, 1, ShapeUtil::MakeShape(S32, {4}), "i");
  XlaOp p = Parameter(&b, 2, ShapeUtil::MakeShape(PRED, {4}), "p");
  struct Case {
    XlaOp op;
    HloOpcode opcode;
  };
  std::vector<Case> cases = {
      {Add(x, x), HloOpcode::kAdd},        {Sub(x, x), HloOpcode::kSubtract},
      {Mul(x, x), HloOpcode::kMultiply},   {Div(x, x), HloOpcode::kDivide},
      {Rem(x, x), HloOpcode::kRemainder},  {Max(x, x), HloOpcode::kMaximum},
      {Min(x, x), HloOpcode::kMinimum},    {Pow(x, x), HloOpcode::kPower},
      {And(i, i), HloOpcode::kAnd},        {Or(p, p), HloOpcode::kOr},
      {Xor(i, i), HloOpcode::kXor},        {Neg(x), HloOpcode::kNegate},
      {Abs(i), HloOpcode::kAbs},           {Exp(x), HloOpcode::kExp},
      {Log(x), HloOpcode::kLog},           {Sqrt(x), HloOpcode::kSqrt},
      {Rsqrt(x), HloOpcode::kRsqrt},       {Tanh(x), HloOpcode::kTanh},
      {Logistic(x), HloOpcode::kLogistic}, {Floor(x), HloOpcode::kFloor},
      {Ceil(x), HloOpcode::kCeil},         {Sign(x), HloOpcode::kSign},
      {Not(p), HloOpcode::kNot},           {Not(i), HloOpcode::kNot},
      {Copy(p), HloOpcode::kCopy},         {Sin(x), HloOpcode::kSin},
      {Cos(x), HloOpcode::kCos},           {Tan(x), HloOpcode::kTan},
      {Expm1(x), HloOpcode::kExpm1},       {Log1p(x), HloOpcode::kLog1p},
      {Cbrt(x), HloOpcode::kCbrt},         {Erf(x), HloOpcode::kErf},
      {Asin(x), HloOpcode::kAsin},         {Acos(x), HloOpcode::kAcos},
      {Sinh(x), HloOpcode::kSinh},         {Cosh(x), HloOpcode::kCosh},
      {Asinh(x), HloOpcode::kAsinh},       {Acosh(x), HloOpcode::kAcosh},
      {Atan(x), HloOpcode::kAtan},
      {Round(x), HloOpcode::kRoundNearestAfz},
      {RoundNearestEven(x), HloOpcode::kRoundNearestEven},
      {Atan2(x, x), HloOpcode::kAtan2},
  };
  XlaOp last = Tuple(&b, {cases.back().op});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build(last));
  for (const Case& c : cases) {
    ASSERT_TRUE(c.op.valid()) << HloOpcodeString(c.opcode);
    ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(c.op));
    EXPECT_EQ(shape.dimensions(), absl::Span<const int64_t>({4}));
  }
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kLowered));
}

TEST(XlaBuilderTest, ComparisonsRecordDirectionAndPredResult) {
  XlaBuilder b("compare");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp v = Parameter(&b, 1, F32({3}), "v");
  const std::vector<std::pair<XlaOp, ComparisonDirection>> cases = {
      {Eq(x, v, {1}), ComparisonDirection::kEq},
      {Ne(x, v, {1}), ComparisonDirection::kNe},
      {Lt(x, v, {1}), ComparisonDirection::kLt},
      {Le(x, v, {1}), ComparisonDirection::kLe},
      {Gt(x, v, {1}), ComparisonDirection::kGt},
      {Ge(x, v, {1}), ComparisonDirection::kGe},
      {Compare(x, x, {}, ComparisonDirection::kLt), ComparisonDirection::kLt}};
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  std::vector<const HloInstruction*> compares;
  for (const HloInstruction* instruction :
       computation.module().entry_computation()->MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kCompare) compares.push_back(instruction);
  }
  ASSERT_EQ(compares.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(compares[i]->comparison_direction(), cases[i].second);
    EXPECT_EQ(compares[i]->shape(), ShapeUtil::MakeShape(PRED, {2, 3}));
  }
}

TEST(XlaBuilderTest, BroadcastPrependsDimensions) {
  XlaBuilder b("broadcast");
  Broadcast(Parameter(&b, 0, F32({1}), "x"), {3});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const HloInstruction* root = Root(computation);
  EXPECT_EQ(root->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(root->shape(), F32({3, 1}));  // Never stretches the size-1.
  EXPECT_THAT(root->dimensions(), ElementsAre(1));
}

// BroadcastInDim emits XLA's sequence: an in-dim broadcast keeping the
// operand's sizes, then reshape + exact broadcast for stretched size-1s.
TEST(XlaBuilderTest, BroadcastInDimStretchingEmitsReshapeAndBroadcast) {
  XlaBuilder b("bid");
  BroadcastInDim(Parameter(&b, 0, F32({2, 1, 4}), "x"), {2, 3, 4}, {0, 1, 2});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const HloInstruction* outer = Root(computation);
  ASSERT_EQ(outer->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(outer->shape(), F32({2, 3, 4}));
  EXPECT_THAT(outer->dimensions(), ElementsAre(0, 2));
  const HloInstruction* reshape = outer->operand(0);
  ASSERT_EQ(reshape->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(reshape->shape(), F32({2, 4}));
  const HloInstruction* inner = reshape->operand(0);
  ASSERT_EQ(inner->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(inner->shape(), F32({2, 1, 4}));
  EXPECT_THAT(inner->dimensions(), ElementsAre(0, 1, 2));
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kLowered));
}

TEST(XlaBuilderTest, BroadcastInDimWithoutStretchingIsOneBroadcast) {
  XlaBuilder b("bid");
  BroadcastInDim(Parameter(&b, 0, F32({2, 3}), "x"), {2, 4, 3}, {0, 2});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const HloInstruction* root = Root(computation);
  ASSERT_EQ(root->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_THAT(root->dimensions(), ElementsAre(0, 2));
}

TEST(XlaBuilderTest, ReduceEmbedsTheReducer) {
  XlaBuilder b("sum_rows");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  Reduce(x, ConstantR0<float>(&b, 0), CreateScalarAddComputation(mxla::F32, &b),
         {1});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const HloInstruction* root = Root(computation);
  ASSERT_EQ(root->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(root->shape(), F32({2}));
  EXPECT_THAT(root->dimensions(), ElementsAre(1));
  const HloComputation* reducer = root->to_apply();
  EXPECT_EQ(reducer->parent(), &computation.module());
  EXPECT_EQ(reducer->root_instruction()->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(computation.module().computations().size(), 2u);
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kLowered));
}

TEST(XlaBuilderTest, CallEmbedsTheComputationAndChecksItsArguments) {
  XlaBuilder b("call");
  std::unique_ptr<XlaBuilder> sub = b.CreateSubBuilder("square");
  XlaOp v = Parameter(sub.get(), 0, F32({3}), "v");
  Mul(v, v);
  ASSERT_OK_AND_ASSIGN(XlaComputation square, sub->Build());
  XlaOp x = Parameter(&b, 0, F32({3}), "x");
  Call(&b, square, {x});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const HloInstruction* root = Root(computation);
  ASSERT_EQ(root->opcode(), HloOpcode::kCall);
  EXPECT_EQ(root->shape(), F32({3}));
  EXPECT_EQ(root->to_apply()->parent(), &computation.module());
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kLowered));

  XlaBuilder bad("bad_call");
  XlaOp y = Parameter(&bad, 0, F32({2}), "y");
  Call(&bad, square, {y});
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Call parameter must match argument; got "
                                 "parameter 0 shape: f32[3], argument shape: "
                                 "f32[2].")));
}

// (value, index) pairs to the larger value and its index: an argmax's
// reducer, for the variadic reduce and reduce-window, built under `b`.
absl::StatusOr<XlaComputation> MaxAndIndex(XlaBuilder& b) {
  std::unique_ptr<XlaBuilder> sub = b.CreateSubBuilder("max_and_index");
  XlaOp av = Parameter(sub.get(), 0, F32({}), "av");
  XlaOp ai = Parameter(sub.get(), 1, ShapeUtil::MakeShape(S32, {}), "ai");
  XlaOp bv = Parameter(sub.get(), 2, F32({}), "bv");
  XlaOp bi = Parameter(sub.get(), 3, ShapeUtil::MakeShape(S32, {}), "bi");
  XlaOp take_a = Ge(av, bv);
  Tuple(sub.get(), {Select(take_a, av, bv), Select(take_a, ai, bi)});
  return sub->Build();
}

TEST(XlaBuilderTest, VariadicReduceReturnsATuple) {
  XlaBuilder b("argmax_like");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp i = Iota(&b, ShapeUtil::MakeShape(S32, {2, 3}), 1);
  ASSERT_OK_AND_ASSIGN(XlaComputation reducer, MaxAndIndex(b));
  Reduce(&b, {x, i},
         {ConstantR0<float>(&b, -1e30f), ConstantR0<int32_t>(&b, 0)}, reducer,
         {1});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  EXPECT_EQ(Root(computation)->shape().ToString(), "(f32[2], s32[2])");
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kLowered));
}

TEST(XlaBuilderTest, VariadicReduceWindowReturnsATuple) {
  XlaBuilder b("pool_with_index");
  XlaOp x = Parameter(&b, 0, F32({4, 5}), "x");
  XlaOp i = Iota(&b, ShapeUtil::MakeShape(S32, {4, 5}), 1);
  ASSERT_OK_AND_ASSIGN(XlaComputation reducer, MaxAndIndex(b));
  const std::vector<XlaOp> inits = {ConstantR0<float>(&b, -1e30f),
                                    ConstantR0<int32_t>(&b, 0)};
  ReduceWindowWithGeneralPadding(&b, {x, i}, inits, reducer, {2, 3}, {2, 1},
                                 {}, {}, {{0, 0}, {1, 1}});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  EXPECT_EQ(Root(computation)->shape().ToString(), "(f32[2,5], s32[2,5])");
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kLowered));

  XlaBuilder c("uneven");
  XlaOp y = Parameter(&c, 0, F32({4}), "y");
  ReduceWindowWithGeneralPadding(&c, {y, y}, {ConstantR0<float>(&c, 0)},
                                 reducer, {2}, {1}, {}, {}, {});
  EXPECT_THAT(c.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduce-window needs as many init values as "
                                 "operands (at least one), got 2 operands and "
                                 "1 init values")));
}

TEST(XlaBuilderTest, SelectConvertReshapeTransposeTuple) {
  XlaBuilder b("misc");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp s = Select(Gt(x, ConstantR0<float>(&b, 0)), x, ConstantR0<float>(&b, 0));
  XlaOp c = ConvertElementType(s, S32);
  XlaOp r = Reshape(c, {3, 2});
  XlaOp t = Transpose(r, {1, 0});
  XlaOp tuple = Tuple(&b, {t, x});
  XlaOp element = GetTupleElement(tuple, 0);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build(element));
  EXPECT_EQ(Root(computation)->shape(), ShapeUtil::MakeShape(S32, {2, 3}));
  ASSERT_OK_AND_ASSIGN(Shape select_shape, b.GetShape(s));
  EXPECT_EQ(select_shape, F32({2, 3}));
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kBuilder));
}

TEST(XlaBuilderTest, ConstantsAndIota) {
  XlaBuilder b("constants");
  XlaOp r1 = ConstantR1<float>(&b, {1, 2, 3});
  XlaOp filled = ConstantR1<int32_t>(&b, 4, 7);
  XlaOp r2 = ConstantR2<float>(&b, {{1, 2}, {3, 4}});
  XlaOp iota = Iota(&b, ShapeUtil::MakeShape(S32, {2, 3}), 1);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build(r1));
  ASSERT_OK_AND_ASSIGN(Shape filled_shape, b.GetShape(filled));
  EXPECT_EQ(filled_shape, ShapeUtil::MakeShape(S32, {4}));
  ASSERT_OK_AND_ASSIGN(Shape r2_shape, b.GetShape(r2));
  EXPECT_EQ(r2_shape, F32({2, 2}));
  ASSERT_OK_AND_ASSIGN(Shape iota_shape, b.GetShape(iota));
  EXPECT_EQ(iota_shape, ShapeUtil::MakeShape(S32, {2, 3}));
  EXPECT_EQ(Root(computation)->literal(), LiteralUtil::CreateR1<float>({1, 2, 3}));
}

TEST(XlaBuilderTest, BuildKeepsTheBuilderUsable) {
  XlaBuilder b("reuse");
  XlaOp x = Parameter(&b, 0, F32({2}), "x");
  XlaOp y = Neg(x);
  ASSERT_OK_AND_ASSIGN(XlaComputation first, b.Build());
  XlaOp z = Exp(y);
  ASSERT_OK_AND_ASSIGN(XlaComputation second, b.Build());
  ASSERT_OK_AND_ASSIGN(XlaComputation third, b.Build(y));
  EXPECT_EQ(Root(first)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(Root(second)->opcode(), HloOpcode::kExp);
  EXPECT_EQ(Root(third)->opcode(), HloOpcode::kNegate);
  EXPECT_TRUE(z.valid());
  // Copies share the immutable module.
  XlaComputation copy = second;
  EXPECT_EQ(&copy.module(), &second.module());
}

TEST(XlaBuilderTest, NamesAreDeterministicAndUnique) {
  auto build = [] {
    XlaBuilder b("names");
    XlaOp x = Parameter(&b, 0, F32({2}), "x");
    XlaOp first = Add(x, x);
    XlaOp second = Add(x, x);
    Add(first, second);
    return b.Build();
  };
  ASSERT_OK_AND_ASSIGN(XlaComputation a, build());
  ASSERT_OK_AND_ASSIGN(XlaComputation c, build());
  EXPECT_EQ(a.ToString(), c.ToString());
  EXPECT_THAT(a.ToString(), HasSubstr("add.2 = f32[2]{0} add(add, add.1)"));
}

TEST(XlaBuilderTest, MetadataRecordsTheCallSite) {
  XlaBuilder b("metadata");
  const int line = __LINE__ + 1;
  XlaOp x = Parameter(&b, 0, F32({2}), "x");
  Neg(x);
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const OpMetadata& metadata = Root(computation)->operand(0)->metadata();
  EXPECT_EQ(metadata.op_name, "Parameter");
  EXPECT_THAT(metadata.source_file, HasSubstr("xla_builder_test.cc"));
  EXPECT_EQ(metadata.source_line, line);
}

}  // namespace
}  // namespace mxla
