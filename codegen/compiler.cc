#include "codegen/compiler.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "codegen/gemm_emitter.h"
#include "codegen/kernel_emitter.h"
#include "codegen/kernel_groups.h"
#include "codegen/llvm_pipeline.h"
#include "ir/status_macros.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"

namespace mxla {
namespace {

// Runs `job(i)` for i in [0, count) on `tasks`; the first error in index
// order, so that failures do not depend on scheduling.
absl::Status RunJobs(const ParallelTasks& tasks, int64_t count,
                     const std::function<absl::Status(int64_t)>& job) {
  std::vector<absl::Status> statuses(count);
  tasks(count, [&](int64_t i) { statuses[i] = job(i); });
  for (absl::Status& status : statuses) RETURN_IF_ERROR(status);
  return absl::OkStatus();
}

// The units' indices, largest module (in LLVM instructions) first: the
// parallel stages take their jobs in this order, so that the last jobs to
// start are small ones and no thread waits long on a big kernel begun
// late (longest processing time first). Ties keep index order.
template <typename Unit>
std::vector<int64_t> LargestFirst(const std::vector<Unit>& units) {
  std::vector<int64_t> order(units.size());
  std::vector<int64_t> sizes(units.size());
  for (size_t i = 0; i < units.size(); ++i) {
    order[i] = static_cast<int64_t>(i);
    sizes[i] = units[i].module->getInstructionCount();
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return sizes[a] > sizes[b];
  });
  return order;
}

// RunJobs over `order` (a permutation of [0, count)): job(order[j]) is the
// j-th to start; errors still come in index order.
absl::Status RunJobsInOrder(const ParallelTasks& tasks,
                            const std::vector<int64_t>& order,
                            const std::function<absl::Status(int64_t)>& job) {
  std::vector<absl::Status> statuses(order.size());
  tasks(static_cast<int64_t>(order.size()),
        [&](int64_t j) { statuses[order[j]] = job(order[j]); });
  for (absl::Status& status : statuses) RETURN_IF_ERROR(status);
  return absl::OkStatus();
}

std::atomic<int64_t> optimization_pipeline_runs{0};

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
  // One distinct kernel, in a context of its own so that kernels compile on
  // several threads at once.
  struct Unit {
    // Declared before the module, so destroyed after it.
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;
    std::unique_ptr<llvm::TargetMachine> machine;
    KernelInfo info;  // of the first fusion that uses it
    codegen::KernelCode code = codegen::KernelCode::kGeneral;
    int64_t fusions = 0;  // that use it
    double optimize_ms = 0;
    double codegen_ms = 0;
  };
  std::vector<Unit> units;
  std::vector<KernelInfo> kernels;  // one per fusion
  ParallelTasks tasks;
  int optimization_level = 3;
  bool optimized = false;
};

KernelIr::KernelIr(std::unique_ptr<Llvm> llvm) : llvm_(std::move(llvm)) {}
KernelIr::~KernelIr() = default;

absl::StatusOr<std::unique_ptr<KernelIr>> KernelIr::Emit(
    const HloModule& fused_module, const CodegenOptions& options,
    ParallelTasks tasks) {
  RETURN_IF_ERROR(codegen::CheckOptimizationLevel(options.optimization_level));
  ASSIGN_OR_RETURN(codegen::KernelGroups groups,
                   codegen::GroupKernels(fused_module, /*move_slices=*/true));
  auto llvm = std::make_unique<Llvm>();
  llvm->optimization_level = options.optimization_level;
  llvm->tasks = std::move(tasks);
  const std::vector<const HloInstruction*>& first_fusion = groups.first_fusion;
  llvm->units.resize(first_fusion.size());
  RETURN_IF_ERROR(RunJobs(
      llvm->tasks, llvm->units.size(), [&](int64_t i) -> absl::Status {
        Llvm::Unit& unit = llvm->units[i];
        const HloInstruction& fusion = *first_fusion[i];
        const std::string symbol = absl::StrCat("mxla.", fusion.name());
        unit.context = std::make_unique<llvm::LLVMContext>();
        unit.module = std::make_unique<llvm::Module>(symbol, *unit.context);
        ASSIGN_OR_RETURN(unit.info, codegen::EmitFusionKernel(
                                        fusion, symbol, options, *unit.module));
        if (fusion.fusion_plan() != nullptr && fusion.fusion_plan()->is_dot()) {
          unit.code = codegen::DotKernelCode(
              *fusion.to_apply(),
              std::get<DotPlan>(fusion.fusion_plan()->config));
        }
        // The machine code generator runs at the IR pipeline's level.
        ASSIGN_OR_RETURN(unit.machine, codegen::CreateHostTargetMachine(
                                           options.optimization_level));
        return absl::OkStatus();
      }));
  for (size_t f = 0; f < groups.fusions.size(); ++f) {
    ++llvm->units[groups.kernel_of_fusion[f]].fusions;
    KernelInfo info = llvm->units[groups.kernel_of_fusion[f]].info;
    info.fusion_name = groups.fusions[f]->name();
    info.operand_offsets = groups.operand_offsets[f];
    llvm->kernels.push_back(std::move(info));
  }
  return std::unique_ptr<KernelIr>(new KernelIr(std::move(llvm)));
}

absl::Status KernelIr::Optimize() {
  RET_CHECK(!llvm_->optimized, "the kernels' IR is optimized already");
  llvm_->optimized = true;
  optimization_pipeline_runs.fetch_add(1);
  return RunJobsInOrder(llvm_->tasks, LargestFirst(llvm_->units),
                        [&](int64_t i) {
    Llvm::Unit& unit = llvm_->units[i];
    const absl::Time start = absl::Now();
    absl::Status status = codegen::OptimizeModule(
        *unit.module, *unit.machine, llvm_->optimization_level, unit.code);
    unit.optimize_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    return status;
  });
}

std::string KernelIr::Text() const {
  std::string text;
  for (const Llvm::Unit& unit : llvm_->units) {
    absl::StrAppend(&text, codegen::ModuleToString(*unit.module));
  }
  return text;
}

absl::StatusOr<std::string> KernelIr::Assembly() const {
  std::vector<std::string> parts(llvm_->units.size());
  RETURN_IF_ERROR(RunJobs(llvm_->tasks, llvm_->units.size(),
                          [&](int64_t i) -> absl::Status {
                            Llvm::Unit& unit = llvm_->units[i];
                            const absl::Time start = absl::Now();
                            ASSIGN_OR_RETURN(parts[i],
                                             codegen::EmitAssembly(
                                                 *unit.module, *unit.machine));
                            unit.codegen_ms = absl::ToDoubleMilliseconds(
                                absl::Now() - start);
                            return absl::OkStatus();
                          }));
  return absl::StrJoin(parts, "");
}

const std::vector<KernelInfo>& KernelIr::kernels() const {
  return llvm_->kernels;
}

int64_t KernelIr::distinct_kernels() const {
  return static_cast<int64_t>(llvm_->units.size());
}

std::vector<KernelCompileTime> KernelIr::CompileTimes() const {
  std::vector<KernelCompileTime> times;
  for (const Llvm::Unit& unit : llvm_->units) {
    times.push_back({.kernel = unit.info.symbol,
                     .fusions = unit.fusions,
                     .optimize_ms = unit.optimize_ms,
                     .codegen_ms = unit.codegen_ms});
  }
  return times;
}

absl::StatusOr<std::vector<std::string>> KernelIr::Objects() const {
  std::vector<std::string> objects(llvm_->units.size());
  RETURN_IF_ERROR(RunJobsInOrder(
      llvm_->tasks, LargestFirst(llvm_->units), [&](int64_t i) -> absl::Status {
        Llvm::Unit& unit = llvm_->units[i];
        const absl::Time start = absl::Now();
        ASSIGN_OR_RETURN(std::unique_ptr<llvm::MemoryBuffer> object,
                         codegen::EmitObject(*unit.module, *unit.machine));
        objects[i] = object->getBuffer().str();
        unit.codegen_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
        return absl::OkStatus();
      }));
  return objects;
}

absl::StatusOr<std::unique_ptr<JitKernels>> JitKernels::Link(
    std::unique_ptr<KernelIr> ir) {
  ASSIGN_OR_RETURN(std::vector<std::string> objects, ir->Objects());
  return Load(std::move(ir->llvm_->kernels), objects);
}

absl::StatusOr<std::unique_ptr<JitKernels>> JitKernels::Load(
    std::vector<KernelInfo> kernels, const std::vector<std::string>& objects) {
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
  for (size_t i = 0; i < objects.size(); ++i) {
    RETURN_IF_ERROR(codegen::ToStatus(lljit.addObjectFile(
        *dylib, llvm::MemoryBuffer::getMemBufferCopy(
                    objects[i], absl::StrCat("kernels.", i, ".o")))));
  }
  // One lookup for every symbol: the objects are linked once.
  llvm::orc::SymbolLookupSet symbols;
  for (const KernelInfo& kernel : kernels) {
    symbols.add(lljit.mangleAndIntern(kernel.symbol),
                llvm::orc::SymbolLookupFlags::WeaklyReferencedSymbol);
    if (!kernel.combine_symbol.empty()) {
      symbols.add(lljit.mangleAndIntern(kernel.combine_symbol),
                  llvm::orc::SymbolLookupFlags::WeaklyReferencedSymbol);
    }
  }
  symbols.removeDuplicates();
  llvm::Expected<llvm::orc::SymbolMap> addresses =
      lljit.getExecutionSession().lookup(
          llvm::orc::makeJITDylibSearchOrder(&*dylib), std::move(symbols));
  if (!addresses) return codegen::ToStatus(addresses.takeError());
  auto address_of = [&](const std::string& symbol) -> absl::StatusOr<KernelFunction> {
    auto it = addresses->find(lljit.mangleAndIntern(symbol));
    if (it == addresses->end() || !it->second.getAddress()) {
      return absl::InternalError(
          absl::StrCat("LLVM: kernel symbol '", symbol, "' was not linked"));
    }
    return it->second.getAddress().toPtr<KernelFunction>();
  };
  for (const KernelInfo& kernel : kernels) {
    ASSIGN_OR_RETURN(result->functions_[kernel.fusion_name],
                     address_of(kernel.symbol));
    if (kernel.combine_symbol.empty()) continue;
    ASSIGN_OR_RETURN(result->combines_[kernel.fusion_name],
                     address_of(kernel.combine_symbol));
  }
  result->kernels_ = std::move(kernels);
  return result;
}

absl::StatusOr<std::unique_ptr<JitKernels>> JitKernels::Compile(
    const HloModule& fused_module, const CodegenOptions& options,
    ParallelTasks tasks) {
  ASSIGN_OR_RETURN(std::unique_ptr<KernelIr> ir,
                   KernelIr::Emit(fused_module, options, std::move(tasks)));
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

int64_t OptimizationPipelineRuns() {
  return optimization_pipeline_runs.load();
}

}  // namespace mxla
