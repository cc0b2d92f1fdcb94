#include "codegen/aot_module.h"

#include "absl/strings/str_cat.h"
#include "codegen/kernel_emitter.h"
#include "codegen/kernel_groups.h"
#include "codegen/llvm_pipeline.h"
#include "ir/status_macros.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace mxla {

struct AotModule::Llvm {
  // Declared before the module, so destroyed after it.
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::vector<KernelInfo> kernels;
  int optimization_level = 3;
  bool finished = false;
};

namespace {

// The driver's code for one AotProgram (see aot_module.h).
class DriverEmitter {
 public:
  DriverEmitter(llvm::Module& module, const AotProgram& program)
      : module_(module),
        program_(program),
        context_(module.getContext()),
        ptr_(llvm::PointerType::getUnqual(context_)),
        i64_(llvm::Type::getInt64Ty(context_)),
        kernel_type_(llvm::FunctionType::get(
            llvm::Type::getVoidTy(context_), {ptr_, i64_, i64_}, false)) {}

  absl::Status Emit() {
    std::vector<llvm::GlobalVariable*> constants = EmitConstants();
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_),
                                         {ptr_, ptr_, ptr_, ptr_, ptr_}, false);
    llvm::Function* parallel = llvm::Function::Create(
        type, llvm::GlobalValue::ExternalLinkage,
        program_.function + "_parallel", module_);
    parallel->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", parallel));
    Frame frame{parallel->getArg(0), parallel->getArg(1), parallel->getArg(2),
                constants};
    size_t table_size = 1;
    for (const AotStep& step : program_.steps) {
      table_size = std::max(table_size, step.buffers.size() + 1);
    }
    llvm::Value* table =
        b.CreateAlloca(ptr_, b.getInt64(table_size), "buffers");
    for (const AotStep& step : program_.steps) {
      RETURN_IF_ERROR(EmitStep(b, step, frame, table, parallel->getArg(3),
                               parallel->getArg(4)));
    }
    for (const AotCopy& copy : program_.copies) {
      llvm::Value* to = b.CreateLoad(
          ptr_, b.CreateConstInBoundsGEP1_64(ptr_, frame.results, copy.result));
      b.CreateMemCpy(to, llvm::MaybeAlign(1), Address(b, copy.source, frame),
                     llvm::MaybeAlign(1), copy.bytes);
    }
    b.CreateRetVoid();

    // F: F_parallel without a pool.
    auto* plain_type = llvm::FunctionType::get(
        llvm::Type::getVoidTy(context_), {ptr_, ptr_, ptr_}, false);
    llvm::Function* plain = llvm::Function::Create(
        plain_type, llvm::GlobalValue::ExternalLinkage, program_.function,
        module_);
    plain->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> p(llvm::BasicBlock::Create(context_, "entry", plain));
    llvm::Value* null = llvm::ConstantPointerNull::get(ptr_);
    p.CreateCall(parallel, {plain->getArg(0), plain->getArg(1),
                            plain->getArg(2), null, null});
    p.CreateRetVoid();
    return absl::OkStatus();
  }

 private:
  struct Frame {
    llvm::Value* arguments;
    llvm::Value* results;
    llvm::Value* temp;
    const std::vector<llvm::GlobalVariable*>& constants;
  };

  std::vector<llvm::GlobalVariable*> EmitConstants() {
    std::vector<llvm::GlobalVariable*> globals;
    for (size_t i = 0; i < program_.constants.size(); ++i) {
      llvm::Constant* bytes = llvm::ConstantDataArray::getRaw(
          program_.constants[i], program_.constants[i].size(),
          llvm::Type::getInt8Ty(context_));
      auto* global = new llvm::GlobalVariable(
          module_, bytes->getType(), /*isConstant=*/true,
          llvm::GlobalValue::InternalLinkage, bytes,
          absl::StrCat(program_.function, ".constant.", i));
      global->setAlignment(llvm::Align(64));
      globals.push_back(global);
    }
    return globals;
  }

  llvm::Value* Address(llvm::IRBuilder<>& b, const AotBuffer& buffer,
                       const Frame& frame) {
    switch (buffer.kind) {
      case AotBuffer::kArgument:
        return b.CreateLoad(ptr_, b.CreateConstInBoundsGEP1_64(
                                      ptr_, frame.arguments, buffer.index));
      case AotBuffer::kResult:
        return b.CreateLoad(ptr_, b.CreateConstInBoundsGEP1_64(
                                      ptr_, frame.results, buffer.index));
      case AotBuffer::kTemp:
        return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), frame.temp,
                                            buffer.offset);
      case AotBuffer::kConstant:
        return frame.constants[buffer.index];
    }
    return nullptr;
  }

  absl::Status EmitStep(llvm::IRBuilder<>& b, const AotStep& step,
                        const Frame& frame, llvm::Value* table,
                        llvm::Value* parallel_for, llvm::Value* pool) {
    for (size_t i = 0; i < step.buffers.size(); ++i) {
      if (step.buffers[i].kind == AotBuffer::kConstant &&
          step.buffers[i].index >= int64_t(frame.constants.size())) {
        return absl::InternalError("AOT step reads a missing constant");
      }
      b.CreateStore(Address(b, step.buffers[i], frame),
                    b.CreateConstInBoundsGEP1_64(ptr_, table, i));
    }
    if (step.scratch_offset >= 0) {
      b.CreateStore(b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), frame.temp,
                                                 step.scratch_offset),
                    b.CreateConstInBoundsGEP1_64(ptr_, table,
                                                 step.buffers.size()));
    }
    llvm::Function* kernel = module_.getFunction(step.symbol);
    RET_CHECK(kernel != nullptr, "no kernel ", step.symbol);
    if (step.units > 0 && step.max_chunks > 1) {
      llvm::Function* function = b.GetInsertBlock()->getParent();
      auto* split = llvm::BasicBlock::Create(context_, "split", function);
      auto* inline_run = llvm::BasicBlock::Create(context_, "inline", function);
      auto* next = llvm::BasicBlock::Create(context_, "next", function);
      b.CreateCondBr(b.CreateIsNull(parallel_for), inline_run, split);
      b.SetInsertPoint(split);
      auto* parallel_type = llvm::FunctionType::get(
          llvm::Type::getVoidTy(context_), {ptr_, ptr_, ptr_, i64_, i64_},
          false);
      b.CreateCall(parallel_type, parallel_for,
                   {pool, kernel, table, b.getInt64(step.units),
                    b.getInt64(step.max_chunks)});
      b.CreateBr(next);
      b.SetInsertPoint(inline_run);
      b.CreateCall(kernel_type_, kernel,
                   {table, b.getInt64(0), b.getInt64(step.units)});
      b.CreateBr(next);
      b.SetInsertPoint(next);
    } else if (step.units > 0) {
      b.CreateCall(kernel_type_, kernel,
                   {table, b.getInt64(0), b.getInt64(step.units)});
    }
    if (!step.combine_symbol.empty()) {
      llvm::Function* combine = module_.getFunction(step.combine_symbol);
      RET_CHECK(combine != nullptr, "no combine kernel ", step.combine_symbol);
      b.CreateCall(kernel_type_, combine,
                   {table, b.getInt64(0), b.getInt64(1)});
    }
    return absl::OkStatus();
  }

  llvm::Module& module_;
  const AotProgram& program_;
  llvm::LLVMContext& context_;
  llvm::PointerType* ptr_;
  llvm::Type* i64_;
  llvm::FunctionType* kernel_type_;
};

}  // namespace

AotModule::AotModule(std::unique_ptr<Llvm> llvm) : llvm_(std::move(llvm)) {}
AotModule::~AotModule() = default;

absl::StatusOr<std::unique_ptr<AotModule>> AotModule::Emit(
    const HloModule& fused, const CodegenOptions& options,
    const AotTarget& target) {
  auto llvm = std::make_unique<Llvm>();
  llvm->optimization_level = options.optimization_level;
  ASSIGN_OR_RETURN(llvm->machine,
                   codegen::CreateAotTargetMachine(
                       target.cpu, target.features, options.optimization_level));
  ASSIGN_OR_RETURN(codegen::KernelGroups groups, codegen::GroupKernels(fused));
  llvm->context = std::make_unique<llvm::LLVMContext>();
  llvm->module = std::make_unique<llvm::Module>(fused.name(), *llvm->context);
  std::vector<KernelInfo> infos;
  for (const HloInstruction* fusion : groups.first_fusion) {
    ASSIGN_OR_RETURN(KernelInfo info,
                     codegen::EmitFusionKernel(
                         *fusion, absl::StrCat("mxla.", fusion->name()),
                         options, *llvm->module));
    infos.push_back(std::move(info));
  }
  for (size_t f = 0; f < groups.fusions.size(); ++f) {
    KernelInfo info = infos[groups.kernel_of_fusion[f]];
    info.fusion_name = groups.fusions[f]->name();
    llvm->kernels.push_back(std::move(info));
  }
  return std::unique_ptr<AotModule>(new AotModule(std::move(llvm)));
}

const std::vector<KernelInfo>& AotModule::kernels() const {
  return llvm_->kernels;
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
  RETURN_IF_ERROR(DriverEmitter(module, program).Emit());
  RETURN_IF_ERROR(codegen::OptimizeModule(module, *llvm_->machine,
                                          llvm_->optimization_level));
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::MemoryBuffer> object,
                   codegen::EmitObject(module, *llvm_->machine));
  return object->getBuffer().str();
}

}  // namespace mxla
