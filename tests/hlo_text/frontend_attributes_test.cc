// frontend_attributes (and backend_config) values are opaque text: JAX with
// Shardy writes MLIR attributes into them, quoted or not
// (`{xla.sdy.meshes={empty_mesh = #sdy.mesh<[]>}}`), and a '#' was no
// token. The parser skips a braced value as raw text and drops it; the
// printed module parses back.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_module.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

// The two forms of a current JAX dump (module header, instruction), and
// values holding braces and quotes in strings and out of them.
constexpr char kShardyModule[] = R"(HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}, allow_spmd_sharding_propagation_to_output={true}, frontend_attributes={xla.sdy.meshes={empty_mesh = #sdy.mesh<[]>, mesh = #sdy.mesh<["x"=2]>}}

ENTRY main {
  x = f32[4] parameter(0), frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@empty_mesh, [{}]>]>"}
  n = f32[4] negate(x), frontend_attributes={xla.sdy.sharding=#sdy.sharding_per_value<[<@mesh, [{"x"}]>]>, k="}{\"}", rule=#sdy.op_sharding_rule<([i])->([i]) {i=4}, custom>}
  ROOT a = f32[4] abs(n), backend_config={"flag":"}#{","n":[1,{"m":2}]}, frontend_attributes={}
}
)";

TEST(FrontendAttributesTest, ShardyDumpsParseAndPrintBack) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kShardyModule));
  EXPECT_EQ(module->name(), "jit_f");
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kAbs);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kNegate);
  // Dropped, as documented: mxla computes on one device.
  const std::string printed = module->ToString({.metadata = true});
  EXPECT_THAT(printed, Not(HasSubstr("sdy")));
  EXPECT_THAT(printed, Not(HasSubstr("frontend_attributes")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                       ParseHloModule(printed));
  EXPECT_EQ(again->ToString({.metadata = true}), printed);
}

// Lines and columns go on right after a skipped value: the error is found
// on the next line, at the operand.
TEST(FrontendAttributesTest, PositionsAfterASkippedValue) {
  EXPECT_THAT(
      ParseHloModule("HloModule m, frontend_attributes={a={\n#b}}\nENTRY e {\n"
                     "  x = f32[] parameter(0), frontend_attributes={k=#v<{}>\n"
                     "}\n  ROOT y = f32[] negate(z)\n}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("6:25: undefined instruction 'z'")));
}

TEST(FrontendAttributesTest, AnUnclosedValueFailsCleanly) {
  EXPECT_THAT(ParseHloModule("HloModule m, frontend_attributes={a=#sdy.mesh<[]>"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:34: unclosed '{': the value runs to the "
                                 "end of the input")));
  EXPECT_THAT(
      ParseHloModule("HloModule m\nENTRY e {\n  x = f32[] parameter(0), "
                     "frontend_attributes={k=\"}\n}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("3:47: unclosed '{'")));
  // Outside these attributes a '#' is still no token.
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY e {\n  x = f32[] "
                             "parameter(0), sharding={#}\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("3:37: unexpected character '#'")));
}

// A computation may be named like one of the stack-frame tables that may
// follow the header.
TEST(FrontendAttributesTest, AComputationNamedLikeAStackFrameTable) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule("HloModule m\nFileNames {\n  a = f32[] "
                                      "parameter(0)\n}\nENTRY e {\n  x = f32[] "
                                      "parameter(0)\n  ROOT c = f32[] call(x), "
                                      "to_apply=FileNames\n}\n"));
  EXPECT_NE(module->GetComputationWithName("FileNames"), nullptr);
}

}  // namespace
}  // namespace mxla
