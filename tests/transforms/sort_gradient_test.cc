// The sort rule against central finite differences in f64 at seeded random
// points (no ties): one operand along either dimension, keys with values,
// descending, an integer operand alongside; ties by hand.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/literal_pointers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::testing::ElementsAre;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::GradientAt;
using testing::OneRandom;
using testing::RandomLiteral;
using testing::Scalarized;

// lhs < rhs (or >) on the first of `count` operands of the given types.
XlaComputation FirstOperandOrder(const std::vector<PrimitiveType>& types,
                                 bool descending) {
  XlaBuilder b(descending ? "greater" : "less");
  std::vector<XlaOp> p;
  for (size_t i = 0; i < 2 * types.size(); ++i) {
    p.push_back(Parameter(&b, i, ShapeUtil::MakeScalarShape(types[i / 2]),
                          absl::StrCat("p", i)));
  }
  descending ? Gt(p[0], p[1]) : Lt(p[0], p[1]);
  return *b.Build();
}

// A weight per position, so that the sum of the sorted values depends on
// where each one went.
XlaOp ByPosition(XlaOp sorted) {
  absl::StatusOr<Shape> shape = sorted.builder()->GetShape(sorted);
  XlaOp position = ConvertElementType(
      Iota(sorted.builder(), ShapeUtil::MakeShape(S32, shape->dimensions()),
           shape->dimensions().size() - 1),
      shape->element_type());
  return Sin(sorted) * (position + 1.0);
}

TEST(SortGradientTest, OneOperandMatchesFiniteDifferences) {
  for (int64_t dimension : {0, 1}) {
    XlaComputation f = Scalarized(
        absl::StrCat("sort", dimension), {F64Shape({3, 5})},
        [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          return ByPosition(
              Sort({p[0]}, FirstOperandOrder({F64}, dimension == 1),
                   dimension));
        });
    ExpectGradientMatchesDifferences(f, OneRandom(F64Shape({3, 5}), 4000),
                                     {0});
  }
}

TEST(SortGradientTest, KeysAndValuesMatchFiniteDifferences) {
  // Both outputs used: each operand gets its own output's cotangent back.
  XlaComputation both = Scalarized(
      "keys_values", {F64Shape({4, 6}), F64Shape({4, 6})},
      [](XlaBuilder&, const std::vector<XlaOp>& p) {
        XlaOp sorted = Sort({p[0], p[1]}, FirstOperandOrder({F64, F64}, false));
        return ByPosition(GetTupleElement(sorted, 0)) +
               ByPosition(GetTupleElement(sorted, 1)) *
                   GetTupleElement(sorted, 1);
      });
  std::vector<Literal> args;
  args.push_back(RandomLiteral(F64Shape({4, 6}), 4100));
  args.push_back(RandomLiteral(F64Shape({4, 6}), 4101));
  ExpectGradientMatchesDifferences(both, std::move(args), {0, 1});
  // Only the values used: the keys get nothing (their order is flat).
  XlaComputation values_only = Scalarized(
      "values_only", {F64Shape({7}), F64Shape({7})},
      [](XlaBuilder&, const std::vector<XlaOp>& p) {
        return ByPosition(GetTupleElement(
            Sort({p[0], p[1]}, FirstOperandOrder({F64, F64}, true)), 1));
      });
  args.clear();
  args.push_back(RandomLiteral(F64Shape({7}), 4102));
  args.push_back(RandomLiteral(F64Shape({7}), 4103));
  ExpectGradientMatchesDifferences(values_only, std::move(args), {0, 1});
  // An integer operand alongside (argsort): it carries no cotangent.
  XlaComputation with_index = Scalarized(
      "with_index", {F64Shape({2, 5})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        XlaOp index = Iota(&b, ShapeUtil::MakeShape(S32, {2, 5}), 1);
        XlaOp sorted = Sort({p[0], index}, FirstOperandOrder({F64, S32}, false));
        return ByPosition(GetTupleElement(sorted, 0)) *
               ConvertElementType(GetTupleElement(sorted, 1), F64);
      });
  ExpectGradientMatchesDifferences(with_index,
                                   OneRandom(F64Shape({2, 5}), 4104), {0});
}

TEST(SortGradientTest, F32GradientsJitMatchesInterpreter) {
  const Shape shape = ShapeUtil::MakeShape(F32, {3, 8});
  XlaComputation f = Scalarized(
      "keys_values_f32", {shape, shape},
      [](XlaBuilder&, const std::vector<XlaOp>& p) {
        XlaOp sorted = Sort({p[0], p[1]}, FirstOperandOrder({F32, F32}, false));
        return ByPosition(GetTupleElement(sorted, 0)) *
               GetTupleElement(sorted, 1);
      });
  testing::ExpectJitGradientMatchesInterpreter(f, {0, 1}, 1e-5);
}

TEST(SortGradientTest, VjpOfASortResultTakesACotangentPerOutput) {
  // The root is the sort itself: keys [3, 1, 2] move to [1, 2, 3], so
  // key 0 gets the third output cotangent, key 1 the first, key 2 the
  // second; the values move with them.
  XlaBuilder b("sort_root");
  XlaOp keys = Parameter(&b, 0, F64Shape({3}), "keys");
  XlaOp values = Parameter(&b, 1, F64Shape({3}), "values");
  Sort({keys, values}, FirstOperandOrder({F64, F64}, false));
  absl::StatusOr<XlaComputation> vjp = Vjp(*b.Build(), {0, 1});
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({3, 1, 2}));
  args.push_back(LiteralUtil::CreateR1<double>({10, 20, 30}));
  args.push_back(LiteralUtil::CreateR1<double>({1, 2, 3}));
  args.push_back(LiteralUtil::CreateR1<double>({100, 200, 300}));
  absl::StatusOr<Literal> result =
      EvaluateModule(vjp->module(), testing::Pointers(args));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->tuple_element(1).data<double>(), ElementsAre(3, 1, 2));
  EXPECT_THAT(result->tuple_element(2).data<double>(),
              ElementsAre(300, 100, 200));
}

TEST(SortGradientTest, TiedElementsKeepTheStableOrdersCotangents) {
  // Sorting [2, 1, 2] stably gives [1, 2 (first), 2 (last)]; weighted
  // [1, 10, 100] by position, the first 2 gets 10 and the last 100.
  XlaComputation f = Scalarized(
      "ties", {F64Shape({3})}, [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return Sort({p[0]}, FirstOperandOrder({F64}, false)) *
               ConstantR1<double>(&b, {1, 10, 100});
      });
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({2, 1, 2}));
  absl::StatusOr<Literal> g = GradientAt(f, std::move(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->data<double>(), ElementsAre(10, 1, 100));
}

}  // namespace
}  // namespace mxla
