// The host target machine generates code at the requested level (not one
// fixed level), and levels outside 0-3 are rejected.
#include <cstdlib>
#include <memory>
#include <string>

#include "codegen/llvm_pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "tests/testlib/status_matchers.h"

namespace mxla::codegen {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

TEST(LlvmPipelineTest, TargetMachineUsesTheRequestedLevel) {
  const llvm::CodeGenOptLevel expected[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  for (int level = 0; level <= 3; ++level) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<llvm::TargetMachine> machine,
                         CreateHostTargetMachine(level));
    EXPECT_EQ(machine->getOptLevel(), expected[level]) << level;
  }
  for (int level : {-1, 4, 17}) {
    EXPECT_THAT(CreateHostTargetMachine(level).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("optimization_level must be 0 to 3")));
  }
}

// The same IR through the code generator at None and Aggressive: None
// (the fast register allocator) spills values live across blocks to the
// stack; Aggressive keeps them in registers.
TEST(LlvmPipelineTest, CodeGeneratorLevelChangesTheMachineCode) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  llvm::Type* f32 = llvm::Type::getFloatTy(context);
  auto* type = llvm::FunctionType::get(f32, {f32, f32}, false);
  auto* function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, "f", module);
  // s = a + b; return a < b ? s * a : s - b;
  llvm::Value* a = function->getArg(0);
  llvm::Value* b_arg = function->getArg(1);
  auto* entry = llvm::BasicBlock::Create(context, "entry", function);
  auto* then = llvm::BasicBlock::Create(context, "then", function);
  auto* other = llvm::BasicBlock::Create(context, "else", function);
  auto* merge = llvm::BasicBlock::Create(context, "merge", function);
  llvm::IRBuilder<> b(entry);
  llvm::Value* sum = b.CreateFAdd(a, b_arg);
  b.CreateCondBr(b.CreateFCmpOLT(a, b_arg), then, other);
  b.SetInsertPoint(then);
  llvm::Value* product = b.CreateFMul(sum, a);
  b.CreateBr(merge);
  b.SetInsertPoint(other);
  llvm::Value* difference = b.CreateFSub(sum, b_arg);
  b.CreateBr(merge);
  b.SetInsertPoint(merge);
  llvm::PHINode* result = b.CreatePHI(f32, 2);
  result->addIncoming(product, then);
  result->addIncoming(difference, other);
  b.CreateRet(result);
  std::string assembly[2];
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<llvm::TargetMachine> machine,
                         CreateHostTargetMachine(i == 0 ? 0 : 3));
    module.setDataLayout(machine->createDataLayout());
    module.setTargetTriple(machine->getTargetTriple().str());
    ASSERT_OK_AND_ASSIGN(assembly[i], EmitAssembly(module, *machine));
  }
  EXPECT_THAT(assembly[0], HasSubstr("(%rsp)"));
  EXPECT_THAT(assembly[1], ::testing::Not(HasSubstr("(%rsp)")));
}

TEST(LlvmPipelineTest, HostVectorBytesIsARegisterWidth) {
  const int64_t bytes = HostVectorBytes();
  EXPECT_TRUE(bytes == 16 || bytes == 32 || bytes == 64) << bytes;
}

// MXLA_CPU_FEATURES changes the target's features; ctest also runs this
// file with "-avx512f" and with a malformed list (tests/CMakeLists.txt).
TEST(LlvmPipelineTest, CpuFeatureOverridesApplyOrAreRejected) {
  const char* features = std::getenv("MXLA_CPU_FEATURES");
  const std::string overrides = features == nullptr ? "" : features;
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      CreateHostTargetMachine(3);
  if (overrides == "avx512f,+fma") {
    EXPECT_THAT(machine.status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("MXLA_CPU_FEATURES='avx512f,+fma': "
                                   "'avx512f' is not +feature or -feature")));
    return;
  }
  ASSERT_OK(machine.status());
  const std::string target = (*machine)->getTargetFeatureString().str();
  if (overrides == "-avx512f") {
    EXPECT_THAT(target, HasSubstr("-avx512f"));
    EXPECT_LE(HostVectorBytes(), 32);
  }
}

}  // namespace
}  // namespace mxla::codegen
