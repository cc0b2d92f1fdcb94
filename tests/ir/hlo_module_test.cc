// HloInstruction/HloComputation/HloModule: naming, use lists, rewriting,
// orders, cloning, and the printer's exact text.
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::ElementsAre;

Shape F32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(mxla::F32, dims); }

struct Fixture {
  std::unique_ptr<HloModule> module = std::make_unique<HloModule>("m");
  HloComputation* entry = module->AddComputation("main", /*is_entry=*/true);
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    return entry->AddInstruction(std::move(instruction));
  }
};

TEST(HloModuleTest, NamesAreUniqueAndDeterministic) {
  Fixture f;
  HloInstruction* x = f.Add(HloInstruction::CreateParameter(0, F32({2}), "x"));
  HloInstruction* a = f.Add(HloInstruction::CreateUnary(F32({2}), HloOpcode::kNegate, x));
  HloInstruction* b = f.Add(HloInstruction::CreateUnary(F32({2}), HloOpcode::kNegate, a));
  HloInstruction* x2 = f.Add(HloInstruction::CreateParameter(1, F32({2}), "x"));
  EXPECT_EQ(a->name(), "negate");
  EXPECT_EQ(b->name(), "negate.1");
  EXPECT_EQ(x2->name(), "x.1");
  EXPECT_NE(a->unique_id(), b->unique_id());
  EXPECT_EQ(f.entry->parameter_instruction(1), x2);
  EXPECT_EQ(f.entry->parameter_instruction(2), nullptr);
}

// Parameters found by number whatever order they were added in (in
// order, the lookup looks at one; out of order, it searches), and after
// one is removed and the rest renumbered.
TEST(HloModuleTest, ParametersAreFoundByNumberInAnyOrder) {
  Fixture f;
  HloInstruction* p2 = f.Add(HloInstruction::CreateParameter(2, F32({2}), "c"));
  HloInstruction* p0 = f.Add(HloInstruction::CreateParameter(0, F32({2}), "a"));
  HloInstruction* p1 = f.Add(HloInstruction::CreateParameter(1, F32({2}), "b"));
  EXPECT_EQ(f.entry->parameter_instruction(0), p0);
  EXPECT_EQ(f.entry->parameter_instruction(1), p1);
  EXPECT_EQ(f.entry->parameter_instruction(2), p2);
  EXPECT_EQ(f.entry->parameter_instruction(3), nullptr);
  EXPECT_EQ(f.entry->parameter_instruction(-1), nullptr);
  p2->set_parameter_number(0);
  p0->set_parameter_number(2);
  EXPECT_EQ(f.entry->parameter_instruction(0), p2);
  EXPECT_EQ(f.entry->parameter_instruction(2), p0);
  Fixture g;
  std::vector<HloInstruction*> in_order;
  for (int i = 0; i < 5; ++i) {
    in_order.push_back(
        g.Add(HloInstruction::CreateParameter(i, F32({1}), "p")));
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(g.entry->parameter_instruction(i), in_order[i]) << i;
  }
}

// Copies of copies (fusion clones a fused instruction again) continue the
// original's numbering instead of growing "add.1.1.1".
TEST(HloModuleTest, TakenNumberedNamesContinueTheBaseNumbering) {
  HloModule module("m");
  EXPECT_EQ(module.UniqueInstructionName("add"), "add");
  EXPECT_EQ(module.UniqueInstructionName("add"), "add.1");
  EXPECT_EQ(module.UniqueInstructionName("add.1"), "add.2");
  EXPECT_EQ(module.UniqueInstructionName("add.2"), "add.3");
  // A free numbered name is kept as written (parsed modules keep theirs).
  EXPECT_EQ(module.UniqueInstructionName("mul.7"), "mul.7");
  EXPECT_EQ(module.UniqueInstructionName("mul.7"), "mul.1");
  // Only a purely numeric last part is a suffix.
  EXPECT_EQ(module.UniqueInstructionName("y.b"), "y.b");
  EXPECT_EQ(module.UniqueInstructionName("y.b"), "y.b.1");
  EXPECT_EQ(module.UniqueInstructionName("y.b.1"), "y.b.2");
}

TEST(HloModuleTest, UsersFollowOperandChanges) {
  Fixture f;
  HloInstruction* x = f.Add(HloInstruction::CreateParameter(0, F32({2}), "x"));
  HloInstruction* y = f.Add(HloInstruction::CreateParameter(1, F32({2}), "y"));
  HloInstruction* sum = f.Add(HloInstruction::CreateBinary(F32({2}), HloOpcode::kAdd, x, x));
  EXPECT_THAT(x->users(), ElementsAre(sum));  // Listed once.
  sum->ReplaceOperandWith(0, y);
  EXPECT_THAT(x->users(), ElementsAre(sum));  // Still operand 1.
  EXPECT_THAT(y->users(), ElementsAre(sum));
  sum->ReplaceOperandWith(1, y);
  EXPECT_TRUE(x->users().empty());
  f.entry->set_root_instruction(sum);
  HloInstruction* neg = f.Add(HloInstruction::CreateUnary(F32({2}), HloOpcode::kNegate, y));
  f.entry->ReplaceInstruction(sum, neg);
  EXPECT_EQ(f.entry->root_instruction(), neg);
  EXPECT_FALSE(f.entry->RemoveInstruction(y).ok());  // Still used by neg.
  EXPECT_OK(f.entry->RemoveInstruction(sum));
  EXPECT_TRUE(y->users().size() == 1 && y->users()[0] == neg);
  EXPECT_OK(f.entry->RemoveInstruction(x));
  EXPECT_EQ(f.entry->num_parameters(), 1);
}

TEST(HloModuleTest, PostOrderPutsOperandsFirstWhateverTheInsertionOrder) {
  Fixture f;
  HloInstruction* x = f.Add(HloInstruction::CreateParameter(0, F32({2}), "x"));
  HloInstruction* neg = f.Add(HloInstruction::CreateUnary(F32({2}), HloOpcode::kNegate, x));
  f.entry->set_root_instruction(neg);
  // A pass inserts `abs` later and makes the earlier `neg` use it.
  HloInstruction* abs = f.Add(HloInstruction::CreateUnary(F32({2}), HloOpcode::kAbs, x));
  neg->ReplaceOperandWith(0, abs);
  EXPECT_THAT(f.entry->MakeInstructionPostOrder(), ElementsAre(x, abs, neg));
}

TEST(HloModuleTest, DeepChainsDoNotOverflowTheStack) {
  Fixture f;
  HloInstruction* last = f.Add(HloInstruction::CreateParameter(0, F32({}), "x"));
  for (int i = 0; i < 200000; ++i) {
    last = f.Add(HloInstruction::CreateUnary(F32({}), HloOpcode::kNegate, last));
  }
  f.entry->set_root_instruction(last);
  EXPECT_EQ(f.entry->MakeInstructionPostOrder().size(), 200001u);
  std::unique_ptr<HloModule> clone = f.module->Clone();
  EXPECT_EQ(clone->entry_computation()->instruction_count(), 200001);
}

std::unique_ptr<HloModule> ModuleWithReducer() {
  auto module = std::make_unique<HloModule>("reduce");
  HloComputation* add = module->AddComputation("add", false);
  HloInstruction* a = add->AddInstruction(HloInstruction::CreateParameter(0, F32({}), "a"));
  HloInstruction* b = add->AddInstruction(HloInstruction::CreateParameter(1, F32({}), "b"));
  add->set_root_instruction(add->AddInstruction(
      HloInstruction::CreateBinary(F32({}), HloOpcode::kAdd, a, b)));
  HloComputation* main = module->AddComputation("main", true);
  HloInstruction* x = main->AddInstruction(HloInstruction::CreateParameter(0, F32({2, 3}), "x"));
  HloInstruction* zero = main->AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<float>(0)));
  main->set_root_instruction(main->AddInstruction(
      HloInstruction::CreateReduce(F32({2}), {x, zero}, {1}, add)));
  return module;
}

TEST(HloModuleTest, PrinterWritesHloText) {
  std::unique_ptr<HloModule> module = ModuleWithReducer();
  EXPECT_EQ(module->ToString(),
            "HloModule reduce\n"
            "\n"
            "add {\n"
            "  a = f32[] parameter(0)\n"
            "  b = f32[] parameter(1)\n"
            "  ROOT add.1 = f32[] add(a, b)\n"
            "}\n"
            "\n"
            "ENTRY main {\n"
            "  x = f32[2,3]{1,0} parameter(0)\n"
            "  constant = f32[] constant(0)\n"
            "  ROOT reduce = f32[2]{0} reduce(x, constant), dimensions={1}, "
            "to_apply=add\n"
            "}\n");
}

TEST(HloModuleTest, PrinterWritesEveryAttribute) {
  Fixture f;
  HloInstruction* x = f.Add(HloInstruction::CreateParameter(0, F32({2, 3}), "x"));
  HloInstruction* v = f.Add(HloInstruction::CreateParameter(1, F32({3}), "v"));
  HloInstruction* lt = f.Add(HloInstruction::CreateCompare(
      ShapeUtil::MakeShape(PRED, {2, 3}), x, v, ComparisonDirection::kLt,
      std::vector<int64_t>{1}));
  HloInstruction* iota = f.Add(HloInstruction::CreateIota(ShapeUtil::MakeShape(S32, {2, 3}), 1));
  HloInstruction* tuple = f.Add(HloInstruction::CreateTuple({lt, iota}));
  HloInstruction* gte = f.Add(HloInstruction::CreateGetTupleElement(
      ShapeUtil::MakeShape(S32, {2, 3}), tuple, 1));
  HloInstruction* t = f.Add(HloInstruction::CreateTranspose(
      ShapeUtil::MakeShape(S32, {3, 2}), gte, {1, 0}));
  EXPECT_EQ(lt->ToString(),
            "compare = pred[2,3]{1,0} compare(x, v), direction=LT, "
            "broadcast_dimensions={1}");
  EXPECT_EQ(iota->ToString(), "iota = s32[2,3]{1,0} iota(), iota_dimension=1");
  EXPECT_EQ(tuple->ToString(),
            "tuple = (pred[2,3]{1,0}, s32[2,3]{1,0}) tuple(compare, iota)");
  EXPECT_EQ(gte->ToString(),
            "get-tuple-element = s32[2,3]{1,0} get-tuple-element(tuple), index=1");
  EXPECT_EQ(t->ToString(), "transpose = s32[3,2]{1,0} transpose(get-tuple-element), dimensions={1,0}");
}

TEST(HloModuleTest, CloneIsDeepAndPrintsTheSame) {
  std::unique_ptr<HloModule> module = ModuleWithReducer();
  std::unique_ptr<HloModule> clone = module->Clone();
  EXPECT_EQ(clone->ToString(), module->ToString());
  const HloInstruction* reduce = clone->entry_computation()->root_instruction();
  EXPECT_EQ(reduce->to_apply()->parent(), clone.get());
  EXPECT_NE(reduce->to_apply(), module->entry_computation()->root_instruction()->to_apply());
}

TEST(HloModuleTest, DeepCopyAndUnusedComputations) {
  std::unique_ptr<HloModule> source = ModuleWithReducer();
  auto target = std::make_unique<HloModule>("target");
  HloComputation* copy = target->DeepCopyComputation(*source->entry_computation());
  EXPECT_EQ(target->computations().size(), 2u);
  EXPECT_EQ(copy->root_instruction()->to_apply()->parent(), target.get());
  target->set_entry_computation(copy);
  target->AddComputation("unused", false);
  EXPECT_EQ(target->computations().size(), 3u);
  target->RemoveUnusedComputations();
  EXPECT_EQ(target->computations().size(), 2u);
  std::vector<HloComputation*> order = target->MakeComputationPostOrder();
  EXPECT_EQ(order.back(), copy);
}

TEST(HloModuleTest, IdenticalIgnoringName) {
  Fixture f;
  HloInstruction* x = f.Add(HloInstruction::CreateParameter(0, F32({2}), "x"));
  HloInstruction* a = f.Add(HloInstruction::CreateBroadcast(F32({3, 2}), x, {1}));
  HloInstruction* b = f.Add(HloInstruction::CreateBroadcast(F32({3, 2}), x, {1}));
  HloInstruction* c = f.Add(HloInstruction::CreateBroadcast(F32({2, 2}), x, {0}));
  EXPECT_TRUE(a->IdenticalIgnoringName(*b));
  EXPECT_FALSE(a->IdenticalIgnoringName(*c));
  HloInstruction* one = f.Add(HloInstruction::CreateConstant(LiteralUtil::CreateR0<float>(1)));
  HloInstruction* two = f.Add(HloInstruction::CreateConstant(LiteralUtil::CreateR0<float>(2)));
  EXPECT_FALSE(one->IdenticalIgnoringName(*two));
}

}  // namespace
}  // namespace mxla
