// Every example of docs/broadcasting.md as a builder test: the result
// shape, the implicit broadcast the builder records, and the rejection of
// every invalid example with XLA's message. (Values are checked against the
// evaluator once lowering exists.)
#include <string>
#include <vector>

#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

Shape F32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(mxla::F32, dims); }

// Builds Add(x, y, dims) and returns the computation or the error.
absl::StatusOr<XlaComputation> BuildAdd(const Shape& x_shape,
                                        const Shape& y_shape,
                                        std::vector<int64_t> dims) {
  XlaBuilder b("add");
  Add(Parameter(&b, 0, x_shape, "x"), Parameter(&b, 1, y_shape, "y"), dims);
  return b.Build();
}

// The example is valid: the root is `add(x, y)` with the given shape and the
// broadcast recorded as an attribute, and the module verifies.
void ExpectRecordedAdd(const Shape& x, const Shape& y,
                       std::vector<int64_t> dims, const Shape& expected) {
  SCOPED_TRACE(x.ToString() + " + " + y.ToString());
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, BuildAdd(x, y, dims));
  const HloInstruction* root =
      computation.module().entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(root->shape(), expected);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kParameter);
  if (dims.empty()) {
    EXPECT_FALSE(root->broadcast_dimensions().has_value());
  } else {
    EXPECT_EQ(root->broadcast_dimensions(), dims);
  }
  EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kBuilder));
}

void ExpectRejected(const Shape& x, const Shape& y, std::vector<int64_t> dims,
                    const std::string& message) {
  SCOPED_TRACE(x.ToString() + " + " + y.ToString());
  EXPECT_THAT(BuildAdd(x, y, dims),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
}

TEST(BroadcastingDocTest, MatrixPlusVectorOnDimension1) {
  ExpectRecordedAdd(F32({2, 3}), F32({3}), {1}, F32({2, 3}));
}

TEST(BroadcastingDocTest, MatrixPlusScalarNeedsNoDimensions) {
  ExpectRecordedAdd(F32({2, 3}), F32({}), {}, F32({2, 3}));
  ExpectRecordedAdd(F32({}), F32({2, 3}), {}, F32({2, 3}));
}

TEST(BroadcastingDocTest, WithoutBroadcastDimensionsMatrixPlusVectorIsInvalid) {
  ExpectRejected(F32({2, 3}), F32({3}), {},
                 "Shapes must be equal rank, but are f32[2,3] and f32[3]");
}

TEST(BroadcastingDocTest, SquareMatrixTakesVectorOnEitherDimension) {
  ExpectRecordedAdd(F32({3, 3}), F32({3}), {1}, F32({3, 3}));
  ExpectRecordedAdd(F32({3, 3}), F32({3}), {0}, F32({3, 3}));
}

TEST(BroadcastingDocTest, TwoByThreeWithThreeVectorOnDimension0IsInvalid) {
  ExpectRejected(F32({2, 3}), F32({3}), {0},
                 "Broadcast dimension 0 mismatch: 3 != 2");
}

TEST(BroadcastingDocTest, CuboidPlusMatrixOnDimensions1And2) {
  ExpectRecordedAdd(F32({2, 3, 4}), F32({3, 4}), {1, 2}, F32({2, 3, 4}));
}

// MxNxPxQ = 2x3x4x5: a vector T matches any one dimension of its size.
TEST(BroadcastingDocTest, VectorMatchesEachDimensionOfMxNxPxQ) {
  const std::vector<int64_t> mnpq = {2, 3, 4, 5};
  for (int64_t d = 0; d < 4; ++d) {
    ExpectRecordedAdd(F32(mnpq), F32({mnpq[d]}), {d}, F32(mnpq));
  }
  // T has to equal the matched dimension.
  ExpectRejected(F32(mnpq), F32({3}), {2},
                 "Broadcast dimension 0 mismatch: 3 != 4");
}

TEST(BroadcastingDocTest, MatrixMatchesPairsOfDimensionsOfMxNxPxQ) {
  const std::vector<int64_t> mnpq = {2, 3, 4, 5};
  const std::vector<std::vector<int64_t>> pairs = {
      {2, 3}, {1, 2}, {0, 3}, {0, 1}, {0, 2}, {1, 3}};
  for (const auto& pair : pairs) {
    ExpectRecordedAdd(F32(mnpq), F32({mnpq[pair[0]], mnpq[pair[1]]}), pair,
                      F32(mnpq));
  }
}

TEST(BroadcastingDocTest, BroadcastDimensionsMustBeStrictlyIncreasing) {
  const std::vector<int64_t> mnpq = {2, 3, 4, 5};
  // V matched to N and T to P: T=P=4, V=N=3 with {2,1}.
  ExpectRejected(F32(mnpq), F32({4, 3}), {2, 1},
                 "Broadcast dimensions order is wrong: 1 comes after 2");
  // The same dimension twice.
  ExpectRejected(F32({3, 3, 3}), F32({3, 3}), {1, 1},
                 "Broadcast dimensions order is wrong: 1 comes after 1");
}

TEST(BroadcastingDocTest, DegenerateDimensionExamples) {
  ExpectRecordedAdd(F32({2, 1}), F32({2, 3}), {}, F32({2, 3}));
  ExpectRecordedAdd(F32({1, 2, 5}), F32({7, 2, 5}), {}, F32({7, 2, 5}));
  ExpectRecordedAdd(F32({7, 2, 5}), F32({7, 1, 5}), {}, F32({7, 2, 5}));
  ExpectRejected(F32({7, 2, 5}), F32({7, 2, 6}), {},
                 "incompatible shapes: f32[7,2,5] and f32[7,2,6]");
}

TEST(BroadcastingDocTest, OuterOperation) {
  ExpectRecordedAdd(F32({2, 1}), F32({1, 3}), {}, F32({2, 3}));
}

TEST(BroadcastingDocTest, CompositionOfVectorAndOneByTwoMatrix) {
  ExpectRecordedAdd(F32({4}), F32({1, 2}), {0}, F32({4, 2}));
}

TEST(BroadcastingDocTest, CompositionOfOneByTwoAndFourByThreeByOne) {
  ExpectRecordedAdd(F32({1, 2}), F32({4, 3, 1}), {1, 2}, F32({4, 3, 2}));
}

}  // namespace
}  // namespace mxla
