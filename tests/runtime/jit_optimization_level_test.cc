// CodegenOptions::optimization_level reaches both the IR pipeline and the
// machine code generator, and a dumping compile writes the stages of the one
// compile it returns (no recompile for the dump).
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/compiler.h"
#include "driver/compile.h"
#include "driver/compile_pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/read_file.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::ReadFile;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kModule[] = R"(HloModule scale_and_sum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,1000] parameter(0)
  y = f32[64,1000] parameter(1)
  m = f32[64,1000] multiply(x, y)
  zero = f32[] constant(0)
  rows = f32[64] reduce(m, zero), dimensions={1}, to_apply=add
  e = f32[64,1000] exponential(m)
  ROOT t = (f32[64], f32[64,1000]) tuple(rows, e)
}
)";

std::unique_ptr<HloModule> Fused(const CompileOptions& options) {
  std::unique_ptr<HloModule> module = ParseHloModule(kModule).value();
  return OptimizeForBackend(*module, options).value();
}

std::vector<Literal> Arguments() {
  std::vector<Literal> arguments;
  for (int p = 0; p < 2; ++p) {
    Literal literal(ShapeUtil::MakeShape(F32, {64, 1000}));
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.data<float>()[i] = 0.001f * ((i * 7919 + p * 104729) % 2001) - 1;
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

CompileOptions AtLevel(int level) {
  CompileOptions options;
  options.codegen.optimization_level = level;
  options.codegen.reassociate_reductions = false;  // exact at every level
  options.use_cache = false;
  return options;
}

TEST(JitOptimizationLevelTest, LevelsZeroAndThreeCompileDifferentlyAndAgree) {
  std::vector<Literal> arguments = Arguments();
  std::unique_ptr<HloModule> module = ParseHloModule(kModule).value();
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  // Each level's stage dumps (llvm.ll, llvm-opt.ll, kernels.s).
  std::map<std::string, std::string> dumps[2];
  int i = 0;
  for (int level : {0, 3}) {
    SCOPED_TRACE(level);
    CompileOptions options = AtLevel(level);
    ASSERT_OK_AND_ASSIGN(
        CompiledModule compiled,
        RunJitBackend(Fused(options), options, DefaultSubprogramCompilers(),
                      /*keep_dumps=*/true));
    dumps[i++] = compiled.dumps;
    JitExecutable executable(std::move(compiled.program));
    ASSERT_OK_AND_ASSIGN(Literal actual, executable.Run(Pointers(arguments)));
    EXPECT_OK(LiteralUtil::SameValues(expected, actual));
  }
  std::map<std::string, std::string>& o0 = dumps[0];
  std::map<std::string, std::string>& o3 = dumps[1];
  EXPECT_EQ(o0["llvm.ll"], o3["llvm.ll"]);  // the same emitted IR
  // O0 keeps the emitter's stack slots and scalar loops; O3 promotes them
  // and vectorizes.
  EXPECT_THAT(o0["llvm-opt.ll"], HasSubstr("alloca"));
  EXPECT_THAT(o0["llvm-opt.ll"], Not(HasSubstr("x float>")));
  EXPECT_THAT(o3["llvm-opt.ll"], HasSubstr("x float>"));
  // O0's machine code spills to the stack frame (FastISel, no register
  // allocation across blocks); O3's uses packed vector arithmetic.
  EXPECT_THAT(o0["kernels.s"], HasSubstr("(%rsp)"));
  EXPECT_THAT(o0["kernels.s"], Not(HasSubstr("vmulps")));
  EXPECT_THAT(o3["kernels.s"], HasSubstr("vmulps"));
  EXPECT_NE(o0["kernels.s"], o3["kernels.s"]);
}

TEST(JitOptimizationLevelTest, LevelOutsideZeroToThreeIsAnError) {
  for (int level : {-1, 4}) {
    CompileOptions options = AtLevel(3);
    std::unique_ptr<HloModule> fused = Fused(options);
    options.codegen.optimization_level = level;
    EXPECT_THAT(JitKernels::Compile(*fused, options.codegen).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("optimization_level must be 0 to 3")));
    EXPECT_THAT(EmitIr(*fused, options.codegen, IrStage::kLlvm).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("optimization_level")));
    std::unique_ptr<HloModule> module = ParseHloModule(kModule).value();
    EXPECT_THAT(Compile(*module, options).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("got ")));
  }
}

// The dumped llvm-opt.ll is the IR of the compile that runs: the dumping
// compile optimizes the module once, at the requested level.
TEST(JitOptimizationLevelTest, DumpsComeFromTheOneCompile) {
  for (int level : {0, 3}) {
    SCOPED_TRACE(level);
    const std::filesystem::path dir =
        std::filesystem::path(::testing::TempDir()) /
        ("opt_level_dump_" + std::to_string(level));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    CompileOptions options = AtLevel(level);
    options.pipeline.dump_dir = dir.string();
    std::unique_ptr<HloModule> module = ParseHloModule(kModule).value();
    const int64_t runs_before = OptimizationPipelineRuns();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*module, options));
    EXPECT_EQ(OptimizationPipelineRuns() - runs_before, 1);

    const std::string optimized = ReadFile(dir / "llvm-opt.ll");
    const std::string assembly = ReadFile(dir / "kernels.s");
    EXPECT_THAT(ReadFile(dir / "llvm.ll"), HasSubstr("define void @mxla."));
    EXPECT_THAT(optimized, HasSubstr("define void @mxla."));
    EXPECT_THAT(assembly, HasSubstr("mxla."));
    EXPECT_THAT(ReadFile(dir / "fused.hlo"), HasSubstr("fusion"));
    if (level == 0) {
      EXPECT_THAT(optimized, Not(HasSubstr("x float>")));
    } else {
      EXPECT_THAT(optimized, HasSubstr("x float>"));
    }
    // The same stages as a separate inspection would print.
    ASSERT_OK_AND_ASSIGN(
        std::string again,
        EmitIr(*Fused(options), options.codegen, IrStage::kLlvmOptimized));
    EXPECT_EQ(optimized, again);
    std::vector<Literal> arguments = Arguments();
    ASSERT_OK_AND_ASSIGN(Literal expected,
                         EvaluateModule(*module, Pointers(arguments)));
    ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run(Pointers(arguments)));
    EXPECT_OK(LiteralUtil::SameValues(expected, actual));
  }
}

}  // namespace
}  // namespace mxla
