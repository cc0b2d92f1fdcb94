// pair-sends-and-recvs: a send and a recv between devices on one channel
// become one collective-permute (its pairs from XLA's frontend attribute,
// its channel kept); what cannot be paired is refused naming the op, the
// channel and the computation; -done ops read the contexts wherever they
// are; async wrappers are inlined first. Runs on several devices are
// checked in tests/e2e/replicated_jit_test.cc and
// tests/e2e/send_recv_forms_test.cc.
#include "passes/pair_sends_and_recvs.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;

// A send and a recv of `channel`, their frontend attributes `send_pairs`
// and `recv_pairs` (none when empty), sending `sent`.
std::string Module(const std::string& send_pairs,
                   const std::string& recv_pairs,
                   const std::string& sent = "f32[2]") {
  auto attributes = [](const std::string& pairs) {
    return pairs.empty()
               ? std::string()
               : absl::StrCat(", frontend_attributes={_xla_send_recv_"
                              "source_target_pairs=\"",
                              pairs, "\"}");
  };
  return absl::StrCat(R"(HloModule m, num_partitions=2
ENTRY main {
  x = )", sent, R"( parameter(0)
  token = token[] after-all()
  recv = (f32[2], u32[], token[]) recv(token), channel_id=3)",
                      attributes(recv_pairs), R"(
  send = ()", sent, R"(, u32[], token[]) send(x, token), channel_id=3)",
                      attributes(send_pairs), R"(
  send-done = token[] send-done(send), channel_id=3
  recv-done = (f32[2], token[]) recv-done(recv), channel_id=3
  ROOT data = f32[2] get-tuple-element(recv-done), index=0
})");
}

absl::StatusOr<std::unique_ptr<HloModule>> Paired(const std::string& text) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  RETURN_IF_ERROR(VerifyModule(*module));
  PairSendsAndRecvsPass pass;
  RETURN_IF_ERROR(pass.Run(*module).status());
  return module;
}

TEST(PairSendsAndRecvsTest, APairBecomesOneCollectivePermute) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       Paired(Module("{{0,1},{1,0}}", "{{0,1},{1,0}}")));
  ASSERT_OK(VerifyModule(*module));
  const std::string text = module->ToString();
  EXPECT_THAT(text, HasSubstr("collective-permute(x), "
                              "source_target_pairs={{0,1},{1,0}}, "
                              "channel_id=3"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("send")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("recv")));
  // The pairs given on one side only are enough, and read back as the
  // attribute itself.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> one_side,
                       ParseHloModule(Module("", "{{1,0}}")));
  const std::string printed = one_side->ToString();
  EXPECT_THAT(printed, HasSubstr("source_target_pairs={{1,0}}"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> reread,
                       ParseHloModule(printed));
  EXPECT_EQ(reread->ToString(), printed);
  EXPECT_OK(Paired(printed).status());
}

// XLA's text also writes the pairs unquoted, among other attributes.
TEST(PairSendsAndRecvsTest, PairsReadUnquotedAmongOtherAttributes) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule m
ENTRY main {
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1},{1,2}},_xla_other="{x}"}
  ROOT d = (f32[2], token[]) recv-done(r), channel_id=1
})"));
  EXPECT_THAT(module->ToString(),
              HasSubstr("source_target_pairs={{0,1},{1,2}}"));
  EXPECT_THAT(ParseHloModule(R"(HloModule m
ENTRY main {
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=3}
  ROOT d = (f32[2], token[]) recv-done(r), channel_id=1
})")
                  .status()
                  .message(),
              HasSubstr("_xla_send_recv_source_target_pairs needs a list of "
                        "pairs"));
}

// Several sends and recvs on one channel (XLA's pipelined loops): each
// send pairs with the recv to the same peers.
TEST(PairSendsAndRecvsTest, SeveralOnOneChannelPairByTheirPeers) {
  const std::string text = R"(HloModule m, num_partitions=2
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  t = token[] after-all()
  r0 = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{1,0}}"}
  s1 = (f32[2], u32[], token[]) send(y, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  s0 = (f32[2], u32[], token[]) send(x, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{1,0}}"}
  r1 = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  d0 = token[] send-done(s0), channel_id=1
  d1 = token[] send-done(s1), channel_id=1
  e0 = (f32[2], token[]) recv-done(r0), channel_id=1
  e1 = (f32[2], token[]) recv-done(r1), channel_id=1
  a = f32[2] get-tuple-element(e0), index=0
  b = f32[2] get-tuple-element(e1), index=0
  ROOT s = f32[2] add(a, b)
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, Paired(text));
  const std::string paired = module->ToString();
  EXPECT_THAT(paired, HasSubstr("collective-permute(x), "
                                "source_target_pairs={{1,0}}, channel_id=1"));
  EXPECT_THAT(paired, HasSubstr("collective-permute(y), "
                                "source_target_pairs={{0,1},{1,0}}, "
                                "channel_id=1"));
  // Two sends to the same peers cannot be told apart.
  std::string twice = text;
  twice.replace(twice.find("{{0,1},{1,0}}"), 13, "{{1,0}}");
  EXPECT_THAT(Paired(twice).status().message(),
              HasSubstr("a second send of the channel to the peers {{1,0}}"));
}

TEST(PairSendsAndRecvsTest, WhatCannotBePairedIsRefusedByName) {
  EXPECT_THAT(Paired(Module("", "")).status().message(),
              HasSubstr("send 'send' (channel_id 3, computation 'main'): no "
                        "source_target_pairs on it or its recv"));
  EXPECT_THAT(Paired(Module("{{0,1}}", "{{1,0}}")).status().message(),
              HasSubstr("its source_target_pairs {{0,1}} differ from its "
                        "recv's {{1,0}}"));
  EXPECT_THAT(Paired(Module("{{0,1}}", "", "f32[3]")).status().message(),
              HasSubstr("sends f32[3] but its recv receives f32[2]"));
  // A send without its recv.
  EXPECT_THAT(Paired(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  token = token[] after-all()
  send = (f32[2], u32[], token[]) send(x, token), channel_id=5, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  ROOT send-done = token[] send-done(send), channel_id=5
})")
                  .status()
                  .message(),
              HasSubstr("send 'send' (channel_id 5, computation 'main'): no "
                        "recv of its channel in its computation"));
  // A send whose data needs its own recv.
  EXPECT_THAT(Paired(R"(HloModule m
ENTRY main {
  token = token[] after-all()
  recv = (f32[2], u32[], token[]) recv(token), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  recv-done = (f32[2], token[]) recv-done(recv), channel_id=1
  data = f32[2] get-tuple-element(recv-done), index=0
  send = (f32[2], u32[], token[]) send(data, token), channel_id=1
  ROOT send-done = token[] send-done(send), channel_id=1
})")
                  .status()
                  .message(),
              HasSubstr("its data depends on its own recv"));
  // Host transfers stay refused by the verifier.
  EXPECT_THAT(Paired(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  token = token[] after-all()
  ROOT send = (f32[2], u32[], token[]) send(x, token), channel_id=1, is_host_transfer=true
})")
                  .status()
                  .message(),
              HasSubstr("a transfer over a host channel"));
}

// The -done ops read the contexts wherever they are: here one in a loop
// body on a context the entry made (the loop, which transfers on the
// channel too, comes after the entry's pair). A send with no peers on a
// channel nothing receives from keeps only its context.
TEST(PairSendsAndRecvsTest, DonesReadContextsAndASendToNobodyStays) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, Paired(R"(HloModule m, num_partitions=2
body {
  p = (f32[2], u32[], token[]) parameter(0)
  d = (f32[2], token[]) recv-done(p), channel_id=1
  x = f32[2] get-tuple-element(d), index=0
  t = token[] after-all()
  ROOT r = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  sd = token[] send-done(s), channel_id=1
}
cond {
  p = (f32[2], u32[], token[]) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  sd = token[] send-done(s), channel_id=1
  r = (f32[2], u32[], token[]) recv(sd), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  lost = (f32[2], u32[], token[]) send(x, t), channel_id=9
  lost-done = token[] send-done(lost), channel_id=9
  w = (f32[2], u32[], token[]) while(r), condition=cond, body=body
  ROOT d = (f32[2], token[]) recv-done(w), channel_id=1
})"));
  ASSERT_OK(VerifyModule(*module));
  const std::string text = module->ToString();
  EXPECT_THAT(text, ::testing::Not(HasSubstr("send")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("recv")));
  EXPECT_THAT(text, HasSubstr("collective-permute(x), "
                              "source_target_pairs={{0,1}}, channel_id=1"));
}

// An async-start wrapping a send is inlined only through its -done.
TEST(PairSendsAndRecvsTest, AWrapperUsedOtherwiseIsRefused) {
  EXPECT_THAT(Paired(R"(HloModule m, num_partitions=2
wrapped {
  a = f32[2] parameter(0)
  b = token[] parameter(1)
  ROOT s = (f32[2], u32[], token[]) send(a, b), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
}
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  start = ((f32[2], token[]), (f32[2], u32[], token[]), s32[]) async-start(x, t), calls=wrapped
  done = (f32[2], u32[], token[]) async-done(start)
  ROOT both = (((f32[2], token[]), (f32[2], u32[], token[]), s32[]), (f32[2], u32[], token[])) tuple(start, done)
})")
                  .status()
                  .message(),
              HasSubstr("async-start 'start' (computation 'main') wraps a "
                        "send or recv between devices, but 'start' is used "
                        "other than by one async-update or async-done"));
}

}  // namespace
}  // namespace mxla
