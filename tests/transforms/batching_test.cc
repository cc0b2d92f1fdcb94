// vmap over built computations (transforms/batching.h), checked against
// its definition: the batched computation's slice b equals the function
// evaluated on the arguments' slice b, for every b, with the batch at
// every dimension of the arguments; and the JIT agrees with the
// interpreter on the batched computations (tests/testlib/batching_check.h).
#include "transforms/batching.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/batching_check.h"
#include "tests/testlib/read_file.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/batching_rules.h"

namespace mxla {
namespace {

using ::mxla::testing::Build;
using ::mxla::testing::ExpectBatchMatchesLoop;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;
using Dims = ::mxla::testing::BatchDims;

Shape F64Array(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(F64, dims); }

TEST(BatchingTest, ElementwiseOpsWithEveryBatchDimension) {
  XlaComputation f = Build("elementwise", {F64Array({3, 2}), F64Array({2})},
                           [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    XlaOp y = Add(Sin(p[0]) * p[0], p[1], {1});  // an implicit broadcast
    Select(Gt(y, ConstantR0<double>(&b, 0.5)),
           Clamp(ConstantR0<double>(&b, -1), y, ConstantR0<double>(&b, 1)),
           Exp(y) / (y * y + 1.0));
  });
  for (Dims dims : {Dims{0, std::nullopt}, Dims{1, 0}, Dims{2, std::nullopt},
                    Dims{std::nullopt, 1}}) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(BatchingTest, DataMovementOps) {
  XlaComputation f = Build("moves", {F64Array({4, 3}), F64Array({2})},
                           [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    XlaOp t = Transpose(p[0], {1, 0});
    XlaOp r = Rev(Reshape(t, {2, 6}), {1});
    XlaOp s = Slice(r, {0, 1}, {2, 6}, {1, 2});
    PaddingConfig config = {{1, 0, 0}, {0, 2, 1}};
    XlaOp padded = Pad(s, ConstantR0<double>(&b, 0.25), config);
    XlaOp joined = ConcatInDim(&b, {padded, BroadcastInDim(p[1], {3, 2}, {1})}, 1);
    XlaOp index = ConstantR0<int32_t>(&b, 1);
    XlaOp piece = DynamicSlice(joined, {index, index}, {2, 3});
    Tuple(&b, {piece, DynamicUpdateSlice(joined, piece * 2.0, {index, index})});
  });
  for (Dims dims : {Dims{0, std::nullopt}, Dims{1, 0}, Dims{std::nullopt, 1}}) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(BatchingTest, DotsWithOneOrBothSidesBatched) {
  XlaComputation matvec = Build("matvec", {F64Array({4, 3}), F64Array({3})},
                                [](XlaBuilder&, const std::vector<XlaOp>& p) {
    Dot(p[0], p[1]);
  });
  for (Dims dims : {Dims{0, std::nullopt}, Dims{std::nullopt, 0}, Dims{2, 1},
                    Dims{1, 0}}) {
    ExpectBatchMatchesLoop(matvec, dims);
  }
  XlaComputation batched_dot = Build(
      "attention", {F64Array({2, 5, 3}), F64Array({2, 4, 3})},
      [](XlaBuilder&, const std::vector<XlaOp>& p) {
        DotDimensionNumbers numbers;
        numbers.lhs_batch = {0};
        numbers.rhs_batch = {0};
        numbers.lhs_contracting = {2};
        numbers.rhs_contracting = {2};
        DotGeneral(p[0], p[1], numbers);
      });
  for (Dims dims : {Dims{0, 0}, Dims{3, std::nullopt}, Dims{std::nullopt, 1}}) {
    ExpectBatchMatchesLoop(batched_dot, dims);
  }
}

TEST(BatchingTest, ReductionsAndPooling) {
  XlaComputation f = Build("reduce", {F64Array({4, 6})},
                           [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    XlaOp sum = Reduce(p[0], ConstantR0<double>(&b, 0),
                       CreateScalarAddComputation(F64, &b), {1});
    XlaOp max = Reduce(p[0], ConstantR0<double>(&b, -INFINITY),
                       CreateScalarMaxComputation(F64, &b), {0, 1});
    XlaOp pooled = ReduceWindowWithGeneralPadding(
        p[0], ConstantR0<double>(&b, -INFINITY),
        CreateScalarMaxComputation(F64, &b), {2, 3}, {2, 2}, {}, {},
        {{0, 0}, {1, 0}});
    Tuple(&b, {sum, Add(sum, max, {}), pooled});
  });
  for (Dims dims : {Dims{0}, Dims{1}, Dims{2}}) ExpectBatchMatchesLoop(f, dims);
}

TEST(BatchingTest, ConvolutionsWithABatchedInput) {
  XlaComputation nhwc = Build("conv", {F64Array({2, 5, 4, 3}), F64Array({3, 3, 3, 2})},
                              [](XlaBuilder&, const std::vector<XlaOp>& p) {
    ConvolutionDimensionNumbers numbers =
        *ParseConvolutionDimLabels("b01f_01io->b01f");
    ConvGeneralDilated(p[0], p[1], {2, 1}, {{1, 1}, {0, 1}}, {1, 1}, {1, 2},
                       numbers, 1, 1);
  });
  for (Dims dims : {Dims{0, std::nullopt}, Dims{2, std::nullopt},
                    Dims{4, std::nullopt}}) {
    ExpectBatchMatchesLoop(nhwc, dims);
  }
  // Batch in the middle of the input, and feature groups.
  XlaComputation grouped = Build("grouped", {F64Array({4, 2, 6}), F64Array({3, 2, 4})},
                                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
    ConvolutionDimensionNumbers numbers = *ParseConvolutionDimLabels("fb0_0io->bf0");
    ConvGeneralDilated(p[0], p[1], {1}, {{1, 1}}, {1}, {1}, numbers, 2, 1);
  });
  ExpectBatchMatchesLoop(grouped, Dims{1, std::nullopt});
}

// table[floor(|pos| * 2)] rows: indices computed from a batched or
// unbatched f64 argument, from a batched or unbatched table.
TEST(BatchingTest, GathersWithBatchedIndicesOperandOrBoth) {
  XlaComputation lookup = Build("lookup", {F64Array({5, 3}), F64Array({2})},
                                [](XlaBuilder&, const std::vector<XlaOp>& p) {
    XlaOp index = ConvertElementType(Floor(Abs(p[1]) * 2.0), S32);
    GatherDimensionNumbers numbers;
    numbers.offset_dims = {1};
    numbers.collapsed_slice_dims = {0};
    numbers.start_index_map = {0};
    numbers.index_vector_dim = 1;
    Gather(p[0], Reshape(index, {2, 1}), numbers, {1, 3});
  });
  for (Dims dims : {Dims{std::nullopt, 0}, Dims{0, std::nullopt}, Dims{1, 1},
                    Dims{2, 0}}) {
    ExpectBatchMatchesLoop(lookup, dims);
  }
}

// A dynamic slice at starts computed from a batched argument becomes a
// gather (starts out of range clamp as the slice's do).
TEST(BatchingTest, DynamicSlicesAtBatchedStarts) {
  XlaComputation window = Build("window", {F64Array({6, 4}), F64Array({})},
                                [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    XlaOp row = ConvertElementType(Floor(p[1] * 3.0), S32);  // -6 .. 5
    DynamicSlice(p[0], {row, ConstantR0<int32_t>(&b, 1)}, {3, 2});
  });
  for (Dims dims : {Dims{std::nullopt, 0}, Dims{0, 0}, Dims{1, 0}}) {
    ExpectBatchMatchesLoop(window, dims);
  }
}

// table.at[floor(|pos| * 2)].add(rows): indices, table and rows batched
// in every combination; repeated indices accumulate.
TEST(BatchingTest, ScattersOfEachExample) {
  XlaComputation add_rows = Build(
      "add_rows", {F64Array({5, 3}), F64Array({4}), F64Array({4, 3})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        XlaOp index = ConvertElementType(Floor(Abs(p[1]) * 2.0), S32);
        ScatterDimensionNumbers numbers;
        numbers.update_window_dims = {1};
        numbers.inserted_window_dims = {0};
        numbers.scatter_dims_to_operand_dims = {0};
        numbers.index_vector_dim = 1;
        Scatter(p[0], Reshape(index, {4, 1}), p[2],
                CreateScalarAddComputation(F64, &b), numbers);
      });
  for (Dims dims : {Dims{0, std::nullopt, std::nullopt}, Dims{std::nullopt, 0, std::nullopt},
                    Dims{std::nullopt, std::nullopt, 1}, Dims{2, 1, 0}}) {
    ExpectBatchMatchesLoop(add_rows, dims);
  }
}

// A dynamic-update-slice at starts computed from a batched argument
// becomes a scatter at the clamped starts, into each example's operand.
TEST(BatchingTest, DynamicUpdateSlicesAtBatchedStarts) {
  XlaComputation write = Build("write", {F64Array({6, 4}), F64Array({}), F64Array({2, 3})},
                               [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    XlaOp row = ConvertElementType(Floor(p[1] * 3.0), S32);  // -6 .. 5
    DynamicUpdateSlice(p[0], p[2], {row, ConstantR0<int32_t>(&b, 2)});
  });
  for (Dims dims : {Dims{std::nullopt, 0, std::nullopt}, Dims{0, 0, std::nullopt},
                    Dims{1, 0, 2}, Dims{std::nullopt, 0, 0}}) {
    ExpectBatchMatchesLoop(write, dims);
  }
}

// A loop whose condition reads batched data runs each example its own
// number of trips (0 to 8 here): the batched loop runs while any example's
// condition holds and leaves the finished ones as they were.
TEST(BatchingTest, WhileLoopsWithTripsThatDifferPerExample) {
  XlaComputation grow = Build("grow", {F64Array({2}), F64Array({})},
                              [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    XlaOp state = Tuple(&b, {ConstantR0<int32_t>(&b, 0), p[0], p[1]});
    const Shape shape = b.GetShape(state).value();
    XlaBuilder condition("condition");
    XlaOp s = Parameter(&condition, 0, shape, "s");
    XlaOp x = GetTupleElement(s, 1);
    XlaOp norm = Reduce(x * x, ConstantR0<double>(&condition, 0),
                        CreateScalarAddComputation(F64, &condition), {0});
    And(Lt(GetTupleElement(s, 0), ConstantR0<int32_t>(&condition, 8)),
        Lt(norm, ConstantR0<double>(&condition, 6.0)));
    XlaBuilder body("body");
    XlaOp t = Parameter(&body, 0, shape, "t");
    Tuple(&body, {GetTupleElement(t, 0) + ConstantR0<int32_t>(&body, 1),
                  GetTupleElement(t, 1) * 1.4 + Add(GetTupleElement(t, 2), 
                                                    ConstantR0<double>(&body, 0.1)),
                  GetTupleElement(t, 2)});
    XlaOp done = While(*condition.Build(), *body.Build(), state);
    Tuple(&b, {GetTupleElement(done, 1),
               ConvertElementType(GetTupleElement(done, 0), F64)});
  });
  for (Dims dims : {Dims{0, std::nullopt}, Dims{1, 0}, Dims{std::nullopt, 0}}) {
    ExpectBatchMatchesLoop(grow, dims, {.size = 5});
  }
}

// Keys with values, along either dimension, with a shared operand.
TEST(BatchingTest, SortsOfEachExample) {
  XlaComputation sorted = Build("sorted", {F64Array({3, 4}), F64Array({3, 4})},
                                [](XlaBuilder&, const std::vector<XlaOp>& p) {
    XlaBuilder less("less");
    XlaOp lt = Lt(Parameter(&less, 0, F64Array({}), "a"),
                  Parameter(&less, 1, F64Array({}), "b"));
    Parameter(&less, 2, F64Array({}), "c");
    Parameter(&less, 3, F64Array({}), "d");
    XlaComputation comparator = *less.Build(lt);
    XlaOp along_rows = Sort({p[0], p[1]}, comparator, 1, true);
    XlaOp along_columns = Sort({p[1], p[0]}, comparator, 0, true);
    Tuple(p[0].builder(), {GetTupleElement(along_rows, 1),
                           GetTupleElement(along_columns, 0)});
  });
  for (Dims dims : {Dims{0, std::nullopt}, Dims{2, 1}, Dims{std::nullopt, 0}}) {
    ExpectBatchMatchesLoop(sorted, dims);
  }
}

TEST(BatchingTest, ResultsNoBatchedValueReachesAreBroadcast) {
  XlaComputation f = Build("partly", {F64Array({2}), F64Array({2})},
                           [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    Tuple(&b, {p[0] * 3.0, Cos(p[1]), Iota(&b, F64Array({2}), 0)});
  });
  ExpectBatchMatchesLoop(f, Dims{0, std::nullopt});
}

TEST(BatchingTest, BadRequestsAndOpsWithoutARuleAreRefusedByName) {
  XlaComputation f = Build("f", {F64Array({3})},
                           [](XlaBuilder&, const std::vector<XlaOp>& p) {
    Neg(p[0]);
  });
  EXPECT_THAT(Batch(f, {2}, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("parameter 0 (f64[3]) cannot be batched "
                                 "along dimension 2")));
  EXPECT_THAT(Batch(f, {0, 0}, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("it has 1 parameters but 2 batch dimensions")));
  XlaBuilder b("caller");
  XlaOp wrong = Parameter(&b, 0, F64Array({5, 3}), "x");
  EXPECT_THAT(EmitBatched(b, f, {wrong}, {0}, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument 0 is f64[5,3] but parameter 0 is "
                                 "f64[3], so with a batch of 4 at dimension 0 "
                                 "it must be f64[4,3]")));

  XlaComputation opaque = Build("opaque", {F64Array({3})},
                                [](XlaBuilder& b, const std::vector<XlaOp>& p) {
    CustomCall(&b, "Sharding", {p[0]}, F64Array({3}));
  });
  EXPECT_THAT(Batch(opaque, {0}, 2).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("vmap: no batching rule for 'custom-call' yet")));
}

// docs/vmap.md lists the ops with a rule between markers; the list must
// be the rules the code has.
TEST(BatchingTest, TheDocsListTheOpsWithARule) {
  const std::string page = testing::ReadFile(MXLA_SOURCE_DIR "/docs/vmap.md");
  const std::string begin = "<!-- ops with a batching rule: begin -->";
  const size_t start = page.find(begin);
  const size_t end = page.find("<!-- ops with a batching rule: end -->");
  ASSERT_NE(start, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::vector<std::string> documented = absl::StrSplit(
      page.substr(start + begin.size(), end - start - begin.size()),
      absl::ByAnyChar(", \n"), absl::SkipEmpty());
  std::vector<std::string> with_rule;
#define MXLA_HLO_OP(e, ...)                                              \
  if (HasBatchingRule(HloOpcode::e)) {                                    \
    with_rule.push_back(std::string(HloOpcodeString(HloOpcode::e)));      \
  }
#include "ir/hlo_ops.def"
  EXPECT_THAT(documented, ::testing::UnorderedElementsAreArray(with_rule));
}

}  // namespace
}  // namespace mxla
