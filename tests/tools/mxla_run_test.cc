// `mxla run` end to end: .npy inputs by number or name (and per element of
// a tuple parameter), --infeed values and printed outfeeds, printed and
// .npy results, --compare, and every error path (exit 1, "error: ...",
// never a crash).
#include <cmath>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/npy.h"
#include "runtime/npz.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tool_runner.h"

namespace mxla {
namespace {

using ::mxla::fixtures::kBiasRelu;
using ::mxla::testing::ReadFile;
using ::mxla::testing::RunMxla;
using ::mxla::testing::TempPath;
using ::mxla::testing::ToolResult;
using ::mxla::testing::WriteTempFile;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string NpyFile(const std::string& name, const Literal& literal) {
  absl::StatusOr<std::string> bytes = SerializeNpy(literal);
  EXPECT_OK(bytes.status());
  return WriteTempFile(name, bytes.ok() ? *bytes : "");
}

struct Files {
  std::string hlo = WriteTempFile("bias_relu.hlo", kBiasRelu);
  std::string x = NpyFile("x.npy", LiteralUtil::CreateR2<float>({{1, -2, 3}, {-4, 5, -6}}));
  std::string v = NpyFile("v.npy", LiteralUtil::CreateR1<float>({-1, 1, 0.5f}));
};

void ExpectUserError(const ToolResult& result, const std::string& message) {
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_THAT(result.err, StartsWith("error: "));
  EXPECT_THAT(result.err, HasSubstr(message));
}

TEST(MxlaRunTest, PrintsTheResultWithInputsByNumberOrName) {
  Files f;
  ToolResult by_number = RunMxla(absl::StrCat("run ", f.hlo, " --input 0=", f.x,
                                              " --input 1=", f.v));
  EXPECT_EQ(by_number.exit_code, 0) << by_number.err;
  EXPECT_EQ(by_number.out, "f32[2,3] { {0, 0, 3.5}, {0, 6, 0} }\n");
  ToolResult by_name = RunMxla(absl::StrCat("run ", f.hlo, " --input v=", f.v,
                                            " -i x=", f.x, " --backend=interpreter"));
  EXPECT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(by_name.out, by_number.out);
}

TEST(MxlaRunTest, DumpDirHoldsEveryStage) {
  Files f;
  const std::string dir = TempPath("run_dump");
  std::filesystem::remove_all(dir);
  ToolResult result = RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x,
                                           " -i 1=", f.v, " --dump-dir=", dir));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const char* name : {"00-input.hlo", "01-lower-broadcasts.hlo",
                           "passes.txt", "fused.hlo", "llvm.ll", "llvm-opt.ll",
                           "kernels.s"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name;
  }
  EXPECT_THAT(ReadFile(dir + "/passes.txt"), HasSubstr("lower-broadcasts"));
  EXPECT_THAT(ReadFile(dir + "/llvm-opt.ll"), HasSubstr("define void @mxla."));
}

// Each infeed reads the next --infeed file; each outfeed is printed.
TEST(MxlaRunTest, InfeedFilesAndPrintedOutfeeds) {
  const std::string hlo = WriteTempFile("feeds.hlo", R"(HloModule feeds
ENTRY main {
  t = token[] after-all()
  a = (f32[2], token[]) infeed(t)
  va = f32[2] get-tuple-element(a), index=0
  ta = token[] get-tuple-element(a), index=1
  b = (bf16[2], token[]) infeed(ta)
  vb = bf16[2] get-tuple-element(b), index=0
  wb = f32[2] convert(vb)
  sum = f32[2] add(va, wb)
  tb = token[] get-tuple-element(b), index=1
  o = token[] outfeed(sum, tb)
  ROOT r = f32[2] negate(sum)
})");
  const std::string first =
      NpyFile("feed0.npy", LiteralUtil::CreateR1<float>({1, 2}));
  // bf16 travels as its bits in a <u2 file: 0x4040 is 3, 0x3f80 is 1.
  const std::string second =
      NpyFile("feed1.npy", LiteralUtil::CreateR1<uint16_t>({0x4040, 0x3f80}));
  ToolResult result = RunMxla(absl::StrCat("run ", hlo, " --infeed ", first,
                                           " --infeed ", second,
                                           " --compare"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "outfeed 0: f32[2] {4, 3}\nf32[2] {-4, -3}\n");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " --infeed ", first)),
                  "infeed of bf16[2]: no --infeed file left (1 given): pass "
                  "one --infeed per infeed the module runs, in order");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " --infeed ", first,
                                       " --infeed ", second, " --repeat 2")),
                  "--repeat: a module given --infeed values runs once (each "
                  "run would read the next values): drop --repeat, or time "
                  "it without --infeed");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " --infeed ", second,
                                       " --infeed ", second)),
                  "--infeed " + second + ": the file holds u16[2], and the "
                  "infeed's data is f32[2]: convert the array "
                  "(a.astype(numpy.float32))");
}

TEST(MxlaRunTest, WritesNpyOutput) {
  Files f;
  std::string out = TempPath("out.npy");
  ToolResult result = RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x, " -i 1=", f.v,
                                           " --output ", out));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  ASSERT_OK_AND_ASSIGN(Literal written, ParseNpy(ReadFile(out)));
  EXPECT_EQ(written, LiteralUtil::CreateR2<float>({{0, 0, 3.5f}, {0, 6, 0}}));
}

TEST(MxlaRunTest, SamePassesOrNoneGiveTheSameValues) {
  Files f;
  std::string inputs = absl::StrCat(" -i 0=", f.x, " -i 1=", f.v);
  ToolResult none = RunMxla(absl::StrCat("run ", f.hlo, inputs, " --passes="));
  ToolResult all = RunMxla(absl::StrCat("run ", f.hlo, inputs));
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, all.out);
}

// A dumped fused.hlo carries its fusion plans and runs as it is with no
// passes; a plan that does not fit its fusion is a user error.
TEST(MxlaRunTest, DumpedFusedModuleRunsWithItsPlans) {
  Files f;
  const std::string dir = TempPath("fused_dump");
  std::filesystem::remove_all(dir);
  std::string inputs = absl::StrCat(" -i 0=", f.x, " -i 1=", f.v);
  ToolResult dumped =
      RunMxla(absl::StrCat("run ", f.hlo, inputs, " --dump-dir=", dir));
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err;
  const std::string fused = ReadFile(dir + "/fused.hlo");
  EXPECT_THAT(fused, HasSubstr(", plan={kind=loop, store=plain, "
                               "one_unit=true}"));
  ToolResult rerun = RunMxla(
      absl::StrCat("run ", dir, "/fused.hlo", inputs, " --passes= --compare"));
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(rerun.out, dumped.out);
  EXPECT_THAT(rerun.err, HasSubstr("interpreter: 0"));

  std::string bad = fused;
  bad.replace(bad.find("kind=loop"), 9, "kind=reduction");
  bad.replace(bad.find("store=plain, one_unit=true"), 26, "units=6");
  ToolResult rejected = RunMxla(absl::StrCat(
      "run ", WriteTempFile("bad_fused.hlo", bad), inputs, " --passes="));
  ExpectUserError(rejected, "the root must be the only reduce");
}

TEST(MxlaRunTest, CompareRunsBothBackends) {
  Files f;
  std::string inputs = absl::StrCat(" -i 0=", f.x, " -i 1=", f.v);
  ToolResult jit = RunMxla(absl::StrCat("run ", f.hlo, inputs, " --compare"));
  EXPECT_EQ(jit.exit_code, 0) << jit.err;
  EXPECT_EQ(jit.out, "f32[2,3] { {0, 0, 3.5}, {0, 6, 0} }\n");
  EXPECT_THAT(jit.err, HasSubstr("largest difference between jit and "
                                 "interpreter: 0"));
  ToolResult interpreter = RunMxla(
      absl::StrCat("run ", f.hlo, inputs, " --backend=interpreter --compare"));
  EXPECT_EQ(interpreter.exit_code, 0) << interpreter.err;
  EXPECT_EQ(interpreter.out, jit.out);
}

// --profile prints one run's kernel table to stderr and changes nothing
// on stdout; with --repeat, it profiles one more run after the timed ones.
// --donate: the aliased parameter's buffer holds the result; one run
// prints what a run without donation prints, on both backends and with
// --compare; with --repeat each run continues from the last one's result.
TEST(MxlaRunTest, DonateHonoursInputOutputAlias) {
  const std::string hlo = WriteTempFile("donate.hlo",
                                        R"(HloModule donate, input_output_alias={ {0}: (0, {}) }
ENTRY main {
  x = f32[4] parameter(0)
  i = s32[] parameter(1)
  one = f32[1] constant({1})
  s = f32[1] dynamic-slice(x, i), dynamic_slice_sizes={1}
  a = f32[1] add(s, one)
  u = f32[4] dynamic-update-slice(x, a, i)
  ROOT t = (f32[4], f32[1]) tuple(u, s)
})");
  const std::string x =
      NpyFile("donate_x.npy", LiteralUtil::CreateR1<float>({1, 2, 3, 4}));
  const std::string i =
      NpyFile("donate_i.npy", LiteralUtil::CreateR0<int32_t>(2));
  const std::string inputs = absl::StrCat(" -i 0=", x, " -i 1=", i);
  ToolResult plain = RunMxla(absl::StrCat("run ", hlo, inputs));
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "(f32[4] {1, 2, 4, 4}, f32[1] {3})\n");
  for (const char* flags : {" --donate", " --donate --backend=interpreter",
                            " --donate --compare"}) {
    ToolResult donated = RunMxla(absl::StrCat("run ", hlo, inputs, flags));
    EXPECT_EQ(donated.exit_code, 0) << flags << donated.err;
    EXPECT_EQ(donated.out, plain.out) << flags;
  }
  // Three timed runs and the printed one: x[2] went up four times.
  ToolResult repeated =
      RunMxla(absl::StrCat("run ", hlo, inputs, " --donate --repeat 3"));
  EXPECT_EQ(repeated.exit_code, 0) << repeated.err;
  EXPECT_THAT(repeated.out, HasSubstr("f32[4] {1, 2, ")) << repeated.out;
  EXPECT_THAT(repeated.out, Not(HasSubstr("{1, 2, 4, 4}")));
  ExpectUserError(
      RunMxla(absl::StrCat("run ", hlo, inputs,
                           " --donate --compare --repeat 2")),
      "--donate with --repeat: each run starts from the previous run's "
      "results");
}

TEST(MxlaRunTest, ProfilePrintsTheKernelTable) {
  Files f;
  const std::string inputs = absl::StrCat(" -i 0=", f.x, " -i 1=", f.v);
  const std::string limits = "MXLA_MACHINE_LIMITS=100,10";
  ToolResult plain = RunMxla(absl::StrCat("run ", f.hlo, inputs), "", limits);
  ToolResult profiled =
      RunMxla(absl::StrCat("run ", f.hlo, inputs, " --profile"), "", limits);
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  EXPECT_EQ(profiled.out, plain.out);
  EXPECT_THAT(plain.err, Not(HasSubstr("profile:")));
  EXPECT_THAT(profiled.err,
              StartsWith("profile: 1 run, "));
  EXPECT_THAT(profiled.err,
              HasSubstr("limits 100.0 GFLOP/s, 10.0 GB/s (MXLA_MACHINE_LIMITS)"));
  EXPECT_THAT(profiled.err, HasSubstr("fusion [loop]"));
  EXPECT_THAT(profiled.err, HasSubstr("relu"));
  // time, share, calls, no FLOPs, GB/s, % of the limit, kernel.
  EXPECT_THAT(profiled.err,
              ContainsRegex("ms +[0-9.]+% +1 +- +[0-9.]+ +[0-9.]+% +fusion "
                            "\\[loop\\]"));
  EXPECT_THAT(profiled.err, HasSubstr("(outside kernels)"));
  ToolResult repeated = RunMxla(
      absl::StrCat("run ", f.hlo, inputs, " --profile --repeat 3"), "", limits);
  ASSERT_EQ(repeated.exit_code, 0) << repeated.err;
  EXPECT_EQ(repeated.out, plain.out);
  EXPECT_THAT(repeated.err, HasSubstr("run median"));
  EXPECT_THAT(repeated.err, HasSubstr("profile: 1 run, "));
}

TEST(MxlaRunTest, InputErrors) {
  Files f;
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x)),
                  "missing input for parameter 1 ('v', f32[3])");
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x, " -i 1=", f.v,
                                       " -i w=", f.v)),
                  "no parameter named or numbered 'w'; name one of its "
                  "parameters (0 'x', 1 'v'), and a tuple parameter's "
                  "elements as I.J, e.g. 0.1");
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x, " -i x=", f.x,
                                       " -i 1=", f.v)),
                  "parameter 0 ('x') is given twice: pass one --input for "
                  "it");
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0", " -i 1=", f.v)),
                  "--input expects I=PATH.npy");
  std::string wrong_type = NpyFile("wrong_type.npy", LiteralUtil::CreateR1<double>({1, 2, 3}));
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x, " -i 1=", wrong_type)),
                  "--input 1=" + wrong_type + ": the file holds f64[3], and "
                  "parameter 1 ('v') is f32[3]: convert the array "
                  "(a.astype(numpy.float32))");
  std::string wrong_shape = NpyFile("wrong_shape.npy", LiteralUtil::CreateR1<float>({1, 2}));
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x, " -i 1=", wrong_shape)),
                  "f32[2]");
  std::string garbage = WriteTempFile("garbage.npy", "not a numpy file");
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x, " -i 1=", garbage)),
                  "malformed .npy");
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, " -i 0=", f.x, " -i 1=/nonexistent.npy")),
                  "cannot open '/nonexistent.npy'");
}

// s4 has no NumPy dtype: it comes in as |i1 values, which must fit, and
// goes out the same way.
TEST(MxlaRunTest, SubByteIntegersTravelAsBytes) {
  const std::string hlo = WriteTempFile("s4.hlo", R"(HloModule s4
ENTRY main {
  x = s4[3] parameter(0)
  ROOT y = s4[3] add(x, x)
})");
  const std::string x = NpyFile("s4_x.npy", LiteralUtil::CreateR1<int8_t>({3, -8, 5}));
  const std::string out = TempPath("s4_out.npy");
  ToolResult run = RunMxla(absl::StrCat("run ", hlo, " -i 0=", x, " -o ", out));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ASSERT_OK_AND_ASSIGN(Literal written, ParseNpy(ReadFile(out)));
  EXPECT_EQ(written, LiteralUtil::CreateR1<int8_t>({6, 0, -6}));
  const std::string wide = NpyFile("s4_wide.npy", LiteralUtil::CreateR1<int8_t>({3, 9, 0}));
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " -i 0=", wide)),
                  "--input 0=" + wide + ": element 1 is 9, out of range for "
                  "s4 [-8, 7]");
  const std::string wide_type =
      NpyFile("s4_s32.npy", LiteralUtil::CreateR1<int32_t>({3, 1, 0}));
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " -i 0=", wide_type)),
                  "--input 0=" + wide_type + ": the file holds s32[3], and "
                  "parameter 0 ('x') is s4[3]: pass int8 values that fit s4 "
                  "(a.astype(numpy.int8))");
}

TEST(MxlaRunTest, ModuleAndOptionErrors) {
  Files f;
  std::string inputs = absl::StrCat(" -i 0=", f.x, " -i 1=", f.v);
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, inputs, " --backend=gpu")),
                  "unknown backend 'gpu'");
  ExpectUserError(RunMxla(absl::StrCat("run ", f.hlo, inputs, " --passes=nope")),
                  "unknown pass 'nope'");
  std::string bad = WriteTempFile("bad.hlo", "HloModule m\nENTRY e {\n  ROOT x = f32[2] add(y, y)\n}\n");
  ExpectUserError(RunMxla(absl::StrCat("run ", bad)), "undefined");
  std::string invalid = WriteTempFile("invalid.hlo", R"(HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT s = f32[2,3] add(x, v), broadcast_dimensions={0}
})");
  ExpectUserError(RunMxla(absl::StrCat("run ", invalid, inputs)),
                  "Broadcast dimension 0 mismatch");
  std::string tuple = WriteTempFile("tuple.hlo", R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT t = (f32[2], f32[2]) tuple(x, x)
})");
  std::string vec = NpyFile("vec.npy", LiteralUtil::CreateR1<float>({1, 2}));
  ToolResult printed = RunMxla(absl::StrCat("run ", tuple, " -i 0=", vec));
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out, "(f32[2] {1, 2}, f32[2] {1, 2})\n");
  ExpectUserError(RunMxla(absl::StrCat("run ", tuple, " -i 0=", vec, " -o ", TempPath("t.npy"))),
                  "-o " + TempPath("t.npy") + ": the result is (f32[2], f32[2]), "
                  "and a .npy file holds one array: write -o PATH.npz (one "
                  "array per element, named by its index path: 0, 1, 1.0, "
                  "...) or -o DIR/ (one .npy per element)");
}

// A tuple result goes to an .npz (one member per array, named by index
// path) or to a directory of .npy files; an .npz member feeds an input.
// (tests/lit/tools/run_npz.hlo reads them with NumPy.)
TEST(MxlaRunTest, WritesTupleResultsAsNpzOrDirectory) {
  const std::string hlo = WriteTempFile("tuple_result.hlo", R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  n = f32[2] negate(x)
  i = s32[3] iota(), iota_dimension=0
  inner = (s32[3], f32[2]) tuple(i, n)
  ROOT t = (f32[2], (s32[3], f32[2])) tuple(x, inner)
})");
  const std::string x = NpyFile("tuple_x.npy", LiteralUtil::CreateR1<float>({1, 2}));
  const std::string npz = TempPath("tuple_out.npz");
  ToolResult written = RunMxla(absl::StrCat("run ", hlo, " -i 0=", x, " -o ", npz));
  ASSERT_EQ(written.exit_code, 0) << written.err;
  ASSERT_OK_AND_ASSIGN(std::vector<ZipMember> members, ParseZip(ReadFile(npz)));
  ASSERT_EQ(members.size(), 3u);
  const std::vector<std::pair<std::string, Literal>> expected = [] {
    std::vector<std::pair<std::string, Literal>> arrays;
    arrays.emplace_back("0", LiteralUtil::CreateR1<float>({1, 2}));
    arrays.emplace_back("1.0", LiteralUtil::CreateR1<int32_t>({0, 1, 2}));
    arrays.emplace_back("1.1", LiteralUtil::CreateR1<float>({-1, -2}));
    return arrays;
  }();
  for (size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(members[i].name, expected[i].first + ".npy");
    ASSERT_OK_AND_ASSIGN(Literal array, ParseNpy(members[i].bytes));
    EXPECT_EQ(array, expected[i].second) << expected[i].first;
  }
  const std::string directory = TempPath("tuple_out_dir");
  std::filesystem::remove_all(directory);
  ToolResult split = RunMxla(absl::StrCat("run ", hlo, " -i 0=", x, " -o ",
                                          directory, "/"));
  ASSERT_EQ(split.exit_code, 0) << split.err;
  for (const auto& [name, array] : expected) {
    ASSERT_OK_AND_ASSIGN(Literal read, ParseNpy(ReadFile(
                                           directory + "/" + name + ".npy")));
    EXPECT_EQ(read, array) << name;
  }
  // Member 1.1 as the next run's input; a missing member lists the others.
  ToolResult fed = RunMxla(absl::StrCat("run ", hlo, " -i 0=", npz, ":1.1"));
  ASSERT_EQ(fed.exit_code, 0) << fed.err;
  EXPECT_EQ(fed.out, "(f32[2] {-1, -2}, (s32[3] {0, 1, 2}, f32[2] {1, 2}))\n");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " -i 0=", npz, ":2")),
                  npz + " has no array '2' (it holds 0, 1.0, 1.1)");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " -i 0=", npz)),
                  npz + " holds 3 arrays (0, 1.0, 1.1): name one as " + npz +
                      ":NAME");
}

// --compare on results that are infinite on both backends: no difference.
TEST(MxlaRunTest, CompareTreatsEqualInfinitiesAsEqual) {
  std::string hlo = WriteTempFile("double_it.hlo", R"(HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  ROOT s = f32[3] add(x, x)
})");
  std::string x = NpyFile("inf.npy", LiteralUtil::CreateR1<float>(
                                         {INFINITY, -INFINITY, 1}));
  ToolResult result = RunMxla(absl::StrCat("run ", hlo, " -i 0=", x, " --compare"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "f32[3] {inf, -inf, 2}\n");
  EXPECT_THAT(result.err, HasSubstr("largest difference between jit and "
                                    "interpreter: 0\n"));
}

constexpr char kTupleParameter[] = R"(HloModule tuple_parameter
ENTRY main {
  a = (f32[2], f32[2]) parameter(0)
  s = f32[] parameter(1)
  x = f32[2] get-tuple-element(a), index=0
  y = f32[2] get-tuple-element(a), index=1
  d = f32[2] subtract(y, x)
  ROOT m = f32[2] multiply(d, s), broadcast_dimensions={}
}
)";

TEST(MxlaRunTest, TupleParameterTakesOneInputPerElement) {
  std::string hlo = WriteTempFile("tuple_parameter.hlo", kTupleParameter);
  std::string x = NpyFile("tx.npy", LiteralUtil::CreateR1<float>({1, 2}));
  std::string y = NpyFile("ty.npy", LiteralUtil::CreateR1<float>({10, 30}));
  std::string s = NpyFile("ts.npy", LiteralUtil::CreateR0<float>(2));
  for (const char* backend : {"jit", "interpreter"}) {
    ToolResult by_number = RunMxla(absl::StrCat(
        "run ", hlo, " -i 0.0=", x, " -i 0.1=", y, " -i 1=", s,
        " --compare --backend=", backend));
    EXPECT_EQ(by_number.exit_code, 0) << by_number.err;
    EXPECT_EQ(by_number.out, "f32[2] {18, 56}\n");
  }
  ToolResult by_name = RunMxla(absl::StrCat("run ", hlo, " -i a.1=", y,
                                            " -i s=", s, " -i a.0=", x));
  EXPECT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(by_name.out, "f32[2] {18, 56}\n");

  std::string inputs = absl::StrCat(" -i 1=", s);
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, inputs, " -i 0.0=", x)),
                  "missing input for parameter 0 ('a', tuple element {1} "
                  "f32[2]): pass --input 0.1=PATH.npy");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, inputs, " -i 0=", x)),
                  "parameter 0 ('a') is the tuple (f32[2], f32[2]): pass one "
                  ".npy per array element, as --input 0.0=PATH.npy");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, inputs, " -i 0.0=", x,
                                       " -i 0.1=", y, " -i 0.2=", y)),
                  "parameter 0 ('a') of shape (f32[2], f32[2]) has no tuple "
                  "element {2}");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, inputs, " -i 0.0=", x,
                                       " -i 0.1=", y, " -i 1.0=", y)),
                  "has no tuple element {0}");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, inputs, " -i 0.0=", x,
                                       " -i a.0=", x, " -i 0.1=", y)),
                  "parameter 0.0 ('a') is given twice");
  std::string wrong = NpyFile("twrong.npy", LiteralUtil::CreateR1<float>({1, 2, 3}));
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, inputs, " -i 0.0=", x,
                                       " -i 0.1=", wrong)),
                  "argument 0 (parameter 'a') has shape (f32[2], f32[3]) but "
                  "the computation expects (f32[2], f32[2])");
}

// bf16 has no NumPy dtype: a bf16 parameter takes its bits in a <u2 file,
// or float values, rounded to nearest even as HLO's convert rounds them.
TEST(MxlaRunTest, Bf16ParametersTakeBitsOrRoundedFloats) {
  const std::string hlo = WriteTempFile("bf16_in.hlo", R"(HloModule bf16_in
ENTRY main {
  x = bf16[5] parameter(0)
  ROOT y = f32[5] convert(x)
})");
  // 1 + 2^-8 and 1 + 3 * 2^-8 lie halfway between bf16 neighbours (whose
  // spacing at 1 is 2^-7): ties go to the even one, 1 and 1 + 2^-6.
  // 1 + 2^-8 + 2^-20 is past halfway: up to 1 + 2^-7.
  const std::vector<float> values = {1.00390625f, 1.01171875f,
                                     1.00390625f + 0x1p-20f, 3, -0.5f};
  const std::string expected = "f32[5] {1, 1.015625, 1.0078125, 3, -0.5}\n";
  const std::string f32 = NpyFile("bf16_f32.npy", LiteralUtil::CreateR1<float>(values));
  const std::string f64 = NpyFile(
      "bf16_f64.npy", LiteralUtil::CreateR1<double>(
                          std::vector<double>(values.begin(), values.end())));
  const std::string bits = NpyFile(
      "bf16_bits.npy",
      LiteralUtil::CreateR1<uint16_t>({0x3f80, 0x3f82, 0x3f81, 0x4040, 0xbf00}));
  for (const std::string& file : {f32, f64, bits}) {
    ToolResult result = RunMxla(absl::StrCat("run ", hlo, " -i 0=", file,
                                             " --compare"));
    EXPECT_EQ(result.exit_code, 0) << file << ": " << result.err;
    EXPECT_EQ(result.out, expected) << file;
  }
  const std::string ints = NpyFile(
      "bf16_s32.npy", LiteralUtil::CreateR1<int32_t>({1, 2, 3, 4, 5}));
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " -i 0=", ints)),
                  "--input 0=" + ints + ": the file holds s32[5], and "
                  "parameter 0 ('x') is bf16[5]: pass float16, float32 or "
                  "float64 values (converted as HLO's convert does, rounding "
                  "to nearest even) or the bf16 bits as <u2 "
                  "(a.astype(ml_dtypes.bfloat16).view(numpy.uint16))");
  const std::string f8 = WriteTempFile("f8_in.hlo", R"(HloModule f8_in
ENTRY main {
  x = f8e4m3fn[5] parameter(0)
  ROOT y = f32[5] convert(x)
})");
  ExpectUserError(RunMxla(absl::StrCat("run ", f8, " -i 0=", ints)),
                  "or the f8e4m3fn bits as |u1 "
                  "(a.astype(ml_dtypes.float8_e4m3fn).view(numpy.uint8))");
  // f8e4m3fn's spacing at 1 is 1/8: the first three round to 1.
  ToolResult f8_rounded = RunMxla(absl::StrCat("run ", f8, " -i 0=", f32));
  EXPECT_EQ(f8_rounded.exit_code, 0) << f8_rounded.err;
  EXPECT_EQ(f8_rounded.out, "f32[5] {1, 1, 1, 3, -0.5}\n");
}

// A module with many parameters or results (ResNet-50 returns 321 arrays)
// must not print every shape in a message: long tuples are summarized,
// and the element that differs is named.
TEST(MxlaRunTest, MessagesSummarizeLongTuples) {
  std::string elements, leaves;
  for (int i = 0; i < 12; ++i) {
    absl::StrAppend(&elements, i == 0 ? "" : ", ", "f32[2]");
    absl::StrAppend(&leaves, "  e", i, " = f32[2] get-tuple-element(p), index=",
                    i, "\n");
  }
  const std::string hlo = WriteTempFile(
      "long_tuple.hlo", absl::StrCat("HloModule long_tuple\nENTRY main {\n"
                                     "  p = (", elements, ") parameter(0)\n",
                                     leaves, "  ROOT r = f32[2] add(e0, e11)\n}\n"));
  std::string pair = NpyFile("pair.npy", LiteralUtil::CreateR1<float>({1, 2}));
  std::string three = NpyFile("three.npy", LiteralUtil::CreateR1<float>({1, 2, 3}));
  std::string inputs;
  for (int i = 0; i < 12; ++i) {
    absl::StrAppend(&inputs, " -i 0.", i, "=", i == 10 ? three : pair);
  }
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, inputs)),
                  "argument 0 (parameter 'p') has shape (f32[2], f32[2], "
                  "f32[2], ... 7 more, f32[3], f32[2]) but the computation "
                  "expects (f32[2], f32[2], f32[2], ... 7 more, f32[2], "
                  "f32[2]) (tuple element {10} is f32[3], expected f32[2])");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " -i 0=", pair)),
                  "parameter 0 ('p') is the tuple (f32[2], f32[2], f32[2], "
                  "... 7 more, f32[2], f32[2]): pass one .npy per array "
                  "element");
}

// Same inputs, same bits: across runs and across pool sizes (MXLA_THREADS
// 1, 2 and 16), for a softmax whose kernels the pool splits by rows and
// whose row sums the JIT reassociates.
TEST(MxlaRunTest, OutputBitsDoNotDependOnRunOrThreadCount) {
  Literal x(ShapeUtil::MakeShape(F32, {512, 1000}));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.data<float>()[i] = 5 * std::sin(0.37f * i) + 0.001f * (i % 977);
  }
  std::string input = NpyFile("softmax_x.npy", x);
  std::string module = WriteTempFile("softmax_rows.hlo",
                                     fixtures::ModuleWithReducers("softmax") +
                                         R"(
ENTRY main {
  x = f32[512,1000] parameter(0)
  ninf = f32[] constant(-inf)
  rowmax = f32[512] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  shifted = f32[512,1000] subtract(x, rowmax), broadcast_dimensions={0}
  e = f32[512,1000] exponential(shifted)
  zero = f32[] constant(0)
  sum = f32[512] reduce(e, zero), dimensions={1}, to_apply=add_f32
  ROOT softmax = f32[512,1000] divide(e, sum), broadcast_dimensions={0}
}
)");
  std::string first;
  for (const char* threads : {"1", "2", "16", "16", "1"}) {
    std::string out = TempPath(absl::StrCat("softmax_out_", threads, ".npy"));
    ToolResult result = RunMxla(absl::StrCat("run ", module, " -i 0=", input,
                                             " -o ", out),
                                "", absl::StrCat("MXLA_THREADS=", threads));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::string bytes = ReadFile(out);
    ASSERT_GT(bytes.size(), 512u * 1000 * 4);
    if (first.empty()) {
      first = bytes;
    } else {
      EXPECT_TRUE(bytes == first) << "MXLA_THREADS=" << threads;
    }
  }
}

// --replicas: the module on several in-process devices, inputs shared or
// per device, each device's result printed or written, compared with the
// other backend; and the errors.
TEST(MxlaRunTest, RunsOnSeveralDevices) {
  const std::string hlo = WriteTempFile("ar.hlo", R"(HloModule ar
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ar = f32[2] all-reduce(x), replica_groups={}, to_apply=add
  ROOT r = f32[2] add(ar, y)
})");
  const std::string one = NpyFile("one.npy", LiteralUtil::CreateR1<float>({1, 2}));
  const std::string ten = NpyFile("ten.npy", LiteralUtil::CreateR1<float>({10, 20}));
  const std::string zero = NpyFile("zero.npy", LiteralUtil::CreateR1<float>({0, 0}));
  ToolResult result = RunMxla(absl::StrCat(
      "run ", hlo, " --replicas 2 -i x=", one, " -i 1:x=", ten, " -i y=",
      zero, " --compare"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "device 0 (replica 0, partition 0): f32[2] {11, 22}\n"
            "device 1 (replica 1, partition 0): f32[2] {11, 22}\n");
  // It says how the threads are split between the devices.
  EXPECT_THAT(result.err,
              ::testing::ContainsRegex(
                  "2 devices in this process on [0-9]+ threads: [0-9]+ each"));
  const std::string dir = TempPath("devices_out") + "/";
  std::filesystem::remove_all(dir);
  result = RunMxla(absl::StrCat("run ", hlo, " --replicas 2 -i x=", one,
                                " -i y=", zero, " -o ", dir));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "device1")) << dir;
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " --replicas 2 -i x=",
                                       one, " -i 2:y=", zero)),
                  "device 2 is not one of the run's 2 devices (0 to 1)");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " --replicas 2 -i x=",
                                       one, " -i y=", zero, " --repeat 3")),
                  "--repeat runs one device; this run has 2 replicas x 1 "
                  "partitions");
  ExpectUserError(RunMxla(absl::StrCat("run ", hlo, " --replicas 2 -i x=",
                                       one)),
                  "device 0: missing input for parameter 1");
}

}  // namespace
}  // namespace mxla
