// Ahead-of-time compilation of control flow (tests/testlib/aot_harness.h):
// while loops (tuple state, several shapes, nested, zero trips, a body
// whose kernels go through the caller's parallel_for), conditionals (pred
// and s32 indices, out-of-range s32 indices, inside loop bodies) and sorts
// (several operands, stability on duplicate keys, inner dimensions),
// compiled into an object that a C program links without mxla, and run
// against the interpreter; then XLA's loop, scan and sort modules from
// ../shared/real-hlo.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/literal.h"
#include "tests/testlib/aot_harness.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

namespace fs = std::filesystem;

using ::mxla::testing::ExpectMatchesInterpreter;
using ::mxla::testing::SeededArguments;
using ::testing::HasSubstr;

// Parses `hlo` and compares the object with the interpreter on seeded
// arguments (with `overrides` replacing the leading ones).
std::string Check(const std::string& name, const std::string& hlo,
                  std::vector<Literal> overrides = {}, double tolerance = 1e-4,
                  int threads = 2) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_OK(module.status()) << name;
  if (!module.ok()) return "";
  std::vector<Literal> arguments =
      SeededArguments(*(*module)->entry_computation());
  for (size_t i = 0; i < overrides.size(); ++i) {
    arguments[i] = std::move(overrides[i]);
  }
  return ExpectMatchesInterpreter(name, hlo, arguments, "", threads, tolerance);
}

// s32 state i, f32 state acc and x: acc = acc * 0.5 + x, n times.
std::string CountedLoop(const std::string& shape) {
  return absl::StrReplaceAll(R"(HloModule counted
cond {
  s = (s32[], SHAPE, SHAPE) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], SHAPE, SHAPE) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = SHAPE get-tuple-element(s), index=1
  x = SHAPE get-tuple-element(s), index=2
  half = f32[] constant(0.5)
  hb = SHAPE broadcast(half), dimensions={}
  scaled = SHAPE multiply(acc, hb)
  next_acc = SHAPE add(scaled, x)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT r = (s32[], SHAPE, SHAPE) tuple(next_i, next_acc, x)
}
ENTRY main {
  x = SHAPE parameter(0)
  start = s32[] parameter(1)
  zero = f32[] constant(0)
  acc = SHAPE broadcast(zero), dimensions={}
  init = (s32[], SHAPE, SHAPE) tuple(start, acc, x)
  loop = (s32[], SHAPE, SHAPE) while(init), condition=cond, body=body
  i = s32[] get-tuple-element(loop), index=0
  out = SHAPE get-tuple-element(loop), index=1
  ROOT r = (s32[], SHAPE, SHAPE) tuple(i, out, x)
})",
                             {{"SHAPE", shape}});
}

TEST(AotControlFlowTest, LoopsWithTupleStateOfSeveralShapes) {
  for (const char* shape : {"f32[]", "f32[7]", "f32[33,65]", "f32[2,3,4]"}) {
    SCOPED_TRACE(shape);
    // From 0: five trips; from 9: none (the state is the initial value).
    for (int start : {0, 9}) {
      std::vector<Literal> overrides;
      absl::StatusOr<std::unique_ptr<HloModule>> module =
          ParseHloModule(CountedLoop(shape));
      ASSERT_OK(module.status());
      overrides.push_back(
          Literal(SeededArguments(*(*module)->entry_computation())[0]));
      overrides.push_back(LiteralUtil::CreateR0<int32_t>(start));
      Check(absl::StrCat("counted_", start), CountedLoop(shape),
            std::move(overrides));
    }
  }
}

TEST(AotControlFlowTest, LoopBodyKernelsGoThroughTheCallersParallelFor) {
  const std::string stdout_text =
      Check("wide_loop", CountedLoop("f32[512,1024]"), {}, 1e-4, 3);
  // Five trips of the body's large kernel, at least.
  EXPECT_THAT(stdout_text, ::testing::ContainsRegex("parallel_calls=([5-9]|"
                                                    "[1-9][0-9])"));
}

TEST(AotControlFlowTest, NestedLoops) {
  // The outer loop runs n trips; each runs an inner loop of i + 1 trips
  // that adds x to a vector; the outer state holds the inner loop's result.
  Check("nested", R"(HloModule nested
inner_cond {
  s = (s32[], s32[], f32[6], f32[6]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  limit = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(j, limit), direction=LE
}
inner_body {
  s = (s32[], s32[], f32[6], f32[6]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  limit = s32[] get-tuple-element(s), index=1
  v = f32[6] get-tuple-element(s), index=2
  x = f32[6] get-tuple-element(s), index=3
  one = s32[] constant(1)
  nj = s32[] add(j, one)
  nv = f32[6] add(v, x)
  ROOT r = (s32[], s32[], f32[6], f32[6]) tuple(nj, limit, nv, x)
}
outer_cond {
  s = (s32[], s32[], f32[6], f32[6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
outer_body {
  s = (s32[], s32[], f32[6], f32[6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  v = f32[6] get-tuple-element(s), index=2
  x = f32[6] get-tuple-element(s), index=3
  zero = s32[] constant(0)
  init = (s32[], s32[], f32[6], f32[6]) tuple(zero, i, v, x)
  inner = (s32[], s32[], f32[6], f32[6]) while(init), condition=inner_cond, body=inner_body
  nv = f32[6] get-tuple-element(inner), index=2
  tenth = f32[] constant(0.1)
  tb = f32[6] broadcast(tenth), dimensions={}
  scaled = f32[6] multiply(nv, tb)
  one = s32[] constant(1)
  ni = s32[] add(i, one)
  ROOT r = (s32[], s32[], f32[6], f32[6]) tuple(ni, n, scaled, x)
}
ENTRY main {
  x = f32[6] parameter(0)
  n = s32[] parameter(1)
  zero = s32[] constant(0)
  v = f32[6] broadcast(f32[] constant(1)), dimensions={}
  init = (s32[], s32[], f32[6], f32[6]) tuple(zero, n, v, x)
  loop = (s32[], s32[], f32[6], f32[6]) while(init), condition=outer_cond, body=outer_body
  ROOT v2 = f32[6] get-tuple-element(loop), index=2
})",
        [] {
          std::vector<Literal> overrides;
          overrides.push_back(LiteralUtil::CreateR1<float>(
              {1.5f, -2.f, 0.25f, 3.f, -0.5f, 7.f}));
          overrides.push_back(LiteralUtil::CreateR0<int32_t>(4));
          return overrides;
        }());
}

// Branch k of a three-way conditional on s32 `index`, branch 0 and 1 on
// pred `flag`, with operands of different shapes and a tuple operand.
constexpr char kConditionals[] = R"(HloModule conditionals
double {
  p = f32[5] parameter(0)
  ROOT d = f32[5] add(p, p)
}
negate {
  p = (f32[5], f32[]) parameter(0)
  v = f32[5] get-tuple-element(p), index=0
  s = f32[] get-tuple-element(p), index=1
  sb = f32[5] broadcast(s), dimensions={}
  ROOT n = f32[5] subtract(sb, v)
}
first {
  p = f32[3] parameter(0)
  f = f32[1] slice(p), slice={[0:1]}
  ROOT b = f32[5] broadcast(f32[] reshape(f)), dimensions={}
}
sin {
  p = f32[5] parameter(0)
  ROOT s = f32[5] sine(p)
}
cos {
  p = f32[5] parameter(0)
  ROOT c = f32[5] cosine(p)
}
ENTRY main {
  index = s32[] parameter(0)
  flag = pred[] parameter(1)
  x = f32[5] parameter(2)
  y = f32[3] parameter(3)
  s = f32[] parameter(4)
  t = (f32[5], f32[]) tuple(x, s)
  c3 = f32[5] conditional(index, x, t, y), branch_computations={double, negate, first}
  c2 = f32[5] conditional(flag, x, x), true_computation=sin, false_computation=cos
  ROOT r = (f32[5], f32[5]) tuple(c3, c2)
})";

TEST(AotControlFlowTest, ConditionalsOnPredAndS32IndicesClampLikeXla) {
  // Out of range (negative or too large) runs the last branch, as XLA's.
  const std::vector<std::pair<int, bool>> cases = {
      {0, true}, {1, false},  {2, true},   {3, false},
      {7, true}, {-1, false}, {-100, true}};
  for (const auto& [index, flag] : cases) {
    SCOPED_TRACE(absl::StrCat("index ", index, " flag ", flag));
    std::vector<Literal> overrides;
    overrides.push_back(LiteralUtil::CreateR0<int32_t>(index));
    overrides.push_back(LiteralUtil::CreateR0<bool>(flag));
    Check(absl::StrCat("cond_", index < 0 ? "m" : "", std::abs(index)),
          kConditionals, std::move(overrides));
  }
}

TEST(AotControlFlowTest, LoopBodyHoldingAConditional) {
  // Trip i takes branch i - 1 of three: -1 and >= 3 take the last.
  Check("loop_cond", R"(HloModule loop_cond
add_x {
  p = (f32[4], f32[4]) parameter(0)
  v = f32[4] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  ROOT a = f32[4] add(v, x)
}
times_x {
  p = (f32[4], f32[4]) parameter(0)
  v = f32[4] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  ROOT m = f32[4] multiply(v, x)
}
halve {
  p = (f32[4], f32[4]) parameter(0)
  v = f32[4] get-tuple-element(p), index=0
  h = f32[4] broadcast(f32[] constant(0.5)), dimensions={}
  ROOT m = f32[4] multiply(v, h)
}
cond {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(6)), direction=LT
}
body {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4] get-tuple-element(s), index=1
  x = f32[4] get-tuple-element(s), index=2
  k = s32[] subtract(i, s32[] constant(1))
  operand = (f32[4], f32[4]) tuple(v, x)
  nv = f32[4] conditional(k, operand, operand, operand), branch_computations={add_x, times_x, halve}
  ni = s32[] add(i, s32[] constant(1))
  ROOT r = (s32[], f32[4], f32[4]) tuple(ni, nv, x)
}
ENTRY main {
  x = f32[4] parameter(0)
  v = f32[4] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(zero, v, x)
  loop = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
})");
}

// Sorts of one, two and three operands, along the last, first and middle
// dimension, ascending and descending, with ties broken by a second key:
// many duplicate keys (seeded integers are in [0, 17)), so a sort that is
// not stable, or that compares the wrong elements, differs.
TEST(AotControlFlowTest, SortsAreStableOverSeveralOperandsAndDimensions) {
  Check("sort_pairs", R"(HloModule sort_pairs
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  k = s32[16,33] parameter(0)
  v = f32[16,33] parameter(1)
  ROOT s = (s32[16,33], f32[16,33]) sort(k, v), dimensions={1}, to_apply=less, is_stable=true
})");
  Check("sort_middle", R"(HloModule sort_middle
greater {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = f32[5,70,3] parameter(0)
  ROOT s = f32[5,70,3] sort(x), dimensions={1}, to_apply=greater
})");
  // Lexicographic on (k0, k1), carrying an s8 payload; along dimension 0.
  Check("sort_lexicographic", R"(HloModule sort_lexicographic
lex {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = u16[] parameter(2)
  d = u16[] parameter(3)
  e = s8[] parameter(4)
  f = s8[] parameter(5)
  lt = pred[] compare(a, b), direction=LT
  eq = pred[] compare(a, b), direction=EQ
  lt2 = pred[] compare(c, d), direction=LT
  tie = pred[] and(eq, lt2)
  ROOT r = pred[] or(lt, tie)
}
ENTRY main {
  k0 = s32[129,4] parameter(0)
  k1 = u16[129,4] parameter(1)
  p = s8[129,4] parameter(2)
  ROOT s = (s32[129,4], u16[129,4], s8[129,4]) sort(k0, k1, p), dimensions={0}, to_apply=lex, is_stable=true
})");
}

// NaNs and signed zeros under a TOTALORDER comparator (as JAX writes
// them): -NaN < -inf < ... < -0 < +0 < ... < +inf < NaN.
TEST(AotControlFlowTest, TotalOrderSortPlacesNansAndSignedZeros) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Literal> overrides;
  overrides.push_back(LiteralUtil::CreateR1<float>(
      {nan, 1.f, -0.f, 0.f, -inf, -nan, 0.f, -0.f, inf, -2.5f, nan, 1.f}));
  Check("sort_total", R"(HloModule sort_total
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY main {
  x = f32[12] parameter(0)
  iota = s32[12] iota(), iota_dimension=0
  s = (f32[12], s32[12]) sort(x, iota), dimensions={0}, to_apply=less, is_stable=true
  ROOT i = s32[12] get-tuple-element(s), index=1
})",
        std::move(overrides), 0);
}

// ../shared/real-hlo/modules, found from the source directory upwards
// (the checkout's sibling), or MXLA_REAL_HLO; empty when absent.
std::string RealHloModules() {
  if (const char* dir = std::getenv("MXLA_REAL_HLO")) return dir;
  for (fs::path dir = MXLA_SOURCE_DIR;; dir = dir.parent_path()) {
    const fs::path modules = dir / "shared" / "real-hlo" / "modules";
    if (fs::is_directory(modules)) return modules.string();
    if (dir == dir.parent_path()) return "";
  }
}

// With `replacements` (text -> text) applied to each module's text first.
void CheckRealModules(
    const std::vector<std::string>& names, double tolerance,
    const std::vector<std::pair<std::string, std::string>>& replacements =
        {}) {
  const std::string dir = RealHloModules();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/real-hlo/modules";
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    std::ifstream in(absl::StrCat(dir, "/", names[i], ".hlo"));
    ASSERT_TRUE(in.good()) << names[i];
    std::stringstream text;
    text << in.rdbuf();
    Check(absl::StrCat("real_", i),
          absl::StrReplaceAll(text.str(), replacements), {}, tolerance);
  }
}

TEST(AotControlFlowTest, XlaLoopAndScanModules) {
  // (while__3 and while__4 do not verify; while__7 calls a custom-call.)
  CheckRealModules({"diffrax.b380012920__1", "while__6",
                    "scan_expander_test__6", "scan_rewriter_test__5",
                    "scan_rewriter_test__7",
                    "scan_loop_accumulator_input_unification_test__6",
                    "scan_loop_accumulator_input_unification_test__7"},
                   1e-4);
}

// XLA's sort benchmarks on 8 of their 1,024 rows (rows sort alone; the
// row lengths, 4,096 and 512, are theirs): the interpreter's reference
// sort of every row took most of this suite's time.
TEST(AotControlFlowTest, XlaSortModules) {
  CheckRealModules(
      {"sort_full_1024x4096_bf16__1", "argsort_axis_1024x512_bf16__1"}, 0,
      {{"[1024,4096]", "[8,4096]"}, {"[1024,512", "[8,512"}});
}

}  // namespace
}  // namespace mxla
