#include "codegen/kernel_emitter.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/depthwise_emitter.h"
#include "codegen/elemental_emitter.h"
#include "codegen/gemm_emitter.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/reduction_emitter.h"
#include "codegen/row_emitter.h"
#include "codegen/streaming_store_emitter.h"
#include "ir/conv_product.h"
#include "ir/fusion_plan.h"
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
// `may_alias` (two buffer numbers, or -1) are the operand and output of an
// in-place dynamic-update-slice, which may be one buffer: neither is
// `noalias`.
llvm::Function* CreateBodyFunction(
    llvm::Module& module, const std::string& symbol, int64_t buffer_count,
    std::pair<int64_t, int64_t> may_alias = {-1, -1}) {
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
    if (i != may_alias.first && i != may_alias.second) {
      body->addParamAttr(i, llvm::Attribute::NoAlias);
    }
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


namespace {

// A loop fusion's body per its LoopPlan: one unit per output element
// (streaming or plain stores), or one unit with static bounds.
absl::Status EmitLoop(llvm::IRBuilder<>& b, const HloInstruction& root,
                      const LoopPlan& plan, ElementalEmitter& elements,
                      llvm::Value* result, llvm::Value* begin,
                      llvm::Value* end, KernelInfo& info) {
  const Shape& shape = root.shape();
  const PrimitiveType type = shape.element_type();
  if (shape.rank() == 0) {
    info.units = 1;
    ASSIGN_OR_RETURN(llvm::Value * value, elements.Generate(root, {}));
    StoreElement(b, type, result, b.getInt64(0), value);
    return absl::OkStatus();
  }
  const int64_t elements_out = ShapeUtil::ElementsIn(shape);
  if (plan.store == StoreKind::kStreaming) {
    info.units = elements_out;
    return EmitStreamingRangeLoops(
        b, shape.dimensions(), begin, end, type, result,
        [&](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          elements.ClearCache();
          return elements.Generate(root, index);
        });
  }
  auto store = [&](const IrIndex& index, llvm::Value* linear) -> absl::Status {
    elements.ClearCache();
    ASSIGN_OR_RETURN(llvm::Value * value, elements.Generate(root, index));
    StoreElement(b, type, result, linear, value);
    return absl::OkStatus();
  };
  if (plan.one_unit) {
    // Static loop bounds (no clipping to a range) also spare the loop
    // vectorizer its run-time checks.
    info.units = 1;
    return EmitForLoop(b, begin, end, "unit", [&](llvm::Value*) {
      return EmitLoopNest(b, shape.dimensions(), [&](const IrIndex& index) {
        return store(index, ElementalEmitter::Linearize(b, shape.dimensions(),
                                                        index));
      });
    });
  }
  info.units = elements_out;
  if (elements_out == 0) return absl::OkStatus();
  return EmitLinearRangeLoops(b, shape.dimensions(), begin, end, store);
}

// An in-place dynamic-update-slice (InPlaceFusionOperand, ir/fusion_plan.h):
// one unit that copies `operand` into `result` unless they are one buffer,
// then stores the update's elements alone, each under the clamped start.
// The update reads the operand only at the element it replaces, before it
// stores it, so the two may be one buffer.
absl::Status EmitInPlaceDynamicUpdateSlice(
    llvm::IRBuilder<>& b, const HloInstruction& dus, ElementalEmitter& elements,
    llvm::Value* operand, llvm::Value* result, llvm::Value* begin,
    llvm::Value* end, KernelInfo& info) {
  const Shape& shape = dus.shape();
  const HloInstruction& update = *dus.operand(1);
  const PrimitiveType type = shape.element_type();
  info.units = 1;
  return EmitForLoop(b, begin, end, "unit", [&](llvm::Value*) -> absl::Status {
    const int64_t bytes = ShapeUtil::ByteSizeOf(shape);
    if (bytes > 0) {
      RETURN_IF_ERROR(
          EmitIf(b, b.CreateICmpNE(operand, result), [&]() -> absl::Status {
            b.CreateMemCpy(result, llvm::MaybeAlign(1), operand,
                           llvm::MaybeAlign(1), b.getInt64(bytes));
            return absl::OkStatus();
          }));
    }
    if (ShapeUtil::ElementsIn(update.shape()) == 0) return absl::OkStatus();
    elements.ClearCache();
    ASSIGN_OR_RETURN(
        std::vector<llvm::Value*> starts,
        elements.WindowStarts(dus, 2, shape, update.shape().dimensions()));
    return EmitLoopNest(
        b, update.shape().dimensions(),
        [&](const IrIndex& index) -> absl::Status {
          elements.ClearCache();
          ASSIGN_OR_RETURN(llvm::Value * value,
                           elements.Generate(update, index));
          IrIndex target(index.size());
          for (size_t d = 0; d < index.size(); ++d) {
            target[d] = b.CreateAdd(index[d], starts[d], "", true, true);
          }
          StoreElement(
              b, type, result,
              ElementalEmitter::Linearize(b, shape.dimensions(), target),
              value);
          return absl::OkStatus();
        });
  });
}

// A reduction fusion's body per its ReductionPlan, and the combine kernel
// of a split one.
absl::Status EmitReductionKernel(
    llvm::IRBuilder<>& b, llvm::Module& module, const HloComputation& fused,
    const ReductionPlan& plan, ElementalEmitter& elements,
    const std::vector<llvm::Value*>& results, llvm::Value* scratch,
    llvm::Value* begin, llvm::Value* end, const CodegenOptions& options,
    int64_t inputs, int64_t buffer_count, KernelInfo& info) {
  info.units = plan.units;
  if (plan.chunks > 0) {
    info.scratch_bytes = plan.scratch_bytes;
    // '$' cannot occur in an HLO name, so no kernel symbol collides.
    info.combine_symbol = info.symbol + "$combine";
  }
  if (info.units > 0) {
    RETURN_IF_ERROR(EmitReduction(b, *fused.root_instruction(), elements,
                                  results, scratch, begin, end, plan,
                                  options));
  }
  if (plan.chunks == 0) return absl::OkStatus();
  return EmitCombineKernel(module, info.combine_symbol, fused, inputs,
                           buffer_count, plan);
}

int64_t ScratchBuffers(const FusionPlan& plan) {
  const auto* reduction = std::get_if<ReductionPlan>(&plan.config);
  return reduction != nullptr && reduction->chunks > 0 ? 1 : 0;
}

// What codegen refuses before emitting anything: a fusion without a plan,
// or a tuple result outside a (variadic) reduction.
absl::Status CheckEmittable(const HloInstruction& fusion) {
  RET_CHECK(fusion.opcode() == HloOpcode::kFusion, fusion.ToString());
  if (fusion.fusion_plan() == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "codegen: fusion '", fusion.name(),
        "' has no plan; run the fusion-planning pass "
        "(passes/fusion_planning.h) after fusion and row-fusion"));
  }
  if (!fusion.fusion_plan()->is_reduction() && fusion.shape().IsTuple()) {
    return absl::UnimplementedError(absl::StrCat(
        "codegen: loop fusion '", fusion.name(),
        "' has a tuple result; only a variadic reduce may return several"));
  }
  return absl::OkStatus();
}

// The body function's arguments by role: the inputs' buffers, the
// outputs', a split reduction's scratch (or null), and the unit range.
struct BodyArguments {
  std::vector<llvm::Value*> parameters, results;
  llvm::Value* scratch;
  llvm::Value* begin;
  llvm::Value* end;
};

BodyArguments ArgumentsOf(llvm::Function* body, int64_t inputs, size_t outputs,
                          int64_t buffer_count, bool has_scratch) {
  BodyArguments arguments;
  for (int64_t i = 0; i < inputs; ++i) {
    arguments.parameters.push_back(body->getArg(i));
  }
  for (size_t i = 0; i < outputs; ++i) {
    arguments.results.push_back(body->getArg(inputs + i));
  }
  arguments.scratch = has_scratch ? body->getArg(buffer_count - 1) : nullptr;
  arguments.begin = body->getArg(buffer_count);
  arguments.end = body->getArg(buffer_count + 1);
  return arguments;
}

// A dot fusion's body: the depthwise kernel where the dot is a depthwise
// convolution's product, else the packed matrix multiplication.
absl::Status EmitDotFusion(llvm::IRBuilder<>& b, const HloComputation& fused,
                           const DotPlan& dot, ElementalEmitter& elements,
                           const BodyArguments& args,
                           const CodegenOptions& options, KernelInfo& info) {
  info.units = dot.units;
  if (info.units == 0) return absl::OkStatus();
  const HloInstruction* depthwise = dot.rows ? nullptr : FusedDot(fused);
  if (depthwise != nullptr && IsDepthwiseProduct(*depthwise)) {
    return EmitDepthwiseKernel(b, fused, *depthwise, dot, elements,
                               args.results[0], args.begin, args.end);
  }
  return EmitDotKernel(b, fused, dot, elements, args.results[0], args.begin,
                       args.end, options);
}

// The body per the plan's kind; sets info.units (and a split reduction's
// scratch and combine kernel).
absl::Status EmitPlannedBody(llvm::IRBuilder<>& b, llvm::Module& module,
                             const HloComputation& fused,
                             const FusionPlan& plan, ElementalEmitter& elements,
                             const BodyArguments& args, int64_t in_place,
                             int64_t buffer_count,
                             const CodegenOptions& options, KernelInfo& info) {
  if (const auto* row = std::get_if<RowPlan>(&plan.config)) {
    info.units = ShapeUtil::ElementsIn(
        ShapeUtil::MakeShape(F32, row->row_dimensions));
    if (info.units == 0) return absl::OkStatus();
    return EmitRowFusion(b, fused, *row, elements, args.results[0], args.begin,
                         args.end, options);
  }
  if (const auto* dot = std::get_if<DotPlan>(&plan.config)) {
    return EmitDotFusion(b, fused, *dot, elements, args, options, info);
  }
  if (const auto* reduction = std::get_if<ReductionPlan>(&plan.config)) {
    return EmitReductionKernel(b, module, fused, *reduction, elements,
                               args.results, args.scratch, args.begin, args.end,
                               options, args.parameters.size(), buffer_count,
                               info);
  }
  if (in_place >= 0) {
    return EmitInPlaceDynamicUpdateSlice(
        b, *fused.root_instruction(), elements, args.parameters[in_place],
        args.results[0], args.begin, args.end, info);
  }
  return EmitLoop(b, *fused.root_instruction(), std::get<LoopPlan>(plan.config),
                  elements, args.results[0], args.begin, args.end, info);
}

// The bytes a unit moves, for the runtime's split of units over threads.
int64_t BytesPerUnit(const HloInstruction& fusion, const FusionPlan& plan,
                     int64_t units, bool in_place) {
  const int64_t bytes = FusionTrafficBytes(fusion);
  int64_t per_unit = units > 0 ? bytes / units : 0;
  if (in_place) per_unit = 0;  // one unit, never split
  if (const auto* dot = std::get_if<DotPlan>(&plan.config)) {
    // A dot's units compute far more than they move: count a unit's
    // multiply-adds as bytes (about what one streams in their time).
    per_unit = std::max(per_unit, dot->m_block * dot->n_block * dot->k_block);
  }
  return per_unit;
}

}  // namespace

absl::StatusOr<KernelInfo> EmitFusionKernel(const HloInstruction& fusion,
                                            const std::string& symbol,
                                            const CodegenOptions& options,
                                            llvm::Module& module) {
  RETURN_IF_ERROR(CheckEmittable(fusion));
  const FusionPlan& plan = *fusion.fusion_plan();
  const HloComputation& fused = *fusion.to_apply();
  const int64_t inputs = fusion.operand_count();
  const size_t outputs = OutputShapes(fusion).size();
  const int64_t buffer_count = inputs + outputs + ScratchBuffers(plan);
  const int64_t in_place = InPlaceFusionOperand(fusion);
  llvm::Function* body = CreateBodyFunction(
      module, symbol, buffer_count,
      in_place >= 0 ? std::make_pair(in_place, inputs)
                    : std::make_pair<int64_t, int64_t>(-1, -1));
  llvm::IRBuilder<> b(
      llvm::BasicBlock::Create(module.getContext(), "entry", body));
  const BodyArguments args = ArgumentsOf(body, inputs, outputs, buffer_count,
                                         ScratchBuffers(plan) > 0);
  ElementalEmitter elements(b, fused, args.parameters);
  KernelInfo info{fusion.name(), symbol, 0, 0, 0, ""};
  RETURN_IF_ERROR(EmitPlannedBody(b, module, fused, plan, elements, args,
                                  in_place, buffer_count, options, info));
  b.CreateRetVoid();
  EmitEntryWrapper(module, symbol, body, buffer_count);
  info.bytes_per_unit = BytesPerUnit(fusion, plan, info.units, in_place >= 0);
  return info;
}

}  // namespace mxla::codegen
