// FusionPlan's text form (print -> parse -> print for every kind, and parse
// errors) and the verifier's check of a plan against its fusion.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/fusion_plan_parser.h"
#include "hlo_text/hlo_lexer.h"
#include "hlo_text/hlo_parser.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

absl::StatusOr<FusionPlan> Parse(const std::string& text) {
  TokenCursor cursor(text);
  absl::StatusOr<FusionPlan> plan = ParseFusionPlan(cursor);
  if (plan.ok() && !cursor.Is(TokenKind::kEof)) {
    return cursor.Expected("the end");
  }
  return plan;
}

TEST(FusionPlanTest, EveryKindRoundTrips) {
  const FusionPlan plans[] = {
      {LoopPlan{}},
      {LoopPlan{StoreKind::kStreaming, false}},
      {LoopPlan{StoreKind::kPlain, true}},
      {ReductionPlan{.units = 64}},
      {ReductionPlan{.units = 8, .column_block = 512, .column_blocks = 8}},
      {ReductionPlan{.units = 64, .chunks = 64, .chunk_elements = 16384,
                     .scratch_bytes = 256}},
      {RowPlan{{128}, {1024}, StoreKind::kPlain, {}}},
      {RowPlan{{2, 3}, {4, 5}, StoreKind::kStreaming,
               {{"e.1", 1}, {"log_x", 0}}}},
  };
  for (const FusionPlan& plan : plans) {
    const std::string text = plan.ToString();
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(FusionPlan parsed, Parse(text));
    EXPECT_EQ(parsed, plan);
    EXPECT_EQ(parsed.ToString(), text);
  }
  EXPECT_EQ(plans[1].ToString(), "{kind=loop, store=streaming}");
  EXPECT_EQ(plans[7].ToString(),
            "{kind=row, rows={2,3}, columns={4,5}, store=streaming, "
            "buffered={e.1:1, log_x:0}}");
}

TEST(FusionPlanTest, KeysMayComeInAnyOrder) {
  ASSERT_OK_AND_ASSIGN(FusionPlan plan,
                       Parse("{kind=loop, one_unit=true, store=plain}"));
  EXPECT_EQ(plan, (FusionPlan{LoopPlan{StoreKind::kPlain, true}}));
}

// A dot's store= is its epilogue's; with a row dot's keys, before them or
// after, it is the row plan's.
TEST(FusionPlanTest, ADotsStoreIsItsOwnOrItsRowPlans) {
  DotPlan streamed{.units = 64, .m_block = 512, .n_block = 64,
                   .k_block = 1024};
  streamed.store = StoreKind::kStreaming;
  EXPECT_EQ(FusionPlan{streamed}.ToString(),
            "{kind=dot, units=64, m_block=512, n_block=64, k_block=1024, "
            "store=streaming}");
  ASSERT_OK_AND_ASSIGN(FusionPlan parsed,
                       Parse(FusionPlan{streamed}.ToString()));
  EXPECT_EQ(parsed, FusionPlan{streamed});
  DotPlan plain = streamed;
  plain.store = StoreKind::kPlain;
  EXPECT_EQ(FusionPlan{plain}.ToString(),
            "{kind=dot, units=64, m_block=512, n_block=64, k_block=1024}");
  ASSERT_OK_AND_ASSIGN(parsed, Parse("{kind=dot, units=1, m_block=4, "
                                     "n_block=8, k_block=16, store=plain}"));
  EXPECT_EQ(std::get<DotPlan>(parsed.config).store, StoreKind::kPlain);

  const std::string row_keys =
      "row_block=4, rows={4}, columns={8}, buffered={}";
  for (const std::string& text :
       {"{kind=dot, units=1, m_block=4, n_block=8, k_block=16, "
        "store=streaming, " + row_keys + "}",
        "{kind=dot, units=1, m_block=4, n_block=8, k_block=16, " + row_keys +
            ", store=streaming}"}) {
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(FusionPlan row_dot, Parse(text));
    const DotPlan& dot = std::get<DotPlan>(row_dot.config);
    ASSERT_TRUE(dot.rows.has_value());
    EXPECT_EQ(dot.rows->store, StoreKind::kStreaming);
    EXPECT_EQ(dot.store, StoreKind::kPlain);
    EXPECT_THAT(row_dot.ToString(), HasSubstr("columns={8}, store=streaming"));
  }
}

TEST(FusionPlanTest, ParseErrorsSayWhatIsWrong) {
  EXPECT_THAT(Parse("{kind=tile}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:7: unknown plan kind 'tile'")));
  EXPECT_THAT(Parse("{store=plain}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected 'kind'")));
  EXPECT_THAT(Parse("{kind=loop, units=3, store=plain}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown key 'units' in a loop plan")));
  EXPECT_THAT(Parse("{kind=loop, store=plain, store=plain}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("duplicate key 'store'")));
  EXPECT_THAT(Parse("{kind=loop}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a loop plan needs 'store'")));
  EXPECT_THAT(Parse("{kind=loop, store=fast}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown store kind 'fast'")));
  EXPECT_THAT(Parse("{kind=row, rows={2}, columns={3}, store=plain, "
                    "buffered={e}}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected ':'")));
}

// A softmax row fusion over f32[2,4], with `plan` on the fusion.
std::string RowModule(const std::string& plan) {
  return absl::StrCat(fixtures::ModuleWithReducers("softmax"), R"(
fused {
  p = f32[2,4] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[2] reduce(p, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[2,4] broadcast(m), dimensions={0}
  sub = f32[2,4] subtract(p, mb)
  e = f32[2,4] exponential(sub)
  zero = f32[] constant(0)
  s = f32[2] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[2,4] broadcast(s), dimensions={0}
  ROOT out = f32[2,4] divide(e, sb)
}
ENTRY main {
  x = f32[2,4] parameter(0)
  ROOT f = f32[2,4] fusion(x), kind=kInput, calls=fused, plan=)",
                      plan, "\n}\n");
}

absl::Status VerifyText(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return VerifyModule(**module, VerifierMode::kLowered);
}

TEST(FusionPlanTest, ThePlanPrintsAfterCallsAndRoundTrips) {
  const std::string text = RowModule(
      "{kind=row, rows={2}, columns={4}, store=plain, buffered={e:1}}");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(text));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  const std::string printed = module->ToString();
  EXPECT_THAT(printed,
              HasSubstr("kind=kInput, calls=fused, plan={kind=row, rows={2}, "
                        "columns={4}, store=plain, buffered={e:1}}"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> reparsed,
                       ParseHloModule(printed));
  EXPECT_EQ(reparsed->ToString(), printed);
  // The plan is part of the instruction's identity (CSE, compile cache).
  const HloInstruction* a = module->entry_computation()->root_instruction();
  const HloInstruction* b = reparsed->entry_computation()->root_instruction();
  EXPECT_TRUE(a->IdenticalAttributes(*b));
  EXPECT_EQ(a->AttributeHash(), b->AttributeHash());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> other,
                       ParseHloModule(RowModule(
                           "{kind=row, rows={2}, columns={4}, store=plain, "
                           "buffered={}}")));
  EXPECT_FALSE(a->IdenticalAttributes(
      *other->entry_computation()->root_instruction()));
  std::unique_ptr<HloModule> clone = module->Clone();
  EXPECT_EQ(clone->ToString(), printed);
}

TEST(FusionPlanTest, VerifierRejectsRowPlansThatDoNotFit) {
  const std::string prefix = "computation 'main', instruction 'f' (fusion): ";
  EXPECT_THAT(
      VerifyText(RowModule("{kind=row, rows={2}, columns={4}, store=plain, "
                           "buffered={nope:1}}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(prefix),
                     HasSubstr("buffered value 'nope' is not in fused"))));
  EXPECT_THAT(
      VerifyText(RowModule("{kind=row, rows={4}, columns={2}, store=plain, "
                           "buffered={}}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("reduce 'm' does not reduce the columns of one "
                         "operand of dimensions {4,2}")));
  EXPECT_THAT(
      VerifyText(RowModule("{kind=row, rows={2}, columns={4}, store=plain, "
                           "buffered={m:1}}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("buffered value 'm' must be listed once, have "
                         "dimensions {2,4} and a writer phase 0..2")));
  EXPECT_THAT(
      VerifyText(RowModule("{kind=row, rows={2}, columns={4}, store=plain, "
                           "buffered={e:3}}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("a writer phase 0..2")));
  EXPECT_THAT(VerifyText(RowModule("{kind=loop, store=plain}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("loop plan {kind=loop, store=plain}: the "
                                 "fused computation has reduce 'm'")));
  EXPECT_THAT(VerifyText(RowModule("{kind=reduction, units=2}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the root must be the only reduce")));
}

// A column sum of f32[6,1000] (or a row sum with `dims` = 1).
std::string ReduceModule(const std::string& out, const std::string& dims,
                         const std::string& plan) {
  return absl::StrCat(R"(HloModule r
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
fused {
  p = f32[6,1000] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[)", out, "] reduce(p, zero), dimensions={", dims,
                      R"(}, to_apply=add
}
ENTRY main {
  x = f32[6,1000] parameter(0)
  ROOT f = f32[)", out, "] fusion(x), kind=kInput, calls=fused, plan=", plan,
                      "\n}\n");
}

TEST(FusionPlanTest, VerifierChecksReductionNumbersAgainstShapes) {
  EXPECT_OK(VerifyText(ReduceModule(
      "1000", "0",
      "{kind=reduction, units=2, column_block=512, column_blocks=2}")));
  EXPECT_THAT(
      VerifyText(ReduceModule(
          "1000", "0",
          "{kind=reduction, units=3, column_block=512, column_blocks=2}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("a reduce keeping its last dimension (1000 columns, "
                         "1 rows) needs column_block >= 1")));
  EXPECT_OK(VerifyText(ReduceModule("6", "1", "{kind=reduction, units=6}")));
  EXPECT_OK(VerifyText(ReduceModule(
      "6", "1",
      "{kind=reduction, units=12, chunks=2, chunk_elements=500, "
      "scratch_bytes=48}")));
  EXPECT_THAT(VerifyText(ReduceModule("6", "1", "{kind=reduction, units=7}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("units must be the 6 outputs")));
  EXPECT_THAT(
      VerifyText(ReduceModule(
          "6", "1",
          "{kind=reduction, units=12, chunks=2, chunk_elements=400, "
          "scratch_bytes=48}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("chunks = ceil(reduced elements (1000) / "
                         "chunk_elements)")));
  EXPECT_THAT(
      VerifyText(ReduceModule("6", "1",
                              "{kind=reduction, units=6, column_block=4, "
                              "column_blocks=250}")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("only a reduce keeping its last dimension has "
                         "column blocks")));
}

TEST(FusionPlanTest, VerifierChecksLoopPlans) {
  const std::string loop = R"(HloModule l
fused {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fused, plan=PLAN
}
)";
  auto with = [&](const std::string& plan) {
    std::string text = loop;
    text.replace(text.find("PLAN"), 4, plan);
    return VerifyText(text);
  };
  EXPECT_OK(with("{kind=loop, store=streaming}"));
  EXPECT_OK(with("{kind=loop, store=plain, one_unit=true}"));
  EXPECT_THAT(with("{kind=loop, store=streaming, one_unit=true}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("streaming stores need a split")));
  EXPECT_THAT(with("{kind=reduction, units=4}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the root must be the only reduce")));
  EXPECT_THAT(with("{kind=row, rows={4}, columns={1}, store=plain, "
                   "buffered={}}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a row fusion needs rows, columns and a "
                                 "reduce")));
}

}  // namespace
}  // namespace mxla
