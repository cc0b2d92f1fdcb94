// The interpreter, the oracle, on several devices: every collective in
// every group mode (cross-replica, cross-partition,
// cross-replica-and-partition, flattened ids; listed, empty and iota
// groups) on 2, 3 and 4 devices, each device an EvaluateModule on a thread
// of its own with an in-process communicator. Every expected value is
// written out by hand. Reducers that are not commutative (a - b) check the
// rank order ((m0 - m1) - m2), where a rank is a device's place in its
// group as listed, not its id. Then the verifier's rules for the group
// sizes and the errors of runs whose groups do not fit their devices.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/device_assignment.h"
#include "ir/hlo_verifier.h"
#include "ir/run_device.h"
#include "ir/status_macros.h"
#include "runtime/in_process_communicator.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::testing::HasSubstr;

Literal S32(std::initializer_list<int32_t> values) {
  return LiteralUtil::CreateR1<int32_t>(values);
}
Literal S32x2(std::initializer_list<std::initializer_list<int32_t>> rows) {
  return LiteralUtil::CreateR2<int32_t>(rows);
}
Literal Tuple(std::vector<Literal> elements) {
  return LiteralUtil::MakeTuple(std::move(elements));
}
// One argument per device.
std::vector<std::vector<Literal>> PerDevice(std::vector<Literal> values) {
  std::vector<std::vector<Literal>> arguments;
  for (Literal& value : values) {
    arguments.emplace_back();
    arguments.back().push_back(std::move(value));
  }
  return arguments;
}

// The header and the reducers every module below shares.
std::string Module(int64_t replicas, int64_t partitions,
                   const std::string& entry) {
  return absl::StrCat("HloModule m, replica_count=", replicas,
                      ", num_partitions=", partitions, R"(
add {
  lhs0 = s32[] parameter(0)
  rhs0 = s32[] parameter(1)
  ROOT sum = s32[] add(lhs0, rhs0)
}
sub {
  lhs1 = s32[] parameter(0)
  rhs1 = s32[] parameter(1)
  ROOT difference = s32[] subtract(lhs1, rhs1)
}
ENTRY main {
)",
                      entry, "\n}\n");
}

// Parses and verifies `text`, then evaluates it once per device of the
// default replicas x partitions assignment (device d = p·R + r), each on a
// thread with its own communicator; arguments[d] are device d's. The
// results in device order, or the first device's error.
absl::StatusOr<std::vector<Literal>> RunOnDevices(
    const std::string& text, int64_t replicas, int64_t partitions,
    const std::vector<std::vector<Literal>>& arguments) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  RETURN_IF_ERROR(VerifyModule(*module));
  const DeviceAssignment assignment =
      DeviceAssignment::Default(replicas, partitions);
  const int64_t n = assignment.device_count();
  if (static_cast<int64_t>(arguments.size()) != n) {
    return absl::InvalidArgumentError("one argument list per device");
  }
  auto rendezvous =
      std::make_shared<InProcessRendezvous>(n, absl::Seconds(30));
  std::vector<absl::StatusOr<Literal>> results(n, absl::UnknownError(""));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d) {
    threads.emplace_back([&, d] {
      InProcessCommunicator communicator(rendezvous, d);
      const DeviceCoordinates at = assignment.CoordinatesOf(d);
      const RunDevice device{at.replica, at.partition, &assignment,
                             &communicator};
      EvaluatorOptions options;
      options.device = &device;
      results[d] = EvaluateModule(*module, Pointers(arguments[d]), options);
      if (!results[d].ok()) rendezvous->Abort(results[d].status());
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<Literal> values;
  for (int64_t d = 0; d < n; ++d) {
    if (!results[d].ok()) {
      return absl::Status(results[d].status().code(),
                          absl::StrCat("device ", d, ": ",
                                       results[d].status().message()));
    }
    values.push_back(*std::move(results[d]));
  }
  return values;
}

void ExpectResults(const std::vector<Literal>& results,
                   const std::vector<Literal>& expected) {
  ASSERT_EQ(results.size(), expected.size());
  for (size_t d = 0; d < results.size(); ++d) {
    EXPECT_EQ(results[d], expected[d]) << "device " << d;
  }
}

// x_d = [(d+1)^2, 10^d]: (x2 - x0) - x1 = [4, 89]; another order or
// grouping gives another value.
std::vector<std::vector<Literal>> Squares(int64_t devices) {
  std::vector<Literal> values;
  int32_t power = 1;
  for (int32_t d = 0; d < devices; ++d, power *= 10) {
    values.push_back(S32({(d + 1) * (d + 1), power}));
  }
  return PerDevice(std::move(values));
}

TEST(InterpreterCollectivesTest, AllReduceReducesInRankOrder) {
  // Replica 2 has rank 0: (x2 - x0) - x1.
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      RunOnDevices(Module(3, 1, R"(
  x = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(x), replica_groups={{2,0,1}}, to_apply=sub)"),
                   3, 1, Squares(3)));
  ExpectResults(results, [] {
    std::vector<Literal> v;
    for (int i = 0; i < 3; ++i) v.push_back(S32({4, 89}));
    return v;
  }());
  // Empty groups: all replicas, in id order: (x0 - x1) - x2.
  ASSERT_OK_AND_ASSIGN(results, RunOnDevices(Module(3, 1, R"(
  x = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(x), replica_groups={}, to_apply=sub)"),
                                             3, 1, Squares(3)));
  EXPECT_EQ(results[1], S32({1 - 4 - 9, 1 - 10 - 100}));
  // Groups of different sizes (all-reduce only): {0} alone, {1,2}.
  ASSERT_OK_AND_ASSIGN(results, RunOnDevices(Module(3, 1, R"(
  x = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(x), replica_groups={{0},{2,1}}, to_apply=sub)"),
                                             3, 1, Squares(3)));
  ExpectResults(results, [] {
    std::vector<Literal> v;
    v.push_back(S32({1, 1}));
    v.push_back(S32({5, 90}));  // x2 - x1
    v.push_back(S32({5, 90}));
    return v;
  }());
}

// Four devices on 2 replicas x 2 partitions: device (r, p) = 2p + r, and
// x_d = [(d+1)^2, 10^d] = [1,1], [4,10], [9,100], [16,1000].
TEST(InterpreterCollectivesTest, AllReduceInEveryGroupMode) {
  struct Case {
    std::string attributes;
    // The value each device gets, by device id.
    std::vector<std::vector<int32_t>> expected;
  };
  const Case cases[] = {
      // Cross-replica: replica ids within each partition; partition 0 has
      // devices {0,1}, partition 1 {2,3}; listed {1,0}: x1 - x0.
      {"replica_groups={{1,0}}",
       {{3, 9}, {3, 9}, {7, 900}, {7, 900}}},
      // Cross-replica-and-partition: replica 0 with all its partitions
      // {0,2}, replica 1 {1,3}. An all-reduce's use_global_device_ids is
      // false when the text omits it (XLA stores a bool), so channel_id
      // alone means this mode too, never cross-partition.
      {"channel_id=1, use_global_device_ids=false, replica_groups={{0},{1}}",
       {{-8, -99}, {-12, -990}, {-8, -99}, {-12, -990}}},
      {"channel_id=1, replica_groups={{0},{1}}",
       {{-8, -99}, {-12, -990}, {-8, -99}, {-12, -990}}},
      // Listed {1,0}: replica 1's devices {1,3} first, then replica 0's
      // {0,2}: ((x1 - x3) - x0) - x2.
      {"channel_id=1, replica_groups={{1,0}}",
       {{-22, -1091}, {-22, -1091}, {-22, -1091}, {-22, -1091}}},
      // Flattened ids r·P + p: id 3 is device 3, id 0 device 0; id 2 is
      // (1,0), device 1; id 1 is (0,1), device 2.
      {"channel_id=1, use_global_device_ids=true, replica_groups={{3,0},{2,1}}",
       {{15, 999}, {-5, -90}, {-5, -90}, {15, 999}}},
      // The iota form [2,2]<=[4] on flattened ids: {0,1} = devices {0,2},
      // {2,3} = devices {1,3}.
      {"channel_id=1, use_global_device_ids=true, replica_groups=[2,2]<=[4]",
       {{-8, -99}, {-12, -990}, {-8, -99}, {-12, -990}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attributes);
    ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                         RunOnDevices(Module(2, 2, absl::StrCat(R"(
  x = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(x), )",
                                                           c.attributes,
                                                           ", to_apply=sub")),
                                      2, 2, Squares(4)));
    for (int d = 0; d < 4; ++d) {
      EXPECT_EQ(results[d], LiteralUtil::CreateR1<int32_t>(c.expected[d]))
          << "device " << d;
    }
  }
}

TEST(InterpreterCollectivesTest, AllReduceTuplesStartDoneAndAsync) {
  // Two operands reduced each; the -start/-done pair; an async-start
  // around an all-reduce. 2 replicas, x_d = [(d+1)^2, 10^d], y_d = x_d * 2.
  std::vector<std::vector<Literal>> arguments = Squares(2);
  arguments[0].push_back(S32({2, 2}));
  arguments[1].push_back(S32({8, 20}));
  const std::string text = absl::StrReplaceAll(Module(2, 1, R"(
  x = s32[2] parameter(0)
  y = s32[2] parameter(1)
  t = (s32[2], s32[2]) all-reduce(x, y), replica_groups={}, to_apply=sub
  t0 = s32[2] get-tuple-element(t), index=0
  t1 = s32[2] get-tuple-element(t), index=1
  s = s32[2] all-reduce-start(t1), replica_groups={{1,0}}, to_apply=add
  d = s32[2] all-reduce-done(s)
  as = ((s32[2]), s32[2], s32[]) async-start(t0), calls=wrapped
  ad = s32[2] async-done(as), calls=wrapped
  ROOT r = (s32[2], s32[2], s32[2]) tuple(t0, d, ad))"),
                                                {{"ENTRY main", R"(wrapped {
  p = s32[2] parameter(0)
  ROOT w = s32[2] all-reduce(p), replica_groups={{0,1}}, to_apply=sub
}
ENTRY main)"}});
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                       RunOnDevices(text, 2, 1, arguments));
  // t0 = x0 - x1 = [-3, -9]; t1 = y0 - y1 = [-6, -18]; d = t1 + t1;
  // ad = t0 - t0 = 0.
  for (int d = 0; d < 2; ++d) {
    std::vector<Literal> elements;
    elements.push_back(S32({-3, -9}));
    elements.push_back(S32({-12, -36}));
    elements.push_back(S32({0, 0}));
    EXPECT_EQ(results[d], Tuple(std::move(elements))) << "device " << d;
  }
}

TEST(InterpreterCollectivesTest, AllGatherConcatenatesInRankOrder) {
  // 3 replicas, x_d = [[d], [10 + d]], gathered along dimension 1.
  std::vector<Literal> values;
  for (int32_t d = 0; d < 3; ++d) values.push_back(S32x2({{d}, {10 + d}}));
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                       RunOnDevices(Module(3, 1, R"(
  x = s32[2,1] parameter(0)
  ROOT r = s32[2,3] all-gather(x), dimensions={1}, replica_groups={{2,0,1}})"),
                                    3, 1, PerDevice(std::move(values))));
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(results[d], S32x2({{2, 0, 1}, {12, 10, 11}})) << "device " << d;
  }
  // Two operands, and the -start/-done pair ((operands), (results)), on
  // 2 partitions x 1 replica across partitions: flattened ids (here the
  // partition ids) listed {1,0}, and channel_id alone with no groups
  // (replica 0 with every partition of it, in partition order).
  std::vector<std::vector<Literal>> arguments(2);
  for (int32_t d = 0; d < 2; ++d) {
    arguments[d].push_back(S32({d, d}));
    arguments[d].push_back(S32({100 + d}));
  }
  ASSERT_OK_AND_ASSIGN(results, RunOnDevices(Module(1, 2, R"(
  x = s32[2] parameter(0)
  y = s32[1] parameter(1)
  g = (s32[4], s32[2]) all-gather(x, y), channel_id=1, use_global_device_ids=true, dimensions={0}, replica_groups={{1,0}}
  s = ((s32[2], s32[1]), (s32[4], s32[2])) all-gather-start(x, y), channel_id=2, dimensions={0}, replica_groups={}
  d = (s32[4], s32[2]) all-gather-done(s)
  ROOT r = ((s32[4], s32[2]), (s32[4], s32[2])) tuple(g, d))"),
                                             1, 2, arguments));
  for (int d = 0; d < 2; ++d) {
    std::vector<Literal> listed, all, both;
    listed.push_back(S32({1, 1, 0, 0}));
    listed.push_back(S32({101, 100}));
    all.push_back(S32({0, 0, 1, 1}));
    all.push_back(S32({100, 101}));
    both.push_back(Tuple(std::move(listed)));
    both.push_back(Tuple(std::move(all)));
    EXPECT_EQ(results[d], Tuple(std::move(both))) << "device " << d;
  }
}

TEST(InterpreterCollectivesTest, ReduceScatterGivesEachRankItsSlice) {
  // 2 replicas, x0 = [1,2,3,4], x1 = [10,20,30,40]; listed {1,0}: rank 0
  // is replica 1, so the difference is x1 - x0 = [9,18,27,36], and
  // replica 1 gets the first half.
  std::vector<Literal> values;
  values.push_back(S32({1, 2, 3, 4}));
  values.push_back(S32({10, 20, 30, 40}));
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                       RunOnDevices(Module(2, 1, R"(
  x = s32[4] parameter(0)
  ROOT r = s32[2] reduce-scatter(x), dimensions={0}, replica_groups={{1,0}}, to_apply=sub)"),
                                    2, 1, PerDevice(std::move(values))));
  EXPECT_EQ(results[0], S32({27, 36}));
  EXPECT_EQ(results[1], S32({9, 18}));
  // 4 devices (2x2) in flattened-id groups {0,1,2,3} (one group), along
  // dimension 1 of s32[1,4] with x_d = [[d, 10d, 100d, 1000d]]: the sum
  // is [[6, 60, 600, 6000]]; flattened id i is device (i/2) + 2(i%2), so
  // ids 0,1,2,3 are devices 0,2,1,3 and get the quarters in that order.
  values.clear();
  for (int32_t d = 0; d < 4; ++d) {
    values.push_back(S32x2({{d, 10 * d, 100 * d, 1000 * d}}));
  }
  ASSERT_OK_AND_ASSIGN(results, RunOnDevices(Module(2, 2, R"(
  x = s32[1,4] parameter(0)
  ROOT r = s32[1,1] reduce-scatter(x), channel_id=3, use_global_device_ids=true, dimensions={1}, replica_groups={{0,1,2,3}}, to_apply=add)"),
                                             2, 2,
                                             PerDevice(std::move(values))));
  EXPECT_EQ(results[0], S32x2({{6}}));
  EXPECT_EQ(results[2], S32x2({{60}}));
  EXPECT_EQ(results[1], S32x2({{600}}));
  EXPECT_EQ(results[3], S32x2({{6000}}));
}

TEST(InterpreterCollectivesTest, AllToAllArrayAndTupleForms) {
  // Array form on 3 replicas: x_d = [10d, 10d+1, 10d+2]; rank r receives
  // block r of every member, in rank order.
  std::vector<Literal> values;
  for (int32_t d = 0; d < 3; ++d) {
    values.push_back(S32({10 * d, 10 * d + 1, 10 * d + 2}));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                       RunOnDevices(Module(3, 1, R"(
  x = s32[3] parameter(0)
  ROOT r = s32[3] all-to-all(x), dimensions={0}, replica_groups={})"),
                                    3, 1, PerDevice(std::move(values))));
  EXPECT_EQ(results[0], S32({0, 10, 20}));
  EXPECT_EQ(results[1], S32({1, 11, 21}));
  EXPECT_EQ(results[2], S32({2, 12, 22}));
  // Along dimension 1 of s32[2,2] on 2 partitions listed {1,0}: rank 0 is
  // partition 1. x_d = [[100d, 100d+1], [100d+10, 100d+11]]; rank r gets
  // column r of rank 0's operand, then of rank 1's.
  values.clear();
  for (int32_t d = 0; d < 2; ++d) {
    values.push_back(
        S32x2({{100 * d, 100 * d + 1}, {100 * d + 10, 100 * d + 11}}));
  }
  ASSERT_OK_AND_ASSIGN(results, RunOnDevices(Module(1, 2, R"(
  x = s32[2,2] parameter(0)
  ROOT r = s32[2,2] all-to-all(x), channel_id=1, dimensions={1}, replica_groups={{1,0}})"),
                                             1, 2,
                                             PerDevice(std::move(values))));
  EXPECT_EQ(results[1], S32x2({{100, 0}, {110, 10}}));
  EXPECT_EQ(results[0], S32x2({{101, 1}, {111, 11}}));
  // Tuple form on 2 replicas: element j is member j's operand `rank`.
  std::vector<std::vector<Literal>> arguments(2);
  for (int32_t d = 0; d < 2; ++d) {
    arguments[d].push_back(S32({10 * d + 1}));
    arguments[d].push_back(S32({10 * d + 2}));
  }
  ASSERT_OK_AND_ASSIGN(results, RunOnDevices(Module(2, 1, R"(
  a = s32[1] parameter(0)
  b = s32[1] parameter(1)
  ROOT r = (s32[1], s32[1]) all-to-all(a, b), replica_groups={{0,1}})"),
                                             2, 1, arguments));
  std::vector<Literal> first, second;
  first.push_back(S32({1}));
  first.push_back(S32({11}));
  second.push_back(S32({2}));
  second.push_back(S32({12}));
  EXPECT_EQ(results[0], Tuple(std::move(first)));
  EXPECT_EQ(results[1], Tuple(std::move(second)));
}

TEST(InterpreterCollectivesTest, BroadcastPermuteAndDeviceIds) {
  // 2x2; x_d = [(d+1)^2, 10^d].
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                       RunOnDevices(Module(2, 2, R"(
  x = s32[2] parameter(0)
  b = s32[2] collective-broadcast(x), replica_groups={{1,0}}
  p = s32[2] collective-permute(x), source_target_pairs={{0,1}}
  q = s32[2] collective-permute(x), channel_id=1, source_target_pairs={{1,0},{0,1}}
  s = (s32[2], s32[2], u32[], u32[]) collective-permute-start(x), channel_id=2, source_target_pairs={{0,1}}
  sd = s32[2] collective-permute-done(s)
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  ROOT r = (s32[2], s32[2], s32[2], s32[2], u32[], u32[]) tuple(b, p, q, sd, rid, pid))"),
                                    2, 2, Squares(4)));
  // Device d = 2p + r: the broadcast's rank 0 is replica 1 of the
  // device's partition; p sends replica 0 to replica 1 (replica 0 gets
  // zeros); q swaps the partitions of each replica; sd sends partition 0
  // to partition 1.
  const std::vector<std::vector<int32_t>> x = {
      {1, 1}, {4, 10}, {9, 100}, {16, 1000}};
  const std::vector<std::vector<int32_t>> b = {x[1], x[1], x[3], x[3]};
  const std::vector<std::vector<int32_t>> p = {{0, 0}, x[0], {0, 0}, x[2]};
  const std::vector<std::vector<int32_t>> q = {x[2], x[3], x[0], x[1]};
  const std::vector<std::vector<int32_t>> sd = {{0, 0}, {0, 0}, x[0], x[1]};
  for (int d = 0; d < 4; ++d) {
    std::vector<Literal> elements;
    elements.push_back(LiteralUtil::CreateR1<int32_t>(b[d]));
    elements.push_back(LiteralUtil::CreateR1<int32_t>(p[d]));
    elements.push_back(LiteralUtil::CreateR1<int32_t>(q[d]));
    elements.push_back(LiteralUtil::CreateR1<int32_t>(sd[d]));
    elements.push_back(LiteralUtil::CreateR0<uint32_t>(d % 2));
    elements.push_back(LiteralUtil::CreateR0<uint32_t>(d / 2));
    EXPECT_EQ(results[d], Tuple(std::move(elements))) << "device " << d;
  }
}

TEST(InterpreterCollectivesTest, FloatSumsKeepTheRankOrder) {
  // f32: (1e8 + 1) - ... the order changes the bits: x0 = 1e8, x1 = 1,
  // x2 = -1e8, x3 = 1, left to right: ((1e8 + 1) + -1e8) + 1 = 1 (1e8 + 1
  // rounds to 1e8 in f32); listed {2,0,1,3}: ((-1e8 + 1e8) + 1) + 1 = 2.
  const std::string text = R"(HloModule f, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY main {
  x = f32[] parameter(0)
  l = f32[] all-reduce(x), replica_groups={}, to_apply=add
  o = f32[] all-reduce(x), replica_groups={{2,0,1,3}}, to_apply=add
  ROOT r = (f32[], f32[]) tuple(l, o)
})";
  std::vector<Literal> values;
  for (float v : {1e8f, 1.0f, -1e8f, 1.0f}) {
    values.push_back(LiteralUtil::CreateR0<float>(v));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                       RunOnDevices(text, 4, 1, PerDevice(std::move(values))));
  for (int d = 0; d < 4; ++d) {
    std::vector<Literal> elements;
    elements.push_back(LiteralUtil::CreateR0<float>(1.0f));
    elements.push_back(LiteralUtil::CreateR0<float>(2.0f));
    EXPECT_EQ(results[d], Tuple(std::move(elements))) << "device " << d;
  }
}

// A one-op reducer (binary_reducer.h) combines whole operands at once; it
// still reduces in rank order, with the op's operands as the reducer
// names them: rsub(acc, x) = x - acc gives (x1 - x0), then x2 - that.
TEST(InterpreterCollectivesTest, OneOpReducersTakeTheirOperandsInOrder) {
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> results,
                       RunOnDevices(absl::StrCat("HloModule m, replica_count=3",
                                                 R"(
rsub {
  acc = s32[] parameter(0)
  x = s32[] parameter(1)
  ROOT d = s32[] subtract(x, acc)
}
ENTRY main {
  x = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(x), replica_groups={}, to_apply=rsub
})"),
                                    3, 1, Squares(3)));
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(results[d], S32({9 - (4 - 1), 100 - (10 - 1)})) << "device " << d;
  }
}

// ... and gives the bits the reducer evaluated on each pair of elements
// does: bf16 sums of 3 devices, rounded to bf16 after each step, against
// the same reducer with a convert to bf16 after its add (two ops: the
// per-element path).
TEST(InterpreterCollectivesTest, OneOpReducersMatchTheGeneralPath) {
  auto module = [](bool two_ops) {
    return absl::StrCat("HloModule m, replica_count=3\nsum {\n",
                        "  a = bf16[] parameter(0)\n  b = bf16[] parameter(1)\n",
                        two_ops ? "  c = bf16[] add(a, b)\n  ROOT r = bf16[] "
                                  "convert(c)\n"
                                : "  ROOT r = bf16[] add(a, b)\n",
                        "}\nENTRY main {\n  x = f32[64] parameter(0)\n",
                        "  n = bf16[64] convert(x)\n",
                        "  s = bf16[64] all-reduce(n), replica_groups={}, "
                        "to_apply=sum\n",
                        "  ROOT o = f32[64] convert(s)\n}\n");
  };
  auto inputs = [] {
    std::vector<Literal> values;
    uint32_t state = 7;
    for (int d = 0; d < 3; ++d) {
      std::vector<float> x;
      for (int i = 0; i < 64; ++i) {
        state = state * 1664525u + 1013904223u;
        x.push_back(static_cast<float>(state >> 8) / (1 << 20) - 8.0f);
      }
      values.push_back(LiteralUtil::CreateR1<float>(x));
    }
    return PerDevice(std::move(values));
  };
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> general,
                       RunOnDevices(module(true), 3, 1, inputs()));
  ASSERT_OK_AND_ASSIGN(std::vector<Literal> one_op,
                       RunOnDevices(module(false), 3, 1, inputs()));
  ExpectResults(one_op, general);
}

// What the verifier says of a module with one instruction `r`.
std::string VerifyError(int64_t replicas, int64_t partitions,
                        const std::string& entry) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(Module(replicas, partitions, entry));
  if (!module.ok()) return absl::StrCat("parse: ", module.status().message());
  return std::string(VerifyModule(**module).message());
}

TEST(InterpreterCollectivesTest, VerifierChecksGroupSizesAgainstShapes) {
  // The group size comes from the groups, or from the module's counts
  // for empty groups.
  EXPECT_THAT(VerifyError(2, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[12] all-gather(x), dimensions={0}, replica_groups={{0,1}})"),
              HasSubstr("instruction 'r' (all-gather): all-gather 'r': the "
                        "result s32[12] is the operand s32[4] gathered 3 "
                        "times along dimension 0, but each group has 2 "
                        "devices (replica_groups={{0,1}}, cross-replica "
                        "mode)"));
  EXPECT_THAT(VerifyError(4, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[2] reduce-scatter(x), dimensions={0}, replica_groups={}, to_apply=add)"),
              HasSubstr("reduce-scatter 'r': the result s32[2] scatters the "
                        "operand s32[4] in 2 shards along dimension 0, but "
                        "each group has 4 devices (replica_groups={}, "
                        "cross-replica mode)"));
  EXPECT_THAT(VerifyError(1, 2, R"(  x = s32[3] parameter(0)
  ROOT r = s32[3] all-to-all(x), channel_id=1, dimensions={0}, replica_groups={})"),
              HasSubstr("all-to-all: split dimension 0 of s32[3] (size 3) "
                        "must be dividable by split_count 2."));
  EXPECT_THAT(VerifyError(3, 1, R"(  x = s32[3] parameter(0)
  ROOT r = (s32[3], s32[3]) all-to-all(x, x), replica_groups={})"),
              HasSubstr("all-to-all 'r': the tuple form takes one operand "
                        "per member of its group: each group has 3 devices "
                        "(replica_groups={}, cross-replica mode), but there "
                        "are 2 operands"));
  // The counts 1 and 1 say nothing, as in XLA: the shapes give the count.
  EXPECT_EQ(VerifyError(1, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[8] all-gather(x), dimensions={0}, replica_groups={})"),
            "");
  EXPECT_THAT(VerifyError(1, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[6] all-gather(x), dimensions={0}, replica_groups={})"),
              HasSubstr("declared shape s32[6] differs from the inferred "
                        "shape s32[8]"));
  // Groups: uniform except for all-reduce, ids as many as the module's
  // count, flattened ids only with a channel_id.
  EXPECT_THAT(VerifyError(4, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[8] all-gather(x), dimensions={0}, replica_groups={{0,1},{2},{3}})"),
              HasSubstr("uniform size; {0,1} has 2 ids and {2} has 1"));
  EXPECT_EQ(VerifyError(4, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(x), replica_groups={{0,1},{2},{3}}, to_apply=add)"),
            "");
  EXPECT_THAT(VerifyError(4, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add)"),
              HasSubstr("all-reduce 'r': in cross-replica mode, replica "
                        "groups should contain 4 replicas (the module's "
                        "replica_count=4, num_partitions=1), but found 2"));
  // XLA's count per mode: channel_id alone on an all-reduce lists
  // replicas (cross-replica-and-partition), on an all-to-all partitions.
  EXPECT_THAT(VerifyError(2, 2, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(x), channel_id=1, replica_groups={{0,1},{2,3}}, to_apply=add)"),
              HasSubstr("all-reduce 'r': in cross-replica-and-partition "
                        "mode, replica groups should contain 2 replicas (the "
                        "module's replica_count=2, num_partitions=2), but "
                        "found 4"));
  EXPECT_THAT(VerifyError(1, 2, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] all-to-all(x), channel_id=1, dimensions={0}, replica_groups={{0,1},{2,3}})"),
              HasSubstr("all-to-all 'r': in cross-partition mode, replica "
                        "groups should contain 2 partitions (the module's "
                        "replica_count=1, num_partitions=2), but found 4"));
  EXPECT_THAT(VerifyError(2, 2, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(x), channel_id=1, use_global_device_ids=true, replica_groups={{0,1}}, to_apply=add)"),
              HasSubstr("all-reduce 'r': in flattened-id mode, replica "
                        "groups should contain 4 flattened ids"));
  EXPECT_THAT(VerifyError(2, 2, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(x), replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add)"),
              HasSubstr("use_global_device_ids=true needs a channel_id"));
  EXPECT_THAT(VerifyError(2, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] collective-permute(x), source_target_pairs={{0,2}})"),
              HasSubstr("collective-permute 'r': target 2 in "
                        "source_target_pair {0,2} must be in [0, 2) (the "
                        "module's replica_count)"));
  EXPECT_THAT(VerifyError(2, 1, R"(  x = s32[4] parameter(0)
  ROOT r = s32[4] collective-permute(x), source_target_pairs={{0,1},{0,0}})"),
              HasSubstr("source 0 appears more than once in "
                        "source_target_pairs {{0,1},{0,0}}"));
  EXPECT_THAT(VerifyError(2, 1, "  ROOT r = s32[] replica-id()"),
              HasSubstr("declared shape s32[] differs from the inferred "
                        "shape u32[]"));
}

TEST(InterpreterCollectivesTest, RunsWhoseGroupsDoNotFitAreRefused) {
  // Without a device, the run is device 0 of one: another device is an
  // error naming the op.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(Module(2, 1, R"(
  x = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add)")));
  const Literal x = S32({1, 2, 3, 4});
  EXPECT_THAT(EvaluateModule(*module, {&x}).status().message(),
              HasSubstr("all-reduce 'r': replica id 1 in replica group {0,1} "
                        "is outside [0, 1) (cross-replica mode on 1 replicas "
                        "x 1 partitions)"));
  // A module written for 4 replicas run on 2.
  EXPECT_THAT(RunOnDevices(Module(4, 1, R"(
  x = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add)"),
                           2, 1, Squares(2))
                  .status()
                  .message(),
              HasSubstr("replica id 2 in replica group {2,3} is outside "
                        "[0, 2)"));
  // Groups of one (the verifier then checks no shard count) with a shape
  // that needs two.
  EXPECT_THAT(RunOnDevices(Module(2, 1, R"(
  x = s32[2] parameter(0)
  ROOT r = s32[4] all-gather(x), dimensions={0}, replica_groups={{0},{1}})"),
                           2, 1, Squares(2))
                  .status()
                  .message(),
              HasSubstr("all-gather 'r': its group {0} has 1 devices, but "
                        "the result s32[4] is not 1 times the operand s32[2] "
                        "along dimension 0"));
}

// Evaluated as written (no pair-sends-and-recvs), a send between devices
// with no peers sends to nobody and its send-done gives the token; a recv
// is still refused.
TEST(CollectivesTest, ASendWithoutPeersSendsToNobody) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1
  d = token[] send-done(s), channel_id=1
  ROOT r = (f32[2], token[]) tuple(x, d)
})"));
  const Literal x = LiteralUtil::CreateR1<float>({1, 2});
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x}));
  EXPECT_EQ(result.tuple_element(0), x);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> receiving,
                       ParseHloModule(R"(HloModule m
ENTRY main {
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1
  ROOT d = (f32[2], token[]) recv-done(r), channel_id=1
})"));
  EXPECT_THAT(EvaluateModule(*receiving, {}).status().message(),
              HasSubstr("recv 'r' transfers between devices or to the host"));
}

}  // namespace
}  // namespace mxla
