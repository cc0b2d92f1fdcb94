#include "codegen/compiler.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_emitter.h"
#include "codegen/llvm_pipeline.h"
#include "ir/status_macros.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"

namespace mxla {
namespace {

// Emits one kernel per entry fusion into `module`.
absl::StatusOr<std::vector<KernelInfo>> EmitKernels(
    const HloModule& fused, const CodegenOptions& options,
    llvm::Module& module) {
  std::vector<KernelInfo> kernels;
  const HloComputation* entry = fused.entry_computation();
  RET_CHECK(entry != nullptr);
  for (const HloInstruction* instruction : entry->MakeInstructionPostOrder()) {
    switch (instruction->opcode()) {
      case HloOpcode::kFusion: {
        ASSIGN_OR_RETURN(
            KernelInfo info,
            codegen::EmitFusionKernel(*instruction,
                                      absl::StrCat("mxla.", instruction->name()),
                                      options, module));
        kernels.push_back(std::move(info));
        break;
      }
      default:
        if (IsCodelessEntryOp(instruction->opcode())) break;
        if (IsSubprogramOp(instruction->opcode())) break;  // runtime steps
        return absl::FailedPreconditionError(absl::StrCat(
            "codegen needs a fused module (run the fusion pass): '",
            instruction->name(), "' (", HloOpcodeString(instruction->opcode()),
            ") is outside any fusion"));
    }
  }
  return kernels;
}

// One LLJIT for the process, created on first use: building a JIT (target
// detection, execution session, linking layer) costs milliseconds, which a
// per-executable JIT would pay on every compile. Each JitKernels gets its own
// JITDylib, removed again with it. Compiles may run concurrently: every
// compile gets its own target machine.
class SharedJit {
 public:
  static absl::StatusOr<SharedJit*> Get() {
    static absl::StatusOr<SharedJit*>* jit = [] {
      auto* result = new absl::StatusOr<SharedJit*>(Create());
      return result;
    }();
    return *jit;
  }

  llvm::orc::LLJIT& lljit() { return *lljit_; }
  llvm::orc::JITDylib& process_symbols() { return *process_symbols_; }

  std::string NextDylibName() {
    return absl::StrCat("mxla.", next_dylib_.fetch_add(1));
  }

 private:
  static absl::StatusOr<SharedJit*> Create() {
    // The LLJIT only links: every compile makes its object file with its
    // own target machine at its own level (JitKernels::Compile).
    codegen::InitializeLlvm();
    llvm::Expected<llvm::orc::JITTargetMachineBuilder> target =
        llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!target) return codegen::ToStatus(target.takeError());
    llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> lljit =
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(*target)
            .setSupportConcurrentCompilation(true)
            .create();
    if (!lljit) return codegen::ToStatus(lljit.takeError());
    auto* jit = new SharedJit();
    jit->lljit_ = std::move(*lljit);
    // Kernels call libm (f64 exp, fmod, pow, ...): resolve from this
    // process, through a dylib every kernel dylib links against.
    llvm::Expected<llvm::orc::JITDylib&> symbols =
        jit->lljit_->createJITDylib("mxla.process");
    if (!symbols) return codegen::ToStatus(symbols.takeError());
    auto generator =
        llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            jit->lljit_->getDataLayout().getGlobalPrefix());
    if (!generator) return codegen::ToStatus(generator.takeError());
    symbols->addGenerator(std::move(*generator));
    jit->process_symbols_ = &*symbols;
    return jit;
  }

  std::unique_ptr<llvm::orc::LLJIT> lljit_;
  llvm::orc::JITDylib* process_symbols_ = nullptr;
  std::atomic<int64_t> next_dylib_{0};
};

}  // namespace

struct JitKernels::Jit {
  SharedJit* shared = nullptr;
  llvm::orc::JITDylib* dylib = nullptr;
};

JitKernels::~JitKernels() {
  if (jit_ != nullptr && jit_->dylib != nullptr) {
    // Frees the kernels' code; an error here has nobody to report to.
    llvm::consumeError(
        jit_->shared->lljit().getExecutionSession().removeJITDylib(
            *jit_->dylib));
  }
}

struct KernelIr::Llvm {
  // Declared before the module, so destroyed after it.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::vector<KernelInfo> kernels;
  int optimization_level = 3;
  bool optimized = false;
};

KernelIr::KernelIr(std::unique_ptr<Llvm> llvm) : llvm_(std::move(llvm)) {}
KernelIr::~KernelIr() = default;

absl::StatusOr<std::unique_ptr<KernelIr>> KernelIr::Emit(
    const HloModule& fused_module, const CodegenOptions& options) {
  RETURN_IF_ERROR(codegen::CheckOptimizationLevel(options.optimization_level));
  auto llvm = std::make_unique<Llvm>();
  llvm->optimization_level = options.optimization_level;
  llvm->context = std::make_unique<llvm::LLVMContext>();
  llvm->module =
      std::make_unique<llvm::Module>(fused_module.name(), *llvm->context);
  ASSIGN_OR_RETURN(llvm->kernels,
                   EmitKernels(fused_module, options, *llvm->module));
  // The machine code generator runs at the IR pipeline's level.
  ASSIGN_OR_RETURN(llvm->machine, codegen::CreateHostTargetMachine(
                                      options.optimization_level));
  return std::unique_ptr<KernelIr>(new KernelIr(std::move(llvm)));
}

absl::Status KernelIr::Optimize() {
  RET_CHECK(!llvm_->optimized, "the kernels' IR is optimized already");
  llvm_->optimized = true;
  return codegen::OptimizeModule(*llvm_->module, *llvm_->machine,
                                 llvm_->optimization_level);
}

std::string KernelIr::Text() const {
  return codegen::ModuleToString(*llvm_->module);
}

absl::StatusOr<std::string> KernelIr::Assembly() const {
  return codegen::EmitAssembly(*llvm_->module, *llvm_->machine);
}

const std::vector<KernelInfo>& KernelIr::kernels() const {
  return llvm_->kernels;
}

absl::StatusOr<std::unique_ptr<JitKernels>> JitKernels::Link(
    std::unique_ptr<KernelIr> ir) {
  KernelIr::Llvm& llvm = *ir->llvm_;
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::MemoryBuffer> object,
                   codegen::EmitObject(*llvm.module, *llvm.machine));
  ASSIGN_OR_RETURN(SharedJit * shared, SharedJit::Get());
  llvm::orc::LLJIT& lljit = shared->lljit();
  llvm::Expected<llvm::orc::JITDylib&> dylib =
      lljit.getExecutionSession().createJITDylib(shared->NextDylibName());
  if (!dylib) return codegen::ToStatus(dylib.takeError());
  std::unique_ptr<JitKernels> result(new JitKernels());
  result->jit_ = std::make_unique<Jit>();
  result->jit_->shared = shared;
  result->jit_->dylib = &*dylib;
  dylib->addToLinkOrder(shared->process_symbols());
  RETURN_IF_ERROR(
      codegen::ToStatus(lljit.addObjectFile(*dylib, std::move(object))));
  for (const KernelInfo& kernel : llvm.kernels) {
    llvm::Expected<llvm::orc::ExecutorAddr> address =
        lljit.lookup(*dylib, kernel.symbol);
    if (!address) return codegen::ToStatus(address.takeError());
    result->functions_[kernel.fusion_name] = address->toPtr<KernelFunction>();
    if (kernel.combine_symbol.empty()) continue;
    llvm::Expected<llvm::orc::ExecutorAddr> combine =
        lljit.lookup(*dylib, kernel.combine_symbol);
    if (!combine) return codegen::ToStatus(combine.takeError());
    result->combines_[kernel.fusion_name] = combine->toPtr<KernelFunction>();
  }
  result->kernels_ = std::move(llvm.kernels);
  return result;
}

absl::StatusOr<std::unique_ptr<JitKernels>> JitKernels::Compile(
    const HloModule& fused_module, const CodegenOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<KernelIr> ir,
                   KernelIr::Emit(fused_module, options));
  RETURN_IF_ERROR(ir->Optimize());
  return Link(std::move(ir));
}

KernelFunction JitKernels::Lookup(const std::string& fusion_name) const {
  auto it = functions_.find(fusion_name);
  return it == functions_.end() ? nullptr : it->second;
}

KernelFunction JitKernels::LookupCombine(const std::string& fusion_name) const {
  auto it = combines_.find(fusion_name);
  return it == combines_.end() ? nullptr : it->second;
}

absl::StatusOr<std::string> EmitIr(const HloModule& fused_module,
                                   const CodegenOptions& options,
                                   IrStage stage) {
  ASSIGN_OR_RETURN(std::unique_ptr<KernelIr> ir,
                   KernelIr::Emit(fused_module, options));
  if (stage == IrStage::kLlvm) return ir->Text();
  RETURN_IF_ERROR(ir->Optimize());
  if (stage == IrStage::kLlvmOptimized) return ir->Text();
  return ir->Assembly();
}

int64_t OptimizationPipelineRuns() { return codegen::OptimizeModuleRuns(); }

}  // namespace mxla
