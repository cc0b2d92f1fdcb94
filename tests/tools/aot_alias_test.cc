// Ahead-of-time compilation honours input_output_alias
// (driver/aot_compile.h): each module runs in a C program against the
// interpreter with separate result buffers (the arguments must come back
// untouched) and with every aliased argument donated (its result buffer is
// the argument's, written in place); the header lists the pairs; a while
// body updates its state in place, so a loop needs no next state in temp;
// bad aliases fail the compile naming both sides.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/aot_compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/literal.h"
#include "ir/status_macros.h"
#include "tests/testlib/aot_harness.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::ExpectMatchesInterpreter;
using ::mxla::testing::SeededArguments;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

void Check(const std::string& name, const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_OK(module.status()) << name;
  ExpectMatchesInterpreter(name, hlo,
                           SeededArguments(*(*module)->entry_computation()));
}

absl::StatusOr<AotArtifacts> CompileText(const std::string& hlo) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo));
  AotOptions options;
  options.function = "f";
  return CompileAheadOfTime(*module, options);
}

// A dynamic-update-slice into a donated parameter, a parameter returned
// as is in its own buffer, and one returned in another's.
constexpr char kUpdate[] =
    R"(HloModule update, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}), {2}: (2, {}) }
ENTRY main {
  x = f32[1000] parameter(0)
  y = f32[4] parameter(1)
  z = f32[4] parameter(2)
  i = s32[] parameter(3)
  u = f32[1000] dynamic-update-slice(x, y, i)
  ROOT t = (f32[1000], f32[4], f32[4], f32[4]) tuple(u, y, y, z)
})";

TEST(AotAliasTest, DonatedParametersAreUpdatedInPlace) {
  Check("update", kUpdate);
  absl::StatusOr<AotArtifacts> compiled = CompileText(kUpdate);
  ASSERT_OK(compiled.status());
  EXPECT_THAT(compiled->header,
              AllOf(HasSubstr("#define F_RESULT0_ALIASES_ARG 0\n"),
                    HasSubstr("#define F_RESULT1_ALIASES_ARG 1\n"),
                    HasSubstr("#define F_RESULT2_ALIASES_ARG 2\n"),
                    HasSubstr("donates the argument")));
}

// The aliased argument is overwritten by the update but still read after
// it (and returned elsewhere): the run sets it aside first.
TEST(AotAliasTest, AnOverwrittenArgumentStillReadIsSetAside) {
  Check("aside",
        R"(HloModule aside, input_output_alias={ {0}: (0, {}) }
ENTRY main {
  x = f32[64] parameter(0)
  y = f32[8] parameter(1)
  i = s32[] parameter(2)
  u = f32[64] dynamic-update-slice(x, y, i)
  n = f32[64] negate(x)
  ROOT t = (f32[64], f32[64], f32[64]) tuple(u, n, x)
})");
}

// A tuple parameter's leaves aliased into a tuple result, a loop over
// them in between.
constexpr char kLoop[] =
    R"(HloModule loop, input_output_alias={ {0}: (0, {1}), {1}: (0, {0}) }
cond {
  s = (s32[], f32[100000], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(100)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[100000], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[100000] get-tuple-element(s), index=1
  c = f32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  k = s32[] multiply(i, i)
  e = f32[1] reshape(c)
  w = f32[100000] dynamic-update-slice(v, e, k)
  d = f32[] constant(0.25)
  c2 = f32[] add(c, d)
  ROOT r = (s32[], f32[100000], f32[]) tuple(j, w, c2)
}
ENTRY main {
  p = (s32[], f32[100000]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[100000] get-tuple-element(p), index=1
  c = f32[] constant(1)
  init = (s32[], f32[100000], f32[]) tuple(i, v, c)
  l = (s32[], f32[100000], f32[]) while(init), condition=cond, body=body
  lv = f32[100000] get-tuple-element(l), index=1
  li = s32[] get-tuple-element(l), index=0
  ROOT t = (f32[100000], s32[]) tuple(lv, li)
})";

TEST(AotAliasTest, LoopStateIsUpdatedInPlace) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kLoop);
  ASSERT_OK(module.status());
  std::vector<Literal> arguments =
      SeededArguments(*(*module)->entry_computation());
  // From 0: a hundred trips.
  arguments[0].tuple_element(0) = LiteralUtil::CreateR0<int32_t>(0);
  ExpectMatchesInterpreter("loop", kLoop, arguments);
  absl::StatusOr<AotArtifacts> compiled = CompileText(kLoop);
  ASSERT_OK(compiled.status());
  EXPECT_THAT(compiled->header,
              AllOf(HasSubstr("#define F_RESULT0_ALIASES_ARG 1\n"),
                    HasSubstr("#define F_RESULT1_ALIASES_ARG 0\n")));
  // The body writes the state in place: temp holds no second f32[100000]
  // (400000 bytes) for the next state.
  EXPECT_THAT(compiled->header, Not(::testing::ContainsRegex(
                                    "F_TEMP_BYTES [0-9]{6,}")));
}

TEST(AotAliasTest, AModuleWithoutAliasesListsNone) {
  absl::StatusOr<AotArtifacts> compiled = CompileText(R"(HloModule plain
ENTRY main {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
})");
  ASSERT_OK(compiled.status());
  EXPECT_THAT(compiled->header, Not(HasSubstr("ALIASES")));
}

TEST(AotAliasTest, BadAliasesFailTheCompileNamingBothSides) {
  EXPECT_THAT(
      CompileText(R"(HloModule mismatch, input_output_alias={ {1}: (0, {}) }
ENTRY main {
  x = f32[4] parameter(0)
  ROOT t = (f32[4], f16[4]) tuple(x, f16[4] convert(x))
})")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("output {1} is f16[4] (8 bytes)"),
                     HasSubstr("parameter 0 {} it aliases is f32[4] (16 "
                               "bytes)"))));
  EXPECT_THAT(
      CompileText(
          R"(HloModule twice, input_output_alias={ {0}: (0, {}), {1}: (0, {}) }
ENTRY main {
  x = f32[4] parameter(0)
  ROOT t = (f32[4], f32[4]) tuple(x, x)
})")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("parameter 0 {} is donated twice")));
}

}  // namespace
}  // namespace mxla
