// The differential test's scale tier: seeded random graphs whose parameters
// are large (tests/testlib/random_graph.h, parameter_dimensions), so that
// kernels take the paths small graphs never reach: iteration spaces split
// into chunks (kMinBytesPerChunk) with clipped tails, threads of the pool,
// streaming stores for results of 8 MiB or more, and row fusions over long
// rows. The jit must match the evaluator bit for bit (exact reductions).
//
// CTest runs this binary three times, with MXLA_THREADS=1, 2 and 5, so the
// same graphs run on pools of 1, 2 and 5 threads, each against the
// evaluator. ScaleTierReachesTheLargeKernelPaths checks that the graphs do
// reach those paths. MXLA_JIT_SEED=<seed> reruns one seed of every shape.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/shape_util.h"
#include "passes/row_fusion_analysis.h"
#include "runtime/jit_executable.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/feed_constants.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::FedModule;
using ::mxla::testing::Pointers;
using ::mxla::testing::WithConstantsFed;

struct Scale {
  std::vector<int64_t> dimensions;
  uint64_t seeds;
};

// Odd sizes, so chunks and vector loops end in tails.
const Scale kScales[] = {
    {{97, 1031}, 3},    // 0.4 MB of f32: split into chunks
    {{3, 37, 521}, 2},  // rank 3
    {{3, 70001}, 2},    // rows of 280 KB: row fusions over long rows
    {{2053, 1031}, 1},  // 8.1 MiB of f32: streaming stores
};

RandomGraphOptions ScaleOptions(const Scale& scale) {
  RandomGraphOptions options;
  options.element_types = {F32, S32, PRED};
  options.max_rank = 3;
  options.max_instructions = 8;
  options.max_parameters = 2;
  options.allow_zero_sizes = false;
  // Slices and dots shrink values below the sizes this tier is for; the
  // other tiers draw them.
  options.allow_index_ops = false;
  options.allow_element_ops = false;
  options.parameter_dimensions = scale.dimensions;
  return options;
}

// Calls check(graph, executable, arguments) for every seed of every scale;
// the executable is compiled with the graph's foldable constants fed as
// parameters (tests/testlib/feed_constants.h), and takes `arguments`.
template <typename Check>
void ForEachScaleGraph(const CompileOptions& compile, Check check) {
  const char* only = std::getenv("MXLA_JIT_SEED");
  for (const Scale& scale : kScales) {
    for (uint64_t seed = 0; seed < scale.seeds; ++seed) {
      if (only != nullptr && seed != std::strtoull(only, nullptr, 10)) continue;
      ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                           GenerateRandomGraph(seed, ScaleOptions(scale)));
      SCOPED_TRACE(graph.description + " at [" +
                   absl::StrJoin(scale.dimensions, ",") + "]");
      ASSERT_OK_AND_ASSIGN(FedModule fed,
                           WithConstantsFed(graph.computation.module(),
                                            Pointers(graph.arguments)));
      absl::StatusOr<std::unique_ptr<Executable>> executable =
          Compile(*fed.module, compile);
      ASSERT_TRUE(executable.ok()) << executable.status() << "\n"
                                   << graph.computation.module().ToString();
      check(graph, **executable, fed.arguments);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

void ExpectSameAsEvaluator(const CompileOptions& compile) {
  ForEachScaleGraph(compile, [](const RandomGraph& graph,
                                const Executable& executable,
                                absl::Span<const Literal* const> arguments) {
    ASSERT_OK_AND_ASSIGN(Literal expected,
                         EvaluateModule(graph.computation.module(),
                                        Pointers(graph.arguments)));
    ASSERT_OK_AND_ASSIGN(Literal actual, executable.Run(arguments));
    EXPECT_OK(LiteralUtil::SameValues(expected, actual))
        << graph.computation.module().ToString() << "\nfused:\n"
        << executable.module().ToString();
  });
}

// The pool CTest asked for is the one the runs use.
TEST(JitScaleDifferentialTest, PoolHasTheRequestedThreads) {
  const char* threads = std::getenv("MXLA_THREADS");
  if (threads == nullptr) GTEST_SKIP() << "MXLA_THREADS is not set";
  ASSERT_OK(ThreadPool::DefaultStatus());
  EXPECT_EQ(ThreadPool::Default().threads(), std::atoi(threads));
}

TEST(JitScaleDifferentialTest, FullPipelineIsBitExact) {
  CompileOptions compile;
  compile.codegen.reassociate_reductions = false;
  ExpectSameAsEvaluator(compile);
}

TEST(JitScaleDifferentialTest, LoweringAndFusionOnlyIsBitExact) {
  CompileOptions compile;
  compile.passes = std::vector<std::string>{};
  compile.codegen.reassociate_reductions = false;
  ExpectSameAsEvaluator(compile);
}

// Not a vacuous tier: some kernel is split into several chunks, some
// fusion's result reaches the streaming-store size, some fusion is a row
// fusion, and some splits end in a partial chunk.
TEST(JitScaleDifferentialTest, ScaleTierReachesTheLargeKernelPaths) {
  if (std::getenv("MXLA_JIT_SEED") != nullptr) GTEST_SKIP();
  CompileOptions compile;
  compile.codegen.reassociate_reductions = false;
  int split = 0, clipped = 0, streamed = 0, row_fused = 0;
  ForEachScaleGraph(compile, [&](const RandomGraph&, const Executable& base,
                                 absl::Span<const Literal* const>) {
    const auto* jit = dynamic_cast<const JitExecutable*>(&base);
    ASSERT_NE(jit, nullptr);
    for (const JitExecutable::Program::Step& step : jit->program()->steps) {
      if (step.max_chunks <= 1) continue;
      ++split;
      if (step.units % step.max_chunks != 0) ++clipped;
    }
    for (const HloInstruction* instruction :
         jit->module().entry_computation()->instructions()) {
      if (instruction->opcode() != HloOpcode::kFusion) continue;
      if (ShapeUtil::ByteSizeOf(instruction->shape()) >=
          compile.codegen.streaming_store_min_bytes) {
        ++streamed;
      }
      if (AnalyzeRowFusion(*instruction->called_computations()[0]).ok()) {
        ++row_fused;
      }
    }
  });
  SCOPED_TRACE(absl::StrCat("split ", split, ", clipped ", clipped,
                            ", streamed ", streamed, ", row-fused ", row_fused));
  EXPECT_GT(split, 0);
  EXPECT_GT(clipped, 0);
  EXPECT_GT(streamed, 0);
  EXPECT_GT(row_fused, 0);
}

}  // namespace
}  // namespace mxla
