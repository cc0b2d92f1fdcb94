#include "codegen/aot_driver.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "llvm/IR/LLVMContext.h"

namespace mxla {
namespace {

// A sort's row length (the sorted dimension's size).
int64_t SortRowLength(const AotControl& control) {
  return control.dims.empty() ? 1 : control.dims[control.dimension];
}

}  // namespace

int64_t AotControlScratchBytes(const AotControl& control) {
  using codegen::AotAlign64;
  switch (control.kind) {
    case AotControl::kWhile: {
      if (control.body_in_place) return 64;  // the condition's flag
      int64_t bytes = 0;
      for (int64_t leaf : control.leaf_bytes) bytes += AotAlign64(leaf);
      return bytes + 64;  // the next state, then the condition's flag
    }
    case AotControl::kConditional:
      return 0;
    case AotControl::kSort:  // two permutations of i64, then the flag
      return 2 * AotAlign64(SortRowLength(control) * 8) + 64;
    case AotControl::kScatter:  // the combiner's scalars
      return AotAlign64(16 * (control.element_bytes.size() / 2));
    case AotControl::kSelectAndScatter:  // select's flag, scatter's scalar
      return 128;
  }
  return 0;
}

namespace codegen {

AotDriverEmitter::AotDriverEmitter(llvm::Module& module)
    : module_(module),
      context_(module.getContext()),
      ptr_(llvm::PointerType::getUnqual(context_)),
      i64_(llvm::Type::getInt64Ty(context_)),
      kernel_type_(llvm::FunctionType::get(llvm::Type::getVoidTy(context_),
                                           {ptr_, i64_, i64_}, false)),
      driver_type_(llvm::FunctionType::get(llvm::Type::getVoidTy(context_),
                                           {ptr_, ptr_, ptr_, ptr_, ptr_},
                                           false)) {}

absl::Status AotDriverEmitter::Emit(const AotProgram& program) {
  ASSIGN_OR_RETURN(llvm::Function * parallel,
                   EmitFunction(program, program.function + "_parallel",
                                llvm::GlobalValue::ExternalLinkage));
  // F: F_parallel without a pool.
  auto* plain_type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_),
                                             {ptr_, ptr_, ptr_}, false);
  llvm::Function* plain =
      llvm::Function::Create(plain_type, llvm::GlobalValue::ExternalLinkage,
                             program.function, module_);
  plain->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> p(llvm::BasicBlock::Create(context_, "entry", plain));
  llvm::Value* null = llvm::ConstantPointerNull::get(ptr_);
  p.CreateCall(parallel, {plain->getArg(0), plain->getArg(1), plain->getArg(2),
                          null, null});
  p.CreateRetVoid();
  return absl::OkStatus();
}

absl::StatusOr<llvm::Function*> AotDriverEmitter::EmitFunction(
    const AotProgram& program, const std::string& name,
    llvm::GlobalValue::LinkageTypes linkage) {
  ASSIGN_OR_RETURN(std::vector<std::vector<llvm::Function*>> callees,
                   EmitCallees(program));
  llvm::Function* function =
      llvm::Function::Create(driver_type_, linkage, name, module_);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  Frame frame{function,
              function->getArg(0),
              function->getArg(1),
              function->getArg(2),
              function->getArg(3),
              function->getArg(4),
              EmitConstants(program),
              llvm::BasicBlock::Create(context_, "allocas", function),
              {}};
  for (const AotAlias& alias : program.aliases) {
    frame.aliased[alias.argument] = alias.result;
  }
  auto* start = llvm::BasicBlock::Create(context_, "start", function);
  llvm::IRBuilder<> b(start);
  RETURN_IF_ERROR(EmitPrologue(b, program, frame));
  size_t table_size = 1;
  for (const AotStep& step : program.steps) {
    table_size = std::max(table_size, step.buffers.size() + 1);
  }
  llvm::Value* table = Alloca(frame, ptr_, table_size, "buffers");
  for (size_t s = 0; s < program.steps.size(); ++s) {
    RETURN_IF_ERROR(EmitStep(b, program.steps[s], callees[s], frame, table));
  }
  RETURN_IF_ERROR(EmitCopies(b, program, frame));
  b.CreateRetVoid();
  llvm::IRBuilder<>(frame.allocas).CreateBr(start);
  return function;
}

absl::StatusOr<std::vector<std::vector<llvm::Function*>>>
AotDriverEmitter::EmitCallees(const AotProgram& program) {
  std::vector<std::vector<llvm::Function*>> callees(program.steps.size());
  for (size_t s = 0; s < program.steps.size(); ++s) {
    if (program.steps[s].control == nullptr) continue;
    for (const AotProgram& computation :
         program.steps[s].control->computations) {
      ASSIGN_OR_RETURN(llvm::Function * callee,
                       EmitFunction(computation, computation.function,
                                    llvm::GlobalValue::InternalLinkage));
      callees[s].push_back(callee);
    }
  }
  return callees;
}

absl::Status AotDriverEmitter::EmitStep(
    llvm::IRBuilder<>& b, const AotStep& step,
    const std::vector<llvm::Function*>& callees, const Frame& frame,
    llvm::Value* table) {
  if (step.control == nullptr) return EmitKernelStep(b, step, frame, table);
  for (const AotBuffer& buffer : step.buffers) {
    RETURN_IF_ERROR(CheckBuffer(buffer, frame));
  }
  switch (step.control->kind) {
    case AotControl::kWhile:
      EmitWhile(b, step, callees, frame);
      break;
    case AotControl::kConditional:
      EmitConditional(b, step, callees, frame);
      break;
    case AotControl::kSort:
      EmitSort(b, step, callees[0], frame);
      break;
    case AotControl::kScatter:
      EmitScatter(b, step, callees[0], frame);
      break;
    case AotControl::kSelectAndScatter:
      EmitSelectAndScatter(b, step, callees[0], callees[1], frame);
      break;
  }
  return absl::OkStatus();
}

absl::Status AotDriverEmitter::EmitCopies(llvm::IRBuilder<>& b,
                                          const AotProgram& program,
                                          const Frame& frame) {
  for (const AotCopy& copy : program.copies) {
    RETURN_IF_ERROR(CheckBuffer(copy.source, frame));
    llvm::Value* to = b.CreateLoad(
        ptr_, b.CreateConstInBoundsGEP1_64(ptr_, frame.results, copy.result));
    // A result in its own source's buffer (a donated argument returned as
    // it was, a loop body's unchanged state) is left alone.
    CopyUnlessSame(b, frame, to, Address(b, copy.source, frame), copy.bytes);
  }
  return absl::OkStatus();
}

void AotDriverEmitter::CopyUnlessSame(llvm::IRBuilder<>& b,
                                      const Frame& frame, llvm::Value* to,
                                      llvm::Value* from, int64_t bytes,
                                      bool overlap) {
  auto* copy = llvm::BasicBlock::Create(context_, "copy", frame.function);
  auto* next = llvm::BasicBlock::Create(context_, "copy.next", frame.function);
  b.CreateCondBr(b.CreateICmpEQ(to, from), next, copy);
  b.SetInsertPoint(copy);
  if (overlap) {
    b.CreateMemMove(to, llvm::MaybeAlign(1), from, llvm::MaybeAlign(1), bytes);
  } else {
    b.CreateMemCpy(to, llvm::MaybeAlign(1), from, llvm::MaybeAlign(1), bytes);
  }
  b.CreateBr(next);
  b.SetInsertPoint(next);
}

absl::Status AotDriverEmitter::EmitPrologue(llvm::IRBuilder<>& b,
                                            const AotProgram& program,
                                            const Frame& frame) {
  for (const AotAlias& alias : program.aliases) {
    if (alias.bytes == 0) continue;
    llvm::Value* argument = b.CreateLoad(
        ptr_, b.CreateConstInBoundsGEP1_64(ptr_, frame.arguments,
                                           alias.argument));
    llvm::Value* result = b.CreateLoad(
        ptr_,
        b.CreateConstInBoundsGEP1_64(ptr_, frame.results, alias.result));
    // Not donated: the caller's argument is left as it was.
    CopyUnlessSame(b, frame, result, argument, alias.bytes);
  }
  for (const AotProgram::CopyBefore& copy : program.copies_before) {
    RETURN_IF_ERROR(CheckBuffer(copy.from, frame));
    RETURN_IF_ERROR(CheckBuffer(copy.to, frame));
    if (copy.bytes == 0) continue;
    b.CreateMemCpy(Address(b, copy.to, frame), llvm::MaybeAlign(1),
                   Address(b, copy.from, frame), llvm::MaybeAlign(1),
                   copy.bytes);
  }
  return absl::OkStatus();
}

std::vector<llvm::GlobalVariable*> AotDriverEmitter::EmitConstants(
    const AotProgram& program) {
  std::vector<llvm::GlobalVariable*> globals;
  for (size_t i = 0; i < program.constants.size(); ++i) {
    llvm::Constant* bytes = llvm::ConstantDataArray::getRaw(
        program.constants[i], program.constants[i].size(),
        llvm::Type::getInt8Ty(context_));
    auto* global = new llvm::GlobalVariable(
        module_, bytes->getType(), /*isConstant=*/true,
        llvm::GlobalValue::InternalLinkage, bytes,
        absl::StrCat(program.function, ".constant.", i));
    global->setAlignment(llvm::Align(64));
    globals.push_back(global);
  }
  return globals;
}

llvm::Value* AotDriverEmitter::Alloca(const Frame& frame, llvm::Type* type,
                                      int64_t count, const char* name) {
  llvm::IRBuilder<> a(frame.allocas);
  return a.CreateAlloca(type, a.getInt64(count), name);
}

llvm::Value* AotDriverEmitter::Table(llvm::IRBuilder<>& b, const Frame& frame,
                                     const std::vector<llvm::Value*>& values) {
  llvm::Value* table =
      Alloca(frame, ptr_, std::max<int64_t>(1, values.size()), "table");
  for (size_t i = 0; i < values.size(); ++i) {
    b.CreateStore(values[i], b.CreateConstInBoundsGEP1_64(ptr_, table, i));
  }
  return table;
}

llvm::Value* AotDriverEmitter::TempAt(llvm::IRBuilder<>& b, const Frame& frame,
                                      int64_t offset) {
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), frame.temp, offset);
}

absl::Status AotDriverEmitter::CheckBuffer(const AotBuffer& buffer,
                                           const Frame& frame) {
  if (buffer.kind == AotBuffer::kConstant &&
      buffer.index >= int64_t(frame.constants.size())) {
    return absl::InternalError("AOT step reads a missing constant");
  }
  return absl::OkStatus();
}

llvm::Value* AotDriverEmitter::Address(llvm::IRBuilder<>& b,
                                       const AotBuffer& buffer,
                                       const Frame& frame) {
  switch (buffer.kind) {
    case AotBuffer::kArgument: {
      auto aliased = frame.aliased.find(buffer.index);
      if (aliased != frame.aliased.end()) {
        return b.CreateLoad(ptr_, b.CreateConstInBoundsGEP1_64(
                                      ptr_, frame.results, aliased->second));
      }
      return b.CreateLoad(ptr_, b.CreateConstInBoundsGEP1_64(
                                    ptr_, frame.arguments, buffer.index));
    }
    case AotBuffer::kResult:
      return b.CreateLoad(ptr_, b.CreateConstInBoundsGEP1_64(
                                    ptr_, frame.results, buffer.index));
    case AotBuffer::kTemp:
      return TempAt(b, frame, buffer.offset);
    case AotBuffer::kConstant:
      return frame.constants[buffer.index];
  }
  return nullptr;
}

std::vector<llvm::Value*> AotDriverEmitter::Addresses(llvm::IRBuilder<>& b,
                                                      const AotStep& step,
                                                      size_t begin, size_t end,
                                                      const Frame& frame) {
  std::vector<llvm::Value*> addresses;
  for (size_t i = begin; i < end; ++i) {
    addresses.push_back(Address(b, step.buffers[i], frame));
  }
  return addresses;
}

void AotDriverEmitter::CallComputation(
    llvm::IRBuilder<>& b, llvm::Function* callee, llvm::Value* arguments,
    llvm::Value* results, const AotControl& control, const Frame& frame) {
  b.CreateCall(callee, {arguments, results,
                        TempAt(b, frame, control.computation_temp_offset),
                        frame.parallel_for, frame.pool});
}

void AotDriverEmitter::For(llvm::IRBuilder<>& b, const Frame& frame,
                           llvm::Value* begin, llvm::Value* end,
                           llvm::Value* step,
                           const std::function<void(llvm::Value*)>& body) {
  llvm::Value* slot = Alloca(frame, i64_, 1, "i");
  b.CreateStore(begin, slot);
  auto* head = llvm::BasicBlock::Create(context_, "for", frame.function);
  auto* loop = llvm::BasicBlock::Create(context_, "for.body", frame.function);
  auto* exit = llvm::BasicBlock::Create(context_, "for.end", frame.function);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::Value* i = b.CreateLoad(i64_, slot);
  b.CreateCondBr(b.CreateICmpSLT(i, end), loop, exit);
  b.SetInsertPoint(loop);
  body(i);
  b.CreateStore(b.CreateAdd(i, step), slot);
  b.CreateBr(head);
  b.SetInsertPoint(exit);
}

absl::Status AotDriverEmitter::EmitKernelStep(llvm::IRBuilder<>& b,
                                              const AotStep& step,
                                              const Frame& frame,
                                              llvm::Value* table) {
  for (size_t i = 0; i < step.buffers.size(); ++i) {
    RETURN_IF_ERROR(CheckBuffer(step.buffers[i], frame));
    b.CreateStore(Address(b, step.buffers[i], frame),
                  b.CreateConstInBoundsGEP1_64(ptr_, table, i));
  }
  if (step.scratch_offset >= 0) {
    b.CreateStore(
        TempAt(b, frame, step.scratch_offset),
        b.CreateConstInBoundsGEP1_64(ptr_, table, step.buffers.size()));
  }
  llvm::Function* kernel = module_.getFunction(step.symbol);
  RET_CHECK(kernel != nullptr, "no kernel ", step.symbol);
  if (step.units > 0 && step.max_chunks > 1) {
    auto* split = llvm::BasicBlock::Create(context_, "split", frame.function);
    auto* inline_run =
        llvm::BasicBlock::Create(context_, "inline", frame.function);
    auto* next = llvm::BasicBlock::Create(context_, "next", frame.function);
    b.CreateCondBr(b.CreateIsNull(frame.parallel_for), inline_run, split);
    b.SetInsertPoint(split);
    auto* parallel_type = llvm::FunctionType::get(
        llvm::Type::getVoidTy(context_), {ptr_, ptr_, ptr_, i64_, i64_}, false);
    b.CreateCall(parallel_type, frame.parallel_for,
                 {frame.pool, kernel, table, b.getInt64(step.units),
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
    b.CreateCall(kernel_type_, combine, {table, b.getInt64(0), b.getInt64(1)});
  }
  return absl::OkStatus();
}

void AotDriverEmitter::EmitWhile(llvm::IRBuilder<>& b, const AotStep& step,
                                 const std::vector<llvm::Function*>& callees,
                                 const Frame& frame) {
  const AotControl& loop = *step.control;
  const size_t n = loop.leaf_bytes.size();
  std::vector<llvm::Value*> initial = Addresses(b, step, 0, n, frame);
  std::vector<llvm::Value*> state = Addresses(b, step, n, 2 * n, frame);
  std::vector<llvm::Value*> next;
  int64_t offset = loop.temp_offset;
  for (size_t i = 0; i < n; ++i) {
    if (!loop.body_in_place) {
      next.push_back(TempAt(b, frame, offset));
      offset += AotAlign64(loop.leaf_bytes[i]);
    }
    if (loop.leaf_bytes[i] > 0) {
      // Skipped where the initial leaf already is the state's buffer.
      CopyUnlessSame(b, frame, state[i], initial[i], loop.leaf_bytes[i],
                     /*overlap=*/true);
    }
  }
  llvm::Value* go = TempAt(b, frame, offset);
  llvm::Value* state_table = Table(b, frame, state);
  llvm::Value* next_table =
      loop.body_in_place ? state_table : Table(b, frame, next);
  llvm::Value* go_table = Table(b, frame, {go});
  auto* head = llvm::BasicBlock::Create(context_, "while", frame.function);
  auto* body = llvm::BasicBlock::Create(context_, "while.body", frame.function);
  auto* exit = llvm::BasicBlock::Create(context_, "while.end", frame.function);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  CallComputation(b, callees[0], state_table, go_table, loop, frame);
  b.CreateCondBr(b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), go), b.getInt8(0)),
                 body, exit);
  b.SetInsertPoint(body);
  CallComputation(b, callees[1], state_table, next_table, loop, frame);
  for (size_t i = 0; i < n && !loop.body_in_place; ++i) {
    // A leaf the loop keeps in its initial buffer is never written.
    if (loop.leaf_bytes[i] > 0 && !(step.buffers[i] == step.buffers[n + i])) {
      b.CreateMemCpy(state[i], llvm::MaybeAlign(1), next[i],
                     llvm::MaybeAlign(1), loop.leaf_bytes[i]);
    }
  }
  b.CreateBr(head);
  b.SetInsertPoint(exit);
}

void AotDriverEmitter::EmitConditional(
    llvm::IRBuilder<>& b, const AotStep& step,
    const std::vector<llvm::Function*>& callees, const Frame& frame) {
  const AotControl& conditional = *step.control;
  const int64_t branches = callees.size();
  llvm::Value* index = Address(b, step.buffers[0], frame);
  llvm::Value* branch;
  if (conditional.pred_index) {
    branch = b.CreateSelect(
        b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), index), b.getInt8(0)),
        b.getInt32(0), b.getInt32(1));
  } else {
    branch = b.CreateLoad(b.getInt32Ty(), index);
  }
  int64_t all_operands = 0;
  for (int64_t leaves : conditional.operand_leaves) all_operands += leaves;
  auto* done =
      llvm::BasicBlock::Create(context_, "conditional.end", frame.function);
  // Out of range (negative too) goes to the default: the last branch.
  auto* last = llvm::BasicBlock::Create(context_, "branch", frame.function);
  llvm::SwitchInst* dispatch = b.CreateSwitch(branch, last, branches - 1);
  int64_t first = conditional.operand_leaves[0];
  for (int64_t k = 0; k < branches; ++k) {
    llvm::BasicBlock* block =
        k == branches - 1
            ? last
            : llvm::BasicBlock::Create(context_, "branch", frame.function);
    if (k < branches - 1) dispatch->addCase(b.getInt32(k), block);
    b.SetInsertPoint(block);
    const int64_t leaves = conditional.operand_leaves[1 + k];
    llvm::Value* arguments =
        Table(b, frame, Addresses(b, step, first, first + leaves, frame));
    llvm::Value* results = Table(
        b, frame, Addresses(b, step, all_operands, step.buffers.size(), frame));
    CallComputation(b, callees[k], arguments, results, conditional, frame);
    b.CreateBr(done);
    first += leaves;
  }
  b.SetInsertPoint(done);
}

absl::Status EmitAotDriver(llvm::Module& module, const AotProgram& program) {
  return AotDriverEmitter(module).Emit(program);
}

}  // namespace codegen
}  // namespace mxla
