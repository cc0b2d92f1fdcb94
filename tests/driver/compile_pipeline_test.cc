// The compile pipeline: its one list of stages per backend, the default HLO
// passes, stage ranges, and that one compile times and dumps every stage.
#include "driver/compile_pipeline.h"

#include <filesystem>
#include <memory>
#include <string>

#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/read_file.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::fixtures::kBiasRelu;
using ::mxla::testing::Pointers;
using ::mxla::testing::ReadFile;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::unique_ptr<HloModule> Parse(const char* text) {
  return ParseHloModule(text).value();
}

CompileOptions ForBackend(Backend backend) {
  CompileOptions options;
  options.backend = backend;
  return options;
}

std::vector<std::string> StageNames(const CompileReport& report) {
  std::vector<std::string> names;
  for (const StageRecord& stage : report.stages) names.push_back(stage.name);
  return names;
}

std::filesystem::path FreshDirectory(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(CompilePipelineTest, EachBackendListsItsStages) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CompilePipeline> jit,
                       CompilePipeline::Create(ForBackend(Backend::kJit), DefaultSubprogramCompilers()));
  EXPECT_THAT(jit->StageNames(),
              ElementsAre("verify", "hlo-passes", "assign-buffers", "emit",
                          "optimize", "link"));
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<CompilePipeline> interpreter,
      CompilePipeline::Create(ForBackend(Backend::kInterpreter),
                              DefaultSubprogramCompilers()));
  EXPECT_THAT(interpreter->StageNames(), ElementsAre("verify", "hlo-passes"));
}

TEST(CompilePipelineTest, DefaultHloPassesLowerAndCleanUp) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  ASSERT_OK_AND_ASSIGN(CompiledModule compiled,
                       RunCompilePipeline(*module, ForBackend(Backend::kInterpreter),
                                          DefaultSubprogramCompilers()));
  EXPECT_EQ(compiled.module->ToString(),
            "HloModule bias_relu\n"
            "\n"
            "ENTRY main {\n"
            "  x = f32[2,3]{1,0} parameter(0)\n"
            "  v = f32[3]{0} parameter(1)\n"
            "  v.b = f32[2,3]{1,0} broadcast(v), dimensions={1}\n"
            "  sum = f32[2,3]{1,0} add(x, v.b)\n"
            "  zero = f32[] constant(0)\n"
            "  zero.b = f32[2,3]{1,0} broadcast(zero), dimensions={}\n"
            "  ROOT relu = f32[2,3]{1,0} maximum(sum, zero.b)\n"
            "}\n");
  std::vector<std::string> passes;
  for (const PassRecord& pass : compiled.report.passes) {
    passes.push_back(pass.name);
  }
  // Nothing to clean up: the first round of the fixed point changes
  // nothing, which ends it.
  EXPECT_THAT(passes, ElementsAre("expand-rngs", "inline-calls",
                                  "pair-sends-and-recvs",
                                  "lower-broadcasts", "simplify", "cse",
                                  "dce", "while-loop-invariant-code-motion",
                                  "while-loop-simplifier"));
  EXPECT_EQ(compiled.program, nullptr);
}

// The jit adds fusion and planning to the user's pass list, then the
// backend's stages; the program runs.
TEST(CompilePipelineTest, JitRunsEveryStageAndReportsIt) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  CompileOptions options = ForBackend(Backend::kJit);
  options.passes = std::vector<std::string>{"simplify"};
  ASSERT_OK_AND_ASSIGN(CompiledModule compiled,
                       RunCompilePipeline(*module, options, DefaultSubprogramCompilers()));
  EXPECT_THAT(StageNames(compiled.report),
              ElementsAre("verify", "hlo-passes", "assign-buffers", "emit",
                          "optimize", "link"));
  std::vector<std::string> passes;
  for (const PassRecord& pass : compiled.report.passes) {
    passes.push_back(pass.name);
  }
  EXPECT_THAT(passes,
              ElementsAre("expand-rngs", "simplify", "split-tuple-constants",
                          "lower-collectives",
                          "expand-scans",
                          "expand-topk", "hoist-sort-keys", "expand-ragged-dots", "expand-scaled-dots",
                          "expand-batch-norms", "expand-stochastic-converts",
                          "expand-rng-bit-generators",
                          "expand-choleskys", "expand-triangular-solves",
                          "inline-calls", "conditional-to-select",
                          "inline-maps", "inline-unplannable-fusions",
                          "expand-reduce-windows", "expand-convolutions",
                          "expand-dots",
                          "lower-broadcasts",
                          "fusion", "row-fusion", "fusion-planning"));
  ASSERT_NE(compiled.program, nullptr);
  EXPECT_EQ(compiled.module, nullptr);  // moved into the program
  EXPECT_THAT(StageNames(compiled.program->report),
              ElementsAre("verify", "hlo-passes", "assign-buffers", "emit",
                          "optimize", "link"));
  EXPECT_GT(compiled.report.Milliseconds("optimize"), 0);

  std::vector<Literal> arguments;
  arguments.push_back(LiteralUtil::CreateR2<float>({{-5, 1, 2}, {3, -4, 0}}));
  arguments.push_back(LiteralUtil::CreateR1<float>({1, 1, -1}));
  JitExecutable executable(compiled.program);
  ASSERT_OK_AND_ASSIGN(Literal actual, executable.Run(Pointers(arguments)));
  EXPECT_EQ(actual, LiteralUtil::CreateR2<float>({{0, 2, 1}, {4, 0, 0}}));
}

TEST(CompilePipelineTest, OneCompileDumpsEveryStage) {
  const std::filesystem::path dir = FreshDirectory("compile_pipeline_dumps");
  CompileOptions options = ForBackend(Backend::kJit);
  options.pipeline.dump_dir = dir.string();
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  const int64_t optimizations_before = OptimizationPipelineRuns();
  ASSERT_OK(RunCompilePipeline(*module, options, DefaultSubprogramCompilers()).status());
  EXPECT_EQ(OptimizationPipelineRuns() - optimizations_before, 1);
  for (const char* file : {"00-input.hlo", "passes.txt", "fused.hlo", "llvm.ll",
                           "llvm-opt.ll", "kernels.s", "stages.txt"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
  }
  const std::string stages = ReadFile(dir / "stages.txt");
  for (const char* stage : {"verify", "hlo-passes", "assign-buffers", "emit",
                            "optimize", "link", "total"}) {
    EXPECT_THAT(stages, HasSubstr(stage));
  }
  EXPECT_THAT(stages, Not(HasSubstr("FAILED")));
  // The dump lists every kernel's compile time, not just the slowest.
  EXPECT_THAT(stages, HasSubstr("distinct kernels"));
  EXPECT_THAT(stages, HasSubstr("mxla.fusion"));
  EXPECT_THAT(ReadFile(dir / "fused.hlo"), HasSubstr("plan={"));
}

// A failing stage ends the compile; stages.txt says which one failed.
TEST(CompilePipelineTest, AFailedStageIsRecordedAndStopsTheCompile) {
  const std::filesystem::path dir = FreshDirectory("compile_pipeline_failed");
  CompileOptions options = ForBackend(Backend::kJit);
  options.pipeline.dump_dir = dir.string();
  options.memory_limit_bytes = 16;  // the result alone needs 24 bytes
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  EXPECT_THAT(RunCompilePipeline(*module, options, DefaultSubprogramCompilers()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("memory limit")));
  const std::string stages = ReadFile(dir / "stages.txt");
  EXPECT_THAT(stages, HasSubstr("assign-buffers"));
  EXPECT_THAT(stages, HasSubstr("FAILED"));
  EXPECT_THAT(stages, Not(HasSubstr("emit")));
  EXPECT_TRUE(std::filesystem::exists(dir / "fused.hlo"));
  EXPECT_FALSE(std::filesystem::exists(dir / "llvm.ll"));
}

TEST(CompilePipelineTest, RangesSelectStagesByName) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CompilePipeline> pipeline,
                       CompilePipeline::Create(ForBackend(Backend::kJit), DefaultSubprogramCompilers()));
  StageRange through_optimize;
  through_optimize.last = "optimize";
  through_optimize.keep_dumps = true;
  ASSERT_OK_AND_ASSIGN(CompiledModule compiled,
                       pipeline->Run(*module, through_optimize));
  EXPECT_THAT(StageNames(compiled.report),
              ElementsAre("verify", "hlo-passes", "assign-buffers", "emit",
                          "optimize"));
  ASSERT_NE(compiled.module, nullptr);  // fused, not linked
  EXPECT_EQ(compiled.program, nullptr);
  EXPECT_THAT(compiled.dumps["llvm-opt.ll"], HasSubstr("define void @mxla."));
  EXPECT_THAT(compiled.dumps["kernels.s"], HasSubstr("mxla."));

  // The rest, on the fused module.
  StageRange link;
  link.first = "link";
  link.last = "link";
  EXPECT_THAT(pipeline->Run(std::move(compiled.module), link),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("runs after 'emit'")));  // no kernels

  StageRange unknown;
  unknown.last = "codegen";
  EXPECT_THAT(pipeline->Run(*module, unknown),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown compile stage 'codegen' for the jit "
                                 "backend (stages: verify, hlo-passes, "
                                 "assign-buffers, emit, optimize, link)")));
  StageRange backwards;
  backwards.first = "emit";
  backwards.last = "verify";
  EXPECT_THAT(pipeline->Run(*module, backwards),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("compile stage 'emit' comes after 'verify'")));
}

TEST(CompilePipelineTest, VerifyRejectsAnInvalidModuleBeforeAnyPass) {
  // A result shape the operands do not give.
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule bad
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT relu = f32[3,2] negate(x)
})");
  absl::StatusOr<CompiledModule> compiled =
      RunCompilePipeline(*module, ForBackend(Backend::kJit),
                         DefaultSubprogramCompilers());
  EXPECT_THAT(compiled, StatusIs(absl::StatusCode::kInvalidArgument,
                                 AllOf(HasSubstr("relu"), HasSubstr("f32[3,2]"))));
}

TEST(CompilePipelineTest, AnUnknownPassIsAnErrorWhenThePipelineIsMade) {
  CompileOptions options = ForBackend(Backend::kJit);
  options.passes = std::vector<std::string>{"fuse"};
  EXPECT_THAT(CompilePipeline::Create(options, DefaultSubprogramCompilers()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown pass 'fuse'")));
}

}  // namespace
}  // namespace mxla
