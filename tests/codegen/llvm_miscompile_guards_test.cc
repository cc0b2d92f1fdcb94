// The optimization pipeline (OptimizeModule) steers clear of the LLVM 19
// miscompiles llvm_miscompile_guards.h lists: IR that the unguarded
// pipeline compiles to wrong results runs right.
#include <cstdint>
#include <memory>

#include "codegen/llvm_pipeline.h"
#include "gtest/gtest.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::codegen {
namespace {

// mxla's small-product kernel for out = s @ s - iota(rows) with s = x +
// convert(y), 2x2, as the differential fuzzer found it (16-lane vectors),
// reduced by llvm-reduce. The lhs element splatted and the rhs row are the
// same loads; after SLP vectorization VectorCombine's identity fold took the
// splat of s[1][0] for the row s[1] and computed out[1][1] wrong.
constexpr char kSquareKernel[] = R"(
define void @square.body(ptr noalias nocapture %0, ptr noalias nocapture %1, ptr noalias nocapture %2, i64 %3, i64 %4) #0 {
entry:
  br label %row.header

row.header:
  %row = phi i64 [ %44, %k.exit ], [ 0, %entry ]
  %6 = icmp ult i64 %row, 2
  br i1 %6, label %k.header, label %row.exit

row.exit:
  ret void

k.header:
  %acc = phi <16 x float> [ %33, %k.body ], [ zeroinitializer, %row.header ]
  %k = phi i64 [ %34, %k.body ], [ 0, %row.header ]
  %8 = icmp ult i64 %k, 2
  br i1 %8, label %k.body, label %k.exit

k.body:
  %9 = shl nuw nsw i64 %row, 1
  %10 = or disjoint i64 %k, %9
  %11 = getelementptr inbounds float, ptr %1, i64 %10
  %12 = load float, ptr %11, align 4
  %13 = getelementptr inbounds i16, ptr %0, i64 %10
  %14 = load i16, ptr %13, align 2
  %15 = sitofp i16 %14 to float
  %16 = fadd float %12, %15
  %.splatinsert = insertelement <16 x float> zeroinitializer, float %16, i64 0
  %.splat = shufflevector <16 x float> %.splatinsert, <16 x float> zeroinitializer, <16 x i32> zeroinitializer
  %.idx3 = shl nuw nsw i64 %k, 3
  %17 = getelementptr inbounds i8, ptr %1, i64 %.idx3
  %18 = load float, ptr %17, align 4
  %.idx4 = shl nuw nsw i64 %k, 2
  %19 = getelementptr inbounds i8, ptr %0, i64 %.idx4
  %20 = load i16, ptr %19, align 2
  %21 = sitofp i16 %20 to float
  %22 = fadd float %18, %21
  %23 = insertelement <16 x float> zeroinitializer, float %22, i64 0
  %24 = shl nuw nsw i64 %k, 1
  %25 = or disjoint i64 %24, 1
  %26 = getelementptr inbounds float, ptr %1, i64 %25
  %27 = load float, ptr %26, align 4
  %28 = getelementptr inbounds i16, ptr %0, i64 %25
  %29 = load i16, ptr %28, align 2
  %30 = sitofp i16 %29 to float
  %31 = fadd float %27, %30
  %32 = insertelement <16 x float> %23, float %31, i64 1
  %33 = call <16 x float> @llvm.fmuladd.v16f32(<16 x float> %.splat, <16 x float> %32, <16 x float> %acc)
  %34 = add nuw nsw i64 %k, 1
  br label %k.header

k.exit:
  %35 = extractelement <16 x float> %acc, i64 0
  %36 = uitofp nneg i64 %row to float
  %37 = fsub float %35, %36
  %.idx = shl nuw nsw i64 %row, 3
  %38 = getelementptr inbounds i8, ptr %2, i64 %.idx
  store float %37, ptr %38, align 4
  %39 = extractelement <16 x float> %acc, i64 1
  %40 = shl nuw nsw i64 %row, 1
  %41 = or disjoint i64 %40, 1
  %42 = fsub float %39, %36
  %43 = getelementptr inbounds float, ptr %2, i64 %41
  store float %42, ptr %43, align 4
  %44 = add nuw nsw i64 %row, 1
  br label %row.header
}

declare <16 x float> @llvm.fmuladd.v16f32(<16 x float>, <16 x float>, <16 x float>) #1

define void @square(ptr %0, i64 %1, i64 %2) #2 {
entry:
  %3 = load ptr, ptr %0, align 8
  %4 = getelementptr inbounds i8, ptr %0, i64 8
  %5 = load ptr, ptr %4, align 8
  %6 = getelementptr inbounds i8, ptr %0, i64 16
  %7 = load ptr, ptr %6, align 8
  call void @square.body(ptr %3, ptr %5, ptr %7, i64 0, i64 1)
  ret void
}

attributes #0 = { alwaysinline nounwind }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind }
)";

TEST(LlvmMiscompileGuardsTest, SplatAndRowOfOneValueStayApart) {
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(kSquareKernel, error, *context);
  ASSERT_NE(module, nullptr) << error.getMessage().str();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<llvm::TargetMachine> machine,
                       CreateHostTargetMachine(3));
  ASSERT_OK(OptimizeModule(*module, *machine, 3));
  auto jit = llvm::orc::LLJITBuilder().create();
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  llvm::cantFail((*jit)->addIRModule(
      llvm::orc::ThreadSafeModule(std::move(module), std::move(context))));
  using Kernel = void (*)(void**, int64_t, int64_t);
  auto square = llvm::cantFail((*jit)->lookup("square")).toPtr<Kernel>();

  int16_t y[4] = {-3, 4, 2, 5};
  float x[4] = {1.0f, 0.5f, 0.9f, -1.9f};
  float out[4] = {};
  void* buffers[3] = {y, x, out};
  square(buffers, 0, 1);
  float s[4];
  for (int i = 0; i < 4; ++i) s[i] = x[i] + static_cast<float>(y[i]);
  for (int row = 0; row < 2; ++row) {
    for (int column = 0; column < 2; ++column) {
      const float expected = s[2 * row] * s[column] +
                             s[2 * row + 1] * s[2 + column] -
                             static_cast<float>(row);
      EXPECT_NEAR(out[2 * row + column], expected, 1e-5)
          << "out[" << row << "][" << column << "]";
    }
  }
}

}  // namespace
}  // namespace mxla::codegen
