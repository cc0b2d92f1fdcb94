// The demo's built-in examples: each builds, verifies, round-trips through
// the text format, and its inputs and expected result fit its signature.
#include "gtest/gtest.h"
#include "ir/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"
#include "tools/demo_examples.h"

namespace mxla::tools {
namespace {

TEST(DemoExamplesTest, EveryExampleIsConsistent) {
  ASSERT_GE(DemoExamples().size(), 10u);
  for (const DemoExample& example : DemoExamples()) {
    SCOPED_TRACE(example.name);
    ASSERT_OK_AND_ASSIGN(XlaComputation computation, example.build());
    EXPECT_OK(VerifyModule(computation.module(), VerifierMode::kBuilder));
    ProgramShape signature = computation.GetProgramShape();
    ASSERT_EQ(signature.parameters.size(), example.inputs.size());
    for (size_t i = 0; i < example.inputs.size(); ++i) {
      EXPECT_EQ(example.inputs[i].shape(), signature.parameters[i]);
    }
    if (example.expected.has_value()) {
      EXPECT_EQ(example.expected->shape(), signature.result);
    }
    std::string text = computation.ToString();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> parsed, ParseHloModule(text));
    EXPECT_EQ(parsed->ToString(), text);
  }
}

}  // namespace
}  // namespace mxla::tools
