// Tokens: `token[]` shapes, after-all and add-dependency in text and the
// builder, XLA's shape rules and messages, and both backends on a module
// that threads a token through a while loop, takes one as a parameter and
// returns one: tokens carry no data and order nothing on one device.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "driver/compile.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::RunAndCompare;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kTokenLoop[] = R"(HloModule tokens
cond {
  s = (s32[], f32[3], token[]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(4)
  ROOT lt = pred[] compare(n, limit), direction=LT
}
body {
  s = (s32[], f32[3], token[]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(n, one)
  v = f32[3] get-tuple-element(s), index=1
  t = token[] get-tuple-element(s), index=2
  ordered = f32[3] add-dependency(v, t)
  doubled = f32[3] add(ordered, ordered)
  later = token[] after-all(t)
  ROOT r = (s32[], f32[3], token[]) tuple(next, doubled, later)
}
ENTRY main {
  x = f32[3] parameter(0)
  given = token[] parameter(1)
  fresh = token[] after-all()
  both = token[] after-all(given, fresh)
  zero = s32[] constant(0)
  init = (s32[], f32[3], token[]) tuple(zero, x, both)
  w = (s32[], f32[3], token[]) while(init), condition=cond, body=body
  v = f32[3] get-tuple-element(w), index=1
  t = token[] get-tuple-element(w), index=2
  e = f32[3] exponential(v)
  ROOT out = (f32[3], token[]) tuple(e, t)
}
)";

TEST(TokenTest, TokensThreadThroughLoopsInBothBackends) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kTokenLoop));
  ASSERT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  EXPECT_EQ(ParseHloModule(module->ToString()).value()->ToString(),
            module->ToString());
  const Literal x = LiteralUtil::CreateR1<float>({0.25f, -1.0f, 0.5f});
  const Literal token(Shape(TOKEN, {}));
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(*module, std::vector<const Literal*>{&x, &token}));
  EXPECT_EQ(result.tuple_element(1).ToString(), "token[]");
  EXPECT_EQ(result.tuple_element(0),
            LiteralUtil::CreateR1<float>(
                {std::exp(4.0f), std::exp(-16.0f), std::exp(8.0f)}));
  EXPECT_TRUE(RunAndCompare(*module, std::vector<const Literal*>{&x, &token}));
}

TEST(TokenTest, ShapeRulesAndMessages) {
  auto verify = [](const std::string& body) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
        "HloModule m\nENTRY main {\n  x = f32[2] parameter(0)\n" + body +
        "}\n");
    if (!module.ok()) return module.status();
    return VerifyModule(**module, VerifierMode::kBuilder);
  };
  EXPECT_THAT(verify("  ROOT t = token[] after-all(x)\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("after-all: Operands of token instructions "
                                 "must be TOKEN types; operand 0 is f32[2].")));
  EXPECT_THAT(verify("  ROOT d = f32[2] add-dependency(x, x)\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("add-dependency: Operand 1 of add-dependency "
                                 "must be a token; got f32[2].")));
  EXPECT_THAT(verify("  t = token[] after-all()\n"
                     "  ROOT d = f32[3] add-dependency(x, t)\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("declared shape f32[3] differs from the "
                                 "inferred shape f32[2]")));
  EXPECT_THAT(verify("  ROOT t = token[2] after-all()\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a token has no dimensions")));
  EXPECT_THAT(verify("  ROOT t = token[] create-token()\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("write after-all()")));
}

// Transfers over channels parse (with XLA's attributes). Between devices
// the verifier checks their shapes, and a send with no recv to pair it
// with is refused when compiled (pair-sends-and-recvs); a host channel is
// refused by the verifier, naming the instruction.
TEST(TokenTest, ChannelTransfersAreRefusedByName) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule channels
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  ROOT d = token[] send-done(s), channel_id=1
})"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  EXPECT_THAT(Compile(*module, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("send 's' (channel_id 1, computation "
                                 "'main'): no recv of its channel")));
  ASSERT_OK_AND_ASSIGN(module, ParseHloModule(R"(HloModule shapes
ENTRY main {
  t = token[] after-all()
  r = (f32[2], token[]) recv(t), channel_id=2
  ROOT d = (f32[2], token[]) recv-done(r), channel_id=2
})"));
  EXPECT_THAT(VerifyModule(*module, VerifierMode::kBuilder),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("recv: takes a token and gives (data, u32[], "
                                 "token[]) with data an array")));
  ASSERT_OK_AND_ASSIGN(module, ParseHloModule(R"(HloModule host
ENTRY main {
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=2, is_host_transfer=true
  ROOT d = (f32[2], token[]) recv-done(r), channel_id=2, is_host_transfer=true
})"));
  EXPECT_THAT(VerifyModule(*module, VerifierMode::kBuilder),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("instruction 'r' (recv): recv: a transfer "
                                 "over a host channel; mxla exchanges values "
                                 "with the host only through infeed and "
                                 "outfeed (RunOptions::host_feed)")));
}

TEST(TokenTest, BuilderMakesAndJoinsTokens) {
  XlaBuilder b("tokens");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2}), "x");
  XlaOp fresh = CreateToken(&b);
  XlaOp joined = AfterAll(&b, {fresh, CreateToken(&b)});
  Tuple(&b, {x, joined});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  const std::string text = computation.module().ToString();
  EXPECT_THAT(text, HasSubstr("token[] after-all()"));
  EXPECT_THAT(text, HasSubstr("(f32[2]{0}, token[]) tuple("));
  XlaBuilder bad("bad");
  XlaOp y = Parameter(&bad, 0, ShapeUtil::MakeShape(F32, {2}), "y");
  AfterAll(&bad, {y});
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Operands of token instructions must be "
                                 "TOKEN types; operand 0 is f32[2]")));
}

}  // namespace
}  // namespace mxla
