// Constants and literals whose shape is not an array: a token has no value
// to read and only array types have an element switch
// (primitive_util::ArrayTypeSwitch), so the parser refuses them with a
// message, never an abort. The first three inputs are the CLI fuzzer's
// crashes of issue 35 (SIGILL in ParseArrayLiteral).
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/shape_util.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::string EntryModule(absl::string_view body) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n", body, "}\n");
}

struct Case {
  const char* label;
  std::string text;
  const char* error;  // Expected substring, "line:column: ...".
};

TEST(NonArrayConstantTest, TheParserRefusesThemByName) {
  const std::string r = "  r = f32[] parameter(0)\n";
  const Case cases[] = {
      {"token with a braced value",
       EntryModule("  in0 = token[] constant({3.5})\n"),
       "4:9: constant 'in0' has shape token[]: a constant is an array or a "
       "tuple of arrays"},
      {"token with a scalar value", EntryModule("  r.init = token[] constant(0)\n"),
       "4:12: constant 'r.init' has shape token[]"},
      {"token with operands",
       EntryModule(r + "  t = token[] constant(r, r)\n"),
       "5:7: constant 't' has shape token[]"},
      {"token with nothing", EntryModule("  t = token[] constant()\n"),
       "4:7: constant 't' has shape token[]"},
      {"nested token constant",
       EntryModule(r + "  ROOT a = f32[] add(token[] constant(r, r), r)\n"),
       "5:30: a constant operand has shape token[]"},
      {"token in a tuple",
       EntryModule("  c = (f32[], token[]) constant((1, 0))\n"),
       "4:7: constant 'c' has shape (f32[], token[]), which holds token[]: "
       "a constant is an array or a tuple of arrays"},
      {"token in a nested tuple",
       EntryModule("  c = ((token[]), s32[2]) constant(((0), {1, 2}))\n"),
       "4:7: constant 'c' has shape ((token[]), s32[2]), which holds token[]"},
      {"opaque", EntryModule("  c = opaque[] constant(0)\n"),
       "4:7: element type 'opaque'"},
      {"unknown type", EntryModule("  c = q32[] constant(0)\n"),
       "4:7: unknown element type 'q32'"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ParseHloModule(c.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.error)))
        << c.label;
  }
}

// The empty tuple and tuples of arrays stay valid constants.
TEST(NonArrayConstantTest, TuplesOfArraysStillParse) {
  EXPECT_OK(ParseHloModule(EntryModule("  ROOT c = () constant(())\n")).status());
  EXPECT_OK(ParseHloModule(
                EntryModule("  ROOT c = (f32[], (s32[2])) constant((1, ({2, 3})))\n"))
                .status());
}

// ParseLiteral takes its shape from the caller, not the text.
TEST(NonArrayConstantTest, ParseLiteralRefusesATokenShape) {
  const Shape token(TOKEN, {});
  EXPECT_THAT(ParseLiteral("0", token),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:1: a literal of shape token[] has no "
                                 "values: literals are arrays or tuples of "
                                 "arrays")));
  EXPECT_THAT(ParseLiteral("{3.5}", token),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:1: a literal of shape token[] has no values")));
  const Shape tuple =
      ShapeUtil::MakeTupleShape({ShapeUtil::MakeScalarShape(F32), token});
  EXPECT_THAT(ParseLiteral("(1, 0)", tuple),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:5: a literal of shape token[] has no values")));
}

}  // namespace
}  // namespace mxla
