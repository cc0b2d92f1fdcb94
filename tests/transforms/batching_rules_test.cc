// vmap's rules for convolution with a batched kernel or batch groups,
// select-and-scatter, cholesky and triangular-solve, each checked against
// the definition of vmap (slice b of the batched result is the function
// of slice b of the arguments) with the batch at every dimension, and the
// JIT against the interpreter (tests/testlib/batching_check.h).
#include <optional>
#include <string>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/batching_check.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/batching.h"

namespace mxla {
namespace {

using ::mxla::testing::BatchDims;
using ::mxla::testing::Build;
using ::mxla::testing::ExpectBatchMatchesLoop;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

Shape F64Array(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(F64, dims);
}

// A convolution of lhs and rhs with `labels`, strides 2 and 1 (or 1),
// padding, dilations and the group counts.
XlaComputation Conv(const std::string& name, std::vector<int64_t> lhs,
                    std::vector<int64_t> rhs, const std::string& labels,
                    int64_t feature_groups, int64_t batch_groups) {
  return Build(name, {F64Array(lhs), F64Array(rhs)},
               [&](XlaBuilder&, const std::vector<XlaOp>& p) {
                 const ConvolutionDimensionNumbers numbers =
                     *ParseConvolutionDimLabels(labels);
                 if (numbers.input_spatial.size() == 2) {
                   ConvGeneralDilated(p[0], p[1], {2, 1}, {{1, 1}, {0, 1}},
                                      {1, 1}, {1, 2}, numbers, feature_groups,
                                      batch_groups);
                 } else {
                   ConvGeneralDilated(p[0], p[1], {1}, {{1, 0}}, {}, {},
                                      numbers, feature_groups, batch_groups);
                 }
               });
}

// Every combination of batched input and kernel, the batch at the front,
// the back and in the middle.
const std::vector<BatchDims> kConvDims = {{0, std::nullopt},
                                          {std::nullopt, 0},
                                          {std::nullopt, 4},
                                          {0, 0},
                                          {4, 2},
                                          {2, 4},
                                          {std::nullopt, 2},
                                          {3, std::nullopt}};

TEST(ConvolutionBatchingTest, PerExampleKernelsInEveryLayout) {
  for (const XlaComputation& f :
       {Conv("nhwc_hwio", {2, 5, 4, 3}, {3, 3, 3, 4}, "b01f_01io->b01f", 1, 1),
        Conv("nchw_oihw", {2, 3, 5, 4}, {4, 3, 3, 3}, "bf01_oi01->bf01", 1, 1),
        Conv("mixed", {5, 2, 3, 4}, {4, 3, 3, 3}, "0bf1_o01i->f01b", 1, 1)}) {
    for (const BatchDims& dims : kConvDims) ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(ConvolutionBatchingTest, PerExampleKernelsWithFeatureGroups) {
  for (const XlaComputation& f :
       {Conv("grouped_nhwc", {2, 5, 4, 4}, {3, 3, 2, 6}, "b01f_01io->b01f", 2,
             1),
        Conv("grouped_nchw", {2, 4, 5, 4}, {6, 2, 3, 3}, "bf01_oi01->bf01", 2,
             1),
        Conv("depthwise", {2, 6, 3}, {2, 1, 6}, "b0f_0io->b0f", 3, 1)}) {
    for (const BatchDims& dims : kConvDims) {
      if (dims[0].value_or(0) > 3 || dims[1].value_or(0) > 3) {
        if (f.name() == "depthwise") continue;  // rank 3
      }
      ExpectBatchMatchesLoop(f, dims);
    }
  }
}

// batch_group_count > 1: a weight gradient's convolution (each group of
// the input's batch makes one group of output features).
TEST(ConvolutionBatchingTest, BatchGroupsWithBatchedInputKernelOrBoth) {
  for (const XlaComputation& f :
       {Conv("batch_groups", {4, 5, 3}, {2, 3, 4}, "b0f_0io->b0f", 1, 2),
        Conv("weight_gradient", {3, 5, 6}, {3, 2, 6}, "f0b_i0o->0bf", 1, 3),
        Conv("batch_groups_2d", {4, 3, 5, 4}, {6, 3, 3, 3}, "bf01_oi01->bf01",
             1, 2)}) {
    for (const BatchDims& dims :
         {BatchDims{0, std::nullopt}, BatchDims{std::nullopt, 0},
          BatchDims{1, 2}, BatchDims{3, std::nullopt},
          BatchDims{std::nullopt, 3}, BatchDims{2, 0}}) {
      ExpectBatchMatchesLoop(f, dims);
    }
  }
}

XlaComputation GeComputation() {
  XlaBuilder ge("ge");
  Ge(Parameter(&ge, 0, F64Array({}), "a"),
     Parameter(&ge, 1, F64Array({}), "b"));
  return *ge.Build();
}

// Max pooling's gradient: windows 2x3, strides 2, padding on the right.
XlaComputation MaxPoolGradient() {
  return Build("max_pool_gradient",
               {F64Array({4, 6}), F64Array({2, 3}), F64Array({})},
               [](XlaBuilder& b, const std::vector<XlaOp>& p) {
                 SelectAndScatterWithGeneralPadding(
                     p[0], GeComputation(), {2, 3}, {2, 2}, {{0, 0}, {0, 1}},
                     p[1], p[2], CreateScalarAddComputation(F64, &b));
               });
}

TEST(SelectAndScatterBatchingTest, BatchedOperandSourceOrBoth) {
  const XlaComputation f = MaxPoolGradient();
  for (const BatchDims& dims :
       {BatchDims{0, std::nullopt, std::nullopt},
        BatchDims{1, std::nullopt, std::nullopt},
        BatchDims{std::nullopt, 0, std::nullopt},
        BatchDims{std::nullopt, 2, std::nullopt}, BatchDims{2, 1, std::nullopt},
        BatchDims{0, 0, std::nullopt}}) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(SelectAndScatterBatchingTest, ABatchedInitialValueIsRefusedByName) {
  EXPECT_THAT(
      Batch(MaxPoolGradient(), {0, std::nullopt, 0}, 2).status(),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("vmap: no batching rule for 'select-and-scatter' "
                         "with a batched initial value")));
}

// a = x x^T + 3 I, positive definite for any x.
XlaOp PositiveDefinite(XlaBuilder& b, XlaOp x) {
  return Add(
      Dot(x, Transpose(x, {1, 0})),
      ConvertElementType(Iota(&b, ShapeUtil::MakeShape(S32, {3, 3}), 0), F64) *
              0.0 +
          ConvertElementType(Eq(Iota(&b, ShapeUtil::MakeShape(S32, {3, 3}), 0),
                                Iota(&b, ShapeUtil::MakeShape(S32, {3, 3}), 1)),
                             F64) *
              3.0);
}

TEST(LinearAlgebraBatchingTest, CholeskyOfEachExample) {
  for (bool lower : {true, false}) {
    XlaComputation f = Build("cholesky", {F64Array({3, 3})},
                             [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
                               Cholesky(PositiveDefinite(b, p[0]), lower);
                             });
    for (const BatchDims& dims : {BatchDims{0}, BatchDims{1}, BatchDims{2}}) {
      ExpectBatchMatchesLoop(f, dims);
    }
  }
}

TEST(LinearAlgebraBatchingTest, TriangularSolvesWithEitherSideBatched) {
  for (bool left : {true, false}) {
    for (auto transpose : {TriangularSolveTranspose::kNoTranspose,
                           TriangularSolveTranspose::kTranspose}) {
      XlaComputation f =
          Build("solve",
                {F64Array({3, 3}), F64Array(left ? std::vector<int64_t>{3, 2}
                                                 : std::vector<int64_t>{2, 3})},
                [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
                  TriangularSolve(Cholesky(PositiveDefinite(b, p[0]), true),
                                  p[1], left, true, false, transpose);
                });
      for (const BatchDims& dims :
           {BatchDims{0, std::nullopt}, BatchDims{std::nullopt, 0},
            BatchDims{std::nullopt, 2}, BatchDims{1, 1}, BatchDims{2, 0}}) {
        ExpectBatchMatchesLoop(f, dims);
      }
    }
  }
}

}  // namespace
}  // namespace mxla
