// The skinny dot kernel (codegen/gemv_emitter.h): which dots take it (at
// most kGemvMaxRows lhs rows, rhs a view of a parameter with k or n
// contiguous) and its results against the interpreter on both rhs
// layouts, transposed, broadcast, reshaped and converted (bf16, f16)
// weights, batch dimensions, odd sizes around the vector width, epilogues,
// NaN and infinity, and seeded random skinny dots; 1, 2 and 3 threads
// giving the very same bits. A failure names the case and its HLO;
// MXLA_GEMV_SEED=<seed> reruns one random case.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/gemv_emitter.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::MakeSeededArguments;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAtThreadCounts;

// The dot kernels of the optimized module that take the skinny kernel.
int GemvKernels(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::unique_ptr<HloModule> fused =
      OptimizeForBackend(*module, CompileOptions{}).value();
  int count = 0;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    const FusionPlan* plan = instruction->fusion_plan();
    if (plan == nullptr || !plan->is_dot()) continue;
    const HloInstruction* dot = FusedDot(*instruction->to_apply());
    count += dot != nullptr &&
             codegen::TakesGemv(*dot, std::get<DotPlan>(plan->config));
  }
  return count;
}

// Runs `module` on `arguments` at 1, 2 and 3 threads: the same bits each
// time, within `tolerance` (absolute and relative) of the interpreter's.
void ExpectSameBitsNearTheInterpreter(const HloModule& module,
                                      const std::vector<Literal>& arguments,
                                      double tolerance = 1e-4) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(module, {}));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      RunAtThreadCounts(*executable, Pointers(arguments), {1, 2, 3}));
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(module, Pointers(arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, results[0], tolerance, tolerance));
}

void ExpectSameBitsNearTheInterpreter(const std::string& text, uint64_t seed) {
  SCOPED_TRACE(text);
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  ExpectSameBitsNearTheInterpreter(*module, MakeSeededArguments(*module, seed));
}

// ROOT d = dot(a, b).
std::string DotModule(const std::string& lhs, const std::string& rhs,
                      const std::string& result, const std::string& dims) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", lhs,
                      " parameter(0)\n  b = ", rhs, " parameter(1)\n  ROOT d = ",
                      result, " dot(a, b), ", dims, "\n}\n");
}

const char kKN[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
const char kNK[] = "lhs_contracting_dims={1}, rhs_contracting_dims={1}";

TEST(GemvTest, SkinnyDotsOfBothLayoutsMatchTheInterpreter) {
  struct Case {
    const char* lhs;
    const char* rhs;
    const char* result;
    const char* dims;
    bool skinny;
  };
  const char* batched =
      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={1}";
  const char* batched_nk =
      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={2}";
  const Case cases[] = {
      // rhs [k, n]: n contiguous; sizes around the vector and block edges.
      {"f32[1,300]", "f32[300,257]", "f32[1,257]", kKN, true},
      {"f32[3,17]", "f32[17,1030]", "f32[3,1030]", kKN, true},
      {"f32[2,1]", "f32[1,7]", "f32[2,7]", kKN, true},
      {"f32[4,33]", "f32[33,4100]", "f32[4,4100]", kKN, true},
      // Rows longer than a block of accumulators (8192 columns at 3 rows).
      {"f32[3,5]", "f32[5,8200]", "f32[3,8200]", kKN, true},
      {"f32[40]", "f32[40,70]", "f32[70]",
       "lhs_contracting_dims={0}, rhs_contracting_dims={0}", true},
      // rhs [n, k]: k contiguous (a transposed rhs), rows 4 at a time.
      {"f32[1,301]", "f32[257,301]", "f32[1,257]", kNK, true},
      {"f32[2,5]", "f32[7,5]", "f32[2,7]", kNK, true},
      {"f32[3,16]", "f32[9,16]", "f32[3,9]", kNK, true},
      {"f32[4,1000]", "f32[131,1000]", "f32[4,131]", kNK, true},
      // Batch dimensions.
      {"f32[3,2,65]", "f32[3,65,33]", "f32[3,2,33]", batched, true},
      {"f32[2,1,129]", "f32[2,70,129]", "f32[2,1,70]", batched_nk, true},
      // f64; eight rows, the most; nine rows: the packed kernel.
      {"f64[1,77]", "f64[77,45]", "f64[1,45]", kKN, true},
      {"f64[2,77]", "f64[45,77]", "f64[2,45]", kNK, true},
      {"f32[8,64]", "f32[64,70]", "f32[8,70]", kKN, true},
      {"f32[8,64]", "f32[70,64]", "f32[8,70]", kNK, true},
      {"f32[9,64]", "f32[64,70]", "f32[9,70]", kKN, false},
      // A tiny product of more than 4 rows keeps the small path.
      {"f32[8,8]", "f32[8,8]", "f32[8,8]", kKN, false},
      {"f32[4,8]", "f32[8,8]", "f32[4,8]", kKN, true},
      // lhs rows on the stack within 512 KiB, counted in their own type:
      // 8 f32 rows of 9,000 fit (a prompt's 8 tokens through a 9216-wide
      // projection), 8 f64 rows or 8 f32 rows of 17,000 do not.
      {"f32[8,9000]", "f32[9000,40]", "f32[8,40]", kKN, true},
      {"f64[8,9000]", "f64[9000,40]", "f64[8,40]", kKN, false},
      {"f32[8,17000]", "f32[40,17000]", "f32[8,40]", kNK, false},
  };
  for (const Case& c : cases) {
    const std::string text = DotModule(c.lhs, c.rhs, c.result, c.dims);
    EXPECT_EQ(GemvKernels(text), c.skinny ? 1 : 0) << text;
    ExpectSameBitsNearTheInterpreter(text, 7);
  }
}

// Attention's projections: several free dimensions of which only the
// innermost is contiguous (q = x . W[h, d, e], each head's columns a run),
// and several contracting dimensions in an order unlike rhs's (out =
// o[h, e] . W[h, e, d]).
TEST(GemvTest, SeveralFreeAndContractingDimensions) {
  ExpectSameBitsNearTheInterpreter(
      DotModule("f32[1,1,64]", "f32[4,64,33]", "f32[1,1,4,33]",
                "lhs_contracting_dims={2}, rhs_contracting_dims={1}"),
      3);
  const std::string out =
      DotModule("f32[1,1,8,32]", "f32[8,32,70]", "f32[1,1,70]",
                "lhs_contracting_dims={3,2}, rhs_contracting_dims={1,0}");
  EXPECT_EQ(GemvKernels(out), 1);
  ExpectSameBitsNearTheInterpreter(out, 4);
}

// The weights' producers are read through: converts from bf16 and f16
// (to f32 and f64), a transpose, a broadcast and a reshape of a parameter.
// A producer that computes (a multiply) leaves the dot to the packed
// kernel.
TEST(GemvTest, ConvertedTransposedAndBroadcastWeights) {
  struct Case {
    const char* weights;  // instructions from parameter w to wk, [k, n]
    int skinny;
  };
  const Case cases[] = {
      {"  w = bf16[300,131] parameter(1)\n"
       "  wk = f32[300,131] convert(w)\n", 1},
      {"  w = f16[131,300] parameter(1)\n"
       "  c = f32[131,300] convert(w)\n"
       "  wk = f32[300,131] transpose(c), dimensions={1,0}\n", 1},
      {"  w = bf16[131,300] parameter(1)\n"
       "  t = bf16[300,131] transpose(w), dimensions={1,0}\n"
       "  wk = f32[300,131] convert(t)\n", 1},
      {"  w = f32[300] parameter(1)\n"
       "  wk = f32[300,131] broadcast(w), dimensions={0}\n", 1},
      {"  w = f32[131,3,100] parameter(1)\n"
       "  r = f32[131,300] reshape(w)\n"
       "  wk = f32[300,131] transpose(r), dimensions={1,0}\n", 1},
      {"  w = f32[300,131] parameter(1)\n"
       "  s = f32[] constant(0.5)\n"
       "  sb = f32[300,131] broadcast(s), dimensions={}\n"
       "  wk = f32[300,131] multiply(w, sb)\n", 0},
  };
  for (const Case& c : cases) {
    for (const char* rows : {"1", "3"}) {
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n  x = f32[", rows, ",300] parameter(0)\n",
          c.weights, "  ROOT d = f32[", rows, ",131] dot(x, wk), ", kKN,
          "\n}\n");
      EXPECT_EQ(GemvKernels(text), c.skinny) << text;
      ExpectSameBitsNearTheInterpreter(text, 11);
    }
  }
  // f64 products of f32 and bf16 weights, widened exactly.
  for (const char* type : {"f32", "bf16"}) {
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = f64[2,90] parameter(0)\n  w = ", type,
        "[70,90] parameter(1)\n  wk = f64[70,90] convert(w)\n"
        "  ROOT d = f64[2,70] dot(x, wk), ", kNK, "\n}\n");
    EXPECT_EQ(GemvKernels(text), 1) << text;
    ExpectSameBitsNearTheInterpreter(text, 12);
  }
}

// A language model's head: x . E^T with a tanh soft-cap applied as each
// output is stored; and bias + ReLU, and a convert to bf16.
TEST(GemvTest, EpiloguesApplyPerOutput) {
  const std::string head =
      "HloModule m\nENTRY e {\n  x = f32[1,1,96] parameter(0)\n"
      "  emb = f32[1000,96] parameter(1)\n"
      "  t = f32[96,1000] transpose(emb), dimensions={1,0}\n"
      "  d = f32[1,1,1000] dot(x, t), lhs_contracting_dims={2}, "
      "rhs_contracting_dims={0}\n"
      "  c = f32[] constant(30)\n"
      "  cb = f32[1,1,1000] broadcast(c), dimensions={}\n"
      "  q = f32[1,1,1000] divide(d, cb)\n  h = f32[1,1,1000] tanh(q)\n"
      "  ROOT s = f32[1,1,1000] multiply(h, cb)\n}\n";
  const std::string relu =
      "HloModule m\nENTRY e {\n  x = f32[2,70] parameter(0)\n"
      "  w = f32[70,37] parameter(1)\n  b = f32[37] parameter(2)\n"
      "  d = f32[2,37] dot(x, w), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n"
      "  bb = f32[2,37] broadcast(b), dimensions={1}\n"
      "  s = f32[2,37] add(d, bb)\n  z = f32[] constant(0)\n"
      "  zb = f32[2,37] broadcast(z), dimensions={}\n"
      "  ROOT r = f32[2,37] maximum(s, zb)\n}\n";
  const std::string narrow =
      "HloModule m\nENTRY e {\n  x = f32[1,70] parameter(0)\n"
      "  w = f32[37,70] parameter(1)\n"
      "  d = f32[1,37] dot(x, w), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={1}\n  ROOT r = bf16[1,37] convert(d)\n}\n";
  for (const std::string& text : {head, relu, narrow}) {
    EXPECT_EQ(GemvKernels(text), 1) << text;
    ExpectSameBitsNearTheInterpreter(text, 5);
  }
}

TEST(GemvTest, NaNAndInfinity) {
  for (const char* dims : {kKN, kNK}) {
    const bool nk = dims == kNK;
    const std::string text = DotModule(
        "f32[3,70]", nk ? "f32[40,70]" : "f32[70,40]", "f32[3,40]", dims);
    std::unique_ptr<HloModule> module = ParseHloModule(text).value();
    std::vector<Literal> arguments = MakeSeededArguments(*module, 5);
    constexpr float kInf = std::numeric_limits<float>::infinity();
    arguments[0].data<float>()[0] = std::nanf("");  // row 0: NaN
    arguments[0].data<float>()[70 + 3] = kInf;       // row 1: +-inf or NaN
    // Column 5: -+inf (row 1: NaN where its +-inf meets it).
    arguments[1].data<float>()[nk ? 5 * 70 + 2 : 2 * 40 + 5] = -kInf;
    SCOPED_TRACE(text);
    ExpectSameBitsNearTheInterpreter(*module, arguments);
  }
}

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// One random skinny dot: x [b?, m, k] . w with w stored [b?, k, n] or
// [b?, n, k] (contracted as it is, or transposed by an op first), of f32,
// bf16 or f16 converted to f32 (or f64 weights into an f64 dot), maybe
// ending in tanh.
std::string RandomCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](auto... values) {
    const int64_t options[] = {values...};
    return options[rng() % sizeof...(values)];
  };
  const int64_t m = pick(1, 2, 3, 4);
  const int64_t n = pick(1, 3, 7, 16, 17, 33, 63, 100, 255, 257, 1030);
  const int64_t k = pick(1, 2, 5, 15, 16, 17, 31, 100, 257, 300);
  const int64_t batch = pick(0, 0, 1, 3);
  const bool n_minor = rng() % 2;       // w stored [k, n]
  const bool transpose_op = rng() % 3 == 0;
  const bool f64 = rng() % 5 == 0;
  const std::string type = f64 ? "f64" : "f32";
  const char* const weight_types[] = {"f32", "bf16", "f16"};
  const std::string stored = f64 ? "f64" : weight_types[rng() % 3];
  std::vector<int64_t> lead;
  if (batch > 0) lead.push_back(batch);
  const int64_t b = lead.size();
  auto with = [&](std::vector<int64_t> dims) {
    dims.insert(dims.begin(), lead.begin(), lead.end());
    return dims;
  };
  const std::vector<int64_t> w_dims = with(n_minor ? std::vector<int64_t>{k, n}
                                                   : std::vector<int64_t>{n, k});
  std::string text = absl::StrCat("HloModule random_gemv\nENTRY e {\n  x = ",
                                  type, Dims(with({m, k})),
                                  " parameter(0)\n  w = ", stored,
                                  Dims(w_dims), " parameter(1)\n  wc = ", type,
                                  Dims(w_dims), " convert(w)\n");
  // The operand the dot reads and its contracting dimension.
  std::string operand = "wc";
  int64_t contracting = n_minor ? b : b + 1;
  if (transpose_op) {
    std::vector<int64_t> permutation;
    for (int64_t d = 0; d < b; ++d) permutation.push_back(d);
    permutation.push_back(b + 1);
    permutation.push_back(b);
    absl::StrAppend(&text, "  wt = ", type,
                    Dims(with(n_minor ? std::vector<int64_t>{n, k}
                                      : std::vector<int64_t>{k, n})),
                    " transpose(wc), dimensions={",
                    absl::StrJoin(permutation, ","), "}\n");
    operand = "wt";
    contracting = n_minor ? b + 1 : b;
  }
  std::string dnums = batch > 0 ? "lhs_batch_dims={0}, rhs_batch_dims={0}, "
                                : "";
  absl::StrAppend(&dnums, "lhs_contracting_dims={", b + 1,
                  "}, rhs_contracting_dims={", contracting, "}");
  const std::string out = absl::StrCat(type, Dims(with({m, n})));
  if (rng() % 3 == 0) {
    absl::StrAppend(&text, "  d = ", out, " dot(x, ", operand, "), ", dnums,
                    "\n  ROOT t = ", out, " tanh(d)\n}\n");
  } else {
    absl::StrAppend(&text, "  ROOT d = ", out, " dot(x, ", operand, "), ",
                    dnums, "\n}\n");
  }
  return text;
}

TEST(GemvTest, RandomSkinnyDotsMatchTheInterpreter) {
  auto check = [](uint64_t seed) {
    const std::string text = RandomCase(seed);
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    EXPECT_EQ(GemvKernels(text), 1) << text;
    ExpectSameBitsNearTheInterpreter(text, seed);
  };
  if (const char* seed = std::getenv("MXLA_GEMV_SEED")) {
    check(std::strtoull(seed, nullptr, 10));
    return;
  }
  for (uint64_t seed = 0; seed < 60; ++seed) {
    check(seed);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace mxla
