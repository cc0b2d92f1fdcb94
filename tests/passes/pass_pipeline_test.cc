// PassPipeline: verification after each pass (naming the pass) and after
// each fixed-point group, disabled passes, dumps, timing, fixed points. The default list of HLO passes is the
// compile pipeline's (tests/driver/compile_pipeline_test.cc).
#include <filesystem>
#include <fstream>
#include <memory>

#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::fixtures::kBiasRelu;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(const char* text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  return *std::move(module);
}

// Options that dump into `name`, a fresh directory under the test's
// temporary one; its path in `dir`.
PipelineOptions DumpingTo(const std::string& name, std::string& dir) {
  dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  PipelineOptions options;
  options.dump_dir = dir;
  return options;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)), {});
}

// A broken pass: gives the root a wrong shape.
class CorruptingPass : public HloPass {
 public:
  absl::string_view name() const override { return "corrupt"; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    module.entry_computation()->root_instruction()->set_shape(
        ShapeUtil::MakeShape(F32, {7}));
    return true;
  }
};

// Gives the root a wrong shape on its first run only, remembering the
// right one.
class CorruptOncePass : public HloPass {
 public:
  absl::string_view name() const override { return "corrupt-once"; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    if (done_) return false;
    done_ = true;
    HloInstruction* root = module.entry_computation()->root_instruction();
    right_shape_ = root->shape();
    root->set_shape(ShapeUtil::MakeShape(F32, {7}));
    return true;
  }
  const Shape& right_shape() const { return right_shape_; }

 private:
  bool done_ = false;
  Shape right_shape_;
};

// Puts back the shape `corrupter` took away.
class RepairPass : public HloPass {
 public:
  explicit RepairPass(const CorruptOncePass& corrupter)
      : corrupter_(corrupter) {}
  absl::string_view name() const override { return "repair"; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    HloInstruction* root = module.entry_computation()->root_instruction();
    if (root->shape() == corrupter_.right_shape()) return false;
    root->set_shape(corrupter_.right_shape());
    return true;
  }

 private:
  const CorruptOncePass& corrupter_;
};

// Changes the module a fixed number of times, then reports no change.
class CountdownPass : public HloPass {
 public:
  explicit CountdownPass(int changes) : changes_(changes) {}
  absl::string_view name() const override { return "countdown"; }
  absl::StatusOr<bool> Run(HloModule&) override { return changes_-- > 0; }

 private:
  int changes_;
};

TEST(PassPipelineTest, VerifierFailureNamesThePass) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  PassPipeline pipeline;
  pipeline.AddPass(std::make_unique<CorruptingPass>());
  EXPECT_THAT(pipeline.Run(*module),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("pass 'corrupt' produced an invalid module"),
                             HasSubstr("relu"))));
}

// A failing pipeline still leaves its log and the module the bad pass made.
TEST(PassPipelineTest, FailuresAreLoggedAndTheInvalidModuleDumped) {
  std::string dir;
  PassPipeline pipeline(DumpingTo("pipeline_failure_dump", dir));
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  pipeline.AddPass(std::make_unique<CountdownPass>(1));
  pipeline.AddPass(std::make_unique<CorruptingPass>());
  EXPECT_THAT(pipeline.Run(*module),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("produced an invalid module")));
  const std::string log = ReadFile(dir + "/passes.txt");
  EXPECT_THAT(log, HasSubstr("countdown            changed"));
  EXPECT_THAT(log, HasSubstr("corrupt              FAILED"));
  EXPECT_THAT(ReadFile(dir + "/02-corrupt-invalid.hlo"),
              HasSubstr("ROOT relu = f32[7]"));
}

TEST(PassPipelineTest, LoweredModeStartsAfterLowering) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  // simplify alone leaves implicit broadcasts: builder-mode verification
  // must accept that.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PassPipeline> pipeline,
                       CreatePipeline({"simplify", "lower-broadcasts", "dce"}, {}));
  EXPECT_OK(pipeline->Run(*module).status());
}

TEST(PassPipelineTest, DisabledPassesAreSkippedAndRecorded) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  PipelineOptions options;
  options.disabled_passes.insert("lower-broadcasts");
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<PassPipeline> pipeline,
      CreatePipeline({"lower-broadcasts", "simplify", "dce"}, options));
  ASSERT_OK(pipeline->Run(*module).status());
  EXPECT_EQ(pipeline->records().front().name, "lower-broadcasts");
  EXPECT_EQ(pipeline->records().front().outcome, PassRecord::Outcome::kDisabled);
  EXPECT_TRUE(module->entry_computation()
                  ->root_instruction()
                  ->operand(0)
                  ->broadcast_dimensions()
                  .has_value());
}

TEST(PassPipelineTest, FixedPointRepeatsUntilNoChangeAndIsBounded) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  PassPipeline pipeline;
  std::vector<std::unique_ptr<HloPass>> group;
  group.push_back(std::make_unique<CountdownPass>(3));
  pipeline.AddFixedPoint("countdown-group", std::move(group));
  ASSERT_OK_AND_ASSIGN(bool changed, pipeline.Run(*module));
  EXPECT_TRUE(changed);
  EXPECT_EQ(pipeline.records().size(), 4u);  // 3 changes + 1 quiet round.

  PassPipeline endless;
  std::vector<std::unique_ptr<HloPass>> forever;
  forever.push_back(std::make_unique<CountdownPass>(1000));
  endless.AddFixedPoint("forever", std::move(forever), /*max_rounds=*/5);
  EXPECT_THAT(endless.Run(*module),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("'forever' still changed the module after 5 rounds")));
}

// A fixed-point group is verified once it settles: a module one of its
// passes breaks and a later one mends passes, unless every pass in it is
// verified (verify_each_pass_in_groups), which then names the breaking one.
TEST(PassPipelineTest, AGroupIsVerifiedWhenItSettlesOrAfterEachPassIfAsked) {
  for (bool each_pass : {false, true}) {
    std::unique_ptr<HloModule> module = Parse(kBiasRelu);
    PipelineOptions options;
    options.verify_each_pass_in_groups = each_pass;
    PassPipeline pipeline(options);
    auto corrupter = std::make_unique<CorruptOncePass>();
    auto repair = std::make_unique<RepairPass>(*corrupter);
    std::vector<std::unique_ptr<HloPass>> group;
    group.push_back(std::move(corrupter));
    group.push_back(std::move(repair));
    pipeline.AddFixedPoint("break-and-mend", std::move(group));
    if (each_pass) {
      EXPECT_THAT(pipeline.Run(*module),
                  StatusIs(absl::StatusCode::kInternal,
                           HasSubstr("pass 'corrupt-once' produced an invalid "
                                     "module")));
    } else {
      ASSERT_OK_AND_ASSIGN(bool changed, pipeline.Run(*module));
      EXPECT_TRUE(changed);
    }
  }
}

// A group that leaves the module invalid fails naming the group, with the
// way to find the pass, and dumps the module.
TEST(PassPipelineTest, AGroupThatEndsInvalidIsNamedAndDumped) {
  std::string dir;
  PassPipeline pipeline(DumpingTo("pipeline_group_failure", dir));
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  std::vector<std::unique_ptr<HloPass>> group;
  group.push_back(std::make_unique<CorruptOncePass>());
  pipeline.AddFixedPoint("break-only", std::move(group));
  EXPECT_THAT(
      pipeline.Run(*module),
      StatusIs(absl::StatusCode::kInternal,
               AllOf(HasSubstr("fixed-point group 'break-only' produced an "
                               "invalid module"),
                     HasSubstr("--verify-each-pass"), HasSubstr("relu"))));
  EXPECT_THAT(ReadFile(dir + "/02-break-only-invalid.hlo"),
              HasSubstr("ROOT relu = f32[7]"));
}

TEST(PassPipelineTest, DumpsEveryChangeAndLogsEveryPass) {
  std::string dir;
  PipelineOptions options = DumpingTo("pipeline_dump", dir);
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  // The second dce finds nothing left to do.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PassPipeline> pipeline,
                       CreatePipeline({"lower-broadcasts", "simplify", "cse",
                                       "dce", "dce"},
                                      options));
  ASSERT_OK(pipeline->Run(*module).status());
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 3u);
  EXPECT_EQ(files[0], "00-input.hlo");
  EXPECT_EQ(files[1], "01-lower-broadcasts.hlo");
  EXPECT_EQ(files.back(), "passes.txt");
  const std::string log = ReadFile(dir + "/passes.txt");
  EXPECT_THAT(log, HasSubstr("lower-broadcasts     changed"));
  EXPECT_THAT(log, HasSubstr("unchanged"));
  EXPECT_THAT(ReadFile(dir + "/01-lower-broadcasts.hlo"),
              HasSubstr("broadcast(v), dimensions={1}"));
  EXPECT_THAT(pipeline->TimingReport(), HasSubstr("total"));
}

TEST(PassPipelineTest, UnwritableDumpDirectoryIsAnError) {
  std::unique_ptr<HloModule> module = Parse(kBiasRelu);
  PipelineOptions options;
  options.dump_dir = "/proc/mxla-cannot-write-here";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PassPipeline> pipeline,
                       CreatePipeline({"lower-broadcasts"}, options));
  EXPECT_FALSE(pipeline->Run(*module).ok());
}

TEST(PassPipelineTest, RegistryKnowsEveryPass) {
  EXPECT_THAT(AvailablePassNames(),
              ElementsAre("inline-calls", "lower-collectives",
                          "pair-sends-and-recvs",
                          "conditional-to-select", "inline-maps",
                          "inline-unplannable-fusions",
                          "expand-reduce-windows", "expand-rngs",
                          "expand-scans",
                          "expand-topk", "hoist-sort-keys",
                          "expand-convolutions",
                          "expand-batch-norms", "expand-choleskys",
                          "expand-triangular-solves", "split-tuple-constants",
                          "expand-stochastic-converts",
                          "expand-rng-bit-generators", "expand-ragged-dots",
                          "expand-scaled-dots", "expand-dots",
                          "lower-broadcasts", "simplify", "cse", "dce",
                          "while-loop-invariant-code-motion",
                          "while-loop-simplifier", "fusion", "row-fusion",
                          "fusion-planning"));
  EXPECT_THAT(CreatePass("fuse"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown pass 'fuse' (available passes: "
                                 "inline-calls, lower-collectives, "
                                 "pair-sends-and-recvs, "
                                 "conditional-to-select, inline-maps, "
                                 "inline-unplannable-fusions, "
                                 "expand-reduce-windows, expand-rngs, expand-scans, "
                                 "expand-topk, hoist-sort-keys, "
                                 "expand-convolutions, "
                                 "expand-batch-norms, expand-choleskys, "
                                 "expand-triangular-solves, "
                                 "split-tuple-constants, "
                                 "expand-stochastic-converts, "
                                 "expand-rng-bit-generators, "
                                 "expand-ragged-dots, "
                                 "expand-scaled-dots, "
                                 "expand-dots, "
                                 "lower-broadcasts, "
                                 "simplify, "
                                 "cse, dce, "
                                 "while-loop-invariant-code-motion, "
                                 "while-loop-simplifier, "
                                 "fusion, row-fusion, fusion-planning)")));
}

// A pass made by name takes the compile's options, as the JIT's own list
// does: expand-dots keeps the products the dot kernel computes when told.
TEST(PassRegistryTest, PassesMadeByNameTakeTheirOptions) {
  constexpr char kDot[] = R"(
HloModule m
ENTRY main {
  a = f32[4,8] parameter(0)
  b = f32[8,3] parameter(1)
  ROOT d = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  for (bool keep : {false, true}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(kDot));
    PassOptions options;
    options.keep_matrix_products = keep;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloPass> pass,
                         CreatePass("expand-dots", options));
    ASSERT_OK_AND_ASSIGN(bool changed, pass->Run(*module));
    EXPECT_EQ(changed, !keep);
    EXPECT_EQ(module->entry_computation()->root_instruction()->opcode() ==
                  HloOpcode::kDot,
              keep);
  }
  // Every pass of the JIT's list is registered.
  for (const std::string& name : JitPassNames()) {
    EXPECT_OK(CreatePass(name).status()) << name;
  }
}

}  // namespace
}  // namespace mxla
