// Fusions that compute alike share one kernel (codegen/compiler.h): the
// repeated layers of a model compile once, every fusion still runs (its
// own buffers through the shared code), and the results agree with the
// interpreter.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"

#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/status_macros.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"
#include "tools/model_stack.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;

std::set<std::string> Symbols(const JitExecutable& executable) {
  std::set<std::string> symbols;
  for (const KernelInfo& kernel : executable.kernels().kernels()) {
    symbols.insert(kernel.symbol);
  }
  return symbols;
}

absl::StatusOr<std::unique_ptr<Executable>> CompileStack(int64_t layers,
                                                         Backend backend) {
  examples::StackShape shape;
  shape.layers = layers;
  shape.rows = 8;
  shape.width = 32;
  ASSIGN_OR_RETURN(XlaComputation computation, examples::BuildModelStack(shape));
  CompileOptions options;
  options.backend = backend;
  return Compile(computation.module(), options);
}

TEST(KernelSharingTest, RepeatedLayersShareTheirKernels) {
  // Every layer but the last (whose residual sum is the result) compiles
  // to the same kernels, so more layers add fusions, not kernels.
  ASSERT_OK_AND_ASSIGN(auto two, CompileStack(2, Backend::kJit));
  ASSERT_OK_AND_ASSIGN(auto three, CompileStack(3, Backend::kJit));
  ASSERT_OK_AND_ASSIGN(auto six, CompileStack(6, Backend::kJit));
  const auto& two_jit = static_cast<const JitExecutable&>(*two);
  const auto& three_jit = static_cast<const JitExecutable&>(*three);
  const auto& six_jit = static_cast<const JitExecutable&>(*six);
  const int64_t per_layer = three_jit.kernels().kernels().size() -
                            two_jit.kernels().kernels().size();
  EXPECT_GT(per_layer, 0);
  EXPECT_EQ(six_jit.kernels().kernels().size(),
            two_jit.kernels().kernels().size() + 4 * per_layer);
  // (Symbols are the first sharing fusion's name, which differ.)
  EXPECT_EQ(Symbols(six_jit).size(), Symbols(two_jit).size())
      << six->module().ToString();
  EXPECT_EQ(Symbols(three_jit).size(), Symbols(two_jit).size());
  EXPECT_LT(Symbols(six_jit).size(), six_jit.kernels().kernels().size());
  // Every fusion still has its function.
  for (const KernelInfo& kernel : six_jit.kernels().kernels()) {
    EXPECT_NE(six_jit.kernels().Lookup(kernel.fusion_name), nullptr)
        << kernel.fusion_name;
  }
}

// The compile report times each distinct kernel once and says how many
// fusions run it: the layers' kernels are compiled once for all of them.
TEST(KernelSharingTest, TheReportTimesEachDistinctKernelOnce) {
  ASSERT_OK_AND_ASSIGN(auto six, CompileStack(6, Backend::kJit));
  const auto& jit = static_cast<const JitExecutable&>(*six);
  const CompileReport& report = jit.program()->report;
  std::set<std::string> timed;
  int64_t fusions = 0;
  int64_t most_fusions = 0;
  for (const KernelCompileRecord& kernel : report.kernels) {
    timed.insert(kernel.kernel);
    EXPECT_GT(kernel.optimize_ms, 0) << kernel.kernel;
    EXPECT_GT(kernel.codegen_ms, 0) << kernel.kernel;
    fusions += kernel.fusions;
    most_fusions = std::max(most_fusions, kernel.fusions);
  }
  EXPECT_EQ(timed, Symbols(jit));
  EXPECT_EQ(timed.size(), report.kernels.size());  // once each
  EXPECT_EQ(fusions, static_cast<int64_t>(jit.kernels().kernels().size()));
  EXPECT_GE(most_fusions, 5);  // a kernel of the 5 repeated layers
  const std::string text = report.ToString(/*slowest_kernels=*/2);
  EXPECT_THAT(text, ::testing::HasSubstr(absl::StrCat(
                        report.kernels.size(), " distinct kernels")));
}

TEST(KernelSharingTest, SharedKernelsComputeEachLayer) {
  ASSERT_OK_AND_ASSIGN(auto jit, CompileStack(3, Backend::kJit));
  ASSERT_OK_AND_ASSIGN(auto interpreter, CompileStack(3, Backend::kInterpreter));
  examples::StackShape shape;
  shape.layers = 3;
  shape.rows = 8;
  shape.width = 32;
  std::vector<Literal> arguments = examples::ModelStackArguments(shape);
  ASSERT_OK_AND_ASSIGN(Literal expected, interpreter->Run(Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal actual, jit->Run(Pointers(arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, actual, 1e-4, 1e-4));
}

// `layers` layers over x = f32[rows, width], each reading its weights from
// stacked parameters (w: f32[layers, rows, width], v: f32[layers, width,
// width]) through slices, as a model's scanned layers do:
// x = max(x * w[l] + x, 0) . v[l].
std::string StackedLayers(int64_t layers, int64_t rows, int64_t width) {
  std::string text = absl::StrCat(
      "HloModule stacked\n\nENTRY main {\n  x0 = f32[$R,$W] parameter(0)\n"
      "  w = f32[$L,$R,$W] parameter(1)\n  v = f32[$L,$W,$W] parameter(2)\n"
      "  zero = f32[] constant(0)\n  zeros = f32[$R,$W] broadcast(zero), "
      "dimensions={}\n");
  std::string x = "x0";
  for (int64_t l = 0; l < layers; ++l) {
    const std::string n = absl::StrCat(l);
    absl::StrAppend(
        &text, "  ws", n, " = f32[1,$R,$W] slice(w), slice={[", l, ":", l + 1,
        "], [0:$R], [0:$W]}\n  wl", n, " = f32[$R,$W] reshape(ws", n, ")\n  m",
        n, " = f32[$R,$W] multiply(", x, ", wl", n, ")\n  a", n,
        " = f32[$R,$W] add(m", n, ", ", x, ")\n  r", n,
        " = f32[$R,$W] maximum(a", n, ", zeros)\n  vs", n,
        " = f32[1,$W,$W] slice(v), slice={[", l, ":", l + 1,
        "], [0:$W], [0:$W]}\n  vl", n, " = f32[$W,$W] reshape(vs", n,
        ")\n  d", n, " = f32[$R,$W] dot(r", n, ", vl", n,
        "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n");
    x = absl::StrCat("d", n);
  }
  absl::StrAppend(&text, "  ROOT result = f32[$R,$W] copy(", x, ")\n}\n");
  return absl::StrReplaceAll(text, {{"$L", absl::StrCat(layers)},
                                    {"$R", absl::StrCat(rows)},
                                    {"$W", absl::StrCat(width)}});
}

std::vector<Literal> StackedArguments(const HloModule& module) {
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter :
       module.entry_computation()->parameter_instructions()) {
    Literal literal(parameter->shape());
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.data<float>()[i] = 0.01f * ((i * 37) % 101) - 0.4f;
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

struct Compiled {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<Executable> executable;
  const JitExecutable& jit() const {
    return static_cast<const JitExecutable&>(*executable);
  }
};

absl::StatusOr<Compiled> CompileText(const std::string& text) {
  Compiled compiled;
  ASSIGN_OR_RETURN(compiled.module, ParseHloModule(text));
  ASSIGN_OR_RETURN(compiled.executable,
                   Compile(*compiled.module, CompileOptions{}));
  return compiled;
}

TEST(KernelSharingTest, LayersSlicingStackedWeightsShareTheirKernels) {
  // Each layer's fusion (its elementwise part feeding its product) differs
  // from the first layer's only in where it slices w and v (8 x 64 x 4 and
  // 64 x 64 x 4 bytes further per layer): it shares that kernel, called on
  // moved buffers. (The last layer's, the result, differs.)
  ASSERT_OK_AND_ASSIGN(Compiled two, CompileText(StackedLayers(2, 8, 64)));
  ASSERT_OK_AND_ASSIGN(Compiled five,
                       CompileText(StackedLayers(5, 8, 64)));
  EXPECT_EQ(Symbols(five.jit()).size(), Symbols(two.jit()).size())
      << five.executable->module().ToString();
  EXPECT_EQ(five.jit().kernels().kernels().size(), 5);
  std::vector<int64_t> w_offsets, v_offsets;
  for (const KernelInfo& kernel : five.jit().kernels().kernels()) {
    ASSERT_EQ(kernel.operand_offsets.size() == 3, !kernel.operand_offsets.empty());
    if (kernel.operand_offsets.empty()) continue;
    // fusion(w, x, v)
    w_offsets.push_back(kernel.operand_offsets[0]);
    EXPECT_EQ(kernel.operand_offsets[1], 0);
    v_offsets.push_back(kernel.operand_offsets[2]);
  }
  EXPECT_THAT(w_offsets, ::testing::ElementsAre(2048, 4096, 6144));
  EXPECT_THAT(v_offsets, ::testing::ElementsAre(16384, 32768, 49152));
  // Every layer reads its own weights.
  std::vector<Literal> arguments = StackedArguments(*five.module);
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*five.module, Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal actual, five.executable->Run(Pointers(arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, actual, 1e-4, 1e-4));
}

TEST(KernelSharingTest, SlicesMovedByPartsOfACacheLineKeepTheirKernels) {
  // 8 x 3 x 4 and 3 x 3 x 4 bytes per layer: a moved buffer would lose its
  // 64-byte alignment, so each layer keeps a kernel of its own (and still
  // computes its layer).
  ASSERT_OK_AND_ASSIGN(Compiled two, CompileText(StackedLayers(2, 8, 3)));
  ASSERT_OK_AND_ASSIGN(Compiled four, CompileText(StackedLayers(4, 8, 3)));
  EXPECT_EQ(Symbols(four.jit()).size(), Symbols(two.jit()).size() + 2)
      << four.executable->module().ToString();
  for (const KernelInfo& kernel : four.jit().kernels().kernels()) {
    EXPECT_TRUE(kernel.operand_offsets.empty()) << kernel.fusion_name;
  }
  std::vector<Literal> arguments = StackedArguments(*four.module);
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*four.module, Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(Literal actual, four.executable->Run(Pointers(arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, actual, 1e-4, 1e-4));
}

}  // namespace
}  // namespace mxla
