// Tests of the random graphs for several devices (RandomGraphOptions::
// replicas, partitions): the graphs carry the device counts, verify against
// them and round-trip; each device has its own arguments, deterministic per
// seed; the groups use only the modes the counts allow; one device draws
// no collective; bad counts are refused. That the jit and the interpreter
// agree on them is tests/e2e/replicated_differential_test.cc.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/collective_groups.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

RandomGraphOptions OnDevices(int64_t replicas, int64_t partitions) {
  RandomGraphOptions options;
  options.element_types = {PRED, S32, F32, U8};
  options.replicas = replicas;
  options.partitions = partitions;
  return options;
}

const HloComputation& Entry(const RandomGraph& graph) {
  return *graph.computation.module().entry_computation();
}

TEST(RandomGraphDevicesTest, GraphsCarryTheCountsVerifyAndRoundTrip) {
  for (const auto& [replicas, partitions] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 1}, {1, 3}, {2, 4}}) {
    for (uint64_t seed = 0; seed < 150; ++seed) {
      ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                           GenerateRandomGraph(seed, OnDevices(replicas,
                                                               partitions)));
      const HloModule& module = graph.computation.module();
      EXPECT_EQ(module.replica_count(), replicas);
      EXPECT_EQ(module.num_partitions(), partitions);
      ASSERT_OK(VerifyModule(module, VerifierMode::kBuilder));
      const std::string text = module.ToString();
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> parsed,
                           ParseHloModule(text));
      EXPECT_EQ(parsed->ToString(), text);
      EXPECT_THAT(graph.description,
                  HasSubstr(absl::StrCat(" on ", replicas, "x", partitions,
                                         " devices")));
    }
  }
}

TEST(RandomGraphDevicesTest, EachDeviceHasItsOwnArgumentsDeterministically) {
  int64_t differing = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    ASSERT_OK_AND_ASSIGN(RandomGraph a, GenerateRandomGraph(seed, OnDevices(2, 2)));
    ASSERT_OK_AND_ASSIGN(RandomGraph b, GenerateRandomGraph(seed, OnDevices(2, 2)));
    EXPECT_EQ(a.computation.ToString(), b.computation.ToString());
    ASSERT_EQ(a.device_arguments.size(), 4u);
    EXPECT_EQ(a.device_arguments, b.device_arguments);  // bitwise
    EXPECT_EQ(a.device_arguments[0], a.arguments);
    for (const std::vector<Literal>& mine : a.device_arguments) {
      ASSERT_EQ(mine.size(), a.arguments.size());
      for (size_t i = 0; i < mine.size(); ++i) {
        EXPECT_EQ(mine[i].shape(), a.arguments[i].shape());
        for (int64_t e = 0; e < mine[i].element_count(); ++e) {
          const double x = mine[i].GetAsDouble(e);
          EXPECT_TRUE(x >= -8 && x < 16) << x;  // u8: [0, 16)
        }
      }
    }
    differing += a.device_arguments[3] != a.device_arguments[0] ? 1 : 0;
  }
  EXPECT_GE(differing, 80);
}

// Replica ids and groups of replicas alone (cross-replica mode) only
// appear with several replicas; a channel_id (every other mode) only with
// several partitions, and cross-partition mode only on the ops that have
// no use_global_device_ids.
TEST(RandomGraphDevicesTest, ModesFollowTheCounts) {
  int64_t collectives = 0;
  for (const auto& [replicas, partitions] :
       std::vector<std::pair<int64_t, int64_t>>{{4, 1}, {1, 4}}) {
    for (uint64_t seed = 0; seed < 150; ++seed) {
      ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                           GenerateRandomGraph(seed, OnDevices(replicas,
                                                               partitions)));
      for (const HloInstruction* instruction : Entry(graph).instructions()) {
        const HloOpcode opcode = instruction->opcode();
        if (opcode == HloOpcode::kReplicaId) EXPECT_EQ(partitions, 1);
        if (opcode == HloOpcode::kPartitionId) EXPECT_EQ(replicas, 1);
        if (!IsDeviceStepOp(opcode) || opcode == HloOpcode::kReplicaId ||
            opcode == HloOpcode::kPartitionId) {
          continue;
        }
        ++collectives;
        const bool channel = instruction->attributes().Has(AttrId::kChannelId);
        EXPECT_EQ(channel, partitions > 1) << instruction->ToString();
        if (opcode == HloOpcode::kCollectivePermute) continue;
        ASSERT_OK_AND_ASSIGN(CollectiveGroupMode mode,
                             CollectiveGroupModeOf(*instruction));
        EXPECT_EQ(mode == CollectiveGroupMode::kCrossReplica, partitions == 1)
            << instruction->ToString();
        // As XLA: only the ops without use_global_device_ids are
        // cross-partition.
        EXPECT_EQ(mode == CollectiveGroupMode::kCrossPartition,
                  channel && !StoresUseGlobalDeviceIds(opcode))
            << instruction->ToString();
      }
    }
  }
  EXPECT_GE(collectives, 150);
}

TEST(RandomGraphDevicesTest, OneDeviceDrawsNoCollective) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                         GenerateRandomGraph(seed, OnDevices(1, 1)));
    EXPECT_TRUE(graph.device_arguments.empty());
    for (const HloInstruction* instruction : Entry(graph).instructions()) {
      EXPECT_FALSE(IsDeviceStepOp(instruction->opcode()))
          << graph.description;
    }
  }
}

TEST(RandomGraphDevicesTest, InvalidCounts) {
  using Change = std::function<void(RandomGraphOptions&)>;
  for (const auto& [change, message] : std::vector<std::pair<Change, std::string>>{
           {[](RandomGraphOptions& o) { o.replicas = 0; },
            "replicas (0) and partitions (1) must be >= 1"},
           {[](RandomGraphOptions& o) { o.partitions = -2; },
            "replicas (1) and partitions (-2) must be >= 1"},
           {[](RandomGraphOptions& o) {
              o.partitions = 2, o.allow_host_feed = true;
            },
            "allow_host_feed needs one device"},
       }) {
    RandomGraphOptions options;
    change(options);
    EXPECT_THAT(GenerateRandomGraph(1, options),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(message)));
  }
}

}  // namespace
}  // namespace mxla
