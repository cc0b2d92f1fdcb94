// Device assignments and the groups a collective forms in each of XLA's
// four modes (its GetParticipatingDevicesGroups), with the errors for ids
// out of range, repeated ids and devices in no group; the module's
// replica_count and num_partitions read back from text.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/collective_groups.h"
#include "ir/device_assignment.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Groups = std::vector<std::vector<int64_t>>;

// The first instruction named `name` in the module's entry.
const HloInstruction& Named(const HloModule& module, absl::string_view name) {
  for (const HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    if (instruction->name() == name) return *instruction;
  }
  ADD_FAILURE() << "no instruction " << name;
  return *module.entry_computation()->root_instruction();
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  return *std::move(module);
}

// One all-reduce with the given attributes, on 2 replicas x 2 partitions.
std::unique_ptr<HloModule> AllReduce(const std::string& attributes) {
  return Parse(absl::StrCat(R"(
HloModule m, replica_count=2, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT ar = f32[4] all-reduce(x), )",
                            attributes, R"(, to_apply=add
})"));
}

TEST(DeviceAssignmentTest, DefaultIsPartitionMajor) {
  const DeviceAssignment a = DeviceAssignment::Default(2, 3);
  EXPECT_EQ(a.device_count(), 6);
  EXPECT_EQ(a(0, 0), 0);
  EXPECT_EQ(a(1, 0), 1);
  EXPECT_EQ(a(0, 1), 2);
  EXPECT_EQ(a(1, 2), 5);
  EXPECT_EQ(a.CoordinatesOf(3), (DeviceCoordinates{1, 1}));
  EXPECT_EQ(a.ToString(), "{{0,2,4},{1,3,5}}");
}

TEST(DeviceAssignmentTest, ExplicitTablesAreChecked) {
  ASSERT_OK_AND_ASSIGN(DeviceAssignment a,
                       DeviceAssignment::Create(2, 1, {1, 0}));
  EXPECT_EQ(a(0, 0), 1);
  EXPECT_THAT(DeviceAssignment::Create(2, 1, {0, 0}).status().message(),
              HasSubstr("device id 0 is assigned twice"));
  EXPECT_THAT(DeviceAssignment::Create(2, 1, {0, 2}).status().message(),
              HasSubstr("device id 2 is outside [0, 2)"));
  EXPECT_THAT(DeviceAssignment::Create(2, 2, {0, 1, 2}).status().message(),
              HasSubstr("need 4 device ids; got 3"));
  EXPECT_THAT(DeviceAssignment::Create(0, 2, {}).status().message(),
              HasSubstr("must be at least 1"));
}

TEST(CollectiveGroupsTest, ModesFollowChannelAndGlobalIds) {
  EXPECT_EQ(*CollectiveGroupModeOf(false, std::nullopt),
            CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(*CollectiveGroupModeOf(false, false),
            CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(*CollectiveGroupModeOf(true, std::nullopt),
            CollectiveGroupMode::kCrossPartition);
  EXPECT_EQ(*CollectiveGroupModeOf(true, false),
            CollectiveGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(*CollectiveGroupModeOf(true, true),
            CollectiveGroupMode::kFlattenedId);
  EXPECT_THAT(CollectiveGroupModeOf(false, true).status().message(),
              HasSubstr("use_global_device_ids=true needs a channel_id"));
}

// Devices on the default 2x2 assignment: (r, p) -> 2p + r.
TEST(CollectiveGroupsTest, EachModeFormsXlasGroups) {
  const DeviceAssignment a = DeviceAssignment::Default(2, 2);
  struct Case {
    std::string attributes;
    Groups expected;
  };
  const Case cases[] = {
      // Replica ids, one group per partition.
      {"replica_groups={{0,1}}", {{0, 1}, {2, 3}}},
      {"replica_groups={}", {{0, 1}, {2, 3}}},
      // Replica ids with every partition of each: an all-reduce's
      // use_global_device_ids is false when the text omits it, as in XLA.
      {"replica_groups={{1,0}}, channel_id=1", {{1, 3, 0, 2}}},
      {"replica_groups={{0},{1}}, channel_id=1", {{0, 2}, {1, 3}}},
      {"replica_groups={{0},{1}}, channel_id=1, use_global_device_ids=false",
       {{0, 2}, {1, 3}}},
      {"replica_groups={}, channel_id=1", {{0, 2, 1, 3}}},
      // Flattened ids r*P + p.
      {"replica_groups={{0,3},{1,2}}, channel_id=1, use_global_device_ids=true",
       {{0, 3}, {2, 1}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attributes);
    std::unique_ptr<HloModule> module = AllReduce(c.attributes);
    const HloInstruction& ar = Named(*module, "ar");
    ASSERT_OK_AND_ASSIGN(CollectiveGroupMode mode, CollectiveGroupModeOf(ar));
    ASSERT_OK_AND_ASSIGN(
        Groups groups,
        ParticipatingDeviceGroups(ar, a, ReplicaGroupsOf(ar), mode));
    EXPECT_EQ(groups, c.expected);
    ASSERT_OK_AND_ASSIGN(DeviceGroup mine, GroupOfDevice(ar, groups, 1));
    EXPECT_EQ(mine.devices[mine.rank], 1);
  }
}

// XLA's GetCollectiveOpGroupMode: the all-reduce and all-gather classes
// pass their use_global_device_ids bool (false when the text omits it),
// the others std::nullopt. So with a channel_id and no
// use_global_device_ids, only the second kind is cross-partition.
TEST(CollectiveGroupsTest, ChannelIdAloneDependsOnTheOpcode) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule m, replica_count=2, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  offsets = s32[2] parameter(1)
  ar = f32[4] all-reduce(x), channel_id=1, replica_groups={{0},{1}}, to_apply=add
  ars = f32[4] all-reduce-start(x), channel_id=2, replica_groups={{0},{1}}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  ag = f32[8] all-gather(x), channel_id=3, dimensions={0}, replica_groups={{0},{1}}
  ags = (f32[4], f32[8]) all-gather-start(x), channel_id=4, dimensions={0}, replica_groups={{0},{1}}
  agd = f32[8] all-gather-done(ags)
  rs = f32[2] reduce-scatter(x), channel_id=5, dimensions={0}, replica_groups={{0},{1}}, to_apply=add
  a2a = f32[4] all-to-all(x), channel_id=6, dimensions={0}, replica_groups={{0,1}}
  ra = f32[4] ragged-all-to-all(x, x, offsets, offsets, offsets, offsets), channel_id=7, replica_groups={{0,1}}
  cb = f32[4] collective-broadcast(x), channel_id=8, replica_groups={{1,0}}
  cp = f32[4] collective-permute(x), channel_id=9, source_target_pairs={{0,1}}
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(x), channel_id=10, source_target_pairs={{0,1}}
  cpd = f32[4] collective-permute-done(cps)
  ROOT t = (f32[4], f32[4], f32[8], f32[8], f32[2], f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(ar, ard, ag, agd, rs, a2a, ra, cb, cp, cpd)
})");
  for (const char* name : {"ar", "ars", "ag", "ags", "rs"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(StoresUseGlobalDeviceIds(Named(*module, name).opcode()));
    ASSERT_OK_AND_ASSIGN(CollectiveGroupMode mode,
                         CollectiveGroupModeOf(Named(*module, name)));
    EXPECT_EQ(mode, CollectiveGroupMode::kCrossReplicaAndPartition);
  }
  for (const char* name : {"a2a", "ra", "cb", "cp", "cps"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(StoresUseGlobalDeviceIds(Named(*module, name).opcode()));
    ASSERT_OK_AND_ASSIGN(CollectiveGroupMode mode,
                         CollectiveGroupModeOf(Named(*module, name)));
    EXPECT_EQ(mode, CollectiveGroupMode::kCrossPartition);
  }
}

// As XLA's parser, only the ops that hold use_global_device_ids take it.
TEST(CollectiveGroupsTest, OnlyAllReduceAndAllGatherTakeGlobalIds) {
  for (const char* op :
       {"all-to-all(x), dimensions={0}", "collective-broadcast(x)"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(absl::StrCat(R"(
HloModule m, num_partitions=2
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] )",
                                    op, R"(, channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true
})"));
    EXPECT_THAT(module.status().message(),
                HasSubstr("unknown attribute 'use_global_device_ids'"));
  }
}

TEST(CollectiveGroupsTest, BadGroupsAreRefusedNamingTheId) {
  const DeviceAssignment a = DeviceAssignment::Default(2, 2);
  auto error = [&](const std::string& attributes) {
    std::unique_ptr<HloModule> module = AllReduce(attributes);
    const HloInstruction& ar = Named(*module, "ar");
    absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(ar);
    if (!mode.ok()) return std::string(mode.status().message());
    const IdGroups groups = ReplicaGroupsOf(ar);
    absl::Status checked = CheckReplicaGroups(ar, groups, *mode, true);
    if (!checked.ok()) return std::string(checked.message());
    return std::string(
        ParticipatingDeviceGroups(ar, a, groups, *mode).status().message());
  };
  EXPECT_THAT(error("replica_groups={{0,1,2}}"),
              HasSubstr("all-reduce 'ar': replica id 2 in replica group "
                        "{0,1,2} is outside [0, 2)"));
  EXPECT_THAT(error("replica_groups={{0,1},{1}}"),
              HasSubstr("replica 1 is repeated"));
  EXPECT_THAT(error("replica_groups={{0},{2}}"),
              HasSubstr("replica 1 is not named"));
  EXPECT_THAT(error("replica_groups={{0},{1,2}}"),
              HasSubstr("uniform size; {0} has 1 ids and {1,2} has 2"));
  EXPECT_THAT(error("replica_groups={}, channel_id=1, "
                    "use_global_device_ids=true"),
              HasSubstr("must be specified in flattened-id mode"));
  EXPECT_THAT(error("replica_groups={{0,1}}, use_global_device_ids=true"),
              HasSubstr("needs a channel_id"));
}

TEST(CollectiveGroupsTest, PermutePeersWithinAPartitionOrAReplica) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule m, replica_count=2, num_partitions=2
ENTRY main {
  x = f32[4] parameter(0)
  by_replica = f32[4] collective-permute(x), source_target_pairs={{0,1}}
  ROOT by_partition = f32[4] collective-permute(x), channel_id=2, source_target_pairs={{1,0}}
})");
  const DeviceAssignment a = DeviceAssignment::Default(2, 2);
  // By replica: replica 0 sends to replica 1 in each partition.
  ASSERT_OK_AND_ASSIGN(PermutePeers d2,
                       PermutePeersOf(Named(*module, "by_replica"), a, 2));
  EXPECT_FALSE(d2.source.has_value());
  EXPECT_THAT(d2.targets, ElementsAre(3));
  ASSERT_OK_AND_ASSIGN(PermutePeers d3,
                       PermutePeersOf(Named(*module, "by_replica"), a, 3));
  EXPECT_EQ(d3.source, 2);
  EXPECT_TRUE(d3.targets.empty());
  // By partition: partition 1 sends to partition 0 in each replica.
  ASSERT_OK_AND_ASSIGN(PermutePeers d1,
                       PermutePeersOf(Named(*module, "by_partition"), a, 1));
  EXPECT_EQ(d1.source, 3);
  std::unique_ptr<HloModule> bad = Parse(R"(
HloModule m, replica_count=2
ENTRY main {
  x = f32[4] parameter(0)
  ROOT p = f32[4] collective-permute(x), source_target_pairs={{0,1},{0,0}}
})");
  EXPECT_THAT(PermutePeersOf(Named(*bad, "p"), DeviceAssignment::Default(2, 1),
                             0)
                  .status()
                  .message(),
              HasSubstr("source 0 appears more than once"));
}

TEST(CollectiveGroupsTest, DeviceCountsReadBack) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule m, replica_count=4, num_partitions=2
ENTRY main {
  ROOT r = u32[] replica-id()
})");
  EXPECT_EQ(module->replica_count(), 4);
  EXPECT_EQ(module->num_partitions(), 2);
  EXPECT_THAT(module->ToString(),
              HasSubstr("HloModule m, replica_count=4, num_partitions=2\n"));
  EXPECT_EQ(Parse(module->ToString())->ToString(), module->ToString());
  EXPECT_THAT(ParseHloModule("HloModule m, replica_count=0\nENTRY e {\n"
                             "  ROOT r = u32[] replica-id()\n}")
                  .status()
                  .message(),
              HasSubstr("'replica_count' must be at least 1; got 0"));
}

}  // namespace
}  // namespace mxla
