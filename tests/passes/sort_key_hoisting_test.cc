// hoist-sort-keys: JAX's canonicalizing float comparator becomes a key
// operand g(x) sorted by compare(p0, p1), which the interpreter evaluates
// to the same bits as the original; comparators that are not one function
// of one operand's pair (two operands read, a lexicographic tie-break,
// different functions on the two sides, an inexact op, swapped sides) or
// that are already trivial are left alone. MatchTrivialSortComparator reads
// the key operand, type and direction of the trivial form.
#include "passes/sort_key_hoisting.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "passes/dce.h"
#include "semantics/scalar_semantics.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::testing::HasSubstr;

// A sort of (x, iota) along dimension 1 of [2, 6] with `comparator`'s body
// (parameters a, b: the x pair; i, j: the iota pair).
std::string SortWith(const std::string& type, const std::string& body) {
  return absl::StrReplaceAll(R"(HloModule m
cmp {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
$BODY
}
ENTRY main {
  x = $T[2,6] parameter(0)
  k = s32[2,6] iota(), iota_dimension=1
  s = ($T[2,6], s32[2,6]) sort(x, k), dimensions={1}, to_apply=cmp
  v = $T[2,6] get-tuple-element(s), index=0
  p = s32[2,6] get-tuple-element(s), index=1
  ROOT t = ($T[2,6], s32[2,6]) tuple(v, p)
})",
                             {{"$T", type}, {"$BODY", body}});
}

// JAX's comparator: NaN made one quiet NaN, -0 made +0, then TOTALORDER.
const char kJaxBody[] = R"(  nan = $T[] constant(nan)
  zero = $T[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = $T[] select(a_zero, zero, a)
  ga = $T[] select(a_nan, nan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = $T[] select(b_zero, zero, b)
  gb = $T[] select(b_nan, nan, b0)
  ROOT lt = pred[] compare(ga, gb), direction=LT, type=TOTALORDER)";

struct PassResult {
  std::unique_ptr<HloModule> module;
  bool changed = false;
};

PassResult RunPass(const std::string& text) {
  PassResult result;
  result.module = ParseHloModule(text).value();
  absl::StatusOr<bool> changed = SortKeyHoistingPass().Run(*result.module);
  EXPECT_OK(changed.status());
  EXPECT_OK(DcePass().Run(*result.module).status());
  EXPECT_OK(VerifyModule(*result.module, VerifierMode::kBuilder))
      << result.module->ToString();
  result.changed = changed.value_or(false);
  return result;
}

const HloInstruction* FindSort(const HloModule& module) {
  for (const HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kSort) return instruction;
  }
  return nullptr;
}

TEST(SortKeyHoistingTest, JaxComparatorBecomesAKeyOperand) {
  for (const char* type : {"bf16", "f32", "f16", "f64"}) {
    const std::string text =
        SortWith(type, absl::StrReplaceAll(kJaxBody, {{"$T", type}}));
    PassResult result = RunPass(text);
    ASSERT_TRUE(result.changed) << type;
    const HloInstruction* sort = FindSort(*result.module);
    ASSERT_NE(sort, nullptr);
    ASSERT_EQ(sort->operand_count(), 3) << result.module->ToString();
    EXPECT_EQ(sort->operand(0)->opcode(), HloOpcode::kSelect);
    const std::optional<TrivialSortComparator> trivial =
        MatchTrivialSortComparator(*sort->to_apply());
    ASSERT_TRUE(trivial.has_value()) << result.module->ToString();
    EXPECT_EQ(trivial->operand, 0);
    EXPECT_TRUE(trivial->total_order);
    EXPECT_FALSE(trivial->descending);
    EXPECT_EQ(primitive_util::LowercaseName(trivial->type), type);
    EXPECT_THAT(sort->to_apply()->ToString(),
                HasSubstr("compare(key.lhs, key.rhs), direction=LT, "
                          "type=TOTALORDER"));
    // The interpreter gives the same bits before and after: NaNs, -0 and
    // +0, duplicates.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::unique_ptr<HloModule> original = ParseHloModule(text).value();
    ASSERT_OK_AND_ASSIGN(
        Literal x,
        semantics::ApplyConvert(
            LiteralUtil::CreateR2<float>({{2, -0.0f, nan, 0, -nan, 2},
                                          {-1, 0, -0.0f, 1, nan, -1}}),
            original->entry_computation()
                ->parameter_instruction(0)
                ->shape()
                .element_type()));
    ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*original, {&x}));
    ASSERT_OK_AND_ASSIGN(Literal actual, EvaluateModule(*result.module, {&x}));
    EXPECT_EQ(expected, actual) << type;
  }
}

// A single-operand sort keeps its array result; the key is operand 0 of
// the new sort and its result is dropped.
TEST(SortKeyHoistingTest, SingleOperandSortKeepsItsShape) {
  const std::string text = R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  na = f32[] negate(a)
  nb = f32[] negate(b)
  ROOT gt = pred[] compare(na, nb), direction=GT
}
ENTRY main {
  x = f32[3,5] parameter(0)
  ROOT s = f32[3,5] sort(x), dimensions={0}, to_apply=cmp
})";
  PassResult result = RunPass(text);
  ASSERT_TRUE(result.changed);
  const HloInstruction* root =
      result.module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(root->tuple_index(), 1);
  EXPECT_EQ(root->shape().ToString(), "f32[3,5]");
  const std::optional<TrivialSortComparator> trivial =
      MatchTrivialSortComparator(*FindSort(*result.module)->to_apply());
  ASSERT_TRUE(trivial.has_value());
  EXPECT_TRUE(trivial->descending);
  EXPECT_FALSE(trivial->total_order);
  Literal x = LiteralUtil::CreateR2<float>(
      {{3, 1, 2, 2, -0.0f}, {0, 5, -1, 2, 4}, {3, -2, 2, 7, 0}});
  std::unique_ptr<HloModule> original = ParseHloModule(text).value();
  ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*original, {&x}));
  ASSERT_OK_AND_ASSIGN(Literal actual, EvaluateModule(*result.module, {&x}));
  EXPECT_EQ(expected, actual);
}

// The key on a later operand: g reads the iota pair.
TEST(SortKeyHoistingTest, KeyOnALaterOperand) {
  PassResult result = RunPass(SortWith("f32", R"(  ni = s32[] negate(i)
  nj = s32[] negate(j)
  ROOT lt = pred[] compare(ni, nj), direction=LT)"));
  ASSERT_TRUE(result.changed);
  const HloInstruction* sort = FindSort(*result.module);
  EXPECT_EQ(sort->operand(0)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(sort->operand(0)->operand(0)->opcode(), HloOpcode::kIota);
}

TEST(SortKeyHoistingTest, RefusesOtherComparators) {
  const std::vector<std::string> bodies = {
      // Already trivial.
      "  ROOT lt = pred[] compare(a, b), direction=LT",
      // Reads both operands' pairs.
      "  ca = f32[] convert(i)\n  cb = f32[] convert(j)\n"
      "  ga = f32[] add(a, ca)\n  gb = f32[] add(b, cb)\n"
      "  ROOT lt = pred[] compare(ga, gb), direction=LT",
      // A lexicographic tie-break on the iota.
      "  eq = pred[] compare(a, b), direction=EQ\n"
      "  li = pred[] compare(i, j), direction=LT\n"
      "  la = pred[] compare(a, b), direction=LT\n"
      "  ROOT r = pred[] select(eq, li, la)",
      // Different functions on the two sides.
      "  ga = f32[] negate(a)\n  gb = f32[] abs(b)\n"
      "  ROOT lt = pred[] compare(ga, gb), direction=LT",
      // Different constants on the two sides.
      "  one = f32[] constant(1)\n  two = f32[] constant(2)\n"
      "  za = pred[] compare(a, one), direction=EQ\n"
      "  zb = pred[] compare(b, two), direction=EQ\n"
      "  ga = f32[] select(za, one, a)\n  gb = f32[] select(zb, one, b)\n"
      "  ROOT lt = pred[] compare(ga, gb), direction=LT",
      // An op that may round or make a NaN of its own.
      "  one = f32[] constant(1)\n  ga = f32[] add(a, one)\n"
      "  gb = f32[] add(b, one)\n"
      "  ROOT lt = pred[] compare(ga, gb), direction=LT",
      // Swapped sides: g(b) on the left.
      "  ga = f32[] negate(a)\n  gb = f32[] negate(b)\n"
      "  ROOT lt = pred[] compare(gb, ga), direction=LT",
      // Not a compare at the root.
      "  ROOT t = pred[] constant(true)",
  };
  for (const std::string& body : bodies) {
    const std::string text = SortWith("f32", body);
    PassResult result = RunPass(text);
    EXPECT_FALSE(result.changed) << body;
    EXPECT_EQ(FindSort(*result.module)->operand_count(), 2) << body;
  }
}

TEST(SortKeyHoistingTest, MatchTrivialSortComparator) {
  auto match = [](const std::string& type, const std::string& body) {
    std::unique_ptr<HloModule> module =
        ParseHloModule(SortWith(type, body)).value();
    return MatchTrivialSortComparator(*FindSort(*module)->to_apply());
  };
  std::optional<TrivialSortComparator> iota =
      match("u16", "  ROOT gt = pred[] compare(i, j), direction=GT");
  ASSERT_TRUE(iota.has_value());
  EXPECT_EQ(iota->operand, 1);
  EXPECT_EQ(iota->type, S32);
  EXPECT_TRUE(iota->descending);
  // LE is no strict weak order; (b, a) and (a, i) are not the pair of one
  // operand in order.
  EXPECT_FALSE(match("f32", "  ROOT le = pred[] compare(a, b), direction=LE")
                   .has_value());
  EXPECT_FALSE(match("f32", "  ROOT lt = pred[] compare(b, a), direction=LT")
                   .has_value());
  EXPECT_FALSE(match("s32", "  ROOT lt = pred[] compare(a, i), direction=LT")
                   .has_value());
}

}  // namespace
}  // namespace mxla
