// `mxla stats`'s engine (tools/corpus_stats.h): each module stops at its
// first failing stage with a reason free of what varies between modules,
// and the report counts stages and reasons.
#include "tools/corpus_stats.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/memory_budget.h"
#include "runtime/memory_limit.h"

namespace mxla::tools {
namespace {

using ::testing::HasSubstr;

std::string WriteModule(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "corpus_stats_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}
// A loop of `trips` trips (endless where `step` is 0) whose body applies
// `op` (of `v`) to an f32[size] each trip; `computations` come first (a
// reducer the op names).
std::string CountedLoopModule(const std::string& computations, int64_t size,
                              const std::string& op, int trips, int step) {
  const std::string array = absl::StrCat("f32[", size, "]");
  const std::string state = absl::StrCat("(s32[], ", array, ")");
  return absl::StrCat(
      "HloModule l\n", computations, "cond {\n  s = ", state,
      " parameter(0)\n  n = s32[] get-tuple-element(s), index=0\n"
      "  limit = s32[] constant(", trips, ")\n"
      "  ROOT lt = pred[] compare(n, limit), direction=LT\n}\n"
      "body {\n  s = ", state, " parameter(0)\n"
      "  n = s32[] get-tuple-element(s), index=0\n"
      "  one = s32[] constant(", step, ")\n  next = s32[] add(n, one)\n"
      "  v = ", array, " get-tuple-element(s), index=1\n  r = ", array, " ",
      op, "\n  ROOT t = ", state, " tuple(next, r)\n}\n"
      "ENTRY main {\n  x = ", array, " parameter(0)\n"
      "  zero = s32[] constant(0)\n  t = ", state, " tuple(zero, x)\n"
      "  w = ", state, " while(t), condition=cond, body=body\n"
      "  ROOT r = ", array, " get-tuple-element(w), index=1\n}\n");
}


// A module whose buffers pass the machine's memory is too large to run,
// not a compile failure, when the JIT compiles it without a budget.
TEST(CorpusStatsTest, ModuleOverTheMemoryLimitIsTooLargeToRun) {
  const std::string huge = WriteModule("huge.hlo", R"(HloModule huge
ENTRY main {
  one = f32[] constant(1)
  ROOT b = f32[1048576] broadcast(one), dimensions={}
})");
  SetMemoryLimitBytes(1 << 20);
  const ModuleOutcome outcome = EvaluateModuleFile(huge, CorpusOptions());
  SetMemoryLimitBytes(0);
  EXPECT_EQ(outcome.stage, CorpusStage::kTooLarge);
  EXPECT_EQ(outcome.reason, "");
  EXPECT_EQ(EvaluateModuleFile(huge, CorpusOptions()).stage,
            CorpusStage::kPassed);
  // Its 1 M elements at more bytes each than the machine has, over them.
  CorpusOptions options;
  options.run_bytes_per_element = PhysicalMemoryBytes() / (1 << 20) + 1;
  EXPECT_EQ(EvaluateModuleFile(huge, options).stage, CorpusStage::kTooLarge);
  EXPECT_FALSE(RunFitsMemory(1 << 20, options));
  options.run_bytes_per_element = PhysicalMemoryBytes() / (1 << 20);
  EXPECT_TRUE(RunFitsMemory(1 << 20, options));
}

TEST(CorpusStatsTest, NormalizeReasonKeepsTheUnknownNameOnly) {
  EXPECT_EQ(NormalizeReason("a/b.hlo:12:5: unknown opcode 'dot'"),
            "unknown opcode 'dot'");
  EXPECT_EQ(NormalizeReason("x.hlo:3:14: unknown attribute 'sharding' for "
                            "parameter 'p.1'"),
            "unknown attribute 'sharding' for parameter '_'");
  EXPECT_EQ(NormalizeReason("computation 'main', instruction 'add.7' (add): "
                            "Binary op add with different element types: "
                            "f32[2,3] and s32[2,3]"),
            "computation '_', instruction '_' (add): Binary op add with "
            "different element types: f32[N,N] and s32[N,N]");
  EXPECT_EQ(NormalizeReason("m.hlo:1:2: expected '}' but found 'x.2'"),
            "expected '}' but found '_'");
  EXPECT_EQ(NormalizeReason("no location: 'unclosed"), "no location: 'unclosed");
}

TEST(CorpusStatsTest, EachModuleStopsAtItsFirstFailingStage) {
  // Parameters listed out of number order get arguments by number.
  const std::string good = WriteModule("good.hlo", R"(HloModule good
ENTRY main {
  y = f32[2,4] parameter(1)
  x = f32[4] parameter(0)
  ROOT s = f32[2,4] add(y, x), broadcast_dimensions={1}
})");
  const std::string unknown = WriteModule("unknown.hlo", R"(HloModule bad
ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] frobnicate(x)
})");
  const std::string unverified = WriteModule("unverified.hlo", R"(HloModule v
ENTRY main {
  x = f32[4] parameter(0)
  y = s32[4] parameter(1)
  ROOT s = f32[4] add(x, y)
})");
  const std::string devices = WriteModule("devices.hlo", R"(HloModule d
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add
})");
  const std::string large = WriteModule("large.hlo", R"(HloModule large
ENTRY main {
  x = f32[4096,4096] parameter(0)
  ROOT n = f32[4096,4096] negate(x)
})");
  // Few elements, but 511 taps for each of 4096 results.
  const std::string costly = WriteModule("costly.hlo", R"(HloModule c
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4096] parameter(0)
  i = f32[] constant(0)
  ROOT r = f32[4096] reduce-window(x, i), window={size=511 pad=255_255}, to_apply=add
})");
  // four 4096-element instructions a trip, 1000 trips, and a loop that
  // never ends fails.
  const std::string costly_loop = WriteModule(
      "costly_loop.hlo", CountedLoopModule("", 4096, "exponential(v)", 1000, 1));
  const std::string endless_loop = WriteModule(
      "endless.hlo", CountedLoopModule("", 4096, "exponential(v)", 10, 0));
  CorpusOptions options;
  options.max_run_elements = 1 << 20;
  options.max_run_work = 1 << 20;
  EXPECT_EQ(EvaluateModuleFile(costly_loop, options).stage,
            CorpusStage::kTooLarge);
  // Each instruction once is ~30K steps: 2^26 allows 2000 trips.
  options.max_run_work = 1 << 26;
  EXPECT_EQ(EvaluateModuleFile(costly_loop, options).stage,
            CorpusStage::kPassed);
  // A loop that never ends stops at the trip limit in both backends.
  options.max_loop_trips = 100;
  const ModuleOutcome endless = EvaluateModuleFile(endless_loop, options);
  EXPECT_EQ(endless.stage, CorpusStage::kEndless);
  EXPECT_EQ(endless.reason, "");
  options.max_loop_trips = CorpusOptions().max_loop_trips;
  std::vector<ModuleOutcome> outcomes;
  options.max_run_work = 1 << 20;
  EXPECT_EQ(EvaluateModuleFile(costly, options).stage, CorpusStage::kTooLarge);
  options.max_run_work = 1 << 22;
  EXPECT_EQ(EvaluateModuleFile(costly, options).stage, CorpusStage::kPassed);
  for (const std::string& path : {good, unknown, unverified, large, devices}) {
    outcomes.push_back(EvaluateModuleFile(path, options));
  }
  EXPECT_EQ(outcomes[0].stage, CorpusStage::kPassed);
  EXPECT_EQ(outcomes[0].reason, "");
  EXPECT_EQ(outcomes[1].stage, CorpusStage::kParse);
  EXPECT_THAT(outcomes[1].reason, HasSubstr("unknown opcode 'frobnicate'"));
  EXPECT_EQ(outcomes[2].stage, CorpusStage::kVerify);
  EXPECT_THAT(outcomes[2].reason, HasSubstr("different element types"));
  EXPECT_EQ(outcomes[3].stage, CorpusStage::kTooLarge);
  // Its groups name two replicas: it runs on two devices.
  EXPECT_EQ(outcomes[4].stage, CorpusStage::kPassed);
  EXPECT_EQ(outcomes[4].devices, 2);
  outcomes.pop_back();

  outcomes.push_back(outcomes[1]);  // a second module with the same reason
  const std::string report = FormatCorpusReport(outcomes, 10);
  EXPECT_THAT(report, HasSubstr("5 modules\n"));
  EXPECT_THAT(report, HasSubstr("2   40.0%       0  did not parse"));
  EXPECT_THAT(report,
              HasSubstr("1   20.0%       0  ran and matched the interpreter"));
  EXPECT_THAT(report, HasSubstr("accepted: 2 of the 5 modules that need one "
                                "device (40.0%); 1 ran and matched (20.0%)"));
  EXPECT_THAT(report, HasSubstr("2  unknown opcode 'frobnicate'  [unknown.hlo]"));
}

// Modules that name several devices, or whose collectives need them, run
// on that many devices with both backends, each device on its own
// arguments, and are compared device by device.
TEST(CorpusStatsTest, ModulesOnSeveralDevicesRunOnTheCountsTheyNeed) {
  // Partition ids in the pairs (a channel_id): two partitions.
  const std::string permute = WriteModule("permute.hlo", R"(HloModule p
ENTRY main {
  x = f32[3] parameter(0)
  ROOT p = f32[3] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,0}}
})");
  // Named counts win over what the groups need.
  const std::string named = WriteModule("named.hlo", R"(HloModule n, replica_count=3
ENTRY main {
  r = u32[] replica-id()
  x = f32[2] parameter(0)
  ROOT t = (u32[], f32[2]) tuple(r, x)
})");
  // Flattened ids 0..5 on no named counts: six devices.
  const std::string flattened = WriteModule("flattened.hlo", R"(HloModule f
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1,2},{3,4,5}}, use_global_device_ids=true, to_apply=add
})");
  // Empty groups: the shapes say four replicas; named partitions stay.
  const std::string gather_all = WriteModule("gather_all.hlo", R"(HloModule g, num_partitions=2
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT g = f32[8,3] all-gather(x), replica_groups={}, dimensions={0}
})");
  // Groups of different sizes in an all-gather: refused by the verifier on
  // its devices.
  const std::string uneven = WriteModule("uneven.hlo", R"(HloModule u
ENTRY main {
  x = f32[2] parameter(0)
  ROOT g = f32[4] all-gather(x), replica_groups={{0,1},{2}}, dimensions={0}
})");
  // A recv between devices without a send to pair it with: a module for
  // devices it does not say how to count. (A send without peers sends to
  // nobody, as in XLA, and runs.)
  const std::string unpaired = WriteModule("unpaired.hlo", R"(HloModule s
ENTRY main {
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1
  ROOT d = (f32[2], token[]) recv-done(r), channel_id=1
})");
  CorpusOptions options;
  const ModuleOutcome alone = EvaluateModuleFile(unpaired, options);
  EXPECT_EQ(alone.stage, CorpusStage::kDevices);
  EXPECT_THAT(alone.reason, HasSubstr("no send of its channel"));
  std::vector<ModuleOutcome> outcomes;
  for (const std::string& path :
       {permute, named, flattened, uneven, gather_all}) {
    outcomes.push_back(EvaluateModuleFile(path, options));
  }
  EXPECT_EQ(outcomes[0].stage, CorpusStage::kPassed) << outcomes[0].reason;
  EXPECT_EQ(outcomes[0].devices, 2);
  EXPECT_EQ(outcomes[1].stage, CorpusStage::kPassed) << outcomes[1].reason;
  EXPECT_EQ(outcomes[1].devices, 3);
  EXPECT_EQ(outcomes[2].stage, CorpusStage::kPassed) << outcomes[2].reason;
  EXPECT_EQ(outcomes[2].devices, 6);
  EXPECT_EQ(outcomes[3].stage, CorpusStage::kVerify);
  EXPECT_EQ(outcomes[3].devices, 3);
  EXPECT_THAT(outcomes[3].reason, HasSubstr("all-gather"));
  EXPECT_EQ(outcomes[4].stage, CorpusStage::kPassed) << outcomes[4].reason;
  EXPECT_EQ(outcomes[4].devices, 8);
  EXPECT_EQ(DescribeOutcome(outcomes[4]), "passed on 8 devices");
  EXPECT_THAT(DescribeOutcome(outcomes[3]),
              ::testing::StartsWith("verify on 3 devices: "));
  outcomes.pop_back();
  const std::string report = FormatCorpusReport(outcomes, 10);
  EXPECT_THAT(report, HasSubstr("3   75.0%       3  ran and matched"));
  EXPECT_THAT(report, HasSubstr("accepted: 3 of the 4 modules that need "
                                "several devices (75.0%); 3 ran and matched"));
}

// XLA's all-reduce with a channel_id and no use_global_device_ids lists
// replica ids (each group spans every partition), while a permute's pairs
// with a channel_id are partition ids: 2 replicas x 3 partitions, not 3
// partitions alone. A reduce-scatter's shapes then give the partitions.
TEST(CorpusStatsTest, ChannelIdAloneOnAnAllReduceCountsReplicas) {
  const std::string mixed = WriteModule("mixed.hlo", R"(HloModule c
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2] parameter(0)
  r = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1}}, to_apply=add
  ROOT p = f32[2] collective-permute(r), channel_id=2, source_target_pairs={{0,1},{1,2},{2,0}}
})");
  const ModuleOutcome outcome = EvaluateModuleFile(mixed, CorpusOptions());
  EXPECT_EQ(outcome.stage, CorpusStage::kPassed) << outcome.reason;
  EXPECT_EQ(outcome.devices, 6);
  // XLA's reduce_scatter_decomposer test: replicas {0,1}, each with every
  // partition, scatter 8 columns in 4 shards: 2 partitions.
  const std::string scatter = WriteModule("scatter.hlo", R"(HloModule s
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8] parameter(0)
  ROOT r = f32[4,2] reduce-scatter(x), replica_groups={{0,1}}, channel_id=1, dimensions={1}, to_apply=add
})");
  const ModuleOutcome scattered =
      EvaluateModuleFile(scatter, CorpusOptions());
  EXPECT_EQ(scattered.stage, CorpusStage::kPassed) << scattered.reason;
  EXPECT_EQ(scattered.devices, 4);
}

// Each device runs its own program at once with the others: the size and
// work limits apply to each, and all devices together get
// all_devices_factor times them.
TEST(CorpusStatsTest, LimitsOnSeveralDevicesApplyToEachDevice) {
  // 2048 elements on each of four devices.
  const std::string reduce = WriteModule("reduce4.hlo", R"(HloModule r
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[1024] parameter(0)
  ROOT r = f32[1024] all-reduce(x), replica_groups={{0,1,2,3}}, to_apply=add
})");
  CorpusOptions options;
  options.max_run_elements = 4096;
  ModuleOutcome outcome = EvaluateModuleFile(reduce, options);
  EXPECT_EQ(outcome.stage, CorpusStage::kPassed) << outcome.reason;
  EXPECT_EQ(outcome.devices, 4);
  options.all_devices_factor = 2;  // 8192 in all: just enough
  EXPECT_EQ(EvaluateModuleFile(reduce, options).stage, CorpusStage::kPassed);
  options.all_devices_factor = 1;
  EXPECT_EQ(DescribeOutcome(EvaluateModuleFile(reduce, options)),
            "too large on 4 devices");
  options = CorpusOptions();
  options.max_run_elements = 2047;
  EXPECT_EQ(EvaluateModuleFile(reduce, options).stage, CorpusStage::kTooLarge);
  // All devices' 8192 elements at this many bytes each pass any memory.
  options = CorpusOptions();
  options.run_bytes_per_element = PhysicalMemoryBytes() / 8192 + 1;
  EXPECT_EQ(DescribeOutcome(EvaluateModuleFile(reduce, options)),
            "too large on 4 devices");
  options.run_bytes_per_element = PhysicalMemoryBytes() / 8192;
  EXPECT_EQ(EvaluateModuleFile(reduce, options).stage, CorpusStage::kPassed);

  // 50 trips of an all-reduce on two devices: a work limit that allows
  // fewer trips makes the loop too costly, not endless; a loop that never
  // ends stops at the trip limit in both backends.
  const char* reducer =
      "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\n";
  const char* all_reduce = "all-reduce(v), replica_groups={{0,1}}, to_apply=add";
  const std::string loop = WriteModule(
      "loop2.hlo", CountedLoopModule(reducer, 64, all_reduce, 50, 1));
  const std::string endless = WriteModule(
      "endless2.hlo", CountedLoopModule(reducer, 64, all_reduce, 50, 0));
  options = CorpusOptions();
  options.max_run_work = 4096;  // each instruction once is ~600 steps
  outcome = EvaluateModuleFile(loop, options);
  EXPECT_EQ(DescribeOutcome(outcome), "too large on 2 devices");
  options.max_run_work = 1 << 20;
  outcome = EvaluateModuleFile(loop, options);
  EXPECT_EQ(DescribeOutcome(outcome), "passed on 2 devices") << outcome.reason;
  options.max_loop_trips = 100;
  outcome = EvaluateModuleFile(endless, options);
  EXPECT_EQ(DescribeOutcome(outcome), "endless on 2 devices");
}

// A run both backends refuse with the same error (an op that checks its
// operands at run time) is accepted apart; different errors are not.
TEST(CorpusStatsTest, RunsRefusedAlikeAreAcceptedApart) {
  EXPECT_TRUE(RefusedAlike(
      absl::InvalidArgumentError("device 1: evaluating r (op): op 'r': bad"),
      absl::InvalidArgumentError("device 0: op 'r': bad")));
  EXPECT_FALSE(RefusedAlike(absl::InvalidArgumentError("op 'r': bad"),
                            absl::InvalidArgumentError("op 'r': worse")));
  // Other devices may report first, naming other numbers.
  EXPECT_TRUE(RefusedAlike(
      absl::InvalidArgumentError("device 4: op 'r': device 0 sends 3 rows"),
      absl::InvalidArgumentError("device 3: op 'r': device 1 sends 5 rows")));
  EXPECT_FALSE(RefusedAlike(absl::InvalidArgumentError("op 'r': bad"),
                            absl::InternalError("op 'r': bad")));
  EXPECT_FALSE(RefusedAlike(absl::InvalidArgumentError("op 'r': bad"),
                            absl::OkStatus()));
  // Offsets past the input: both backends refuse the run.
  const std::string ragged = WriteModule("ragged.hlo", R"(HloModule r
ENTRY main {
  input = f32[4] parameter(0)
  output = f32[4] parameter(1)
  offset = s32[1] constant({3})
  size = s32[1] constant({2})
  ROOT r = f32[4] ragged-all-to-all(input, output, offset, size, offset, size), replica_groups={}
})");
  const ModuleOutcome outcome = EvaluateModuleFile(ragged, CorpusOptions());
  EXPECT_EQ(outcome.stage, CorpusStage::kRefused) << outcome.reason;
  EXPECT_EQ(DescribeOutcome(outcome), "refused alike");
  // Offsets and sizes that are parameters get values that every device
  // accepts (tools/ragged_arguments.h), on one device or several.
  const std::string text = R"(HloModule r, replica_count=COUNT
ENTRY main {
  input = f32[8,2] parameter(0)
  output = f32[6,2] parameter(1)
  input_offsets = s32[4] parameter(2)
  send_sizes = s32[4] parameter(3)
  output_offsets = s32[4] parameter(4)
  recv_sizes = s32[4] parameter(5)
  ROOT r = f32[6,2] ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes), replica_groups={}
})";
  for (const char* count : {"1", "2", "4"}) {
    std::string counted = text;
    counted.replace(counted.find("COUNT"), 5, count);
    const ModuleOutcome ran = EvaluateModuleFile(
        WriteModule(absl::StrCat("ragged", count, ".hlo"), counted),
        CorpusOptions());
    EXPECT_EQ(ran.stage, CorpusStage::kPassed) << count << ": " << ran.reason;
  }
}

}  // namespace
}  // namespace mxla::tools
