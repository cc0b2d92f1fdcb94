// The collectives' text forms (replica_groups explicit or in XLA's iota
// form, source_target_pairs), on one device (a group of one participant
// runs: an identity or a copy; a program whose collectives need more is
// refused by name when it runs), the builder, the evaluator, and the JIT
// (which lowers them to plain HLO on one device) against the interpreter.
// Several devices: tests/interpreter/collectives_test.cc.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/collective_groups.h"
#include "ir/device_assignment.h"
#include "ir/hlo_verifier.h"
#include "shape_inference/op_shape_rules.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::testing::HasSubstr;
using ::mxla::testing::StatusIs;

constexpr char kOneDevice[] = R"(HloModule one_device
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,6] parameter(0)
  y = f32[4,6] parameter(1)
  ar = (f32[4,6], f32[4,6]) all-reduce(x, y), channel_id=1, replica_groups={{0}}, use_global_device_ids=true, to_apply=add
  ar0 = f32[4,6] get-tuple-element(ar), index=0
  ag = f32[4,6] all-gather(ar0), dimensions={1}, replica_groups={{0}}
  rs = (f32[4,6], f32[4,6]) reduce-scatter(ag, y), dimensions={0}, replica_groups=[1,1]<=[1], to_apply=add
  rs0 = f32[4,6] get-tuple-element(rs), index=0
  a2a = f32[4,6] all-to-all(rs0), dimensions={0}, replica_groups={{0}}
  cb = f32[4,6] collective-broadcast(a2a), replica_groups={{0}}
  cp = f32[4,6] collective-permute(cb), source_target_pairs={{0,0}}
  zeros = f32[4,6] collective-permute(x), source_target_pairs={}
  ars = f32[4,6] all-reduce-start(cp), replica_groups={}, to_apply=add
  ard = f32[4,6] all-reduce-done(ars)
  ags = (f32[4,6], f32[4,6]) all-gather-start(ard), dimensions={0}
  agd = f32[4,6] all-gather-done(ags)
  cps = (f32[4,6], f32[4,6], u32[], u32[]) collective-permute-start(agd), source_target_pairs={{0,0}}
  cpd = f32[4,6] collective-permute-done(cps)
  e = f32[4,6] exponential(cpd)
  ROOT r = f32[4,6] add(e, zeros)
}
)";

TEST(CollectivesTest, TextFormsRoundTrip) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kOneDevice));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  const std::string text = module->ToString();
  // channel_id and use_global_device_ids choose the group mode: they
  // read back.
  EXPECT_THAT(text, HasSubstr("all-reduce(x, y), replica_groups={{0}}, "
                              "channel_id=1, use_global_device_ids=true, "
                              "to_apply=add"));
  EXPECT_THAT(text, HasSubstr("reduce-scatter(ag, y), dimensions={0}, "
                              "replica_groups={{0}}, to_apply=add"));
  EXPECT_THAT(text, HasSubstr("collective-permute(cb), "
                              "source_target_pairs={{0,0}}"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again, ParseHloModule(text));
  EXPECT_EQ(again->ToString(), text);
  // XLA's iota groups: ids 0..3 as [2,2] (transposed), read as 2 groups.
  for (const auto& [iota, explicit_groups] :
       std::vector<std::pair<std::string, std::string>>{
           {"[2,2]<=[4]", "{{0,1},{2,3}}"},
           {"[2,2]<=[2,2]T(1,0)", "{{0,2},{1,3}}"},
           {"[1,4]<=[4]", "{{0,1,2,3}}"},
           {"[4,2]<=[2,2,2]T(2,1,0)", "{{0,4},{2,6},{1,5},{3,7}}"}}) {
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<HloModule> grouped,
        ParseHloModule(absl::StrCat(
            "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
            "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = "
            "f32[4] parameter(0)\n  ROOT r = f32[4] all-reduce(x), "
            "replica_groups=",
            iota, ", to_apply=add\n}\n")));
    EXPECT_THAT(grouped->ToString(),
                HasSubstr(absl::StrCat("replica_groups=", explicit_groups)))
        << iota;
  }
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY e {\n  x = f32[4] "
                             "parameter(0)\n  ROOT r = f32[4] all-gather(x), "
                             "dimensions={0}, replica_groups=[2,3]<=[4]\n}\n")
                  .status()
                  .message(),
              HasSubstr("malformed iota device groups"));
}

TEST(CollectivesTest, OneParticipantIsAnIdentityInBothBackends) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kOneDevice));
  std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 5);
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(*module, Pointers(arguments)));
  // Every collective passes its operand through: r = exp(x); the permute
  // with no pairs gives zeros.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> exp_only,
                       ParseHloModule("HloModule e\nENTRY e {\n  x = f32[4,6] "
                                      "parameter(0)\n  ROOT r = f32[4,6] "
                                      "exponential(x)\n}\n"));
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*exp_only, {&arguments[0]}));
  EXPECT_EQ(result, expected);
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments)));
  // The JIT lowers them to plain HLO before fusing: no op with the
  // collectives' shape rule is left.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> fused,
                       OptimizeForBackend(*module, {}));
  for (const HloComputation* computation : fused->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      EXPECT_NE(GetShapeRule(instruction->opcode()),
                GetShapeRule(HloOpcode::kAllReduce))
          << instruction->ToString();
    }
  }
}

// Collectives of several participants are valid HLO (the verifier checks
// their groups and shapes as XLA's does), and a run on one device refuses
// them by name: the interpreter when a group names a device past 0 or the
// shapes need more participants than its group has, the JIT when it
// compiles them for one device.
TEST(CollectivesTest, SeveralParticipantsVerifyAndOneDeviceRefusesThem) {
  auto parse = [](const std::string& instruction) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(absl::StrCat(
            "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
            "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = "
            "f32[8] parameter(0)\n  ROOT r = ",
            instruction, "\n}\n"));
    EXPECT_OK(module.status());
    if (module.ok()) EXPECT_OK(VerifyModule(**module, VerifierMode::kLowered));
    return module;
  };
  const Literal x = LiteralUtil::CreateR1<float>({1, 2, 3, 4, 5, 6, 7, 8});
  struct Case {
    std::string instruction;
    std::string interpreter_error;
  };
  const Case cases[] = {
      {"f32[8] all-reduce(x), replica_groups={{0,1}}, to_apply=add",
       "all-reduce 'r': replica id 1 in replica group {0,1} is outside "
       "[0, 1) (cross-replica mode on 1 replicas x 1 partitions)"},
      {"f32[8] collective-permute(x), source_target_pairs={{0,1},{1,0}}",
       "collective-permute 'r': source_target_pair {0,1} names replica 1, "
       "outside [0, 1)"},
      // channel_id alone: an all-reduce lists replicas (each with every
      // partition), an all-to-all partitions.
      {"f32[8] all-reduce(x), channel_id=1, replica_groups={{0,1}}, "
       "to_apply=add",
       "replica id 1 in replica group {0,1} is outside [0, 1) "
       "(cross-replica-and-partition mode on 1 replicas x 1 partitions)"},
      {"f32[8] all-to-all(x), channel_id=1, dimensions={0}, "
       "replica_groups={{0,1}}",
       "partition id 1 in replica group {0,1} is outside [0, 1) "
       "(cross-partition mode on 1 replicas x 1 partitions)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.instruction);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         parse(c.instruction));
    EXPECT_THAT(EvaluateModule(*module, {&x}).status().message(),
                HasSubstr(c.interpreter_error));
    EXPECT_THAT(Compile(*module).status().message(),
                HasSubstr("this program is compiled for one device"));
  }
  // With the default counts (1 and 1) and no groups, the shapes give the
  // shard count: the module verifies, and one device cannot run it.
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> gather,
      parse("f32[16] all-gather(x), dimensions={0}, replica_groups={}"));
  EXPECT_THAT(EvaluateModule(*gather, {&x}).status().message(),
              HasSubstr("all-gather 'r': its group {0} has 1 devices, but the "
                        "result f32[16] is not 1 times the operand f32[8] "
                        "along dimension 0"));
}

// async-start/-update/-done, call-start/-done and copy-start/-done: on one
// device the start computes the value and the done returns it.
TEST(CollectivesTest, AsyncWrappersComputeTheirValue) {
  constexpr char kAsync[] = R"(HloModule async
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
wrapped {
  p = f32[4,6] parameter(0)
  ROOT n = f32[4,6] negate(p)
}
reduced {
  q = f32[4,6] parameter(0)
  ROOT ar = f32[4,6] all-reduce(q), replica_groups={}, to_apply=add
}
ENTRY main {
  x = f32[4,6] parameter(0)
  s = ((f32[4,6]), f32[4,6], s32[]) async-start(x), calls=wrapped, async_execution_thread="main"
  u = ((f32[4,6]), f32[4,6], s32[]) async-update(s)
  d = f32[4,6] async-done(u), calls=wrapped
  cs = ((f32[4,6]), f32[4,6]) call-start(d), to_apply=reduced
  cd = f32[4,6] call-done(cs)
  ks = (f32[4,6], f32[4,6]{1,0:S(5)}, u32[]) copy-start(cd), cross_program_prefetch_index=0
  kd = f32[4,6] copy-done(ks)
  ROOT e = f32[4,6] exponential(kd)
}
)";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kAsync));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("async-start(x), calls=wrapped\n"));
  EXPECT_THAT(module->ToString(), HasSubstr("async-done(u)\n"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                       ParseHloModule(module->ToString()));
  EXPECT_EQ(again->ToString(), module->ToString());
  std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 2);
  ASSERT_OK_AND_ASSIGN(Literal result,
                       EvaluateModule(*module, Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> expected_module,
                       ParseHloModule("HloModule e\nENTRY e {\n  x = f32[4,6] "
                                      "parameter(0)\n  n = f32[4,6] "
                                      "negate(x)\n  ROOT r = f32[4,6] "
                                      "exponential(n)\n}\n"));
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*expected_module, Pointers(arguments)));
  EXPECT_EQ(result, expected);
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> bad,
      ParseHloModule(absl::StrReplaceAll(
          kAsync, {{"s = ((f32[4,6]), f32[4,6], s32[]) async-start",
                    "s = (f32[4,6], f32[4,6], s32[]) async-start"},
                   {"u = ((f32[4,6]), f32[4,6], s32[]) async-update",
                    "u = (f32[4,6], f32[4,6], s32[]) async-update"}})));
  EXPECT_THAT(VerifyModule(*bad, VerifierMode::kLowered).message(),
              HasSubstr("async-start: the result (f32[4,6], f32[4,6], s32[]) "
                        "must be a tuple of (f32[4,6]), f32[4,6] and any "
                        "context values."));
}

// XLA's generic form `<op>-start(...)`, with <op>'s attributes: an
// async-start calling a computation `<name>.wrapped` that holds the op;
// `<op>-update` and `<op>-done` are async-update and async-done.
TEST(CollectivesTest, GenericAsyncFormWrapsTheOp) {
  constexpr char kGeneric[] = R"(HloModule generic
double {
  p0 = f32[2,2] parameter(0)
  ROOT add = f32[2,2] add(p0, p0)
}
ENTRY main {
  x = f32[2,2] parameter(0)
  fs = ((f32[2,2]), f32[2,2], s32[]) fusion-start(x), kind=kLoop, calls=double
  fd = f32[2,2] fusion-done(fs)
  as = ((f32[2,2]), f32[2,2], s32[]) abs-start(fd), async_execution_thread="t"
  au = ((f32[2,2]), f32[2,2], s32[]) abs-update(as)
  ad = f32[2,2] abs-done(au)
  ROOT abs = f32[2,2] negate(ad)
}
)";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kGeneric));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  const std::string text = module->ToString();
  EXPECT_THAT(text, HasSubstr("fs = ((f32[2,2]{1,0}), f32[2,2]{1,0}, s32[]) "
                              "async-start(x), calls=fs.wrapped\n"));
  EXPECT_THAT(text, HasSubstr("ROOT fs.fusion = f32[2,2]{1,0} fusion(p0.1), "
                              "kind=kLoop, calls=double\n"));
  EXPECT_THAT(text, HasSubstr("ROOT abs = f32[2,2]{1,0} negate(ad)"));
  EXPECT_THAT(text, HasSubstr("async-update(as)\n"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again, ParseHloModule(text));
  EXPECT_EQ(again->ToString(), text);
  std::vector<Literal> arguments = testing::MakeSeededArguments(*module, 3);
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments)));
  const std::string shapeless = absl::StrReplaceAll(
      kGeneric,
      {{"as = ((f32[2,2]), f32[2,2], s32[]) abs-start", "as = abs-start"}});
  EXPECT_THAT(ParseHloModule(shapeless).status().message(),
              HasSubstr("'as' (abs-start) needs its shape ((operands), "
                        "result, context...)"));
}

TEST(CollectivesTest, Builder) {
  XlaBuilder add("add");
  Add(Parameter(&add, 0, ShapeUtil::MakeShape(F32, {}), "a"),
      Parameter(&add, 1, ShapeUtil::MakeShape(F32, {}), "b"));
  ASSERT_OK_AND_ASSIGN(XlaComputation sum, add.Build());
  XlaBuilder b("collectives");
  XlaOp x = ConstantR1<float>(&b, {1, 2, 3});
  XlaOp y = AllReduce(x, sum);
  y = AllGather(y, 0, 1, {{0}});
  y = ReduceScatter(y, sum, 0, 1);
  y = AllToAll(y, 0, 0, 1);
  y = CollectiveBroadcast(y, {{0}});
  CollectivePermute(y, {{0, 0}});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(computation.module(), {}));
  EXPECT_EQ(result, LiteralUtil::CreateR1<float>({1, 2, 3}));
  EXPECT_TRUE(RunAndCompare(computation.module(), {}));

  // Several participants: XLA's shapes, checked against the groups.
  XlaBuilder gather("gather");
  AllGather(ConstantR1<float>(&gather, {1, 2}), 0, 4);
  ASSERT_OK_AND_ASSIGN(XlaComputation gathered, gather.Build());
  EXPECT_EQ(gathered.module().entry_computation()->root_instruction()->shape(),
            ShapeUtil::MakeShape(F32, {8}));
  XlaBuilder mismatched("mismatched");
  AllGather(ConstantR1<float>(&mismatched, {1, 2}), 0, 4, {{0, 1}});
  EXPECT_THAT(mismatched.Build().status().message(),
              HasSubstr("all-gather: the result f32[8] is the "
                        "operand f32[2] gathered 4 times along dimension 0, "
                        "but each group has 2 devices"));
  XlaBuilder scatter("scatter");
  ReduceScatter(ConstantR1<float>(&scatter, {1, 2, 3}), sum, 0, 2);
  EXPECT_THAT(scatter.Build().status().message(),
              HasSubstr("scatter dimension 0 size 3 must be dividable by "
                        "shard_count 2"));
  XlaBuilder permute("permute");
  CollectivePermute(ConstantR1<float>(&permute, {1, 2}), {{0, 1}, {2, 1}});
  EXPECT_THAT(permute.Build().status().message(),
              HasSubstr("target 1 appears more than once"));
  XlaBuilder transposing("transposing");
  AllToAll(ConstantR2<float>(&transposing, {{1, 2}, {3, 4}}), 0, 1, 2);
  EXPECT_THAT(transposing.Build().status().message(),
              HasSubstr("split_dimension 0 differs from concat_dimension 1 "
                        "with split_count 2"));
  XlaBuilder dimension("dimension");
  AllToAll(ConstantR1<float>(&dimension, {1, 2}), 0, 1, 1);
  EXPECT_THAT(dimension.Build().status().message(),
              HasSubstr("all-to-all: dimension 1 is out of range for f32[2]"));
}

// channel_id and use_global_device_ids choose the group mode: with a
// channel_id, an all-reduce, all-gather or reduce-scatter without
// use_global_device_ids is cross-replica-and-partition (XLA's bool is
// false), an all-to-all, permute or broadcast cross-partition. The groups
// of cross-replica-and-partition mode are checked once the module knows
// its partition count (the builder's shard count of 4 is 2 replicas x 2).
TEST(CollectivesTest, BuilderChannelsChooseTheGroupMode) {
  XlaBuilder add("add");
  Add(Parameter(&add, 0, ShapeUtil::MakeShape(F32, {}), "a"),
      Parameter(&add, 1, ShapeUtil::MakeShape(F32, {}), "b"));
  ASSERT_OK_AND_ASSIGN(XlaComputation sum, add.Build());
  XlaBuilder b("modes");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2}), "x");
  XlaOp everyone = AllReduce(x, sum, {}, /*channel_id=*/1);
  XlaOp both = AllGather(everyone, 0, 4, {{0, 1}}, 2, false);
  XlaOp flat = ReduceScatter(both, sum, 0, 2, {{0, 3}, {1, 2}}, 3, true);
  XlaOp split = AllToAll(flat, 0, 0, 1, {{0}, {1}}, 4);
  XlaOp moved = CollectivePermute(split, {{0, 1}}, 5);
  CollectiveBroadcast(moved, {{1, 0}}, 6);
  ASSERT_OK_AND_ASSIGN(XlaComputation built, b.Build());
  std::unique_ptr<HloModule> module = built.CloneModule();
  module->set_replica_count(2);
  module->set_num_partitions(2);
  ASSERT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  const std::string text = module->ToString();
  EXPECT_THAT(text, HasSubstr("all-reduce(x), replica_groups={}, "
                              "channel_id=1, to_apply="));
  EXPECT_THAT(text, HasSubstr("f32[8]{0} all-gather(all-reduce), "
                              "dimensions={0}, replica_groups={{0,1}}, "
                              "channel_id=2, use_global_device_ids=false"));
  EXPECT_THAT(text, HasSubstr("channel_id=3, use_global_device_ids=true"));
  EXPECT_THAT(text, HasSubstr("source_target_pairs={{0,1}}, channel_id=5"));
  std::vector<std::string> modes;
  for (const HloInstruction* instruction :
       module->entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kParameter ||
        instruction->opcode() == HloOpcode::kCollectivePermute) {
      continue;
    }
    ASSERT_OK_AND_ASSIGN(CollectiveGroupMode mode,
                         CollectiveGroupModeOf(*instruction));
    modes.emplace_back(CollectiveGroupModeName(mode));
  }
  EXPECT_THAT(modes, ::testing::ElementsAre(
                         "cross-replica-and-partition",
                         "cross-replica-and-partition", "flattened-id",
                         "cross-partition", "cross-partition"));

  // As XLA: flattened ids need a channel_id.
  XlaBuilder unchanneled("unchanneled");
  AllReduce(ConstantR1<float>(&unchanneled, {1, 2}), sum, {{0}}, std::nullopt,
            true);
  EXPECT_THAT(unchanneled.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("use_global_device_ids")));
}

// The tuple form: rank k's operand j goes to rank j, which gets a tuple of
// what each rank sent it. Run on two replicas by both backends.
TEST(CollectivesTest, BuilderAllToAllTuple) {
  XlaBuilder b("tuple_all_to_all");
  const Shape f32_2 = ShapeUtil::MakeShape(F32, {2});
  XlaOp x = Parameter(&b, 0, f32_2, "x");
  XlaOp y = Parameter(&b, 1, f32_2, "y");
  AllToAllTuple({x, y}, {{1, 0}});
  ASSERT_OK_AND_ASSIGN(XlaComputation built, b.Build());
  EXPECT_THAT(built.ToString(),
              HasSubstr("(f32[2]{0}, f32[2]{0}) all-to-all(x, y), "
                        "replica_groups={{1,0}}"));
  // Device d's x is {10d, 10d+1}, its y {10d+2, 10d+3}.
  std::vector<std::vector<Literal>> inputs;
  for (float d : {0.0f, 1.0f}) {
    inputs.push_back({});
    inputs.back().push_back(LiteralUtil::CreateR1<float>({10 * d, 10 * d + 1}));
    inputs.back().push_back(
        LiteralUtil::CreateR1<float>({10 * d + 2, 10 * d + 3}));
  }
  std::vector<std::vector<const Literal*>> arguments = {Pointers(inputs[0]),
                                                        Pointers(inputs[1])};
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    CompileOptions options;
    options.backend = backend;
    options.replicas = 2;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(built.module(), options));
    ASSERT_OK_AND_ASSIGN(
        std::vector<Literal> results,
        executable->RunReplicated(arguments, DeviceAssignment::Default(2, 1)));
    // Device 1 is rank 0: it gets operand 0 (x) of rank 0 (itself), then
    // of rank 1 (device 0).
    EXPECT_EQ(results[1].tuple_element(0),
              LiteralUtil::CreateR1<float>({10, 11}))
        << BackendName(backend);
    EXPECT_EQ(results[1].tuple_element(1), LiteralUtil::CreateR1<float>({0, 1}))
        << BackendName(backend);
    EXPECT_EQ(results[0].tuple_element(0),
              LiteralUtil::CreateR1<float>({12, 13}))
        << BackendName(backend);
  }

  XlaBuilder three("three");
  XlaOp z = ConstantR1<float>(&three, {1, 2});
  AllToAllTuple({z, z, z}, {{0, 1}});
  EXPECT_THAT(three.Build().status().message(),
              HasSubstr("the tuple form takes one operand per member of its "
                        "group: each group has 2 devices"));
}

}  // namespace
}  // namespace mxla
