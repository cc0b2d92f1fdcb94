// vmap of the ops that call computations (call, conditional, opt-barrier),
// of topk and stochastic-convert, and of the ops batched through their
// expanders (batch norms, ragged-dot, scaled-dot, scan), each checked
// against the definition of vmap with the batch at every dimension, and
// the JIT against the interpreter (tests/testlib/batching_check.h).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/batching_check.h"
#include "tests/testlib/parsed_computation.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/batching.h"

namespace mxla {
namespace {

using ::mxla::testing::BatchDims;
using ::mxla::testing::Build;
using ::mxla::testing::ExpectBatchMatchesLoop;
using ::mxla::testing::Parsed;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

constexpr std::nullopt_t kNone = std::nullopt;

Shape F64Array(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(F64, dims);
}

// Every combination of the batch at dimension 0, at the last dimension
// and nowhere, for `count` parameters of rank `rank`, but all nowhere.
std::vector<BatchDims> EveryPlacement(int64_t count, int64_t rank) {
  std::vector<BatchDims> all = {{}};
  for (int64_t i = 0; i < count; ++i) {
    std::vector<BatchDims> next;
    for (const BatchDims& dims : all) {
      for (std::optional<int64_t> d : BatchDims{0, rank, kNone}) {
        BatchDims more = dims;
        more.push_back(d);
        next.push_back(more);
      }
    }
    all = std::move(next);
  }
  all.pop_back();  // none batched
  return all;
}

XlaComputation SineAndProduct() {
  XlaBuilder callee("sine_and_product");
  const XlaOp x = Parameter(&callee, 0, F64Array({2, 3}), "x");
  const XlaOp y = Parameter(&callee, 1, F64Array({2, 3}), "y");
  Tuple(&callee, {Sin(x) * y, x - y});
  return *callee.Build();
}

TEST(CallBatchingTest, CallBatchesItsCallee) {
  XlaComputation f =
      Build("call", {F64Array({2, 3}), F64Array({2, 3})},
            [](XlaBuilder& b, const std::vector<XlaOp>& p) {
              const XlaOp called = Call(&b, SineAndProduct(), {p[0], p[1]});
              GetTupleElement(called, 0) + GetTupleElement(called, 1);
            });
  for (const BatchDims& dims : EveryPlacement(2, 2)) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(CallBatchingTest, CallOfATupleOperand) {
  XlaComputation f = Parsed(R"(
HloModule call_tuple
callee {
  t = (f64[2], f64[2]) parameter(0)
  a = f64[2] get-tuple-element(t), index=0
  b = f64[2] get-tuple-element(t), index=1
  ROOT m = f64[2] multiply(a, b)
}
ENTRY main {
  x = f64[2] parameter(0)
  y = f64[2] parameter(1)
  t = (f64[2], f64[2]) tuple(x, y)
  ROOT c = f64[2] call(t), to_apply=callee
})");
  for (const BatchDims& dims : EveryPlacement(2, 1)) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

constexpr char kBranches[] = R"(
double {
  x = f64[3] parameter(0)
  ROOT d = f64[3] add(x, x)
}
sine {
  t = (f64[3], f64[]) parameter(0)
  x = f64[3] get-tuple-element(t), index=0
  s = f64[] get-tuple-element(t), index=1
  bs = f64[3] broadcast(s), dimensions={}
  sx = f64[3] sine(x)
  ROOT m = f64[3] multiply(sx, bs)
}
const {
  x = f64[3] parameter(0)
  ROOT c = f64[3] constant({1, 2, 3})
}
)";

// The pred form: the predicate is whether p0 < 0, so batching p0 batches
// the predicate and the examples take both branches.
TEST(CallBatchingTest, ConditionalOnAPredicate) {
  XlaComputation f = Parsed(absl::StrCat("HloModule pred\n", kBranches, R"(
ENTRY main {
  p = f64[] parameter(0)
  x = f64[3] parameter(1)
  s = f64[] parameter(2)
  zero = f64[] constant(0)
  neg = pred[] compare(p, zero), direction=LT
  t = (f64[3], f64[]) tuple(x, s)
  ROOT c = f64[3] conditional(neg, x, t), true_computation=double, false_computation=sine
})"));
  for (const BatchDims& dims :
       {BatchDims{0, kNone, kNone}, BatchDims{kNone, 1, kNone},
        BatchDims{kNone, kNone, 0}, BatchDims{0, 0, 0}, BatchDims{0, kNone, 0},
        BatchDims{kNone, 0, 0}}) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

// The index form: the index is p0 * 2 rounded toward zero, from -4 to 3,
// so some examples are out of range and take the last branch.
TEST(CallBatchingTest, ConditionalOnAnIndex) {
  XlaComputation f = Parsed(absl::StrCat("HloModule index\n", kBranches, R"(
ENTRY main {
  p = f64[] parameter(0)
  x = f64[3] parameter(1)
  s = f64[] parameter(2)
  two = f64[] constant(2)
  p2 = f64[] multiply(p, two)
  i = s32[] convert(p2)
  t = (f64[3], f64[]) tuple(x, s)
  ROOT c = f64[3] conditional(i, x, t, x), branch_computations={double, sine, const}
})"));
  for (const BatchDims& dims :
       {BatchDims{0, kNone, kNone}, BatchDims{kNone, 1, kNone},
        BatchDims{kNone, kNone, 0}, BatchDims{0, 1, 0}}) {
    ExpectBatchMatchesLoop(f, dims, {.size = 8});
  }
}

// Branches returning a tuple: the select is per element.
TEST(CallBatchingTest, ConditionalWithATupleResult) {
  XlaComputation f = Parsed(R"(
HloModule tuple_result
swap {
  t = (f64[3], f64[2]) parameter(0)
  a = f64[3] get-tuple-element(t), index=0
  b = f64[2] get-tuple-element(t), index=1
  sa = f64[3] sine(a)
  ROOT r = (f64[2], f64[3]) tuple(b, sa)
}
keep {
  t = (f64[3], f64[2]) parameter(0)
  a = f64[3] get-tuple-element(t), index=0
  b = f64[2] get-tuple-element(t), index=1
  nb = f64[2] negate(b)
  ROOT r = (f64[2], f64[3]) tuple(nb, a)
}
ENTRY main {
  p = f64[] parameter(0)
  x = f64[3] parameter(1)
  y = f64[2] parameter(2)
  zero = f64[] constant(0)
  neg = pred[] compare(p, zero), direction=LT
  t = (f64[3], f64[2]) tuple(x, y)
  ROOT c = (f64[2], f64[3]) conditional(neg, t, t), true_computation=swap, false_computation=keep
})");
  for (const BatchDims& dims :
       {BatchDims{0, kNone, kNone}, BatchDims{kNone, 1, kNone},
        BatchDims{0, 0, 1}, BatchDims{kNone, kNone, 0}}) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(CallBatchingTest, OptBarrierAndTopK) {
  XlaComputation f = Parsed(R"(
HloModule barrier
ENTRY main {
  x = f64[2,5] parameter(0)
  y = f64[2,5] parameter(1)
  t = (f64[2,5], f64[2,5]) tuple(x, y)
  b = (f64[2,5], f64[2,5]) opt-barrier(t)
  bx = f64[2,5] get-tuple-element(b), index=0
  by = f64[2,5] get-tuple-element(b), index=1
  s = f64[2,5] subtract(bx, by)
  k = (f64[2,3], s32[2,3]) topk(s), k=3, largest=true
  v = f64[2,3] get-tuple-element(k), index=0
  i = s32[2,3] get-tuple-element(k), index=1
  iv = f64[2,3] convert(i)
  ROOT r = (f64[2,3], f64[2,3]) tuple(v, iv)
})");
  for (const BatchDims& dims : EveryPlacement(2, 2)) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(CallBatchingTest, StochasticConvert) {
  XlaComputation f = Parsed(R"(
HloModule stochastic
ENTRY main {
  x = f32[4] parameter(0)
  r = u32[4] parameter(1)
  ROOT s = s8[4] stochastic-convert(x, r)
})");
  for (const BatchDims& dims : EveryPlacement(2, 1)) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

// The variance and mean come through exp and sin so that they are
// positive and bounded; the batch must not mix into training's
// statistics.
TEST(ExpandedBatchingTest, BatchNorms) {
  XlaComputation f = Build(
      "batch_norms",
      {F64Array({2, 3, 2}), F64Array({3}), F64Array({3}), F64Array({2, 3, 2})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        const XlaOp training = BatchNormTraining(p[0], p[1], p[2], 0.01, 1);
        const XlaOp variance = Exp(p[2]);
        const XlaOp inference =
            BatchNormInference(p[0], p[1], p[2], Sin(p[1]), variance, 0.01, 1);
        const XlaOp grad =
            BatchNormGrad(p[0], p[1], Sin(p[1]), variance, p[3], 0.01, 1);
        Tuple(&b, {GetTupleElement(training, 0), GetTupleElement(training, 1),
                   GetTupleElement(training, 2), inference,
                   GetTupleElement(grad, 0), GetTupleElement(grad, 1),
                   GetTupleElement(grad, 2)});
      });
  for (const BatchDims& dims :
       {BatchDims{0, kNone, kNone, kNone}, BatchDims{3, kNone, kNone, 3},
        BatchDims{kNone, 1, kNone, kNone}, BatchDims{kNone, kNone, 0, kNone},
        BatchDims{1, 0, 1, 2}}) {
    ExpectBatchMatchesLoop(f, dims, {.tolerance = 1e-10});
  }
}

// With only its operand batched, inference stays one op, its feature
// dimension one past the batch; batched statistics expand it.
TEST(ExpandedBatchingTest, InferenceKeepsTheOpWhenOnlyItsOperandIsBatched) {
  XlaComputation f =
      Build("inference", {F64Array({2, 3}), F64Array({3})},
            [](XlaBuilder&, const std::vector<XlaOp>& p) {
              BatchNormInference(p[0], p[1], p[1], p[1], Exp(p[1]), 0.5, 1);
            });
  absl::StatusOr<XlaComputation> operand_only = Batch(f, {0, kNone}, 4);
  ASSERT_TRUE(operand_only.ok()) << operand_only.status();
  EXPECT_THAT(operand_only->ToString(),
              HasSubstr("f64[4,2,3]{2,1,0} batch-norm-inference("));
  EXPECT_THAT(operand_only->ToString(), HasSubstr("feature_index=2"));
  absl::StatusOr<XlaComputation> statistics = Batch(f, {kNone, 0}, 4);
  ASSERT_TRUE(statistics.ok()) << statistics.status();
  EXPECT_THAT(statistics->ToString(),
              ::testing::Not(HasSubstr("batch-norm-inference")));
  for (const BatchDims& dims : EveryPlacement(2, 1)) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

// Group sizes of 1 or 2 (the random bits masked), over 5 rows.
TEST(ExpandedBatchingTest, RaggedDot) {
  XlaComputation f = Parsed(R"(
HloModule ragged
ENTRY main {
  l = f64[5,2] parameter(0)
  r = f64[2,2,3] parameter(1)
  g0 = s32[2] parameter(2)
  one = s32[2] constant({1, 1})
  bit = s32[2] and(g0, one)
  g = s32[2] add(bit, one)
  ROOT d = f64[5,3] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})");
  for (const BatchDims& dims : EveryPlacement(3, 1)) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(ExpandedBatchingTest, ScaledDot) {
  XlaComputation f = Parsed(R"(
HloModule scaled
ENTRY main {
  l = f32[2,4] parameter(0)
  r = f32[4,3] parameter(1)
  ls = f32[2,2] parameter(2)
  rs = f32[] parameter(3)
  ROOT d = f32[2,3] scaled-dot(l, r, ls, rs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  for (const BatchDims& dims :
       {BatchDims{0, kNone, kNone, kNone}, BatchDims{kNone, 2, kNone, kNone},
        BatchDims{kNone, kNone, 1, kNone}, BatchDims{kNone, kNone, kNone, 0},
        BatchDims{2, 0, 0, 0}}) {
    ExpectBatchMatchesLoop(f, dims, {.tolerance = 1e-5});
  }
}

TEST(ExpandedBatchingTest, Scan) {
  XlaComputation f = Parsed(R"(
HloModule scan
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
step {
  x = f64[2] parameter(0)
  c = f64[2,2] parameter(1)
  bx = f64[2,2] broadcast(x), dimensions={1}
  sum = f64[2,2] add(bx, c)
  zero = f64[] constant(0)
  out = f64[2] reduce(sum, zero), dimensions={0}, to_apply=add
  ROOT t = (f64[2], f64[2,2]) tuple(out, sum)
}
ENTRY main {
  input = f64[3,2] parameter(0)
  init = f64[2,2] parameter(1)
  ROOT scan = (f64[3,2], f64[2,2]) scan(input, init), dimensions={0}, num_carries=1, is_associative=false, to_apply=step
})");
  for (const BatchDims& dims : EveryPlacement(2, 2)) {
    ExpectBatchMatchesLoop(f, dims);
  }
}

TEST(CallBatchingTest, NestedTuplesAreRefusedByName) {
  XlaComputation f = Parsed(R"(
HloModule nested
callee {
  t = ((f64[2]), f64[2]) parameter(0)
  ROOT b = f64[2] get-tuple-element(t), index=1
}
ENTRY main {
  x = f64[2] parameter(0)
  i = (f64[2]) tuple(x)
  t = ((f64[2]), f64[2]) tuple(i, x)
  ROOT c = f64[2] call(t), to_apply=callee
})");
  EXPECT_THAT(Batch(f, {0}, 2).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("vmap: no batching rule for 'call' whose "
                                 "computation takes a nested tuple")));
}

}  // namespace
}  // namespace mxla
