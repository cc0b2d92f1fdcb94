// Fusions that compute alike share one kernel (codegen/compiler.h): the
// repeated layers of a model compile once, every fusion still runs (its
// own buffers through the shared code), and the results agree with the
// interpreter.
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/status_macros.h"
#include "runtime/compile.h"
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

}  // namespace
}  // namespace mxla
