// The jit maps the fusion plans in the IR: a fused module without plans is
// FailedPrecondition naming the fusion, and a dumped fused.hlo (plans and
// all) parses back and runs with no passes, bit for bit as the interpreter.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "driver/compile_pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/read_file.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::ReadFile;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(FusionPlanJitTest, CodegenNeedsAPlan) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule m
fused {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT unplanned = f32[4] fusion(x), kind=kLoop, calls=fused
})"));
  EXPECT_THAT(RunJitBackend(std::move(module), CompileOptions{},
                            DefaultSubprogramCompilers()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("fusion 'unplanned' has no plan"),
                             HasSubstr("run the fusion-planning pass"))));
}


// An integer sum reorders freely: split into 64 chunks, and exact.
constexpr char kLargeSum[] = R"(HloModule large_sum
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
ENTRY main {
  x = s32[1048576] parameter(0)
  zero = s32[] constant(0)
  ROOT s = s32[] reduce(x, zero), dimensions={0}, to_apply=add_s32
})";

Literal Argument(const HloModule& module) {
  Literal literal(
      module.entry_computation()->parameter_instruction(0)->shape());
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (literal.shape().element_type() == F32) {
      literal.data<float>()[i] = 0.01f * ((i * 37) % 101) - 0.5f;
    } else {
      literal.data<int32_t>()[i] = static_cast<int32_t>((i * 7919) % 2001) - 1000;
    }
  }
  return literal;
}

// Compiles `text` dumping into a fresh directory; returns fused.hlo.
std::string DumpFused(const std::string& text, const std::string& name,
                      const CompileOptions& options) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      absl::StrCat("mxla_fusion_plan_jit_", name, "_", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CompileOptions dumping = options;
  dumping.pipeline.dump_dir = dir.string();
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  EXPECT_OK(Compile(*module, dumping).status());
  std::string fused = ReadFile(dir / "fused.hlo");
  std::filesystem::remove_all(dir);
  return fused;
}

void ExpectDumpRunsAsIs(const std::string& text, const std::string& name,
                        const std::string& plan) {
  CompileOptions options;
  options.codegen.reassociate_reductions = false;  // the interpreter's bits
  const std::string fused = DumpFused(text, name, options);
  EXPECT_THAT(fused, HasSubstr(plan));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> original,
                       ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> reparsed,
                       ParseHloModule(fused));
  // No passes of the user's; the jit's own find nothing to do and keep the
  // recorded plans.
  options.passes = std::vector<std::string>{};
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> optimized,
                       OptimizeForBackend(*reparsed, options));
  EXPECT_EQ(optimized->ToString({.metadata = true}), fused);

  Literal x = Argument(*original);
  ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*original, {&x}));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*reparsed, options));
  ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run({&x}));
  EXPECT_OK(LiteralUtil::SameValues(expected, actual));
}

TEST(FusionPlanJitTest, DumpedSoftmaxRunsWithItsRecordedPlan) {
  ExpectDumpRunsAsIs(fixtures::Softmax(256, 1024), "softmax",
                     "plan={kind=row, "
                     "rows={256}, columns={1024}, store=plain, buffered={e");
}

TEST(FusionPlanJitTest, DumpedLargeSumRunsWithItsRecordedPlan) {
  ExpectDumpRunsAsIs(kLargeSum, "large_sum",
                     "plan={kind=reduction, units=64, chunks=64, "
                     "chunk_elements=16384, scratch_bytes=256}");
}

TEST(FusionPlanJitTest, AnEditedPlanIsTheOneThatRuns) {
  CompileOptions options;
  std::string fused = DumpFused(kLargeSum, "edited", options);
  const std::string from =
      "units=64, chunks=64, chunk_elements=16384, scratch_bytes=256";
  ASSERT_NE(fused.find(from), std::string::npos) << fused;
  fused.replace(fused.find(from), from.size(),
                "units=3, chunks=3, chunk_elements=349526, scratch_bytes=12");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> edited,
                       ParseHloModule(fused));
  options.passes = std::vector<std::string>{};
  options.use_cache = false;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*edited, options));
  EXPECT_THAT(executable->module().ToString(), HasSubstr("units=3, chunks=3"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> original,
                       ParseHloModule(kLargeSum));
  Literal x = Argument(*original);
  ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*original, {&x}));
  ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run({&x}));
  EXPECT_OK(LiteralUtil::SameValues(expected, actual));
}

}  // namespace
}  // namespace mxla
