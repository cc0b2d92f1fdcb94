// Tokens and tuples where arrays belong, from text and .npy: every
// element-type switch (primitive_util::ArrayTypeSwitch) traps on them, so
// each stage that hands a shape to one must have refused them first (issue
// 35's audit; the parser's constants are in
// tests/hlo_text/non_array_constant_test.cc). Each case fails with a
// status; none aborts.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "runtime/npy.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::string EntryModule(absl::string_view body) {
  return absl::StrCat(
      "HloModule m\n\nless {\n  a = f32[] parameter(0)\n  b = f32[] "
      "parameter(1)\n  ROOT l = pred[] compare(a, b), direction=LT\n}\n\n"
      "ENTRY main {\n  t = token[] after-all()\n  u = (token[]) tuple(t)\n"
      "  x = f32[2] parameter(0)\n  z = f32[] constant(0)\n",
      body, "}\n");
}

// Ops whose evaluation or code generation switches on an element type,
// given a token or a tuple as operand or as result type.
TEST(NonArrayTypesTest, TheVerifierRefusesTokensWhereArraysBelong) {
  const char* bodies[] = {
      "  ROOT r = token[] negate(t)\n",
      "  ROOT r = f32[2] add(x, t)\n",
      "  ROOT r = (token[]) negate(u)\n",
      "  ROOT r = f32[] convert(t)\n",
      "  ROOT r = token[] convert(z)\n",
      "  ROOT r = token[] bitcast-convert(z)\n",
      "  ROOT r = s32[] bitcast-convert(t)\n",
      "  ROOT r = token[] iota(), iota_dimension=0\n",
      "  ROOT r = token[] rng(z, z), distribution=rng_uniform\n",
      "  ROOT r = token[] broadcast(t), dimensions={}\n",
      "  ROOT r = pred[] compare(t, t), direction=EQ\n",
      "  ROOT r = token[] select(t, t, t)\n",
      "  ROOT r = token[] sort(t), dimensions={0}, to_apply=less\n",
      "  ROOT r = f32[] reduce(x, t), dimensions={0}, to_apply=less\n",
      "  ROOT r = token[] reshape(t)\n",
      "  ROOT r = token[] stochastic-convert(z, t)\n",
      "  ROOT r = token[] copy(u)\n",
  };
  for (const char* body : bodies) {
    const std::string text = EntryModule(body);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) {  // Some are refused already by the parser.
      EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument)
          << body;
      continue;
    }
    EXPECT_THAT(VerifyModule(**module, VerifierMode::kBuilder),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("")))
        << body;
    for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
      CompileOptions options;
      options.backend = backend;
      EXPECT_THAT(Compile(**module, options).status(),
                  StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("")))
          << body;
    }
  }
}

// Tokens where they belong compile and run in both backends; a token has
// no .npy form.
TEST(NonArrayTypesTest, TokensRunAndHaveNoNpyForm) {
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> module,
      ParseHloModule("HloModule m\nENTRY e {\n  p = token[] parameter(0)\n"
                     "  x = f32[2] parameter(1)\n  t = token[] after-all(p)\n"
                     "  ROOT r = (f32[2], token[]) tuple(x, t)\n}\n"));
  const Literal token(Shape(TOKEN, {}));
  const Literal x = LiteralUtil::CreateR1<float>({1, 2});
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    CompileOptions options;
    options.backend = backend;
    ASSERT_OK_AND_ASSIGN(auto executable, Compile(*module, options));
    ASSERT_OK_AND_ASSIGN(Literal result, executable->Run({&token, &x}));
    EXPECT_EQ(result.shape().ToString(), "(f32[2], token[])");
    EXPECT_THAT(SerializeNpy(result),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("cannot write (f32[2], token[]) as .npy "
                                   "(arrays only)")));
  }
  EXPECT_THAT(SerializeNpy(token),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cannot write token[] as .npy (arrays only)")));
}

}  // namespace
}  // namespace mxla
