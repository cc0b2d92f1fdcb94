// A 100,000-instruction chain goes through every stage (builder, verifier,
// printer, parser, passes, fusion, codegen, JIT, run, interpreter) on a
// thread with a 1 MiB stack: any recursion as deep as the graph would
// overflow it. The result is checked against the value computed directly.
#include <pthread.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

constexpr int64_t kDepth = 100000;
constexpr size_t kStackBytes = size_t{1} << 20;

// Runs `body` on a new thread with a `kStackBytes` stack and waits for it.
void RunOnSmallStack(const std::function<void()>& body) {
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, kStackBytes), 0);
  pthread_t thread;
  auto trampoline = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attributes, trampoline,
                           const_cast<std::function<void()>*>(&body)),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
}

// v <- v * 0.5 + x, kDepth / 2 times: converges towards 2x, so every
// element stays finite and the bits are deterministic.
absl::StatusOr<XlaComputation> BuildChain() {
  XlaBuilder b("deep_chain");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {64}), "x");
  XlaOp half = ConstantR0<float>(&b, 0.5f);
  XlaOp v = x;
  for (int64_t i = 0; i < kDepth / 2; ++i) v = Add(Mul(v, half), x);
  return b.Build(v);
}

TEST(DeepGraphTest, HundredThousandInstructionChainRunsOnASmallStack) {
  RunOnSmallStack([] {
    ASSERT_OK_AND_ASSIGN(XlaComputation computation, BuildChain());
    const HloModule& module = computation.module();
    EXPECT_GE(module.entry_computation()->instruction_count(), kDepth);
    ASSERT_OK(VerifyModule(module, VerifierMode::kBuilder));
    std::string text = module.ToString();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> parsed, ParseHloModule(text));
    EXPECT_EQ(parsed->ToString(), text);

    Literal x(ShapeUtil::MakeShape(F32, {64}));
    for (int64_t i = 0; i < 64; ++i) x.data<float>()[i] = 0.25f * i - 8;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(module));
    ASSERT_OK_AND_ASSIGN(Literal jit, executable->Run({&x}));
    ASSERT_OK_AND_ASSIGN(Literal interpreted, EvaluateModule(module, {&x}));
    EXPECT_EQ(jit, interpreted);
    for (int64_t i = 0; i < 64; ++i) {
      float expected = x.data<float>()[i];
      float value = expected;
      for (int64_t step = 0; step < kDepth / 2; ++step) {
        value = value * 0.5f + expected;
      }
      ASSERT_EQ(jit.data<float>()[i], value) << i;
    }
  });
}

}  // namespace
}  // namespace mxla
