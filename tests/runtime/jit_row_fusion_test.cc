// Row fusions through the JIT (passes/row_fusion.h, codegen/row_emitter.h):
// softmax, layer norm, logsumexp over two trailing dimensions and an
// integer chain compile to one kernel per graph and give the evaluator's
// bits when reductions keep their order; with reassociation (the default)
// they agree within rounding. Large shapes run split across threads.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "gtest/gtest.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::ErrorSpec;
using ::mxla::testing::ParseAndVerifyModule;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;

// Integers: x - rowmax(x), then divided by the row sum of its squares + 1.
const std::string kIntegerRows = "HloModule integer_rows" +
                                 fixtures::MaxReducer("s32") +
                                 fixtures::AddReducer("s32") + R"(
ENTRY main {
  x = s32[9,17] parameter(0)
  low = s32[] constant(-2147483648)
  m = s32[9] reduce(x, low), dimensions={1}, to_apply=max_s32
  mb = s32[9,17] broadcast(m), dimensions={0}
  d = s32[9,17] subtract(x, mb)
  sq = s32[9,17] multiply(d, d)
  zero = s32[] constant(0)
  s = s32[9] reduce(sq, zero), dimensions={1}, to_apply=add_s32
  one = s32[] constant(1)
  oneb = s32[9] broadcast(one), dimensions={}
  s1 = s32[9] add(s, oneb)
  sb = s32[9,17] broadcast(s1), dimensions={0}
  big = s32[] constant(1000000)
  bigb = s32[9,17] broadcast(big), dimensions={}
  scaled = s32[9,17] multiply(d, bigb)
  ROOT q = s32[9,17] divide(scaled, sb)
})";

Literal Arbitrary(const Shape& shape, int64_t salt) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const int64_t v = (i * 2654435761 + salt * 40503) % 1000;
    if (shape.element_type() == F32) {
      literal.data<float>()[i] = 0.008f * v - 4.0f;  // [-4, 4)
    } else {
      literal.data<int32_t>()[i] = static_cast<int32_t>(v - 500);
    }
  }
  return literal;
}

std::vector<Literal> ArbitraryArguments(const HloModule& module) {
  std::vector<Literal> arguments;
  int64_t salt = 0;
  for (const HloInstruction* parameter :
       module.entry_computation()->parameter_instructions()) {
    arguments.push_back(Arbitrary(parameter->shape(), ++salt));
  }
  return arguments;
}

// Compiles `text` with the jit and checks it is one row-fused kernel whose
// results match the evaluator: bitwise without reassociation, within
// rounding with it.
void CheckRowFused(const std::string& text) {
  SCOPED_TRACE(text);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseAndVerifyModule(text));
  std::vector<Literal> arguments = ArbitraryArguments(*module);
  for (bool reassociate : {false, true}) {
    RunAndCompareOptions options;
    options.compile.codegen.reassociate_reductions = reassociate;
    if (reassociate) options.error = ErrorSpec{1e-5, 1e-6};
    EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments), options));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*module, options.compile));
    const auto& jit = static_cast<const JitExecutable&>(*executable);
    EXPECT_EQ(jit.kernels().kernels().size(), 1u) << jit.module().ToString();
  }
}

TEST(JitRowFusionTest, SoftmaxOddShape) {
  CheckRowFused(fixtures::Softmax(7, 13));
}

TEST(JitRowFusionTest, SoftmaxSplitAcrossThreads) {
  // 16 MiB of traffic: the runtime splits the rows into many chunks.
  CheckRowFused(fixtures::Softmax(2048, 1024));
}

TEST(JitRowFusionTest, LayerNorm) {
  CheckRowFused(fixtures::LayerNorm(33, 70));
}

TEST(JitRowFusionTest, LogSumExpOverTwoTrailingDimensions) {
  CheckRowFused(fixtures::LogSumExpOverTwoTrailingDimensions());
}

TEST(JitRowFusionTest, IntegerRows) { CheckRowFused(kIntegerRows); }

TEST(JitRowFusionTest, NanAndInfinityRows) {
  // A row with a NaN gives NaN everywhere; a row with +inf gives NaN where
  // inf - inf meets and 0 elsewhere; a row of -inf gives NaN (0/0).
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseAndVerifyModule(fixtures::Softmax(3, 4)));
  std::vector<Literal> arguments = ArbitraryArguments(*module);
  float* x = arguments[0].data<float>().data();
  const float inf = std::numeric_limits<float>::infinity();
  x[1] = std::numeric_limits<float>::quiet_NaN();
  x[4 + 2] = inf;
  for (int i = 8; i < 12; ++i) x[i] = -inf;
  // Near matches NaN only with NaN, so the NaNs land where they should.
  RunAndCompareOptions options;
  options.error = ErrorSpec{1e-5, 1e-6};
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments), options));
}

}  // namespace
}  // namespace mxla
