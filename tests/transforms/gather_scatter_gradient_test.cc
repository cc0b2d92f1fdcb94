// The gather and scatter rules against central finite differences in f64
// at seeded random points: the embedding-lookup form and a 2-D index form,
// with repeated indices and windows that do not fit (a gather clamps them,
// a scatter skips them); which of several overwriting updates stayed, by
// hand; and the update computations without a rule refused by name.
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/literal_pointers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::RandomLiteral;
using testing::Scalarized;

// A table's rows by index: offset_dims {1}, collapsed_slice_dims {0}.
GatherDimensionNumbers RowLookup() {
  GatherDimensionNumbers g;
  g.offset_dims = {1};
  g.collapsed_slice_dims = {0};
  g.start_index_map = {0};
  g.index_vector_dim = 1;
  return g;
}

// 2-D start indices, one pair per row, windows of both dimensions kept.
GatherDimensionNumbers Windows2d() {
  GatherDimensionNumbers g;
  g.offset_dims = {1, 2};
  g.start_index_map = {0, 1};
  g.index_vector_dim = 1;
  return g;
}

ScatterDimensionNumbers RowUpdates() {
  ScatterDimensionNumbers s;
  s.update_window_dims = {1};
  s.inserted_window_dims = {0};
  s.scatter_dims_to_operand_dims = {0};
  s.index_vector_dim = 1;
  return s;
}

ScatterDimensionNumbers WindowUpdates2d() {
  ScatterDimensionNumbers s;
  s.update_window_dims = {1, 2};
  s.scatter_dims_to_operand_dims = {0, 1};
  s.index_vector_dim = 1;
  return s;
}

TEST(GatherScatterGradientTest, GatherMatchesFiniteDifferences) {
  // Embedding lookup with a repeated row: its cotangents add up.
  XlaComputation lookup = Scalarized(
      "lookup", {F64Shape({5, 3})}, [](XlaBuilder& b, const auto& p) {
        XlaOp ids = ConstantR1<int32_t>(&b, {1, 3, 1, 0});
        return Sin(Gather(p[0], ids, RowLookup(), {1, 3}));
      });
  ExpectGradientMatchesDifferences(lookup, testing::OneRandom(F64Shape({5, 3}), 3000), {0});
  // 2-D starts; {3, 4} does not fit a 2x2 window and is clamped to {2, 3}.
  XlaComputation windows = Scalarized(
      "windows", {F64Shape({4, 5})}, [](XlaBuilder& b, const auto& p) {
        XlaOp starts = ConstantR2<int32_t>(&b, {{0, 1}, {2, 3}, {3, 4}});
        return Sin(Gather(p[0], starts, Windows2d(), {2, 2}));
      });
  ExpectGradientMatchesDifferences(windows, testing::OneRandom(F64Shape({4, 5}), 3001), {0});
  // An implicit index vector (index_vector_dim = rank) with s64 indices
  // below and above the range.
  XlaComputation implicit = Scalarized(
      "implicit", {F64Shape({6, 2})}, [](XlaBuilder& b, const auto& p) {
        XlaOp ids = ConstantR1<int64_t>(&b, {-1, 5, 2});
        GatherDimensionNumbers g;
        g.offset_dims = {1, 2};
        g.start_index_map = {0};
        g.index_vector_dim = 1;
        return Sin(Gather(p[0], ids, g, {3, 2}));
      });
  ExpectGradientMatchesDifferences(implicit, testing::OneRandom(F64Shape({6, 2}), 3002), {0});
}

// sin(scatter(operand, indices, updates)) with `update` as the update
// computation; gradients of operand and updates.
void ExpectScatterGradientMatchesDifferences(
    const std::string& name, Shape operand, Shape updates,
    const Literal& indices,
    const ScatterDimensionNumbers& s, bool add, uint64_t seed) {
  SCOPED_TRACE(name);
  XlaComputation f = Scalarized(
      name, {operand, updates}, [&](XlaBuilder& b, const auto& p) {
        XlaComputation update = CreateScalarAddComputation(F64, &b);
        if (!add) {
          XlaBuilder overwrite("overwrite");
          Parameter(&overwrite, 0, F64Shape({}), "old");
          Parameter(&overwrite, 1, F64Shape({}), "new");
          update = *overwrite.Build();
        }
        return Sin(Scatter(p[0], ConstantLiteral(&b, indices), p[1], update,
                           s));
      });
  std::vector<Literal> args;
  args.push_back(RandomLiteral(operand, seed));
  args.push_back(RandomLiteral(updates, seed + 1));
  ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
}

TEST(GatherScatterGradientTest, ScatterAddMatchesFiniteDifferences) {
  // Rows 1 twice; row 7 does not exist: that update is skipped.
  ExpectScatterGradientMatchesDifferences(
      "rows", F64Shape({5, 3}), F64Shape({4, 3}),
      LiteralUtil::CreateR1<int32_t>({1, 3, 1, 7}), RowUpdates(), true, 3100);
  // Overlapping 2x2 windows; the one at {3, 4} does not fit.
  ExpectScatterGradientMatchesDifferences(
      "windows", F64Shape({4, 5}), F64Shape({3, 2, 2}),
      LiteralUtil::CreateR2<int32_t>({{0, 1}, {1, 2}, {3, 4}}),
      WindowUpdates2d(), true, 3102);
}

TEST(GatherScatterGradientTest, OverwritingScatterMatchesFiniteDifferences) {
  ExpectScatterGradientMatchesDifferences(
      "unique_rows", F64Shape({5, 3}), F64Shape({3, 3}),
      LiteralUtil::CreateR1<int32_t>({1, 4, 0}), RowUpdates(), false, 3200);
  // Row 1 written twice: only the update that stayed gets a cotangent.
  ExpectScatterGradientMatchesDifferences(
      "repeated_rows", F64Shape({5, 3}), F64Shape({4, 3}),
      LiteralUtil::CreateR1<int32_t>({1, 3, 1, -1}), RowUpdates(), false,
      3202);
  // Windows that overlap in one element: it belongs to one of them only.
  ExpectScatterGradientMatchesDifferences(
      "overlapping_windows", F64Shape({4, 5}), F64Shape({3, 2, 2}),
      LiteralUtil::CreateR2<int32_t>({{0, 1}, {1, 2}, {3, 4}}),
      WindowUpdates2d(), false, 3204);
}

TEST(GatherScatterGradientTest, TheOverwritingUpdateThatStayedGetsItAll) {
  // scatter([10, 20, 30], {1, 1}, [a, b]) weighted by [1, 2, 3]: element 1
  // holds whichever update stayed; it alone gets the weight 2.
  XlaBuilder b("overwrite_twice");
  XlaOp operand = Parameter(&b, 0, F64Shape({3}), "operand");
  XlaOp updates = Parameter(&b, 1, F64Shape({2}), "updates");
  XlaBuilder overwrite("overwrite");
  Parameter(&overwrite, 0, F64Shape({}), "old");
  Parameter(&overwrite, 1, F64Shape({}), "new");
  ScatterDimensionNumbers s;
  s.inserted_window_dims = {0};
  s.scatter_dims_to_operand_dims = {0};
  s.index_vector_dim = 1;
  XlaOp scattered = Scatter(operand, ConstantR1<int32_t>(&b, {1, 1}), updates,
                            *overwrite.Build(), s);
  Tuple(&b, {scattered, testing::SumAll(scattered * ConstantR1<double>(&b, {1, 2, 3}))});
  XlaComputation both = *b.Build();
  std::vector<Literal> args;
  args.push_back(LiteralUtil::CreateR1<double>({10, 20, 30}));
  args.push_back(LiteralUtil::CreateR1<double>({5, 7}));
  absl::StatusOr<Literal> primal =
      EvaluateModule(both.module(), testing::Pointers(args));
  ASSERT_TRUE(primal.ok()) << primal.status();
  const double stayed = primal->tuple_element(0).data<double>()[1];
  ASSERT_TRUE(stayed == 5 || stayed == 7) << stayed;

  XlaBuilder l("loss");
  XlaOp lo = Parameter(&l, 0, F64Shape({3}), "operand");
  XlaOp lu = Parameter(&l, 1, F64Shape({2}), "updates");
  testing::SumAll(Scatter(lo, ConstantR1<int32_t>(&l, {1, 1}), lu,
                          *overwrite.Build(), s) *
                  ConstantR1<double>(&l, {1, 2, 3}));
  absl::StatusOr<XlaComputation> gradient = Gradient(*l.Build(), {0, 1});
  ASSERT_TRUE(gradient.ok()) << gradient.status();
  absl::StatusOr<Literal> g =
      EvaluateModule(gradient->module(), testing::Pointers(args));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->tuple_element(0).data<double>(), ElementsAre(1, 0, 3));
  EXPECT_THAT(g->tuple_element(1).data<double>(),
              stayed == 5 ? ElementsAre(2, 0) : ElementsAre(0, 2));
}

TEST(GatherScatterGradientTest, BatchingDimensionsMatchFiniteDifferences) {
  // Batch b reads (and writes) row b of x at its own two columns.
  Literal starts = LiteralUtil::CreateR3<int32_t>({{{4}, {0}}, {{2}, {2}},
                                                   {{1}, {3}}});
  GatherDimensionNumbers g;
  g.collapsed_slice_dims = {1};
  g.start_index_map = {1};
  g.operand_batching_dims = {0};
  g.start_indices_batching_dims = {0};
  g.index_vector_dim = 2;
  XlaComputation gather = Scalarized(
      "batched_gather", {F64Shape({3, 5})}, [&](XlaBuilder& b, const auto& p) {
        return Sin(Gather(p[0], ConstantLiteral(&b, starts), g, {1, 1}));
      });
  ExpectGradientMatchesDifferences(
      gather, testing::OneRandom(F64Shape({3, 5}), 3300), {0});
  ScatterDimensionNumbers s;
  s.inserted_window_dims = {1};
  s.scatter_dims_to_operand_dims = {1};
  s.input_batching_dims = {0};
  s.scatter_indices_batching_dims = {0};
  s.index_vector_dim = 2;
  for (bool add : {true, false}) {
    ExpectScatterGradientMatchesDifferences(
        add ? "batched_add" : "batched_overwrite", F64Shape({3, 5}),
        F64Shape({3, 2}), starts, s, add, 3301);
  }
}

TEST(GatherScatterGradientTest, F32GradientsJitMatchesInterpreter) {
  XlaComputation f = Scalarized(
      "lookup_scatter_f32",
      {ShapeUtil::MakeShape(F32, {5, 3}), ShapeUtil::MakeShape(F32, {4, 3})},
      [](XlaBuilder& b, const auto& p) {
        XlaOp ids = ConstantR1<int32_t>(&b, {1, 3, 1, 7});
        XlaOp rows = Gather(p[0], ids, RowLookup(), {1, 3});
        XlaOp added = Scatter(p[0], ids, p[1],
                              CreateScalarAddComputation(F32, &b),
                              RowUpdates());
        XlaBuilder overwrite("overwrite");
        Parameter(&overwrite, 0, ShapeUtil::MakeShape(F32, {}), "old");
        Parameter(&overwrite, 1, ShapeUtil::MakeShape(F32, {}), "new");
        XlaOp written = Scatter(added, ids, p[1] * rows, *overwrite.Build(),
                                RowUpdates());
        return Sin(written);
      });
  testing::ExpectJitGradientMatchesInterpreter(f, {0, 1}, 1e-5);
}

TEST(GatherScatterGradientTest, OtherUpdateComputationsAreRefusedByName) {
  XlaComputation f = Scalarized(
      "scatter_mul", {F64Shape({5, 3}), F64Shape({2, 3})},
      [](XlaBuilder& b, const auto& p) {
        return Scatter(p[0], ConstantR1<int32_t>(&b, {0, 2}), p[1],
                       CreateScalarMulComputation(F64, &b), RowUpdates());
      });
  absl::Status status = Gradient(f, {1}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(),
              HasSubstr("gradient: no rule for 'scatter' with an update "
                        "computation other than add or overwrite yet "
                        "(instruction"));
  // A scatter of two operands at once.
  absl::StatusOr<std::unique_ptr<HloModule>> variadic = ParseHloModule(R"(
HloModule variadic
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
pair_add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  c = f64[] parameter(2)
  d = f64[] parameter(3)
  s = f64[] add(a, c)
  t = f64[] add(b, d)
  ROOT r = (f64[], f64[]) tuple(s, t)
}
ENTRY e {
  x = f64[4] parameter(0)
  y = f64[4] parameter(1)
  i = s32[2] constant({0, 2})
  u = f64[2] parameter(2)
  v = f64[2] parameter(3)
  scattered = (f64[4], f64[4]) scatter(x, y, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=pair_add
  first = f64[4] get-tuple-element(scattered), index=0
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(first, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_TRUE(variadic.ok()) << variadic.status();
  status = Gradient(XlaComputation(*std::move(variadic)), {0}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(),
              HasSubstr("gradient: no rule for 'scatter' with several "
                        "operands yet (instruction 'scattered', "
                        "(f64[4], f64[4]))"));
}

}  // namespace
}  // namespace mxla
