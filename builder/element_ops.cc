// Op functions of one operand that keep its elements' positions or only
// reorder them (is-finite, reduce-precision, bitcast-convert, reverse,
// get-dimension-size, opt-barrier), clamp and stochastic-convert.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla {

using builder_internal::DimsString;
using builder_internal::PickBuilder;
using builder_internal::RecordOp;

namespace {

// Records `opcode` of `operand` with the shape `infer` gives for the
// operand's shape; `configure` sets the new instruction's attributes.
template <typename Infer, typename Configure>
XlaOp OneOperandOp(HloOpcode opcode, absl::string_view op_name, XlaOp operand,
                   const std::string& attributes, SourceLocation location,
                   Infer&& infer, Configure&& configure) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(
      builder, op_name, {operand}, attributes, location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(Shape shape, infer(x->shape()));
        auto instruction = HloInstruction::CreateGeneric(opcode, shape, {x});
        configure(*instruction);
        return builder->AddInstruction(std::move(instruction), op_name,
                                       location);
      });
}

void NoAttributes(HloInstruction&) {}

}  // namespace

XlaOp IsFinite(XlaOp operand, SourceLocation location) {
  return OneOperandOp(HloOpcode::kIsFinite, "IsFinite", operand, "", location,
                      ShapeInference::InferIsFiniteShape, NoAttributes);
}

XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits,
                      SourceLocation location) {
  return OneOperandOp(
      HloOpcode::kReducePrecision, "ReducePrecision", operand,
      absl::StrCat("exponent_bits=", exponent_bits,
                   ", mantissa_bits=", mantissa_bits),
      location,
      [&](const Shape& shape) {
        return ShapeInference::InferReducePrecisionShape(shape, exponent_bits,
                                                         mantissa_bits);
      },
      [&](HloInstruction& instruction) {
        instruction.set_reduce_precision_bits(exponent_bits, mantissa_bits);
      });
}

XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type,
                         SourceLocation location) {
  return OneOperandOp(
      HloOpcode::kBitcastConvert, "BitcastConvertType", operand,
      std::string(primitive_util::LowercaseName(new_element_type)), location,
      [&](const Shape& shape) {
        return ShapeInference::InferBitcastConvertShape(shape,
                                                        new_element_type);
      },
      NoAttributes);
}

XlaOp Rev(XlaOp operand, Dims dimensions, SourceLocation location) {
  return OneOperandOp(
      HloOpcode::kReverse, "Rev", operand,
      absl::StrCat("dimensions=", DimsString(dimensions)), location,
      [&](const Shape& shape) {
        return ShapeInference::InferReverseShape(shape, dimensions);
      },
      [&](HloInstruction& instruction) {
        instruction.set_dimensions({dimensions.begin(), dimensions.end()});
      });
}

XlaOp GetDimensionSize(XlaOp operand, int64_t dimension,
                       SourceLocation location) {
  return OneOperandOp(
      HloOpcode::kGetDimensionSize, "GetDimensionSize", operand,
      absl::StrCat("dimension=", dimension), location,
      [&](const Shape& shape) {
        return ShapeInference::InferGetDimensionSizeShape(shape, dimension);
      },
      [&](HloInstruction& instruction) {
        instruction.set_dimensions({dimension});
      });
}

XlaOp OptimizationBarrier(XlaOp operand, SourceLocation location) {
  return OneOperandOp(
      HloOpcode::kOptimizationBarrier, "OptimizationBarrier", operand, "",
      location, [](const Shape& shape) -> absl::StatusOr<Shape> { return shape; },
      NoAttributes);
}

XlaOp StochasticConvertType(XlaOp operand, XlaOp random,
                            PrimitiveType new_element_type,
                            SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand, random});
  return RecordOp(
      builder, "StochasticConvertType", {operand, random},
      std::string(primitive_util::LowercaseName(new_element_type)), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(HloInstruction * bits, builder->LookUp(random));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferStochasticConvertShape(
                             x->shape(), bits->shape(), new_element_type));
        return builder->AddInstruction(
            HloInstruction::CreateGeneric(HloOpcode::kStochasticConvert,
                                          shape, {x, bits}),
            "StochasticConvertType", location);
      });
}

XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({min, operand, max});
  return RecordOp(
      builder, "Clamp", {min, operand, max}, "", location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * low, builder->LookUp(min));
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(HloInstruction * high, builder->LookUp(max));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferClampShape(
                                          low->shape(), x->shape(),
                                          high->shape()));
        return builder->AddInstruction(
            HloInstruction::CreateGeneric(HloOpcode::kClamp, shape,
                                          {low, x, high}),
            "Clamp", location);
      });
}

}  // namespace mxla
