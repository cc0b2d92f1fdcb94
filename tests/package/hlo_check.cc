// The `core`-only consumer's program (docs/cpp.md's second CMake block builds
// it): parses, verifies and interprets an HLO module with mxla::hlo_text,
// mxla::hlo_verifier and mxla::interpreter (and the ir, shape_inference and
// semantics under them) alone, so it links without LLVM.
// Exits non-zero on any error or a wrong result.
#include <iostream>
#include <memory>

#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/literal.h"

int main() {
  constexpr char kHlo[] = R"(
HloModule bias_relu
ENTRY main {
  x = f32[2,3] parameter(0)
  b = f32[3] parameter(1)
  bb = f32[2,3] broadcast(b), dimensions={1}
  sum = f32[2,3] add(x, bb)
  zero = f32[] constant(0)
  zeros = f32[2,3] broadcast(zero), dimensions={}
  ROOT relu = f32[2,3] maximum(sum, zeros)
})";
  auto module = mxla::ParseHloModule(kHlo);
  if (!module.ok()) {
    std::cerr << module.status() << "\n";
    return 1;
  }
  if (auto status = mxla::VerifyModule(**module, mxla::VerifierMode::kLowered);
      !status.ok()) {
    std::cerr << status << "\n";
    return 1;
  }
  mxla::Literal x = mxla::LiteralUtil::CreateR2<float>({{1, -2, 3}, {-4, 5, -6}});
  mxla::Literal b = mxla::LiteralUtil::CreateR1<float>({0.5f, 1, -1});
  const mxla::Literal* arguments[] = {&x, &b};
  auto result = mxla::EvaluateModule(**module, arguments);
  if (!result.ok()) {
    std::cerr << result.status() << "\n";
    return 1;
  }
  const mxla::Literal expected =
      mxla::LiteralUtil::CreateR2<float>({{1.5f, 0, 2}, {0, 6, 0}});
  if (result->ToString() != expected.ToString()) {
    std::cerr << "got " << result->ToString() << ", expected "
              << expected.ToString() << "\n";
    return 1;
  }
  std::cout << result->ToString() << "\n";
  return 0;
}
