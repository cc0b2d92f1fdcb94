// The demo's built-in examples: each builds, verifies, round-trips through
// the text format, and its inputs and expected result fit its signature.
#include <algorithm>

#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"
#include "tools/demo_examples.h"
#include "tools/doc_figure.h"

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

// docs/broadcasting.md's eight figures, drawn from the interpreter's results,
// match the document character for character.
TEST(DemoExamplesTest, FiguresMatchTheDocument) {
  int figures = 0;
  for (const DemoExample& example : DemoExamples()) {
    if (example.figures.empty()) continue;
    SCOPED_TRACE(example.name);
    ASSERT_OK_AND_ASSIGN(XlaComputation computation, example.build());
    std::vector<const Literal*> arguments;
    for (const Literal& input : example.inputs) arguments.push_back(&input);
    ASSERT_OK_AND_ASSIGN(Literal result,
                         EvaluateModule(computation.module(), arguments));
    for (const DocFigure& figure : example.figures) {
      ASSERT_OK_AND_ASSIGN(std::string drawn,
                           figure.draw(example.inputs, result));
      EXPECT_EQ(drawn, Dedent(figure.doc_text));
      ++figures;
    }
  }
  EXPECT_EQ(figures, 8);
}

TEST(DemoExamplesTest, KernelsFollowTheDocumentsExamples) {
  std::vector<std::string> names;
  for (const DemoExample& example : DemoExamples()) names.push_back(example.name);
  EXPECT_EQ(names.front(), "matrix_plus_scalar");
  for (const char* kernel : {"bias_relu", "softmax", "layer_norm",
                             "mlp_layer", "attention_scores"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), kernel), names.end())
        << kernel;
  }
}

}  // namespace
}  // namespace mxla::tools
