#include "codegen/aot_module.h"

#include "absl/strings/str_cat.h"
#include "codegen/aot_driver.h"
#include "codegen/kernel_emitter.h"
#include "codegen/kernel_groups.h"
#include "codegen/llvm_pipeline.h"
#include "ir/status_macros.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace mxla {

struct AotModule::Llvm {
  // Declared before the module, so destroyed after it.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
  CodegenOptions options;
  int optimization_level = 3;
  bool finished = false;
};

AotModule::AotModule(std::unique_ptr<Llvm> llvm) : llvm_(std::move(llvm)) {}
AotModule::~AotModule() = default;

absl::StatusOr<std::unique_ptr<AotModule>> AotModule::Create(
    const std::string& name, const CodegenOptions& options,
    const AotTarget& target) {
  auto llvm = std::make_unique<Llvm>();
  llvm->optimization_level = options.optimization_level;
  llvm->options = options;
  ASSIGN_OR_RETURN(llvm->machine,
                   codegen::CreateAotTargetMachine(
                       target.cpu, target.features, options.optimization_level));
  llvm->context = std::make_unique<llvm::LLVMContext>();
  llvm->module = std::make_unique<llvm::Module>(name, *llvm->context);
  return std::unique_ptr<AotModule>(new AotModule(std::move(llvm)));
}

absl::StatusOr<std::vector<KernelInfo>> AotModule::AddKernels(
    const HloModule& fused, const std::string& prefix) {
  RET_CHECK(!llvm_->finished, "AotModule::AddKernels after Finish");
  ASSIGN_OR_RETURN(codegen::KernelGroups groups, codegen::GroupKernels(fused));
  std::vector<KernelInfo> infos;
  for (const HloInstruction* fusion : groups.first_fusion) {
    ASSIGN_OR_RETURN(KernelInfo info,
                     codegen::EmitFusionKernel(
                         *fusion, absl::StrCat(prefix, fusion->name()),
                         llvm_->options, *llvm_->module));
    infos.push_back(std::move(info));
  }
  std::vector<KernelInfo> kernels;
  for (size_t f = 0; f < groups.fusions.size(); ++f) {
    KernelInfo info = infos[groups.kernel_of_fusion[f]];
    info.fusion_name = groups.fusions[f]->name();
    kernels.push_back(std::move(info));
  }
  return kernels;
}

std::string AotModule::TargetDescription() const {
  const llvm::TargetMachine& machine = *llvm_->machine;
  return absl::StrCat(machine.getTargetTriple().str(), ", cpu ",
                      machine.getTargetCPU().str());
}

absl::StatusOr<std::string> AotModule::Finish(const AotProgram& program) {
  RET_CHECK(!llvm_->finished, "AotModule::Finish runs once");
  llvm_->finished = true;
  llvm::Module& module = *llvm_->module;
  // Only the driver is visible: several objects link into one program.
  for (llvm::Function& function : module) {
    if (!function.isDeclaration()) {
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  RETURN_IF_ERROR(codegen::EmitAotDriver(module, program));
  RETURN_IF_ERROR(codegen::OptimizeModule(module, *llvm_->machine,
                                          llvm_->optimization_level));
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::MemoryBuffer> object,
                   codegen::EmitObject(module, *llvm_->machine));
  return object->getBuffer().str();
}

}  // namespace mxla
