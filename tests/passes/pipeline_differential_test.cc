// Differential test of the whole pass pipeline: thousands of seeded random
// graphs (tests/testlib/random_graph.h) evaluated before and after the
// default pipeline must agree bit for bit, and the lowered verifier must
// hold. A failure names the seed and the passes whose disabling removes the
// mismatch, so it can be reproduced with MXLA_DIFF_SEED=<seed>.
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "passes/pass_registry.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;

// The pipeline's result on `graph`, with `disabled` passes skipped.
absl::StatusOr<Literal> OptimizeAndEvaluate(const RandomGraph& graph,
                                            const std::string& disabled) {
  CompileOptions options;
  options.backend = Backend::kInterpreter;
  if (!disabled.empty()) options.pipeline.disabled_passes.insert(disabled);
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      OptimizeForBackend(graph.computation.module(), options);
  if (!module.ok()) return module.status();
  absl::Status lowered = VerifyModule(**module, VerifierMode::kLowered);
  if (!lowered.ok() && disabled != "lower-broadcasts") return lowered;
  return EvaluateModule(**module, Pointers(graph.arguments));
}

// Which single disabled pass makes the results agree again.
std::string Culprits(const RandomGraph& graph, const Literal& expected) {
  std::vector<std::string> culprits;
  for (const std::string& pass : AvailablePassNames()) {
    absl::StatusOr<Literal> result = OptimizeAndEvaluate(graph, pass);
    if (result.ok() && *result == expected) culprits.push_back(pass);
  }
  return culprits.empty() ? "none alone" : absl::StrJoin(culprits, ", ");
}

void CheckSeed(uint64_t seed, const RandomGraphOptions& options) {
  absl::StatusOr<RandomGraph> graph = GenerateRandomGraph(seed, options);
  ASSERT_OK(graph.status());
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(graph->computation.module(),
                                      Pointers(graph->arguments)));
  absl::StatusOr<Literal> actual = OptimizeAndEvaluate(*graph, "");
  ASSERT_TRUE(actual.ok()) << graph->description << "\n"
                           << actual.status() << "\n"
                           << graph->computation.ToString();
  if (*actual != expected) {
    ADD_FAILURE() << "seed " << seed << " (" << graph->description
                  << "): results differ after the pipeline; disabling "
                  << Culprits(*graph, expected) << " removes the mismatch\n"
                  << "expected " << expected.ToString() << "\nactual   "
                  << actual->ToString() << "\n"
                  << graph->computation.ToString();
  }
}

TEST(PipelineDifferentialTest, RandomGraphsKeepTheirValues) {
  RandomGraphOptions options;
  options.element_types = {F32, S32, PRED, F64, S64};
  if (const char* seed = std::getenv("MXLA_DIFF_SEED")) {
    CheckSeed(std::strtoull(seed, nullptr, 10), options);
    return;
  }
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    CheckSeed(seed, options);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace mxla
