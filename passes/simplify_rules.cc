#include "passes/simplify_rules.h"

#include <cmath>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "ir/fusion_plan.h"
#include "ir/hlo_computation.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/simplify.h"

namespace mxla::simplify {
namespace {

HloInstruction* AddNext(HloInstruction* like,
                        std::unique_ptr<HloInstruction> instruction) {
  instruction->set_metadata(like->metadata());
  return like->parent()->AddInstruction(std::move(instruction));
}

bool IsIdentityPermutation(absl::Span<const int64_t> dims) {
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    if (dims[i] != i) return false;
  }
  return true;
}

// The scalar value every element of `instruction` has, if it is a constant
// (or a broadcast of a scalar constant) with all elements equal.
std::optional<double> UniformConstantValue(const HloInstruction* instruction,
                                           bool* negative) {
  if (instruction->opcode() == HloOpcode::kBroadcast &&
      instruction->operand(0)->shape().IsScalar()) {
    instruction = instruction->operand(0);
  }
  if (instruction->opcode() != HloOpcode::kConstant) return std::nullopt;
  const Literal& literal = instruction->literal();
  if (literal.element_count() == 0) return std::nullopt;
  double first = literal.GetAsDouble(0);
  for (int64_t i = 1; i < literal.element_count(); ++i) {
    double value = literal.GetAsDouble(i);
    if (value != first || std::signbit(value) != std::signbit(first)) {
      return std::nullopt;
    }
  }
  *negative = std::signbit(first);
  return first;
}

// For `op(x, c)` where c is uniformly `value` (with the given sign for float
// zeros), returns x if it already has the result's shape.
HloInstruction* KeepIfOther(HloInstruction* instruction, int64_t constant_index,
                            double value, std::optional<bool> float_negative) {
  bool negative = false;
  std::optional<double> c =
      UniformConstantValue(instruction->operand(constant_index), &negative);
  if (!c.has_value() || *c != value) return nullptr;
  bool is_float =
      primitive_util::IsFloatingPointType(instruction->shape().element_type());
  if (is_float && float_negative.has_value() && negative != *float_negative) {
    return nullptr;
  }
  HloInstruction* other = instruction->mutable_operand(1 - constant_index);
  return other->shape() == instruction->shape() ? other : nullptr;
}

absl::StatusOr<HloInstruction*> IdentityShapeOp(HloInstruction* instruction) {
  HloInstruction* operand = instruction->operand_count() == 1
                                ? instruction->mutable_operand(0)
                                : nullptr;
  switch (instruction->opcode()) {
    case HloOpcode::kReshape:
    case HloOpcode::kConvert:
      break;
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
      if (!IsIdentityPermutation(instruction->dimensions())) return nullptr;
      break;
    default:
      return nullptr;
  }
  return operand->shape() == instruction->shape() ? operand : nullptr;
}

// pad with no padding, a slice of everything, a concatenate of one operand,
// a custom-call that is an identity, a reverse of dimensions of size 1, a
// bitcast-convert to the same type, an opt-barrier (a scheduling fence, with
// nothing to fence on one device), a domain (a sharding boundary, with
// nothing to shard): the operand itself.
absl::StatusOr<HloInstruction*> NoOpIndexOp(HloInstruction* instruction) {
  if (instruction->operand_count() == 0) return nullptr;
  HloInstruction* operand = instruction->mutable_operand(0);
  if (operand->shape() != instruction->shape()) return nullptr;
  switch (instruction->opcode()) {
    case HloOpcode::kPad:
      for (const PaddingDimension& d : instruction->padding_config()) {
        if (d != PaddingDimension{}) return nullptr;
      }
      return operand;
    case HloOpcode::kSlice:
      for (int64_t stride : instruction->slice_strides()) {
        if (stride != 1) return nullptr;
      }
      return operand;  // equal shapes: starts 0, limits the sizes
    case HloOpcode::kConcatenate:
    case HloOpcode::kCustomCall:  // only identity targets verify
      return instruction->operand_count() == 1 ? operand : nullptr;
    case HloOpcode::kReverse:
      for (int64_t d : instruction->dimensions()) {
        if (operand->shape().dimensions(d) > 1) return nullptr;
      }
      return operand;
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
      return operand;
    default:
      return nullptr;
  }
}

// slice(slice(x)) reads x from s1 + s2 * t1 with stride t1 * t2.
absl::StatusOr<HloInstruction*> SliceOfSlice(HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kSlice ||
      instruction->operand(0)->opcode() != HloOpcode::kSlice) {
    return nullptr;
  }
  // An empty result's start can lie past x's end: left alone.
  if (ShapeUtil::ElementsIn(instruction->shape()) == 0) return nullptr;
  HloInstruction* inner = instruction->mutable_operand(0);
  const std::vector<int64_t> s1 = inner->slice_starts();
  const std::vector<int64_t> t1 = inner->slice_strides();
  const std::vector<int64_t> s2 = instruction->slice_starts();
  const std::vector<int64_t> t2 = instruction->slice_strides();
  std::vector<int64_t> starts, limits, strides;
  for (int64_t d = 0; d < instruction->shape().rank(); ++d) {
    const int64_t size = instruction->shape().dimensions(d);
    starts.push_back(s1[d] + s2[d] * t1[d]);
    strides.push_back(t1[d] * t2[d]);
    // Just past the last element read.
    limits.push_back(starts.back() + (size - 1) * strides.back() + 1);
  }
  auto slice = HloInstruction::CreateGeneric(
      HloOpcode::kSlice, instruction->shape(), {inner->mutable_operand(0)});
  slice->set_slice(starts, limits, strides);
  return AddNext(instruction, std::move(slice));
}

absl::StatusOr<HloInstruction*> ReshapeOfReshape(HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kReshape ||
      instruction->operand(0)->opcode() != HloOpcode::kReshape) {
    return nullptr;
  }
  return AddNext(instruction,
                 HloInstruction::CreateReshape(
                     instruction->shape(),
                     instruction->mutable_operand(0)->mutable_operand(0)));
}

absl::StatusOr<HloInstruction*> BroadcastOfBroadcast(
    HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kBroadcast ||
      instruction->operand(0)->opcode() != HloOpcode::kBroadcast) {
    return nullptr;
  }
  HloInstruction* inner = instruction->mutable_operand(0);
  // x's dimension i -> inner's dims[i] -> outer's dims[inner dims[i]].
  std::vector<int64_t> composed;
  for (int64_t d : inner->dimensions()) {
    composed.push_back(instruction->dimensions(d));
  }
  return AddNext(instruction, HloInstruction::CreateBroadcast(
                                  instruction->shape(),
                                  inner->mutable_operand(0), composed));
}

absl::StatusOr<HloInstruction*> TransposeOfTranspose(
    HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kTranspose ||
      instruction->operand(0)->opcode() != HloOpcode::kTranspose) {
    return nullptr;
  }
  HloInstruction* inner = instruction->mutable_operand(0);
  // Output dim i = inner dim outer[i] = x dim inner[outer[i]].
  std::vector<int64_t> composed;
  for (int64_t d : instruction->dimensions()) {
    composed.push_back(inner->dimensions(d));
  }
  return AddNext(instruction, HloInstruction::CreateTranspose(
                                  instruction->shape(),
                                  inner->mutable_operand(0), composed));
}

// One dot operand read through its transpose: the dimension numbers of
// the transpose's operand, if the operand's free dimensions keep their
// order (so the dot's result is laid out as before).
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>>
FoldedOperandDimensions(const HloInstruction& transpose,
                        const std::vector<int64_t>& batch,
                        const std::vector<int64_t>& contracting) {
  // Transpose dim i is its operand's dim perm[i].
  const std::vector<int64_t>& perm = transpose.dimensions();
  int64_t last_free = -1;
  for (int64_t d : DotFreeDimensions(transpose.shape().rank(), batch,
                                     contracting)) {
    if (perm[d] < last_free) return std::nullopt;
    last_free = perm[d];
  }
  std::vector<int64_t> new_batch, new_contracting;
  for (int64_t d : batch) new_batch.push_back(perm[d]);
  for (int64_t d : contracting) new_contracting.push_back(perm[d]);
  return std::make_pair(std::move(new_batch), std::move(new_contracting));
}

// dot(transpose(a), transpose(b)) -> dot(a, b) with the transposes folded
// into the dimension numbers, for each operand whose free dimensions the
// transpose leaves in order (XLA's transpose folding). The products and
// their order of summation are the same; the kernel then reads the
// operand as it is stored (a PyTorch Linear's [out, in] weights: 42 ms
// through the transpose for [31, 9216] x [9216, 2304] at 1 thread, 15 ms
// read in place).
absl::StatusOr<HloInstruction*> DotOfTranspose(HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kDot) return nullptr;
  DotDimensionNumbers dnums = instruction->dot_dimension_numbers();
  std::vector<HloInstruction*> operands = {instruction->mutable_operand(0),
                                           instruction->mutable_operand(1)};
  bool folded = false;
  for (int side = 0; side < 2; ++side) {
    HloInstruction* operand = operands[side];
    if (operand->opcode() != HloOpcode::kTranspose) continue;
    std::vector<int64_t>& batch = side == 0 ? dnums.lhs_batch : dnums.rhs_batch;
    std::vector<int64_t>& contracting =
        side == 0 ? dnums.lhs_contracting : dnums.rhs_contracting;
    auto dims = FoldedOperandDimensions(*operand, batch, contracting);
    if (!dims) continue;
    batch = std::move(dims->first);
    contracting = std::move(dims->second);
    operands[side] = operand->mutable_operand(0);
    folded = true;
  }
  if (!folded) return nullptr;
  std::unique_ptr<HloInstruction> dot =
      instruction->CloneWithNewOperands(instruction->shape(), operands);
  dot->set_dot_dimension_numbers(dnums);
  return AddNext(instruction, std::move(dot));
}

absl::StatusOr<HloInstruction*> ReshapeOfScalarBroadcast(
    HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kReshape ||
      instruction->operand(0)->opcode() != HloOpcode::kBroadcast ||
      !instruction->operand(0)->operand(0)->shape().IsScalar()) {
    return nullptr;
  }
  return AddNext(instruction,
                 HloInstruction::CreateBroadcast(
                     instruction->shape(),
                     instruction->mutable_operand(0)->mutable_operand(0), {}));
}

// XLA's reshape mover, for the one case it pays most: an elementwise op
// whose array operands are all reshapes of one shape (the rest broadcast
// scalars) runs on that shape, and one reshape follows it. keepdims code
// (mean(x, -1, keepdims=True) / n, then reshaped back to [rows] for its
// broadcast) then reshapes a reshape, the two fold, and the row's values
// stay rank-1 for the row fusion. Reshapes keep the elements' row-major
// order, so every element meets the same operands as before.
absl::StatusOr<HloInstruction*> ElementwiseOfReshapes(
    HloInstruction* instruction) {
  if (!IsElementwise(instruction->opcode()) ||
      !instruction->shape().IsArray()) {
    return nullptr;
  }
  const Shape* inner = nullptr;
  for (const HloInstruction* operand : instruction->operands()) {
    if (operand->opcode() == HloOpcode::kBroadcast &&
        operand->operand(0)->shape().IsScalar()) {
      continue;
    }
    if (operand->opcode() != HloOpcode::kReshape) return nullptr;
    const Shape& shape = operand->operand(0)->shape();
    if (inner != nullptr && shape.dimensions() != inner->dimensions()) {
      return nullptr;
    }
    inner = &shape;
  }
  if (inner == nullptr) return nullptr;
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < instruction->operand_count(); ++i) {
    HloInstruction* operand = instruction->mutable_operand(i);
    if (operand->opcode() == HloOpcode::kReshape) {
      operands.push_back(operand->mutable_operand(0));
      continue;
    }
    operands.push_back(AddNext(
        instruction,
        HloInstruction::CreateBroadcast(
            ShapeUtil::MakeShape(operand->shape().element_type(),
                                 inner->dimensions()),
            operand->mutable_operand(0), {})));
  }
  HloInstruction* moved = AddNext(
      instruction,
      instruction->CloneWithNewOperands(
          ShapeUtil::MakeShape(instruction->shape().element_type(),
                               inner->dimensions()),
          operands));
  return AddNext(instruction,
                 HloInstruction::CreateReshape(instruction->shape(), moved));
}

// A reduce over dimensions of size 1 combines each element with the init
// once: the reducer's op, elementwise, on the init and the reshaped
// operand, in the reducer's operand order (so the bits are the
// evaluator's). It then fuses as a loop instead of a row reduction of
// one-element rows (XLA's take_along_axis checks indices so).
absl::StatusOr<HloInstruction*> ReduceOfSizeOneDimensions(
    HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kReduce ||
      instruction->operand_count() != 2 || !instruction->shape().IsArray()) {
    return nullptr;
  }
  const HloInstruction* data = instruction->operand(0);
  for (int64_t d : instruction->dimensions()) {
    if (data->shape().dimensions(d) != 1) return nullptr;
  }
  const HloComputation& reducer = *instruction->to_apply();
  const HloInstruction* root = reducer.root_instruction();
  if (root == nullptr || !IsBinaryElementwise(root->opcode()) ||
      !IsPlainBinaryReducer(reducer, root->opcode())) {
    return nullptr;
  }
  HloInstruction* reshaped = AddNext(
      instruction, HloInstruction::CreateReshape(
                       instruction->shape(), instruction->mutable_operand(0)));
  HloInstruction* init = AddNext(
      instruction,
      HloInstruction::CreateBroadcast(instruction->shape(),
                                      instruction->mutable_operand(1), {}));
  // Parameter 0 is the accumulator (the init), parameter 1 the element.
  const bool init_first = root->operand(0)->parameter_number() == 0;
  return AddNext(instruction,
                 root->CloneWithNewOperands(
                     instruction->shape(),
                     {init_first ? init : reshaped,
                      init_first ? reshaped : init}));
}

absl::StatusOr<HloInstruction*> NeutralOperand(HloInstruction* instruction) {
  switch (instruction->opcode()) {
    case HloOpcode::kAdd:
      // x + (-0.0) is exact for floats; x + (+0.0) is not (-0 + 0 = +0).
      for (int64_t i : {0, 1}) {
        if (HloInstruction* x = KeepIfOther(instruction, i, 0, true)) return x;
      }
      return nullptr;
    case HloOpcode::kSubtract:
      return KeepIfOther(instruction, 1, 0, false);
    case HloOpcode::kMultiply:
      for (int64_t i : {0, 1}) {
        if (HloInstruction* x = KeepIfOther(instruction, i, 1, std::nullopt)) {
          return x;
        }
      }
      return nullptr;
    case HloOpcode::kDivide:
      return KeepIfOther(instruction, 1, 1, std::nullopt);
    default:
      return nullptr;
  }
}

// get-dimension-size of mxla's static shapes is a constant.
absl::StatusOr<HloInstruction*> StaticDimensionSize(
    HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kGetDimensionSize) return nullptr;
  const Shape& operand = instruction->operand(0)->shape();
  return AddNext(instruction,
                 HloInstruction::CreateConstant(LiteralUtil::CreateR0<int32_t>(
                     static_cast<int32_t>(
                         operand.dimensions(instruction->dimensions(0))))));
}

// tests/testlib/feed_constants.cc mirrors which instructions fold: the
// differential tests feed those constants as parameters instead.
absl::StatusOr<HloInstruction*> FoldConstants(HloInstruction* instruction) {
  switch (instruction->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
    case HloOpcode::kBroadcast:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kFusion:
    case HloOpcode::kWhile:  // its trip count is unbounded: run time's work
    case HloOpcode::kConditional:  // a branch may hold such a loop
      return nullptr;
    default:
      break;
  }
  if (DependsOnDevice(instruction->opcode()) ||
      !instruction->shape().IsArray() ||
      ShapeUtil::ElementsIn(instruction->shape()) >
          SimplifyPass::kMaxFoldedElements) {
    return nullptr;
  }
  std::vector<const Literal*> operands;
  for (const HloInstruction* operand : instruction->operands()) {
    if (operand->opcode() != HloOpcode::kConstant) return nullptr;
    operands.push_back(&operand->literal());
  }
  ASSIGN_OR_RETURN(Literal folded, EvaluateInstruction(*instruction, operands));
  return AddNext(instruction, HloInstruction::CreateConstant(std::move(folded)));
}

constexpr NamedRule kRules[] = {
    {"identity-shape-op", &IdentityShapeOp},
    {"no-op-index-op", &NoOpIndexOp},
    {"slice-of-slice", &SliceOfSlice},
    {"static-dimension-size", &StaticDimensionSize},
    {"reshape-of-reshape", &ReshapeOfReshape},
    {"broadcast-of-broadcast", &BroadcastOfBroadcast},
    {"transpose-of-transpose", &TransposeOfTranspose},
    {"dot-of-transpose", &DotOfTranspose},
    {"reshape-of-scalar-broadcast", &ReshapeOfScalarBroadcast},
    {"elementwise-of-reshapes", &ElementwiseOfReshapes},
    {"reduce-of-size-one-dimensions", &ReduceOfSizeOneDimensions},
    {"neutral-operand", &NeutralOperand},
    {"fold-constants", &FoldConstants},
};

}  // namespace

absl::Span<const NamedRule> Rules() { return kRules; }

}  // namespace mxla::simplify
