// The depthwise kernel's blocks (codegen/depthwise_emitter.h): rows whose
// inside positions are fewer than, as many as and more than a block (the
// last block then overlaps the one before), strides and dilations along the
// blocked dimension, windows of 1, 2 and 3 dimensions, padding wider than
// the window, units that cut rows (1, 2 and 3 threads), and the streamed
// result. Each near the interpreter's and the same bits at every thread
// count; a streamed result the same bits as a plain one.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/conv_product.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::MakeSeededArguments;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAtThreadCounts;
using ::testing::HasSubstr;
using ::testing::Not;

// ROOT c = convolution(x, w) with `attributes`, the result shape inferred.
std::string DepthwiseModule(const std::string& x, const std::string& w,
                            const std::string& attributes) {
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  x = ", x, " parameter(0)\n  w = ", w,
      " parameter(1)\n  ROOT c = convolution(x, w), ", attributes, "\n}\n");
}

CompileOptions Reassociating() {
  CompileOptions options;
  options.codegen.reassociate_reductions = true;
  return options;
}

// The one depthwise kernel of `text` compiled with `options`: its plan.
std::string KernelPlan(const std::string& text, const CompileOptions& options) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::unique_ptr<HloModule> fused =
      OptimizeForBackend(*module, options).value();
  std::string plan;
  for (const HloInstruction* instruction :
       fused->entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    for (const HloInstruction* member :
         instruction->to_apply()->instructions()) {
      if (IsDepthwiseProduct(*member))
        plan = instruction->fusion_plan()->ToString();
    }
  }
  return plan;
}

// Near the interpreter and the same bits at 1, 2 and 3 threads; returns
// the result.
Literal ExpectKernelMatches(const std::string& text,
                            const CompileOptions& options, int seed) {
  SCOPED_TRACE(text);
  EXPECT_THAT(KernelPlan(text, options), HasSubstr("kind=dot"));
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, seed);
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(*module, options);
  EXPECT_OK(executable.status());
  if (!executable.ok()) return Literal();
  absl::StatusOr<std::vector<Literal>> results =
      RunAtThreadCounts(**executable, Pointers(arguments), {1, 2, 3});
  EXPECT_OK(results.status());
  if (!results.ok()) return Literal();
  EXPECT_EQ((*results)[0], (*results)[1]);
  EXPECT_EQ((*results)[0], (*results)[2]);
  absl::StatusOr<Literal> expected =
      EvaluateModule(*module, Pointers(arguments));
  EXPECT_OK(expected.status());
  if (expected.ok()) {
    EXPECT_OK(LiteralUtil::Near(*expected, (*results)[0], 2e-4, 2e-4));
  }
  return std::move((*results)[0]);
}

// Rows of 1 to 13 positions, 3x3 stride 1 pad 1: 0 to 11 positions inside
// (none, part of a block, a block, a block and part of another, two).
TEST(DepthwiseKernelTest, RowsOfEveryLengthAroundABlock) {
  for (int width = 1; width <= 13; ++width) {
    for (int features : {20, 32}) {
      ExpectKernelMatches(
          DepthwiseModule(absl::StrCat("f32[2,5,", width, ",", features, "]"),
                          absl::StrCat("f32[3,3,1,", features, "]"),
                          absl::StrCat("window={size=3x3 pad=1_1x1_1}, "
                                       "dim_labels=b01f_01io->b01f, "
                                       "feature_group_count=",
                                       features)),
          Reassociating(), width);
    }
  }
}

// Strides, dilations, reversal and padding wider than the window along the
// blocked dimension; 1-D and 3-D windows; f64.
TEST(DepthwiseKernelTest, BlocksOfEveryWindowForm) {
  const std::string cases[] = {
      DepthwiseModule(
          "f32[1,4,29,24]", "f32[3,3,1,24]",
          "window={size=3x3 stride=1x2 pad=1_1x1_1 rhs_dilate=1x2}, "
          "dim_labels=b01f_01io->b01f, feature_group_count=24"),
      DepthwiseModule("f32[1,5,23,17]", "f32[2,5,1,17]",
                      "window={size=2x5 stride=1x3 pad=0_1x4_4 "
                      "rhs_reversal=1x1}, dim_labels=b01f_01io->b01f, "
                      "feature_group_count=17"),
      // Padding wider than the window: whole rows and columns of positions
      // whose every tap is off the input.
      DepthwiseModule("f32[2,3,11,16]", "f32[2,3,1,16]",
                      "window={size=2x3 pad=3_3x5_5}, "
                      "dim_labels=b01f_01io->b01f, feature_group_count=16"),
      DepthwiseModule("f32[3,31,40]", "f32[5,1,40]",
                      "window={size=5 pad=2_2}, dim_labels=b0f_0io->b0f, "
                      "feature_group_count=40"),
      DepthwiseModule("f32[1,4,5,14,8]", "f32[3,2,3,1,8]",
                      "window={size=3x2x3 pad=1_1x0_1x1_1}, "
                      "dim_labels=b012f_012io->b012f, feature_group_count=8"),
      DepthwiseModule("f64[1,6,19,12]", "f64[3,3,1,12]",
                      "window={size=3x3 pad=1_1x1_1}, "
                      "dim_labels=b01f_01io->b01f, feature_group_count=12"),
  };
  int seed = 20;
  for (const std::string& text : cases) {
    ExpectKernelMatches(text, Reassociating(), ++seed);
  }
}

// Without streaming (the default below 8 MiB) and with it: the same bits,
// also into a result that is not vector-aligned (stored plainly).
TEST(DepthwiseKernelTest, StreamedResultHasThePlainBits) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[2,7,21,48] parameter(0)
  w = f32[3,3,1,48] parameter(1)
  b = f32[48] parameter(2)
  c = f32[2,7,21,48] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=48
  bb = f32[2,7,21,48] broadcast(b), dimensions={3}
  a = f32[2,7,21,48] add(c, bb)
  z = f32[2,7,21,48] broadcast(f32[] constant(0)), dimensions={}
  ROOT r = f32[2,7,21,48] maximum(a, z)
})";
  CompileOptions streaming = Reassociating();
  streaming.codegen.streaming_store_min_bytes = 1;
  EXPECT_THAT(KernelPlan(text, Reassociating()), Not(HasSubstr("streaming")));
  EXPECT_THAT(KernelPlan(text, streaming), HasSubstr("store=streaming"));
  const Literal plain = ExpectKernelMatches(text, Reassociating(), 5);
  const Literal streamed = ExpectKernelMatches(text, streaming, 5);
  EXPECT_EQ(plain, streamed);

  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  std::vector<Literal> arguments = MakeSeededArguments(*module, 5);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, streaming));
  std::vector<char> storage(plain.size_bytes() + 128);
  char* base =
      storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64);
  std::vector<const void*> inputs;
  for (const Literal& argument : arguments) {
    inputs.push_back(argument.untyped_data());
  }
  for (int64_t offset : {0, 4, 32}) {
    std::memset(base + offset, 0xff, plain.size_bytes());
    void* results[] = {base + offset};
    ASSERT_OK(executable->RunBuffers(inputs, results));
    EXPECT_EQ(
        std::memcmp(base + offset, plain.untyped_data(), plain.size_bytes()), 0)
        << "result " << offset << " bytes past a line";
  }
}

}  // namespace
}  // namespace mxla
