// The rules that differentiate an op through its JIT expansion
// (batch-norm-training, -inference and -grad, ragged-dot, scaled-dot, topk,
// scan) against central finite differences in f64 at seeded random shapes,
// the JIT against the interpreter: every floating-point operand, every
// element of a tuple result, and an integer operand (group sizes, topk's
// indices) carrying none.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/parsed_computation.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using testing::Parsed;
using testing::RandomArgs;
using testing::RandomDims;
using testing::Scalarized;
using testing::SumAll;

// Rank 2 to 4, sizes 1 to 3 (at least 2 elements per feature), and a
// random feature dimension.
struct NormCase {
  std::vector<int64_t> dims;
  int64_t feature;
};

NormCase RandomNormCase(std::mt19937_64& rng) {
  NormCase c;
  c.dims = RandomDims(rng, /*min_rank=*/2, /*max_rank=*/4, /*max_size=*/3);
  c.feature = std::uniform_int_distribution<int64_t>(0, c.dims.size() - 1)(rng);
  c.dims[(c.feature + 1) % c.dims.size()] = 3;  // several per feature
  return c;
}

TEST(LoweredOpGradientTest, BatchNormTrainingAllThreeResults) {
  std::mt19937_64 rng(8100);
  for (int trial = 0; trial < 4; ++trial) {
    const NormCase c = RandomNormCase(rng);
    const Shape x = F64Shape(c.dims), f = F64Shape({c.dims[c.feature]});
    SCOPED_TRACE(absl::StrCat(x.ToString(), " feature ", c.feature));
    XlaComputation loss = Scalarized(
        "bn_training", {x, f, f},
        [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          const XlaOp t = BatchNormTraining(p[0], p[1], p[2], 0.01, c.feature);
          return SumAll(Sin(GetTupleElement(t, 0))) +
                 SumAll(GetTupleElement(t, 1) * GetTupleElement(t, 2));
        });
    ExpectGradientMatchesDifferences(
        loss, RandomArgs({x, f, f}, 8200 + 3 * trial), {0, 1, 2});
  }
}

TEST(LoweredOpGradientTest, BatchNormInferenceEveryOperand) {
  std::mt19937_64 rng(8300);
  for (int trial = 0; trial < 4; ++trial) {
    const NormCase c = RandomNormCase(rng);
    const Shape x = F64Shape(c.dims), f = F64Shape({c.dims[c.feature]});
    SCOPED_TRACE(absl::StrCat(x.ToString(), " feature ", c.feature));
    XlaComputation loss =
        Scalarized("bn_inference", {x, f, f, f, f},
                   [&](XlaBuilder&, const std::vector<XlaOp>& p) {
                     const XlaOp variance = p[4] * p[4] + 0.5;  // positive
                     return Sin(BatchNormInference(p[0], p[1], p[2], p[3],
                                                   variance, 0.01, c.feature));
                   });
    ExpectGradientMatchesDifferences(
        loss, RandomArgs({x, f, f, f, f}, 8400 + 5 * trial), {0, 1, 2, 3, 4});
  }
}

TEST(LoweredOpGradientTest, BatchNormGradEveryOperand) {
  std::mt19937_64 rng(8500);
  for (int trial = 0; trial < 4; ++trial) {
    const NormCase c = RandomNormCase(rng);
    const Shape x = F64Shape(c.dims), f = F64Shape({c.dims[c.feature]});
    SCOPED_TRACE(absl::StrCat(x.ToString(), " feature ", c.feature));
    XlaComputation loss = Scalarized(
        "bn_grad", {x, f, f, f, x},
        [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          const XlaOp variance = p[3] * p[3] + 0.5;
          const XlaOp t =
              BatchNormGrad(p[0], p[1], p[2], variance, p[4], 0.01, c.feature);
          return SumAll(Sin(GetTupleElement(t, 0))) +
                 SumAll(Cos(GetTupleElement(t, 1))) +
                 SumAll(GetTupleElement(t, 2) * GetTupleElement(t, 2));
        });
    ExpectGradientMatchesDifferences(
        loss, RandomArgs({x, f, f, f, x}, 8600 + 5 * trial), {0, 1, 2, 3, 4});
  }
}

// Random sizes and blocks; each scale a scalar or one per block.
TEST(LoweredOpGradientTest, ScaledDotOperandsAndScales) {
  std::mt19937_64 rng(8700);
  for (int trial = 0; trial < 6; ++trial) {
    std::uniform_int_distribution<int64_t> size(1, 3), blocks(1, 2);
    const int64_t m = size(rng), n = size(rng), kb = blocks(rng);
    const int64_t k = kb * size(rng);
    const Shape l = F64Shape({m, k}), r = F64Shape({k, n});
    const Shape ls = trial % 2 == 0 ? F64Shape({m, kb}) : F64Shape({});
    const Shape rs = trial % 3 == 0 ? F64Shape({}) : F64Shape({kb, n});
    SCOPED_TRACE(absl::StrCat(l.ToString(), " ", r.ToString(), " ",
                              ls.ToString(), " ", rs.ToString()));
    XlaComputation loss =
        Scalarized("scaled_dot", {l, r, ls, rs},
                   [&](XlaBuilder&, const std::vector<XlaOp>& p) {
                     DotDimensionNumbers dnums{{}, {1}, {}, {0}};
                     return Sin(ScaledDot(p[0], p[1], p[2], p[3], dnums));
                   });
    ExpectGradientMatchesDifferences(
        loss, RandomArgs({l, r, ls, rs}, 8710 + 4 * trial), {0, 1, 2, 3});
  }
}

// sum(sin(d)) of `op` (text of the root's operands and attributes) in a
// module whose parameters are `parameters`; `extra` holds computations.
std::string SinSumModule(const std::vector<std::string>& parameters,
                         const std::string& result, const std::string& op,
                         const std::string& extra = "") {
  std::string text = absl::StrCat(
      "HloModule m\nadd { a = f64[] parameter(0)\n b = f64[] parameter(1)\n"
      " ROOT s = f64[] add(a, b) }\n",
      extra, "ENTRY e {\n");
  for (size_t i = 0; i < parameters.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ", parameters[i], " parameter(", i,
                    ")\n");
  }
  absl::StrAppend(&text, "  d = ", result, " ", op, "\n  s = ", result,
                  " sine(d)\n  zero = f64[] constant(0)\n"
                  "  ROOT r = f64[] reduce(s, zero), dimensions={",
                  "$DIMS", "}, to_apply=add\n}\n");
  return text;
}

std::string Dims(int64_t rank) {
  std::vector<int64_t> all(rank);
  for (int64_t d = 0; d < rank; ++d) all[d] = d;
  return absl::StrJoin(all, ",");
}

struct RaggedMode {
  std::string lhs, rhs, result, sizes, attributes;
};

// `groups` sizes (one to three groups) that sum to at most `total`, so
// some rows (or contracted elements) may be in no group.
std::string RandomGroupSizes(std::mt19937_64& rng, int64_t total,
                             int64_t& groups) {
  groups = std::uniform_int_distribution<int64_t>(1, 3)(rng);
  std::vector<int64_t> sizes(groups);
  int64_t left = total;
  for (int64_t& size : sizes) {
    size = std::uniform_int_distribution<int64_t>(0, left)(rng);
    left -= size;
  }
  return absl::StrCat("{", absl::StrJoin(sizes, ", "), "}");
}

std::string F64(const std::vector<int64_t>& dims) {
  return absl::StrCat("f64[", absl::StrJoin(dims, ","), "]");
}

// Random sizes in the non-contracting mode (rows by group) and the
// contracting one (the contracted dimension by group); the batch mode is
// a dot.
std::vector<RaggedMode> RandomRaggedModes(std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> size(1, 3), rows(2, 6);
  std::vector<RaggedMode> modes;
  int64_t g = 0;
  const int64_t m = rows(rng), k = size(rng), n = size(rng);
  std::string sizes = RandomGroupSizes(rng, m, g);
  modes.push_back({F64({m, k}), F64({g, k, n}), F64({m, n}), sizes,
                   "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
                   "lhs_ragged_dims={0}, rhs_group_dims={0}"});
  const int64_t m2 = size(rng), k2 = rows(rng), n2 = size(rng);
  sizes = RandomGroupSizes(rng, k2, g);
  modes.push_back({F64({m2, k2}), F64({k2, n2}), F64({g, m2, n2}), sizes,
                   "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                   "lhs_ragged_dims={1}"});
  modes.push_back({"f64[2,3,2]", "f64[2,2,2]", "f64[2,3,2]", "{1, 1}",
                   "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                   "rhs_batch_dims={0}, rhs_contracting_dims={1}, "
                   "lhs_ragged_dims={0}"});
  return modes;
}

// Group sizes are a constant, so the groups are fixed; a row in no group
// has a result of 0 and gives its operands no cotangent.
TEST(LoweredOpGradientTest, RaggedDotInEachMode) {
  std::mt19937_64 rng(8800);
  uint64_t seed = 8810;
  for (int trial = 0; trial < 3; ++trial) {
    for (const RaggedMode& mode : RandomRaggedModes(rng)) {
      SCOPED_TRACE(absl::StrCat(mode.lhs, " ", mode.rhs, " ", mode.sizes, " ",
                                mode.attributes));
      const int64_t groups =
          std::count(mode.sizes.begin(), mode.sizes.end(), ',') + 1;
      std::string text = SinSumModule(
          {mode.lhs, mode.rhs}, mode.result,
          absl::StrCat("ragged-dot(p0, p1, g), ", mode.attributes));
      text = absl::StrReplaceAll(
          text, {{"  d = ", absl::StrCat("  g = s32[", groups, "] constant(",
                                         mode.sizes, ")\n  d = ")},
                 {"$DIMS", Dims(ParseShape(mode.result)->rank())}});
      ExpectGradientMatchesDifferences(
          Parsed(text),
          RandomArgs({*ParseShape(mode.lhs), *ParseShape(mode.rhs)}, seed),
          {0, 1});
      seed += 2;
    }
  }
}

TEST(LoweredOpGradientTest, TopKValuesGoBackToTheChosenElements) {
  std::mt19937_64 rng(8900);
  for (int trial = 0; trial < 4; ++trial) {
    std::uniform_int_distribution<int64_t> size(1, 3), width(2, 6);
    const int64_t rows = size(rng), n = width(rng);
    const int64_t k = std::uniform_int_distribution<int64_t>(1, n)(rng);
    const bool largest = trial % 2 == 0;
    const std::string x = absl::StrCat("f64[", rows, ",", n, "]");
    const std::string values = absl::StrCat("f64[", rows, ",", k, "]");
    SCOPED_TRACE(absl::StrCat(x, " k=", k, largest ? " largest" : ""));
    std::string text =
        SinSumModule({x}, values, "get-tuple-element(t), index=0");
    text = absl::StrReplaceAll(
        text, {{"  d = ", absl::StrCat("  t = (", values, ", s32[", rows, ",",
                                       k, "]) topk(p0), k=", k, ", largest=",
                                       largest ? "true" : "false", "\n  d = ")},
               {"$DIMS", "0,1"}});
    ExpectGradientMatchesDifferences(
        Parsed(text), RandomArgs({*ParseShape(x)}, 9000 + trial), {0});
  }
}

// A scan (forward and reverse, seeded random length and width) of a
// carried product: it becomes a while loop of known trip count, whose rule
// takes it from there.
TEST(LoweredOpGradientTest, ScanThroughItsWhileLoop) {
  std::mt19937_64 rng(9100);
  for (int trial = 0; trial < 4; ++trial) {
    const int64_t length = std::uniform_int_distribution<int64_t>(1, 5)(rng);
    const int64_t width = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    const bool reverse = trial % 2 == 1;
    const std::string row = F64({width}), rows = F64({length, width});
    SCOPED_TRACE(absl::StrCat(rows, reverse ? " reverse" : " forward"));
    const std::string step = absl::StrCat(
        "step {\n  x = ", row, " parameter(0)\n  c = ", row,
        " parameter(1)\n  y = ", row, " multiply(x, c)\n  next = ", row,
        " sine(y)\n  ROOT t = (", row, ", ", row, ") tuple(y, next)\n}\n");
    std::string text =
        SinSumModule({rows, row}, rows, "get-tuple-element(t), index=0", step);
    text = absl::StrReplaceAll(
        text, {{"  d = ", absl::StrCat("  t = (", rows, ", ", row,
                                       ") scan(p0, p1), dimensions={0}, "
                                       "num_carries=1, is_reverse=",
                                       reverse ? "true" : "false",
                                       ", to_apply=step\n  d = ")},
               {"$DIMS", "0,1"}});
    ExpectGradientMatchesDifferences(
        Parsed(text),
        RandomArgs({F64Shape({length, width}), F64Shape({width})},
                   9110 + 2 * trial),
        {0, 1});
  }
}

}  // namespace
}  // namespace mxla
