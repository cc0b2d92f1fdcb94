// The module's form (ir/hlo_form.h): passes move it forward, the verifier
// checks against it, cloning keeps it.
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "passes/pass_registry.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::fixtures::kBiasRelu;
using ::mxla::testing::IsOk;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

absl::Status RunPass(const std::string& name, HloModule& module) {
  absl::StatusOr<std::unique_ptr<PassPipeline>> pipeline =
      CreatePipeline(std::vector<std::string>{name}, {});
  if (!pipeline.ok()) return pipeline.status();
  return (*pipeline)->Run(module).status();
}

TEST(HloFormTest, ParsedModulesStartInTheBuilderForm) {
  std::unique_ptr<HloModule> module = ParseHloModule(kBiasRelu).value();
  EXPECT_EQ(module->form(), HloForm::kBuilder);
  EXPECT_THAT(VerifyModule(*module), IsOk());
  EXPECT_THAT(VerifyModule(*module, HloForm::kLowered),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("carries broadcast_dimensions")));
}

TEST(HloFormTest, PassesMoveTheFormForwardAndTheVerifierFollows) {
  std::unique_ptr<HloModule> module = ParseHloModule(kBiasRelu).value();
  ASSERT_OK(RunPass("lower-broadcasts", *module));
  EXPECT_EQ(module->form(), HloForm::kLowered);
  // Lowered but not fused: the entry still computes outside fusions.
  EXPECT_THAT(VerifyModule(*module, HloForm::kFused),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is outside any fusion")));
  ASSERT_OK(RunPass("fusion", *module));
  EXPECT_EQ(module->form(), HloForm::kFused);
  EXPECT_THAT(VerifyModule(*module), IsOk());
  EXPECT_EQ(module->Clone()->form(), HloForm::kFused);
}

TEST(HloFormTest, TheFormNeverMovesBack) {
  std::unique_ptr<HloModule> module = ParseHloModule(kBiasRelu).value();
  module->AdvanceForm(HloForm::kFused);
  module->AdvanceForm(HloForm::kLowered);
  EXPECT_EQ(module->form(), HloForm::kFused);
  EXPECT_EQ(HloFormString(module->form()), "fused");
}

TEST(HloFormTest, ThePipelineVerifiesAgainstTheFormAPassClaims) {
  // A module that claims the fused form while its entry still adds is
  // rejected after the first pass that changes it, naming the pass.
  std::unique_ptr<HloModule> module = ParseHloModule(kBiasRelu).value();
  ASSERT_OK(RunPass("lower-broadcasts", *module));
  module->AdvanceForm(HloForm::kFused);
  // Dead code for dce to remove.
  HloComputation* entry = module->entry_computation();
  entry->AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<float>(1)));
  EXPECT_THAT(RunPass("dce", *module),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("pass 'dce' produced an invalid module")));
}

}  // namespace
}  // namespace mxla
