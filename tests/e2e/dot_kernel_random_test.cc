// Randomized dot kernels against the interpreter: seeded random products
// (sizes around the tile and block edges, batch dimensions, transposed
// operands, f32 and f64) followed by each form the dot kernel fuses (an
// epilogue: bias + ReLU, a scale, a residual add, tanh, a convert to bf16;
// or the rows of a row dot: softmax, log-sum-exp, centering by the row
// mean), run on 1 to 3 threads. A failure names the case and its HLO;
// MXLA_DOT_SEED=<seed> reruns one case.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/hlo_test_base.h"

namespace mxla {
namespace {

using ::mxla::testing::ErrorSpec;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;

enum class Tail {
  kNone, kBiasRelu, kScale, kResidual, kTanh, kConvert,  // epilogues
  kSoftmax, kLogSumExp, kCentered,                       // row dots
  kCount
};

bool IsRowForm(Tail tail) { return tail >= Tail::kSoftmax; }

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

struct Case {
  std::string text;
  std::string description;
};

// One random case: lhs [b?, m, k] or [b?, k, m], rhs [b?, k, n] or
// [b?, n, k], the product [b?, m, n] and `tail` after it.
Case MakeCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const int64_t sizes[] = {1, 2, 5, 6, 7, 13, 17, 48, 63, 64, 65, 97, 130};
  auto size = [&] { return sizes[uniform(0, std::size(sizes) - 1)]; };
  const int64_t m = size(), n = size();
  const int64_t k = uniform(0, 3) == 0 ? uniform(257, 300) : size();
  const int64_t batch = uniform(0, 2) == 0 ? uniform(1, 3) : 0;
  const bool lhs_transposed = uniform(0, 3) == 0;
  const bool rhs_transposed = uniform(0, 1) == 0;
  const std::string type = uniform(0, 3) == 0 ? "f64" : "f32";
  const Tail tail = static_cast<Tail>(uniform(0, int(Tail::kCount) - 1));

  std::vector<int64_t> lead;
  if (batch > 0) lead.push_back(batch);
  const int64_t b = lead.size();  // dimensions before m, k or n
  auto with = [&](std::vector<int64_t> dims) {
    dims.insert(dims.begin(), lead.begin(), lead.end());
    return dims;
  };
  const std::vector<int64_t> lhs = with(lhs_transposed ? std::vector<int64_t>{k, m}
                                                       : std::vector<int64_t>{m, k});
  const std::vector<int64_t> rhs = with(rhs_transposed ? std::vector<int64_t>{n, k}
                                                       : std::vector<int64_t>{k, n});
  const std::vector<int64_t> out = with({m, n});
  std::vector<int64_t> rows_dims = lead;
  rows_dims.push_back(m);
  const std::string full = type + Dims(out);
  const std::string rows = type + Dims(rows_dims);
  std::string leading;  // the rows' dimensions, as broadcast dimensions
  for (int64_t d = 0; d <= b; ++d) absl::StrAppend(&leading, d == 0 ? "" : ",", d);

  std::string text = absl::StrCat(
      "HloModule random_dot\n"
      "max {\n  a = $T[] parameter(0)\n  c = $T[] parameter(1)\n"
      "  ROOT r = $T[] maximum(a, c)\n}\n"
      "add {\n  a = $T[] parameter(0)\n  c = $T[] parameter(1)\n"
      "  ROOT r = $T[] add(a, c)\n}\n"
      "ENTRY e {\n  x = $T", Dims(lhs), " parameter(0)\n  w = $T", Dims(rhs),
      " parameter(1)\n");
  std::string dnums;
  if (batch > 0) dnums = "lhs_batch_dims={0}, rhs_batch_dims={0}, ";
  absl::StrAppend(&dnums, "lhs_contracting_dims={", lhs_transposed ? b : b + 1,
                  "}, rhs_contracting_dims={", rhs_transposed ? b + 1 : b, "}");
  const std::string product = absl::StrCat(full, " dot(x, w), ", dnums, "\n");
  // Softmax's and log-sum-exp's start: the row max mx, ey = exp(p - mx)
  // and its row sum s.
  const std::string exp_sum = absl::StrCat(
      "  ninf = $T[] constant(-inf)\n  mx = ", rows,
      " reduce(p, ninf), dimensions={", b + 1, "}, to_apply=max\n  mb = ",
      full, " broadcast(mx), dimensions={", leading, "}\n  y = ", full,
      " subtract(p, mb)\n  ey = ", full, " exponential(y)\n"
      "  zero = $T[] constant(0)\n  s = ", rows,
      " reduce(ey, zero), dimensions={", b + 1, "}, to_apply=add\n");
  switch (tail) {
    case Tail::kNone:
      absl::StrAppend(&text, "  ROOT p = ", product);
      break;
    case Tail::kBiasRelu:
      absl::StrAppend(&text, "  bias = $T[", n, "] parameter(2)\n  p = ", product,
                      "  bb = ", full, " broadcast(bias), dimensions={", b + 1,
                      "}\n  s = ", full, " add(p, bb)\n  z = $T[] constant(0)\n"
                      "  zb = ", full, " broadcast(z), dimensions={}\n"
                      "  ROOT out = ", full, " maximum(s, zb)\n");
      break;
    case Tail::kScale:
      absl::StrAppend(&text, "  p = ", product, "  c = $T[] constant(0.125)\n"
                      "  cb = ", full, " broadcast(c), dimensions={}\n"
                      "  ROOT out = ", full, " multiply(p, cb)\n");
      break;
    case Tail::kResidual:
      absl::StrAppend(&text, "  r = ", full, " parameter(2)\n  p = ", product,
                      "  ROOT out = ", full, " add(r, p)\n");
      break;
    case Tail::kTanh:
      absl::StrAppend(&text, "  p = ", product, "  ROOT out = ", full,
                      " tanh(p)\n");
      break;
    case Tail::kConvert:
      absl::StrAppend(&text, "  p = ", product, "  ROOT out = bf16", Dims(out),
                      " convert(p)\n");
      break;
    case Tail::kSoftmax:
      absl::StrAppend(&text, "  p = ", product, exp_sum, "  sb = ", full,
                      " broadcast(s), dimensions={", leading,
                      "}\n  ROOT out = ", full, " divide(ey, sb)\n");
      break;
    case Tail::kLogSumExp:
      absl::StrAppend(&text, "  p = ", product, exp_sum, "  ls = ", rows,
                      " log(s)\n  ROOT out = ", rows, " add(ls, mx)\n");
      break;
    case Tail::kCentered:
      absl::StrAppend(&text, "  p = ", product, "  zero = $T[] constant(0)\n"
                      "  s = ", rows, " reduce(p, zero), dimensions={", b + 1,
                      "}, to_apply=add\n  inv = $T[] constant(", 1.0 / n, ")\n"
                      "  ib = ", rows, " broadcast(inv), dimensions={}\n  mean = ",
                      rows, " multiply(s, ib)\n  mb = ", full,
                      " broadcast(mean), dimensions={", leading, "}\n"
                      "  ROOT out = ", full, " subtract(p, mb)\n");
      break;
    case Tail::kCount:
      break;
  }
  absl::StrAppend(&text, "}\n");
  text = absl::StrReplaceAll(text, {{"$T", type}});
  return {text, absl::StrCat("seed ", seed, ": ", type, " lhs ", Dims(lhs),
                             " rhs ", Dims(rhs), " tail ", int(tail))};
}

void CheckCase(uint64_t seed, ThreadPool& pool, int& row_dots) {
  const Case c = MakeCase(seed);
  std::unique_ptr<HloModule> module = ParseHloModule(c.text).value();
  std::unique_ptr<HloModule> fused =
      OptimizeForBackend(*module, CompileOptions{}).value();
  bool dot_kernel = false;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    const FusionPlan* plan = instruction->fusion_plan();
    if (plan == nullptr || !plan->is_dot()) continue;
    dot_kernel = true;
    row_dots += std::get<DotPlan>(plan->config).rows.has_value();
  }
  EXPECT_TRUE(dot_kernel) << c.description << "\n" << fused->ToString();
  RunAndCompareOptions options;
  options.error = ErrorSpec{1e-4, 1e-4};
  options.seed = seed;
  options.run.thread_pool = &pool;
  options.run.threads = 1 + static_cast<int>(seed % 3);
  EXPECT_TRUE(RunAndCompare(c.text, options)) << c.description << "\n"
                                               << c.text;
}

TEST(DotKernelRandomTest, MatchesTheInterpreter) {
  ThreadPool pool(3);
  int row_dots = 0;
  if (const char* seed = std::getenv("MXLA_DOT_SEED")) {
    CheckCase(std::strtoull(seed, nullptr, 10), pool, row_dots);
    return;
  }
  for (uint64_t seed = 0; seed < 120; ++seed) {
    CheckCase(seed, pool, row_dots);
    if (::testing::Test::HasFailure()) return;
  }
  // A third of the cases end in rows; most fit a row dot's block.
  EXPECT_GT(row_dots, 20);
}

}  // namespace
}  // namespace mxla
