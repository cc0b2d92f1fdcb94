// custom-call: the targets that are identities on one CPU device run (in
// the builder, the text, both backends, fused); every other target, and
// one that changes the shape, is an error that names it.
#include <memory>
#include <string>
#include <vector>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(CustomCallTest, IdentityTargetsRunFusedAndRoundTrip) {
  const std::string text = R"(HloModule m
ENTRY main {
  x = f32[8,8] parameter(0)
  s = f32[8,8] custom-call(x), custom_call_target="Sharding", sharding={devices=[8,1]<=[8]}, api_version=API_VERSION_ORIGINAL
  h = f32[8,8] custom-call(s), custom_call_target="MoveToHost", custom_call_has_side_effect=true
  p = f32[8,8] custom-call(h), custom_call_target="PinToDevice"
  e = f32[8,8] exponential(p)
  ROOT d = f32[8,8] custom-call(e), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  EXPECT_THAT(module->ToString(), HasSubstr("s = f32[8,8]{1,0} custom-call(x), "
                                            "custom_call_target=\"Sharding\""));
  EXPECT_EQ(
      module->entry_computation()->root_instruction()->custom_call_target(),
      "annotate_device_placement");
  EXPECT_TRUE(RunAndCompare(text));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, {}));
  EXPECT_EQ(fused->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kFusion);
}

TEST(CustomCallTest, OtherTargetsAndShapeChangesAreErrorsNamingThem) {
  auto verify = [](const std::string& instruction) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
        "HloModule m\nENTRY main {\n  x = f32[8,8] parameter(0)\n  ROOT c = " +
        instruction + "\n}\n");
    if (!module.ok()) return module.status();
    return VerifyModule(**module, VerifierMode::kBuilder);
  };
  EXPECT_THAT(
      verify("f32[8,8] custom-call(x), custom_call_target=\"__cublas$gemm\""),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("custom_call_target \"__cublas$gemm\" is not "
                         "supported by mxla (it runs only the targets "
                         "that are identities on one CPU device: "
                         "Sharding, ")));
  EXPECT_THAT(verify("f32[1,8] custom-call(x), "
                     "custom_call_target=\"SPMDFullToShardShape\""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"SPMDFullToShardShape\" changes the shape "
                                 "f32[8,8] to f32[1,8]: that needs several "
                                 "partitions, but mxla runs one device (one "
                                 "replica of one partition).")));
  EXPECT_THAT(
      verify("f32[8,8] custom-call(x, x), custom_call_target=\"Sharding\""),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("takes one array operand, got 2")));
  EXPECT_THAT(verify("f32[8,8] custom-call(x)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("custom_call_target")));
}

TEST(CustomCallTest, Builder) {
  XlaBuilder b("cc");
  const Shape shape = ShapeUtil::MakeShape(F32, {3});
  XlaOp x = Parameter(&b, 0, shape, "x");
  XlaOp s = CustomCall(&b, "Sharding", {x}, shape);
  ASSERT_OK_AND_ASSIGN(Shape result, b.GetShape(s));
  EXPECT_EQ(result, shape);
  CustomCall(&b, "my_kernel", {x}, shape);
  EXPECT_THAT(b.Build().status().message(),
              HasSubstr("custom_call_target \"my_kernel\" is not supported"));
}

}  // namespace
}  // namespace mxla
