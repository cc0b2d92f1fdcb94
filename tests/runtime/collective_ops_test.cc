// The byte-level collectives the JIT's steps run, on in-process devices,
// against values written out by hand: gathers and splits along a leading
// dimension (no packing) and an inner one (packed), a reduce-scatter whose
// reducer is not commutative (the rank order shows), and the combiners
// taken from reducer computations.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/status_macros.h"
#include "runtime/collective_ops.h"
#include "runtime/in_process_communicator.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Runs body(device, communicator) on `devices` threads; each returns its
// result values.
std::vector<std::vector<float>> OnDevices(
    int64_t devices,
    const std::function<absl::StatusOr<std::vector<float>>(
        int64_t, Communicator&)>& body) {
  auto rendezvous =
      std::make_shared<InProcessRendezvous>(devices, absl::Seconds(30));
  std::vector<std::vector<float>> results(devices);
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < devices; ++d) {
    threads.emplace_back([&, d] {
      InProcessCommunicator communicator(rendezvous, d);
      absl::StatusOr<std::vector<float>> result = body(d, communicator);
      EXPECT_OK(result.status()) << "device " << d;
      if (!result.ok()) {
        rendezvous->Abort(result.status());
        return;
      }
      results[d] = *result;
    });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

ArrayBytes Array(std::vector<float>& values, const std::vector<int64_t>& dims) {
  return {reinterpret_cast<char*>(values.data()), dims, 4};
}

const std::vector<int64_t> kTwo = {0, 1};

// Device d's operand f32[2,3]: 100d + (row, col) as 10·row + col.
std::vector<float> Operand(int64_t d) {
  return {100.0f * d + 0, 100.0f * d + 1, 100.0f * d + 2,
          100.0f * d + 10, 100.0f * d + 11, 100.0f * d + 12};
}

TEST(CollectiveOpsTest, GatherAlongLeadingAndInnerDimensions) {
  const std::vector<int64_t> dims = {2, 3};
  const auto along0 = OnDevices(2, [&](int64_t d, Communicator& c)
                                       -> absl::StatusOr<std::vector<float>> {
    std::vector<float> operand = Operand(d), result(12);
    const std::vector<int64_t> result_dims = {4, 3};
    RETURN_IF_ERROR(GatherAlong(c, {"ag", kTwo, d}, Array(operand, dims), 0,
                                Array(result, result_dims)));
    return result;
  });
  EXPECT_THAT(along0[1], ElementsAreArray({0, 1, 2, 10, 11, 12, 100, 101, 102,
                                           110, 111, 112}));
  const auto along1 = OnDevices(2, [&](int64_t d, Communicator& c)
                                       -> absl::StatusOr<std::vector<float>> {
    std::vector<float> operand = Operand(d), result(12);
    const std::vector<int64_t> result_dims = {2, 6};
    RETURN_IF_ERROR(GatherAlong(c, {"ag", kTwo, d}, Array(operand, dims), 1,
                                Array(result, result_dims)));
    return result;
  });
  EXPECT_THAT(along1[0], ElementsAreArray({0, 1, 2, 100, 101, 102, 10, 11, 12,
                                           110, 111, 112}));
}

TEST(CollectiveOpsTest, ReduceScatterKeepsTheRankOrder) {
  // reducer(a, b) = b - a: member 1's piece minus member 0's.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
sub {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT d = f32[] subtract(b, a)
}
ENTRY e {
  ROOT x = f32[] parameter(0)
})"));
  const HloComputation* sub = module->GetComputationWithName("sub");
  ASSERT_NE(sub, nullptr);
  const std::optional<ElementCombiner> combiner = NativeCombiner(*sub, F32);
  ASSERT_TRUE(combiner.has_value());
  const std::vector<int64_t> dims = {2, 4};
  const auto results = OnDevices(2, [&](int64_t d, Communicator& c)
                                        -> absl::StatusOr<std::vector<float>> {
    // Device d: 1000d + 10·row + col on f32[2,4]; scattered along 1.
    std::vector<float> operand(8), result(4);
    for (int i = 0; i < 8; ++i) operand[i] = 1000.0f * d + 10 * (i / 4) + i % 4;
    const std::vector<int64_t> result_dims = {2, 2};
    RETURN_IF_ERROR(ReduceScatterAlong(c, {"rs", kTwo, d},
                                       Array(operand, dims), 1, *combiner,
                                       Array(result, result_dims)));
    return result;
  });
  // Every element: (1000 + v) - v = 1000, in rank order; the other order
  // would give -1000.
  EXPECT_THAT(results[0], ElementsAreArray({1000, 1000, 1000, 1000}));
  EXPECT_THAT(results[1], ElementsAreArray({1000, 1000, 1000, 1000}));
}

TEST(CollectiveOpsTest, AllToAllSplitsAndConcatenates) {
  // f32[2,4] split along 1 into 2 pieces of [2,2], concatenated along 0.
  const std::vector<int64_t> dims = {2, 4};
  const auto results = OnDevices(2, [&](int64_t d, Communicator& c)
                                        -> absl::StatusOr<std::vector<float>> {
    std::vector<float> operand(8), result(8);
    for (int i = 0; i < 8; ++i) operand[i] = 100.0f * d + 10 * (i / 4) + i % 4;
    const std::vector<int64_t> result_dims = {4, 2};
    RETURN_IF_ERROR(AllToAllAlong(c, {"a2a", kTwo, d}, Array(operand, dims),
                                  /*split_dimension=*/1,
                                  /*concat_dimension=*/0,
                                  Array(result, result_dims)));
    return result;
  });
  // Rank 1 gets columns 2..3 of device 0, then of device 1.
  EXPECT_THAT(results[1],
              ElementsAreArray({2, 3, 12, 13, 102, 103, 112, 113}));
  EXPECT_THAT(results[0], ElementsAreArray({0, 1, 10, 11, 100, 101, 110, 111}));
}

TEST(CollectiveOpsTest, BroadcastTakesRankZerosOperand) {
  const std::vector<int64_t> dims = {2, 3};
  const std::vector<int64_t> group = {2, 0, 1};  // device 2 is rank 0
  const auto results = OnDevices(3, [&](int64_t d, Communicator& c)
                                        -> absl::StatusOr<std::vector<float>> {
    std::vector<float> operand = Operand(d), result(6);
    const int64_t rank = d == 2 ? 0 : d + 1;
    RETURN_IF_ERROR(BroadcastFromFirst(c, {"cb", group, rank},
                                       Array(operand, dims),
                                       Array(result, dims)));
    return result;
  });
  for (const std::vector<float>& result : results) {
    EXPECT_THAT(result, ElementsAreArray(Operand(2)));
  }
}

// Buffers that do not fit the op and its group are refused before any
// exchange, naming the op, both shapes, the dimension and the group.
TEST(CollectiveOpsTest, MismatchedShapesAreRefusedByName) {
  auto rendezvous = std::make_shared<InProcessRendezvous>(2, absl::Seconds(1));
  InProcessCommunicator c(rendezvous, 0);
  std::vector<float> operand = Operand(0), result(10);
  const std::string group = "; its group {0,1} has 2 devices";
  EXPECT_THAT(GatherAlong(c, {"ag", kTwo, 0}, Array(operand, {2, 3}), 0,
                          Array(result, {5, 2})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ag: all-gather result [5,2] (4-byte "
                                 "elements) is not 2 times the operand [2,3] "
                                 "(4-byte elements) along dimension 0" +
                                 group)));
  EXPECT_THAT(ReduceScatterAlong(c, {"rs", kTwo, 0}, Array(operand, {2, 3}),
                                 1, ElementCombiner{4, nullptr},
                                 Array(result, {2, 1})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rs: reduce-scatter operand [2,3] (4-byte "
                                 "elements) is not 2 times the result [2,1] "
                                 "(4-byte elements) along dimension 1" +
                                 group)));
  EXPECT_THAT(AllToAllAlong(c, {"a2a", kTwo, 0}, Array(operand, {2, 3}),
                            /*split_dimension=*/1, /*concat_dimension=*/0,
                            Array(operand, {2, 3})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a2a: all-to-all operand [2,3] (4-byte "
                                 "elements) does not split into 2 pieces "
                                 "along dimension 1")));
  EXPECT_THAT(BroadcastFromFirst(c, {"cb", kTwo, 0}, Array(operand, {2, 3}),
                                 Array(result, {5, 2})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cb: collective-broadcast result [5,2] "
                                 "(4-byte elements) differs from its operand "
                                 "[2,3] (4-byte elements)" + group)));
}

TEST(CollectiveOpsTest, CombinersComeFromOneOpReducersOnly) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
max_bf16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT m = bf16[] maximum(a, b)
}
two_ops {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT n = f32[] negate(s)
}
ENTRY e {
  ROOT x = f32[] parameter(0)
})"));
  EXPECT_FALSE(
      NativeCombiner(*module->GetComputationWithName("two_ops"), F32)
          .has_value());
  const std::optional<ElementCombiner> max =
      NativeCombiner(*module->GetComputationWithName("max_bf16"), BF16);
  ASSERT_TRUE(max.has_value());
  EXPECT_EQ(max->element_bytes, 2);
  BFloat16 a[2] = {BFloat16(1.5f), BFloat16(-2.0f)};
  const BFloat16 b[2] = {BFloat16(0.5f), BFloat16(3.0f)};
  ASSERT_OK(max->combine(reinterpret_cast<char*>(a),
                         reinterpret_cast<const char*>(b), 2));
  EXPECT_EQ(static_cast<float>(a[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(a[1]), 3.0f);
}

}  // namespace
}  // namespace mxla
