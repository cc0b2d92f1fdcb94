// Ahead-of-time compilation end to end (tests/testlib/aot_harness.h): the
// C program's results match the interpreter's on one thread and through a
// caller's parallel_for, for the host and for other targets, with
// constants, copied results, tuple results and split reductions. Errors:
// ops that need the runtime, bad names and targets. Loops, conditionals
// and sorts: aot_control_flow_test.cc.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"
#include "tests/testlib/aot_harness.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tool_runner.h"
#include "tools/model_stack.h"

namespace mxla {
namespace {

namespace fs = std::filesystem;

using ::mxla::testing::ExpectMatchesInterpreter;
using ::mxla::testing::RunMxla;
using ::mxla::testing::TempPath;
using ::mxla::testing::ToolResult;
using ::mxla::testing::WriteTempFile;
using ::testing::HasSubstr;

Literal Wave(const Shape& shape, float scale) {
  Literal literal(shape);
  auto data = literal.data<float>();
  for (size_t i = 0; i < data.size(); ++i) {
    data[i] = scale * std::sin(0.1f * static_cast<float>(i) + 0.3f);
  }
  return literal;
}

TEST(AotCompileTest, ModelLayersMatchTheInterpreter) {
  examples::StackShape shape;
  shape.layers = 2;
  shape.rows = 8;
  shape.width = 32;
  ASSERT_OK_AND_ASSIGN(XlaComputation stack, examples::BuildModelStack(shape));
  ExpectMatchesInterpreter("stack", stack.module().ToString(),
                           examples::ModelStackArguments(shape));
}

TEST(AotCompileTest, LargeKernelsGoThroughTheCallersParallelFor) {
  const std::string stdout_text = ExpectMatchesInterpreter(
      "large", R"(HloModule large
ENTRY main {
  x = f32[512,1024] parameter(0)
  v = f32[1024] parameter(1)
  vb = f32[512,1024] broadcast(v), dimensions={1}
  m = f32[512,1024] multiply(x, vb)
  ROOT e = f32[512,1024] tanh(m)
})",
      [] {
        std::vector<Literal> args;
        args.push_back(Wave(ShapeUtil::MakeShape(F32, {512, 1024}), 2));
        args.push_back(Wave(ShapeUtil::MakeShape(F32, {1024}), 1));
        return args;
      }(),
      "", 3);
  EXPECT_THAT(stdout_text, HasSubstr("parallel_calls=1"));
}

TEST(AotCompileTest, SplitReductionsConstantsAndCopiedTupleResults) {
  // A sum of 2^20 elements (split into partials and combined, in temp), an
  // array constant, and a parameter returned as it is (copied).
  ExpectMatchesInterpreter("mixed", R"(HloModule mixed
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[1048576] parameter(0)
  y = f32[4] parameter(1)
  z = f32[] constant(0)
  sum = f32[] reduce(x, z), dimensions={0}, to_apply=add
  c = f32[4] constant({1.5, -2, 3.25, 4})
  cy = f32[4] multiply(c, y)
  ROOT t = (f32[], f32[4], f32[4], f32[4]) tuple(sum, cy, y, c)
})",
                           [] {
                             std::vector<Literal> args;
                             args.push_back(Wave(ShapeUtil::MakeShape(F32, {1048576}), 1));
                             args.push_back(Wave(ShapeUtil::MakeShape(F32, {4}), 3));
                             return args;
                           }(),
                           "", 2,
                           // The sum is reassociated (as the JIT's is).
                           1e-3);
}

TEST(AotCompileTest, OtherTargetsCompileAndRunHere) {
  examples::StackShape shape;
  shape.rows = 8;
  shape.width = 32;
  ASSERT_OK_AND_ASSIGN(XlaComputation stack, examples::BuildModelStack(shape));
  ExpectMatchesInterpreter("baseline", stack.module().ToString(),
                           examples::ModelStackArguments(shape),
                           "--target-cpu=x86-64");
  ExpectMatchesInterpreter("no_avx512", stack.module().ToString(),
                           examples::ModelStackArguments(shape),
                           "--target-features=-avx512f");
}

TEST(AotCompileTest, OpsThatNeedTheRuntimeAreUnimplemented) {
  // The host feed is the runtime's, even inside a loop body.
  const std::string feeds = WriteTempFile("aot_feeds.hlo", R"(HloModule feeds
cond {
  s = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  t = token[] get-tuple-element(s), index=1
  fed = (f32[2], token[]) infeed(t)
  ft = token[] get-tuple-element(fed), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT r = (s32[], token[]) tuple(next, ft)
}
ENTRY main {
  zero = s32[] constant(0)
  t = token[] after-all()
  init = (s32[], token[]) tuple(zero, t)
  loop = (s32[], token[]) while(init), condition=cond, body=body
  ROOT i = s32[] get-tuple-element(loop), index=0
})");
  const std::string outfeed =
      WriteTempFile("aot_outfeed.hlo", R"(HloModule outfeed
ENTRY main {
  x = f32[4] parameter(0)
  t = token[] after-all()
  o = token[] outfeed(x, t)
  ROOT n = f32[4] negate(x)
})");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {feeds,
       "error: ahead-of-time compilation cannot compile 'fed' (infeed): it "
       "exchanges values with the host feed, which only the mxla runtime "
       "provides"},
      {outfeed, "cannot compile 'o' (outfeed): it exchanges values with the "
                "host feed"},
  };
  for (const auto& [hlo, message] : cases) {
    ToolResult result =
        RunMxla(absl::StrCat("compile ", hlo, " -o ", TempPath("aot_no")));
    EXPECT_EQ(result.exit_code, 1) << hlo;
    EXPECT_THAT(result.err, HasSubstr(message)) << hlo;
    EXPECT_FALSE(fs::exists(TempPath("aot_no") + ".o"));
  }
}

TEST(AotCompileTest, BadNamesAndTargetsAreErrors) {
  const std::string hlo = WriteTempFile("aot_small.hlo", R"(HloModule small
ENTRY main {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
})");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {absl::StrCat("-o ", TempPath("ok"), " --function 2fast"),
       "function name '2fast' is not a C identifier"},
      {absl::StrCat("-o ", TempPath("ok"), " --function my-model"),
       "function name 'my-model' is not a C identifier"},
      {absl::StrCat("-o ", TempPath("ok"), " --function int"),
       "function name 'int' is not a C identifier"},
      {absl::StrCat("-o ", TempPath("ok"), " --target-cpu pentium9"),
       "--target-cpu: 'pentium9' is not a CPU LLVM knows"},
      {absl::StrCat("-o ", TempPath("ok"), " --target-features=+warp9"),
       "--target-features: '+warp9' is not +feature or -feature"},
      {absl::StrCat("-o ", TempPath("ok"), " --target-features=avx2"),
       "--target-features: 'avx2' is not +feature or -feature"},
  };
  for (const auto& [flags, message] : cases) {
    ToolResult result = RunMxla(absl::StrCat("compile ", hlo, " ", flags));
    EXPECT_EQ(result.exit_code, 1) << flags;
    EXPECT_THAT(result.err, HasSubstr(message)) << flags;
  }
}

}  // namespace
}  // namespace mxla
