#include "codegen/kernel_emitter.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/elemental_emitter.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/reduction_emitter.h"
#include "codegen/row_emitter.h"
#include "codegen/streaming_store_emitter.h"
#include "ir/row_fusion_analysis.h"
#include "ir/hlo_computation.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "llvm/IR/Function.h"

namespace mxla::codegen {
namespace {

std::vector<Shape> OutputShapes(const HloInstruction& fusion) {
  if (fusion.shape().IsTuple()) return fusion.shape().tuple_shapes();
  return {fusion.shape()};
}

// The internal function that does the work: every buffer is its own
// `noalias` argument, which is what lets LLVM vectorize without runtime
// alias checks. The exported kernel unpacks the buffer array and calls it.
llvm::Function* CreateBodyFunction(llvm::Module& module,
                                   const std::string& symbol,
                                   int64_t buffer_count) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  std::vector<llvm::Type*> params(buffer_count, ptr);
  params.push_back(i64);
  params.push_back(i64);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), params,
                                       false);
  auto* body = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                      symbol + ".body", module);
  for (int64_t i = 0; i < buffer_count; ++i) {
    body->addParamAttr(i, llvm::Attribute::NoAlias);
    body->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  body->addFnAttr(llvm::Attribute::NoUnwind);
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  return body;
}

void EmitEntryWrapper(llvm::Module& module, const std::string& symbol,
                      llvm::Function* body, int64_t buffer_count) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {ptr, i64, i64}, false);
  auto* kernel = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, symbol, module);
  kernel->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", kernel));
  std::vector<llvm::Value*> args;
  for (int64_t i = 0; i < buffer_count; ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptr, kernel->getArg(0), i);
    args.push_back(b.CreateLoad(ptr, slot));
  }
  args.push_back(kernel->getArg(1));
  args.push_back(kernel->getArg(2));
  b.CreateCall(body, args);
  b.CreateRetVoid();
}

int64_t BytesOf(const Shape& shape) {
  if (!shape.IsTuple()) return ShapeUtil::ByteSizeOf(shape);
  int64_t bytes = 0;
  for (const Shape& element : shape.tuple_shapes()) bytes += BytesOf(element);
  return bytes;
}

// Bytes a fusion must move: its operands read once, its result written once.
int64_t TrafficBytes(const HloInstruction& fusion) {
  int64_t bytes = BytesOf(fusion.shape());
  for (const HloInstruction* operand : fusion.operands()) {
    bytes += BytesOf(operand->shape());
  }
  return bytes;
}

// Whether a loop fusion writes its result with streaming stores: a large
// array that is an entry result, so nothing reads it back soon.
bool Streams(const HloInstruction& fusion, const CodegenOptions& options) {
  if (options.streaming_store_min_bytes <= 0 || fusion.shape().IsTuple() ||
      fusion.shape().element_type() == PRED ||
      BytesOf(fusion.shape()) < options.streaming_store_min_bytes ||
      fusion.parent() == nullptr) {
    return false;
  }
  const HloInstruction* root = fusion.parent()->root_instruction();
  if (root == &fusion) return true;
  if (root->opcode() != HloOpcode::kTuple) return false;
  for (const HloInstruction* user : fusion.users()) {
    if (user != root) return false;
  }
  return true;
}

// The kernel that folds a split reduction's partial results into its
// output (KernelInfo::combine_symbol); same buffers as the main kernel.
absl::Status EmitCombineKernel(llvm::Module& module, const std::string& symbol,
                               const HloComputation& fused, int64_t inputs,
                               int64_t buffer_count,
                               const ReductionPlan& plan) {
  llvm::Function* body = CreateBodyFunction(module, symbol, buffer_count);
  llvm::IRBuilder<> b(
      llvm::BasicBlock::Create(module.getContext(), "entry", body));
  std::vector<llvm::Value*> parameters;
  for (int64_t i = 0; i < inputs; ++i) parameters.push_back(body->getArg(i));
  ElementalEmitter elements(b, fused, parameters);
  RETURN_IF_ERROR(EmitReductionCombine(b, *fused.root_instruction(), elements,
                                       body->getArg(inputs),
                                       body->getArg(buffer_count - 1), plan));
  b.CreateRetVoid();
  EmitEntryWrapper(module, symbol, body, buffer_count);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<KernelInfo> EmitFusionKernel(const HloInstruction& fusion,
                                            const std::string& symbol,
                                            const CodegenOptions& options,
                                            llvm::Module& module) {
  RET_CHECK(fusion.opcode() == HloOpcode::kFusion, fusion.ToString());
  const HloComputation& fused = *fusion.to_apply();
  const HloInstruction& root = *fused.root_instruction();
  std::vector<Shape> outputs = OutputShapes(fusion);
  const bool is_reduce = root.opcode() == HloOpcode::kReduce;
  if (!is_reduce && fusion.shape().IsTuple()) {
    return absl::UnimplementedError(absl::StrCat(
        "codegen: loop fusion '", fusion.name(),
        "' has a tuple result; only a variadic reduce may return several"));
  }

  const int64_t inputs = fusion.operand_count();
  absl::StatusOr<RowFusion> rows = AnalyzeRowFusion(fused);
  // A reduction split into partials also takes a scratch buffer.
  const bool scratch =
      !rows.ok() && is_reduce && PlanReduction(root, options).chunks > 0;
  const int64_t buffer_count = inputs + outputs.size() + (scratch ? 1 : 0);
  llvm::Function* body = CreateBodyFunction(module, symbol, buffer_count);
  llvm::LLVMContext& context = module.getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", body));
  std::vector<llvm::Value*> parameters, results;
  for (int64_t i = 0; i < inputs; ++i) parameters.push_back(body->getArg(i));
  for (size_t i = 0; i < outputs.size(); ++i) {
    results.push_back(body->getArg(inputs + i));
  }
  llvm::Value* begin = body->getArg(buffer_count);
  llvm::Value* end = body->getArg(buffer_count + 1);
  ElementalEmitter elements(b, fused, parameters);

  KernelInfo info{fusion.name(), symbol, 0, 0, 0, ""};
  const Shape& first = outputs[0];
  const int64_t elements_out = ShapeUtil::ElementsIn(first);
  if (rows.ok()) {
    info.units =
        ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, rows->row_dimensions));
    if (info.units > 0) {
      RETURN_IF_ERROR(EmitRowFusion(b, fused, *rows, elements, results[0],
                                    begin, end, options,
                                    Streams(fusion, options)));
    }
  } else if (is_reduce) {
    ReductionPlan plan = PlanReduction(root, options);
    info.units = plan.units;
    if (plan.chunks > 0) {
      info.scratch_bytes = plan.scratch_bytes;
      // '$' cannot occur in an HLO name, so no kernel symbol collides.
      info.combine_symbol = symbol + "$combine";
    }
    if (info.units > 0) {
      RETURN_IF_ERROR(EmitReduction(
          b, root, elements, results,
          plan.chunks > 0 ? body->getArg(buffer_count - 1) : nullptr, begin,
          end, plan, options));
    }
    if (plan.chunks > 0) {
      RETURN_IF_ERROR(EmitCombineKernel(module, info.combine_symbol, fused,
                                        inputs, buffer_count, plan));
    }
  } else if (first.rank() == 0) {
    info.units = 1;
    ASSIGN_OR_RETURN(llvm::Value * value, elements.Generate(root, {}));
    StoreElement(b, first.element_type(), results[0], b.getInt64(0), value);
  } else if (Streams(fusion, options)) {
    info.units = elements_out;
    RETURN_IF_ERROR(EmitStreamingRangeLoops(
        b, first.dimensions(), begin, end, first.element_type(), results[0],
        [&](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          elements.ClearCache();
          return elements.Generate(root, index);
        }));
  } else if (TrafficBytes(fusion) < 2 * kMinBytesPerChunk) {
    // Too small to split: one unit, static loop bounds (no clipping to a
    // range), which also spares the loop vectorizer its run-time checks.
    info.units = 1;
    RETURN_IF_ERROR(EmitForLoop(b, begin, end, "unit", [&](llvm::Value*) {
      return EmitLoopNest(b, first.dimensions(), [&](const IrIndex& index) {
        elements.ClearCache();
        ASSIGN_OR_RETURN(llvm::Value * value, elements.Generate(root, index));
        StoreElement(b, first.element_type(), results[0],
                     ElementalEmitter::Linearize(b, first.dimensions(), index),
                     value);
        return absl::OkStatus();
      });
    }));
  } else {
    info.units = elements_out;
    if (elements_out > 0) {
      RETURN_IF_ERROR(EmitLinearRangeLoops(
          b, first.dimensions(), begin, end,
          [&](const IrIndex& index, llvm::Value* linear) -> absl::Status {
            elements.ClearCache();
            ASSIGN_OR_RETURN(llvm::Value * value, elements.Generate(root, index));
            StoreElement(b, first.element_type(), results[0], linear, value);
            return absl::OkStatus();
          }));
    }
  }
  b.CreateRetVoid();
  EmitEntryWrapper(module, symbol, body, buffer_count);

  const int64_t bytes = TrafficBytes(fusion);
  info.bytes_per_unit = info.units > 0 ? bytes / info.units : 0;
  return info;
}

}  // namespace mxla::codegen
