// ragged-all-to-all run by the jit (a device step on the communicator) and
// by the interpreter (the oracle, at the Literal level) on 1, 2, 3 and 4
// devices: every result is checked against values written out by hand and
// the two backends against each other; uneven and zero sizes, rows left
// untouched, 2-D rows, s32 and s64 metadata, several updates per peer,
// groups and group modes. Then every run-time mistake, which both
// backends refuse with the same message naming the op, the devices and
// the numbers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/xla_builder.h"
#include "driver/aot_compile.h"
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
using ::mxla::testing::RunBothBackends;
using ::mxla::testing::RunOnDevices;

// One device's six arguments: input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes.
using Arguments = std::vector<Literal>;

Literal F32(std::initializer_list<float> values) {
  return LiteralUtil::CreateR1<float>(values);
}
template <typename T>
Literal Ints(std::initializer_list<T> values) {
  return LiteralUtil::CreateR1<T>(values);
}
Literal Filled(int64_t n, float value) {
  return LiteralUtil::CreateR1<float>(std::vector<float>(n, value));
}
Literal Iota(int64_t n, float start) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = start + i;
  return LiteralUtil::CreateR1<float>(values);
}

// Both backends fail, with `message` in their errors.
void ExpectBothFail(const std::string& text, const Devices& devices,
                    const std::vector<Arguments>& arguments,
                    const std::string& message) {
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    absl::StatusOr<std::vector<Literal>> run =
        RunOnDevices(backend, text, devices, arguments);
    EXPECT_THAT(run.status(), ::mxla::testing::StatusIs(
                                  absl::StatusCode::kInvalidArgument,
                                  HasSubstr(message)))
        << BackendName(backend);
  }
}

// A module of one ragged-all-to-all named r.
std::string Module(const std::string& header, const std::string& rows_in,
                   const std::string& rows_out, const std::string& metadata,
                   const std::string& attributes) {
  return absl::StrCat("HloModule m", header, R"(
ENTRY main {
  input = )", rows_in, R"( parameter(0)
  output = )", rows_out, R"( parameter(1)
  input_offsets = )", metadata, R"( parameter(2)
  send_sizes = )", metadata, R"( parameter(3)
  output_offsets = )", metadata, R"( parameter(4)
  recv_sizes = )", metadata, R"( parameter(5)
  ROOT r = )", rows_out, R"( ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes), )",
                      attributes, "\n}\n");
}

Arguments Device(Literal input, Literal output, Literal input_offsets,
                 Literal send_sizes, Literal output_offsets,
                 Literal recv_sizes) {
  Arguments arguments;
  arguments.push_back(std::move(input));
  arguments.push_back(std::move(output));
  arguments.push_back(std::move(input_offsets));
  arguments.push_back(std::move(send_sizes));
  arguments.push_back(std::move(output_offsets));
  arguments.push_back(std::move(recv_sizes));
  return arguments;
}

// Two devices, s32 metadata: device 0 keeps row 0 and sends rows 1-3 to
// device 1's rows 2-4; device 1 sends rows 0-1 to device 0's rows 3-4 and
// nothing to itself. Untouched rows keep the output's -1.
std::vector<Arguments> TwoDeviceArguments() {
  std::vector<Arguments> arguments;
  arguments.push_back(Device(Iota(6, 0), Filled(6, -1), Ints<int32_t>({0, 1}),
                             Ints<int32_t>({1, 3}), Ints<int32_t>({0, 2}),
                             Ints<int32_t>({1, 2})));
  arguments.push_back(Device(Iota(6, 10), Filled(6, -1), Ints<int32_t>({0, 4}),
                             Ints<int32_t>({2, 0}), Ints<int32_t>({3, 0}),
                             Ints<int32_t>({3, 0})));
  return arguments;
}

TEST(RaggedAllToAllTest, TwoDevicesUnevenAndZeroSizes) {
  const std::string text =
      Module(", replica_count=2", "f32[6]", "f32[6]", "s32[2]",
             "replica_groups={{0,1}}");
  const std::vector<Literal> results =
      RunBothBackends(text, {2, 1}, TwoDeviceArguments());
  ASSERT_EQ(results.size(), 2);
  EXPECT_EQ(results[0], F32({0, -1, -1, 10, 11, -1}));
  EXPECT_EQ(results[1], F32({-1, -1, 1, 2, 3, -1}));
}

TEST(RaggedAllToAllTest, ThreeDevicesTwoDimensionalRowsAndS64) {
  // Device d's input row i is (100d + 10i, 100d + 10i + 1); it sends its
  // row j to rank j, landing at the receiver's row d, except that device 2
  // sends device 0 nothing. Output rows 3-4 (and device 0's row 2) stay 7.
  const std::string text = Module(", replica_count=3", "f32[3,2]", "f32[5,2]",
                                  "s64[3]", "replica_groups={}");
  std::vector<Arguments> arguments;
  for (int64_t d = 0; d < 3; ++d) {
    std::vector<std::vector<float>> rows;
    for (int64_t i = 0; i < 3; ++i) {
      rows.push_back({100.0f * d + 10 * i, 100.0f * d + 10 * i + 1});
    }
    Literal input = *LiteralUtil::CreateFromFlatChecked<float>(
        {3, 2}, {rows[0][0], rows[0][1], rows[1][0], rows[1][1], rows[2][0],
                 rows[2][1]});
    Literal output = *LiteralUtil::CreateFromFlatChecked<float>(
        {5, 2}, std::vector<float>(10, 7));
    arguments.push_back(Device(
        std::move(input), std::move(output), Ints<int64_t>({0, 1, 2}),
        d == 2 ? Ints<int64_t>({0, 1, 1}) : Ints<int64_t>({1, 1, 1}),
        Ints<int64_t>({d, d, d}),
        d == 0 ? Ints<int64_t>({1, 1, 0}) : Ints<int64_t>({1, 1, 1})));
  }
  const std::vector<Literal> results = RunBothBackends(text, {3, 1}, arguments);
  ASSERT_EQ(results.size(), 3);
  EXPECT_EQ(results[0], *LiteralUtil::CreateFromFlatChecked<float>(
                            {5, 2}, {0, 1, 100, 101, 7, 7, 7, 7, 7, 7}));
  EXPECT_EQ(results[2], *LiteralUtil::CreateFromFlatChecked<float>(
                            {5, 2}, {20, 21, 120, 121, 220, 221, 7, 7, 7, 7}));
}

TEST(RaggedAllToAllTest, FourDevicesInGroupsWithTwoUpdatesPerPeer) {
  // Groups {0,2} and {1,3}; entry j·2 + u is update u to rank j. Update 0
  // is one row, update 1 two; the sender of rank s writes them at the
  // receiver's rows 4s and 4s+1, so rows 3 and 7 stay -1.
  const std::string text =
      Module(", replica_count=4", "f32[8]", "f32[8]", "s32[4]",
             "replica_groups={{0,2},{1,3}}");
  std::vector<Arguments> arguments;
  for (int64_t d = 0; d < 4; ++d) {
    const int32_t s = d < 2 ? 0 : 1;  // the rank in its group
    arguments.push_back(Device(Iota(8, 10 * d), Filled(8, -1),
                               Ints<int32_t>({0, 2, 4, 6}),
                               Ints<int32_t>({1, 2, 1, 2}),
                               Ints<int32_t>({4 * s, 4 * s + 1, 4 * s,
                                              4 * s + 1}),
                               Ints<int32_t>({1, 2, 1, 2})));
  }
  const std::vector<Literal> results = RunBothBackends(text, {4, 1}, arguments);
  ASSERT_EQ(results.size(), 4);
  EXPECT_EQ(results[0], F32({0, 2, 3, -1, 20, 22, 23, -1}));
  EXPECT_EQ(results[2], F32({4, 6, 7, -1, 24, 26, 27, -1}));
  EXPECT_EQ(results[1], F32({10, 12, 13, -1, 30, 32, 33, -1}));
  EXPECT_EQ(results[3], F32({14, 16, 17, -1, 34, 36, 37, -1}));
}

// XLA's rank-2 metadata, [peers, updates per peer]: entry [j, u] is
// update u to rank j, the rank-1 layout reshaped. The four-device groups
// above with s32[2,2], and the two-device case with s64[2,1].
Literal Ints2(std::initializer_list<std::initializer_list<int32_t>> rows) {
  return LiteralUtil::CreateR2<int32_t>(rows);
}

TEST(RaggedAllToAllTest, RankTwoMetadataIsTheRankOneLayoutReshaped) {
  const std::string text =
      Module(", replica_count=4", "f32[8]", "f32[8]", "s32[2,2]",
             "replica_groups={{0,2},{1,3}}");
  std::vector<Arguments> arguments;
  for (int64_t d = 0; d < 4; ++d) {
    const int32_t s = d < 2 ? 0 : 1;
    arguments.push_back(Device(
        Iota(8, 10 * d), Filled(8, -1), Ints2({{0, 2}, {4, 6}}),
        Ints2({{1, 2}, {1, 2}}), Ints2({{4 * s, 4 * s + 1}, {4 * s, 4 * s + 1}}),
        Ints2({{1, 2}, {1, 2}})));
  }
  const std::vector<Literal> results = RunBothBackends(text, {4, 1}, arguments);
  ASSERT_EQ(results.size(), 4);
  EXPECT_EQ(results[0], F32({0, 2, 3, -1, 20, 22, 23, -1}));
  EXPECT_EQ(results[2], F32({4, 6, 7, -1, 24, 26, 27, -1}));
  EXPECT_EQ(results[1], F32({10, 12, 13, -1, 30, 32, 33, -1}));
  EXPECT_EQ(results[3], F32({14, 16, 17, -1, 34, 36, 37, -1}));

  // Two devices, s64[2,1]: the values of TwoDeviceArguments.
  auto column = [](std::initializer_list<int64_t> values) {
    std::vector<int64_t> flat(values);
    return LiteralUtil::CreateFromFlat<int64_t>(
        {static_cast<int64_t>(flat.size()), 1}, flat);
  };
  std::vector<Arguments> two;
  two.push_back(Device(Iota(6, 0), Filled(6, -1), column({0, 1}),
                       column({1, 3}), column({0, 2}), column({1, 2})));
  two.push_back(Device(Iota(6, 10), Filled(6, -1), column({0, 4}),
                       column({2, 0}), column({3, 0}), column({3, 0})));
  const std::string two_text = Module(", replica_count=2", "f32[6]", "f32[6]",
                                      "s64[2,1]", "replica_groups={}");
  const std::vector<Literal> two_results =
      RunBothBackends(two_text, {2, 1}, two);
  ASSERT_EQ(two_results.size(), 2);
  EXPECT_EQ(two_results[0], F32({0, -1, -1, 10, 11, -1}));
  EXPECT_EQ(two_results[1], F32({-1, -1, 1, 2, 3, -1}));
  // Its checks read the same entries: recv_sizes[1, 0] is flat entry 1.
  two[0][5] = column({1, 3});
  ExpectBothFail(two_text, {2, 1}, two,
                 "device 0 expects recv_sizes[1]=3 rows from device 1 "
                 "(update 0), but device 1 sends send_sizes[0]=2");
}

TEST(RaggedAllToAllTest, ChannelIdGroupsReplicasAcrossPartitions) {
  // channel_id, no use_global_device_ids: cross-partition, so {{1,0}}
  // lists partitions: partition 1 is rank 0. Each device sends its first
  // two rows to the other's rows 1-2.
  const std::string text =
      Module(", num_partitions=2", "f32[4]", "f32[4]", "s32[2]",
             "channel_id=1, replica_groups={{1,0}}");
  std::vector<Arguments> arguments;
  arguments.push_back(Device(Iota(4, 0), Filled(4, 0), Ints<int32_t>({0, 0}),
                             Ints<int32_t>({2, 0}), Ints<int32_t>({1, 0}),
                             Ints<int32_t>({2, 0})));
  arguments.push_back(Device(Iota(4, 10), Filled(4, 0), Ints<int32_t>({0, 0}),
                             Ints<int32_t>({0, 2}), Ints<int32_t>({0, 1}),
                             Ints<int32_t>({0, 2})));
  const std::vector<Literal> results = RunBothBackends(text, {1, 2}, arguments);
  ASSERT_EQ(results.size(), 2);
  EXPECT_EQ(results[0], F32({0, 10, 11, 0}));
  EXPECT_EQ(results[1], F32({0, 0, 1, 0}));
}

// One device: rows input[input_offsets[u], +send_sizes[u]) written at
// output_offsets[u], u in order (two updates to itself here).
std::vector<Arguments> OneDeviceArguments() {
  std::vector<Arguments> arguments;
  arguments.push_back(Device(Iota(5, 1), Filled(6, 0), Ints<int64_t>({3, 0}),
                             Ints<int64_t>({2, 1}), Ints<int64_t>({0, 5}),
                             Ints<int64_t>({2, 1})));
  return arguments;
}

TEST(RaggedAllToAllTest, OneDeviceRunsItsGroupOfOne) {
  const std::string text =
      Module("", "f32[5]", "f32[6]", "s64[2]", "replica_groups={}");
  const std::vector<Literal> results =
      RunBothBackends(text, {1, 1}, OneDeviceArguments());
  ASSERT_EQ(results.size(), 1);
  EXPECT_EQ(results[0], F32({4, 5, 0, 0, 0, 1}));
  // And without a device (Executable::Run), on each backend.
  const std::vector<Arguments> arguments = OneDeviceArguments();
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments[0]) pointers.push_back(&argument);
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_OK(module.status());
    CompileOptions options;
    options.backend = backend;
    absl::StatusOr<std::unique_ptr<Executable>> executable =
        Compile(**module, options);
    ASSERT_OK(executable.status());
    absl::StatusOr<Literal> run = (*executable)->Run(pointers);
    ASSERT_OK(run.status()) << BackendName(backend);
    EXPECT_EQ(*run, results[0]) << BackendName(backend);
  }
}

TEST(RaggedAllToAllTest, OneDeviceRefusesGroupsNamingOthers) {
  const std::string text =
      Module("", "f32[5]", "f32[6]", "s64[2]", "replica_groups={{0,1}}");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_OK(module.status());
  EXPECT_THAT(Compile(**module, CompileOptions()).status(),
              ::mxla::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  HasSubstr("replica id 1 in replica group {0,1} is outside")));
}

TEST(RaggedAllToAllTest, TheBuilderRecordsIt) {
  // XLA's argument order: input, input_offsets, send_sizes, output,
  // output_offsets, recv_sizes.
  XlaBuilder b("ragged");
  RaggedAllToAll(ConstantR1<float>(&b, {1, 2, 3}),
                 ConstantR1<int32_t>(&b, {1}), ConstantR1<int32_t>(&b, {2}),
                 ConstantR1<float>(&b, {0, 0, 0, 0}),
                 ConstantR1<int32_t>(&b, {1}), ConstantR1<int32_t>(&b, {2}),
                 {{0}});
  absl::StatusOr<XlaComputation> computation = b.Build();
  ASSERT_OK(computation.status());
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    CompileOptions options;
    options.backend = backend;
    absl::StatusOr<std::unique_ptr<Executable>> executable =
        Compile(computation->module(), options);
    ASSERT_OK(executable.status());
    absl::StatusOr<Literal> run = (*executable)->Run({});
    ASSERT_OK(run.status()) << BackendName(backend);
    EXPECT_EQ(*run, F32({0, 2, 3, 0})) << BackendName(backend);
  }
  XlaBuilder mismatched("mismatched");
  RaggedAllToAll(ConstantR1<float>(&mismatched, {1, 2}),
                 ConstantR1<int32_t>(&mismatched, {0}),
                 ConstantR1<int32_t>(&mismatched, {0}),
                 ConstantR1<int32_t>(&mismatched, {0, 0}),
                 ConstantR1<int32_t>(&mismatched, {0}),
                 ConstantR1<int32_t>(&mismatched, {0}));
  EXPECT_THAT(mismatched.Build().status().message(),
              HasSubstr("ragged-all-to-all: the input f32[2] and the output "
                        "s32[2] have different element types"));
}

TEST(RaggedAllToAllTest, AheadOfTimeCompilationRefusesIt) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      Module("", "f32[5]", "f32[6]", "s64[2]", "replica_groups={}"));
  ASSERT_OK(module.status());
  AotOptions options;
  options.function = "ragged";
  EXPECT_THAT(CompileAheadOfTime(**module, options).status(),
              ::mxla::testing::StatusIs(
                  absl::StatusCode::kUnimplemented,
                  HasSubstr("cannot compile 'r' (ragged-all-to-all): it runs "
                            "as a step of the mxla runtime, which checks its "
                            "offsets and sizes")));
}

TEST(RaggedAllToAllTest, OneDeviceChecksRanges) {
  const std::string text =
      Module("", "f32[5]", "f32[6]", "s64[2]", "replica_groups={}");
  std::vector<Arguments> arguments = OneDeviceArguments();
  arguments[0][2] = Ints<int64_t>({4, 0});  // rows 4-5 of 5
  ExpectBothFail(
      text, {1, 1}, arguments,
      "ragged-all-to-all 'r': device 0 sends device 0 (update 0) input rows "
      "from input_offsets[0]=4 with send_sizes[0]=2, out of range for its "
      "input of 5 rows");
}

const std::string& TwoDeviceModule() {
  static const std::string* const kText = new std::string(
      Module(", replica_count=2", "f32[6]", "f32[6]", "s32[2]",
             "replica_groups={{0,1}}"));
  return *kText;
}

TEST(RaggedAllToAllTest, ANegativeInputOffsetIsRefused) {
  std::vector<Arguments> arguments = TwoDeviceArguments();
  arguments[1][2] = Ints<int32_t>({-1, 4});
  ExpectBothFail(TwoDeviceModule(), {2, 1}, arguments,
                 "ragged-all-to-all 'r': device 1 sends device 0 (update 0) "
                 "input rows from input_offsets[0]=-1 with send_sizes[0]=2, "
                 "out of range for its input of 6 rows");
}

TEST(RaggedAllToAllTest, ANegativeSizeIsRefused) {
  std::vector<Arguments> arguments = TwoDeviceArguments();
  arguments[0][3] = Ints<int32_t>({1, -3});
  ExpectBothFail(TwoDeviceModule(), {2, 1}, arguments,
                 "device 0 sends device 1 (update 0) input rows from "
                 "input_offsets[1]=1 with send_sizes[1]=-3, out of range");
}

TEST(RaggedAllToAllTest, RowsPastTheInputAreRefused) {
  std::vector<Arguments> arguments = TwoDeviceArguments();
  arguments[0][2] = Ints<int32_t>({0, 4});  // rows 4-6 of 6
  ExpectBothFail(TwoDeviceModule(), {2, 1}, arguments,
                 "device 0 sends device 1 (update 0) input rows from "
                 "input_offsets[1]=4 with send_sizes[1]=3, out of range for "
                 "its input of 6 rows");
}

TEST(RaggedAllToAllTest, RowsPastThePeersOutputAreRefused) {
  std::vector<Arguments> arguments = TwoDeviceArguments();
  arguments[1][4] = Ints<int32_t>({5, 0});  // rows 5-6 of device 0's 6
  ExpectBothFail(TwoDeviceModule(), {2, 1}, arguments,
                 "ragged-all-to-all 'r': device 1 sends device 0 (update 0) "
                 "rows for output_offsets[0]=5 with send_sizes[0]=2, out of "
                 "range for an output of 6 rows");
}

TEST(RaggedAllToAllTest, RecvSizesMustMatchWhatThePeerSends) {
  std::vector<Arguments> arguments = TwoDeviceArguments();
  arguments[0][5] = Ints<int32_t>({1, 3});  // device 1 sends 2
  ExpectBothFail(TwoDeviceModule(), {2, 1}, arguments,
                 "ragged-all-to-all 'r': device 0 expects recv_sizes[1]=3 "
                 "rows from device 1 (update 0), but device 1 sends "
                 "send_sizes[0]=2");
}

TEST(RaggedAllToAllTest, MetadataMustSplitOverTheGroup) {
  // No replica_count in the module: the verifier cannot know the group
  // size; three devices find that 2 entries do not split in 3.
  const std::string text =
      Module("", "f32[6]", "f32[6]", "s32[2]", "replica_groups={}");
  std::vector<Arguments> arguments = TwoDeviceArguments();
  arguments.push_back(Device(Iota(6, 20), Filled(6, -1), Ints<int32_t>({0, 0}),
                             Ints<int32_t>({0, 0}), Ints<int32_t>({0, 0}),
                             Ints<int32_t>({0, 0})));
  ExpectBothFail(text, {3, 1}, arguments,
                 "the offsets and sizes have 2 elements, not a multiple of "
                 "the group size 3");
}

}  // namespace
}  // namespace mxla
