// Names given through the API are sanitized when modules, computations and
// instructions are created (ir/hlo_name.h), as XLA's
// NameUniquer::GetSanitizedName does, so that every printed module parses
// back: a jitted Python `lambda` once printed `HloModule <lambda>`.
#include "ir/hlo_name.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

TEST(HloNameTest, SanitizeFollowsXlasRule) {
  EXPECT_EQ(SanitizeHloName("<lambda>"), "_lambda_");
  EXPECT_EQ(SanitizeHloName("my model"), "my_model");
  EXPECT_EQ(SanitizeHloName("1st"), "_st");  // XLA replaces, not prefixes
  EXPECT_EQ(SanitizeHloName("x.1-a_B9"), "x.1-a_B9");
  EXPECT_EQ(SanitizeHloName("a->b"), "a-_b");
  EXPECT_EQ(SanitizeHloName("z\xc3\xa9"), "z__");  // "zé": a '_' a byte
  EXPECT_EQ(SanitizeHloName("f32"), "f32_");
  EXPECT_EQ(SanitizeHloName("token"), "token_");
  EXPECT_EQ(SanitizeHloName("tuple"), "tuple");
  EXPECT_EQ(SanitizeHloName("__init__"), "a_init__");
  EXPECT_EQ(SanitizeHloName("__xla_x"), "__xla_x");
  EXPECT_EQ(SanitizeHloName(""), "");
}

// Pieces that names are made of: what a Python or C++ user may pass, and
// what HLO text gives a meaning to.
const std::vector<std::string>& NamePieces() {
  static const std::vector<std::string> pieces = {
      "<lambda>", " ",    ".",    "\xc3\xa9", "\xce\xbb", "0",    "7",
      "-",        "_",    "a",    "Z",        "x.1",      "f32",  "token",
      "ROOT",     "ENTRY", "HloModule", "FileNames", ">",   "->",   "%",
      "\"",       "{",    "}",    "(",        ",",        "=",    "#",
      "/*",       "//",   "\n",   "\t",       "...",      "__"};
  return pieces;
}

std::string RandomName(std::mt19937& rng) {
  const std::vector<std::string>& pieces = NamePieces();
  std::uniform_int_distribution<size_t> count(1, 4);
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1);
  std::string name;
  for (size_t n = count(rng); n > 0; --n) name += pieces[pick(rng)];
  return name;
}

// A module of two computations (a reducer and the entry) whose module,
// computation and instruction names are the given ones.
std::unique_ptr<HloModule> ModuleNamed(const std::vector<std::string>& names) {
  size_t next = 0;
  auto name = [&] { return names[next++ % names.size()]; };
  const Shape scalar = ShapeUtil::MakeScalarShape(F32);
  auto module = std::make_unique<HloModule>(name());
  HloComputation* add = module->AddComputation(name(), /*is_entry=*/false);
  HloInstruction* lhs =
      add->AddInstruction(HloInstruction::CreateParameter(0, scalar, name()));
  HloInstruction* rhs =
      add->AddInstruction(HloInstruction::CreateParameter(1, scalar, name()));
  auto sum = HloInstruction::CreateBinary(scalar, HloOpcode::kAdd, lhs, rhs);
  sum->set_name(name());
  add->set_root_instruction(add->AddInstruction(std::move(sum)));

  HloComputation* entry = module->AddComputation(name(), /*is_entry=*/true);
  HloInstruction* x = entry->AddInstruction(HloInstruction::CreateParameter(
      0, ShapeUtil::MakeShape(F32, {4}), name()));
  auto zero = HloInstruction::CreateConstant(Literal(scalar));
  zero->set_name(name());
  HloInstruction* init = entry->AddInstruction(std::move(zero));
  auto reduce = HloInstruction::CreateReduce(scalar, {x, init}, {0}, add);
  reduce->set_name(name());
  HloInstruction* total = entry->AddInstruction(std::move(reduce));
  auto negate = HloInstruction::CreateUnary(scalar, HloOpcode::kNegate, total);
  negate->set_name(name());
  entry->set_root_instruction(entry->AddInstruction(std::move(negate)));
  return module;
}

// Every name of the module, in order: module, then per computation its own
// and its instructions'.
std::vector<std::string> AllNames(const HloModule& module) {
  std::vector<std::string> names = {module.name()};
  for (const HloComputation* computation : module.MakeComputationPostOrder()) {
    names.push_back(computation->name());
    for (const HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      names.push_back(instruction->name());
    }
  }
  return names;
}

void ExpectReadsBack(const HloModule& module, const std::string& label) {
  const std::string printed = module.ToString();
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(printed);
  ASSERT_TRUE(parsed.ok()) << label << ": " << parsed.status() << "\n"
                           << printed;
  EXPECT_EQ((*parsed)->ToString(), printed) << label;
  EXPECT_EQ(AllNames(**parsed), AllNames(module)) << label;
}

TEST(HloNameTest, RandomNamesReadBack) {
  std::mt19937 rng(35);
  // The reported names first, then random ones.
  ExpectReadsBack(*ModuleNamed({"<lambda>"}), "<lambda>");
  ExpectReadsBack(*ModuleNamed({"my model", "a b", "a_b", "9lives", "x.y.z",
                                "\xce\xbb", "f32", "ROOT"}),
                  "fixed");
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::string> names;
    for (int i = 0; i < 9; ++i) names.push_back(RandomName(rng));
    ExpectReadsBack(*ModuleNamed(names), absl::StrCat("trial ", trial));
  }
}

// Names that sanitize alike stay unique in the module.
TEST(HloNameTest, SanitizedNamesStayUnique) {
  std::unique_ptr<HloModule> module =
      ModuleNamed({"m", "a b", "a b", "a_b", "a?b", "a b", "a b", "a b", "a b"});
  EXPECT_EQ(module->name(), "m");
  const std::vector<std::string> names = AllNames(*module);
  EXPECT_EQ(names[1], "a_b");  // the reducer
  // Its parameters and root: the computation's name is taken.
  EXPECT_EQ(names[2], "a_b.1");
  EXPECT_EQ(names[3], "a_b.2");
  EXPECT_EQ(names[4], "a_b.3");
}

// The builder names the module and entry after its own name, which a
// Python `lambda` makes `<lambda>`.
TEST(HloNameTest, BuilderNamesReadBack) {
  XlaBuilder builder("<lambda>");
  XlaOp x = Parameter(&builder, 0, ShapeUtil::MakeShape(F32, {3}), "my x");
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, builder.Build(Neg(x)));
  EXPECT_EQ(computation.name(), "_lambda_");
  EXPECT_EQ(computation.module().entry_computation()->name(), "_lambda_");
  EXPECT_EQ(computation.module().entry_computation()->parameter_instruction(0)
                ->name(),
            "my_x");
  ExpectReadsBack(computation.module(), "builder");
}

TEST(HloNameTest, AnEmptyModuleNameReadsBack) {
  HloModule module("");
  EXPECT_EQ(module.name(), "_");
  module.set_name("<lambda>");
  EXPECT_EQ(module.name(), "_lambda_");
}

}  // namespace
}  // namespace mxla
