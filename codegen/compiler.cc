#include "codegen/compiler.h"

#include <atomic>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_emitter.h"
#include "codegen/llvm_pipeline.h"
#include "ir/status_macros.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"

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

namespace {

// The IR pipeline on `emitted`, recording the IR before and after it into
// `dump` when given.
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> Optimize(
    EmittedModule& emitted, const CodegenOptions& options, CodegenDump* dump) {
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                   codegen::CreateHostTargetMachine(options.optimization_level));
  if (dump != nullptr) dump->llvm = codegen::ModuleToString(*emitted.module);
  RETURN_IF_ERROR(codegen::OptimizeModule(*emitted.module, *machine,
                                          options.optimization_level));
  if (dump != nullptr) {
    dump->llvm_optimized = codegen::ModuleToString(*emitted.module);
  }
  return machine;
}

}  // namespace

absl::StatusOr<std::unique_ptr<JitKernels>> JitKernels::Compile(
    const HloModule& fused_module, const CodegenOptions& options,
    CodegenDump* dump) {
  RETURN_IF_ERROR(codegen::CheckOptimizationLevel(options.optimization_level));
  std::unique_ptr<JitKernels> result(new JitKernels());
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(EmittedModule emitted, EmitModule(fused_module, options));
  result->times_.emit = SecondsSince(start);

  start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                   Optimize(emitted, options, dump));
  result->times_.optimize = SecondsSince(start);

  // Machine code from this compile's own target machine, so the code
  // generator runs at options.optimization_level; the shared JIT links it.
  start = std::chrono::steady_clock::now();
  if (dump != nullptr) {
    ASSIGN_OR_RETURN(dump->assembly,
                     codegen::EmitAssembly(*emitted.module, *machine));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::MemoryBuffer> object,
                   codegen::EmitObject(*emitted.module, *machine));
  ASSIGN_OR_RETURN(SharedJit * shared, SharedJit::Get());
  llvm::orc::LLJIT& lljit = shared->lljit();
  llvm::Expected<llvm::orc::JITDylib&> dylib =
      lljit.getExecutionSession().createJITDylib(shared->NextDylibName());
  if (!dylib) return codegen::ToStatus(dylib.takeError());
  result->jit_ = std::make_unique<Jit>();
  result->jit_->shared = shared;
  result->jit_->dylib = &*dylib;
  dylib->addToLinkOrder(shared->process_symbols());
  RETURN_IF_ERROR(
      codegen::ToStatus(lljit.addObjectFile(*dylib, std::move(object))));
  for (const KernelInfo& kernel : emitted.kernels) {
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
  result->times_.jit = SecondsSince(start);
  result->kernels_ = std::move(emitted.kernels);
  return result;
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
  RETURN_IF_ERROR(codegen::CheckOptimizationLevel(options.optimization_level));
  ASSIGN_OR_RETURN(EmittedModule emitted, EmitModule(fused_module, options));
  if (stage == IrStage::kLlvm) {
    return codegen::ModuleToString(*emitted.module);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                   Optimize(emitted, options, nullptr));
  if (stage == IrStage::kLlvmOptimized) {
    return codegen::ModuleToString(*emitted.module);
  }
  return codegen::EmitAssembly(*emitted.module, *machine);
}

absl::StatusOr<CodegenDump> EmitCodegenStages(const HloModule& fused_module,
                                              const CodegenOptions& options) {
  RETURN_IF_ERROR(codegen::CheckOptimizationLevel(options.optimization_level));
  ASSIGN_OR_RETURN(EmittedModule emitted, EmitModule(fused_module, options));
  CodegenDump dump;
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                   Optimize(emitted, options, &dump));
  ASSIGN_OR_RETURN(dump.assembly,
                   codegen::EmitAssembly(*emitted.module, *machine));
  return dump;
}

int64_t OptimizationPipelineRuns() { return codegen::OptimizeModuleRuns(); }

}  // namespace mxla
