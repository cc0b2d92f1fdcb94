// Which LLVM pipeline a dot fusion's kernel gets (DotKernelCode): the lean
// one for the vector code the dot kernels write in loops of their own
// shape, the general one (with the unroller) for a product small enough
// to skip packing, whose scalar loops over k need it. Checked on fusions
// as the JIT plans them.
#include <memory>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "codegen/gemm_emitter.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_computation.h"
#include "passes/pass_registry.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::codegen {
namespace {

// The pipeline of the one dot fusion of `text` after the JIT's passes.
KernelCode CodeOfTheDotFusion(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  absl::StatusOr<std::unique_ptr<PassPipeline>> pipeline = CreatePipeline(
      JitPassNames(), {}, PassOptions{.keep_matrix_products = true});
  EXPECT_OK(pipeline.status());
  EXPECT_OK((*pipeline)->Run(**module).status());
  for (const HloInstruction* instruction :
       (*module)->entry_computation()->instructions()) {
    const FusionPlan* plan = instruction->fusion_plan();
    if (plan != nullptr && plan->is_dot()) {
      return DotKernelCode(*instruction->to_apply(),
                           std::get<DotPlan>(plan->config));
    }
  }
  ADD_FAILURE() << "no dot fusion in\n" << (*module)->ToString();
  return KernelCode::kGeneral;
}

std::string Dot(int m, int k, int n) {
  return absl::StrCat(
      "HloModule d\nENTRY e {\n  a = f32[", m, ",", k, "] parameter(0)\n",
      "  b = f32[", k, ",", n, "] parameter(1)\n",
      "  ROOT d = f32[", m, ",", n, "] dot(a, b), lhs_contracting_dims={1}, ",
      "rhs_contracting_dims={0}\n}\n");
}

TEST(DotKernelCodeTest, SmallProductsKeepTheGeneralPipeline) {
  EXPECT_EQ(CodeOfTheDotFusion(Dot(8, 8, 8)), KernelCode::kGeneral);
  EXPECT_EQ(CodeOfTheDotFusion(Dot(16, 16, 16)), KernelCode::kGeneral);
}

TEST(DotKernelCodeTest, PackedProductsRunTheLeanPipeline) {
  EXPECT_EQ(CodeOfTheDotFusion(Dot(64, 64, 128)), KernelCode::kWrittenVectors);
  EXPECT_EQ(CodeOfTheDotFusion(Dot(512, 1024, 256)),
            KernelCode::kWrittenVectors);
}

// A convolution never skips packing (its input is read in place), however
// small; nor does a depthwise one take the small path.
TEST(DotKernelCodeTest, ConvolutionsRunTheLeanPipeline) {
  EXPECT_EQ(CodeOfTheDotFusion(R"(HloModule c
ENTRY e {
  x = f32[1,4,4,2] parameter(0)
  w = f32[3,3,2,2] parameter(1)
  ROOT c = f32[1,4,4,2] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"),
            KernelCode::kWrittenVectors);
  EXPECT_EQ(CodeOfTheDotFusion(R"(HloModule dw
ENTRY e {
  x = f32[1,56,56,64] parameter(0)
  w = f32[3,3,1,64] parameter(1)
  ROOT c = f32[1,56,56,64] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=64
})"),
            KernelCode::kWrittenVectors);
}

}  // namespace
}  // namespace mxla::codegen
