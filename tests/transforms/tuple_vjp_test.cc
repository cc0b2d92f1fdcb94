// Vector-Jacobian products of functions with several results (a tuple
// root): one cotangent per element, none for auxiliary or integer
// elements, as mxla.vjp and has_aux use them from Python.
#include <cmath>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::mxla::testing::StatusIs;

Shape F64Array(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(F64, dims);
}

// (x, y) -> (sin(x) * y, x + y, iota s32[2]).
XlaComputation ThreeResults() {
  XlaBuilder b("three");
  XlaOp x = Parameter(&b, 0, F64Array({2}), "x");
  XlaOp y = Parameter(&b, 1, F64Array({2}), "y");
  Tuple(&b, {Sin(x) * y, x + y, Iota(&b, ShapeUtil::MakeShape(S32, {2}), 0)});
  return *b.Build();
}

std::vector<Literal> Arguments(std::vector<std::vector<double>> values) {
  std::vector<Literal> args;
  for (const std::vector<double>& v : values) {
    args.push_back(LiteralUtil::CreateR1<double>(v));
  }
  return args;
}

TEST(TupleVjpTest, EachElementTakesItsOwnCotangentAndOthersNone) {
  XlaBuilder b("caller");
  XlaOp x = Parameter(&b, 0, F64Array({2}), "x");
  XlaOp y = Parameter(&b, 1, F64Array({2}), "y");
  XlaOp c = Parameter(&b, 2, F64Array({2}), "c");
  absl::StatusOr<VjpOps> ops =
      EmitTupleVjp(b, ThreeResults(), {x, y},
              {c, XlaOp(), XlaOp()}, {0, 1});
  ASSERT_TRUE(ops.ok()) << ops.status();
  Tuple(&b, {GetTupleElement(ops->value, 1), ops->cotangents[0],
             ops->cotangents[1]});
  absl::StatusOr<XlaComputation> caller = b.Build();
  ASSERT_TRUE(caller.ok()) << caller.status();
  std::vector<Literal> args = Arguments({{0.5, 2}, {3, -1}, {1, 10}});
  absl::StatusOr<Literal> out =
      EvaluateModule(caller->module(), testing::Pointers(args));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->tuple_element(0).data<double>(), ElementsAre(3.5, 1));
  // d/dx: cos(x) * y * c; d/dy: sin(x) * c (x + y gets no cotangent).
  EXPECT_THAT(out->tuple_element(1).data<double>(),
              ElementsAre(DoubleNear(std::cos(0.5) * 3, 1e-15),
                          DoubleNear(std::cos(2.0) * -10, 1e-14)));
  EXPECT_THAT(out->tuple_element(2).data<double>(),
              ElementsAre(DoubleNear(std::sin(0.5), 1e-15),
                          DoubleNear(std::sin(2.0) * 10, 1e-14)));
}

TEST(TupleVjpTest, VjpComputationTakesOneCotangentPerElement) {
  absl::StatusOr<XlaComputation> vjp = Vjp(ThreeResults(), {1});
  ASSERT_TRUE(vjp.ok()) << vjp.status();
  // Parameters: x, y, then the cotangents of the three elements.
  std::vector<Literal> args = Arguments({{0.5, 2}, {3, -1}, {1, 10}, {2, 4}});
  args.push_back(LiteralUtil::CreateR1<int32_t>({0, 0}));
  absl::StatusOr<Literal> out =
      EvaluateModule(vjp->module(), testing::Pointers(args));
  ASSERT_TRUE(out.ok()) << out.status();
  // d/dy = sin(x) * c0 + c1.
  EXPECT_THAT(out->tuple_element(1).data<double>(),
              ElementsAre(DoubleNear(std::sin(0.5) + 2, 1e-15),
                          DoubleNear(std::sin(2.0) * 10 + 4, 1e-14)));
}

TEST(TupleVjpTest, WrongCountsShapesAndRootsAreRefusedByName) {
  XlaBuilder b("caller");
  XlaOp x = Parameter(&b, 0, F64Array({2}), "x");
  XlaOp y = Parameter(&b, 1, F64Array({2}), "y");
  EXPECT_THAT(EmitTupleVjp(b, ThreeResults(), {x, y}, {x}, {0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its result has 3 elements but 1 "
                                 "cotangents were given")));
  XlaOp wrong = ConstantR1<double>(&b, {1, 2, 3});
  EXPECT_THAT(
      EmitTupleVjp(b, ThreeResults(), {x, y},
              {wrong, XlaOp(), XlaOp()}, {0})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the cotangent of result element 0 is f64[3] but "
                         "the element is f64[2]")));
  XlaBuilder single("single");
  Sin(Parameter(&single, 0, F64Array({2}), "x"));
  XlaComputation array = *single.Build();
  EXPECT_THAT(EmitTupleVjp(b, array, {x}, {x}, {0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its result is f64[2], not a tuple")));
  EXPECT_THAT(EmitVjp(b, ThreeResults(), {x, y}, x, {0}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("use EmitTupleVjp")));
}

}  // namespace
}  // namespace mxla
