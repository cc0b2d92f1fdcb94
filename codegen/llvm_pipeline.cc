#include "codegen/llvm_pipeline.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/llvm_miscompile_guards.h"
#include "ir/status_macros.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace mxla::codegen {
namespace {

// MXLA_CPU_FEATURES: comma-separated +feature / -feature changes to the
// host's features (e.g. "-avx512f" makes the JIT emit AVX2 code on an
// AVX-512 host). Read once per process, like MXLA_THREADS.
struct FeatureOverrides {
  std::vector<std::pair<std::string, bool>> changes;  // name, enabled
  absl::Status status;
};

const FeatureOverrides& CpuFeatureOverrides() {
  static const FeatureOverrides* overrides = [] {
    auto* result = new FeatureOverrides;
    const char* text = std::getenv("MXLA_CPU_FEATURES");
    if (text == nullptr) return result;
    for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipEmpty())) {
      if (entry.size() < 2 || (entry[0] != '+' && entry[0] != '-')) {
        result->status = absl::InvalidArgumentError(absl::StrCat(
            "MXLA_CPU_FEATURES='", text, "': '", entry,
            "' is not +feature or -feature"));
        return result;
      }
      result->changes.push_back(
          {std::string(entry.substr(1)), entry[0] == '+'});
    }
    return result;
  }();
  return *overrides;
}

llvm::CodeGenOptLevel ToCodeGenLevel(int level) {
  switch (level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
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

void InitializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

absl::Status CheckOptimizationLevel(int optimization_level) {
  if (optimization_level >= 0 && optimization_level <= 3) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("CodegenOptions::optimization_level must be 0 to 3, got ",
                   optimization_level));
}

namespace {

// The host as the JIT targets it: detected, with MXLA_CPU_FEATURES applied.
absl::StatusOr<llvm::orc::JITTargetMachineBuilder> HostMachineBuilder() {
  InitializeLlvm();
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> builder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return ToStatus(builder.takeError());
  const FeatureOverrides& overrides = CpuFeatureOverrides();
  RETURN_IF_ERROR(overrides.status);
  for (const auto& [name, enabled] : overrides.changes) {
    builder->getFeatures().AddFeature(name, enabled);
  }
  return std::move(*builder);
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateHostTargetMachine(
    int optimization_level) {
  RETURN_IF_ERROR(CheckOptimizationLevel(optimization_level));
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder builder,
                   HostMachineBuilder());
  builder.setCodeGenOptLevel(ToCodeGenLevel(optimization_level));
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      builder.createTargetMachine();
  if (!machine) return ToStatus(machine.takeError());
  return std::move(*machine);
}

absl::StatusOr<std::string> HostTargetDescription() {
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder builder,
                   HostMachineBuilder());
  return absl::StrCat(builder.getTargetTriple().str(), " ", builder.getCPU(),
                      " ", builder.getFeatures().getString());
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateAotTargetMachine(
    const std::string& cpu, const std::string& features,
    int optimization_level) {
  RETURN_IF_ERROR(CheckOptimizationLevel(optimization_level));
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder host,
                   HostMachineBuilder());
  const std::string triple = host.getTargetTriple().str();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return absl::InternalError(absl::StrCat("LLVM: ", error));
  // No CPU named: the host's, with its features (as the JIT's).
  std::string cpu_name = cpu.empty() ? host.getCPU() : cpu;
  llvm::SubtargetFeatures all_features;
  if (cpu.empty()) all_features = host.getFeatures();
  // A generic subtarget answers the questions without LLVM printing
  // warnings about a bad name.
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (info == nullptr || !info->isCPUStringValid(cpu_name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--target-cpu: '", cpu, "' is not a CPU LLVM knows for ", triple,
        " (e.g. x86-64, x86-64-v3, skylake-avx512, znver4)"));
  }
  for (absl::string_view entry : absl::StrSplit(features, ',', absl::SkipEmpty())) {
    const std::string name(entry.substr(std::min<size_t>(1, entry.size())));
    bool known = false;
    for (const llvm::SubtargetFeatureKV& feature : info->getAllProcessorFeatures()) {
      known |= name == feature.Key;
    }
    if (entry.size() < 2 || (entry[0] != '+' && entry[0] != '-') || !known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--target-features: '", entry, "' is not +feature or -feature for a "
          "feature LLVM knows for ", triple, " (e.g. +avx2,-avx512f)"));
    }
    all_features.AddFeature(name, entry[0] == '+');
  }
  llvm::TargetOptions target_options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu_name, all_features.getString(), target_options,
      llvm::Reloc::PIC_, std::nullopt, ToCodeGenLevel(optimization_level)));
  if (machine == nullptr) {
    return absl::InternalError("LLVM: cannot create the target machine");
  }
  return machine;
}

int64_t HostVectorBytes() {
  static const int64_t bytes = [] {
    // The same feature list JITTargetMachineBuilder::detectHost uses, with
    // MXLA_CPU_FEATURES's changes (a disabled avx512f narrows the vectors;
    // LLVM also drops the features that need it).
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    for (const auto& [name, enabled] : CpuFeatureOverrides().changes) {
      features[name] = enabled;
    }
    auto has = [&](const char* name) {
      auto it = features.find(name);
      return it != features.end() && it->second;
    };
    if (has("avx512f")) return int64_t{64};
    if (has("avx")) return int64_t{32};
    return int64_t{16};
  }();
  return bytes;
}

absl::Status OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine,
                            int optimization_level, KernelCode code) {
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
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopInterleaving = true;
  tuning.LoopUnrolling = true;
  const bool written_vectors =
      code == KernelCode::kWrittenVectors && optimization_level >= 2;
  if (written_vectors) {
    tuning.LoopUnrolling = false;
    optimization_level = 1;
  }
  // Before the analysis managers, which refer to it.
  llvm::PassInstrumentationCallbacks instrumentation;
  GuardAgainstLlvmMiscompiles(instrumentation);
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder passes(&machine, tuning, std::nullopt, &instrumentation);
  passes.registerModuleAnalyses(modules);
  passes.registerCGSCCAnalyses(cgscc);
  passes.registerFunctionAnalyses(functions);
  passes.registerLoopAnalyses(loops);
  passes.crossRegisterProxies(loops, functions, cgscc, modules);
  // O0 only inlines the always-inline kernel bodies into their wrappers.
  llvm::ModulePassManager pipeline =
      optimization_level <= 0
          ? passes.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
          : passes.buildPerModuleDefaultPipeline(ToLevel(optimization_level));
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

absl::StatusOr<std::unique_ptr<llvm::MemoryBuffer>> EmitObject(
    llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager emit;
  if (machine.addPassesToEmitFile(emit, stream, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    return absl::InternalError("LLVM: the target cannot emit object files");
  }
  emit.run(module);
  return std::make_unique<llvm::SmallVectorMemoryBuffer>(
      std::move(object), module.getModuleIdentifier() + ".o",
      /*RequiresNullTerminator=*/false);
}

std::string ModuleToString(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return text;
}

}  // namespace mxla::codegen
