// Streaming (non-temporal) result stores (codegen/streaming_store_emitter.h):
// forced on with a 1-byte threshold, they must give the evaluator's bits for
// every element type they apply to, odd shapes, outputs whose start is not
// vector-aligned, and ranges split across threads at unaligned positions;
// the assembly must contain the streaming stores.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "codegen/compiler.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::ParseAndVerifyModule;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAndCompareOptions;

// x * 3 - y over TYPE[DIMS] (integers wrap).
std::string MulSub(absl::string_view type, absl::string_view dims) {
  return absl::StrReplaceAll(R"(HloModule mul_sub
ENTRY main {
  x = $T[$D] parameter(0)
  y = $T[$D] parameter(1)
  three = $T[] constant(3)
  b = $T[$D] broadcast(three), dimensions={}
  m = $T[$D] multiply(x, b)
  ROOT r = $T[$D] subtract(m, y)
})",
                             {{"$T", type}, {"$D", dims}});
}

std::vector<Literal> Arguments(const HloModule& module) {
  std::vector<Literal> arguments;
  int salt = 0;
  for (const HloInstruction* parameter :
       module.entry_computation()->parameter_instructions()) {
    Literal literal(parameter->shape());
    ++salt;
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      const int64_t v = (i * 7919 + salt * 104729) % 2001 - 1000;
      switch (parameter->shape().element_type()) {
        case F32: literal.data<float>()[i] = 0.01f * v; break;
        case F64: literal.data<double>()[i] = 0.01 * v; break;
        case S32: literal.data<int32_t>()[i] = int32_t(v * 1000003); break;
        case S64: literal.data<int64_t>()[i] = v * 1000000007; break;
        default: break;
      }
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

CompileOptions StreamEverything() {
  CompileOptions options;
  options.codegen.streaming_store_min_bytes = 1;
  return options;
}

void ExpectSameAsEvaluator(const std::string& text) {
  SCOPED_TRACE(text);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseAndVerifyModule(text));
  std::vector<Literal> arguments = Arguments(*module);
  RunAndCompareOptions options;
  options.compile = StreamEverything();
  EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments), options));
}

TEST(JitStreamingStoreTest, EveryTypeAndOddShapes) {
  for (const char* type : {"f32", "f64", "s32", "s64"}) {
    for (const char* dims : {"1", "7", "513", "3,5,17", "2,1025", "1031"}) {
      ExpectSameAsEvaluator(MulSub(type, dims));
    }
  }
}

TEST(JitStreamingStoreTest, SplitAcrossThreadsAtUnalignedPositions) {
  // 1000 x 1001 f32: 12 MB of traffic, split into chunks whose boundaries
  // fall mid-row and off the vector alignment.
  ExpectSameAsEvaluator(MulSub("f32", "1000,1001"));
  ExpectSameAsEvaluator(MulSub("f32", "1000037"));
}

TEST(JitStreamingStoreTest, UnalignedCallerBuffers) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(MulSub("f32", "4099")));
  std::vector<Literal> arguments = Arguments(*module);
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module, StreamEverything()));
  const int64_t bytes = expected.size_bytes();
  for (int64_t offset : {4, 12, 28}) {
    std::vector<uint8_t> storage(bytes + 64, 0);
    void* out = storage.data() + offset;
    const void* inputs[] = {arguments[0].untyped_data(),
                            arguments[1].untyped_data()};
    void* results[] = {out};
    ASSERT_OK(executable->RunBuffers(inputs, results));
    EXPECT_EQ(std::memcmp(out, expected.untyped_data(), bytes), 0) << offset;
  }
}

// With the default 8 MiB threshold: rows shorter than the 512-element block
// (256, and odd lengths that leave every row start off the vector
// alignment) stream, and give the evaluator's bits.
TEST(JitStreamingStoreTest, LargeResultsWithShortRowsStreamByDefault) {
  for (const char* dims : {"65536,256", "8191,257", "699051,3", "2097153,1"}) {
    SCOPED_TRACE(dims);
    const std::string text = MulSub("f32", dims);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    std::vector<Literal> arguments = Arguments(*module);
    EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments)));
    CompileOptions defaults;
    ASSERT_OK_AND_ASSIGN(std::string assembly,
                         EmitIr(*OptimizeForBackend(*module, defaults).value(),
                                defaults.codegen, IrStage::kAssembly));
    EXPECT_NE(assembly.find("movnt"), std::string::npos);
  }
}

TEST(JitStreamingStoreTest, OnlyLargeResultsStreamByDefault) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> small,
                       ParseHloModule(MulSub("f32", "1024")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> large,
                       ParseHloModule(MulSub("f32", "4096,1024")));
  CompileOptions defaults;
  ASSERT_OK_AND_ASSIGN(std::string small_asm,
                       EmitIr(*OptimizeForBackend(*small, defaults).value(),
                              defaults.codegen, IrStage::kAssembly));
  ASSERT_OK_AND_ASSIGN(std::string large_asm,
                       EmitIr(*OptimizeForBackend(*large, defaults).value(),
                              defaults.codegen, IrStage::kAssembly));
  EXPECT_EQ(small_asm.find("movnt"), std::string::npos);
  EXPECT_NE(large_asm.find("movnt"), std::string::npos);
}

}  // namespace
}  // namespace mxla
