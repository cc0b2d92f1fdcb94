// The JIT's f32 exp, log, tanh and logistic run in vectorized loops; they
// must still give the evaluator's bits (semantics/float32_math.h is the shared
// definition). Checked on a fixed sample of every f32 bit pattern, NaN
// payloads included, through full vector iterations and the scalar tail.
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

class JitFloat32MathTest : public ::testing::TestWithParam<std::string> {};

TEST_P(JitFloat32MathTest, MatchesTheEvaluatorBitForBit) {
  // 2^20 + 3 patterns: odd stride over all 2^32, and a length that leaves a
  // scalar tail after the vector loop.
  constexpr int64_t kCount = (int64_t{1} << 20) + 3;
  std::vector<float> values(kCount);
  for (int64_t i = 0; i < kCount; ++i) {
    values[i] = std::bit_cast<float>(static_cast<uint32_t>(i * 4093));
  }
  Literal input = LiteralUtil::CreateR1<float>(values);
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY main {\n  p = f32[", kCount, "] parameter(0)\n",
      "  ROOT r = f32[", kCount, "] ", GetParam(), "(p)\n}\n");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*module, {&input}));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                       Compile(*module));
  ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run({&input}));
  const float* want = expected.data<float>().data();
  const float* got = actual.data<float>().data();
  int64_t mismatches = 0;
  for (int64_t i = 0; i < kCount; ++i) {
    if (std::bit_cast<uint32_t>(want[i]) != std::bit_cast<uint32_t>(got[i])) {
      if (++mismatches <= 5) {
        ADD_FAILURE() << GetParam() << "(" << values[i] << "): jit " << got[i]
                      << ", evaluator " << want[i];
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, JitFloat32MathTest,
                         ::testing::Values("exponential", "log", "tanh",
                                           "logistic"));

}  // namespace
}  // namespace mxla
