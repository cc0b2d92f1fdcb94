// The check of a vmap rule against the definition of vmap
// (transforms/batching.h): slice b of the batched computation's result
// equals the function evaluated on slice b of the arguments, for every b,
// and the JIT agrees with the interpreter on the batched computation.
// Arguments of any array type: floats drawn from [-2, 2), integers as
// random bits, from a fixed seed.
#ifndef MXLA_TESTS_TESTLIB_BATCHING_CHECK_H_
#define MXLA_TESTS_TESTLIB_BATCHING_CHECK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "builder/xla_builder.h"
#include "ir/literal.h"

namespace mxla::testing {

using BatchDims = std::vector<std::optional<int64_t>>;

// The computation `name` of parameters p0, p1, ... of `shapes`, whose
// root is the last op `body` adds; a test failure if it does not build.
XlaComputation Build(
    const std::string& name, const std::vector<Shape>& shapes,
    const std::function<void(XlaBuilder&, const std::vector<XlaOp>&)>& body);

// A literal of `shape` (an array of a byte-sized type) from `seed`: f32
// and f64 in [-2, 2), any other type random bytes. Named apart from
// gradient_check.h's RandomLiteral (floats only, a chosen range), so that
// one test can include both.
Literal RandomBytesLiteral(const Shape& shape, uint64_t seed);

// Element b of `batched` along `dimension`.
Literal SliceAt(const Literal& batched, int64_t dimension, int64_t b);

struct BatchCheck {
  int64_t size = 3;
  uint64_t seed = 1;
  // Floating-point elements agree within this (absolute and relative);
  // others are equal.
  double tolerance = 1e-12;
};

// Batch(f, in_dims, check.size) against f run on each example (as test
// failures), its parameters batched at in_dims with random arguments.
void ExpectBatchMatchesLoop(const XlaComputation& f, const BatchDims& in_dims,
                            const BatchCheck& check = {});

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_BATCHING_CHECK_H_
