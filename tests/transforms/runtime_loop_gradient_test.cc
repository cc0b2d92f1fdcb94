// Gradients through while loops whose trip count is known only at run
// time (rematerialized: each trip's state recomputed from the first),
// against central differences in f64 with the trip count unchanged by the
// perturbation, and the JIT against the interpreter: a loop running until
// its state grows past a bound, one that runs no trip, one whose counter
// the passes cannot read, and a nested-tuple state refused by name.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/parsed_computation.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using ::testing::HasSubstr;
using testing::Parsed;
using testing::RandomLiteral;

// while (sum(|x|) < bound) { x = x * w + b; n += 1 }; the loss is
// sum(sin(x)) + n. Returns the loss and, as a second result, the trips.
std::string GrowingLoop(const std::string& root) {
  return absl::StrCat(R"(HloModule grow
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
cond { s = (f64[3], f64[3], f64[3], s32[]) parameter(0)
       x = f64[3] get-tuple-element(s), index=0
       zero = f64[] constant(0)
       size = f64[] reduce(f64[3] abs(x), zero), dimensions={0}, to_apply=add
       bound = f64[] constant(20)
       ROOT lt = pred[] compare(size, bound), direction=LT }
body { s = (f64[3], f64[3], f64[3], s32[]) parameter(0)
       x = f64[3] get-tuple-element(s), index=0
       w = f64[3] get-tuple-element(s), index=1
       b = f64[3] get-tuple-element(s), index=2
       n = s32[] get-tuple-element(s), index=3
       one = s32[] constant(1)
       next = f64[3] add(f64[3] multiply(x, w), b)
       ROOT r = (f64[3], f64[3], f64[3], s32[]) tuple(next, w, b, s32[] add(n, one)) }
ENTRY e {
  x0 = f64[3] parameter(0)
  w = f64[3] parameter(1)
  b = f64[3] parameter(2)
  zero = s32[] constant(0)
  init = (f64[3], f64[3], f64[3], s32[]) tuple(x0, w, b, zero)
  loop = (f64[3], f64[3], f64[3], s32[]) while(init), condition=cond, body=body
  x = f64[3] get-tuple-element(loop), index=0
  n = s32[] get-tuple-element(loop), index=3
  fzero = f64[] constant(0)
  sum = f64[] reduce(f64[3] sine(x), fzero), dimensions={0}, to_apply=add
  ROOT )",
                      root, R"(
})");
}

std::vector<Literal> GrowingArguments(uint64_t seed, double lo, double hi) {
  std::vector<Literal> args;
  args.push_back(RandomLiteral(F64Shape({3}), seed, lo, hi));
  args.push_back(RandomLiteral(F64Shape({3}), seed + 1, 1.2, 1.6));
  args.push_back(RandomLiteral(F64Shape({3}), seed + 2, 0, 0.3));
  return args;
}

int32_t Trips(std::vector<Literal> args) {
  XlaComputation trips = Parsed(GrowingLoop("n.out = s32[] copy(n)"));
  absl::StatusOr<Literal> n =
      EvaluateModule(trips.module(), testing::Pointers(args));
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? n->data<int32_t>()[0] : -1;
}

TEST(RuntimeLoopGradientTest, AGrowingLoopMatchesDifferences) {
  const XlaComputation f =
      Parsed(GrowingLoop("loss = f64[] add(sum, f64[] convert(n))"));
  for (uint64_t seed : {7100, 7110, 7120}) {
    SCOPED_TRACE(seed);
    std::vector<Literal> args = GrowingArguments(seed, 0.2, 1);
    // Several trips, and the same count a step of 1e-6 away (the loss adds
    // the count, so a change would show in the differences too).
    const int32_t trips = Trips(GrowingArguments(seed, 0.2, 1));
    EXPECT_GE(trips, 3);
    for (double step : {-1e-6, 1e-6}) {
      std::vector<Literal> moved = GrowingArguments(seed, 0.2, 1);
      for (Literal& arg : moved) {
        for (double& v : arg.data<double>()) v += step;
      }
      EXPECT_EQ(Trips(std::move(moved)), trips);
    }
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1, 2});
  }
}

TEST(RuntimeLoopGradientTest, ALoopThatRunsNoTripPassesTheCotangentThrough) {
  const XlaComputation f =
      Parsed(GrowingLoop("loss = f64[] add(sum, f64[] convert(n))"));
  std::vector<Literal> args = GrowingArguments(7200, 7, 9);  // |x| >= 21
  EXPECT_EQ(Trips(GrowingArguments(7200, 7, 9)), 0);
  ExpectGradientMatchesDifferences(f, std::move(args), {0, 1, 2});
}

// The counter's limit is compared with its square: the passes find no
// trip count, the rule counts 2 trips at run time.
TEST(RuntimeLoopGradientTest, ACounterThePassesCannotReadMatchesDifferences) {
  const XlaComputation f = Parsed(R"(HloModule squared
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
cond { s = (s32[], f64[3], f64[3,3]) parameter(0)
       i = s32[] get-tuple-element(s), index=0
       m = s32[] multiply(i, i)
       three = s32[] constant(3)
       ROOT lt = pred[] compare(m, three), direction=LT }
body { s = (s32[], f64[3], f64[3,3]) parameter(0)
       i = s32[] get-tuple-element(s), index=0
       h = f64[3] get-tuple-element(s), index=1
       w = f64[3,3] get-tuple-element(s), index=2
       wh = f64[3] dot(w, h), lhs_contracting_dims={1}, rhs_contracting_dims={0}
       one = s32[] constant(1)
       ROOT r = (s32[], f64[3], f64[3,3]) tuple(s32[] add(i, one), f64[3] tanh(wh), w) }
ENTRY e {
  h0 = f64[3] parameter(0)
  w = f64[3,3] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f64[3], f64[3,3]) tuple(zero, h0, w)
  loop = (s32[], f64[3], f64[3,3]) while(init), condition=cond, body=body
  h = f64[3] get-tuple-element(loop), index=1
  fzero = f64[] constant(0)
  ROOT loss = f64[] reduce(h, fzero), dimensions={0}, to_apply=add
})");
  std::vector<Literal> args;
  args.push_back(RandomLiteral(F64Shape({3}), 7300));
  args.push_back(RandomLiteral(F64Shape({3, 3}), 7301, -0.8, 0.8));
  ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
}

TEST(RuntimeLoopGradientTest, ANestedTupleStateIsRefusedByName) {
  const XlaComputation f = Parsed(R"(HloModule nested
cond { s = (f64[], (f64[], s32[])) parameter(0)
       x = f64[] get-tuple-element(s), index=0
       ten = f64[] constant(10)
       ROOT lt = pred[] compare(x, ten), direction=LT }
body { s = (f64[], (f64[], s32[])) parameter(0)
       x = f64[] get-tuple-element(s), index=0
       inner = (f64[], s32[]) get-tuple-element(s), index=1
       y = f64[] get-tuple-element(inner), index=0
       ROOT r = (f64[], (f64[], s32[])) tuple(f64[] multiply(x, y), inner) }
ENTRY e {
  x0 = f64[] parameter(0)
  y = f64[] parameter(1)
  k = s32[] constant(0)
  init = (f64[], (f64[], s32[])) tuple(x0, (f64[], s32[]) tuple(y, k))
  loop = (f64[], (f64[], s32[])) while(init), condition=cond, body=body
  ROOT x = f64[] get-tuple-element(loop), index=0
})");
  EXPECT_THAT(Gradient(f, {0, 1}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for 'while' whose state "
                                 "is not a tuple of arrays")));
}

}  // namespace
}  // namespace mxla
