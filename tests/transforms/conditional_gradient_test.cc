// The conditional rule (a backward conditional on the same predicate or
// index, each branch rematerializing its forward) against central
// differences in f64 and the JIT against the interpreter: the pred form
// with each branch taken, branches whose operands differ in shape and
// structure (a tuple with an integer element), the index form with three
// branches and an index out of range (the last branch), one operand shared
// by both branches, a tuple result with an integer element, and a branch
// operand nesting a tuple refused by name.
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using ::testing::HasSubstr;
using testing::RandomLiteral;
using testing::SumAll;

// A branch of one parameter of `operand` returning body(parameter).
XlaComputation Branch(const std::string& name, const Shape& operand,
                      const std::function<XlaOp(XlaBuilder&, XlaOp)>& body) {
  XlaBuilder b(name);
  body(b, Parameter(&b, 0, operand, "operand"));
  absl::StatusOr<XlaComputation> built = b.Build();
  EXPECT_TRUE(built.ok()) << built.status();
  return *std::move(built);
}

const Shape kVector3 = F64Shape({3});

// true: (x f64[3], w f64[3,3]) -> (tanh(w x), sum(x)^2)
// false: y f64[2] -> (sin(y0 * y1) broadcast, exp(y0) + y1)
// loss = sum(result.0 * c) + result.1, c a constant.
XlaComputation PredCase() {
  const Shape pair = ShapeUtil::MakeTupleShape({kVector3, F64Shape({3, 3})});
  XlaComputation on_true = Branch("on_true", pair, [](XlaBuilder& b, XlaOp p) {
    const XlaOp x = GetTupleElement(p, 0), w = GetTupleElement(p, 1);
    const XlaOp s = SumAll(x);
    return Tuple(&b, {Tanh(Dot(w, x)), s * s});
  });
  XlaComputation on_false =
      Branch("on_false", F64Shape({2}), [](XlaBuilder& b, XlaOp y) {
        const XlaOp y0 = Reshape(Slice(y, {0}, {1}, {1}), {});
        const XlaOp y1 = Reshape(Slice(y, {1}, {2}, {1}), {});
        return Tuple(&b, {BroadcastInDim(Sin(y0 * y1), {3}, {}), Exp(y0) + y1});
      });
  XlaBuilder b("pred_case");
  const XlaOp x = Parameter(&b, 0, kVector3, "x");
  const XlaOp w = Parameter(&b, 1, F64Shape({3, 3}), "w");
  const XlaOp y = Parameter(&b, 2, F64Shape({2}), "y");
  const XlaOp p = Parameter(&b, 3, ShapeUtil::MakeScalarShape(PRED), "p");
  const XlaOp r = Conditional(p, Tuple(&b, {x, w}), on_true, y, on_false);
  SumAll(GetTupleElement(r, 0) * ConstantR1<double>(&b, {0.5, -1, 2})) +
      GetTupleElement(r, 1);
  return *b.Build();
}

TEST(ConditionalGradientTest, PredFormMatchesDifferencesOnEachBranch) {
  const XlaComputation f = PredCase();
  for (bool taken : {true, false}) {
    SCOPED_TRACE(taken);
    std::vector<Literal> args;
    args.push_back(RandomLiteral(kVector3, 6100 + taken));
    args.push_back(RandomLiteral(F64Shape({3, 3}), 6102 + taken, -1, 1));
    args.push_back(RandomLiteral(F64Shape({2}), 6104 + taken));
    args.push_back(LiteralUtil::CreateR0<bool>(taken));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1, 2});
  }
}

// Three branches of differently shaped operands, all returning f64[3]:
// 0: a f64[2,3] -> sum over rows of a * a
// 1: (v f64[4], k s32[]) -> exp(k * 0.1 * v[0:3]) + v[1:4]
// 2: z f64[3] -> sin(z) * z
XlaComputation IndexCase() {
  std::vector<XlaComputation> branches;
  branches.push_back(
      Branch("rows", F64Shape({2, 3}), [](XlaBuilder& b, XlaOp a) {
        return Reduce(a * a, ConstantR0<double>(&b, 0),
                      CreateScalarAddComputation(F64, &b), {0});
      }));
  const Shape counted =
      ShapeUtil::MakeTupleShape({F64Shape({4}), ShapeUtil::MakeShape(S32, {})});
  branches.push_back(Branch("counted", counted, [](XlaBuilder& b, XlaOp p) {
    const XlaOp v = GetTupleElement(p, 0);
    const XlaOp k = ConvertElementType(GetTupleElement(p, 1), F64);
    return Exp(Slice(v, {0}, {3}, {1}) *
               BroadcastInDim(k * ConstantR0<double>(&b, 0.1), {3}, {})) +
           Slice(v, {1}, {4}, {1});
  }));
  branches.push_back(Branch("wave", kVector3,
                            [](XlaBuilder&, XlaOp z) { return Sin(z) * z; }));
  XlaBuilder b("index_case");
  const XlaOp a = Parameter(&b, 0, F64Shape({2, 3}), "a");
  const XlaOp v = Parameter(&b, 1, F64Shape({4}), "v");
  const XlaOp z = Parameter(&b, 2, kVector3, "z");
  const XlaOp index = Parameter(&b, 3, ShapeUtil::MakeShape(S32, {}), "i");
  const XlaComputation* pointers[] = {&branches[0], &branches[1], &branches[2]};
  const XlaOp r = Conditional(
      index, pointers, {a, Tuple(&b, {v, ConstantR0<int32_t>(&b, 3)}), z});
  SumAll(Cos(r));
  return *b.Build();
}

TEST(ConditionalGradientTest, IndexFormWithThreeBranchesOfDifferentShapes) {
  const XlaComputation f = IndexCase();
  for (int32_t index : {0, 1, 2, 7}) {  // 7: out of range, the last branch
    SCOPED_TRACE(index);
    std::vector<Literal> args;
    args.push_back(RandomLiteral(F64Shape({2, 3}), 6200 + index));
    args.push_back(RandomLiteral(F64Shape({4}), 6210 + index));
    args.push_back(RandomLiteral(kVector3, 6220 + index));
    args.push_back(LiteralUtil::CreateR0<int32_t>(index));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1, 2});
  }
}

// Both branches read the same x (as jax.lax.cond passes its operands):
// the cotangents of the two operand slots add up, one of them zeros.
// The result's s32 element carries no cotangent.
TEST(ConditionalGradientTest, OneOperandSharedByBothBranches) {
  XlaComputation up = Branch("up", kVector3, [](XlaBuilder& b, XlaOp x) {
    return Tuple(&b, {x * x * x, ConstantR0<int32_t>(&b, 1)});
  });
  XlaComputation down = Branch("down", kVector3, [](XlaBuilder& b, XlaOp x) {
    return Tuple(&b, {Log(x * x + ConstantR0<double>(&b, 1)),
                      ConstantR0<int32_t>(&b, 2)});
  });
  XlaBuilder b("shared");
  const XlaOp x = Parameter(&b, 0, kVector3, "x");
  const XlaOp r =
      Conditional(Gt(SumAll(x), ConstantR0<double>(&b, 0)), x, up, x, down);
  SumAll(
      GetTupleElement(r, 0) *
      BroadcastInDim(ConvertElementType(GetTupleElement(r, 1), F64), {3}, {}));
  const XlaComputation f = *b.Build();
  bool seen[2] = {false, false};
  for (uint64_t seed : {6300, 6301, 6302, 6303, 6304, 6305}) {
    std::vector<Literal> args = testing::OneRandom(kVector3, seed);
    double sum = 0;
    for (double e : args[0].data<double>()) sum += e;
    seen[sum > 0] = true;
    ExpectGradientMatchesDifferences(f, std::move(args), {0});
  }
  EXPECT_TRUE(seen[0] && seen[1]) << "both branches taken";
}

TEST(ConditionalGradientTest, ABranchOperandNestingATupleIsRefusedByName) {
  const Shape nested = ShapeUtil::MakeTupleShape(
      {kVector3, ShapeUtil::MakeTupleShape({kVector3})});
  auto first = [](XlaBuilder&, XlaOp p) { return GetTupleElement(p, 0); };
  XlaComputation a = Branch("a", nested, first);
  XlaComputation b = Branch("b", nested, first);
  XlaBuilder builder("nested");
  const XlaOp x = Parameter(&builder, 0, kVector3, "x");
  const XlaOp p = Parameter(&builder, 1, ShapeUtil::MakeScalarShape(PRED), "p");
  const XlaOp operand = Tuple(&builder, {x, Tuple(&builder, {x})});
  SumAll(Conditional(p, operand, a, operand, b));
  EXPECT_THAT(Gradient(*builder.Build(), {0}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for 'conditional' whose "
                                 "branch operand nests a tuple")));
}

}  // namespace
}  // namespace mxla
