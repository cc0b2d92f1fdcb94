// vmap of random numbers, checked against the definition of vmap (slice b
// of the batched result is the function of slice b of the arguments) and
// the JIT against the interpreter (tests/testlib/batching_check.h): rng
// with batched parameters draws each example's numbers, the same as the
// function draws, scaled by its parameters; rng-bit-generator with a
// batched state gives each example the bits and new state of its own
// state; an unbatched state gives every example the same bits.
#include <optional>
#include <string>
#include <vector>

#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/batching_check.h"

namespace mxla {
namespace {

using ::mxla::testing::BatchDims;
using ::mxla::testing::Build;
using ::mxla::testing::ExpectBatchMatchesLoop;

Shape Array(PrimitiveType type, std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(type, dims);
}

// Uniform floats in [a, a + |s| + 0.5) and normals of mean a, deviation s,
// in f64 and f32, with a, s or both batched.
TEST(RandomBatchingTest, RngWithBatchedParameters) {
  XlaComputation f =
      Build("draws", {Array(F64, {}), Array(F64, {}), Array(F64, {2})},
            [](XlaBuilder&, const std::vector<XlaOp>& p) {
              XlaOp high = p[0] + Abs(p[1]) + 0.5;
              XlaOp uniform = RngUniform(p[0], high, Array(F64, {2, 3}));
              XlaOp normal = RngNormal(p[0], p[1], Array(F64, {3, 2}));
              XlaOp narrow = RngNormal(ConvertElementType(p[0], F32),
                                       ConvertElementType(Abs(p[1]), F32),
                                       Array(F32, {4}));
              XlaOp shared = RngUniform(
                  ConstantR0<double>(p[0].builder(), -1.0),
                  ConstantR0<double>(p[0].builder(), 1.0), Array(F64, {2}));
              Tuple(p[0].builder(), {uniform, normal, narrow, shared + p[2]});
            });
  for (const BatchDims& dims :
       {BatchDims{0, std::nullopt, std::nullopt},
        BatchDims{std::nullopt, 0, std::nullopt}, BatchDims{0, 0, 1},
        BatchDims{std::nullopt, std::nullopt, 0}}) {
    ExpectBatchMatchesLoop(f, dims, {.size = 4});
  }
}

// Integers in [a, a + 7) with a from a batched f64 (and empty ranges,
// which give a), signed and unsigned.
TEST(RandomBatchingTest, RngOfIntegersWithBatchedBounds) {
  XlaComputation f =
      Build("integers", {Array(F64, {}), Array(F64, {})},
            [](XlaBuilder&, const std::vector<XlaOp>& p) {
              XlaOp low = ConvertElementType(Floor(p[0] * 10.0), S32);
              XlaOp high = ConvertElementType(Floor(p[1] * 10.0), S32);
              XlaOp wide =
                  RngUniform(low, low + ConstantR0<int32_t>(p[0].builder(), 7),
                             Array(S32, {3, 2}));
              XlaOp maybe_empty = RngUniform(low, high, Array(S32, {5}));
              XlaOp unsigned_draw = RngUniform(
                  ConvertElementType(Abs(low), U8),
                  ConvertElementType(
                      Abs(low) + ConstantR0<int32_t>(p[0].builder(), 100), U8),
                  Array(U8, {4}));
              Tuple(p[0].builder(), {wide, maybe_empty, unsigned_draw});
            });
  for (const BatchDims& dims : {BatchDims{0, std::nullopt},
                                BatchDims{std::nullopt, 0}, BatchDims{0, 0}}) {
    ExpectBatchMatchesLoop(f, dims, {.size = 5});
  }
}

// Each example's key: its own bits and new state, for both algorithms
// and state sizes.
TEST(RandomBatchingTest, BitGeneratorsWithABatchedState) {
  for (auto [algorithm, words] :
       std::vector<std::pair<RandomAlgorithm, int64_t>>{
           {RandomAlgorithm::kThreeFry, 2},
           {RandomAlgorithm::kPhilox, 2},
           {RandomAlgorithm::kPhilox, 3},
           {RandomAlgorithm::kDefault, 2}}) {
    XlaComputation f = Build(
        "bits", {Array(U64, {words})},
        [&](XlaBuilder&, const std::vector<XlaOp>& p) {
          XlaOp first = RngBitGenerator(algorithm, p[0], Array(U32, {2, 3}));
          // A second draw from the new state, as a split key chains them.
          XlaOp second = RngBitGenerator(algorithm, GetTupleElement(first, 0),
                                         Array(U64, {5}));
          Tuple(p[0].builder(),
                {GetTupleElement(first, 1), GetTupleElement(second, 0),
                 GetTupleElement(second, 1)});
        });
    for (const BatchDims& dims : {BatchDims{0}, BatchDims{1}}) {
      ExpectBatchMatchesLoop(f, dims, {.size = 4});
    }
  }
}

// An unbatched state stays unbatched: every example sees the same bits.
TEST(RandomBatchingTest, AnUnbatchedStateGivesEveryExampleTheSameBits) {
  XlaComputation f = Build("shared_bits", {Array(U64, {2}), Array(U32, {3})},
                           [](XlaBuilder&, const std::vector<XlaOp>& p) {
                             XlaOp drawn =
                                 RngBitGenerator(RandomAlgorithm::kThreeFry,
                                                 p[0], Array(U32, {3}));
                             Xor(GetTupleElement(drawn, 1), p[1]);
                           });
  ExpectBatchMatchesLoop(f, BatchDims{std::nullopt, 0}, {.size = 3});
}

}  // namespace
}  // namespace mxla
