// End-to-end tests of the `mxla` command: exit status, stdout, stderr.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/tool_runner.h"

namespace mxla {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

using ::mxla::testing::RunMxla;
using Result = ::mxla::testing::ToolResult;

std::string WriteFile(const std::string& name, const std::string& text) {
  return ::mxla::testing::WriteTempFile(name, text);
}

constexpr char kModule[] = R"(HloModule bias_relu

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  sum = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
  zero = f32[] constant(0)
  ROOT relu = f32[2,3]{1,0} maximum(sum, zero)
}
)";

TEST(MxlaToolTest, OptPrintsTheVerifiedModule) {
  std::string path = WriteFile("ok.hlo", kModule);
  Result result = RunMxla(absl::StrCat("opt ", path, " --passes="));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, kModule);
  EXPECT_THAT(result.err, IsEmpty());
  // Without --passes the default pipeline lowers the broadcasts.
  Result lowered = RunMxla(absl::StrCat("opt ", path));
  EXPECT_EQ(lowered.exit_code, 0) << lowered.err;
  EXPECT_THAT(lowered.out, HasSubstr("v.b = f32[2,3]{1,0} broadcast(v), dimensions={1}"));
  EXPECT_THAT(lowered.out, Not(HasSubstr("broadcast_dimensions")));
}

TEST(MxlaToolTest, RunRepeatPrintsCompileAndRunTimes) {
  std::string path = WriteFile(
      "repeat.hlo",
      "HloModule m\nENTRY e {\n  i = f32[4] iota(), iota_dimension=0\n"
      "  ROOT s = f32[4] add(i, i)\n}\n");
  Result result = RunMxla(absl::StrCat("run ", path, " --repeat 5"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "f32[4] {0, 2, 4, 6}\n");
  // A call of a few microseconds is timed in batches (each sample at least
  // 100 us), and reported per call, in ns or us, to three digits.
  EXPECT_THAT(result.err,
              ContainsRegex("^jit: compile [0-9.]+ (ms|s), run median "
                            "[0-9.]+ (ns|µs) \\(min [0-9.]+ (ns|µs)\\) per "
                            "call, over 5 samples of [0-9]+ calls\n$"));
  // A call that takes longer is timed alone: a run per sample.
  std::string slow = WriteFile(
      "repeat_slow.hlo",
      "HloModule m\nENTRY e {\n  i = f32[1000000] iota(), iota_dimension=0\n"
      "  ROOT s = f32[1000000] add(i, i)\n}\n");
  Result oracle =
      RunMxla(absl::StrCat("run ", slow, " --repeat 2 --backend interpreter"));
  EXPECT_EQ(oracle.exit_code, 0) << oracle.err;
  EXPECT_THAT(oracle.err,
              ContainsRegex("^interpreter: compile [0-9.]+ (ns|µs|ms|s), "
                            "run median [0-9.]+ (ms|s) \\(min [0-9.]+ "
                            "(ms|s)\\) over 2 runs\n$"));  // s under ASan
  // Only the last run's outfeeds are printed.
  std::string outfeed = WriteFile(
      "repeat_outfeed.hlo",
      "HloModule m\nENTRY e {\n  x = f32[2] iota(), iota_dimension=0\n"
      "  t = token[] after-all()\n  o = token[] outfeed(x, t)\n"
      "  ROOT n = f32[2] add(x, x)\n}\n");
  Result fed = RunMxla(absl::StrCat("run ", outfeed, " --repeat 3"));
  EXPECT_EQ(fed.exit_code, 0) << fed.err;
  EXPECT_EQ(fed.out, "outfeed 0: f32[2] {0, 1}\nf32[2] {0, 2}\n");
  Result zero = RunMxla(absl::StrCat("run ", path, " --repeat 0"));
  EXPECT_NE(zero.exit_code, 0);
  EXPECT_THAT(zero.err, HasSubstr("--repeat"));
}

TEST(MxlaToolTest, RunSummarizesLargeResultsUnlessPrintFull) {
  std::string path = WriteFile(
      "large.hlo",
      "HloModule m\nENTRY e {\n  ROOT i = s32[1001] iota(), "
      "iota_dimension=0\n}\n");
  Result summary = RunMxla(absl::StrCat("run ", path));
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(summary.out, "s32[1001] {0, 1, 2, ..., 998, 999, 1000}\n");
  Result full = RunMxla(absl::StrCat("run ", path, " --print-full"));
  EXPECT_EQ(full.exit_code, 0) << full.err;
  EXPECT_THAT(full.out, HasSubstr(", 499, 500, 501, "));
}

TEST(MxlaToolTest, OptReadsStandardInput) {
  Result result = RunMxla("opt - --passes=", kModule);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, kModule);
}

// Each error of `mxla compile` says which flag to change and how.
TEST(MxlaToolTest, CompileErrorsSayWhatToDo) {
  const std::string hlo = WriteFile("compile_errors.hlo", kModule);
  const std::string dir = ::mxla::testing::TempPath("compile_errors");
  std::filesystem::create_directories(dir);
  const std::string rules =
      " is not a C identifier (letters, digits and '_', not starting with a "
      "digit, not a keyword)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-o " + dir + "/my-model",
       "error: -o " + dir + "/my-model: the C function is named after the "
       "file name, and ahead-of-time function name 'my-model'" + rules +
       "; name it with --function (e.g. --function my_model)\n"},
      {"-o " + dir + "/int",
       "error: -o " + dir + "/int: the C function is named after the file "
       "name, and ahead-of-time function name 'int'" + rules +
       "; name it with --function (e.g. --function int_fn)\n"},
      {"-o " + dir + "/m --function 2fast",
       "error: --function: ahead-of-time function name '2fast'" + rules +
       "; choose another name (e.g. --function _2fast)\n"},
      {"-o /nonexistent/dir/model",
       "error: -o: cannot write '/nonexistent/dir/model.o' (No such file or "
       "directory); -o names PATH.o and PATH.h in a directory that exists\n"},
  };
  for (const auto& [flags, message] : cases) {
    Result result = RunMxla(absl::StrCat("compile ", hlo, " ", flags));
    EXPECT_EQ(result.exit_code, 1) << flags;
    EXPECT_EQ(result.err, message) << flags;
  }
  // The fix works: the file name stays, the function gets a name.
  Result fixed = RunMxla(absl::StrCat("compile ", hlo, " -o ", dir,
                                      "/my-model --function my_model"));
  EXPECT_EQ(fixed.exit_code, 0) << fixed.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/my-model.o"));
  EXPECT_THAT(fixed.out, HasSubstr("void my_model(const void* const* args"));
}

TEST(MxlaToolTest, ParseErrorsExitOneWithLineAndColumn) {
  std::string path = WriteFile("bad.hlo", "HloModule m\nENTRY main {\n  x = f32[2 parameter(0)\n}\n");
  Result result = RunMxla(absl::StrCat("opt ", path));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, StartsWith("error: "));
  EXPECT_THAT(result.err, HasSubstr(":3:"));
  EXPECT_THAT(result.out, IsEmpty());
}

TEST(MxlaToolTest, VerifierErrorsExitOne) {
  std::string path = WriteFile("mismatch.hlo", R"(HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT sum = f32[2,3] add(x, v), broadcast_dimensions={0}
})");
  Result result = RunMxla(absl::StrCat("opt ", path));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("Broadcast dimension 0 mismatch: 3 != 2"));
}

TEST(MxlaToolTest, UsageErrorsExitOne) {
  Result missing = RunMxla("opt /nonexistent/file.hlo");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("error: cannot open '/nonexistent/file.hlo'"));
  Result unknown_flag = RunMxla("opt - --frobnicate");
  EXPECT_EQ(unknown_flag.exit_code, 1);
  EXPECT_THAT(unknown_flag.err, StartsWith("error: "));
  Result no_command = RunMxla("");
  EXPECT_EQ(no_command.exit_code, 1);
  Result unknown_pass = RunMxla("opt - --passes=fuse", kModule);
  EXPECT_EQ(unknown_pass.exit_code, 1);
  EXPECT_THAT(unknown_pass.err, HasSubstr("unknown pass 'fuse'"));
  Result garbage = RunMxla("opt -", std::string("\x01\x02\xff\0zz", 6));
  EXPECT_EQ(garbage.exit_code, 1);
}

// A lowering pass run on builder-form input reports the input's fault (the
// precondition), never that the pass produced an invalid module.
TEST(MxlaToolTest, LoweredOnlyPassesRejectBuilderFormInput) {
  for (const char* pass : {"fusion", "row-fusion"}) {
    Result result = RunMxla(absl::StrCat("opt - --passes=", pass), kModule);
    EXPECT_EQ(result.exit_code, 1) << pass;
    EXPECT_THAT(result.err,
                HasSubstr(absl::StrCat("pass '", pass, "' failed: ", pass,
                                       " needs lowered HLO; run "
                                       "lower-broadcasts first: sum = ")));
    EXPECT_THAT(result.err, Not(HasSubstr("produced an invalid module")));
  }
  Result lowered_first =
      RunMxla("opt - --passes=lower-broadcasts,fusion,row-fusion", kModule);
  EXPECT_EQ(lowered_first.exit_code, 0) << lowered_first.err;
}

TEST(MxlaToolTest, EmitShowsEveryStage) {
  Result fused = RunMxla("opt - --emit=fused", kModule);
  EXPECT_EQ(fused.exit_code, 0) << fused.err;
  EXPECT_THAT(fused.out, HasSubstr("kind=kLoop, calls=fused_computation"));
  Result llvm = RunMxla("opt - --emit=llvm", kModule);
  EXPECT_EQ(llvm.exit_code, 0) << llvm.err;
  EXPECT_THAT(llvm.out, HasSubstr("define void @mxla.fusion("));
  Result optimized = RunMxla("opt - --emit=llvm-opt", kModule);
  EXPECT_EQ(optimized.exit_code, 0) << optimized.err;
  EXPECT_THAT(optimized.out, HasSubstr("target-cpu"));
  Result assembly = RunMxla("opt - --emit=asm", kModule);
  EXPECT_EQ(assembly.exit_code, 0) << assembly.err;
  EXPECT_THAT(assembly.out, HasSubstr("mxla.fusion:"));
  Result bad = RunMxla("opt - --emit=pdf", kModule);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("unknown --emit stage 'pdf' (stages: hlo, "
                                 "fused, llvm, llvm-opt, asm, dot, svg)"));
}

TEST(MxlaToolTest, GraphsAsDotAndSvg) {
  Result dot = RunMxla("opt - --emit=dot", kModule);
  EXPECT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_THAT(dot.out, HasSubstr("digraph"));
  EXPECT_THAT(dot.out, HasSubstr("subgraph cluster_"));
  Result collapsed = RunMxla("opt - --emit=dot --collapse-fusions", kModule);
  EXPECT_EQ(collapsed.exit_code, 0) << collapsed.err;
  EXPECT_THAT(collapsed.out, ::testing::Not(HasSubstr("subgraph")));
  EXPECT_THAT(collapsed.out, HasSubstr("\\nfusion\\n"));
  // tools/dev.sh installs Graphviz, so dot is on PATH here.
  Result svg = RunMxla("opt - --emit=svg", kModule);
  EXPECT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_THAT(svg.out, HasSubstr("<svg"));
  // Without Graphviz: a clear error, not a crash or empty output.
  const std::string path = std::getenv("PATH");
  setenv("PATH", "/nonexistent", 1);
  Result missing = RunMxla("opt - --emit=svg", kModule);
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("needs Graphviz's 'dot', which is not on "
                                     "PATH; install it (Debian: apt-get "
                                     "install graphviz)"));
  EXPECT_TRUE(missing.out.empty());
}

// A smoke run of the benchmark (timings are reported, never asserted).
TEST(MxlaToolTest, BenchMeasuresBandwidthAndDispatch) {
  Result result = RunMxla("bench --filter W3,W7 --runs 1");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("triad"));
  EXPECT_THAT(result.out, HasSubstr("W3  outer"));
  EXPECT_THAT(result.out, HasSubstr("W7 small_dispatch (8x8 + 8): RunBuffers"));
  Result unknown = RunMxla("bench --filter W11");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("unknown workload 'W11' (W1 to W10, G1 to G4, S, X, M, M:TEXT)"));
  // W3 again without streaming stores (an A/B of the store kind).
  Result plain = RunMxla("bench --filter W3 --runs 1 --streaming-min-bytes 0");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, HasSubstr("W3  outer"));
  Result negative = RunMxla("bench --filter W3 --streaming-min-bytes -1");
  EXPECT_EQ(negative.exit_code, 1);
  EXPECT_THAT(negative.err, HasSubstr("--streaming-min-bytes must be >= 0"));
}

TEST(MxlaToolTest, HelpExitsZero) {
  Result help = RunMxla("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: mxla [OPTIONS] SUBCOMMAND"));
  for (const char* command : {"opt", "run", "demo", "bench"}) {
    EXPECT_THAT(help.out, HasSubstr(std::string("  ") + command)) << command;
  }
  EXPECT_THAT(help.out, HasSubstr("Examples:"));
  Result version = RunMxla("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, ContainsRegex("^mxla [0-9]+\\.[0-9]+\\.[0-9]+ \\(LLVM 19"));
}

// Every subcommand documents each of its options, and rejects any other.
TEST(MxlaToolTest, EachSubcommandsHelpIsCompleteAndUnknownFlagsFail) {
  // opt and run are given their file, so the flag is the only problem.
  const std::pair<const char*, std::vector<const char*>> commands[] = {
      {"opt -", {"--passes", "--disable-pass", "--dump-dir", "--time-passes",
               "--emit", "--metadata", "--collapse-fusions"}},
      {"run -", {"--input", "--output", "--backend", "--compare", "--tolerance",
               "--passes", "--dump-dir", "--profile"}},
      {"demo", {"--example", "--list", "--dump-dir"}},
      {"bench", {"--threads", "--filter", "--runs", "--json",
                 "--streaming-min-bytes", "--modules-dir",
                 "--module-budget", "--collective-bytes"}},
  };
  for (const auto& [command, options] : commands) {
    Result help = RunMxla(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    std::string name = std::string(command).substr(0, std::string(command).find(' '));
    EXPECT_THAT(help.out, HasSubstr("Usage: mxla " + name));
    for (const char* option : options) {
      EXPECT_THAT(help.out, HasSubstr(option)) << command << " " << option;
    }
    Result bad = RunMxla(std::string(command) + " --no-such-flag");
    EXPECT_EQ(bad.exit_code, 1) << command;
    EXPECT_THAT(bad.err, HasSubstr("not expected: --no-such-flag")) << command;
    EXPECT_THAT(bad.err, HasSubstr("run 'mxla " + name + " --help'")) << command;
    EXPECT_THAT(bad.out, IsEmpty()) << command;
  }
}

TEST(MxlaToolTest, DemoShowsEveryExample) {
  Result result = RunMxla("demo");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("=== matrix_plus_vector"));
  EXPECT_THAT(result.out, HasSubstr("add(x, y), broadcast_dimensions={1}"));
  EXPECT_THAT(result.out, HasSubstr("f32[2,3] { {8, 10, 12}, {11, 13, 15} }"));
  EXPECT_THAT(result.out, HasSubstr("f32[4,2] { {6, 7}, {7, 8}, {8, 9}, {9, 10} }"));
  Result one = RunMxla("demo --example outer_2x1_1x3");
  EXPECT_EQ(one.exit_code, 0);
  EXPECT_THAT(one.out, Not(HasSubstr("matrix_plus_vector")));
  Result unknown = RunMxla("demo --example nope");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("no example named 'nope'"));
}

// The document's figures appear verbatim, and the kernels show their vector
// loop and agree with the interpreter.
TEST(MxlaToolTest, DemoDrawsTheDocumentsFiguresAndVectorCode) {
  Result result = RunMxla("demo");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("    |1 2 3| + 7 = |8  9  10|\n"
                                    "    |4 5 6|       |11 12 13|\n"));
  EXPECT_THAT(result.out, HasSubstr("    |1 1| + |5 6|     |6  7|\n"
                                    "    |2 2| + |5 6|  =  |7  8|\n"));
  Result softmax = RunMxla("demo --example softmax");
  ASSERT_EQ(softmax.exit_code, 0) << softmax.err;
  EXPECT_THAT(softmax.out, HasSubstr("busiest vector block"));
  EXPECT_THAT(softmax.out, ContainsRegex("fsub <[0-9]+ x float>"));
  EXPECT_THAT(softmax.out, HasSubstr("interpreter agrees"));
  EXPECT_THAT(softmax.out, HasSubstr("median of 15"));
}

// The model-layer kernels: one dot kernel each, the epilogue or the row
// softmax inside it, previews of their large arrays.
TEST(MxlaToolTest, DemoShowsFusedDotKernels) {
  Result mlp = RunMxla("demo --example mlp_layer");
  ASSERT_EQ(mlp.exit_code, 0) << mlp.err;
  EXPECT_THAT(mlp.out, ContainsRegex("ROOT fusion = f32\\[64,128\\].* "
                                     "fusion\\(x, W, b\\), kind=kOutput.*"
                                     "plan=\\{kind=dot"));
  EXPECT_THAT(mlp.out, HasSubstr("f32[128] {0, 0.180808, 0.337144, "
                                 "0.447849, ...}"));
  EXPECT_THAT(mlp.out, HasSubstr("interpreter agrees"));
  Result attention = RunMxla("demo --example attention_scores");
  ASSERT_EQ(attention.exit_code, 0) << attention.err;
  EXPECT_THAT(attention.out, ContainsRegex("fusion\\(Q, K\\), kind=kOutput.*"
                                           "row_block=.*rows=\\{4,128\\}"));
  EXPECT_THAT(attention.out, HasSubstr("(rows of the last dimension)"));
  EXPECT_THAT(attention.out, HasSubstr("interpreter agrees"));
}

TEST(MxlaToolTest, DemoWritesEveryStageToTheDumpDirectory) {
  std::string dir = ::testing::TempDir() + "/demo_dump";
  std::filesystem::remove_all(dir);
  Result result = RunMxla("demo --example bias_relu --dump-dir " + dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("every stage written to " + dir +
                                    "/bias_relu/"));
  for (const char* file :
       {"00-input.hlo", "01-lower-broadcasts.hlo", "passes.txt", "fused.hlo",
        "llvm.ll", "llvm-opt.ll", "kernels.s", "result.txt"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/bias_relu/" + file)) << file;
  }
  std::ifstream input(dir + "/bias_relu/00-input.hlo");
  std::string text((std::istreambuf_iterator<char>(input)),
                   std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("metadata={op_name=\"Max\""));
  std::ifstream result_file(dir + "/bias_relu/result.txt");
  std::string value((std::istreambuf_iterator<char>(result_file)),
                    std::istreambuf_iterator<char>());
  EXPECT_EQ(value, "f32[2,3] { {0, 0, 3.5}, {0, 6, 0} }\n");
}

}  // namespace
}  // namespace mxla
