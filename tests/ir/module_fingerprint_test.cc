// Module identity: copies and re-parses of a module are identical and
// fingerprint alike; a change to anything the text states (a constant's
// value, a name, an attribute, an operand, the root) is not, and metadata
// does not count.
#include "ir/module_fingerprint.h"

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

constexpr char kBase[] = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  k = f32[] constant(2)
  kb = f32[2,3] broadcast(k), dimensions={}
  vb = f32[2,3] broadcast(v), dimensions={1}
  i = s32[2,3] iota(), iota_dimension=1
  ic = f32[2,3] convert(i)
  m = f32[2,3] multiply(x, vb)
  lt = pred[2,3] compare(m, kb), direction=LT
  sel = f32[2,3] select(lt, m, ic)
  zero = f32[] constant(0)
  r = f32[2] reduce(sel, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[2], f32[2,3]) tuple(r, m)
})";

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status()) << text;
  return module.ok() ? std::move(*module) : nullptr;
}

TEST(ModuleFingerprintTest, CopiesAndReparsesAreIdentical) {
  std::unique_ptr<HloModule> a = Parse(kBase);
  std::unique_ptr<HloModule> b = Parse(kBase);
  std::unique_ptr<HloModule> c = a->Clone();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(IdenticalModules(*a, *b));
  EXPECT_TRUE(IdenticalModules(*a, *c));
  EXPECT_EQ(FingerprintModule(*a), FingerprintModule(*b));
  EXPECT_EQ(FingerprintModule(*a), FingerprintModule(*c));
}

TEST(ModuleFingerprintTest, MetadataDoesNotCount) {
  std::unique_ptr<HloModule> a = Parse(kBase);
  std::unique_ptr<HloModule> b = a->Clone();
  b->entry_computation()->root_instruction()->set_metadata(
      {"tuple", "model.py", 12});
  EXPECT_TRUE(IdenticalModules(*a, *b));
  EXPECT_EQ(FingerprintModule(*a), FingerprintModule(*b));
}

TEST(ModuleFingerprintTest, AnyChangeTheTextStatesCounts) {
  std::unique_ptr<HloModule> base = Parse(kBase);
  ASSERT_NE(base, nullptr);
  const std::pair<const char*, const char*> edits[] = {
      {"constant(2)", "constant(3)"},                 // a value
      {"constant(0)", "constant(-0)"},                // a value's sign bit
      {"HloModule m", "HloModule n"},                 // the module's name
      {"ROOT t = ", "ROOT t2 = "},                    // an instruction's name
      {"ENTRY main", "ENTRY main2"},                  // a computation's name
      {"direction=LT", "direction=GT"},               // an attribute
      {"iota_dimension=1", "iota_dimension=0"},       // an attribute
      {"multiply(x, vb)", "multiply(vb, x)"},         // operand order
      {"ROOT s = f32[] add(a, b)", "ROOT s = f32[] maximum(a, b)"},  // callee
      {"f32[2,3] parameter(0)", "f32[2,3] parameter(0)\n  y = f32[] parameter(2)"},
  };
  for (const auto& [from, to] : edits) {
    const std::string text = absl::StrReplaceAll(kBase, {{from, to}});
    ASSERT_NE(text, kBase) << from;
    std::unique_ptr<HloModule> edited = Parse(text);
    ASSERT_NE(edited, nullptr) << to;
    EXPECT_FALSE(IdenticalModules(*base, *edited)) << from << " -> " << to;
    EXPECT_FALSE(IdenticalModules(*edited, *base)) << from << " -> " << to;
    EXPECT_NE(FingerprintModule(*base), FingerprintModule(*edited))
        << from << " -> " << to;
  }
}

TEST(ModuleFingerprintTest, TheRootCounts) {
  std::unique_ptr<HloModule> a = Parse(kBase);
  std::unique_ptr<HloModule> b = a->Clone();
  HloComputation* entry = b->entry_computation();
  entry->set_root_instruction(entry->root_instruction()->mutable_operand(1));
  EXPECT_FALSE(IdenticalModules(*a, *b));
  EXPECT_NE(FingerprintModule(*a), FingerprintModule(*b));
}

// Positions are looked up by unique id; shared or missing ids fall back to
// an exact lookup rather than confusing two instructions.
TEST(ModuleFingerprintTest, SharedOrMissingUniqueIdsStayExact) {
  std::unique_ptr<HloModule> a = Parse(kBase);
  for (const int64_t id : {int64_t{0}, int64_t{-1}}) {
    std::unique_ptr<HloModule> b = a->Clone();
    for (HloInstruction* instruction :
         b->entry_computation()->instructions()) {
      instruction->set_unique_id(id);
    }
    EXPECT_TRUE(IdenticalModules(*a, *b)) << id;
    EXPECT_TRUE(IdenticalModules(*b, *a)) << id;
    EXPECT_EQ(FingerprintModule(*a), FingerprintModule(*b)) << id;
    // Swapping two operands must still be seen.
    HloInstruction* multiply = nullptr;
    for (HloInstruction* instruction :
         b->entry_computation()->instructions()) {
      if (instruction->name() == "m") multiply = instruction;
    }
    ASSERT_NE(multiply, nullptr);
    HloInstruction* lhs = multiply->mutable_operand(0);
    multiply->ReplaceOperandWith(0, multiply->mutable_operand(1));
    multiply->ReplaceOperandWith(1, lhs);
    EXPECT_FALSE(IdenticalModules(*a, *b)) << id;
    EXPECT_FALSE(IdenticalModules(*b, *a)) << id;
  }
}

}  // namespace
}  // namespace mxla
