#include "codegen/compiler.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_emitter.h"
#include "codegen/llvm_pipeline.h"
#include "ir/status_macros.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"

namespace mxla {
namespace {

struct EmittedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::vector<KernelInfo> kernels;
};

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

absl::StatusOr<EmittedModule> EmitModule(const HloModule& fused,
                                         const CodegenOptions& options) {
  EmittedModule emitted;
  emitted.context = std::make_unique<llvm::LLVMContext>();
  emitted.module =
      std::make_unique<llvm::Module>(fused.name(), *emitted.context);
  const HloComputation* entry = fused.entry_computation();
  RET_CHECK(entry != nullptr);
  for (const HloInstruction* instruction : entry->MakeInstructionPostOrder()) {
    switch (instruction->opcode()) {
      case HloOpcode::kFusion: {
        ASSIGN_OR_RETURN(
            KernelInfo info,
            codegen::EmitFusionKernel(*instruction,
                                      absl::StrCat("mxla.", instruction->name()),
                                      options, *emitted.module));
        emitted.kernels.push_back(std::move(info));
        break;
      }
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
        break;
      default:
        return absl::FailedPreconditionError(absl::StrCat(
            "codegen needs a fused module (run the fusion pass): '",
            instruction->name(), "' (", HloOpcodeString(instruction->opcode()),
            ") is outside any fusion"));
    }
  }
  return emitted;
}

}  // namespace

struct JitKernels::Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
};

JitKernels::~JitKernels() = default;

absl::StatusOr<std::unique_ptr<JitKernels>> JitKernels::Compile(
    const HloModule& fused_module, const CodegenOptions& options) {
  std::unique_ptr<JitKernels> result(new JitKernels());
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(EmittedModule emitted, EmitModule(fused_module, options));
  result->times_.emit = SecondsSince(start);

  start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                   codegen::CreateHostTargetMachine(options.optimization_level));
  RETURN_IF_ERROR(codegen::OptimizeModule(*emitted.module, *machine,
                                          options.optimization_level));
  result->times_.optimize = SecondsSince(start);

  start = std::chrono::steady_clock::now();
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> target =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!target) return codegen::ToStatus(target.takeError());
  target->setCodeGenOptLevel(machine->getOptLevel());
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> lljit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*target).create();
  if (!lljit) return codegen::ToStatus(lljit.takeError());
  // Kernels call libm (expf, tanhf, ...): resolve from this process.
  auto process_symbols =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*lljit)->getDataLayout().getGlobalPrefix());
  if (!process_symbols) return codegen::ToStatus(process_symbols.takeError());
  (*lljit)->getMainJITDylib().addGenerator(std::move(*process_symbols));
  RETURN_IF_ERROR(codegen::ToStatus((*lljit)->addIRModule(
      llvm::orc::ThreadSafeModule(std::move(emitted.module),
                                  std::move(emitted.context)))));
  for (const KernelInfo& kernel : emitted.kernels) {
    llvm::Expected<llvm::orc::ExecutorAddr> address =
        (*lljit)->lookup(kernel.symbol);
    if (!address) return codegen::ToStatus(address.takeError());
    result->functions_[kernel.fusion_name] = address->toPtr<KernelFunction>();
  }
  result->times_.jit = SecondsSince(start);
  result->jit_ = std::make_unique<Jit>();
  result->jit_->lljit = std::move(*lljit);
  result->kernels_ = std::move(emitted.kernels);
  return result;
}

KernelFunction JitKernels::Lookup(const std::string& fusion_name) const {
  auto it = functions_.find(fusion_name);
  return it == functions_.end() ? nullptr : it->second;
}

absl::StatusOr<std::string> EmitIr(const HloModule& fused_module,
                                   const CodegenOptions& options,
                                   IrStage stage) {
  ASSIGN_OR_RETURN(EmittedModule emitted, EmitModule(fused_module, options));
  if (stage == IrStage::kLlvm) {
    return codegen::ModuleToString(*emitted.module);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                   codegen::CreateHostTargetMachine(options.optimization_level));
  RETURN_IF_ERROR(codegen::OptimizeModule(*emitted.module, *machine,
                                          options.optimization_level));
  if (stage == IrStage::kLlvmOptimized) {
    return codegen::ModuleToString(*emitted.module);
  }
  return codegen::EmitAssembly(*emitted.module, *machine);
}

}  // namespace mxla
