#include "passes/stochastic_convert_expander.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla {
namespace {

class Expander {
 public:
  Expander(HloComputation& computation, const Shape& shape)
      : computation_(computation),
        dims_(shape.dimensions().begin(), shape.dimensions().end()) {}

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    return computation_.AddInstruction(std::move(instruction));
  }
  // `value` (an int64 or a double) converted to `type` as a constant over
  // the dimensions.
  template <typename V>
  HloInstruction* Splat(V value, PrimitiveType type) {
    Literal scalar = semantics::ApplyConvert(LiteralUtil::CreateR0<V>(value),
                                             type)
                         .value();
    HloInstruction* constant =
        Add(HloInstruction::CreateConstant(std::move(scalar)));
    return Add(HloInstruction::CreateBroadcast(
        ShapeUtil::MakeShape(type, dims_), constant, {}));
  }
  HloInstruction* Unary(HloOpcode opcode, HloInstruction* x) {
    return Add(HloInstruction::CreateUnary(x->shape(), opcode, x));
  }
  HloInstruction* Binary(HloOpcode opcode, HloInstruction* x,
                         HloInstruction* y) {
    return Add(HloInstruction::CreateBinary(x->shape(), opcode, x, y));
  }
  HloInstruction* Convert(HloInstruction* x, PrimitiveType type) {
    if (x->shape().element_type() == type) return x;
    return Add(HloInstruction::CreateConvert(
        ShapeUtil::MakeShape(type, dims_), x));
  }
  HloInstruction* Compare(HloInstruction* x, HloInstruction* y,
                          ComparisonDirection direction) {
    return Add(HloInstruction::CreateCompare(
        ShapeUtil::MakeShape(PRED, dims_), x, y, direction));
  }
  HloInstruction* Select(HloInstruction* pred, HloInstruction* on_true,
                         HloInstruction* on_false) {
    return Add(HloInstruction::CreateSelect(on_true->shape(), pred, on_true,
                                            on_false));
  }

 private:
  HloComputation& computation_;
  std::vector<int64_t> dims_;
};

HloInstruction* Expand(HloComputation& computation, HloInstruction* convert) {
  HloInstruction* operand = convert->mutable_operand(0);
  HloInstruction* random = convert->mutable_operand(1);
  const PrimitiveType type = operand->shape().element_type();
  const PrimitiveType result_type = convert->shape().element_type();
  const PrimitiveType compute = type == F64 ? F64 : F32;
  const int bits = primitive_util::BitWidth(random->shape().element_type());
  const int result_bits = primitive_util::BitWidth(result_type);
  const int64_t min = result_bits == 64 ? INT64_MIN
                                        : -(int64_t{1} << (result_bits - 1));
  const int64_t max = result_bits == 64 ? INT64_MAX
                                        : (int64_t{1} << (result_bits - 1)) - 1;
  Expander b(computation, operand->shape());
  HloInstruction* x = b.Convert(operand, compute);
  HloInstruction* negative =
      b.Compare(x, b.Splat(0.0, compute), ComparisonDirection::kLt);
  HloInstruction* magnitude = b.Unary(HloOpcode::kAbs, x);
  HloInstruction* whole = b.Unary(HloOpcode::kFloor, magnitude);
  HloInstruction* fixed =
      b.Binary(HloOpcode::kMultiply,
               b.Binary(HloOpcode::kSubtract, magnitude, whole),
               b.Splat(std::ldexp(1.0, bits), compute));
  HloInstruction* round_up =
      b.Compare(random, b.Convert(fixed, random->shape().element_type()),
                ComparisonDirection::kLt);
  HloInstruction* truncated = b.Convert(whole, result_type);
  HloInstruction* result = b.Select(
      round_up,
      b.Binary(HloOpcode::kAdd, truncated, b.Splat(int64_t{1}, result_type)),
      truncated);
  result = b.Select(negative, b.Unary(HloOpcode::kNegate, result), result);
  // The bounds as the operand type holds them, compared in `compute`.
  auto bound = [&](int64_t value) {
    Literal in_type =
        semantics::ApplyConvert(LiteralUtil::CreateR0<int64_t>(value), type)
            .value();
    Literal wide = semantics::ApplyConvert(in_type, F64).value();
    return b.Splat(wide.data<double>()[0], compute);
  };
  result = b.Select(b.Compare(x, bound(min), ComparisonDirection::kLe),
                    b.Splat(min, result_type), result);
  result = b.Select(b.Compare(x, bound(max), ComparisonDirection::kGe),
                    b.Splat(max, result_type), result);
  return result;
}

}  // namespace

absl::StatusOr<bool> StochasticConvertExpanderPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kStochasticConvert) continue;
      HloInstruction* result = Expand(*computation, instruction);
      result->set_shape(instruction->shape());
      result->set_metadata(instruction->metadata());
      computation->ReplaceInstruction(instruction, result);
      RETURN_IF_ERROR(computation->RemoveInstruction(instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
