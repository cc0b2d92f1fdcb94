// send/recv between devices in XLA's other forms, jit against the
// interpreter on 2 and 4 devices with values written out by hand: a
// pipelined loop whose send and recv contexts travel in the loop state to
// their -done ops in the next iteration and after the loop, a send/recv
// pair wrapped in one async computation, each op wrapped in its own, a
// send to nobody; and what still cannot pair, refused by name.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/literal.h"
#include "tests/testlib/replicated_runs.h"

namespace mxla {
namespace {

using ::mxla::testing::Devices;
using ::testing::HasSubstr;

// Device d's one argument: f32[2] {10d, 10d+1}.
::mxla::testing::DeviceArguments Arguments(int64_t count) {
  ::mxla::testing::DeviceArguments arguments(count);
  for (int64_t d = 0; d < count; ++d) {
    arguments[d].push_back(LiteralUtil::CreateR1<float>(
        {10.0f * static_cast<float>(d), 10.0f * static_cast<float>(d) + 1}));
  }
  return arguments;
}

// A ring of `n` partitions: d sends to d+1 (mod n).
std::string Ring(int64_t n) {
  std::string pairs = "{";
  for (int64_t d = 0; d < n; ++d) {
    absl::StrAppend(&pairs, d == 0 ? "" : ",", "{", d, ",", (d + 1) % n, "}");
  }
  return pairs + "}";
}

// XLA's pipelined loop: the entry starts the first transfer; each
// iteration finishes the previous one (its -done ops on the contexts in
// the loop state), adds 1 to what it received and starts the next; the
// last is finished after the loop. Three transfers in all move each value
// three steps round the ring, plus 2.
std::string Pipelined(int64_t n) {
  const std::string attribute = absl::StrCat(
      "frontend_attributes={_xla_send_recv_source_target_pairs=\"", Ring(n),
      "\"}");
  return absl::StrCat("HloModule m, num_partitions=", n, R"(
cond {
  p = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
body {
  p = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  recv.ctx = (f32[2], u32[], token[]) get-tuple-element(p), index=1
  send.ctx = (f32[2], u32[], token[]) get-tuple-element(p), index=2
  recv-done.p = (f32[2], token[]) recv-done(recv.ctx), channel_id=1
  send-done.p = token[] send-done(send.ctx), channel_id=1
  got = f32[2] get-tuple-element(recv-done.p), index=0
  one = f32[] constant(1)
  ones = f32[2] broadcast(one), dimensions={}
  next = f32[2] add(got, ones)
  t = token[] after-all()
  recv = (f32[2], u32[], token[]) recv(t), channel_id=1, )",
                      attribute, R"(
  send = (f32[2], u32[], token[]) send(next, t), channel_id=1, )",
                      attribute, R"(
  c1 = s32[] constant(1)
  i1 = s32[] add(i, c1)
  ROOT r = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) tuple(i1, recv, send)
}
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  recv.0 = (f32[2], u32[], token[]) recv(t), channel_id=1, )",
                      attribute, R"(
  send.0 = (f32[2], u32[], token[]) send(x, t), channel_id=1, )",
                      attribute, R"(
  zero = s32[] constant(0)
  init = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) tuple(zero, recv.0, send.0)
  w = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) while(init), condition=cond, body=body
  recv.last = (f32[2], u32[], token[]) get-tuple-element(w), index=1
  send.last = (f32[2], u32[], token[]) get-tuple-element(w), index=2
  recv-done = (f32[2], token[]) recv-done(recv.last), channel_id=1
  send-done = token[] send-done(send.last), channel_id=1
  ROOT data = f32[2] get-tuple-element(recv-done), index=0
})");
}

TEST(SendRecvFormsTest, APipelinedLoopCarriesItsTransfersAcrossIterations) {
  for (const int64_t n : {2, 4}) {
    SCOPED_TRACE(absl::StrCat(n, " devices"));
    const std::vector<Literal> results =
        ::mxla::testing::RunBothBackends(Pipelined(n), {1, n}, Arguments(n));
    ASSERT_EQ(results.size(), n);
    for (int64_t d = 0; d < n; ++d) {
      const float from = 10.0f * static_cast<float>((d + 3 * n - 3) % n);
      EXPECT_EQ(results[d], LiteralUtil::CreateR1<float>({from + 2, from + 3}))
          << "device " << d;
    }
  }
}

// XLA:GPU's grouped form: one async computation holds two sends and two
// recvs on one channel, told apart by their peers; the caller reads the
// recv contexts from the async-done.
constexpr char kGrouped[] = R"(HloModule m, num_partitions=4
wrapped {
  p0 = f32[2] parameter(0)
  p1 = token[] parameter(1)
  send1 = (f32[2], u32[], token[]) send(p0, p1), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1},{1,2}}}
  p2 = f32[2] parameter(2)
  send2 = (f32[2], u32[], token[]) send(p2, p1), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{2,3}}}
  recv1 = (f32[2], u32[], token[]) recv(p1), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1},{1,2}}}
  recv2 = (f32[2], u32[], token[]) recv(p1), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{2,3}}}
  ROOT out = ((f32[2], u32[], token[]), (f32[2], u32[], token[]), (f32[2], u32[], token[]), (f32[2], u32[], token[])) tuple(send1, send2, recv1, recv2)
}
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  two = f32[] constant(2)
  twos = f32[2] broadcast(two), dimensions={}
  y = f32[2] multiply(x, twos)
  start = ((f32[2], token[], f32[2]), ((f32[2], u32[], token[]), (f32[2], u32[], token[]), (f32[2], u32[], token[]), (f32[2], u32[], token[])), s32[]) async-start(x, t, y), calls=wrapped
  done = ((f32[2], u32[], token[]), (f32[2], u32[], token[]), (f32[2], u32[], token[]), (f32[2], u32[], token[])) async-done(start)
  c1 = (f32[2], u32[], token[]) get-tuple-element(done), index=2
  c2 = (f32[2], u32[], token[]) get-tuple-element(done), index=3
  d1 = f32[2] get-tuple-element(c1), index=0
  d2 = f32[2] get-tuple-element(c2), index=0
  ROOT sum = f32[2] add(d1, d2)
})";

TEST(SendRecvFormsTest, TransfersWrappedInOneAsyncComputationPair) {
  const std::vector<Literal> results =
      ::mxla::testing::RunBothBackends(kGrouped, {1, 4}, Arguments(4));
  ASSERT_EQ(results.size(), 4);
  // 1 gets 0's x, 2 gets 1's x, 3 gets 2's 2x; 0 gets nothing.
  EXPECT_EQ(results[0], LiteralUtil::CreateR1<float>({0, 0}));
  EXPECT_EQ(results[1], LiteralUtil::CreateR1<float>({0, 1}));
  EXPECT_EQ(results[2], LiteralUtil::CreateR1<float>({10, 11}));
  EXPECT_EQ(results[3], LiteralUtil::CreateR1<float>({40, 42}));
}

// Each op in its own async computation, and a send without peers on a
// channel nothing receives from (it sends to nobody).
std::string EachWrapped(int64_t n) {
  return absl::StrCat("HloModule m, num_partitions=", n, R"(
send_wrapped {
  a = f32[2] parameter(0)
  b = token[] parameter(1)
  ROOT s = (f32[2], u32[], token[]) send(a, b), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs=")",
                      Ring(n), R"("}
}
recv_wrapped {
  b = token[] parameter(0)
  ROOT r = (f32[2], u32[], token[]) recv(b), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs=")",
                      Ring(n), R"("}
}
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  rs = ((token[]), (f32[2], u32[], token[]), s32[]) async-start(t), calls=recv_wrapped
  ss = ((f32[2], token[]), (f32[2], u32[], token[]), s32[]) async-start(x, t), calls=send_wrapped
  su = ((f32[2], token[]), (f32[2], u32[], token[]), s32[]) async-update(ss)
  sd = (f32[2], u32[], token[]) async-done(su)
  rd = (f32[2], u32[], token[]) async-done(rs)
  done = token[] send-done(sd), channel_id=2
  got = (f32[2], token[]) recv-done(rd), channel_id=2
  lost = (f32[2], u32[], token[]) send(x, t), channel_id=7
  lost-done = token[] send-done(lost), channel_id=7
  ROOT data = f32[2] get-tuple-element(got), index=0
})");
}

TEST(SendRecvFormsTest, EachTransferInItsOwnAsyncComputation) {
  for (const int64_t n : {2, 4}) {
    SCOPED_TRACE(absl::StrCat(n, " devices"));
    const std::vector<Literal> results = ::mxla::testing::RunBothBackends(
        EachWrapped(n), {1, n}, Arguments(n));
    ASSERT_EQ(results.size(), n);
    for (int64_t d = 0; d < n; ++d) {
      const float from = 10.0f * static_cast<float>((d + n - 1) % n);
      EXPECT_EQ(results[d], LiteralUtil::CreateR1<float>({from, from + 1}));
    }
  }
}

// A send in a loop body whose recv is after the loop cannot be one
// permute (one recv for several sends): refused naming where the recv is.
TEST(SendRecvFormsTest, ASendAndARecvInDifferentComputationsAreRefused) {
  const std::string text = R"(HloModule m, num_partitions=2
body {
  p = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[2] get-tuple-element(p), index=1
  t = token[] after-all()
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  sd = token[] send-done(s), channel_id=1
  c1 = s32[] constant(1)
  i1 = s32[] add(i, c1)
  ROOT r = (s32[], f32[2]) tuple(i1, x)
}
cond {
  p = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  t = token[] after-all()
  rv = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  rd = (f32[2], token[]) recv-done(rv), channel_id=1
  ROOT data = f32[2] get-tuple-element(rd), index=0
})";
  for (const Backend backend : {Backend::kInterpreter, Backend::kJit}) {
    const std::string message(
        ::mxla::testing::RunOnDevices(backend, text, {1, 2}, Arguments(2))
            .status()
            .message());
    EXPECT_THAT(
        message,
        HasSubstr("recv 'rv' (channel_id 1, computation 'main'): no send of "
                  "its channel in its computation (its send 's' is in "
                  "computation 'body')"));
  }
}

// A pair whose send and recv sit on either side of a loop that transfers
// on the same channel: which send meets which recv depends on the order
// they are issued (the loop's recv would take the entry's send), so it is
// not one permute, and it is refused rather than run another way.
TEST(SendRecvFormsTest, APairAroundALoopOnItsChannelIsRefused) {
  const std::string attribute =
      "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1}}\"}";
  const std::string text = absl::StrCat(R"(HloModule m, num_partitions=2
body {
  p = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[2] get-tuple-element(p), index=1
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1, )", attribute, R"(
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1, )", attribute, R"(
  rd = (f32[2], token[]) recv-done(r), channel_id=1
  sd = token[] send-done(s), channel_id=1
  got = f32[2] get-tuple-element(rd), index=0
  c1 = s32[] constant(1)
  i1 = s32[] add(i, c1)
  ROOT out = (s32[], f32[2]) tuple(i1, got)
}
cond {
  p = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  s0 = (f32[2], u32[], token[]) send(x, t), channel_id=1, )", attribute, R"(
  sd0 = token[] send-done(s0), channel_id=1
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  y = f32[2] get-tuple-element(w), index=1
  t1 = token[] after-all(sd0)
  rN = (f32[2], u32[], token[]) recv(t1), channel_id=1, )", attribute, R"(
  rdN = (f32[2], token[]) recv-done(rN), channel_id=1
  last = f32[2] get-tuple-element(rdN), index=0
  ROOT sum = f32[2] add(y, last)
})");
  for (const Backend backend : {Backend::kInterpreter, Backend::kJit}) {
    const std::string message(
        ::mxla::testing::RunOnDevices(backend, text, {1, 2}, Arguments(2))
            .status()
            .message());
    EXPECT_THAT(message,
                HasSubstr("send 's0' (channel_id 1, computation 'main'): its "
                          "recv 'rN' and it are not both before or both "
                          "after 'w', which transfers on the same channel"));
  }
}

}  // namespace
}  // namespace mxla
