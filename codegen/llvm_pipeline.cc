#include "codegen/llvm_pipeline.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace mxla::codegen {
namespace {

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

llvm::OptimizationLevel ToLevel(int level) {
  switch (level) {
    case 0:
      return llvm::OptimizationLevel::O0;
    case 1:
      return llvm::OptimizationLevel::O1;
    case 2:
      return llvm::OptimizationLevel::O2;
    default:
      return llvm::OptimizationLevel::O3;
  }
}

}  // namespace

absl::Status ToStatus(llvm::Error error) {
  if (!error) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("LLVM: ", llvm::toString(std::move(error))));
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateHostTargetMachine(
    int optimization_level) {
  InitializeLlvmOnce();
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> builder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return ToStatus(builder.takeError());
  builder->setCodeGenOptLevel(optimization_level >= 3
                                  ? llvm::CodeGenOptLevel::Aggressive
                                  : llvm::CodeGenOptLevel::Default);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      builder->createTargetMachine();
  if (!machine) return ToStatus(machine.takeError());
  return std::move(*machine);
}

absl::Status OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine,
                            int optimization_level) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  const std::string cpu = machine.getTargetCPU().str();
  const std::string features = machine.getTargetFeatureString().str();
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    function.addFnAttr("target-cpu", cpu);
    function.addFnAttr("target-features", features);
  }
  std::string problems;
  llvm::raw_string_ostream problems_stream(problems);
  if (llvm::verifyModule(module, &problems_stream)) {
    return absl::InternalError(
        absl::StrCat("codegen produced invalid LLVM IR: ", problems));
  }
  if (optimization_level <= 0) return absl::OkStatus();

  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopInterleaving = true;
  tuning.LoopUnrolling = true;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder passes(&machine, tuning);
  passes.registerModuleAnalyses(modules);
  passes.registerCGSCCAnalyses(cgscc);
  passes.registerFunctionAnalyses(functions);
  passes.registerLoopAnalyses(loops);
  passes.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline =
      passes.buildPerModuleDefaultPipeline(ToLevel(optimization_level));
  pipeline.run(module, modules);
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitAssembly(const llvm::Module& module,
                                         llvm::TargetMachine& machine) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::SmallString<0> assembly;
  llvm::raw_svector_ostream stream(assembly);
  llvm::legacy::PassManager emit;
  if (machine.addPassesToEmitFile(emit, stream, nullptr,
                                  llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("LLVM: the target cannot emit assembly");
  }
  emit.run(*copy);
  return std::string(assembly.str());
}

std::string ModuleToString(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return text;
}

}  // namespace mxla::codegen
