// Differential test of the jit backend: seeded random graphs
// (tests/testlib/random_graph.h) over every element type, rank 0 to 5,
// sizes 0, 1 and odd, run by the jit and by the evaluator on the unoptimized
// module.
//   * with exact reductions (no reassociation), results are bitwise equal,
//     once after the full pipeline and once with no passes but the jit's own
//     lowering and fusion;
//   * with the default options (float sums may be reassociated) they are
//     within a small tolerance.
// A failure names the seed; MXLA_JIT_SEED=<seed> reruns just that one and
// prints the module at each stage.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "driver/compile.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/feed_constants.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::FedModule;
using ::mxla::testing::Pointers;
using ::mxla::testing::WithConstantsFed;

RandomGraphOptions AllTypes() {
  RandomGraphOptions options;
  options.element_types = {F32, S32, PRED, F64, S64, S8, S16, U8, U16,
                           U32, U64, F16, BF16, S2,  S4,  U2, U4,
                           F8E4M3FN, F8E5M2, F8E4M3FNUZ, F4E2M1FN, F8E8M0FNU};
  options.max_rank = 5;
  return options;
}

struct Config {
  const char* name;
  bool full_pipeline;
  bool exact;
  bool stream_every_result = false;
  bool tuple_parameter = false;  // RandomGraphOptions::tuple_parameter
  bool host_feed = false;        // RandomGraphOptions::allow_host_feed
};

// The dot kernel forms the checked graphs compiled to (with reassociation:
// plain products, products with an epilogue, row dots), so a test can
// insist that random graphs keep reaching each of them.
struct DotKernelForms {
  int plain = 0;
  int epilogue = 0;
  int rows = 0;
};

void CountDotKernels(const HloModule& fused, DotKernelForms& forms) {
  for (const HloInstruction* instruction :
       fused.entry_computation()->instructions()) {
    const FusionPlan* plan = instruction->fusion_plan();
    if (instruction->opcode() != HloOpcode::kFusion || plan == nullptr ||
        !plan->is_dot()) {
      continue;
    }
    const DotPlan& dot = std::get<DotPlan>(plan->config);
    if (dot.rows) {
      ++forms.rows;
    } else if (instruction->to_apply()->root_instruction()->opcode() !=
               HloOpcode::kDot) {
      ++forms.epilogue;
    } else {
      ++forms.plain;
    }
  }
}

void CheckSeed(uint64_t seed, const Config& config,
               DotKernelForms* forms = nullptr) {
  RandomGraphOptions graph_options = AllTypes();
  graph_options.tuple_parameter = config.tuple_parameter;
  graph_options.allow_host_feed = config.host_feed;
  ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                       GenerateRandomGraph(seed, graph_options));
  const HloModule& module = graph.computation.module();
  std::unique_ptr<HostFeedQueue> expected_feed = graph.MakeFeed();
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(module, Pointers(graph.arguments),
                                      {.host_feed = expected_feed.get()}));
  CompileOptions options;
  if (!config.full_pipeline) options.passes = std::vector<std::string>{};
  options.codegen.reassociate_reductions = !config.exact;
  if (config.stream_every_result) options.codegen.streaming_store_min_bytes = 1;
  // Constants the pipeline would fold (with the evaluator) are fed as
  // parameters, so the JIT computes every op itself.
  ASSERT_OK_AND_ASSIGN(FedModule fed,
                       WithConstantsFed(module, Pointers(graph.arguments)));
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(*fed.module, options);
  ASSERT_TRUE(executable.ok())
      << graph.description << ": " << executable.status() << "\n"
      << module.ToString();
  if (forms != nullptr) CountDotKernels((*executable)->module(), *forms);
  std::unique_ptr<HostFeedQueue> actual_feed = graph.MakeFeed();
  absl::StatusOr<Literal> actual = (*executable)->Run(
      fed.arguments, {.host_feed = actual_feed.get()});
  ASSERT_TRUE(actual.ok()) << graph.description << ": " << actual.status();
  std::string context = graph.description + " [" + config.name + "]\n" +
                        module.ToString() + "\nfused:\n" +
                        (*executable)->module().ToString();
  // The outfeed values in order, then the result.
  std::vector<Literal> expected_values = expected_feed->TakeOutfeed();
  std::vector<Literal> actual_values = actual_feed->TakeOutfeed();
  ASSERT_EQ(expected_values.size(), actual_values.size()) << context;
  expected_values.push_back(std::move(expected));
  actual_values.push_back(*std::move(actual));
  for (size_t i = 0; i < expected_values.size(); ++i) {
    if (config.exact) {
      EXPECT_OK(LiteralUtil::SameValues(expected_values[i], actual_values[i]))
          << context << "\nexpected " << expected_values[i].ToString()
          << "\nactual   " << actual_values[i].ToString();
    } else {
      EXPECT_OK(LiteralUtil::Near(expected_values[i], actual_values[i], 1e-4,
                                  1e-4))
          << context;
    }
  }
}

// Returns false when MXLA_JIT_SEED selected one seed.
bool CheckSeeds(uint64_t count, const Config& config,
                DotKernelForms* forms = nullptr) {
  if (const char* seed = std::getenv("MXLA_JIT_SEED")) {
    CheckSeed(std::strtoull(seed, nullptr, 10), config, forms);
    return false;
  }
  for (uint64_t seed = 0; seed < count; ++seed) {
    CheckSeed(seed, config, forms);
    if (::testing::Test::HasFailure()) break;
  }
  return true;
}

TEST(JitDifferentialTest, FullPipelineIsBitExact) {
  CheckSeeds(1000, {"full pipeline, exact", true, true});
}

TEST(JitDifferentialTest, LoweringAndFusionOnlyIsBitExact) {
  CheckSeeds(600, {"no passes, exact", false, true});
}

TEST(JitDifferentialTest, StreamingStoresAreBitExact) {
  CheckSeeds(400, {"full pipeline, exact, streaming stores", true, true,
                   /*stream_every_result=*/true});
}

// Parameters after the first packed into one tuple parameter: the jit
// reads each element from its own leaf buffer.
TEST(JitDifferentialTest, TupleParametersAreBitExact) {
  CheckSeeds(400, {"full pipeline, exact, tuple parameter", true, true,
                   /*stream_every_result=*/false, /*tuple_parameter=*/true});
}

// Infeeds and outfeeds chained through the graph: both backends read the
// same values and write the same ones, in the same order.
TEST(JitDifferentialTest, HostFeedsAreBitExact) {
  CheckSeeds(300, {"full pipeline, exact, host feeds", true, true,
                   /*stream_every_result=*/false, /*tuple_parameter=*/false,
                   /*host_feed=*/true});
}

// With reassociation, f32 and f64 dots become dot kernels: the graphs
// reach a product alone and one with an epilogue (row dots come and go
// with the generator's choices; dot_kernel_random_test covers them).
TEST(JitDifferentialTest, ReassociatedReductionsAreClose) {
  DotKernelForms forms;
  if (!CheckSeeds(400, {"full pipeline, reassociated", true, false},
                  &forms)) {
    return;
  }
  EXPECT_GT(forms.plain, 0);
  EXPECT_GT(forms.epilogue, 0);
  std::cerr << "dot kernels: " << forms.plain << " plain, " << forms.epilogue
            << " with an epilogue, " << forms.rows << " row dots\n";
}

}  // namespace
}  // namespace mxla
