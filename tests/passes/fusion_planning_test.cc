// fusion-planning: the plan each kind of fusion gets (loop, streaming loop,
// small one-unit loop, split and column reductions, row fusion with a
// buffered value), plans that survive printing and parsing, and existing
// plans kept or rejected.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "passes/fusion.h"
#include "passes/fusion_cost_model.h"
#include "passes/fusion_planning.h"
#include "passes/row_fusion.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

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
)";

std::string Softmax(int rows, int columns) {
  const std::string r = absl::StrCat(rows);
  const std::string s = absl::StrCat(rows, ",", columns);
  return absl::StrCat("HloModule softmax", kReducers, "ENTRY main {\n",
                      "  x = f32[", s, "] parameter(0)\n",
                      "  ninf = f32[] constant(-inf)\n",
                      "  m = f32[", r, "] reduce(x, ninf), dimensions={1}, "
                      "to_apply=max_f32\n",
                      "  mb = f32[", s, "] broadcast(m), dimensions={0}\n",
                      "  sub = f32[", s, "] subtract(x, mb)\n",
                      "  e = f32[", s, "] exponential(sub)\n",
                      "  zero = f32[] constant(0)\n",
                      "  sum = f32[", r, "] reduce(e, zero), dimensions={1}, "
                      "to_apply=add_f32\n",
                      "  sb = f32[", s, "] broadcast(sum), dimensions={0}\n",
                      "  ROOT out = f32[", s, "] divide(e, sb)\n}\n");
}

// `op` over x: f32[shape] with itself, the entry root (or `tail` after it).
std::string Elementwise(const std::string& shape, const std::string& tail = "") {
  return absl::StrCat("HloModule m\nENTRY main {\n  x = f32[", shape,
                      "] parameter(0)\n  ", tail.empty() ? "ROOT " : "",
                      "y = f32[", shape, "] multiply(x, x)\n", tail, "}\n");
}

std::string Reduce(const std::string& type, const std::string& shape,
                   const std::string& out, const std::string& dims) {
  return absl::StrCat("HloModule r\nadd {\n  a = ", type,
                      "[] parameter(0)\n  b = ", type,
                      "[] parameter(1)\n  ROOT c = ", type,
                      "[] add(a, b)\n}\nENTRY main {\n  x = ", type, "[", shape,
                      "] parameter(0)\n  zero = ", type,
                      "[] constant(0)\n  ROOT r = ", type, "[", out,
                      "] reduce(x, zero), dimensions={", dims,
                      "}, to_apply=add\n}\n");
}

// Fuses and plans `text`; returns the module after checking that it
// verifies, round-trips through text with its plans, and that a second
// planning run keeps everything.
std::unique_ptr<HloModule> Plan(const std::string& text,
                                FusionPlanningOptions options = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  if (!module.ok()) return nullptr;
  EXPECT_OK(FusionPass().Run(**module).status());
  EXPECT_OK(RowFusionPass().Run(**module).status());
  absl::StatusOr<bool> planned = FusionPlanningPass(options).Run(**module);
  EXPECT_OK(planned.status());
  EXPECT_OK(VerifyModule(**module, VerifierMode::kLowered));
  const std::string printed = (*module)->ToString();
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(printed);
  EXPECT_OK(reparsed.status());
  if (reparsed.ok()) {
    EXPECT_EQ((*reparsed)->ToString(), printed);
    absl::StatusOr<bool> again = FusionPlanningPass(options).Run(**reparsed);
    EXPECT_OK(again.status());
    if (again.ok()) EXPECT_FALSE(*again);
    EXPECT_EQ((*reparsed)->ToString(), printed);
  }
  return std::move(*module);
}

// The plan of the entry root's fusion, printed.
std::string RootPlan(const HloModule& module) {
  const HloInstruction* root = module.entry_computation()->root_instruction();
  if (root->opcode() != HloOpcode::kFusion || !root->fusion_plan()) {
    return "<no plan>";
  }
  return root->fusion_plan()->ToString();
}

TEST(FusionPlanningTest, LargeLoopIsSplitWithPlainStores) {
  // 1 MiB result, 2 MiB of traffic: split, but under the 8 MiB of streaming.
  auto module = Plan(Elementwise("512,512"));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(RootPlan(*module), "{kind=loop, store=plain}");
}

TEST(FusionPlanningTest, LargeEntryResultStreams) {
  auto module = Plan(Elementwise("2048,1024"));  // 8 MiB
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(RootPlan(*module), "{kind=loop, store=streaming}");
  // Off, or below the threshold the options give: plain stores.
  EXPECT_EQ(RootPlan(*Plan(Elementwise("2048,1024"),
                           {.streaming_store_min_bytes = 0})),
            "{kind=loop, store=plain}");
  EXPECT_EQ(RootPlan(*Plan(Elementwise("512,512"),
                           {.streaming_store_min_bytes = 1 << 20})),
            "{kind=loop, store=streaming}");
}

// `n` chained ops on a large entry result: one fusion whose body is the
// parameter and the n ops.
std::string LongChain(int n) {
  std::string text =
      "HloModule chain\nENTRY main {\n  x = f32[2048,1024] parameter(0)\n";
  std::string previous = "x";
  for (int i = 0; i < n; ++i) {
    std::string name = absl::StrCat("v", i);
    absl::StrAppend(&text, i + 1 == n ? "  ROOT " : "  ", name,
                    " = f32[2048,1024] ", i % 2 ? "add" : "multiply", "(",
                    previous, ", x)\n");
    previous = name;
  }
  return text + "}\n";
}

// A long body is compute-bound, and streaming would emit it once per
// vector lane: it stores plainly (kMaxStreamingBodyInstructions).
TEST(FusionPlanningTest, LongBodiesDoNotStream) {
  auto at_bound = Plan(LongChain(kMaxStreamingBodyInstructions - 1));
  ASSERT_NE(at_bound, nullptr);
  EXPECT_EQ(RootPlan(*at_bound), "{kind=loop, store=streaming}");
  auto past_bound = Plan(LongChain(kMaxStreamingBodyInstructions));
  ASSERT_NE(past_bound, nullptr);
  EXPECT_EQ(RootPlan(*past_bound), "{kind=loop, store=plain}");
}

TEST(FusionPlanningTest, ResultReadByAnotherKernelDoesNotStream) {
  // exp(y) broadcast along rows is its own kernel (expensive, reused); y's
  // kernel result is read back by it, so it is stored plainly.
  auto module = Plan(R"(HloModule m
ENTRY main {
  x = f32[2048,1024] parameter(0)
  y = f32[2048,1024] exponential(x)
  z = f32[4,2048,1024] broadcast(y), dimensions={1,2}
  ROOT w = f32[4,2048,1024] negate(z)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(RootPlan(*module), "{kind=loop, store=streaming}");
  const HloInstruction* inner =
      module->entry_computation()->root_instruction()->operand(0);
  ASSERT_NE(inner->fusion_plan(), nullptr) << module->ToString();
  EXPECT_EQ(inner->fusion_plan()->ToString(), "{kind=loop, store=plain}");
}

TEST(FusionPlanningTest, SmallLoopIsOneUnitWithStaticBounds) {
  EXPECT_EQ(RootPlan(*Plan(Elementwise("2,3"))),
            "{kind=loop, store=plain, one_unit=true}");
  EXPECT_EQ(RootPlan(*Plan(Elementwise(""))),  // a scalar
            "{kind=loop, store=plain, one_unit=true}");
}

TEST(FusionPlanningTest, SumToScalarIsSplitIntoChunks) {
  // 2^20 elements: 64 chunks of 16384, partials in 64 * 4 bytes of scratch.
  EXPECT_EQ(RootPlan(*Plan(Reduce("f32", "1048576", "", "0"))),
            "{kind=reduction, units=64, chunks=64, chunk_elements=16384, "
            "scratch_bytes=256}");
  // A float sum may not be reordered without reassociation; an integer one
  // always may.
  EXPECT_EQ(RootPlan(*Plan(Reduce("f32", "1048576", "", "0"),
                           {.reassociate_reductions = false})),
            "{kind=reduction, units=1}");
  EXPECT_EQ(RootPlan(*Plan(Reduce("s32", "1048576", "", "0"),
                           {.reassociate_reductions = false})),
            "{kind=reduction, units=64, chunks=64, chunk_elements=16384, "
            "scratch_bytes=256}");
}

TEST(FusionPlanningTest, ColumnSumIsCutIntoBlocksOfColumns) {
  // 2 KiB blocks of 512 floats: 4096 columns are 8 blocks.
  EXPECT_EQ(RootPlan(*Plan(Reduce("f32", "64,4096", "4096", "0"))),
            "{kind=reduction, units=8, column_block=512, column_blocks=8}");
  // Row sums: one output per unit.
  EXPECT_EQ(RootPlan(*Plan(Reduce("f32", "64,4096", "64", "1"))),
            "{kind=reduction, units=64}");
}

TEST(FusionPlanningTest, SoftmaxIsARowFusionThatBuffersExp) {
  auto module = Plan(Softmax(128, 1024));
  ASSERT_NE(module, nullptr);
  // exp is computed by the sum's loop (phase 1) and read again by the
  // output loop.
  EXPECT_THAT(RootPlan(*module),
              ::testing::MatchesRegex(
                  "\\{kind=row, rows=\\{128\\}, columns=\\{1024\\}, "
                  "store=plain, buffered=\\{e[.0-9]*:1\\}\\}"));
  // 2048 x 1024 floats: the result streams.
  EXPECT_THAT(RootPlan(*Plan(Softmax(2048, 1024))),
              HasSubstr("store=streaming"));
}

TEST(FusionPlanningTest, WideRowsExceedTheRowBufferBudget) {
  // A row of 32768 floats (128 KiB) is over the 64 KiB budget: recomputed.
  EXPECT_THAT(RootPlan(*Plan(Softmax(2, 32768))), HasSubstr("buffered={}"));
}

// A fused module whose plan a test edits.
constexpr char kPlannedSum[] = R"(HloModule r
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
fused {
  p = s32[65536] parameter(0)
  zero = s32[] constant(0)
  ROOT r = s32[] reduce(p, zero), dimensions={0}, to_apply=add
}
ENTRY main {
  x = s32[65536] parameter(0)
  ROOT f = s32[] fusion(x), kind=kInput, calls=fused, plan=PLAN
}
)";

absl::StatusOr<std::string> Replan(const std::string& plan,
                                   FusionPlanningOptions options = {}) {
  std::string text = kPlannedSum;
  text.replace(text.find("PLAN"), 4, plan);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  FusionPlanningPass pass(options);
  absl::StatusOr<bool> changed = pass.Run(**module);
  if (!changed.ok()) return changed.status();
  EXPECT_FALSE(*changed);
  return RootPlan(**module);
}

TEST(FusionPlanningTest, AnExistingPlanIsKeptOnceChecked) {
  // Not what planning would choose (4 chunks), but it fits: kept.
  const std::string two_chunks =
      "{kind=reduction, units=2, chunks=2, chunk_elements=32768, "
      "scratch_bytes=8}";
  ASSERT_OK_AND_ASSIGN(std::string kept, Replan(two_chunks));
  EXPECT_EQ(kept, two_chunks);
  ASSERT_OK_AND_ASSIGN(kept, Replan("{kind=reduction, units=1}"));
  EXPECT_EQ(kept, "{kind=reduction, units=1}");
  EXPECT_THAT(
      Replan("{kind=reduction, units=2, chunks=2, chunk_elements=32768, "
             "scratch_bytes=4}"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("the plan of fusion 'f' does not fit it"),
                     HasSubstr("scratch_bytes = units * 4"))));
}

TEST(FusionPlanningTest, AFloatSplitNeedsReassociation) {
  std::string text = kPlannedSum;
  size_t at;
  while ((at = text.find("s32")) != std::string::npos) text.replace(at, 3, "f32");
  text.replace(text.find("PLAN"), 4,
               "{kind=reduction, units=4, chunks=4, chunk_elements=16384, "
               "scratch_bytes=16}");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  EXPECT_OK(FusionPlanningPass().Run(*module).status());
  EXPECT_THAT(FusionPlanningPass({.reassociate_reductions = false}).Run(*module),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("need reassociate_reductions")));
}

TEST(FusionPlanningTest, ARowPlanMayOnlyBufferWhatTheAnalysisAllows) {
  auto module = Plan(Softmax(4, 8));
  ASSERT_NE(module, nullptr);
  std::string text = module->ToString();
  // Buffering exp from phase 0 would store it before the max it needs.
  const size_t at = text.find(":1}");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 3, ":0}");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> edited, ParseHloModule(text));
  EXPECT_THAT(FusionPlanningPass().Run(*edited),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("first computed by phase 0")));
}

}  // namespace
}  // namespace mxla
