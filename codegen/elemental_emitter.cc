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

absl::Status ElementalEmitter::NotFusible(const HloInstruction& instruction) {
  return absl::UnimplementedError(
      absl::StrCat("codegen: '", instruction.name(), "' (",
                   HloOpcodeString(instruction.opcode()),
                   ") cannot be generated element by element inside a fusion"));
}

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

}  // namespace mxla::codegen
