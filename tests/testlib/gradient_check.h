// Gradients checked as JAX's check_grads does: against central finite
// differences in f64 at seeded random points, and the JIT against the
// interpreter on the gradient computation itself. Shared by the tests of
// transforms/ (autodiff_test and the per-family *_gradient_test files).
//
//   XlaComputation f = Scalarized("conv", {F64Shape({1, 5, 5, 2}), ...},
//       [](XlaBuilder&, const std::vector<XlaOp>& p) { return ...; });
//   ExpectGradientMatchesDifferences(f, std::move(args), /*wrt=*/{0, 1});
#ifndef MXLA_TESTS_TESTLIB_GRADIENT_CHECK_H_
#define MXLA_TESTS_TESTLIB_GRADIENT_CHECK_H_

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace mxla::testing {

Shape F64Shape(std::vector<int64_t> dims);

// Values in [lo, hi), seeded: distinct with probability 1, so no ties.
Literal RandomLiteral(const Shape& shape, uint64_t seed, double lo = -2,
                      double hi = 2);

// Dimensions of a random rank in [min_rank, max_rank], each of a random
// size in [1, max_size]: the shapes of the randomized gradient cases.
std::vector<int64_t> RandomDims(std::mt19937_64& rng, int64_t min_rank,
                                int64_t max_rank, int64_t max_size);

// One random argument of `shape`.
std::vector<Literal> OneRandom(const Shape& shape, uint64_t seed);

// One random argument per shape, the i-th from seed + i.
std::vector<Literal> RandomArgs(const std::vector<Shape>& shapes,
                                uint64_t seed);

// The sum of every element of `x` (x itself when invalid: the builder
// holds the error).
XlaOp SumAll(XlaOp x);

// sum(body(x...)) of f64 parameters of `shapes`; a test failure (and a
// computation returning 0) if it does not build.
XlaComputation Scalarized(
    const std::string& name, const std::vector<Shape>& shapes,
    const std::function<XlaOp(XlaBuilder&, const std::vector<XlaOp>&)>& body);

// (f(x + h) - f(x - h)) / 2h for element `element` of argument
// `parameter` of the scalar `f`, by the interpreter (NaN if it fails);
// `args` is restored afterwards.
double CentralDifference(const XlaComputation& f, std::vector<Literal>& args,
                         int64_t parameter, int64_t element, double h = 1e-6);

// Every element of df/dx[p], p in `wrt`, against (f(x + h) - f(x - h)) / 2h
// in the interpreter, within tolerance * (1 + |difference|); then the
// gradient computation compiled by the JIT against the interpreter.
void ExpectGradientMatchesDifferences(const XlaComputation& f,
                                      std::vector<Literal> args,
                                      std::vector<int64_t> wrt,
                                      double tolerance = 1e-6);

// The gradient of `f` (wrt) compiled by the JIT against the interpreter at
// seeded arguments (MakeSeededArguments), within `error` absolute and
// relative: for f32, where the two may sum in different orders.
void ExpectJitGradientMatchesInterpreter(const XlaComputation& f,
                                         std::vector<int64_t> wrt,
                                         double error, uint64_t seed = 0);

// `shape` with element type f32: the f32 form of an f64 case.
Shape AsF32(const Shape& shape);

// df/dx[0] of a scalar `f` at `args`, by the interpreter.
absl::StatusOr<Literal> GradientAt(const XlaComputation& f,
                                   std::vector<Literal> args);

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_GRADIENT_CHECK_H_
