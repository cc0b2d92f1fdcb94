// tools/ragged_arguments.h: generated ragged-all-to-all offsets and sizes
// that both backends accept on every device, laid out as XLA's tests lay
// them out.
#include "tools/ragged_arguments.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_module.h"
#include "tools/corpus_arguments.h"

namespace mxla::tools {
namespace {

using ::testing::ElementsAre;

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

// Every device's arguments, filled as `mxla stats` fills them.
std::vector<std::vector<Literal>> Arguments(const HloModule& module,
                                            int64_t devices) {
  std::vector<std::vector<Literal>> arguments(devices);
  for (std::vector<Literal>& mine : arguments) {
    int64_t elements = 0;
    mine = ArgumentsWithin(*module.entry_computation(), int64_t{1} << 30,
                           elements);
  }
  return arguments;
}

std::vector<int64_t> Values(const Literal& literal) {
  const absl::Span<const int64_t> values = literal.data<int64_t>();
  return std::vector<int64_t>(values.begin(), values.end());
}

constexpr char kRagged[] = R"(HloModule r, replica_count=N
ENTRY main {
  input = f32[IN] parameter(0)
  output = f32[OUT] parameter(1)
  input_offsets = s64[M] parameter(2)
  send_sizes = s64[M] parameter(3)
  output_offsets = s64[M] parameter(4)
  recv_sizes = s64[M] parameter(5)
  ROOT r = f32[OUT] ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes), replica_groups={}
})";

std::string RaggedModule(int64_t n, int64_t k, int64_t in, int64_t out) {
  return absl::StrReplaceAll(kRagged, {{"=N", absl::StrCat("=", n)},
                                       {"IN", absl::StrCat(in)},
                                       {"OUT", absl::StrCat(out)},
                                       {"[M]", absl::StrCat("[", n * k, "]")}});
}

// Two devices, one update each: device i sends device j
// (i + 2j + 1) % 3 rows (at most min(4, 6) / 2 = 2), packed in its input
// in peer order and in the receiver's output in sender order.
TEST(RaggedArgumentsTest, SizesPartitionEachInputAndOutput) {
  std::unique_ptr<HloModule> module = Parse(RaggedModule(2, 1, 4, 6));
  ASSERT_NE(module, nullptr);
  std::vector<std::vector<Literal>> arguments = Arguments(*module, 2);
  FillRaggedAllToAllArguments(*module->entry_computation(),
                              DeviceAssignment::Default(2, 1), arguments);
  EXPECT_THAT(Values(arguments[0][2]), ElementsAre(0, 1));  // input_offsets
  EXPECT_THAT(Values(arguments[0][3]), ElementsAre(1, 0));  // send_sizes
  EXPECT_THAT(Values(arguments[0][4]), ElementsAre(0, 0));  // output_offsets
  EXPECT_THAT(Values(arguments[0][5]), ElementsAre(1, 2));  // recv_sizes
  EXPECT_THAT(Values(arguments[1][2]), ElementsAre(0, 2));
  EXPECT_THAT(Values(arguments[1][3]), ElementsAre(2, 1));
  EXPECT_THAT(Values(arguments[1][4]), ElementsAre(1, 0));
  EXPECT_THAT(Values(arguments[1][5]), ElementsAre(0, 1));
}

// What the interpreter and the runtime check, on many group sizes, update
// counts and row counts: every update in range of its sender's input and
// its receiver's output, no two updates on one output row, and recv_sizes
// what the peer sends.
TEST(RaggedArgumentsTest, EveryDeviceAcceptsTheValues) {
  for (int64_t n : {1, 2, 3, 5}) {
    for (int64_t k : {1, 2, 3}) {
      for (auto [in, out] : {std::pair{4, 6}, {16, 9}, {40, 40}, {1, 50}}) {
        SCOPED_TRACE(absl::StrCat("n=", n, " k=", k, " in=", in, " out=", out));
        std::unique_ptr<HloModule> module =
            Parse(RaggedModule(n, k, in, out));
        ASSERT_NE(module, nullptr);
        std::vector<std::vector<Literal>> a = Arguments(*module, n);
        FillRaggedAllToAllArguments(*module->entry_computation(),
                                    DeviceAssignment::Default(n, 1), a);
        std::vector<std::vector<int>> written(n, std::vector<int>(out));
        int64_t moved = 0;
        for (int64_t i = 0; i < n; ++i) {
          const std::vector<int64_t> in_off = Values(a[i][2]),
                                     send = Values(a[i][3]),
                                     out_off = Values(a[i][4]);
          for (int64_t e = 0; e < n * k; ++e) {
            const int64_t j = e / k;
            ASSERT_GE(send[e], 0);
            ASSERT_GE(in_off[e], 0);
            ASSERT_LE(in_off[e] + send[e], in);
            ASSERT_GE(out_off[e], 0);
            ASSERT_LE(out_off[e] + send[e], out);
            EXPECT_EQ(Values(a[j][5])[i * k + e % k], send[e]);
            for (int64_t r = out_off[e]; r < out_off[e] + send[e]; ++r) {
              EXPECT_EQ(++written[j][r], 1) << "row " << r << " of " << j;
            }
            moved += send[e];
          }
        }
        // Rows move whenever every update can have one.
        if (std::min(in, out) >= n * k) {
          EXPECT_GT(moved, 0);
        }
      }
    }
  }
}

// Offsets and sizes through a convert and a reshape, groups of replicas
// {0,2} and {1,3}: each group gets its own plan. A parameter that is two
// of the operands cannot be both and is left as it is.
TEST(RaggedArgumentsTest, FollowsSimpleOpsAndGroupsAndLeavesSharedOperands) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule r, replica_count=4
ENTRY main {
  input = f32[8] parameter(0)
  output = f32[8] parameter(1)
  a = s32[2] parameter(2)
  b = s64[1,2] parameter(3)
  c = s64[2] parameter(4)
  d = s64[2] parameter(5)
  io = s64[2] convert(a)
  ss = s64[2] reshape(b)
  ROOT r = f32[8] ragged-all-to-all(input, output, io, ss, c, d), replica_groups={{0,2},{1,3}}
})");
  ASSERT_NE(module, nullptr);
  std::vector<std::vector<Literal>> arguments = Arguments(*module, 4);
  FillRaggedAllToAllArguments(*module->entry_computation(),
                              DeviceAssignment::Default(4, 1), arguments);
  // Ranks 0 and 1 of each group: devices 0 and 2, 1 and 3.
  EXPECT_THAT(arguments[2][2].data<int32_t>(), ElementsAre(0, 2));
  EXPECT_THAT(arguments[3][2].data<int32_t>(), ElementsAre(0, 2));
  EXPECT_THAT(arguments[2][3].data<int64_t>(), ElementsAre(2, 4));
  EXPECT_THAT(Values(arguments[0][5]), ElementsAre(1, 2));

  std::unique_ptr<HloModule> shared = Parse(R"(HloModule r, replica_count=2
ENTRY main {
  input = f32[4] parameter(0)
  output = f32[4] parameter(1)
  offsets = s64[2] parameter(2)
  sizes = s64[2] parameter(3)
  ROOT r = f32[4] ragged-all-to-all(input, output, offsets, sizes, offsets, sizes), replica_groups={}
})");
  ASSERT_NE(shared, nullptr);
  std::vector<std::vector<Literal>> left = Arguments(*shared, 2);
  const std::vector<std::vector<Literal>> before = Arguments(*shared, 2);
  FillRaggedAllToAllArguments(*shared->entry_computation(),
                              DeviceAssignment::Default(2, 1), left);
  EXPECT_EQ(Values(left[1][2]), Values(before[1][2]));
  EXPECT_EQ(Values(left[1][3]), Values(before[1][3]));
}

}  // namespace
}  // namespace mxla::tools
