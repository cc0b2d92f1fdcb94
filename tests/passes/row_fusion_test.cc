// row-fusion and the analysis behind it (passes/row_fusion_analysis.h): which
// chains of fusions merge into one pass per row, which do not and why, and
// that merged modules verify, round-trip, keep their values and are left
// alone by a second run.
#include "passes/row_fusion.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "passes/row_fusion_analysis.h"
#include "ir/shape_util.h"
#include "passes/fusion.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::vector<Literal> Arguments(const HloModule& module) {
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter :
       module.entry_computation()->parameter_instructions()) {
    Literal literal(parameter->shape());
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.data<float>()[i] = 0.375f * ((i * 7) % 11) - 1.5f;
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

// Runs fusion and row-fusion on `text` and checks the invariants.
std::unique_ptr<HloModule> RowFuse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  if (!module.ok()) return nullptr;
  std::vector<Literal> arguments = Arguments(**module);
  absl::StatusOr<Literal> before =
      EvaluateModule(**module, Pointers(arguments));
  EXPECT_OK(before.status());
  EXPECT_OK(FusionPass().Run(**module).status());
  EXPECT_OK(RowFusionPass().Run(**module).status());
  EXPECT_OK(VerifyModule(**module, VerifierMode::kLowered));
  const std::string printed = (*module)->ToString();
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(printed);
  EXPECT_OK(reparsed.status());
  if (reparsed.ok()) EXPECT_EQ((*reparsed)->ToString(), printed);
  absl::StatusOr<Literal> after = EvaluateModule(**module, Pointers(arguments));
  EXPECT_OK(after.status());
  if (before.ok() && after.ok()) EXPECT_EQ(*before, *after) << printed;
  absl::StatusOr<bool> again = RowFusionPass().Run(**module);
  EXPECT_OK(again.status());
  if (again.ok()) EXPECT_FALSE(*again) << printed;
  return std::move(*module);
}

std::vector<HloInstruction*> Fusions(const HloModule& module) {
  std::vector<HloInstruction*> fusions;
  for (HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kFusion) {
      fusions.push_back(instruction);
    }
  }
  return fusions;
}

const HloInstruction* Named(const HloComputation& computation,
                            absl::string_view prefix) {
  for (const HloInstruction* instruction : computation.instructions()) {
    if (absl::StartsWith(instruction->name(), prefix)) return instruction;
  }
  return nullptr;
}

TEST(RowFusionTest, SoftmaxBecomesOnePassPerRow) {
  auto module = RowFuse(fixtures::Softmax(3, 5));
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = Fusions(*module);
  ASSERT_EQ(fusions.size(), 1u) << module->ToString();
  const HloInstruction& fusion = *fusions[0];
  EXPECT_EQ(fusion.fusion_kind(), FusionKind::kInput);
  ASSERT_EQ(fusion.operand_count(), 1);
  EXPECT_EQ(fusion.operand(0)->name(), "x");
  EXPECT_EQ(module->entry_computation()->root_instruction(), &fusion);

  ASSERT_OK_AND_ASSIGN(RowFusion rows, AnalyzeRowFusion(*fusion.to_apply()));
  EXPECT_EQ(rows.row_dimensions, std::vector<int64_t>({3}));
  EXPECT_EQ(rows.column_dimensions, std::vector<int64_t>({5}));
  ASSERT_EQ(rows.reduces.size(), 2u);
  EXPECT_EQ(rows.reduces[0]->to_apply()->name(), "max_f32");
  EXPECT_EQ(rows.reduces[1]->to_apply()->name(), "add_f32");
  // exp is computed by the sum's loop and read again by the output loop.
  const HloInstruction* exp = Named(*fusion.to_apply(), "e.");
  ASSERT_NE(exp, nullptr);
  ASSERT_EQ(rows.buffered.size(), 1u);
  EXPECT_EQ(rows.buffered.at(exp), 1);
}

TEST(RowFusionTest, LayerNormWithBroadcastScaleAndOffset) {
  auto module = RowFuse(fixtures::LayerNorm(4, 6));
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = Fusions(*module);
  ASSERT_EQ(fusions.size(), 1u) << module->ToString();
  EXPECT_EQ(fusions[0]->operand_count(), 3);
  ASSERT_OK_AND_ASSIGN(RowFusion rows,
                       AnalyzeRowFusion(*fusions[0]->to_apply()));
  EXPECT_EQ(rows.reduces.size(), 2u);
  EXPECT_TRUE(rows.buffered.empty());  // nothing expensive is row-wide
}

TEST(RowFusionTest, LeadingDimensionReductionsStaySeparate) {
  // Column softmax: reductions over dimension 0 are not row-local.
  auto module = RowFuse(fixtures::ModuleWithReducers("columns") + R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[5] reduce(x, ninf), dimensions={0}, to_apply=max_f32
  mb = f32[3,5] broadcast(m), dimensions={1}
  d = f32[3,5] subtract(x, mb)
  ROOT e = f32[3,5] exponential(d)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(Fusions(*module).size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto parsed, ParseHloModule(
      fixtures::ModuleWithReducers("c") + R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[5] reduce(x, ninf), dimensions={0}, to_apply=max_f32
  mb = f32[3,5] broadcast(m), dimensions={1}
  ROOT e = f32[3,5] subtract(x, mb)
})"));
  EXPECT_THAT(AnalyzeRowFusion(*parsed->entry_computation()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'m' reduces dimensions {0}, not only the "
                                 "trailing ones")));
}

TEST(RowFusionTest, AnalysisExplainsWhyNot) {
  auto analyze = [](const std::string& entry) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(fixtures::ModuleWithReducers("why") + entry);
    EXPECT_OK(module.status());
    return AnalyzeRowFusion(*(*module)->entry_computation()).status();
  };
  EXPECT_THAT(analyze(R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  ROOT n = f32[3,5] negate(x)
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no reduce")));
  EXPECT_THAT(analyze(R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[3] reduce(x, zero), dimensions={1}, to_apply=add_f32
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'s' is the only reduce and the root")));
  // The row sums read back along the other axis.
  EXPECT_THAT(analyze(R"(
ENTRY main {
  x = f32[5,5] parameter(0)
  zero = f32[] constant(0)
  s = f32[5] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sb = f32[5,5] broadcast(s), dimensions={1}
  ROOT d = f32[5,5] divide(x, sb)
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'sb' reads the row-dependent 's' across "
                                 "rows")));
  EXPECT_THAT(analyze(R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  zero = f32[] constant(0)
  s = f32[3] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sb = f32[3,5] broadcast(s), dimensions={0}
  d = f32[3,5] divide(x, sb)
  ROOT t = f32[5,3] transpose(d), dimensions={1,0}
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'t' reads the row-dependent 'd' across "
                                 "rows")));
  EXPECT_THAT(analyze(R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  y = f32[3,7] parameter(1)
  zero = f32[] constant(0)
  s = f32[3] reduce(x, zero), dimensions={1}, to_apply=add_f32
  t = f32[3] reduce(y, zero), dimensions={1}, to_apply=add_f32
  ROOT u = f32[3] add(s, t)
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'t' reduces a different shape than 's'")));
}

// Softmax of x * exp(v) broadcast over the rows: fusion gives exp(v) its
// own kernel (a broadcast reuses it), and row fusion must not merge it back
// into the row kernel, where each row's loops would recompute it.
TEST(RowFusionTest, ExpensiveProducersReusedByTheRowKernelStay) {
  const std::string body = R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  v = f32[5] parameter(1)
  ev = f32[5] exponential(v)
  evb = f32[3,5] broadcast(ev), dimensions={1}
  xs = f32[3,5] multiply(x, evb)
  ninf = f32[] constant(-inf)
  m = f32[3] reduce(xs, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[3,5] broadcast(m), dimensions={0}
  sub = f32[3,5] subtract(xs, mb)
  e = f32[3,5] exponential(sub)
  zero = f32[] constant(0)
  s = f32[3] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[3,5] broadcast(s), dimensions={0}
  ROOT out = f32[3,5] divide(e, sb)
})";
  auto module = RowFuse(fixtures::ModuleWithReducers("scaled_softmax") +
                        body);
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = Fusions(*module);
  ASSERT_EQ(fusions.size(), 2u) << module->ToString();
  const HloInstruction* exp = fusions[0];
  const HloInstruction* rows = fusions[1];
  EXPECT_EQ(exp->to_apply()->root_instruction()->opcode(), HloOpcode::kExp);
  EXPECT_EQ(exp->shape(), ShapeUtil::MakeShape(F32, {5}));
  EXPECT_EQ(rows, module->entry_computation()->root_instruction());
  ASSERT_OK(AnalyzeRowFusion(*rows->to_apply()).status());
  EXPECT_THAT(rows->operands(), ::testing::Contains(exp)) << module->ToString();
  for (const HloInstruction* instruction : rows->to_apply()->instructions()) {
    EXPECT_FALSE(instruction->opcode() == HloOpcode::kExp &&
                 instruction->shape().rank() == 1)
        << "exp(v) merged into the row kernel: " << module->ToString();
  }
}

TEST(RowFusionTest, ProducersWithOtherUsersStay) {
  // The row sums are also a result: merging them would compute them twice.
  auto module = RowFuse(fixtures::ModuleWithReducers("shared") + R"(
ENTRY main {
  x = f32[3,5] parameter(0)
  zero = f32[] constant(0)
  s = f32[3] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sb = f32[3,5] broadcast(s), dimensions={0}
  d = f32[3,5] divide(x, sb)
  ROOT t = (f32[3,5], f32[3]) tuple(d, s)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(Fusions(*module).size(), 2u) << module->ToString();
}

TEST(RowFusionTest, RowShapedRootAndMultiDimensionalRowsAndColumns) {
  // logsumexp over the last two dimensions of a rank-4 array, per [2,3] row.
  auto module = RowFuse(fixtures::LogSumExpOverTwoTrailingDimensions());
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> fusions = Fusions(*module);
  ASSERT_EQ(fusions.size(), 1u) << module->ToString();
  ASSERT_OK_AND_ASSIGN(RowFusion rows,
                       AnalyzeRowFusion(*fusions[0]->to_apply()));
  EXPECT_EQ(rows.row_dimensions, std::vector<int64_t>({2, 3}));
  EXPECT_EQ(rows.column_dimensions, std::vector<int64_t>({4, 5}));
  EXPECT_TRUE(rows.buffered.empty());  // exp is read by one loop only
}

TEST(RowFusionTest, ImplicitBroadcastsAreAPreconditionError) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT s = f32[2,3] add(x, v), broadcast_dimensions={1}
})"));
  std::string before = module->ToString();
  EXPECT_THAT(RowFusionPass().Run(*module),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("row-fusion needs lowered HLO; run "
                                 "lower-broadcasts first: s = f32[2,3]")));
  EXPECT_EQ(module->ToString(), before);
}

}  // namespace
}  // namespace mxla
