// A failed op need not poison the builder: TryOp (and MakeCheckpoint with
// RollBack) undo every op, parameter, called computation and error of the
// attempt, so the builder goes on as if the op had never been tried. A
// builder that does keep an error names the op and call site that made it.
#include <string>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::IsOk;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

Shape F32(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(mxla::F32, dims);
}

std::string Here(int line) {
  return absl::StrCat("builder_rollback_test.cc:", line);
}

TEST(BuilderRollbackTest, FailedTryOpLeavesTheBuilderUsable) {
  XlaBuilder b("interactive");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp v = Parameter(&b, 1, F32({4}), "v");
  const int line = __LINE__ + 1;
  absl::StatusOr<XlaOp> bad = b.TryOp([&] { return Add(x, v, {1}); });
  EXPECT_THAT(
      bad, StatusIs(kInvalid, AllOf(StartsWith("Add(f32[2,3], f32[4], "
                                               "broadcast_dimensions={1}) at "),
                                    HasSubstr(Here(line)))));
  EXPECT_THAT(b.first_error(), IsOk());
  EXPECT_EQ(b.computation()->instruction_count(), 2);

  XlaOp sum = Add(x, x);
  ASSERT_TRUE(sum.valid());
  ASSERT_OK_AND_ASSIGN(XlaComputation built, b.Build());
  EXPECT_EQ(built.module().entry_computation()->root_instruction()->opcode(),
            HloOpcode::kAdd);
  EXPECT_EQ(built.module().entry_computation()->instruction_count(), 3);
}

// The constant the failed op made for its operand goes with it, and Build()
// without a root takes the last op that stayed.
TEST(BuilderRollbackTest, OpsMadeForTheFailedOpAreRemoved) {
  XlaBuilder b("made_for_it");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  XlaOp negated = Neg(x);
  XlaOp constant;
  EXPECT_FALSE(b.TryOp([&] {
                  constant = ConstantR1<float>(&b, {1, 2, 3, 4});
                  return Mul(x, constant);
                }).ok());
  EXPECT_TRUE(b.first_error().ok());
  ASSERT_OK_AND_ASSIGN(XlaComputation built, b.Build());
  EXPECT_EQ(built.module().entry_computation()->root_instruction()->opcode(),
            HloOpcode::kNegate);
  EXPECT_THAT(built.ToString(), Not(HasSubstr("constant")));
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(negated));
  EXPECT_EQ(shape, F32({2, 3}));

  // A handle made inside the failed attempt is invalid, and says why.
  EXPECT_THAT(b.GetShape(constant),
              StatusIs(kInvalid, HasSubstr("rolled back")));
  EXPECT_FALSE(Neg(constant).valid());
  EXPECT_THAT(b.Build(), StatusIs(kInvalid, HasSubstr("rolled back")));
}

TEST(BuilderRollbackTest, ParametersAndCalledComputationsAreRolledBack) {
  XlaBuilder b("reduce");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  const XlaComputation add = CreateScalarAddComputation(mxla::F32, &b);
  const size_t computations = b.computation()->parent()->computations().size();
  EXPECT_THAT(b.TryOp([&] {
    XlaOp init = Parameter(&b, 1, F32({}), "init");
    return Reduce(x, init, add, {2});  // x has no dimension 2.
  }),
              StatusIs(kInvalid, StartsWith("Reduce(")));
  EXPECT_EQ(b.computation()->parent()->computations().size(), computations);

  // Parameter 1 and its name are free again; the reducer copies anew.
  XlaOp init = Parameter(&b, 1, F32({}), "init");
  ASSERT_TRUE(init.valid());
  ASSERT_TRUE(Reduce(x, init, add, {1}).valid());
  ASSERT_OK_AND_ASSIGN(XlaComputation built, b.Build());
  EXPECT_EQ(built.module().computations().size(), computations + 1);
  EXPECT_THAT(built.ToString(), HasSubstr("init = f32[] parameter(1)"));
}

TEST(BuilderRollbackTest, RollBackKeepsAnErrorFromBeforeTheCheckpoint) {
  XlaBuilder b("earlier");
  XlaOp x = Parameter(&b, 0, F32({2}), "x");
  const int line = __LINE__ + 1;
  Add(x, Parameter(&b, 1, F32({3}), "y"));
  const XlaBuilder::Checkpoint checkpoint = b.MakeCheckpoint();
  EXPECT_THAT(b.RollBack(checkpoint), IsOk());
  EXPECT_THAT(b.first_error(), StatusIs(kInvalid, HasSubstr(Here(line))));
  // TryOp on a poisoned builder returns the first error, which names the
  // op and line that made it, not TryOp's.
  EXPECT_THAT(
      b.TryOp([&] { return Neg(x); }),
      StatusIs(kInvalid, AllOf(StartsWith("Add("), HasSubstr(Here(line)))));
}

// The C++ builder keeps its first error, as XLA's does; the error names
// the first failing op and its call site, never a later op's.
TEST(BuilderRollbackTest, KeptErrorNamesTheFirstOpAndItsCallSite) {
  XlaBuilder b("sticky");
  XlaOp x = Parameter(&b, 0, F32({2, 3}), "x");
  const int first = __LINE__ + 1;
  Add(x, Parameter(&b, 1, F32({4}), "v"));
  const int later = __LINE__ + 1;
  Mul(x, x);
  const int another = __LINE__ + 1;
  Sub(x, ConstantR0<int32_t>(&b, 1));
  const int build = __LINE__ + 1;
  absl::Status status = b.Build().status();
  EXPECT_THAT(status,
              StatusIs(kInvalid, AllOf(StartsWith("Add(f32[2,3], f32[4]) at "),
                                       HasSubstr(Here(first)),
                                       Not(HasSubstr(Here(later))),
                                       Not(HasSubstr(Here(another))),
                                       Not(HasSubstr(Here(build))))));
  EXPECT_EQ(b.GetShape(x).status(), status);
}

}  // namespace
}  // namespace mxla
