// Gradients through while loops with a known trip count (scans), against
// central differences in f64 and the JIT against the interpreter: a
// recurrent cell with its weights carried unchanged, a state whose every
// element changes each trip and a loop that never runs. Loops whose trip
// count is known only at run time: runtime_loop_gradient_test.cc.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/parsed_computation.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using testing::Parsed;

// h <- tanh(W h + b), acc <- acc + sum(h), `trips` times; the loss is
// acc + sum(h) at the end. W and b are carried unchanged.
std::string RecurrentCell(int trips) {
  return absl::StrCat(R"(HloModule rnn
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
cond { s = (s32[], f64[3], f64[3,3], f64[3], f64[]) parameter(0)
       i = s32[] get-tuple-element(s), index=0
       n = s32[] constant()", trips, R"()
       ROOT lt = pred[] compare(i, n), direction=LT }
body { s = (s32[], f64[3], f64[3,3], f64[3], f64[]) parameter(0)
       i = s32[] get-tuple-element(s), index=0
       h = f64[3] get-tuple-element(s), index=1
       w = f64[3,3] get-tuple-element(s), index=2
       b = f64[3] get-tuple-element(s), index=3
       acc = f64[] get-tuple-element(s), index=4
       wh = f64[3] dot(w, h), lhs_contracting_dims={1}, rhs_contracting_dims={0}
       next = f64[3] tanh(f64[3] add(wh, b))
       zero = f64[] constant(0)
       total = f64[] reduce(next, zero), dimensions={0}, to_apply=add
       one = s32[] constant(1)
       ROOT r = (s32[], f64[3], f64[3,3], f64[3], f64[]) tuple(s32[] add(i, one), next, w, b, f64[] add(acc, total)) }
ENTRY e {
  w = f64[3,3] parameter(0)
  h0 = f64[3] parameter(1)
  b = f64[3] parameter(2)
  start = s32[] constant(0)
  zero = f64[] constant(0)
  init = (s32[], f64[3], f64[3,3], f64[3], f64[]) tuple(start, h0, w, b, zero)
  loop = (s32[], f64[3], f64[3,3], f64[3], f64[]) while(init), condition=cond, body=body
  h = f64[3] get-tuple-element(loop), index=1
  acc = f64[] get-tuple-element(loop), index=4
  sum = f64[] reduce(h, zero), dimensions={0}, to_apply=add
  ROOT loss = f64[] add(acc, sum)
})");
}

std::vector<Literal> CellArguments(uint64_t seed) {
  std::vector<Literal> args;
  args.push_back(testing::RandomLiteral(testing::F64Shape({3, 3}), seed, -0.8, 0.8));
  args.push_back(testing::RandomLiteral(testing::F64Shape({3}), seed + 1));
  args.push_back(testing::RandomLiteral(testing::F64Shape({3}), seed + 2));
  return args;
}

TEST(LoopGradientTest, RecurrentCellMatchesDifferences) {
  for (int trips : {1, 4, 9}) {
    SCOPED_TRACE(trips);
    testing::ExpectGradientMatchesDifferences(Parsed(RecurrentCell(trips)),
                                              CellArguments(trips), {0, 1, 2});
  }
}

TEST(LoopGradientTest, ALoopThatNeverRunsPassesTheCotangentThrough) {
  testing::ExpectGradientMatchesDifferences(Parsed(RecurrentCell(0)),
                                            CellArguments(3), {0, 1, 2});
}

// Every element changes each trip, the counter steps by 2 from 1, and an
// integer element rides along.
TEST(LoopGradientTest, EveryElementChangingMatchesDifferences) {
  XlaComputation f = Parsed(R"(HloModule changing
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
cond { s = (s32[], f64[2], f64[2], s32[]) parameter(0)
       i = s32[] get-tuple-element(s), index=0
       nine = s32[] constant(9)
       ROOT lt = pred[] compare(i, nine), direction=LT }
body { s = (s32[], f64[2], f64[2], s32[]) parameter(0)
       i = s32[] get-tuple-element(s), index=0
       x = f64[2] get-tuple-element(s), index=1
       v = f64[2] get-tuple-element(s), index=2
       k = s32[] get-tuple-element(s), index=3
       kc = f64[] convert(k)
       kf = f64[2] broadcast(kc), dimensions={}
       nx = f64[2] add(x, f64[2] multiply(v, f64[2] sine(x)))
       nv = f64[2] subtract(v, f64[2] multiply(kf, f64[2] multiply(x, f64[2] constant({0.05, 0.02}))))
       two = s32[] constant(2)
       one = s32[] constant(1)
       ROOT r = (s32[], f64[2], f64[2], s32[]) tuple(s32[] add(i, two), nx, nv, s32[] add(k, one))
}
ENTRY e {
  x0 = f64[2] parameter(0)
  v0 = f64[2] parameter(1)
  one = s32[] constant(1)
  zero = s32[] constant(0)
  init = (s32[], f64[2], f64[2], s32[]) tuple(one, x0, v0, zero)
  loop = (s32[], f64[2], f64[2], s32[]) while(init), condition=cond, body=body
  x = f64[2] get-tuple-element(loop), index=1
  v = f64[2] get-tuple-element(loop), index=2
  xv = f64[2] multiply(x, v)
  fzero = f64[] constant(0)
  ROOT loss = f64[] reduce(xv, fzero), dimensions={0}, to_apply=add
})");
  std::vector<Literal> args;
  args.push_back(testing::RandomLiteral(testing::F64Shape({2}), 5, -1, 1));
  args.push_back(testing::RandomLiteral(testing::F64Shape({2}), 6, -1, 1));
  testing::ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
}

}  // namespace
}  // namespace mxla
