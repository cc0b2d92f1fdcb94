// docs/cpp.md's and docs/design.md's C++ example, verbatim in spirit:
// build with the builder, Compile, Run on literals and on raw buffers.
#include "driver/client.h"

#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

TEST(ClientTest, BiasReluFromTheReadme) {
  XlaBuilder b("bias_relu");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  XlaOp v = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3}), "v");
  Max(Add(x, v, /*broadcast_dimensions=*/{1}), ConstantR0<float>(&b, 0.0f));
  absl::StatusOr<XlaComputation> computation = b.Build();
  ASSERT_OK(computation.status());
  absl::StatusOr<std::unique_ptr<Executable>> exe = Compile(*computation);
  ASSERT_OK(exe.status());
  Literal xs = LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal vs = LiteralUtil::CreateR1<float>({7, 8, 9});
  absl::StatusOr<Literal> out = (*exe)->Run({&xs, &vs});
  ASSERT_OK(out.status());
  EXPECT_EQ(*out, LiteralUtil::CreateR2<float>({{8, 10, 12}, {11, 13, 15}}));

  // The zero-copy API on caller-owned buffers.
  float x_data[6] = {1, 2, 3, 4, 5, 6}, v_data[3] = {-7, -8, -9}, y[6];
  const void* arguments[] = {x_data, v_data};
  void* results[] = {y};
  ASSERT_OK((*exe)->RunBuffers(arguments, results));
  EXPECT_EQ(std::vector<float>(y, y + 6),
            std::vector<float>({0, 0, 0, 0, 0, 0}));
  v_data[2] = 0;
  ASSERT_OK((*exe)->RunBuffers(arguments, results));
  EXPECT_EQ(std::vector<float>(y, y + 6),
            std::vector<float>({0, 0, 3, 0, 0, 6}));
}

}  // namespace
}  // namespace mxla
