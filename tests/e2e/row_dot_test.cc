// Row dots (DotPlan::rows, ir/fusion_plan.h): a dot whose readers form a
// row fusion over its columns (softmax of attention scores, log-sum-exp,
// a normalization of a layer's output) runs as one kernel that accumulates
// each unit's rows of the product in a stack block and runs the row phases
// on it, so the product never goes to memory. Checked here: which graphs
// take that form (and which keep two kernels), the plan (printed, parsed,
// checked), and the results against the interpreter at odd sizes, with
// k in several slices, batch dimensions and K^T, f64, tiny products, and
// 1, 2 or 3 threads giving the same bits.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::ErrorSpec;
using ::mxla::testing::MakeSeededArguments;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAtThreadCounts;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;
using ::mxla::testing::VerifyHloText;
using ::testing::HasSubstr;
using ::testing::Not;

const char kReducers[] =
    "HloModule m\n"
    "max {\n  a = $T[] parameter(0)\n  b = $T[] parameter(1)\n"
    "  ROOT r = $T[] maximum(a, b)\n}\n"
    "add {\n  a = $T[] parameter(0)\n  b = $T[] parameter(1)\n"
    "  ROOT r = $T[] add(a, b)\n}\n";

// softmax_rows(scale * dot(q, k)) per head: q [H,S,D], k [H,T,D] (K^T),
// scores [H,S,T], in element type `type`.
std::string Attention(int64_t heads, int64_t s, int64_t t, int64_t d,
                      const std::string& type = "f32") {
  const std::string scores = absl::StrCat(type, "[", heads, ",", s, ",", t, "]");
  const std::string rows = absl::StrCat(type, "[", heads, ",", s, "]");
  return absl::StrReplaceAll(
      absl::StrCat(
          kReducers, "ENTRY e {\n  q = $T[", heads, ",", s, ",", d,
          "] parameter(0)\n  k = $T[", heads, ",", t, ",", d,
          "] parameter(1)\n  p = ", scores,
          " dot(q, k), lhs_batch_dims={0}, rhs_batch_dims={0}, "
          "lhs_contracting_dims={2}, rhs_contracting_dims={2}\n"
          "  c = $T[] constant(0.125)\n  cb = ", scores,
          " broadcast(c), dimensions={}\n  x = ", scores,
          " multiply(p, cb)\n  ninf = $T[] constant(-inf)\n  m = ", rows,
          " reduce(x, ninf), dimensions={2}, to_apply=max\n  mb = ", scores,
          " broadcast(m), dimensions={0,1}\n  y = ", scores,
          " subtract(x, mb)\n  ey = ", scores,
          " exponential(y)\n  zero = $T[] constant(0)\n  s = ", rows,
          " reduce(ey, zero), dimensions={2}, to_apply=add\n  sb = ", scores,
          " broadcast(s), dimensions={0,1}\n  ROOT out = ", scores,
          " divide(ey, sb)\n}\n"),
      {{"$T", type}});
}

// log(sum(exp(x W))) per row: a root of row shape.
std::string LogSumExp(int64_t m, int64_t k, int64_t n) {
  return absl::StrReplaceAll(
      absl::StrCat(kReducers, "ENTRY e {\n  x = $T[", m, ",", k,
                   "] parameter(0)\n  w = $T[", k, ",", n,
                   "] parameter(1)\n  p = $T[", m, ",", n,
                   "] dot(x, w), lhs_contracting_dims={1}, "
                   "rhs_contracting_dims={0}\n  ninf = $T[] constant(-inf)\n"
                   "  mx = $T[", m, "] reduce(p, ninf), dimensions={1}, "
                   "to_apply=max\n  mb = $T[", m, ",", n,
                   "] broadcast(mx), dimensions={0}\n  y = $T[", m, ",", n,
                   "] subtract(p, mb)\n  ey = $T[", m, ",", n,
                   "] exponential(y)\n  zero = $T[] constant(0)\n  s = $T[",
                   m, "] reduce(ey, zero), dimensions={1}, to_apply=add\n"
                   "  ls = $T[", m, "] log(s)\n  ROOT out = $T[", m,
                   "] add(ls, mx)\n}\n"),
      {{"$T", "f32"}});
}

// A layer's output normalized per row: (y - mean) * rsqrt(var + eps) with
// y = x W + b.
std::string LayerNormOfLinear(int64_t m, int64_t k, int64_t n) {
  const std::string full = absl::StrCat("f32[", m, ",", n, "]");
  const std::string rows = absl::StrCat("f32[", m, "]");
  return absl::StrReplaceAll(
      absl::StrCat(
          kReducers, "ENTRY e {\n  x = f32[", m, ",", k,
          "] parameter(0)\n  w = f32[", k, ",", n,
          "] parameter(1)\n  b = f32[", n, "] parameter(2)\n  p = ", full,
          " dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
          "  bb = ", full, " broadcast(b), dimensions={1}\n  y = ", full,
          " add(p, bb)\n  zero = f32[] constant(0)\n  s = ", rows,
          " reduce(y, zero), dimensions={1}, to_apply=add\n"
          "  inv = f32[] constant(", 1.0 / n, ")\n  ib = ", rows,
          " broadcast(inv), dimensions={}\n  mean = ", rows,
          " multiply(s, ib)\n  mb = ", full,
          " broadcast(mean), dimensions={0}\n  c = ", full,
          " subtract(y, mb)\n  c2 = ", full, " multiply(c, c)\n  v = ", rows,
          " reduce(c2, zero), dimensions={1}, to_apply=add\n  vm = ", rows,
          " multiply(v, ib)\n  eps = f32[] constant(1e-5)\n  eb = ", rows,
          " broadcast(eps), dimensions={}\n  ve = ", rows,
          " add(vm, eb)\n  r = ", rows, " rsqrt(ve)\n  rb = ", full,
          " broadcast(r), dimensions={0}\n  ROOT out = ", full,
          " multiply(c, rb)\n}\n"),
      {{"$T", "f32"}});
}

std::unique_ptr<HloModule> Fused(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  return OptimizeForBackend(*module, CompileOptions{}).value();
}

// The one fusion of `fused`'s entry, or null if there are several.
const HloInstruction* OnlyFusion(const HloModule& fused) {
  const HloInstruction* found = nullptr;
  for (const HloInstruction* instruction :
       fused.entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    if (found != nullptr) return nullptr;
    found = instruction;
  }
  return found;
}

RunAndCompareOptions Close() {
  RunAndCompareOptions options;
  options.error = ErrorSpec{1e-4, 1e-4};
  return options;
}

TEST(RowDotTest, AttentionSoftmaxIsOneKernel) {
  std::unique_ptr<HloModule> fused = Fused(Attention(8, 512, 512, 64));
  const HloInstruction* kernel = OnlyFusion(*fused);
  ASSERT_NE(kernel, nullptr) << fused->ToString();
  EXPECT_EQ(kernel->fusion_kind(), FusionKind::kOutput);
  // A unit per head, in blocks of 60 rows of 512 floats (120 KiB); the exp
  // row buffered.
  ASSERT_NE(kernel->fusion_plan(), nullptr);
  EXPECT_THAT(kernel->fusion_plan()->ToString(),
              HasSubstr("{kind=dot, units=8, m_block=512, n_block=512, "
                        "k_block=64, row_block=60, rows={8,512}, columns={512}, "
                        "store=streaming, buffered={ey."));
  // The plan round-trips through text and is checked.
  const std::string text = fused->ToString();
  EXPECT_EQ(ParseHloModule(text).value()->ToString(), text);
  EXPECT_OK(VerifyHloText(text));
}

TEST(RowDotTest, PlansAreChecked) {
  const std::string text = Fused(Attention(2, 40, 50, 16))->ToString();
  ASSERT_THAT(text, HasSubstr("m_block=40, n_block=50")) << text;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    changed.replace(changed.find(from), from.size(), to);
    return std::string(VerifyHloText(changed).message());
  };
  EXPECT_THAT(with("n_block=50", "n_block=25"),
              HasSubstr("a row dot's unit has whole rows: n_block must be 50"));
  EXPECT_THAT(with("row_block=40", "row_block=41"),
              HasSubstr("row_block must be 1 to m_block"));
  EXPECT_THAT(with("m_block=40, n_block=50, k_block=16, row_block=40",
                   "m_block=1400, n_block=50, k_block=16, row_block=1400"),
              HasSubstr("row_block x n is 280000 bytes, over the 262144 of a "
                        "unit's block"));
  EXPECT_THAT(with("k_block=16", "k_block=8000"),
              HasSubstr("k_block x (n_block + 144) elements of packed "
                        "operands pass the 4194304 bytes of a kernel's "
                        "stack"));
  EXPECT_THAT(with("rows={2,40}, columns={50}", "rows={2}, columns={40,50}"),
              HasSubstr("does not reduce the columns"));
  EXPECT_THAT(with("rows={2,40}, ", ""),
              HasSubstr("a dot plan needs 'rows'"));
  const size_t rows = text.find(", row_block=");
  std::string plain = text;
  plain.erase(rows, text.find("}}", rows) + 1 - rows);
  EXPECT_THAT(std::string(VerifyHloText(plain).message()),
              HasSubstr("the root must be a dot, or a chain of elementwise "
                        "ops of its dimensions over one"));
  EXPECT_THAT(with("store=plain, ", ""), HasSubstr("a dot plan needs 'store'"));
}

// The product, its rows and the output agree with the interpreter around
// the edges: rows not a multiple of the micro-kernel's 6 or the unit's
// block, columns around its 64, k in several 256 slices, long rows with
// few rows per unit, batch dims with K^T, f64 and tiny products.
TEST(RowDotTest, MatchesTheInterpreter) {
  const std::string cases[] = {
      Attention(8, 128, 128, 64),    Attention(3, 17, 1023, 7),
      Attention(2, 1, 65, 300),      Attention(1, 61, 100, 520),
      Attention(2, 5, 3, 4),         Attention(2, 37, 70, 33, "f64"),
      LogSumExp(7, 256, 5000),       LogSumExp(100, 3, 129),
      LayerNormOfLinear(50, 96, 130),
  };
  for (const std::string& text : cases) {
    std::unique_ptr<HloModule> fused = Fused(text);
    const HloInstruction* kernel = OnlyFusion(*fused);
    ASSERT_NE(kernel, nullptr) << fused->ToString();
    EXPECT_THAT(kernel->ToString(), HasSubstr("kind=dot")) << text;
    EXPECT_THAT(kernel->ToString(), HasSubstr("rows={")) << text;
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

// Empty rows (n = 0) are no row dot: the dot and the reductions (which
// write their initial values: log-sum-exp of nothing is -inf) run as
// kernels of their own, and a plan that says otherwise is rejected. The
// differential fuzzer found the planner making one the checker refused.
TEST(RowDotTest, EmptyRowsAreNoRowDot) {
  for (const std::string& text :
       {LogSumExp(7, 5, 0), LogSumExp(100, 3, 0), Attention(2, 5, 0, 4)}) {
    std::unique_ptr<HloModule> fused = Fused(text);
    EXPECT_THAT(fused->ToString(), Not(HasSubstr("row_block="))) << text;
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
  std::string forced = Fused(LogSumExp(7, 5, 3))->ToString();
  ASSERT_THAT(forced, HasSubstr("rows={7}")) << forced;
  forced = absl::StrReplaceAll(forced, {{"f32[5,3]", "f32[5,0]"},
                                        {"f32[7,3]", "f32[7,0]"},
                                        {"n_block=3", "n_block=1"},
                                        {"columns={3}", "columns={0}"}});
  EXPECT_THAT(std::string(VerifyHloText(forced).message()),
              HasSubstr("a row dot needs columns: the dot's n is 0"))
      << forced;
}

// Where the dot keeps its own kernel: rows too long for a unit's block, a
// reader of the dot at other rows (a transpose), rows whose columns are
// only part of the dot's n, a large product whose few rows make one unit.
TEST(RowDotTest, TwoKernelsWhereNoRowDotFits) {
  const std::string transposed = absl::StrReplaceAll(
      LogSumExp(40, 30, 40),
      {{"  ninf = f32[] constant(-inf)\n",
        "  pt = f32[40,40] transpose(p), dimensions={1,0}\n"
        "  ninf = f32[] constant(-inf)\n"},
       {"reduce(p, ninf)", "reduce(pt, ninf)"},
       {"subtract(p, mb)", "subtract(pt, mb)"}});
  // The max of a product over one of its two rhs-free dimensions.
  const std::string part = absl::StrReplaceAll(kReducers, {{"$T", "f32"}}) +
      std::string(
      "ENTRY e {\n  x = f32[6,8] parameter(0)\n  w = f32[8,4,5] parameter(1)\n"
      "  p = f32[6,4,5] dot(x, w), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n  ninf = f32[] constant(-inf)\n"
      "  m = f32[6,4] reduce(p, ninf), dimensions={2}, to_apply=max\n"
      "  mb = f32[6,4,5] broadcast(m), dimensions={0,1}\n"
      "  ROOT y = f32[6,4,5] subtract(p, mb)\n}\n");
  // Few rows through a large product: a row dot would be one unit on one
  // thread (31 rows x 1024 x 640 is 20 M multiply-adds).
  const std::string lone_unit = LayerNormOfLinear(31, 1024, 640);
  for (const std::string& text :
       {LogSumExp(20, 8, 6000), transposed, part, lone_unit}) {
    std::unique_ptr<HloModule> fused = Fused(text);
    int kernels = 0;
    for (const HloInstruction* instruction :
         fused->entry_computation()->instructions()) {
      if (instruction->opcode() != HloOpcode::kFusion) continue;
      ++kernels;
      EXPECT_FALSE(instruction->fusion_plan()->is_dot() &&
                   instruction->fusion_plan()->ToString().find("rows=") !=
                       std::string::npos)
          << fused->ToString();
    }
    EXPECT_EQ(kernels, 2) << fused->ToString();
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

TEST(RowDotTest, ThreadCountsGiveTheSameBits) {
  const std::string text = Attention(3, 100, 200, 40);
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, 11);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, {}));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      RunAtThreadCounts(*executable, Pointers(arguments), {1, 2, 3}));
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

}  // namespace
}  // namespace mxla
