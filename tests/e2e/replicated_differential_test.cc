// Differential test of the jit on several devices: seeded random graphs
// with collectives (tests/testlib/random_graph.h, replicas × partitions
// from 2 to 8 devices), each device with its own arguments, run through
// Executable::RunReplicated by the jit and by the interpreter (the oracle,
// on the module as written), on XLA's default placement or shuffled
// devices, compared device by device bit for bit (reductions are not
// reassociated, and a collective folds its members in rank order in both
// backends); small graphs, and fewer over larger parameters. Another test
// checks that the seeds reach every collective, group mode and group form.
// A failure names the seed; MXLA_REPLICATED_SEED=<seed> reruns just that
// one, MXLA_REPLICATED_SEEDS=<n> runs seeds 0..n-1.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "ir/collective_groups.h"
#include "ir/device_assignment.h"
#include "ir/shape_util.h"
#include "tests/testlib/feed_constants.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::FedModule;
using ::mxla::testing::WithConstantsFed;

struct Devices {
  int64_t replicas;
  int64_t partitions;
};

// Seed s runs on kDevices[s % size]: every count from 2 to 8, with and
// without partitions.
constexpr Devices kDevices[] = {{2, 1}, {1, 2}, {2, 2}, {4, 1}, {1, 4},
                                {3, 1}, {2, 3}, {1, 8}, {8, 1}, {2, 4},
                                {4, 2}, {3, 2}, {1, 5}, {7, 1}, {1, 6}};

// `large`: parameters of 41 x 97 elements (and values up to that size), so
// that collectives move buffers of kilobytes, not a few elements.
RandomGraphOptions OptionsFor(uint64_t seed, bool large = false) {
  const Devices& devices = kDevices[seed % std::size(kDevices)];
  RandomGraphOptions options;
  options.replicas = devices.replicas;
  options.partitions = devices.partitions;
  if (large) {
    options.element_types = {F32, S32, PRED, F16, U8};
    options.max_rank = 3;
    options.max_instructions = 10;
    options.max_parameters = 2;
    options.allow_zero_sizes = false;
    options.parameter_dimensions = {41, 97};
    return options;
  }
  // Odd seeds: every other element type too, sub-byte integers (packed
  // in the collectives' buffers) and small floats among them.
  options.element_types = {F32, S32, PRED, F64, S64, S8, U8, U32, F16, BF16};
  if (seed % 2 == 1) {
    options.element_types.insert(
        options.element_types.end(),
        {S16, U16, U64, S2, S4, U2, U4, F8E4M3FN, F8E5M2, F8E4M3FNUZ,
         F4E2M1FN, F8E8M0FNU});
  }
  options.max_instructions = 14;
  return options;
}

std::vector<const Literal*> Pointers(const std::vector<Literal>& literals,
                                     const std::vector<Literal>& more = {}) {
  std::vector<const Literal*> pointers;
  for (const Literal& literal : literals) pointers.push_back(&literal);
  for (const Literal& literal : more) pointers.push_back(&literal);
  return pointers;
}

// XLA's default placement, or for every other round of kDevices the
// devices shuffled (so that a group found by device id instead of by
// replica or partition id shows).
DeviceAssignment AssignmentFor(uint64_t seed, const HloModule& module) {
  const int64_t replicas = module.replica_count();
  const int64_t partitions = module.num_partitions();
  if ((seed / std::size(kDevices)) % 2 == 0) {
    return DeviceAssignment::Default(replicas, partitions);
  }
  std::vector<int64_t> ids(replicas * partitions);
  std::iota(ids.begin(), ids.end(), 0);
  std::mt19937_64 bits(seed);  // the same numbers everywhere
  for (size_t i = ids.size() - 1; i > 0; --i) {
    std::swap(ids[i], ids[bits() % (i + 1)]);
  }
  absl::StatusOr<DeviceAssignment> assignment =
      DeviceAssignment::Create(replicas, partitions, ids);
  EXPECT_OK(assignment.status());
  return assignment.ok() ? *assignment
                         : DeviceAssignment::Default(replicas, partitions);
}

// Compiles `module` for `options` and runs it on every device.
absl::StatusOr<std::vector<Literal>> RunOnDevices(
    const HloModule& module, CompileOptions options, const RandomGraph& graph,
    const DeviceAssignment& assignment,
    const std::vector<Literal>& fed_constants) {
  options.replicas = assignment.replica_count();
  options.partitions = assignment.partition_count();
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(module, options);
  if (!executable.ok()) return executable.status();
  std::vector<std::vector<const Literal*>> arguments;
  for (const std::vector<Literal>& mine : graph.device_arguments) {
    arguments.push_back(Pointers(mine, fed_constants));
  }
  return (*executable)->RunReplicated(arguments, assignment);
}

// Checks one seed; returns whether its devices' results differ (what lets
// a mix-up of devices show), false on failure.
bool CheckSeed(uint64_t seed, bool full_pipeline, bool large) {
  absl::StatusOr<RandomGraph> graph =
      GenerateRandomGraph(seed, OptionsFor(seed, large));
  EXPECT_OK(graph.status());
  if (!graph.ok()) return false;
  const HloModule& module = graph->computation.module();
  const DeviceAssignment assignment = AssignmentFor(seed, module);
  const std::string context = absl::StrCat(
      graph->description, full_pipeline ? " [full pipeline]" : " [no passes]",
      ", devices ", assignment.ToString(), "\n", module.ToString());
  CompileOptions interpreter;
  interpreter.backend = Backend::kInterpreter;
  interpreter.passes = std::vector<std::string>{};  // the module as written
  absl::StatusOr<std::vector<Literal>> expected =
      RunOnDevices(module, interpreter, *graph, assignment, {});
  EXPECT_TRUE(expected.ok()) << expected.status() << "\n" << context;
  if (!expected.ok()) return false;

  // Constants the pipeline would fold (with the evaluator) are fed as
  // parameters, the same on every device, so the jit computes every op.
  absl::StatusOr<FedModule> fed =
      WithConstantsFed(module, Pointers(graph->arguments));
  EXPECT_OK(fed.status());
  if (!fed.ok()) return false;
  CompileOptions jit;
  if (!full_pipeline) jit.passes = std::vector<std::string>{};
  jit.codegen.reassociate_reductions = false;
  absl::StatusOr<std::vector<Literal>> actual =
      RunOnDevices(*fed->module, jit, *graph, assignment, fed->constants);
  EXPECT_TRUE(actual.ok()) << actual.status() << "\n" << context;
  if (!actual.ok()) return false;
  EXPECT_EQ(actual->size(), expected->size());
  bool differ = false;
  for (size_t d = 0; d < expected->size() && d < actual->size(); ++d) {
    EXPECT_OK(LiteralUtil::SameValues((*expected)[d], (*actual)[d]))
        << "device " << d << " of " << context << "\nexpected "
        << (*expected)[d].ToString() << "\nactual   "
        << (*actual)[d].ToString();
    differ = differ || (*expected)[d] != (*expected)[0];
  }
  return differ;
}

// Runs seeds 0..count-1 (MXLA_REPLICATED_SEEDS=<n>: 0..n-1) and expects
// a good share of them to give their devices different results (the others
// end in a collective that leaves every device the same value, or read no
// argument).
void CheckSeeds(uint64_t count, bool full_pipeline, bool large = false) {
  if (const char* seed = std::getenv("MXLA_REPLICATED_SEED")) {
    CheckSeed(std::strtoull(seed, nullptr, 10), full_pipeline, large);
    return;
  }
  if (const char* seeds = std::getenv("MXLA_REPLICATED_SEEDS")) {
    count = std::strtoull(seeds, nullptr, 10);
  }
  uint64_t differ = 0;
  for (uint64_t seed = 0; seed < count; ++seed) {
    differ += CheckSeed(seed, full_pipeline, large) ? 1 : 0;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(differ, count / 4) << "devices whose results differ";
  std::cerr << differ << " of " << count << " seeds: the devices differ\n";
}

TEST(ReplicatedDifferentialTest, FullPipelineIsBitExactOnEveryDevice) {
  CheckSeeds(480, true);
}

TEST(ReplicatedDifferentialTest, NoPassesIsBitExactOnEveryDevice) {
  CheckSeeds(240, false);
}

TEST(ReplicatedDifferentialTest, LargerBuffersAreBitExactOnEveryDevice) {
  CheckSeeds(60, true, /*large=*/true);
}

// What the seeds above draw: every collective, every group mode, groups of
// every form, and the other ingredients a mix-up of members would need to
// show. Counts by kind, printed for the record.
TEST(ReplicatedDifferentialTest, SeedsReachEveryCollectiveAndMode) {
  std::map<std::string, int64_t> counts;
  for (uint64_t i = 0; i < 240 + 60; ++i) {
    // The first 240 seeds of the small graphs, then 60 of the larger.
    const bool large = i >= 240;
    const uint64_t seed = large ? i - 240 : i;
    ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                         GenerateRandomGraph(seed, OptionsFor(seed, large)));
    const HloModule& module = graph.computation.module();
    const int64_t devices = module.replica_count() * module.num_partitions();
    ASSERT_EQ(graph.device_arguments.size(), devices) << graph.description;
    if (graph.device_arguments[1] != graph.device_arguments[0]) {
      ++counts["devices with their own arguments"];
    }
    for (const HloInstruction* instruction :
         module.entry_computation()->instructions()) {
      const HloOpcode opcode = instruction->opcode();
      if (!IsDeviceStepOp(opcode)) continue;
      ++counts[std::string(HloOpcodeString(opcode))];
      if (large && instruction->shape().IsArray() &&
          ShapeUtil::ElementsIn(instruction->shape()) >= 1000) {
        ++counts["collectives of 1000 elements or more"];
      }
      if (opcode == HloOpcode::kReplicaId ||
          opcode == HloOpcode::kPartitionId) {
        continue;
      }
      if (opcode == HloOpcode::kCollectivePermute) {
        ++counts[instruction->attributes().Has(AttrId::kChannelId)
                     ? "permute of partitions"
                     : "permute of replicas"];
        continue;
      }
      ASSERT_OK_AND_ASSIGN(CollectiveGroupMode mode,
                           CollectiveGroupModeOf(*instruction));
      ++counts[std::string(CollectiveGroupModeName(mode))];
      if (opcode == HloOpcode::kAllToAll && instruction->operand_count() > 1) {
        ++counts["all-to-all tuple form"];
      }
      const IdGroups groups = ReplicaGroupsOf(*instruction);
      if (groups.empty()) ++counts["empty groups"];
      for (const std::vector<int64_t>& group : groups) {
        if (group.size() != groups[0].size()) {
          ++counts["uneven groups"];
          break;
        }
      }
      const HloComputation* reducer =
          instruction->called_computations().empty()
              ? nullptr
              : instruction->called_computations()[0];
      if (reducer != nullptr && reducer->instruction_count() > 3) {
        ++counts["reducer of several ops"];
      }
    }
  }
  for (const char* kind :
       {"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
        "all-to-all tuple form",
        "collective-permute", "collective-broadcast", "replica-id",
        "partition-id", "cross-replica", "cross-partition",
        "cross-replica-and-partition", "flattened-id", "permute of replicas",
        "permute of partitions", "empty groups", "uneven groups",
        "reducer of several ops", "devices with their own arguments",
        "collectives of 1000 elements or more"}) {
    EXPECT_GT(counts[kind], 0) << kind;
  }
  for (const auto& [kind, count] : counts) {
    std::cerr << kind << ": " << count << "\n";
  }
}

}  // namespace
}  // namespace mxla
