#include "codegen/elemental_emitter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "codegen/llvm_types.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace mxla::codegen {
namespace {

absl::Status NotFusible(const HloInstruction& instruction) {
  return absl::UnimplementedError(
      absl::StrCat("codegen: '", instruction.name(), "' (",
                   HloOpcodeString(instruction.opcode()),
                   ") cannot be generated element by element inside a fusion"));
}

}  // namespace

ElementalEmitter::ElementalEmitter(llvm::IRBuilder<>& b,
                                   const HloComputation& computation,
                                   std::vector<llvm::Value*> parameter_buffers)
    : b_(b),
      computation_(computation),
      parameter_buffers_(std::move(parameter_buffers)),
      scalars_(b) {}

void ElementalEmitter::BindScalar(int64_t number, llvm::Value* value) {
  bound_scalars_[number] = value;
}

void ElementalEmitter::Bind(const HloInstruction& instruction,
                            Generator generator) {
  bound_[&instruction] = std::move(generator);
}

llvm::Value* ElementalEmitter::Linearize(llvm::IRBuilder<>& b,
                                         absl::Span<const int64_t> dimensions,
                                         const IrIndex& index) {
  llvm::Value* linear = b.getInt64(0);
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(dimensions.size()) - 1; i >= 0; --i) {
    if (dimensions[i] != 1) {
      llvm::Value* term =
          stride == 1 ? index[i]
                      : b.CreateMul(index[i], b.getInt64(stride), "",
                                    /*HasNUW=*/true, /*HasNSW=*/true);
      linear = b.CreateAdd(linear, term, "", /*HasNUW=*/true, /*HasNSW=*/true);
    }
    stride *= dimensions[i];
  }
  return linear;
}

IrIndex ElementalEmitter::Delinearize(llvm::IRBuilder<>& b,
                                      absl::Span<const int64_t> dimensions,
                                      llvm::Value* linear) {
  IrIndex index(dimensions.size());
  // The outermost dimension that is not 1 needs no wrap-around.
  int64_t outermost = 0;
  while (outermost + 1 < static_cast<int64_t>(dimensions.size()) &&
         dimensions[outermost] == 1) {
    ++outermost;
  }
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(dimensions.size()) - 1; i >= 0; --i) {
    if (dimensions[i] == 1) {
      index[i] = b.getInt64(0);
    } else {
      llvm::Value* quotient =
          stride == 1 ? linear : b.CreateUDiv(linear, b.getInt64(stride));
      index[i] = i == outermost
                     ? quotient
                     : b.CreateURem(quotient, b.getInt64(dimensions[i]));
    }
    stride *= dimensions[i];
  }
  return index;
}

// A reshape maps coordinates group by group: the dimensions of both shapes
// split into the shortest runs with equal products (where the row-major
// prefix products meet), and only inside a run does an index go through a
// linear position. So [6,4] -> [2,3,4] maps the 4 straight through and
// divides only within {6} <-> {2,3}: the innermost coordinate of a reshape
// that keeps the last dimension needs no division, and what division is
// left depends on outer coordinates only, which LLVM hoists out of the
// inner loop.
IrIndex ElementalEmitter::ReshapeOperandIndex(const HloInstruction& reshape,
                                              const IrIndex& index) {
  absl::Span<const int64_t> out_dims = reshape.shape().dimensions();
  absl::Span<const int64_t> in_dims = reshape.operand(0)->shape().dimensions();
  if (std::find(in_dims.begin(), in_dims.end(), 0) != in_dims.end()) {
    // No elements: any index map will do.
    return Delinearize(b_, in_dims, Linearize(b_, out_dims, index));
  }
  IrIndex operand_index;
  size_t i = 0, j = 0;
  while (i < in_dims.size() || j < out_dims.size()) {
    const size_t in_begin = i, out_begin = j;
    int64_t in_product = 1, out_product = 1;
    // Grow the side with the smaller product until both agree; size-1
    // dimensions right after an agreement join the run.
    auto take_out = [&] { out_product *= out_dims[j++]; };
    auto take_in = [&] { in_product *= in_dims[i++]; };
    const bool out_left = j < out_dims.size(), in_left = i < in_dims.size();
    if (out_left) take_out();
    if (in_left) take_in();
    while (true) {
      const bool more_out = j < out_dims.size(), more_in = i < in_dims.size();
      if (in_product == out_product) {
        if (more_out && out_dims[j] == 1) {
          take_out();
        } else if (more_in && in_dims[i] == 1) {
          take_in();
        } else {
          break;
        }
      } else if (out_product < in_product && more_out) {
        take_out();
      } else {
        take_in();
      }
    }
    IrIndex out_run(index.begin() + out_begin, index.begin() + j);
    IrIndex in_run = Delinearize(
        b_, in_dims.subspan(in_begin, i - in_begin),
        Linearize(b_, out_dims.subspan(out_begin, j - out_begin), out_run));
    operand_index.insert(operand_index.end(), in_run.begin(), in_run.end());
  }
  return operand_index;
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalEmitter::WindowStarts(
    const HloInstruction& instruction, int64_t first_start,
    const Shape& operand, absl::Span<const int64_t> window) {
  // XLA's older form holds every start in one vector operand.
  const bool one_vector =
      instruction.operand_count() == first_start + 1 &&
      instruction.operand(first_start)->shape().rank() == 1;
  std::vector<llvm::Value*> starts;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const HloInstruction& start_op =
        *instruction.operand(one_vector ? first_start : first_start + d);
    IrIndex start_index;
    if (one_vector) start_index.push_back(b_.getInt64(d));
    ASSIGN_OR_RETURN(llvm::Value * start, Generate(start_op, start_index));
    llvm::Value* max = b_.getInt64(operand.dimensions(d) - window[d]);
    if (primitive_util::IsSignedIntegralType(start_op.shape().element_type())) {
      start = b_.CreateSExt(start, b_.getInt64Ty());
      starts.push_back(b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::smax,
          b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, start, max),
          b_.getInt64(0)));
    } else {
      start = b_.CreateZExt(start, b_.getInt64Ty());
      starts.push_back(
          b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, start, max));
    }
  }
  return starts;
}

absl::StatusOr<IrIndex> ElementalEmitter::GatherOperandIndex(
    const HloInstruction& gather, const IrIndex& index) {
  const Shape& operand = gather.operand(0)->shape();
  const HloInstruction& indices = *gather.operand(1);
  const Shape& index_shape = indices.shape();
  const GatherDimensionNumbers dnums = gather.gather_dimension_numbers();
  const std::vector<int64_t> sizes = gather.gather_slice_sizes();
  const std::vector<int64_t> batch_dims = dnums.BatchDims(index_shape.rank());
  const std::vector<int64_t> slice_dims = dnums.SliceDims(operand.rank());
  // The start indices' position: the output's batch dimensions.
  IrIndex batch_index(index_shape.rank(), b_.getInt64(0));
  for (size_t d = 0, b = 0; d < index.size(); ++d) {
    if (!dnums.IsOffsetDim(d)) batch_index[batch_dims[b++]] = index[d];
  }
  IrIndex at(operand.rank(), b_.getInt64(0));
  const bool is_signed =
      primitive_util::IsSignedIntegralType(index_shape.element_type());
  for (size_t k = 0; k < dnums.start_index_map.size(); ++k) {
    IrIndex element = batch_index;
    if (dnums.index_vector_dim < index_shape.rank()) {
      element[dnums.index_vector_dim] = b_.getInt64(k);
    }
    ASSIGN_OR_RETURN(llvm::Value * start, Generate(indices, element));
    const int64_t d = dnums.start_index_map[k];
    llvm::Value* max = b_.getInt64(operand.dimensions(d) - sizes[d]);
    if (is_signed) {
      start = b_.CreateSExt(start, b_.getInt64Ty());
      start = b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::smax,
          b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, start, max),
          b_.getInt64(0));
    } else {
      start = b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, b_.CreateZExt(start, b_.getInt64Ty()), max);
    }
    at[d] = start;
  }
  for (size_t i = 0; i < dnums.operand_batching_dims.size(); ++i) {
    at[dnums.operand_batching_dims[i]] =
        batch_index[dnums.start_indices_batching_dims[i]];
  }
  for (size_t j = 0; j < dnums.offset_dims.size(); ++j) {
    at[slice_dims[j]] = b_.CreateAdd(at[slice_dims[j]],
                                     index[dnums.offset_dims[j]], "", true,
                                     true);
  }
  return at;
}

absl::StatusOr<IrIndex> ElementalEmitter::OperandIndex(
    const HloInstruction& instruction, int64_t operand_number,
    const IrIndex& index) {
  const HloInstruction& operand = *instruction.operand(operand_number);
  if (operand.shape().IsScalar()) return IrIndex{};
  switch (instruction.opcode()) {
    case HloOpcode::kBroadcast: {
      IrIndex operand_index;
      for (int64_t d : instruction.dimensions()) {
        operand_index.push_back(index[d]);
      }
      return operand_index;
    }
    case HloOpcode::kTranspose: {
      IrIndex operand_index(index.size());
      for (size_t i = 0; i < index.size(); ++i) {
        operand_index[instruction.dimensions(i)] = index[i];
      }
      return operand_index;
    }
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
      return ReshapeOperandIndex(instruction, index);
    case HloOpcode::kConcatenate: {
      // Every operand is read, at its own offset clamped into range; the
      // element generator then selects the one whose range holds the index.
      const int64_t d = instruction.dimensions(0);
      int64_t offset = 0;
      for (int64_t i = 0; i < operand_number; ++i) {
        offset += instruction.operand(i)->shape().dimensions(d);
      }
      const int64_t size = operand.shape().dimensions(d);
      IrIndex operand_index = index;
      llvm::Value* shifted = b_.CreateSub(index[d], b_.getInt64(offset));
      llvm::Value* low = b_.CreateSelect(
          b_.CreateICmpSLT(shifted, b_.getInt64(0)), b_.getInt64(0), shifted);
      operand_index[d] = b_.CreateSelect(
          b_.CreateICmpSGT(low, b_.getInt64(size - 1)),
          b_.getInt64(size - 1), low);
      return operand_index;
    }
    case HloOpcode::kDynamicSlice: {
      // The start vector of XLA's older form is read element by element in
      // WindowStarts; its own index here is only a placeholder.
      if (operand_number != 0) return IrIndex{b_.getInt64(0)};
      ASSIGN_OR_RETURN(
          std::vector<llvm::Value*> starts,
          WindowStarts(instruction, 1, operand.shape(),
                       instruction.dynamic_slice_sizes()));
      IrIndex operand_index(index.size());
      for (size_t d = 0; d < index.size(); ++d) {
        operand_index[d] = b_.CreateAdd(index[d], starts[d], "", true, true);
      }
      return operand_index;
    }
    case HloOpcode::kDynamicUpdateSlice: {
      if (operand_number == 0) return index;
      if (operand_number != 1) return IrIndex{b_.getInt64(0)};
      // The update element under the output element, clamped into the
      // update so that the load stays in bounds where the select below
      // takes the operand instead.
      const Shape& update = operand.shape();
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                       WindowStarts(instruction, 2,
                                    instruction.operand(0)->shape(),
                                    update.dimensions()));
      IrIndex update_index(index.size());
      for (size_t d = 0; d < index.size(); ++d) {
        llvm::Value* offset = b_.CreateSub(index[d], starts[d]);
        update_index[d] = b_.CreateBinaryIntrinsic(
            llvm::Intrinsic::smax,
            b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, offset,
                                     b_.getInt64(update.dimensions(d) - 1)),
            b_.getInt64(0));
      }
      return update_index;
    }
    case HloOpcode::kCustomCall:
      return index;
    case HloOpcode::kGather:
      return GatherOperandIndex(instruction, index);
    case HloOpcode::kReverse: {
      IrIndex operand_index = index;
      for (int64_t d : instruction.dimensions()) {
        operand_index[d] = b_.CreateSub(
            b_.getInt64(operand.shape().dimensions(d) - 1), index[d]);
      }
      return operand_index;
    }
    case HloOpcode::kBitcastConvert: {
      // Narrower result: the operand element holding this piece; wider
      // result: its first piece (EmitOne generates the others).
      const int64_t operand_rank = operand.shape().rank();
      IrIndex operand_index(index.begin(),
                            index.begin() + std::min<int64_t>(
                                                operand_rank, index.size()));
      if (operand_rank > static_cast<int64_t>(index.size())) {
        operand_index.push_back(b_.getInt64(0));
      }
      return operand_index;
    }
    case HloOpcode::kPad: {
      // The operand element this output element would be, clamped into
      // the operand so the load is in bounds where EmitOne picks the
      // padding value instead.
      IrIndex operand_index(index.size());
      const PaddingConfig config = instruction.padding_config();
      for (size_t d = 0; d < index.size(); ++d) {
        llvm::Value* t = b_.CreateSub(index[d], b_.getInt64(config[d].low));
        llvm::Value* i =
            b_.CreateSDiv(t, b_.getInt64(config[d].interior + 1));
        operand_index[d] = b_.CreateBinaryIntrinsic(
            llvm::Intrinsic::smax,
            b_.CreateBinaryIntrinsic(
                llvm::Intrinsic::smin, i,
                b_.getInt64(operand.shape().dimensions(d) - 1)),
            b_.getInt64(0));
      }
      return operand_index;
    }
    case HloOpcode::kSlice: {
      const std::vector<int64_t> starts = instruction.slice_starts();
      const std::vector<int64_t> strides = instruction.slice_strides();
      IrIndex operand_index(index.size());
      for (size_t d = 0; d < index.size(); ++d) {
        operand_index[d] = b_.CreateAdd(
            b_.CreateMul(index[d], b_.getInt64(strides[d]), "", true, true),
            b_.getInt64(starts[d]), "", true, true);
      }
      return operand_index;
    }
    default:
      break;
  }
  if (IsElementwise(instruction.opcode())) {
    RET_CHECK(operand.shape().rank() == static_cast<int64_t>(index.size()),
              instruction.ToString());
    return index;
  }
  return NotFusible(instruction);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::Generate(
    const HloInstruction& root, const IrIndex& root_index) {
  struct Frame {
    const HloInstruction* instruction;
    IrIndex index;
    std::vector<IrIndex> operand_indices;
    bool expanded = false;
  };
  std::vector<Frame> stack;
  stack.push_back({&root, root_index, {}});
  while (!stack.empty()) {
    Frame& frame = stack.back();
    Key key{frame.instruction, frame.index};
    if (cache_.contains(key)) {
      stack.pop_back();
      continue;
    }
    if (frame.expanded) {
      ASSIGN_OR_RETURN(
          llvm::Value * value,
          EmitOne(*frame.instruction, frame.index, frame.operand_indices));
      cache_.emplace(std::move(key), value);
      stack.pop_back();
      continue;
    }
    frame.expanded = true;
    const HloInstruction& instruction = *frame.instruction;
    if (instruction.opcode() == HloOpcode::kParameter ||
        instruction.opcode() == HloOpcode::kConstant ||
        instruction.opcode() == HloOpcode::kIota ||
        instruction.opcode() == HloOpcode::kGetDimensionSize ||
        bound_.contains(&instruction)) {
      continue;
    }
    // gather reads its start indices inside OperandIndex; only its
    // operand's element is generated here.
    const int64_t generated = instruction.opcode() == HloOpcode::kGather
                                  ? 1
                                  : instruction.operand_count();
    for (int64_t i = 0; i < generated; ++i) {
      ASSIGN_OR_RETURN(IrIndex operand_index,
                       OperandIndex(instruction, i, frame.index));
      frame.operand_indices.push_back(operand_index);
    }
    // `frame` may move when the stack grows: copy what the pushes need.
    std::vector<IrIndex> operand_indices = frame.operand_indices;
    for (int64_t i = 0; i < generated; ++i) {
      stack.push_back({instruction.operand(i), operand_indices[i], {}});
    }
  }
  return cache_.at(Key{&root, root_index});
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalEmitter::GenerateRoot(
    const IrIndex& index) {
  const HloInstruction* root = computation_.root_instruction();
  std::vector<llvm::Value*> values;
  if (root->opcode() != HloOpcode::kTuple) {
    ASSIGN_OR_RETURN(llvm::Value * value, Generate(*root, index));
    values.push_back(value);
    return values;
  }
  for (const HloInstruction* element : root->operands()) {
    ASSIGN_OR_RETURN(llvm::Value * value, Generate(*element, index));
    values.push_back(value);
  }
  return values;
}

llvm::Value* ElementalEmitter::EmitConstant(const HloInstruction& constant,
                                            const IrIndex& index) {
  const Literal& literal = constant.literal();
  PrimitiveType type = literal.shape().element_type();
  llvm::LLVMContext& context = b_.getContext();
  if (literal.shape().IsScalar()) {
    if (type == PRED) return b_.getInt1(literal.data<bool>()[0]);
    return primitive_util::ArrayTypeSwitch(type, [&](auto tag) -> llvm::Value* {
      using T = typename decltype(tag)::type;
      T value = literal.data<T>()[0];
      if constexpr (std::is_floating_point_v<T>) {
        return llvm::ConstantFP::get(RegisterType(type, context),
                                     static_cast<double>(value));
      } else if constexpr (kIsNarrowFloat<T>) {
        return llvm::ConstantFP::get(RegisterType(type, context),
                                     static_cast<float>(value));
      } else if constexpr (kIsSubByteInt<T>) {
        return llvm::ConstantInt::get(RegisterType(type, context),
                                      static_cast<uint64_t>(value.value()),
                                      /*IsSigned=*/T::kSigned);
      } else {
        return llvm::ConstantInt::get(RegisterType(type, context),
                                      static_cast<uint64_t>(value),
                                      /*IsSigned=*/true);
      }
    });
  }
  // An array constant inside a fusion becomes a private global.
  llvm::Module* module = b_.GetInsertBlock()->getModule();
  auto* bytes = llvm::ConstantDataArray::getRaw(
      llvm::StringRef(static_cast<const char*>(literal.untyped_data()),
                      literal.size_bytes()),
      literal.element_count(), MemoryType(type, context));
  auto* global = new llvm::GlobalVariable(
      *module, bytes->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, bytes, constant.name());
  global->setAlignment(llvm::Align(64));
  return LoadElement(
      b_, type, global,
      Linearize(b_, literal.shape().dimensions(), index));
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitBitcastConvert(
    const HloInstruction& instruction, const IrIndex& index,
    llvm::Value* first) {
  const HloInstruction& operand = *instruction.operand(0);
  const PrimitiveType from = operand.shape().element_type();
  const PrimitiveType to = instruction.shape().element_type();
  const int64_t from_bits = primitive_util::ByteWidth(from) * 8;
  const int64_t to_bits = primitive_util::ByteWidth(to) * 8;
  llvm::Value* bits = scalars_.ToBits(from, first);
  if (from_bits > to_bits) {
    // Piece j of the element (least significant first) is this element.
    llvm::Value* shift = b_.CreateMul(
        b_.CreateZExtOrTrunc(index.back(), bits->getType()),
        llvm::ConstantInt::get(bits->getType(), to_bits));
    bits = b_.CreateTrunc(b_.CreateLShr(bits, shift), b_.getIntNTy(to_bits));
  } else if (from_bits < to_bits) {
    // Join the operand's pieces along its last dimension.
    llvm::Type* wide = b_.getIntNTy(to_bits);
    llvm::Value* joined = b_.CreateZExt(bits, wide);
    IrIndex piece_index = index;
    piece_index.push_back(nullptr);
    for (int64_t j = 1; j < to_bits / from_bits; ++j) {
      piece_index.back() = b_.getInt64(j);
      ASSIGN_OR_RETURN(llvm::Value * piece, Generate(operand, piece_index));
      llvm::Value* piece_bits =
          b_.CreateZExt(scalars_.ToBits(from, piece), wide);
      joined = b_.CreateOr(joined, b_.CreateShl(piece_bits, j * from_bits));
    }
    bits = joined;
  }
  return scalars_.FromBits(to, bits);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitOne(
    const HloInstruction& instruction, const IrIndex& index,
    const std::vector<IrIndex>& operand_indices) {
  auto operand = [&](int64_t i) {
    return cache_.at(Key{instruction.operand(i), operand_indices[i]});
  };
  if (auto bound = bound_.find(&instruction); bound != bound_.end()) {
    return bound->second(index);
  }
  PrimitiveType type = instruction.shape().element_type();
  switch (instruction.opcode()) {
    case HloOpcode::kParameter: {
      int64_t number = instruction.parameter_number();
      if (auto bound = bound_scalars_.find(number);
          bound != bound_scalars_.end()) {
        return bound->second;
      }
      RET_CHECK(number < static_cast<int64_t>(parameter_buffers_.size()) &&
                    parameter_buffers_[number] != nullptr,
                instruction.ToString());
      return LoadElement(
          b_, type, parameter_buffers_[number],
          Linearize(b_, instruction.shape().dimensions(), index));
    }
    case HloOpcode::kConstant:
      return EmitConstant(instruction, index);
    case HloOpcode::kReplicaId:  // mxla runs one replica of one partition
    case HloOpcode::kPartitionId:
      return b_.getInt32(0);
    case HloOpcode::kIota:
      return scalars_.Convert(S64, type, index[instruction.iota_dimension()]);
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kGather:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kCustomCall:  // only identity targets verify
      return operand(0);
    case HloOpcode::kPad: {
      // An operand element where the output element is one: past the low
      // padding, on the interior stride, and before the operand's end.
      const PaddingConfig config = instruction.padding_config();
      const Shape& in = instruction.operand(0)->shape();
      llvm::Value* is_operand = b_.getTrue();
      for (size_t d = 0; d < index.size(); ++d) {
        llvm::Value* t = b_.CreateSub(index[d], b_.getInt64(config[d].low));
        const int64_t step = config[d].interior + 1;
        llvm::Value* on_stride =
            step == 1 ? b_.getTrue()
                      : b_.CreateICmpEQ(b_.CreateSRem(t, b_.getInt64(step)),
                                        b_.getInt64(0));
        llvm::Value* below_end =
            b_.CreateICmpSLT(t, b_.getInt64(in.dimensions(d) * step));
        is_operand = b_.CreateAnd(
            is_operand,
            b_.CreateAnd(b_.CreateICmpSGE(t, b_.getInt64(0)),
                         b_.CreateAnd(on_stride, below_end)));
      }
      return b_.CreateSelect(is_operand, operand(0), operand(1));
    }
    case HloOpcode::kDynamicUpdateSlice: {
      // The update where the output element lies in its window.
      const Shape& update = instruction.operand(1)->shape();
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                       WindowStarts(instruction, 2, instruction.shape(),
                                    update.dimensions()));
      llvm::Value* inside = b_.getTrue();
      for (size_t d = 0; d < index.size(); ++d) {
        llvm::Value* end =
            b_.CreateAdd(starts[d], b_.getInt64(update.dimensions(d)));
        inside = b_.CreateAnd(
            inside, b_.CreateAnd(b_.CreateICmpSGE(index[d], starts[d]),
                                 b_.CreateICmpSLT(index[d], end)));
      }
      return b_.CreateSelect(inside, operand(1), operand(0));
    }
    case HloOpcode::kConcatenate: {
      const int64_t d = instruction.dimensions(0);
      int64_t end = 0;
      llvm::Value* value = operand(instruction.operand_count() - 1);
      std::vector<int64_t> ends;
      for (const HloInstruction* part : instruction.operands()) {
        end += part->shape().dimensions(d);
        ends.push_back(end);
      }
      for (int64_t i = instruction.operand_count() - 2; i >= 0; --i) {
        value = b_.CreateSelect(
            b_.CreateICmpSLT(index[d], b_.getInt64(ends[i])), operand(i),
            value);
      }
      return value;
    }
    case HloOpcode::kConvert:
      return scalars_.Convert(instruction.operand(0)->shape().element_type(),
                              type, operand(0));
    case HloOpcode::kIsFinite:
      return scalars_.IsFinite(operand(0));
    case HloOpcode::kReducePrecision:
      return scalars_.ReducePrecision(type, operand(0),
                                      instruction.exponent_bits(),
                                      instruction.mantissa_bits());
    case HloOpcode::kClamp: {
      // min(max(x, low), high), in the operand order the interpreter uses.
      ASSIGN_OR_RETURN(llvm::Value * low,
                       scalars_.Binary(HloOpcode::kMaximum, type, operand(1),
                                       operand(0)));
      return scalars_.Binary(HloOpcode::kMinimum, type, low, operand(2));
    }
    case HloOpcode::kGetDimensionSize:
      return b_.getInt32(instruction.operand(0)->shape().dimensions(
          instruction.dimensions(0)));
    case HloOpcode::kBitcastConvert:
      return EmitBitcastConvert(instruction, index, operand(0));
    case HloOpcode::kSelect:
      return b_.CreateSelect(operand(0), operand(1), operand(2));
    case HloOpcode::kCompare:
      return scalars_.Compare(instruction.comparison_direction(),
                              instruction.operand(0)->shape().element_type(),
                              operand(0), operand(1),
                              instruction.total_order_comparison());
    default:
      break;
  }
  switch (GetHloOpcodeCategory(instruction.opcode())) {
    case HloOpcodeCategory::kUnary:
      return scalars_.Unary(instruction.opcode(), type, operand(0));
    case HloOpcodeCategory::kBinary:
      return scalars_.Binary(instruction.opcode(), type, operand(0),
                             operand(1));
    default:
      return NotFusible(instruction);
  }
}

}  // namespace mxla::codegen
