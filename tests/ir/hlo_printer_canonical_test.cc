// HloPrintOptions::canonical, the structural key codegen shares kernels by:
// names do not count (instructions print as their post-order position,
// called computations inline), everything else the text states does.
#include "ir/hlo_printer.h"

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Two fusions, alike but for their names and their reducers' names.
constexpr char kTwoFusions[] = R"(HloModule m
add_a {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add_b {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}
fused_a {
  x = f32[4,8] parameter(0)
  c = f32[] constant(2)
  cb = f32[4,8] broadcast(c), dimensions={}
  m = f32[4,8] multiply(x, cb)
  z = f32[] constant(0)
  ROOT sum = f32[4] reduce(m, z), dimensions={1}, to_apply=add_a
}
fused_b {
  y = f32[4,8] parameter(0)
  k = f32[] constant(2)
  kb = f32[4,8] broadcast(k), dimensions={}
  n = f32[4,8] multiply(y, kb)
  zz = f32[] constant(0)
  ROOT total = f32[4] reduce(n, zz), dimensions={1}, to_apply=add_b
}
ENTRY main {
  in0 = f32[4,8] parameter(0)
  in1 = f32[4,8] parameter(1)
  f0 = f32[4] fusion(in0), kind=kInput, calls=fused_a
  f1 = f32[4] fusion(in1), kind=kInput, calls=fused_b
  ROOT t = (f32[4], f32[4]) tuple(f0, f1)
})";

std::string Canonical(const HloInstruction& instruction) {
  HloPrintOptions options;
  options.canonical = true;
  return HloPrinter::InstructionToString(instruction, options);
}

const HloInstruction* Named(const HloModule& module, const std::string& name) {
  for (const HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    if (instruction->name() == name) return instruction;
  }
  return nullptr;
}

TEST(CanonicalPrintTest, FusionsThatDifferOnlyInNamesPrintAlike) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kTwoFusions));
  const std::string f0 = Canonical(*Named(*module, "f0"));
  EXPECT_EQ(f0, Canonical(*Named(*module, "f1")));
  // Operands outside the printed computation print as their shapes, and
  // the called computations inline, names left out.
  EXPECT_THAT(f0, HasSubstr("fusion(f32[4,8]{1,0})"));
  EXPECT_THAT(f0, HasSubstr("%3 = f32[4,8]{1,0} multiply(%0, %2)"));
  EXPECT_THAT(f0, HasSubstr("to_apply={{"));
  for (const char* name : {"fused_a", "add_a", "x", "sum", "in0", "f0"}) {
    EXPECT_THAT(f0, Not(HasSubstr(name))) << f0;
  }
}

TEST(CanonicalPrintTest, AnythingButANameMakesADifference) {
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"k = f32[] constant(2)", "k = f32[] constant(3)"},        // a value
      {"ROOT r = f32[] add(p, q)", "ROOT r = f32[] maximum(p, q)"},  // reducer
      {"n = f32[4,8] multiply(y, kb)", "n = f32[4,8] multiply(kb, y)"},  // order
      {"total = f32[4] reduce(n, zz), dimensions={1}",
       "total = f32[4] reduce(y, zz), dimensions={1}"},  // an operand
  };
  for (const auto& [from, to] : changes) {
    const std::string text = absl::StrReplaceAll(kTwoFusions, {{from, to}});
    ASSERT_NE(text, kTwoFusions) << from;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    EXPECT_NE(Canonical(*Named(*module, "f0")),
              Canonical(*Named(*module, "f1")))
        << from << " -> " << to;
  }
}

TEST(CanonicalPrintTest, DefaultPrintingKeepsNames) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kTwoFusions));
  EXPECT_EQ(HloPrinter::InstructionToString(*Named(*module, "f0")),
            "f0 = f32[4]{0} fusion(in0), kind=kInput, calls=fused_a");
}

}  // namespace
}  // namespace mxla
