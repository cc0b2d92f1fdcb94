// Executable::RunReplicated: one run per device of an assignment, each
// with its own arguments, results in device-id order; its argument checks;
// and the jit backend refusing a replicated run on other device counts
// than it compiled for (one device: its collectives are lowered, so every
// copy would compute device 0's values).
#include <memory>
#include <vector>

#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/literal.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;

constexpr char kDouble[] = R"(
HloModule twice
ENTRY main {
  x = f32[3] parameter(0)
  ROOT y = f32[3] add(x, x)
})";

std::unique_ptr<Executable> CompileFor(Backend backend) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kDouble);
  EXPECT_OK(module.status());
  CompileOptions options;
  options.backend = backend;
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(**module, options);
  EXPECT_OK(executable.status());
  return *std::move(executable);
}

TEST(RunReplicatedTest, EachDeviceRunsOnItsOwnArguments) {
  std::unique_ptr<Executable> executable = CompileFor(Backend::kInterpreter);
  std::vector<Literal> inputs;
  for (int d = 0; d < 4; ++d) {
    inputs.push_back(LiteralUtil::CreateR1<float>({1.0f * d, 2, 3}));
  }
  std::vector<std::vector<const Literal*>> arguments;
  for (const Literal& input : inputs) arguments.push_back({&input});
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      executable->RunReplicated(arguments, DeviceAssignment::Default(2, 2)));
  ASSERT_EQ(results.size(), 4);
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(results[d], LiteralUtil::CreateR1<float>({2.0f * d, 4, 6}));
  }
}

TEST(RunReplicatedTest, ArgumentListsAreCheckedPerDevice) {
  std::unique_ptr<Executable> executable = CompileFor(Backend::kInterpreter);
  const Literal x = LiteralUtil::CreateR1<float>({1, 2, 3});
  const Literal wrong = LiteralUtil::CreateR1<float>({1, 2});
  std::vector<std::vector<const Literal*>> one = {{&x}};
  EXPECT_THAT(executable->RunReplicated(one, DeviceAssignment::Default(2, 1))
                  .status()
                  .message(),
              HasSubstr("1 argument lists for 2 devices (2 replicas x 1 "
                        "partitions)"));
  std::vector<std::vector<const Literal*>> bad = {{&x}, {&wrong}};
  EXPECT_THAT(executable->RunReplicated(bad, DeviceAssignment::Default(2, 1))
                  .status()
                  .message(),
              HasSubstr("device 1: "));
}

// RunReplicatedBuffers: each device reads and writes the caller's buffers
// (here in place of a copy through literals); a wrong size is refused,
// naming the device, before any device runs.
TEST(RunReplicatedTest, BuffersRunInPlaceAndAreCheckedPerDevice) {
  std::unique_ptr<Executable> executable = CompileFor(Backend::kInterpreter);
  std::vector<std::vector<float>> in(2), out(2, std::vector<float>(3));
  std::vector<Executable::DeviceBuffers> devices(2);
  for (int d = 0; d < 2; ++d) {
    in[d] = {1.0f * d, 2, 3};
    devices[d] = {{in[d].data()}, {12}, {out[d].data()}, {12}};
  }
  const DeviceAssignment two = DeviceAssignment::Default(1, 2);
  ASSERT_OK(executable->RunReplicatedBuffers(devices, two));
  EXPECT_EQ(out[0], (std::vector<float>{0, 4, 6}));
  EXPECT_EQ(out[1], (std::vector<float>{2, 4, 6}));
  devices[1].argument_sizes = {8};
  out[0] = {-1, -1, -1};
  EXPECT_THAT(executable->RunReplicatedBuffers(devices, two).message(),
              HasSubstr("device 1: "));
  EXPECT_EQ(out[0], (std::vector<float>{-1, -1, -1}));  // nothing ran
  EXPECT_THAT(executable->RunReplicatedBuffers({devices[0]}, two).message(),
              HasSubstr("RunReplicatedBuffers: 1 buffer lists for 2 "
                        "devices"));
}

TEST(RunReplicatedTest, TheJitRunsOnTheDeviceCountsItCompiledFor) {
  std::unique_ptr<Executable> executable = CompileFor(Backend::kJit);
  const Literal x = LiteralUtil::CreateR1<float>({1, 2, 3});
  std::vector<std::vector<const Literal*>> arguments = {{&x}, {&x}};
  const absl::Status status =
      executable->RunReplicated(arguments, DeviceAssignment::Default(1, 2))
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  // Both devices fail; whichever does first is reported.
  EXPECT_THAT(std::string(status.message()),
              ::testing::ContainsRegex(
                  "device [01]: module 'twice' was compiled by the jit for 1 "
                  "replicas x 1 partitions, but this run is device [01] of 1 "
                  "replicas x 2 partitions"));
  // One device is a plain run.
  std::vector<std::vector<const Literal*>> single = {{&x}};
  ASSERT_OK_AND_ASSIGN(
      std::vector<Literal> results,
      executable->RunReplicated(single, DeviceAssignment::Default(1, 1)));
  EXPECT_EQ(results[0], LiteralUtil::CreateR1<float>({2, 4, 6}));
}

}  // namespace
}  // namespace mxla
