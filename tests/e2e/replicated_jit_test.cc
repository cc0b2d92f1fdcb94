// The jit on several devices: every collective as a device step, in every
// group mode, with its asynchronous forms and inside a loop, each checked
// against values written out by hand and against the interpreter run on
// the same devices; replica-id and partition-id per device; and the
// errors: a run whose assignment is not the compile's, and a one-device
// compile of a program whose groups name other devices.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/literal.h"
#include "tests/testlib/replicated_runs.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;

using ::mxla::testing::Devices;

// Device d's argument: f32[length] of 10d + i.
std::vector<Literal> Inputs(const Devices& devices, int64_t length) {
  std::vector<Literal> inputs;
  for (int64_t d = 0; d < devices.count(); ++d) {
    std::vector<float> values(length);
    for (int64_t i = 0; i < length; ++i) values[i] = 10.0f * d + i;
    inputs.push_back(LiteralUtil::CreateR1<float>(values));
  }
  return inputs;
}

// Runs `text` on `devices` with each backend, device d on inputs[d];
// returns the jit's results after checking that the interpreter's are the
// same.
std::vector<Literal> RunBoth(const std::string& text, const Devices& devices,
                             const std::vector<Literal>& inputs) {
  ::mxla::testing::DeviceArguments arguments;
  for (const Literal& input : inputs) {
    arguments.emplace_back();
    arguments.back().push_back(input);
  }
  return ::mxla::testing::RunBothBackends(text, devices, arguments);
}

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(ReplicatedJitTest, AllReduceSumsEachGroupInRankOrder) {
  const std::string text = absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY main {
  x = f32[4] parameter(0)
  ROOT ar = f32[4] all-reduce(x), replica_groups={{0,2},{1,3}}, to_apply=add
})");
  const std::vector<Literal> results =
      RunBoth(text, {4, 1}, Inputs({4, 1}, 4));
  ASSERT_EQ(results.size(), 4);
  // Devices 0 and 2: (0+i) + (20+i); 1 and 3: (10+i) + (30+i).
  EXPECT_EQ(results[0], LiteralUtil::CreateR1<float>({20, 22, 24, 26}));
  EXPECT_EQ(results[2], results[0]);
  EXPECT_EQ(results[1], LiteralUtil::CreateR1<float>({40, 42, 44, 46}));
}

TEST(ReplicatedJitTest, AReducerOfSeveralOpsRunsCompiled) {
  // r(a, b) = a * 2 + b: ((x0·2 + x1)·2 + x2) in rank order.
  const std::string text = R"(
HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  two = f32[] constant(2)
  t = f32[] multiply(a, two)
  ROOT s = f32[] add(t, b)
}
ENTRY main {
  x = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(x), replica_groups={}, to_apply=r
})";
  const std::vector<Literal> results = RunBoth(text, {3, 1}, Inputs({3, 1}, 2));
  ASSERT_EQ(results.size(), 3);
  // Element 0: (0·2 + 10)·2 + 20 = 40; element 1: (1·2 + 11)·2 + 21 = 47.
  EXPECT_EQ(results[1], LiteralUtil::CreateR1<float>({40, 47}));
}

TEST(ReplicatedJitTest, GatherScatterAndAllToAll) {
  const std::string text = absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY main {
  x = f32[4] parameter(0)
  ag = f32[8] all-gather(x), dimensions={0}, replica_groups={{0,1}}
  rs = f32[2] reduce-scatter(x), dimensions={0}, replica_groups={{0,1}}, to_apply=add
  a2a = f32[4] all-to-all(x), dimensions={0}, replica_groups={{0,1}}
  ROOT t = (f32[8], f32[2], f32[4]) tuple(ag, rs, a2a)
})");
  const std::vector<Literal> results = RunBoth(text, {2, 1}, Inputs({2, 1}, 4));
  ASSERT_EQ(results.size(), 2);
  const Literal& r1 = results[1];
  auto device1 = [&](int i) -> const Literal& { return r1.tuple_element(i); };
  EXPECT_EQ(device1(0),
            LiteralUtil::CreateR1<float>({0, 1, 2, 3, 10, 11, 12, 13}));
  // Rank 1's half of the sum: (2+12, 3+13).
  EXPECT_EQ(device1(1), LiteralUtil::CreateR1<float>({14, 16}));
  // Rank 1 receives the second halves: device 0's, then its own.
  EXPECT_EQ(device1(2), LiteralUtil::CreateR1<float>({2, 3, 12, 13}));
}

// 2 replicas x 2 partitions, device (r, p) = 2p + r, x_d[i] = 10d + i.
// XLA's all-reduce, all-gather and reduce-scatter hold
// use_global_device_ids as a bool that is false when the text omits it:
// with a channel_id alone their groups list replica ids, each spanning
// every partition (cross-replica-and-partition), and with it true
// flattened ids r·2 + p. all-to-all and collective-permute have no such
// bool: a channel_id makes their ids partition ids (cross-partition).
TEST(ReplicatedJitTest, ChannelIdGroupsFollowXla) {
  const std::string text =
      absl::StrCat("HloModule m, replica_count=2, num_partitions=2\n", kAdd,
                   R"(
ENTRY main {
  x = f32[4] parameter(0)
  ar = f32[4] all-reduce(x), channel_id=1, replica_groups={{0},{1}}, to_apply=add
  ag = f32[16] all-gather(x), channel_id=2, dimensions={0}, replica_groups={{1,0}}
  rs = f32[1] reduce-scatter(x), channel_id=3, dimensions={0}, replica_groups={}, to_apply=add
  arf = f32[4] all-reduce(x), channel_id=4, use_global_device_ids=true, replica_groups={{0,2},{1,3}}, to_apply=add
  agf = f32[8] all-gather(x), channel_id=5, use_global_device_ids=true, dimensions={0}, replica_groups={{3,0},{1,2}}
  a2a = f32[4] all-to-all(x), channel_id=6, dimensions={0}, replica_groups={{1,0}}
  cp = f32[4] collective-permute(x), channel_id=7, source_target_pairs={{0,1}}
  ROOT t = (f32[4], f32[16], f32[1], f32[4], f32[8], f32[4], f32[4]) tuple(ar, ag, rs, arf, agf, a2a, cp)
})");
  const Devices devices = {2, 2};
  const std::vector<Literal> results =
      RunBoth(text, devices, Inputs(devices, 4));
  ASSERT_EQ(results.size(), 4);
  auto at = [&](int d, int i) -> const Literal& {
    return results[d].tuple_element(i);
  };
  auto r1 = [](std::vector<float> values) {
    return LiteralUtil::CreateR1<float>(values);
  };
  // ar: replica 0 is devices {0,2}, replica 1 {1,3}.
  EXPECT_EQ(at(0, 0), r1({20, 22, 24, 26}));
  EXPECT_EQ(at(2, 0), r1({20, 22, 24, 26}));
  EXPECT_EQ(at(1, 0), r1({40, 42, 44, 46}));
  EXPECT_EQ(at(3, 0), r1({40, 42, 44, 46}));
  // ag: one group, replica 1's devices {1,3} then replica 0's {0,2}.
  const Literal gathered = r1({10, 11, 12, 13, 30, 31, 32, 33,
                               0,  1,  2,  3,  20, 21, 22, 23});
  for (int d = 0; d < 4; ++d) EXPECT_EQ(at(d, 1), gathered) << d;
  // rs: every device in one group, ranks 0..3 = devices 0, 2, 1, 3; the
  // sum is 60 + 4i, and rank k keeps element k.
  EXPECT_EQ(at(0, 2), r1({60}));
  EXPECT_EQ(at(2, 2), r1({64}));
  EXPECT_EQ(at(1, 2), r1({68}));
  EXPECT_EQ(at(3, 2), r1({72}));
  // arf: flattened {0,2} is devices {0,1}, {1,3} devices {2,3}.
  EXPECT_EQ(at(1, 3), r1({10, 12, 14, 16}));
  EXPECT_EQ(at(2, 3), r1({50, 52, 54, 56}));
  // agf: flattened {3,0} is devices {3,0}, {1,2} devices {2,1}.
  EXPECT_EQ(at(0, 4), r1({30, 31, 32, 33, 0, 1, 2, 3}));
  EXPECT_EQ(at(1, 4), r1({20, 21, 22, 23, 10, 11, 12, 13}));
  // a2a: partitions {1,0} of each replica: devices {2,0} and {3,1}; rank
  // 1 (device 0) gets the second halves, rank 0's (device 2's) first.
  EXPECT_EQ(at(0, 5), r1({22, 23, 2, 3}));
  EXPECT_EQ(at(2, 5), r1({20, 21, 0, 1}));
  EXPECT_EQ(at(1, 5), r1({32, 33, 12, 13}));
  // cp: partition 0 to partition 1 within each replica.
  EXPECT_EQ(at(2, 6), r1({0, 1, 2, 3}));
  EXPECT_EQ(at(3, 6), r1({10, 11, 12, 13}));
  EXPECT_EQ(at(0, 6), r1({0, 0, 0, 0}));
}

TEST(ReplicatedJitTest, PermuteBroadcastAndDeviceIds) {
  // 4 partitions; channel_id makes the pairs and groups partition ids.
  const std::string text = R"(
HloModule m, num_partitions=4
ENTRY main {
  x = f32[2] parameter(0)
  cp = f32[2] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3}}
  cb = f32[2] collective-broadcast(x), channel_id=2, replica_groups={{3,2,1,0}}
  p = u32[] partition-id()
  r = u32[] replica-id()
  ROOT t = (f32[2], f32[2], u32[], u32[]) tuple(cp, cb, p, r)
})";
  const std::vector<Literal> results = RunBoth(text, {1, 4}, Inputs({1, 4}, 2));
  ASSERT_EQ(results.size(), 4);
  auto device0 = [&](int i) -> const Literal& { return results[0].tuple_element(i); };
  auto device2 = [&](int i) -> const Literal& { return results[2].tuple_element(i); };
  // Nobody sends to partition 0: zeros. Partition 2 gets partition 1's.
  EXPECT_EQ(device0(0), LiteralUtil::CreateR1<float>({0, 0}));
  EXPECT_EQ(device2(0), LiteralUtil::CreateR1<float>({10, 11}));
  // The group's first member is partition 3.
  EXPECT_EQ(device0(1), LiteralUtil::CreateR1<float>({30, 31}));
  EXPECT_EQ(device2(2).ToString(), "u32[] 2");
  EXPECT_EQ(device2(3).ToString(), "u32[] 0");
}

TEST(ReplicatedJitTest, AsyncFormsAndLoopsRunAsSteps) {
  // A loop adds the all-reduce of its state 3 times; the async pairs are
  // made synchronous.
  const std::string text = absl::StrCat("HloModule m, replica_count=2\n", kAdd,
                                        R"(
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[2] get-tuple-element(s), index=1
  ars = f32[2] all-reduce-start(v), replica_groups={}, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[2]) tuple(next, ard)
}
ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  v = f32[2] get-tuple-element(w), index=1
  ags = (f32[2], f32[4]) all-gather-start(v), dimensions={0}, replica_groups={}
  agd = f32[4] all-gather-done(ags)
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(agd), source_target_pairs={{0,1},{1,0}}
  ROOT cpd = f32[4] collective-permute-done(cps)
})");
  const std::vector<Literal> results = RunBoth(text, {2, 1}, Inputs({2, 1}, 2));
  ASSERT_EQ(results.size(), 2);
  // After 3 all-reduces of (i, 10+i) over 2 devices: (10+2i)·4.
  EXPECT_EQ(results[0],
            LiteralUtil::CreateR1<float>({40, 48, 40, 48}));
}

// Constant folding evaluates on no device: it must leave a collective of
// constants, and the device ids, to the devices.
TEST(ReplicatedJitTest, ConstantsAreNotFoldedAcrossDevices) {
  const std::string text = absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY main {
  x = f32[2] parameter(0)
  c = f32[2] constant({1, 2})
  ar = f32[2] all-reduce(c), replica_groups={}, to_apply=add
  r = u32[] replica-id()
  rf = f32[] convert(r)
  rb = f32[2] broadcast(rf), dimensions={}
  ROOT s = f32[2] add(ar, rb)
})");
  const std::vector<Literal> results = RunBoth(text, {3, 1}, Inputs({3, 1}, 2));
  ASSERT_EQ(results.size(), 3);
  EXPECT_EQ(results[0], LiteralUtil::CreateR1<float>({3, 6}));
  EXPECT_EQ(results[2], LiteralUtil::CreateR1<float>({5, 8}));
}

TEST(ReplicatedJitTest, RunsMustMatchTheCompiledDeviceCounts) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY main {
  x = f32[4] parameter(0)
  ROOT ar = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add
})"));
  ASSERT_OK(module.status());
  // On one device, the group names device 1.
  CompileOptions one;
  EXPECT_THAT(Compile(**module, one).status().message(),
              HasSubstr("replica id 1 in replica group {0,1} is outside "
                        "[0, 1)"));
  CompileOptions two;
  two.replicas = 2;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(**module, two));
  const std::vector<Literal> inputs = Inputs({4, 1}, 4);
  std::vector<std::vector<const Literal*>> arguments;
  for (const Literal& input : inputs) arguments.push_back({&input});
  EXPECT_THAT(
      executable->RunReplicated(arguments, DeviceAssignment::Default(4, 1))
          .status()
          .message(),
      HasSubstr("compiled by the jit for 2 replicas x 1 partitions, but this "
                "run is device"));
}

// A reducer on another floating type than the operand (XLA's collective
// quantizer makes bf16 all-reduces of an f32 maximum) runs by its op on
// the operand's type, in both backends; one of several ops on another type
// is refused by the jit by name (before, it read the operand's elements at
// the reducer's width).
TEST(ReplicatedJitTest, AReducerOfAnotherFloatTypeRunsByItsOp) {
  const std::string text = R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  h = bf16[4] convert(x)
  r = bf16[4] all-reduce(h), replica_groups={{0,1}}, to_apply=max
  ROOT f = f32[4] convert(r)
})";
  const std::vector<Literal> results = RunBoth(text, {2, 1}, Inputs({2, 1}, 4));
  ASSERT_EQ(results.size(), 2);
  EXPECT_EQ(results[0], LiteralUtil::CreateR1<float>({10, 11, 12, 13}));
  EXPECT_EQ(results[1], results[0]);

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule m
clipped_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  one = f32[] constant(1)
  ROOT m = f32[] minimum(s, one)
}
ENTRY main {
  x = f32[4] parameter(0)
  h = bf16[4] convert(x)
  ROOT r = bf16[4] all-reduce(h), replica_groups={{0,1}}, to_apply=clipped_add
})"));
  CompileOptions two;
  two.replicas = 2;
  EXPECT_THAT(Compile(*module, two).status().message(),
              HasSubstr("all-reduce 'r': its reducer 'clipped_add' takes f32[] "
                        "but the operand's elements are bf16"));
}

// A send and recv between devices (XLA's text, the peers in a frontend
// attribute) run as the collective-permute they make: partition 1's value
// reaches partition 0, and partition 1, which no pair targets, gets zeros.
TEST(ReplicatedJitTest, SendAndRecvBetweenDevicesRunAsAPermute) {
  const std::string text = R"(HloModule m, num_partitions=2
ENTRY main {
  x = f32[4] parameter(0)
  token = token[] after-all()
  send = (f32[4], u32[], token[]) send(x, token), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{1,0}}"}
  recv = (f32[4], u32[], token[]) recv(token), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{1,0}}"}
  send-done = token[] send-done(send), channel_id=1
  recv-done = (f32[4], token[]) recv-done(recv), channel_id=1
  ROOT data = f32[4] get-tuple-element(recv-done), index=0
})";
  const std::vector<Literal> results = RunBoth(text, {1, 2}, Inputs({1, 2}, 4));
  ASSERT_EQ(results.size(), 2);
  EXPECT_EQ(results[0], LiteralUtil::CreateR1<float>({10, 11, 12, 13}));
  EXPECT_EQ(results[1], LiteralUtil::CreateR1<float>({0, 0, 0, 0}));
}

}  // namespace
}  // namespace mxla
