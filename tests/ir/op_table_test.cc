// The op table (ir/hlo_ops.def) and the generic code over it: attribute
// bag, clone primitive, printing and parsing of every attribute, and the
// verifier's attribute checks.
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_attribute.h"
#include "ir/hlo_clone.h"
#include "ir/hlo_module.h"
#include "ir/hlo_verifier.h"
#include "ir/literal.h"
#include "ir/op_spec.h"
#include "ir/shape_util.h"
#include "shape_inference/op_shape_rules.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::IsOk;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(OpTableTest, EveryOpcodeHasItsOwnEntryInEnumOrder) {
  const std::vector<OpSpec>& table = AllOpSpecs();
  for (size_t i = 0; i < table.size(); ++i) {
    HloOpcode opcode = static_cast<HloOpcode>(i);
    EXPECT_EQ(GetOpSpec(opcode).opcode, opcode) << table[i].text;
    EXPECT_EQ(StringToHloOpcode(table[i].text).value(), opcode);
    EXPECT_NE(GetShapeRule(opcode), nullptr) << table[i].text;
    EXPECT_FALSE(table[i].builder.empty()) << table[i].text;
  }
}

TEST(OpTableTest, CategoriesAgreeWithArityAndAttributes) {
  for (const OpSpec& spec : AllOpSpecs()) {
    switch (spec.category) {
      case HloOpcodeCategory::kLeaf:
        EXPECT_EQ(spec.arity, 0) << spec.text;
        break;
      case HloOpcodeCategory::kUnary:
        EXPECT_EQ(spec.arity, 1) << spec.text;
        break;
      case HloOpcodeCategory::kBinary:
      case HloOpcodeCategory::kCompare:
        EXPECT_EQ(spec.arity, 2) << spec.text;
        // The builder's implicit broadcast is what makes them binary ops.
        EXPECT_NE(spec.FindAttribute(AttrId::kBroadcastDimensions), nullptr)
            << spec.text;
        break;
      case HloOpcodeCategory::kOther:
        break;
    }
  }
}

TEST(OpTableTest, TypeRulesAndCostComeFromTheTable) {
  EXPECT_EQ(GetOpSpec(HloOpcode::kExp).type_rule, TypeRule::kFloating);
  EXPECT_EQ(GetOpSpec(HloOpcode::kNot).type_rule, TypeRule::kPredOrIntegral);
  EXPECT_EQ(GetOpSpec(HloOpcode::kSubtract).type_rule, TypeRule::kArithmetic);
  EXPECT_TRUE(IsExpensiveElementwise(HloOpcode::kDivide));
  EXPECT_FALSE(IsExpensiveElementwise(HloOpcode::kAdd));
  EXPECT_EQ(GetOpSpec(HloOpcode::kSubtract).builder, "Sub");
  EXPECT_EQ(GetOpSpec(HloOpcode::kReduce).called_computation_count(), 1);
  EXPECT_EQ(GetOpSpec(HloOpcode::kAdd).called_computation_count(), 0);
}

TEST(HloAttributesTest, SetKeepsIdsSortedAndUnique) {
  HloAttributes bag;
  bag.Set(AttrId::kTupleIndex, int64_t{3});
  bag.Set(AttrId::kDimensions, std::vector<int64_t>{1, 0});
  bag.Set(AttrId::kTupleIndex, int64_t{4});
  ASSERT_EQ(bag.entries().size(), 2u);
  EXPECT_EQ(bag.entries()[0].first, AttrId::kDimensions);
  EXPECT_EQ(*bag.Get<int64_t>(AttrId::kTupleIndex), 4);
  EXPECT_EQ(bag.Get<int64_t>(AttrId::kDimensions), nullptr);  // wrong type
  bag.Erase(AttrId::kDimensions);
  EXPECT_FALSE(bag.Has(AttrId::kDimensions));
}

TEST(HloAttributesTest, LiteralsCompareAndHashByValue) {
  auto make = [](float value) {
    HloAttributes bag;
    bag.Set(AttrId::kLiteral, std::make_shared<const Literal>(
                                  LiteralUtil::CreateR1<float>({value, 2})));
    return bag;
  };
  EXPECT_EQ(make(1), make(1));
  EXPECT_EQ(make(1).Hash(), make(1).Hash());
  EXPECT_FALSE(make(1) == make(3));
  EXPECT_FALSE(make(1) == HloAttributes());
}

// A module with every kind of attribute value: positional, int, list,
// direction, fusion kind, computations, broadcast_dimensions, metadata.
constexpr char kEveryAttribute[] = R"(HloModule attrs

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p = f32[2,3]{1,0} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(p)
}

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  c = f32[] constant(0)
  i = s32[2,3]{1,0} iota(), iota_dimension=1
  sum = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
  lt = pred[2,3]{1,0} compare(sum, x), direction=LT
  t = f32[3,2]{1,0} transpose(x), dimensions={1,0}
  r = f32[2]{0} reduce(x, c), dimensions={1}, to_apply=add
  f = f32[2,3]{1,0} fusion(x), kind=kLoop, calls=fused
  tuple = (f32[2]{0}, pred[2,3]{1,0}, s32[2,3]{1,0}, f32[3,2]{1,0}, f32[2,3]{1,0}) tuple(r, lt, i, t, f)
  ROOT g = f32[2]{0} get-tuple-element(tuple), index=0, metadata={op_name="Add" source_file="a.cc" source_line=3}
}
)";

TEST(OpTableTest, EveryAttributeKindRoundTrips) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(kEveryAttribute);
  ASSERT_THAT(module.status(), IsOk());
  ASSERT_THAT(VerifyModule(**module, VerifierMode::kBuilder), IsOk());
  const std::string printed = (*module)->ToString({.metadata = true});
  absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(printed);
  ASSERT_THAT(again.status(), IsOk());
  EXPECT_EQ((*again)->ToString({.metadata = true}), printed);
  EXPECT_THAT(printed, HasSubstr("compare(sum, x), direction=LT"));
  EXPECT_THAT(printed,
              HasSubstr("reduce(x, c), dimensions={1}, to_apply=add"));
  EXPECT_THAT(printed, HasSubstr("fusion(x), kind=kLoop, calls=fused"));
}

TEST(OpTableTest, CloneWithNewOperandsCopiesEverythingButOperandsAndShape) {
  std::unique_ptr<HloModule> module = ParseHloModule(kEveryAttribute).value();
  const HloComputation* entry = module->entry_computation();
  for (const HloInstruction* original : entry->instructions()) {
    std::unique_ptr<HloInstruction> clone = original->CloneWithNewOperands(
        original->shape(), original->operands());
    EXPECT_TRUE(clone->IdenticalIgnoringName(*original)) << original->name();
    EXPECT_EQ(clone->name(), original->name());
    EXPECT_EQ(clone->metadata().op_name, original->metadata().op_name);
    EXPECT_EQ(clone->AttributeHash(), original->AttributeHash());
  }
}

TEST(OpTableTest, DestroyingAnUnaddedInstructionDetachesItsOperands) {
  std::unique_ptr<HloModule> module = ParseHloModule(kEveryAttribute).value();
  HloInstruction* x = module->entry_computation()->parameter_instruction(0);
  const int64_t users = x->user_count();
  {
    std::unique_ptr<HloInstruction> dropped =
        HloInstruction::CreateUnary(x->shape(), HloOpcode::kNegate, x);
    EXPECT_EQ(x->user_count(), users + 1);
  }
  EXPECT_EQ(x->user_count(), users);
}

TEST(OpTableTest, CloneInstructionsIntoMapsOperandsAndCallees) {
  std::unique_ptr<HloModule> module = ParseHloModule(kEveryAttribute).value();
  std::unique_ptr<HloModule> copy = module->Clone();
  EXPECT_EQ(copy->ToString(), module->ToString());
  for (const HloComputation* computation : copy->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) {
        EXPECT_EQ(callee->parent(), copy.get()) << instruction->name();
      }
    }
  }
}

TEST(OpTableTest, VerifierRejectsAttributesTheOpDoesNotTake) {
  std::unique_ptr<HloModule> module = ParseHloModule(kEveryAttribute).value();
  HloInstruction* t = nullptr;
  for (HloInstruction* instruction :
       module->entry_computation()->instructions()) {
    if (instruction->name() == "t") t = instruction;
  }
  ASSERT_NE(t, nullptr);
  t->set_tuple_index(1);
  EXPECT_THAT(VerifyModule(*module, VerifierMode::kBuilder),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("instruction 't' (transpose): transpose "
                                 "does not take attribute 'index'")));
}

TEST(OpTableTest, VerifierRejectsAMissingRequiredAttribute) {
  std::unique_ptr<HloModule> module = ParseHloModule(kEveryAttribute).value();
  HloInstruction* t = nullptr;
  for (HloInstruction* instruction :
       module->entry_computation()->instructions()) {
    if (instruction->name() == "t") t = instruction;
  }
  ASSERT_NE(t, nullptr);
  t->mutable_attributes().Erase(AttrId::kDimensions);
  EXPECT_THAT(VerifyModule(*module, VerifierMode::kBuilder),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("missing attribute 'dimensions'")));
}

TEST(OpTableTest, ParserRejectsAPositionalAttributeWrittenAsAKey) {
  EXPECT_THAT(ParseHloModule(R"(HloModule m
ENTRY e {
  ROOT p = f32[] parameter(0), parameter_number=0
})")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown attribute 'parameter_number' for "
                                 "parameter")));
}

}  // namespace
}  // namespace mxla
