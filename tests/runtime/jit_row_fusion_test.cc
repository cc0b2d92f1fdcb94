// Row fusions through the JIT (passes/row_fusion.h, codegen/row_emitter.h):
// softmax, layer norm, logsumexp over two trailing dimensions and an
// integer chain compile to one kernel per graph and give the evaluator's
// bits when reductions keep their order; with reassociation (the default)
// they agree within rounding. Large shapes run split across threads.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_parser.h"
#include "runtime/compile.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;

constexpr char kReducers[] = R"(
max_f32 {
  max_lhs = f32[] parameter(0)
  max_rhs = f32[] parameter(1)
  ROOT max_root = f32[] maximum(max_lhs, max_rhs)
}
add_f32 {
  add_lhs = f32[] parameter(0)
  add_rhs = f32[] parameter(1)
  ROOT add_root = f32[] add(add_lhs, add_rhs)
}
max_s32 {
  smax_lhs = s32[] parameter(0)
  smax_rhs = s32[] parameter(1)
  ROOT smax_root = s32[] maximum(smax_lhs, smax_rhs)
}
add_s32 {
  sadd_lhs = s32[] parameter(0)
  sadd_rhs = s32[] parameter(1)
  ROOT sadd_root = s32[] add(sadd_lhs, sadd_rhs)
}
)";

// Softmax over the last dimension of f32[ROWS,COLS].
std::string Softmax(int64_t rows, int64_t cols) {
  return absl::StrReplaceAll(std::string("HloModule softmax") + kReducers + R"(
ENTRY main {
  x = f32[$R,$C] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[$R] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[$R,$C] broadcast(m), dimensions={0}
  sub = f32[$R,$C] subtract(x, mb)
  e = f32[$R,$C] exponential(sub)
  zero = f32[] constant(0)
  s = f32[$R] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[$R,$C] broadcast(s), dimensions={0}
  ROOT out = f32[$R,$C] divide(e, sb)
})",
                             {{"$R", absl::StrCat(rows)},
                              {"$C", absl::StrCat(cols)}});
}

const std::string kLayerNorm = std::string("HloModule layer_norm") +
                               kReducers + R"(
ENTRY main {
  x = f32[33,70] parameter(0)
  gamma = f32[70] parameter(1)
  beta = f32[70] parameter(2)
  zero = f32[] constant(0)
  inv_n = f32[] constant(0.0142857144)
  inv_nb = f32[33] broadcast(inv_n), dimensions={}
  sum = f32[33] reduce(x, zero), dimensions={1}, to_apply=add_f32
  mean = f32[33] multiply(sum, inv_nb)
  meanb = f32[33,70] broadcast(mean), dimensions={0}
  centered = f32[33,70] subtract(x, meanb)
  sq = f32[33,70] multiply(centered, centered)
  sqsum = f32[33] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  var = f32[33] multiply(sqsum, inv_nb)
  eps = f32[] constant(1e-5)
  epsb = f32[33] broadcast(eps), dimensions={}
  var_eps = f32[33] add(var, epsb)
  scale = f32[33] rsqrt(var_eps)
  scaleb = f32[33,70] broadcast(scale), dimensions={0}
  normed = f32[33,70] multiply(centered, scaleb)
  gb = f32[33,70] broadcast(gamma), dimensions={1}
  bb = f32[33,70] broadcast(beta), dimensions={1}
  scaled = f32[33,70] multiply(normed, gb)
  ROOT out = f32[33,70] add(scaled, bb)
})";

const std::string kLogSumExp = std::string("HloModule logsumexp") +
                               kReducers + R"(
ENTRY main {
  x = f32[2,3,4,5] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[2,3] reduce(x, ninf), dimensions={2,3}, to_apply=max_f32
  mb = f32[2,3,4,5] broadcast(m), dimensions={0,1}
  d = f32[2,3,4,5] subtract(x, mb)
  e = f32[2,3,4,5] exponential(d)
  zero = f32[] constant(0)
  s = f32[2,3] reduce(e, zero), dimensions={2,3}, to_apply=add_f32
  l = f32[2,3] log(s)
  ROOT lse = f32[2,3] add(l, m)
})";

// Integers: x - rowmax(x), then divided by the row sum of its squares + 1.
const std::string kIntegerRows = std::string("HloModule integer_rows") +
                                 kReducers + R"(
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

struct Compiled {
  std::unique_ptr<HloModule> module;
  std::vector<Literal> arguments;
  Literal expected;
};

Compiled Prepare(const std::string& text) {
  Compiled compiled;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  compiled.module = std::move(*module);
  int64_t salt = 0;
  for (const HloInstruction* parameter :
       compiled.module->entry_computation()->parameter_instructions()) {
    compiled.arguments.push_back(Arbitrary(parameter->shape(), ++salt));
  }
  absl::StatusOr<Literal> expected =
      EvaluateModule(*compiled.module, Pointers(compiled.arguments));
  EXPECT_OK(expected.status());
  compiled.expected = std::move(*expected);
  return compiled;
}

// Compiles `text` with the jit and checks it is one row-fused kernel whose
// results match the evaluator: bitwise without reassociation, within
// rounding with it.
void CheckRowFused(const std::string& text) {
  SCOPED_TRACE(text);
  Compiled compiled = Prepare(text);
  for (bool reassociate : {false, true}) {
    CompileOptions options;
    options.codegen.reassociate_reductions = reassociate;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*compiled.module, options));
    const auto& jit = static_cast<const JitExecutable&>(*executable);
    EXPECT_EQ(jit.kernels().kernels().size(), 1u) << jit.module().ToString();
    ASSERT_OK_AND_ASSIGN(Literal actual,
                         executable->Run(Pointers(compiled.arguments)));
    if (reassociate) {
      EXPECT_OK(LiteralUtil::Near(compiled.expected, actual, 1e-5, 1e-6));
    } else {
      EXPECT_EQ(actual, compiled.expected);
    }
  }
}

TEST(JitRowFusionTest, SoftmaxOddShape) { CheckRowFused(Softmax(7, 13)); }

TEST(JitRowFusionTest, SoftmaxSplitAcrossThreads) {
  // 16 MiB of traffic: the runtime splits the rows into many chunks.
  CheckRowFused(Softmax(2048, 1024));
}

TEST(JitRowFusionTest, LayerNorm) { CheckRowFused(kLayerNorm); }

TEST(JitRowFusionTest, LogSumExpOverTwoTrailingDimensions) {
  CheckRowFused(kLogSumExp);
}

TEST(JitRowFusionTest, IntegerRows) { CheckRowFused(kIntegerRows); }

TEST(JitRowFusionTest, NanAndInfinityRows) {
  // A row with a NaN gives NaN everywhere; a row with +inf gives NaN where
  // inf - inf meets and 0 elsewhere; a row of -inf gives NaN (0/0).
  Compiled compiled = Prepare(Softmax(3, 4));
  float* x = compiled.arguments[0].data<float>().data();
  const float inf = std::numeric_limits<float>::infinity();
  x[1] = std::numeric_limits<float>::quiet_NaN();
  x[4 + 2] = inf;
  for (int i = 8; i < 12; ++i) x[i] = -inf;
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*compiled.module,
                                      Pointers(compiled.arguments)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*compiled.module));
  ASSERT_OK_AND_ASSIGN(Literal actual,
                       executable->Run(Pointers(compiled.arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, actual, 1e-5, 1e-6));
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(std::isnan(actual.data<float>()[i]),
              std::isnan(expected.data<float>()[i]))
        << i;
  }
}

}  // namespace
}  // namespace mxla
