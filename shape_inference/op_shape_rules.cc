#include "shape_inference/op_shape_rules.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_computation.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla::shape_rules {
namespace {

const Shape& OperandShape(const HloInstruction& instruction, int64_t i) {
  return instruction.operand(i)->shape();
}

std::vector<const Shape*> OperandShapes(const HloInstruction& instruction) {
  std::vector<const Shape*> shapes;
  for (const HloInstruction* operand : instruction.operands()) {
    shapes.push_back(&operand->shape());
  }
  return shapes;
}

ProgramShape ComputeProgramShape(const HloComputation& computation) {
  ProgramShape program_shape;
  program_shape.parameters.resize(computation.num_parameters());
  for (const HloInstruction* parameter :
       computation.parameter_instructions()) {
    int64_t number = parameter->parameter_number();
    if (number >= 0 && number < computation.num_parameters()) {
      program_shape.parameters[number] = parameter->shape();
    }
  }
  program_shape.result = computation.root_instruction()->shape();
  return program_shape;
}

// Lowered HLO: an elementwise op's operands all have its dimensions.
absl::Status CheckNoImplicitBroadcast(const HloInstruction& instruction,
                                      VerifierMode mode) {
  if (mode == HloForm::kBuilder) return absl::OkStatus();
  if (instruction.broadcast_dimensions().has_value()) {
    return absl::InvalidArgumentError(
        "carries broadcast_dimensions, which lowered HLO does not allow "
        "(run lower-broadcasts first)");
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (!ShapeUtil::SameDimensions(operand->shape(), instruction.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Implicit broadcast is not allowed in HLO. Operand ",
          operand->name(), " has shape ", operand->shape().ToString(),
          " but the result has ", instruction.shape().ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> Parameter(const HloInstruction& instruction,
                                VerifierMode) {
  return instruction.shape();
}

absl::StatusOr<Shape> Constant(const HloInstruction& instruction,
                               VerifierMode) {
  return instruction.literal().shape();
}

absl::StatusOr<Shape> Iota(const HloInstruction& instruction, VerifierMode) {
  RETURN_IF_ERROR(ShapeInference::CheckIota(instruction.shape(),
                                            instruction.iota_dimension()));
  return instruction.shape();
}

absl::StatusOr<Shape> Unary(const HloInstruction& instruction, VerifierMode) {
  return ShapeInference::InferUnaryOpShape(instruction.opcode(),
                                           OperandShape(instruction, 0));
}

absl::StatusOr<Shape> Binary(const HloInstruction& instruction,
                             VerifierMode mode) {
  RETURN_IF_ERROR(CheckNoImplicitBroadcast(instruction, mode));
  if (instruction.total_order_comparison()) {
    RETURN_IF_ERROR(
        ShapeInference::CheckTotalOrderCompare(OperandShape(instruction, 0)));
  }
  return ShapeInference::InferBinaryOpShape(
      instruction.opcode(), OperandShape(instruction, 0),
      OperandShape(instruction, 1),
      instruction.broadcast_dimensions().value_or(std::vector<int64_t>{}));
}

absl::StatusOr<Shape> Select(const HloInstruction& instruction,
                             VerifierMode mode) {
  RETURN_IF_ERROR(CheckNoImplicitBroadcast(instruction, mode));
  return ShapeInference::InferSelectShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1),
      OperandShape(instruction, 2),
      /*allow_scalar_broadcast=*/mode == VerifierMode::kBuilder);
}

absl::StatusOr<Shape> Convert(const HloInstruction& instruction,
                              VerifierMode) {
  return ShapeInference::InferConvertShape(
      OperandShape(instruction, 0), instruction.shape().element_type());
}

absl::StatusOr<Shape> StochasticConvert(const HloInstruction& instruction,
                                        VerifierMode) {
  return ShapeInference::InferStochasticConvertShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1),
      instruction.shape().element_type());
}

absl::StatusOr<Shape> Broadcast(const HloInstruction& instruction,
                                VerifierMode) {
  const Shape& operand = OperandShape(instruction, 0);
  RETURN_IF_ERROR(ShapeInference::CheckBroadcast(operand, instruction.shape(),
                                                 instruction.dimensions()));
  return ShapeUtil::ChangeElementType(instruction.shape(),
                                      operand.element_type());
}

absl::StatusOr<Shape> Reshape(const HloInstruction& instruction,
                              VerifierMode) {
  return ShapeInference::InferReshapeShape(OperandShape(instruction, 0),
                                           instruction.shape().dimensions());
}

absl::StatusOr<Shape> Transpose(const HloInstruction& instruction,
                                VerifierMode) {
  return ShapeInference::InferTransposeShape(OperandShape(instruction, 0),
                                             instruction.dimensions());
}

absl::StatusOr<Shape> Reduce(const HloInstruction& instruction,
                             VerifierMode) {
  return ShapeInference::InferReduceShape(
      OperandShapes(instruction), instruction.dimensions(),
      ComputeProgramShape(*instruction.to_apply()));
}

absl::StatusOr<Shape> ReduceWindow(const HloInstruction& instruction,
                                   VerifierMode) {
  return ShapeInference::InferReduceWindowShape(
      OperandShapes(instruction), instruction.window(),
      ComputeProgramShape(*instruction.to_apply()));
}

absl::StatusOr<Shape> Scatter(const HloInstruction& instruction,
                              VerifierMode) {
  return ShapeInference::InferScatterShape(
      OperandShapes(instruction), instruction.scatter_dimension_numbers(),
      ComputeProgramShape(*instruction.to_apply()));
}

absl::StatusOr<Shape> SelectAndScatter(const HloInstruction& instruction,
                                       VerifierMode) {
  const auto& callees = instruction.called_computations();
  return ShapeInference::InferSelectAndScatterShape(
      OperandShape(instruction, 0), ComputeProgramShape(*callees[0]),
      instruction.window(), OperandShape(instruction, 1),
      OperandShape(instruction, 2), ComputeProgramShape(*callees[1]));
}

absl::StatusOr<Shape> Slice(const HloInstruction& instruction, VerifierMode) {
  return ShapeInference::InferSliceShape(
      OperandShape(instruction, 0), instruction.slice_starts(),
      instruction.slice_limits(), instruction.slice_strides());
}

absl::StatusOr<Shape> Concatenate(const HloInstruction& instruction,
                                  VerifierMode) {
  if (instruction.dimensions().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "concatenate: needs exactly one dimension, got dimensions={",
        absl::StrJoin(instruction.dimensions(), ","), "}"));
  }
  return ShapeInference::InferConcatenateShape(OperandShapes(instruction),
                                               instruction.dimensions(0));
}

// A bitcast of row-major arrays is a reshape; one that changes the element
// type is bitcast-convert's business.
absl::StatusOr<Shape> Bitcast(const HloInstruction& instruction,
                              VerifierMode) {
  const Shape& operand = OperandShape(instruction, 0);
  const Shape& result = instruction.shape();
  if (operand.IsArray() && result.IsArray() &&
      operand.element_type() != result.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bitcast: from ", operand.ToString(), " to ", result.ToString(),
        " changes the element type; mxla's bitcast is a row-major reshape "
        "(use bitcast-convert to reinterpret elements)"));
  }
  return ShapeInference::InferReshapeShape(operand, result.dimensions());
}

absl::StatusOr<Shape> Dot(const HloInstruction& instruction, VerifierMode) {
  std::optional<PrimitiveType> preferred;
  if (instruction.shape().IsArray()) preferred = instruction.shape().element_type();
  return ShapeInference::InferDotShape(OperandShape(instruction, 0),
                                       OperandShape(instruction, 1),
                                       instruction.dot_dimension_numbers(),
                                       preferred);
}

absl::StatusOr<Shape> RaggedDot(const HloInstruction& instruction,
                                VerifierMode) {
  std::optional<PrimitiveType> preferred;
  if (instruction.shape().IsArray()) preferred = instruction.shape().element_type();
  return ShapeInference::InferRaggedDotShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1),
      OperandShape(instruction, 2),
      instruction.ragged_dot_dimension_numbers(), preferred);
}

absl::StatusOr<Shape> ScaledDot(const HloInstruction& instruction,
                                VerifierMode) {
  std::optional<PrimitiveType> preferred;
  if (instruction.shape().IsArray()) preferred = instruction.shape().element_type();
  return ShapeInference::InferScaledDotShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1),
      OperandShape(instruction, 2), OperandShape(instruction, 3),
      instruction.dot_dimension_numbers(), preferred);
}

absl::StatusOr<Shape> BatchNorm(const HloInstruction& instruction,
                                VerifierMode) {
  std::vector<const Shape*> operands;
  for (const HloInstruction* operand : instruction.operands()) {
    operands.push_back(&operand->shape());
  }
  return ShapeInference::InferBatchNormShape(instruction.opcode(), operands,
                                             instruction.feature_index());
}

absl::StatusOr<Shape> DynamicSlice(const HloInstruction& instruction,
                                   VerifierMode) {
  if (instruction.operand_count() < 1) {
    return absl::InvalidArgumentError(
        "dynamic-slice: expected an operand and its start indices");
  }
  std::vector<const Shape*> starts = OperandShapes(instruction);
  starts.erase(starts.begin());
  return ShapeInference::InferDynamicSliceShape(
      OperandShape(instruction, 0), starts, instruction.dynamic_slice_sizes());
}

absl::StatusOr<Shape> DynamicUpdateSlice(const HloInstruction& instruction,
                                         VerifierMode) {
  if (instruction.operand_count() < 2) {
    return absl::InvalidArgumentError(
        "dynamic-update-slice: expected an operand, an update and start "
        "indices");
  }
  std::vector<const Shape*> starts = OperandShapes(instruction);
  starts.erase(starts.begin(), starts.begin() + 2);
  return ShapeInference::InferDynamicUpdateSliceShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1), starts);
}

absl::StatusOr<Shape> CustomCall(const HloInstruction& instruction,
                                 VerifierMode) {
  return ShapeInference::InferCustomCallShape(
      instruction.custom_call_target(), OperandShapes(instruction),
      instruction.shape());
}

// replica-id and partition-id: u32[] (the device's replica or partition).
absl::StatusOr<Shape> DeviceId(const HloInstruction&, VerifierMode) {
  return ShapeUtil::MakeShape(U32, {});
}

absl::StatusOr<Shape> Pad(const HloInstruction& instruction, VerifierMode) {
  return ShapeInference::InferPadShape(OperandShape(instruction, 0),
                                       OperandShape(instruction, 1),
                                       instruction.padding_config());
}

absl::StatusOr<Shape> While(const HloInstruction& instruction, VerifierMode) {
  const auto& callees = instruction.called_computations();
  if (callees.size() != 2 || callees[0] == nullptr || callees[1] == nullptr) {
    return absl::InvalidArgumentError(
        "while: expected a condition and a body computation");
  }
  return ShapeInference::InferWhileShape(ComputeProgramShape(*callees[0]),
                                         ComputeProgramShape(*callees[1]),
                                         OperandShape(instruction, 0));
}

absl::StatusOr<Shape> Conditional(const HloInstruction& instruction,
                                  VerifierMode) {
  if (instruction.operand_count() < 1) {
    return absl::InvalidArgumentError(
        "conditional: expected a branch index and the branch operands");
  }
  std::vector<ProgramShape> branches;
  for (const HloComputation* branch : instruction.called_computations()) {
    if (branch == nullptr) {
      return absl::InvalidArgumentError("conditional: a branch is missing");
    }
    branches.push_back(ComputeProgramShape(*branch));
  }
  std::vector<const Shape*> operands = OperandShapes(instruction);
  operands.erase(operands.begin());
  return ShapeInference::InferConditionalShape(OperandShape(instruction, 0),
                                               branches, operands);
}

absl::StatusOr<Shape> Sort(const HloInstruction& instruction, VerifierMode) {
  if (instruction.dimensions().size() != 1 ||
      instruction.to_apply() == nullptr) {
    return absl::InvalidArgumentError(
        "sort: needs exactly one dimension and a comparator");
  }
  return ShapeInference::InferSortShape(
      OperandShapes(instruction), instruction.dimensions(0),
      ComputeProgramShape(*instruction.to_apply()));
}

absl::StatusOr<Shape> Gather(const HloInstruction& instruction,
                             VerifierMode) {
  return ShapeInference::InferGatherShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1),
      instruction.gather_dimension_numbers(),
      instruction.gather_slice_sizes());
}

absl::StatusOr<Shape> Convolution(const HloInstruction& instruction,
                                  VerifierMode) {
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dnums,
                   instruction.convolution_dimension_numbers());
  std::optional<PrimitiveType> preferred;
  if (instruction.shape().IsArray()) {
    preferred = instruction.shape().element_type();
  }
  return ShapeInference::InferConvolveShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1),
      instruction.feature_group_count(), instruction.batch_group_count(),
      instruction.window(), dnums, preferred);
}

absl::StatusOr<Shape> Map(const HloInstruction& instruction, VerifierMode) {
  if (instruction.to_apply() == nullptr) {
    return absl::InvalidArgumentError("map: needs a computation to apply");
  }
  std::optional<std::vector<int64_t>> dimensions;
  if (instruction.attributes().Has(AttrId::kDimensions)) {
    dimensions = instruction.dimensions();
  }
  return ShapeInference::InferMapShape(
      OperandShapes(instruction), ComputeProgramShape(*instruction.to_apply()),
      dimensions);
}

absl::StatusOr<Shape> Async(const HloInstruction& instruction, VerifierMode) {
  std::optional<ProgramShape> callee;
  if (instruction.to_apply() != nullptr) {
    callee = ComputeProgramShape(*instruction.to_apply());
  }
  return ShapeInference::InferAsyncShape(instruction.opcode(),
                                         OperandShapes(instruction), callee,
                                         instruction.shape());
}

absl::StatusOr<Shape> Call(const HloInstruction& instruction, VerifierMode) {
  return ShapeInference::InferCallShape(
      OperandShapes(instruction), ComputeProgramShape(*instruction.to_apply()));
}

absl::StatusOr<Shape> Tuple(const HloInstruction& instruction, VerifierMode) {
  return ShapeInference::InferTupleShape(OperandShapes(instruction));
}

absl::StatusOr<Shape> GetTupleElement(const HloInstruction& instruction,
                                      VerifierMode) {
  return ShapeInference::InferGetTupleElementShape(
      OperandShape(instruction, 0), instruction.tuple_index());
}

absl::StatusOr<Shape> Fusion(const HloInstruction& instruction,
                             VerifierMode) {
  ProgramShape body = ComputeProgramShape(*instruction.to_apply());
  if (body.parameters.size() != instruction.operands().size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fusion has ", instruction.operand_count(),
        " operands but its computation takes ", body.parameters.size(),
        " parameters"));
  }
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    if (body.parameters[i] != OperandShape(instruction, i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fusion operand ", i, " has shape ",
          OperandShape(instruction, i).ToString(), " but fused parameter ", i,
          " has ", body.parameters[i].ToString()));
    }
  }
  return body.result;
}

absl::StatusOr<Shape> IsFinite(const HloInstruction& instruction,
                               VerifierMode) {
  return ShapeInference::InferIsFiniteShape(OperandShape(instruction, 0));
}

// Clamp's bounds may be scalars in every form: XLA's HLO allows it.
absl::StatusOr<Shape> Clamp(const HloInstruction& instruction, VerifierMode) {
  return ShapeInference::InferClampShape(OperandShape(instruction, 0),
                                         OperandShape(instruction, 1),
                                         OperandShape(instruction, 2));
}

absl::StatusOr<Shape> ReducePrecision(const HloInstruction& instruction,
                                      VerifierMode) {
  return ShapeInference::InferReducePrecisionShape(
      OperandShape(instruction, 0), instruction.exponent_bits(),
      instruction.mantissa_bits());
}

absl::StatusOr<Shape> BitcastConvert(const HloInstruction& instruction,
                                     VerifierMode) {
  return ShapeInference::InferBitcastConvertShape(
      OperandShape(instruction, 0), instruction.shape().element_type());
}

absl::StatusOr<Shape> Reverse(const HloInstruction& instruction,
                              VerifierMode) {
  return ShapeInference::InferReverseShape(OperandShape(instruction, 0),
                                           instruction.dimensions());
}

absl::StatusOr<Shape> GetDimensionSize(const HloInstruction& instruction,
                                       VerifierMode) {
  if (instruction.dimensions().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "get-dimension-size: needs exactly one dimension, got dimensions={",
        absl::StrJoin(instruction.dimensions(), ","), "}"));
  }
  return ShapeInference::InferGetDimensionSizeShape(
      OperandShape(instruction, 0), instruction.dimensions(0));
}

// opt-barrier passes its operand (usually a tuple) through unchanged.
absl::StatusOr<Shape> OptimizationBarrier(const HloInstruction& instruction,
                                          VerifierMode) {
  return OperandShape(instruction, 0);
}

absl::StatusOr<Shape> AfterAll(const HloInstruction& instruction,
                               VerifierMode) {
  std::vector<Shape> operands;
  for (const HloInstruction* operand : instruction.operands()) {
    operands.push_back(operand->shape());
  }
  return ShapeInference::InferAfterAllShape(operands);
}

absl::StatusOr<Shape> AddDependency(const HloInstruction& instruction,
                                    VerifierMode) {
  return ShapeInference::InferAddDependencyShape(OperandShape(instruction, 0),
                                                 OperandShape(instruction, 1));
}

namespace {

// A true/false attribute (is_reverse, largest), when present, is one of
// those two names.
absl::Status CheckBoolAttribute(const HloInstruction& instruction, AttrId id) {
  const auto* value = instruction.attributes().Get<std::string>(id);
  if (value == nullptr || *value == "true" || *value == "false") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      HloOpcodeString(instruction.opcode()), ": ", GetAttrInfo(id).name,
      " must be true or false; got ", *value));
}

}  // namespace

absl::StatusOr<Shape> Scan(const HloInstruction& instruction, VerifierMode) {
  RETURN_IF_ERROR(CheckBoolAttribute(instruction, AttrId::kIsReverse));
  if (instruction.dimensions().size() != 1 ||
      instruction.to_apply() == nullptr) {
    return absl::InvalidArgumentError(
        "scan: needs exactly one dimension and a computation");
  }
  return ShapeInference::InferScanShape(
      OperandShapes(instruction), instruction.dimensions(0),
      instruction.num_carries(), ComputeProgramShape(*instruction.to_apply()));
}

absl::StatusOr<Shape> TopK(const HloInstruction& instruction, VerifierMode) {
  RETURN_IF_ERROR(CheckBoolAttribute(instruction, AttrId::kLargest));
  return ShapeInference::InferTopKShape(OperandShape(instruction, 0),
                                        instruction.topk_k());
}

absl::StatusOr<Shape> Rng(const HloInstruction& instruction, VerifierMode) {
  ASSIGN_OR_RETURN(RandomDistribution distribution,
                   instruction.rng_distribution());
  RETURN_IF_ERROR(ShapeInference::CheckRng(
      distribution, OperandShape(instruction, 0), OperandShape(instruction, 1),
      instruction.shape()));
  return instruction.shape();
}

absl::StatusOr<Shape> RngBitGenerator(const HloInstruction& instruction,
                                      VerifierMode) {
  ASSIGN_OR_RETURN(RandomAlgorithm algorithm, instruction.rng_algorithm());
  RETURN_IF_ERROR(ShapeInference::CheckRngBitGenerator(
      algorithm, OperandShape(instruction, 0), instruction.shape()));
  return instruction.shape();
}

absl::StatusOr<Shape> Cholesky(const HloInstruction& instruction,
                               VerifierMode) {
  RETURN_IF_ERROR(instruction.cholesky_lower().status());
  return ShapeInference::InferCholeskyShape(OperandShape(instruction, 0));
}

absl::StatusOr<Shape> TriangularSolve(const HloInstruction& instruction,
                                      VerifierMode) {
  ASSIGN_OR_RETURN(TriangularSolveOptions options,
                   instruction.triangular_solve_options());
  return ShapeInference::InferTriangularSolveShape(
      OperandShape(instruction, 0), OperandShape(instruction, 1), options);
}

absl::StatusOr<Shape> Channel(const HloInstruction& instruction,
                              VerifierMode) {
  RETURN_IF_ERROR(CheckBoolAttribute(instruction, AttrId::kIsHostTransfer));
  const auto* host =
      instruction.attributes().Get<std::string>(AttrId::kIsHostTransfer);
  const bool to_host = host != nullptr && *host == "true";
  if (to_host) {
    return ShapeInference::RefuseChannelTransfer(instruction.opcode(), true);
  }
  std::vector<const Shape*> operands;
  for (const HloInstruction* operand : instruction.operands()) {
    operands.push_back(&operand->shape());
  }
  return ShapeInference::InferDeviceTransferShape(instruction.opcode(),
                                                  operands, instruction.shape());
}

absl::StatusOr<Shape> Infeed(const HloInstruction& instruction, VerifierMode) {
  return ShapeInference::InferInfeedShape(OperandShape(instruction, 0),
                                          instruction.shape());
}

absl::StatusOr<Shape> Outfeed(const HloInstruction& instruction,
                              VerifierMode) {
  return ShapeInference::InferOutfeedShape(OperandShape(instruction, 0),
                                           OperandShape(instruction, 1));
}

}  // namespace mxla::shape_rules

namespace mxla {

ShapeRule GetShapeRule(HloOpcode opcode) {
  // In enum order, as the table lists the ops.
  static constexpr ShapeRule kRules[] = {
#define MXLA_HLO_OP(e, text, category, arity, attributes, shape_rule, ...) \
  &shape_rules::shape_rule,
#include "ir/hlo_ops.def"
  };
  return kRules[static_cast<int>(opcode)];
}

absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instruction,
                                            VerifierMode mode) {
  return GetShapeRule(instruction.opcode())(instruction, mode);
}

}  // namespace mxla
