// replica-id and partition-id: u32[] 0 on mxla's one device, in the text,
// the builder and both backends, also fused into arithmetic.
#include <memory>
#include <string>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;

TEST(DeviceIdTest, ReplicaAndPartitionAreZero) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = u32[4] parameter(0)
  r = u32[] replica-id()
  p = u32[] partition-id()
  s = u32[] add(r, p)
  b = u32[4] broadcast(s), dimensions={}
  one = u32[] constant(7)
  o = u32[4] broadcast(one), dimensions={}
  m = u32[4] multiply(x, o)
  ROOT a = u32[4] add(m, b)
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  EXPECT_THAT(module->ToString(), HasSubstr("r = u32[] replica-id()"));
  Literal x = LiteralUtil::CreateR1<uint32_t>({1, 2, 3, 4});
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x}));
  EXPECT_EQ(result, LiteralUtil::CreateR1<uint32_t>({7, 14, 21, 28}));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*module));
  ASSERT_OK_AND_ASSIGN(Literal compiled, jit->Run({&x}));
  EXPECT_EQ(compiled, result);
  EXPECT_TRUE(RunAndCompare(text));
}

TEST(DeviceIdTest, Builder) {
  XlaBuilder b("ids");
  XlaOp sum = Add(ReplicaId(&b), PartitionId(&b));
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(sum));
  EXPECT_EQ(shape, ShapeUtil::MakeShape(U32, {}));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR0<uint32_t>(0));
}

}  // namespace
}  // namespace mxla
