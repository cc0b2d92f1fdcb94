// RunOptions::profile (runtime/profile.h): one row per kernel with its
// instructions, loop bodies' kernels counted over all trips, shares that sum
// to 100%, FLOP counts of dots and (expanded) convolutions, results
// bit-identical to an unprofiled run, and nothing at all without the flag.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_computation.h"
#include "ir/status_macros.h"
#include "runtime/jit_executable.h"
#include "runtime/machine_limits.h"
#include "runtime/profile.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A dot, then elementwise work on its result, then a reduction.
constexpr char kStraight[] = R"(HloModule straight
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,32] parameter(0)
  y = f32[32,256] parameter(1)
  product = f32[64,256] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  squashed = f32[64,256] tanh(product)
  zero = f32[] constant(0)
  ROOT row_sums = f32[64] reduce(squashed, zero), dimensions={1}, to_apply=add_f32
})";

// A loop of 5 trips whose body runs a kernel; the entry runs one after it.
constexpr char kLoop[] = R"(HloModule loop
body {
  p = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4096] get-tuple-element(p), index=1
  grown = f32[4096] exponential(v)
  scaled_down = f32[4096] multiply(grown, v)
  ROOT t = (s32[], f32[4096]) tuple(next, scaled_down)
}
cond {
  p = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT more = pred[] compare(i, n), direction=LT
}
ENTRY main {
  v = f32[4096] parameter(0)
  zero = s32[] constant(0)
  start = (s32[], f32[4096]) tuple(zero, v)
  w = (s32[], f32[4096]) while(start), condition=cond, body=body
  out = f32[4096] get-tuple-element(w), index=1
  ROOT negated = f32[4096] negate(out)
})";

constexpr char kConvolution[] = R"(HloModule conv
ENTRY main {
  x = f32[1,16,16,8] parameter(0)
  w = f32[3,3,8,16] parameter(1)
  ROOT c = f32[1,16,16,16] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})";

absl::StatusOr<std::unique_ptr<Executable>> CompileText(const char* text) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  return Compile(*module);
}

Literal Filled(const Shape& shape, float scale) {
  Literal literal(shape);
  float* data = static_cast<float*>(literal.untyped_data());
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    data[i] = scale * static_cast<float>((i * 37) % 101 - 50) / 50;
  }
  return literal;
}

std::vector<Literal> Arguments(const Executable& executable) {
  std::vector<Literal> arguments;
  const HloComputation& entry = *executable.module().entry_computation();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    arguments.push_back(
        Filled(entry.parameter_instruction(i)->shape(), 0.5f + i));
  }
  return arguments;
}

std::vector<const Literal*> Pointers(const std::vector<Literal>& literals) {
  std::vector<const Literal*> pointers;
  for (const Literal& literal : literals) pointers.push_back(&literal);
  return pointers;
}

int64_t KernelSteps(const Executable& executable) {
  const auto& jit = dynamic_cast<const JitExecutable&>(executable);
  return static_cast<int64_t>(jit.program()->steps.size());
}

// The share column of every line of a formatted table, in percent.
double SumOfShares(const std::string& table) {
  double sum = 0;
  std::vector<std::string> lines = absl::StrSplit(table, '\n');
  for (size_t i = 2; i < lines.size(); ++i) {
    std::vector<std::string> fields =
        absl::StrSplit(lines[i], ' ', absl::SkipEmpty());
    if (fields.size() < 3 || !absl::EndsWith(fields[2], "%")) continue;
    double share = 0;
    EXPECT_TRUE(absl::SimpleAtod(absl::StripSuffix(fields[2], "%"), &share))
        << lines[i];
    sum += share;
  }
  return sum;
}

const MachineLimits kLimits{100e9, 10e9, "test limits"};

TEST(ProfileTest, OneRowPerKernelWithItsInstructions) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       CompileText(kStraight));
  std::vector<Literal> arguments = Arguments(*executable);
  RunProfile profile;
  RunOptions options;
  options.profile = true;
  options.profile_sink = &profile;
  ASSERT_OK(executable->Run(Pointers(arguments), options).status());
  std::vector<RunProfile::Row> rows = profile.Rows();
  EXPECT_EQ(static_cast<int64_t>(rows.size()), KernelSteps(*executable));
  EXPECT_EQ(profile.runs(), 1);
  int64_t total = 0;
  for (const RunProfile::Row& row : rows) {
    EXPECT_EQ(row.calls, 1) << row.name;
    total += row.nanoseconds;
  }
  EXPECT_EQ(total, profile.step_nanoseconds());
  EXPECT_LE(profile.step_nanoseconds(), profile.run_nanoseconds());
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i - 1].nanoseconds, rows[i].nanoseconds);
  }
  const std::string table = profile.Format(kLimits);
  EXPECT_THAT(table, HasSubstr("profile: 1 run, "));
  EXPECT_THAT(table, HasSubstr("limits 100.0 GFLOP/s, 10.0 GB/s (test limits)"));
  EXPECT_THAT(table, HasSubstr("product"));
  EXPECT_THAT(table, HasSubstr("squashed"));
  EXPECT_THAT(table, HasSubstr("row_sums"));
  EXPECT_THAT(table, HasSubstr("(outside kernels)"));
  EXPECT_NEAR(SumOfShares(table), 100.0, 0.5) << table;
  // The rows after the first are summed into one line.
  ASSERT_GE(rows.size(), 2u);
  const std::string short_table = profile.Format(kLimits, 1);
  EXPECT_THAT(short_table, HasSubstr(absl::StrCat("(", rows.size() - 1,
                                                  " more)")));
  EXPECT_THAT(short_table, HasSubstr(rows[0].name + " [" + rows[0].kind));
  EXPECT_NEAR(SumOfShares(short_table), 100.0, 0.5) << short_table;
}

TEST(ProfileTest, LoopBodyKernelsCountEveryTrip) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       CompileText(kLoop));
  std::vector<Literal> arguments = Arguments(*executable);
  RunProfile profile;
  RunOptions options;
  options.profile = true;
  options.profile_sink = &profile;
  ASSERT_OK(executable->Run(Pointers(arguments), options).status());
  int64_t body_calls = 0, condition_calls = 0, loops = 0, total = 0;
  for (const RunProfile::Row& row : profile.Rows()) {
    total += row.nanoseconds;
    if (row.kind == "while") {
      ++loops;
      EXPECT_EQ(row.calls, 1);
      EXPECT_THAT(row.instructions, HasSubstr("loop control"));
    } else if (row.instructions.find("exponential") != std::string::npos) {
      body_calls = row.calls;
      EXPECT_THAT(row.instructions, HasSubstr("scaled_down"));
    } else if (row.instructions.find("compare") != std::string::npos ||
               row.instructions.find("more") != std::string::npos) {
      condition_calls = row.calls;
    }
  }
  EXPECT_EQ(loops, 1);
  EXPECT_EQ(body_calls, 5);
  EXPECT_EQ(condition_calls, 6);
  EXPECT_EQ(total, profile.step_nanoseconds());
  EXPECT_EQ(profile.runs(), 1);  // the loop's runs are nested, not counted
  EXPECT_NEAR(SumOfShares(profile.Format(kLimits)), 100.0, 0.5);
}

TEST(ProfileTest, ProfiledResultsAreBitIdentical) {
  for (const char* text : {kStraight, kLoop, kConvolution}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         CompileText(text));
    std::vector<Literal> arguments = Arguments(*executable);
    ASSERT_OK_AND_ASSIGN(Literal plain,
                         executable->Run(Pointers(arguments)));
    RunProfile profile;
    RunOptions options;
    options.profile = true;
    options.profile_sink = &profile;
    ASSERT_OK_AND_ASSIGN(Literal profiled,
                         executable->Run(Pointers(arguments), options));
    ASSERT_EQ(plain.size_bytes(), profiled.size_bytes());
    EXPECT_EQ(std::memcmp(plain.untyped_data(), profiled.untyped_data(),
                          plain.size_bytes()),
              0)
        << executable->module().name();
    EXPECT_FALSE(profile.Rows().empty());
  }
}

TEST(ProfileTest, OffByDefaultPrintsAndRecordsNothing) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       CompileText(kLoop));
  std::vector<Literal> arguments = Arguments(*executable);
  RunProfile profile;
  RunOptions options;
  options.profile_sink = &profile;  // ignored: profile is false
  ::testing::internal::CaptureStderr();
  ASSERT_OK(executable->Run(Pointers(arguments), options).status());
  std::vector<void*> results;
  Literal out(executable->module().entry_computation()->root_instruction()->shape());
  results.push_back(out.untyped_data());
  std::vector<const void*> buffers = {arguments[0].untyped_data()};
  ASSERT_OK(executable->RunBuffers(buffers, results, options));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), IsEmpty());
  EXPECT_TRUE(profile.Rows().empty());
  EXPECT_EQ(profile.runs(), 0);
}

TEST(ProfileTest, WithoutASinkTheTableGoesToStderr) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       CompileText(kStraight));
  std::vector<Literal> arguments = Arguments(*executable);
  RunOptions options;
  options.profile = true;
  options.threads = 1;
  ::testing::internal::CaptureStderr();
  ASSERT_OK(executable->Run(Pointers(arguments), options).status());
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(printed, HasSubstr("profile: 1 run, "));
  EXPECT_THAT(printed, HasSubstr("1 thread;"));
  EXPECT_THAT(printed, HasSubstr("squashed"));
  EXPECT_NEAR(SumOfShares(printed), 100.0, 0.5) << printed;
}

// FLOPs of one call: a dot's 2*m*n*k, and an expanded convolution's
// 2 * outputs * taps * input features, found from its reduce of products.
TEST(ProfileTest, CountsDotAndConvolutionFlops) {
  for (const auto& [text, flops] :
       std::vector<std::pair<const char*, double>>{
           {kStraight, 2.0 * 64 * 256 * 32},
           {kConvolution, 2.0 * (16 * 16 * 16) * 9 * 8}}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         CompileText(text));
    std::vector<Literal> arguments = Arguments(*executable);
    RunProfile profile;
    RunOptions options;
    options.profile = true;
    options.profile_sink = &profile;
    ASSERT_OK(executable->Run(Pointers(arguments), options).status());
    double counted = 0;
    for (const RunProfile::Row& row : profile.Rows()) counted += row.flops;
    EXPECT_EQ(counted, flops) << executable->module().name();
  }
}

// Both rates, and the roofline: the longer of FLOPs at peak and bytes at
// full bandwidth, over the time.
TEST(ProfileTest, RatesAgainstTheRoofline) {
  Rates memory = RateAgainst(kLimits, 2e9, 5e9, 1.0);
  EXPECT_EQ(memory.flops, "2.0");
  EXPECT_EQ(memory.bytes, "5.0");
  EXPECT_EQ(memory.limit, "50.0%");  // 5e9 bytes at 10 GB/s: 0.5 s
  EXPECT_FALSE(memory.compute_bound);
  Rates compute = RateAgainst(kLimits, 80e9, 1e9, 2.0);
  EXPECT_EQ(compute.flops, "40.0");
  EXPECT_EQ(compute.limit, "40.0%");  // 80e9 FLOPs at 100 GFLOP/s: 0.8 s
  EXPECT_TRUE(compute.compute_bound);
  Rates copy = RateAgainst(kLimits, 0, 1e9, 0.5);
  EXPECT_EQ(copy.flops, "-");
  EXPECT_EQ(copy.bytes, "2.0");
  Rates instant = RateAgainst(kLimits, 1e9, 1e9, 0);
  EXPECT_EQ(instant.limit, "-");
}

TEST(ProfileTest, MachineLimits) {
  EXPECT_FALSE(ParseMachineLimits("").has_value());
  EXPECT_FALSE(ParseMachineLimits("273").has_value());
  EXPECT_FALSE(ParseMachineLimits("273,-4").has_value());
  EXPECT_FALSE(ParseMachineLimits("x,43").has_value());
  std::optional<MachineLimits> given = ParseMachineLimits("273,43.5");
  ASSERT_TRUE(given.has_value());
  EXPECT_EQ(given->flops_per_second, 273e9);
  EXPECT_EQ(given->bytes_per_second, 43.5e9);
  ThreadPool pool(1);
  MachineLimits measured = MachineLimitsFor(pool, 1);
  // Bounds that catch a unit slip, loose enough for an instrumented build
  // on a busy machine (ASan measured 0.9 GB/s there).
  EXPECT_GT(measured.flops_per_second, 1e8);
  EXPECT_GT(measured.bytes_per_second, 1e8);
  EXPECT_THAT(measured.source, Not(IsEmpty()));
}

}  // namespace
}  // namespace mxla
