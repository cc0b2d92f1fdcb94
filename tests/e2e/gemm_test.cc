// The JIT's matrix-product kernel (codegen/gemm_emitter.h): which dots it
// takes (entry dots, all f32 or all f64, with reassociation allowed), its
// plan and the plan's checks, the epilogues fused into it (and where they
// are not), and its results against the interpreter on
// every dimension-number form: odd sizes around the tile and block edges,
// batch dimensions, transposed operands, several contracting dimensions,
// zero-size dimensions, NaN and infinity, and 1, 2 or 3 threads giving the
// very same bits.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "codegen/compiler.h"
#include "codegen/gemm_emitter.h"
#include "codegen/llvm_pipeline.h"
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

// ROOT d = dot(a, b) with the given shapes and dimension numbers.
std::string DotModule(const std::string& lhs, const std::string& rhs,
                      const std::string& result,
                      const std::string& dimension_numbers) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", lhs,
                      " parameter(0)\n  b = ", rhs, " parameter(1)\n  ROOT d = ",
                      result, " dot(a, b), ", dimension_numbers, "\n}\n");
}

const char kMatmul[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";

std::unique_ptr<HloModule> Fused(const std::string& text,
                                 const CompileOptions& options = {}) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  return OptimizeForBackend(*module, options).value();
}

// The products round with fused multiply-adds: within rounding of the
// interpreter's multiply-then-add.
RunAndCompareOptions Close() {
  RunAndCompareOptions options;
  options.error = ErrorSpec{1e-4, 1e-4};
  return options;
}

TEST(GemmTest, FloatEntryDotsBecomeDotKernels) {
  std::unique_ptr<HloModule> fused =
      Fused(DotModule("f32[37,53]", "f32[53,71]", "f32[37,71]", kMatmul));
  const HloInstruction* root = fused->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->fusion_kind(), FusionKind::kOutput);
  EXPECT_EQ(root->to_apply()->root_instruction()->opcode(), HloOpcode::kDot);
  ASSERT_NE(root->fusion_plan(), nullptr);
  EXPECT_EQ(root->fusion_plan()->ToString(),
            "{kind=dot, units=1, m_block=37, n_block=71, k_block=53}");
  // The plan round-trips through text and is checked against the dot.
  const std::string text = fused->ToString();
  EXPECT_EQ(ParseHloModule(text).value()->ToString(), text);
  std::string wrong = text;
  wrong.replace(wrong.find("units=1"), 7, "units=2");
  EXPECT_THAT(VerifyHloText(wrong).message(),
              HasSubstr("units must be 1 (batch 1 x m blocks x n blocks)"));

  // Integer dots, and any dot without reassociation, stay reductions (bit
  // for bit the interpreter's order); 16-bit float ones are computed in
  // f32 by the kernel (tests below).
  std::unique_ptr<HloModule> integer = Fused(
      DotModule("s32[4,5]", "s32[5,6]", "s32[4,6]", kMatmul));
  EXPECT_THAT(integer->ToString(), Not(HasSubstr("kind=dot")));
  CompileOptions exact;
  exact.codegen.reassociate_reductions = false;
  EXPECT_THAT(Fused(DotModule("f32[4,5]", "f32[5,6]", "f32[4,6]", kMatmul),
                    exact)
                  ->ToString(),
              Not(HasSubstr("kind=dot")));
}

// Loop bodies and conditional branches are compiled as programs of their
// own, and their dots stay dots for the kernel (a decode step's
// matrix-vector products live in a while body), as the entry's do.
constexpr char kDotsInControlFlow[] = R"(HloModule m
cond {
  s = (s32[], f32[3,64], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3,64], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[3,64] get-tuple-element(s), index=1
  w = f32[64,64] get-tuple-element(s), index=2
  d = f32[3,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[3,64] tanh(d)
  ROOT next = (s32[], f32[3,64], f32[64,64]) tuple(j, t, w)
}
branch {
  p = (f32[3,64], f32[64,64]) parameter(0)
  a = f32[3,64] get-tuple-element(p), index=0
  b = f32[64,64] get-tuple-element(p), index=1
  ROOT d = f32[3,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
other {
  p = (f32[3,64], f32[64,64]) parameter(0)
  ROOT a = f32[3,64] get-tuple-element(p), index=0
}
ENTRY e {
  x = f32[3,64] parameter(0)
  w = f32[64,64] parameter(1)
  k = s32[] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[3,64], f32[64,64]) tuple(zero, x, w)
  loop = (s32[], f32[3,64], f32[64,64]) while(init), condition=cond, body=body
  y = f32[3,64] get-tuple-element(loop), index=1
  operands = (f32[3,64], f32[64,64]) tuple(y, w)
  ROOT c = f32[3,64] conditional(k, operands, operands), branch_computations={branch, other}
})";

TEST(GemmTest, DotsInLoopBodiesAndBranchesStayDots) {
  std::unique_ptr<HloModule> fused = Fused(kDotsInControlFlow);
  int64_t programs_with_dots = 0;
  for (const HloComputation* computation : fused->computations()) {
    if (computation == fused->entry_computation()) continue;
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kDot) {
        ++programs_with_dots;
        break;
      }
    }
  }
  EXPECT_EQ(programs_with_dots, 2) << fused->ToString();
  std::unique_ptr<HloModule> module =
      ParseHloModule(kDotsInControlFlow).value();
  for (int32_t branch : {0, 1}) {
    std::vector<Literal> arguments = MakeSeededArguments(*module, 5);
    arguments[2] = LiteralUtil::CreateR0<int32_t>(branch);
    RunAndCompareOptions options = Close();
    EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments), options));
  }
}

// bf16 and f16 dots, and mixed ones with f32, run on the dot kernel as
// XLA:CPU runs them: operands converted to f32 as they are packed, sums in
// f32, the result rounded once. One kernel reads the 16-bit operands.
TEST(GemmTest, SixteenBitDotsRunOnTheKernelInF32) {
  struct Case {
    const char* lhs;
    const char* rhs;
    const char* result;
  };
  const Case cases[] = {
      {"bf16[37,300]", "bf16[300,70]", "bf16[37,70]"},
      {"f16[20,64]", "f16[64,33]", "f16[20,33]"},
      {"bf16[16,128]", "f32[128,40]", "f32[16,40]"},
      {"f32[9,50]", "bf16[50,24]", "bf16[9,24]"},
      {"bf16[3,17,64]", "bf16[3,64,19]", "f32[3,17,19]"},
  };
  for (const Case& c : cases) {
    const bool batched = absl::string_view(c.lhs).find(",") !=
                         absl::string_view(c.lhs).rfind(",");
    const std::string text = DotModule(
        c.lhs, c.rhs, c.result,
        batched ? "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                  "rhs_batch_dims={0}, rhs_contracting_dims={1}"
                : kMatmul);
    std::unique_ptr<HloModule> fused = Fused(text);
    int fusions = 0;
    for (const HloInstruction* instruction :
         fused->entry_computation()->instructions()) {
      fusions += instruction->opcode() == HloOpcode::kFusion;
    }
    EXPECT_THAT(fused->ToString(), HasSubstr("kind=dot")) << text;
    EXPECT_EQ(fusions, 1) << fused->ToString();
    // Within one rounding of the result type.
    RunAndCompareOptions options = Close();
    options.error = ErrorSpec{1e-2, 1e-2};
    EXPECT_TRUE(RunAndCompare(text, options)) << text;
  }
}

TEST(GemmTest, EveryDimensionNumberFormMatchesTheInterpreter) {
  struct Case {
    const char* lhs;
    const char* rhs;
    const char* result;
    const char* dims;
  };
  const Case cases[] = {
      // Sizes around the tile (6 x 64 or 6 x 16) and block edges.
      {"f32[1,1]", "f32[1,1]", "f32[1,1]", kMatmul},
      {"f32[7,17]", "f32[17,1]", "f32[7,1]", kMatmul},
      {"f32[13,300]", "f32[300,65]", "f32[13,65]", kMatmul},
      {"f32[150,513]", "f32[513,130]", "f32[150,130]", kMatmul},
      {"f32[5,1023]", "f32[1023,3]", "f32[5,3]", kMatmul},
      // Matrix-vector and vector-matrix.
      {"f32[33,40]", "f32[40]", "f32[33]",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"f32[40]", "f32[40,70]", "f32[70]",
       "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
      // Transposed operands: rhs [n, k] (attention's K^T), lhs [k, m].
      {"f32[20,64]", "f32[48,64]", "f32[20,48]",
       "lhs_contracting_dims={1}, rhs_contracting_dims={1}"},
      {"f32[64,20]", "f32[64,48]", "f32[20,48]",
       "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
      // Batch dimensions, in any position, and two contracting dimensions.
      {"f32[3,9,16]", "f32[3,16,70]", "f32[3,9,70]",
       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}"},
      {"f32[9,3,16]", "f32[16,70,3]", "f32[3,9,70]",
       "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={2}, "
       "rhs_contracting_dims={0}"},
      {"f32[4,5,6,7]", "f32[6,7,8]", "f32[4,5,8]",
       "lhs_contracting_dims={2,3}, rhs_contracting_dims={0,1}"},
      // An outer product (no contraction) and f64.
      {"f32[10,1]", "f32[1,90]", "f32[10,90]", kMatmul},
      {"f64[31,77]", "f64[77,45]", "f64[31,45]", kMatmul},
  };
  for (const Case& c : cases) {
    const std::string text = DotModule(c.lhs, c.rhs, c.result, c.dims);
    EXPECT_THAT(Fused(text)->ToString(), HasSubstr("kind=dot")) << text;
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

TEST(GemmTest, ZeroSizesNaNAndInfinity) {
  // Empty m or n: nothing to compute; empty k: zeros.
  EXPECT_TRUE(RunAndCompare(
      DotModule("f32[0,5]", "f32[5,4]", "f32[0,4]", kMatmul), Close()));
  EXPECT_TRUE(RunAndCompare(
      DotModule("f32[3,0]", "f32[0,4]", "f32[3,4]", kMatmul), Close()));
  EXPECT_TRUE(RunAndCompare(
      DotModule("f32[3,5]", "f32[5,0]", "f32[3,0]", kMatmul), Close()));
  EXPECT_TRUE(RunAndCompare(
      DotModule("f32[0,4]", "f32[0,4,2,0]", "f32[0,2,0]",
                "lhs_batch_dims={0}, lhs_contracting_dims={1}, "
                "rhs_batch_dims={0}, rhs_contracting_dims={1}"),
      Close()));
  const std::string text =
      DotModule("f32[3,70]", "f32[70,40]", "f32[3,40]", kMatmul);
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, 5);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  arguments[0].data<float>()[0] = std::nanf("");  // row 0: NaN
  arguments[0].data<float>()[70 + 3] = kInf;       // row 1: +-inf or NaN
  arguments[1].data<float>()[2 * 40 + 5] = -kInf;  // column 5: -+inf
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments), Close()));
}

// Runs `text` on seeded arguments at 1, 2 and 3 threads: the same bits
// each time, near the interpreter's.
void ExpectSameBitsAtEveryThreadCount(const std::string& text, int seed) {
  SCOPED_TRACE(text);
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, seed);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, {}));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      RunAtThreadCounts(*executable, Pointers(arguments), {1, 2, 3}));
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  EXPECT_OK(LiteralUtil::Near(expected, results[0], 1e-4, 1e-4));
}

// Every output element is computed by one unit in one order: 1, 2 and 3
// threads give the same bits.
TEST(GemmTest, ThreadCountsGiveTheSameBits) {
  const std::string text =
      DotModule("f32[300,257]", "f32[257,700]", "f32[300,700]", kMatmul);
  EXPECT_THAT(Fused(text)->ToString(), HasSubstr("kind=dot, units=9"));
  ExpectSameBitsAtEveryThreadCount(text, 9);
}

// Each thread's units take their k slices in order and pack the next
// slice's rhs block while the current one's tiles run (across k slices, units
// and a last, narrower n block), and a last panel of m % 6 rows reads lhs in
// place: any split over threads gives the bits of one thread, near the
// interpreter's.
// A dot of few rows (a transformer's sequence of 128) with too few column
// blocks for the units splits its columns finer rather than its rows, so
// that the weights are packed once; many rows still split the rows.
TEST(GemmTest, FewRowsSplitTheColumns) {
  EXPECT_THAT(Fused(DotModule("f32[128,3072]", "f32[3072,768]",
                              "f32[128,768]", kMatmul))
                  ->ToString(),
              HasSubstr("units=6, m_block=128, n_block=128, k_block=256"));
  EXPECT_THAT(Fused(DotModule("f32[1024,3072]", "f32[3072,768]",
                              "f32[1024,768]", kMatmul))
                  ->ToString(),
              HasSubstr("units=9, m_block=348, n_block=256, k_block=256"));
  ExpectSameBitsAtEveryThreadCount(
      DotModule("f32[100,700]", "f32[700,300]", "f32[100,300]", kMatmul), 4);
}

TEST(GemmTest, PipelinedPackingAndPartialRowPanels) {
  const std::string batched = DotModule(
      "f32[3,97,600]", "f32[3,600,130]", "f32[3,97,130]",
      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={1}");
  const std::string epilogue = absl::StrCat(
      "HloModule m\nENTRY e {\n  x = f32[301,1024] parameter(0)\n"
      "  w = f32[1024,200] parameter(1)\n  b = f32[200] parameter(2)\n"
      "  d = f32[301,200] dot(x, w), ", kMatmul, "\n"
      "  bb = f32[301,200] broadcast(b), dimensions={1}\n"
      "  s = f32[301,200] add(d, bb)\n  z = f32[] constant(0)\n"
      "  zb = f32[301,200] broadcast(z), dimensions={}\n"
      "  ROOT r = f32[301,200] maximum(s, zb)\n}\n");
  // Few rows: each unit takes all 97, and the columns split into 64, 64
  // and 2, so that rhs is packed once.
  EXPECT_THAT(Fused(batched)->ToString(),
              HasSubstr("units=9, m_block=97, n_block=64, k_block=256"));
  EXPECT_THAT(Fused(epilogue)->ToString(),
              HasSubstr("units=8, m_block=156, n_block=64, k_block=1024"));
  ExpectSameBitsAtEveryThreadCount(batched, 3);
  ExpectSameBitsAtEveryThreadCount(epilogue, 3);
}

// Weights stored [n, k] (k contiguous, as a PyTorch Linear keeps them) are
// packed by in-register transposes of whole blocks of steps, the rest of a
// share and a last padded panel element by element: across odd n and k,
// several k slices and pipelined shares, batch dimensions, f64's 8 lanes,
// narrow tiles and an epilogue, any thread count gives the bits of one,
// near the interpreter's.
TEST(GemmTest, TransposedWeightsMatchTheInterpreter) {
  const char* transposed =
      "lhs_contracting_dims={1}, rhs_contracting_dims={1}";
  const char* batched =
      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={2}";
  const std::string cases[] = {
      DotModule("f32[31,1000]", "f32[200,1000]", "f32[31,200]", transposed),
      DotModule("f32[100,37]", "f32[130,37]", "f32[100,130]", transposed),
      DotModule("f32[13,600]", "f32[1030,600]", "f32[13,1030]", transposed),
      DotModule("f32[2,40,300]", "f32[2,70,300]", "f32[2,40,70]", batched),
      DotModule("f64[20,333]", "f64[90,333]", "f64[20,90]", transposed),
      DotModule("f32[50,300]", "f32[24,300]", "f32[50,24]", transposed),
      absl::StrCat(
          "HloModule m\nENTRY e {\n  x = f32[40,520] parameter(0)\n"
          "  w = f32[150,520] parameter(1)\n  b = f32[150] parameter(2)\n"
          "  d = f32[40,150] dot(x, w), ", transposed, "\n"
          "  bb = f32[40,150] broadcast(b), dimensions={1}\n"
          "  ROOT s = f32[40,150] add(d, bb)\n}\n"),
  };
  int seed = 20;
  for (const std::string& text : cases) {
    EXPECT_THAT(Fused(text)->ToString(), HasSubstr("kind=dot")) << text;
    ExpectSameBitsAtEveryThreadCount(text, seed++);
  }
}

// out = f(dot(x, w), ...) with the epilogue `ops` (instructions after the
// dot `d`, the last one ROOT) and extra parameters `params`.
std::string EpilogueModule(const std::string& m, const std::string& k,
                           const std::string& n, const std::string& params,
                           const std::string& ops) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = f32[", m, ",", k,
                      "] parameter(0)\n  w = f32[", k, ",", n,
                      "] parameter(1)\n", params, "  d = f32[", m, ",", n,
                      "] dot(x, w), ", kMatmul, "\n", ops, "}\n");
}

// One kernel per epilogue form, writing its output once: bias + ReLU,
// a scale, a residual add, tanh-GELU, a convert to bf16.
TEST(GemmTest, EpiloguesFuseIntoTheKernel) {
  const std::string bias =
      "  b = f32[70] parameter(2)\n";
  const std::string residual = "  r = f32[45,70] parameter(2)\n";
  struct Case {
    std::string params, ops;
  };
  const Case cases[] = {
      {bias,
       "  bb = f32[45,70] broadcast(b), dimensions={1}\n"
       "  s = f32[45,70] add(d, bb)\n  z = f32[] constant(0)\n"
       "  zb = f32[45,70] broadcast(z), dimensions={}\n"
       "  ROOT out = f32[45,70] maximum(s, zb)\n"},
      {"", "  c = f32[] constant(0.125)\n"
           "  cb = f32[45,70] broadcast(c), dimensions={}\n"
           "  ROOT out = f32[45,70] multiply(d, cb)\n"},
      {residual, "  ROOT out = f32[45,70] add(r, d)\n"},
      {"", "  h = f32[] constant(0.5)\n"
           "  hb = f32[45,70] broadcast(h), dimensions={}\n"
           "  c = f32[] constant(0.7978846)\n"
           "  cb = f32[45,70] broadcast(c), dimensions={}\n"
           "  t = f32[45,70] tanh(d)\n  one = f32[] constant(1)\n"
           "  ob = f32[45,70] broadcast(one), dimensions={}\n"
           "  u = f32[45,70] add(t, ob)\n  v = f32[45,70] multiply(d, u)\n"
           "  ROOT out = f32[45,70] multiply(v, hb)\n"},
      {"", "  ROOT out = bf16[45,70] convert(d)\n"},
  };
  for (const Case& c : cases) {
    const std::string text =
        EpilogueModule("45", "130", "70", c.params, c.ops);
    std::unique_ptr<HloModule> fused = Fused(text);
    const HloInstruction* root = fused->entry_computation()->root_instruction();
    ASSERT_EQ(root->opcode(), HloOpcode::kFusion) << fused->ToString();
    EXPECT_EQ(root->fusion_kind(), FusionKind::kOutput) << text;
    EXPECT_THAT(root->ToString(), HasSubstr("kind=dot")) << text;
    EXPECT_THAT(root->ToString(), HasSubstr("k_block=130")) << text;
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
  // An epilogue plan must take all of k in one slice.
  std::string text = Fused(EpilogueModule("45", "130", "70", "",
                                          "  ROOT out = f32[45,70] negate(d)\n"))
                         ->ToString();
  text.replace(text.find("k_block=130"), 11, "k_block=64");
  EXPECT_THAT(VerifyHloText(text).message(),
              HasSubstr("an epilogue needs all of k in one slice: k_block at "
                        "least 130"));
}

// An epilogue whose result streams (here from 1 byte on) writes each whole,
// aligned tile with non-temporal vector stores, and the rest plainly: the
// same bits as plain stores, at every thread count. Rows that are not whole
// vectors (n = 70) and a result of another type (bf16) store plainly under
// the same plan. A dot alone cannot stream.
TEST(GemmTest, EpiloguesStreamWholeAlignedTiles) {
  const std::string relu =
      "  bb = f32[45,NCOLS] broadcast(b), dimensions={1}\n"
      "  s = f32[45,NCOLS] add(d, bb)\n  z = f32[] constant(0)\n"
      "  zb = f32[45,NCOLS] broadcast(z), dimensions={}\n"
      "  ROOT r = f32[45,NCOLS] maximum(s, zb)\n";
  const std::string bias = "  b = f32[NCOLS] parameter(2)\n";
  struct Case {
    std::string n, params, ops;
    bool vector_stores;
  };
  const Case cases[] = {
      {"256", bias, relu, true},  // 45 rows: a last tile of 3 rows
      {"80", bias, relu, true},   // a 16-column edge tile stores plainly
      {"70", bias, relu, false},
      {"256", "", "  ROOT c = bf16[45,NCOLS] convert(d)\n", false},
  };
  CompileOptions streaming;
  streaming.codegen.streaming_store_min_bytes = 1;
  for (const Case& c : cases) {
    const std::string text = absl::StrReplaceAll(
        EpilogueModule("45", "130", c.n, c.params, c.ops), {{"NCOLS", c.n}});
    SCOPED_TRACE(text);
    EXPECT_THAT(Fused(text, streaming)->ToString(),
                HasSubstr("k_block=130, store=streaming}"));
    EXPECT_THAT(Fused(text)->ToString(), Not(HasSubstr("store=streaming")));
    std::unique_ptr<HloModule> module = ParseHloModule(text).value();
    ASSERT_OK_AND_ASSIGN(
        std::string assembly,
        EmitIr(*OptimizeForBackend(*module, streaming).value(),
               streaming.codegen, IrStage::kAssembly));
    EXPECT_EQ(assembly.find("movnt") != std::string::npos, c.vector_stores);
    std::vector<Literal> arguments = MakeSeededArguments(*module, 5);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> plain,
                         Compile(*module, {}));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> streamed,
                         Compile(*module, streaming));
    ASSERT_OK_AND_ASSIGN(Literal expected,
                         plain->Run(Pointers(arguments), RunOptions{}));
    ASSERT_OK_AND_ASSIGN(
        std::vector<Literal> results,
        RunAtThreadCounts(*streamed, Pointers(arguments), {1, 2, 3}));
    for (const Literal& result : results) EXPECT_EQ(result, expected);
  }
  std::string alone = Fused(DotModule("f32[45,130]", "f32[130,256]",
                                      "f32[45,256]", kMatmul))
                          ->ToString();
  alone.replace(alone.find("k_block=130}"), 12,
                "k_block=130, store=streaming}");
  EXPECT_THAT(VerifyHloText(alone).message(),
              HasSubstr("store=streaming needs an epilogue"));
}

// Cheap producers (a convert, a scale, a transpose) are generated while
// packing; an expensive one (exp) is computed once, in a kernel of its own.
// dot(convert(x), w * 0.5 + f(transpose(v))), f the identity or exp.
std::string RhsProducersModule(bool exp) {
  return std::string(
             "HloModule m\nENTRY e {\n  x = bf16[37,53] parameter(0)\n"
             "  w = f32[53,71] parameter(1)\n  v = f32[71,53] parameter(2)\n"
             "  xc = f32[37,53] convert(x)\n  s = f32[] constant(0.5)\n"
             "  sb = f32[53,71] broadcast(s), dimensions={}\n"
             "  ws = f32[53,71] multiply(w, sb)\n"
             "  vt = f32[53,71] transpose(v), dimensions={1,0}\n") +
         (exp ? "  ve = f32[53,71] exponential(vt)\n"
                "  wv = f32[53,71] add(ws, ve)\n"
              : "  wv = f32[53,71] add(ws, vt)\n") +
         "  ROOT d = f32[37,71] dot(xc, wv), " + std::string(kMatmul) + "\n}\n";
}

TEST(GemmTest, ProducersFuseIntoPacking) {
  const std::string text = RhsProducersModule(/*exp=*/false);
  std::unique_ptr<HloModule> fused = Fused(text);
  const HloInstruction* root = fused->entry_computation()->root_instruction();
  ASSERT_EQ(root->fusion_kind(), FusionKind::kOutput) << fused->ToString();
  const std::string kernel = root->to_apply()->ToString();
  EXPECT_THAT(kernel, HasSubstr("convert("));
  EXPECT_THAT(kernel, HasSubstr("multiply("));
  EXPECT_THAT(kernel, HasSubstr("transpose("));
  EXPECT_EQ(fused->entry_computation()->instruction_count(), 4)
      << fused->ToString();  // 3 parameters, the dot's kernel
  EXPECT_TRUE(RunAndCompare(text, Close())) << text;
}

// Packing reads each operand element once per block of the other side's
// rows, so an operand holding an expensive op is materialized by a kernel
// of its own, whole (the cheap ops over the exp too: the dot then loads
// one array), and the dot's kernel recomputes none of it.
TEST(GemmTest, OperandsOverExpensiveOpsAreMaterializedWhole) {
  const std::string text = RhsProducersModule(/*exp=*/true);
  std::unique_ptr<HloModule> fused = Fused(text);
  const HloInstruction* root = fused->entry_computation()->root_instruction();
  ASSERT_EQ(root->fusion_kind(), FusionKind::kOutput) << fused->ToString();
  const std::string kernel = root->to_apply()->ToString();
  EXPECT_THAT(kernel, HasSubstr("convert("));
  EXPECT_THAT(kernel, Not(HasSubstr("multiply(")));
  EXPECT_THAT(kernel, Not(HasSubstr("exponential(")));
  EXPECT_EQ(fused->entry_computation()->instruction_count(), 5)
      << fused->ToString();  // 3 parameters, wv's kernel, the dot's
  EXPECT_TRUE(RunAndCompare(text, Close())) << text;
}

// Tiny products skip packing; their epilogue still applies per element.
TEST(GemmTest, TinyProductsWithEpilogues) {
  const std::string relu = EpilogueModule(
      "3", "5", "7", "  b = f32[7] parameter(2)\n",
      "  bb = f32[3,7] broadcast(b), dimensions={1}\n"
      "  s = f32[3,7] add(d, bb)\n  z = f32[] constant(0)\n"
      "  zb = f32[3,7] broadcast(z), dimensions={}\n"
      "  ROOT out = f32[3,7] maximum(s, zb)\n");
  const std::string narrowed = EpilogueModule(
      "8", "8", "8", "", "  ROOT out = bf16[8,8] convert(d)\n");
  for (const std::string& text : {relu, narrowed}) {
    EXPECT_THAT(Fused(text)->ToString(), HasSubstr("kind=dot")) << text;
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

// One producer on both sides (a square, s @ s) with a row-index epilogue:
// the lhs element splatted and the rhs row are the same values, which LLVM
// 19's VectorCombine once rebuilt as each other (llvm_miscompile_guards.h;
// the differential fuzzer found it at n = 2).
TEST(GemmTest, SquaresOfOneProducer) {
  for (int n : {1, 2, 3, 4, 5, 8, 9, 16, 17, 33}) {
    const std::string shape = absl::StrCat("[", n, ",", n, "]");
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = f32", shape, " parameter(0)\n",
        "  y = s16", shape, " parameter(1)\n  c = f32", shape, " convert(y)\n",
        "  s = f32", shape, " add(c, x)\n  d = f32", shape, " dot(s, s), ",
        kMatmul, "\n  i = f32", shape, " iota(), iota_dimension=0\n",
        "  ROOT out = f32", shape, " subtract(d, i)\n}\n");
    EXPECT_THAT(Fused(text)->ToString(), HasSubstr("kind=dot")) << text;
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

// Where the dot must stay its own kernel: a second user of the dot, a
// reduction after it (softmax), or k beyond kMaxEpilogueDotK.
TEST(GemmTest, DotsStayAloneWhereNoEpilogueFits) {
  const std::string shared = EpilogueModule(
      "20", "30", "40", "",
      "  n = f32[20,40] negate(d)\n  e = f32[20,40] exponential(d)\n"
      "  ROOT out = (f32[20,40], f32[20,40]) tuple(n, e)\n");
  const std::string reduced = EpilogueModule(
      "20", "30", "40", "",
      "  z = f32[] constant(0)\n  ROOT out = f32[20] reduce(d, z), "
      "dimensions={1}, to_apply=add\n");
  const std::string with_add =
      "HloModule m\nadd {\n  p = f32[] parameter(0)\n  q = f32[] "
      "parameter(1)\n  ROOT s = f32[] add(p, q)\n}\n" +
      reduced.substr(reduced.find("ENTRY"));
  const std::string long_k = EpilogueModule(
      "4", "3000", "8", "", "  ROOT out = f32[4,8] negate(d)\n");
  for (const std::string& text : {shared, with_add, long_k}) {
    std::unique_ptr<HloModule> fused = Fused(text);
    int dot_kernels = 0;
    for (const HloInstruction* instruction :
         fused->entry_computation()->instructions()) {
      if (instruction->opcode() != HloOpcode::kFusion ||
          instruction->fusion_kind() != FusionKind::kOutput) {
        continue;
      }
      ++dot_kernels;
      EXPECT_EQ(instruction->to_apply()->root_instruction()->opcode(),
                HloOpcode::kDot)
          << fused->ToString();
    }
    EXPECT_EQ(dot_kernels, 1) << fused->ToString();
    EXPECT_TRUE(RunAndCompare(text, Close())) << text;
  }
}

// Products narrower than the full tile take as few vectors as hold their
// columns, one as narrow as 16 bytes, and 12 rows (8 with 3 vectors): n
// = 8 computes 8 lanes, not 64.
TEST(GemmTest, NarrowProductsTakeNarrowTiles) {
  const int64_t register_lanes = codegen::HostVectorBytes() / 4;
  const int64_t full = (register_lanes == 16 ? 4 : 2) * register_lanes;
  struct Expected {
    int64_t n, lanes, nr, mr;
  };
  std::vector<Expected> expected = {{1, 4, 4, 12}, {3, 4, 4, 12},
                                    {4, 4, 4, 12}, {5, 8, 8, 12},
                                    {8, 8, 8, 12}, {full, register_lanes, full, 6},
                                    {1000, register_lanes, full, 6}};
  if (register_lanes == 16) {
    expected.push_back({9, 16, 16, 12});
    expected.push_back({17, 16, 32, 12});
    expected.push_back({33, 16, 48, 8});
  } else {
    expected.push_back({9, 8, 16, 6});
  }
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.n);
    const codegen::GemmTile tile = codegen::HostGemmTile(F32, e.n);
    EXPECT_EQ(tile.lanes, e.lanes);
    EXPECT_EQ(tile.vector_bytes, 4 * e.lanes);
    EXPECT_EQ(tile.nr, e.nr);
    EXPECT_EQ(tile.mr, e.mr);
  }
  const codegen::GemmTile f64 = codegen::HostGemmTile(F64, 2);
  EXPECT_EQ(f64.lanes, 2);
  EXPECT_EQ(f64.vector_bytes, 16);
}

// Narrow products against the interpreter, the same bits at 1, 2 and 3
// threads: columns around each narrow width, rows around 12 (an lhs read
// in place with a last partial panel, and a packed one), several k
// slices, an epilogue (bias + ReLU) and f64.
TEST(GemmTest, NarrowProductsMatchTheInterpreter) {
  const char* relu =
      "  bb = f32[MROWS,NCOLS] broadcast(b), dimensions={1}\n"
      "  s = f32[MROWS,NCOLS] add(d, bb)\n  z = f32[] constant(0)\n"
      "  zb = f32[MROWS,NCOLS] broadcast(z), dimensions={}\n"
      "  ROOT r = f32[MROWS,NCOLS] maximum(s, zb)\n";
  int seed = 0;
  for (const char* n : {"1", "3", "4", "5", "8", "9", "16", "17", "24", "33"}) {
    for (const char* m : {"1", "11", "12", "25", "300"}) {
      const absl::flat_hash_map<std::string, std::string> sizes = {
          {"MROWS", m}, {"NCOLS", n}};
      const std::string plain = absl::StrReplaceAll(
          DotModule("f32[MROWS,700]", "f32[700,NCOLS]", "f32[MROWS,NCOLS]", kMatmul), sizes);
      const std::string transposed = absl::StrReplaceAll(
          DotModule("f32[700,MROWS]", "f32[700,NCOLS]", "f32[MROWS,NCOLS]",
                    "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
          sizes);
      const std::string epilogue = absl::StrReplaceAll(
          EpilogueModule(m, "130", n, "  b = f32[NCOLS] parameter(2)\n", relu),
          sizes);
      for (const std::string& text : {plain, transposed, epilogue}) {
        EXPECT_THAT(Fused(text)->ToString(), HasSubstr("kind=dot")) << text;
        ExpectSameBitsAtEveryThreadCount(text, ++seed);
      }
    }
  }
  EXPECT_TRUE(RunAndCompare(
      DotModule("f64[29,300]", "f64[300,3]", "f64[29,3]", kMatmul), Close()));
}

// The register tile follows the JIT target's vectors: 6 x 64 with
// AVX-512, 6 x 16 where MXLA_CPU_FEATURES=-avx512f makes the JIT emit AVX2
// (ctest runs this file both ways), and then no kernel uses a zmm register.
TEST(GemmTest, TileFollowsTheTargetsVectors) {
  const codegen::GemmTile tile = codegen::HostGemmTile(F32, 1024);
  const int64_t vector_bytes = codegen::HostVectorBytes();
  EXPECT_EQ(tile.lanes * 4, vector_bytes);
  EXPECT_EQ(tile.nr, (vector_bytes >= 64 ? 4 : 2) * tile.lanes);
  EXPECT_EQ(tile.mr, 6);
  const char* features = std::getenv("MXLA_CPU_FEATURES");
  if (features == nullptr || std::string(features) != "-avx512f") return;
  EXPECT_EQ(vector_bytes, 32);
  const std::string dir = ::testing::TempDir() + "/gemm_avx2";
  std::filesystem::remove_all(dir);
  CompileOptions options;
  options.pipeline.dump_dir = dir;
  const std::string text =
      DotModule("f32[37,53]", "f32[53,71]", "f32[37,71]", kMatmul);
  ASSERT_OK(Compile(*ParseHloModule(text).value(), options).status());
  std::ifstream assembly(dir + "/kernels.s");
  const std::string code((std::istreambuf_iterator<char>(assembly)),
                         std::istreambuf_iterator<char>());
  EXPECT_THAT(code, HasSubstr("vfmadd"));
  EXPECT_THAT(code, HasSubstr("ymm"));
  EXPECT_THAT(code, Not(HasSubstr("zmm")));
  EXPECT_TRUE(RunAndCompare(text, Close())) << text;
}

}  // namespace
}  // namespace mxla
