// ShapeInference for every op but the binary elementwise ones and reduce
// (binary_shape_inference.cc, reduce_shape_inference.cc). Messages keep XLA's fragments intact and are
// prefixed with the op name; where XLA's text omits the shapes, they are
// added so every message names them.
#include "shape_inference/shape_inference.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/op_spec.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {
namespace {

using shape_inference_internal::DimsString;
using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;
using shape_inference_internal::PreferredResultType;

// The unary type rules (the op table's type_rule column).
absl::Status CheckUnaryType(HloOpcode opcode, const Shape& operand) {
  PrimitiveType type = operand.element_type();
  absl::string_view upper = primitive_util::UppercaseName(type);
  const OpSpec& spec = GetOpSpec(opcode);
  switch (spec.type_rule) {
    case TypeRule::kAnyType:
      return absl::OkStatus();
    case TypeRule::kArithmetic:
      if (type == PRED) {
        return OpError(opcode,
                       "Expected element type in shape to be arithmetic "
                       "type for operation ",
                       spec.text, "; got PRED. Operand is ",
                       operand.ToString(), ".");
      }
      return absl::OkStatus();
    case TypeRule::kPredOrIntegral:
      if (type != PRED && !primitive_util::IsIntegralType(type)) {
        return OpError(opcode,
                       "Expected pred or an integral element type in "
                       "argument to ",
                       spec.builder, " operation; got ", upper,
                       ". Operand is ", operand.ToString(), ".");
      }
      return absl::OkStatus();
    case TypeRule::kIntegral:
      if (!primitive_util::IsIntegralType(type)) {
        return OpError(opcode,
                       "Expected an integral element type in argument to ",
                       spec.text, " operation; got ", upper, ". Operand is ",
                       operand.ToString(), ".");
      }
      return absl::OkStatus();
    case TypeRule::kFloating:
      if (!primitive_util::IsFloatingPointType(type)) {
        return OpError(opcode,
                       "Expected element type in shape to be floating for ",
                       spec.text, " operation; got ", upper,
                       ". Operand is ", operand.ToString(), ".");
      }
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

// The dimensions of select's result when scalars may broadcast: those of
// the non-scalar operands, which must agree.
absl::StatusOr<std::vector<int64_t>> SelectDimensions(
    const Shape& pred, const Shape& on_true, const Shape& on_false,
    bool allow_scalar_broadcast) {
  auto compatible = [&](const Shape& a, const Shape& b) {
    return ShapeUtil::SameDimensions(a, b) ||
           (allow_scalar_broadcast && (a.IsScalar() || b.IsScalar()));
  };
  if (!ShapeUtil::SameElementType(on_true, on_false) ||
      !compatible(on_true, on_false)) {
    return OpError(HloOpcode::kSelect,
                   "Operands to select must be the same shape; got ",
                   on_true.ToString(), " and ", on_false.ToString(), ".");
  }
  if (pred.element_type() != PRED) {
    return OpError(HloOpcode::kSelect,
                   "Select's pred operand must have PRED element type; got ",
                   pred.ToString(), ".");
  }
  const Shape& branch = on_true.IsScalar() ? on_false : on_true;
  if (!compatible(pred, branch)) {
    return OpError(HloOpcode::kSelect,
                   "Operands to select and predicate must be the same shape; "
                   "got ",
                   pred.ToString(), " and ", branch.ToString(), ".");
  }
  const Shape& widest = branch.IsScalar() ? pred : branch;
  return std::vector<int64_t>(widest.dimensions().begin(),
                              widest.dimensions().end());
}

// §a.4 step 5, per operand dimension: the size rule, then strict order.
absl::Status CheckInDimSizesAndOrder(const Shape& operand, const Shape& output,
                                     absl::Span<const int64_t> dims) {
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t size = operand.dimensions(i);
    int64_t out_size = output.dimensions(dims[i]);
    if (size != 1 && size != out_size) {
      return OpError(HloOpcode::kBroadcast,
                     "Input dimension should be either 1 or equal to the "
                     "output dimension it is broadcasting into; the ",
                     i, "th operand dimension is ", size, ", the ", dims[i],
                     "th output dimension is ", out_size, ". Operand ",
                     operand.ToString(), ", output ", output.ToString(),
                     ", broadcast_dimensions=", DimsString(dims), ".");
    }
    if (i > 0 && dims[i - 1] >= dims[i]) {
      return OpError(HloOpcode::kBroadcast,
                     "Broadcast dimensions order is wrong: ", dims[i],
                     " comes after ", dims[i - 1], ". Operand ",
                     operand.ToString(), ", output ", output.ToString(),
                     ", broadcast_dimensions=", DimsString(dims), ".");
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string ProgramShape::ToString() const {
  std::vector<std::string> params;
  for (const Shape& parameter : parameters) {
    params.push_back(parameter.ToString());
  }
  return absl::StrCat("(", absl::StrJoin(params, ", "), ") -> ",
                      result.ToString());
}

absl::StatusOr<Shape> ShapeInference::InferUnaryOpShape(HloOpcode opcode,
                                                        const Shape& operand) {
  if (GetHloOpcodeCategory(opcode) != HloOpcodeCategory::kUnary) {
    return OpError(opcode, "not a unary elementwise opcode (operand ",
                   operand.ToString(), ")");
  }
  RETURN_IF_ERROR(ExpectValidArray(opcode, operand, "operand"));
  RETURN_IF_ERROR(CheckUnaryType(opcode, operand));
  return operand;
}

absl::StatusOr<Shape> ShapeInference::InferSelectShape(
    const Shape& pred, const Shape& on_true, const Shape& on_false,
    bool allow_scalar_broadcast) {
  RETURN_IF_ERROR(ExpectValidArray(HloOpcode::kSelect, pred, "pred"));
  RETURN_IF_ERROR(ExpectValidArray(HloOpcode::kSelect, on_true, "on_true"));
  RETURN_IF_ERROR(ExpectValidArray(HloOpcode::kSelect, on_false, "on_false"));
  ASSIGN_OR_RETURN(
      std::vector<int64_t> dims,
      SelectDimensions(pred, on_true, on_false, allow_scalar_broadcast));
  return ShapeUtil::MakeShape(on_true.element_type(), dims);
}

absl::StatusOr<Shape> ShapeInference::InferConvertShape(
    const Shape& operand, PrimitiveType new_type) {
  if (!operand.IsArray() || !primitive_util::IsArrayType(new_type)) {
    return OpError(HloOpcode::kConvert,
                   "Convert does not allow non-arrays, so cannot convert "
                   "from ",
                   operand.ToString(), " to ",
                   primitive_util::LowercaseName(new_type), ".");
  }
  RETURN_IF_ERROR(ExpectValidArray(HloOpcode::kConvert, operand, "operand"));
  return ShapeUtil::ChangeElementType(operand, new_type);
}

absl::StatusOr<Shape> ShapeInference::InferStochasticConvertShape(
    const Shape& operand, const Shape& random, PrimitiveType new_type) {
  constexpr HloOpcode kOp = HloOpcode::kStochasticConvert;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, random, "random"));
  const PrimitiveType type = operand.element_type();
  if (!primitive_util::IsFloatingPointType(type) ||
      !primitive_util::IsSignedIntegralType(new_type)) {
    return OpError(kOp, "Stochastically converting from type ",
                   primitive_util::LowercaseName(type), " to type ",
                   primitive_util::LowercaseName(new_type),
                   " is not implemented (XLA converts floats to signed "
                   "integers).");
  }
  if (!primitive_util::IsUnsignedIntegralType(random.element_type()) ||
      primitive_util::BitWidth(random.element_type()) !=
          primitive_util::BitWidth(type)) {
    return OpError(kOp,
                   "Random numbers for stochastic convert must be unsigned "
                   "integers of the operand's width, but got ",
                   random.ToString(), " for ", operand.ToString(), ".");
  }
  if (!ShapeUtil::SameDimensions(operand, random)) {
    return OpError(kOp, "The random numbers ", random.ToString(),
                   " must have the operand's dimensions: ",
                   operand.ToString(), ".");
  }
  return ShapeUtil::ChangeElementType(operand, new_type);
}

absl::Status ShapeInference::CheckBroadcast(
    const Shape& operand, const Shape& output,
    absl::Span<const int64_t> dimensions) {
  constexpr HloOpcode kOp = HloOpcode::kBroadcast;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, output, "output"));
  // Made for an error only: the verifier checks every broadcast after
  // every pass that changes a module.
  auto context = [&] {
    return absl::StrCat(" Operand ", operand.ToString(), ", output ",
                        output.ToString(), ", dimensions=",
                        DimsString(dimensions), ".");
  };
  if (static_cast<int64_t>(dimensions.size()) != operand.rank()) {
    return OpError(kOp, "Broadcast HLO has invalid number of dimensions: ",
                   dimensions.size(), " != ", operand.rank(), ".", context());
  }
  std::vector<bool> seen(output.rank(), false);
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t d = dimensions[i];
    if (d < 0 || d >= output.rank()) {
      return OpError(kOp, "Broadcast dimension ", d, " is out of bound.",
                     context());
    }
    if (seen[d]) {
      return OpError(kOp, "Broadcast dimension ", d, " is repeated.",
                     context());
    }
    seen[d] = true;
    // HLO broadcast maps sizes exactly; only the builder stretches size 1.
    if (operand.dimensions(i) != output.dimensions(d)) {
      return OpError(
          kOp, "Broadcast dimension ", i, " mismatch: ", operand.dimensions(i),
          " != ", output.dimensions(d),
          "; HLO broadcast does not stretch size-1 dimensions.", context());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> ShapeInference::InferPrependBroadcastShape(
    const Shape& operand, absl::Span<const int64_t> sizes) {
  constexpr HloOpcode kOp = HloOpcode::kBroadcast;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  for (int64_t size : sizes) {
    if (size < 0) {
      return OpError(kOp, "Broadcast with negative dimension size ", size,
                     ". Operand ", operand.ToString(),
                     ", sizes=", DimsString(sizes), ".");
    }
  }
  std::vector<int64_t> dims(sizes.begin(), sizes.end());
  dims.insert(dims.end(), operand.dimensions().begin(),
              operand.dimensions().end());
  Shape result = ShapeUtil::MakeShape(operand.element_type(), dims);
  RETURN_IF_ERROR(ExpectValidArray(kOp, result, "result"));
  return result;
}

absl::StatusOr<Shape> ShapeInference::InferBroadcastInDimShape(
    const Shape& operand, absl::Span<const int64_t> output_sizes,
    absl::Span<const int64_t> broadcast_dimensions) {
  constexpr HloOpcode kOp = HloOpcode::kBroadcast;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  Shape output = ShapeUtil::MakeShape(operand.element_type(), output_sizes);
  RETURN_IF_ERROR(ExpectValidArray(kOp, output, "output shape"));
  absl::Span<const int64_t> dims = broadcast_dimensions;
  std::string context = absl::StrCat(
      " Operand ", operand.ToString(), ", output ", output.ToString(),
      ", broadcast_dimensions=", DimsString(dims), ".");
  if (static_cast<int64_t>(dims.size()) != operand.rank()) {
    return OpError(kOp,
                   "Size of broadcast_dimensions has to match operand's "
                   "rank; operand rank: ",
                   operand.rank(), ", size of broadcast_dimensions ",
                   dims.size(), ".", context);
  }
  for (int64_t d : dims) {
    // XLA's builder lets d == rank through (off by one); mxla does not.
    if (d < 0 || d >= output.rank()) {
      return OpError(kOp, "Broadcast dimension ", d, " is out of bound.",
                     context);
    }
  }
  if (operand.rank() > output.rank()) {
    return OpError(kOp,
                   "InDim style broadcast must be to an equal or higher "
                   "ranked shape.",
                   context);
  }
  RETURN_IF_ERROR(CheckInDimSizesAndOrder(operand, output, dims));
  return output;
}

absl::StatusOr<Shape> ShapeInference::InferReshapeShape(
    const Shape& operand, absl::Span<const int64_t> new_sizes) {
  constexpr HloOpcode kOp = HloOpcode::kReshape;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  Shape result = ShapeUtil::MakeShape(operand.element_type(), new_sizes);
  RETURN_IF_ERROR(ExpectValidArray(kOp, result, "new shape"));
  int64_t from = ShapeUtil::ElementsIn(operand);
  int64_t to = ShapeUtil::ElementsIn(result);
  if (from != to) {
    return OpError(
        kOp, "Reshape operation has mismatched element counts: from=", from,
        " (", operand.ToString(), ") to=", to, " (", result.ToString(), ").");
  }
  return result;
}

absl::StatusOr<Shape> ShapeInference::InferTransposeShape(
    const Shape& operand, absl::Span<const int64_t> permutation) {
  constexpr HloOpcode kOp = HloOpcode::kTranspose;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  std::vector<bool> seen(operand.rank(), false);
  bool is_permutation =
      static_cast<int64_t>(permutation.size()) == operand.rank();
  for (size_t i = 0; is_permutation && i < permutation.size(); ++i) {
    int64_t d = permutation[i];
    is_permutation = d >= 0 && d < operand.rank() && !seen[d];
    if (is_permutation) seen[d] = true;
  }
  if (!is_permutation) {
    return OpError(kOp, "Transpose dimensions [",
                   absl::StrJoin(permutation, ","),
                   "] are not a permutation of the operand dimensions "
                   "(operand shape is ",
                   operand.ToString(), ").");
  }
  std::vector<int64_t> dims;
  for (int64_t d : permutation) dims.push_back(operand.dimensions(d));
  return ShapeUtil::MakeShape(operand.element_type(), dims);
}

absl::StatusOr<Shape> ShapeInference::InferSliceShape(
    const Shape& operand, absl::Span<const int64_t> starts,
    absl::Span<const int64_t> limits, absl::Span<const int64_t> strides) {
  constexpr HloOpcode kOp = HloOpcode::kSlice;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  auto error = [&](const auto&... what) {
    return OpError(kOp, what..., " in slice operation; argument shape: ",
                   operand.ToString(), "; starts: {",
                   absl::StrJoin(starts, ","), "}; limits: {",
                   absl::StrJoin(limits, ","), "}; strides: {",
                   absl::StrJoin(strides, ","), "}.");
  };
  if (starts.size() != limits.size()) {
    return error("slice start and limit sizes differ: ", starts.size(),
                 " vs ", limits.size());
  }
  if (starts.size() != strides.size()) {
    return error("slice start and strides sizes differ: ", starts.size(),
                 " vs ", strides.size());
  }
  if (static_cast<int64_t>(starts.size()) != operand.rank()) {
    return error("Slice index count does not match argument rank: ",
                 starts.size(), " vs ", operand.rank());
  }
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const int64_t start = starts[d], limit = limits[d], stride = strides[d];
    if (start < 0) return error("Negative start index to slice: ", start);
    if (limit > operand.dimensions(d)) {
      return error("limit index (", limit,
                   ") must be less than or equal to dimension size (",
                   operand.dimensions(d), ")");
    }
    if (start > limit) {
      return error("limit index (", limit,
                   ") must be greater or equal to start index (", start,
                   ") in slice with positive stride");
    }
    if (stride <= 0) return error("Stride (", stride, ") must be positive");
    sizes.push_back((limit - start + stride - 1) / stride);
  }
  return ShapeUtil::MakeShape(operand.element_type(), sizes);
}

absl::StatusOr<Shape> ShapeInference::InferConcatenateShape(
    absl::Span<const Shape* const> operands, int64_t dimension) {
  constexpr HloOpcode kOp = HloOpcode::kConcatenate;
  if (operands.empty()) {
    return OpError(kOp, "Concatenate expects at least one argument.");
  }
  for (const Shape* operand : operands) {
    RETURN_IF_ERROR(ExpectValidArray(kOp, *operand, "operand"));
  }
  const Shape& first = *operands[0];
  if (dimension < 0 || dimension >= first.rank()) {
    return OpError(kOp, "Concatenate dimension out of bounds: ", dimension,
                   ".");
  }
  std::vector<int64_t> dims(first.dimensions().begin(),
                            first.dimensions().end());
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& other = *operands[i];
    if (other.rank() != first.rank()) {
      return OpError(kOp, "Cannot concatenate arrays with different ranks: ",
                     first.rank(), " (", first.ToString(), ") vs ",
                     other.rank(), " (", other.ToString(), ").");
    }
    if (other.element_type() != first.element_type()) {
      return OpError(kOp,
                     "Cannot concatenate arrays with different element "
                     "types: ",
                     primitive_util::LowercaseName(first.element_type()),
                     " vs ",
                     primitive_util::LowercaseName(other.element_type()), ".");
    }
    for (int64_t d = 0; d < first.rank(); ++d) {
      if (d != dimension && other.dimensions(d) != first.dimensions(d)) {
        return OpError(kOp,
                       "Cannot concatenate arrays that differ in dimensions "
                       "other than the one being concatenated. Dimension ",
                       d, " in both shapes must be equal: ", first.ToString(),
                       " vs ", other.ToString(), ".");
      }
    }
    dims[dimension] += other.dimensions(dimension);
  }
  return ShapeUtil::MakeShape(first.element_type(), dims);
}

namespace {

// One side's batch and contracting dimensions: in range, none repeated.
absl::Status CheckDotDimensionNumbers(absl::Span<const int64_t> batch,
                                      absl::Span<const int64_t> contracting,
                                      int64_t rank) {
  std::vector<int64_t> all(batch.begin(), batch.end());
  all.insert(all.end(), contracting.begin(), contracting.end());
  for (int64_t d : all) {
    if (d < 0 || d >= rank) {
      return OpError(HloOpcode::kDot,
                     "A dimension number is out of range in Dot: ", d,
                     " (rank ", rank, ").");
    }
  }
  std::sort(all.begin(), all.end());
  if (std::adjacent_find(all.begin(), all.end()) != all.end()) {
    return OpError(HloOpcode::kDot,
                   "A dimension number is not unique in Dot: {",
                   absl::StrJoin(batch, ","), "} and {",
                   absl::StrJoin(contracting, ","), "}.");
  }
  return absl::OkStatus();
}

// The contracting and batch dimensions pair up with equal sizes.
absl::Status CheckDotSizes(const Shape& lhs, const Shape& rhs,
                           const DotDimensionNumbers& dnums) {
  auto fail = [&](absl::string_view addendum) {
    return OpError(HloOpcode::kDot, "Cannot infer shape for dot operation: ",
                   lhs.ToString(), " <dot> ", rhs.ToString(), ". ", addendum);
  };
  if (dnums.lhs_contracting.size() != dnums.rhs_contracting.size()) {
    return fail(
        "Must specify the same number of contracting dimensions for lhs and "
        "rhs.");
  }
  for (size_t i = 0; i < dnums.lhs_contracting.size(); ++i) {
    if (lhs.dimensions(dnums.lhs_contracting[i]) !=
        rhs.dimensions(dnums.rhs_contracting[i])) {
      return fail("Contracting dimension sizes do not match.");
    }
  }
  if (dnums.lhs_batch.size() != dnums.rhs_batch.size()) {
    return fail("Must the same number of batch dimensions for lhs and rhs.");
  }
  for (size_t i = 0; i < dnums.lhs_batch.size(); ++i) {
    if (lhs.dimensions(dnums.lhs_batch[i]) !=
        rhs.dimensions(dnums.rhs_batch[i])) {
      return fail("Batch dimension sizes do not match.");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferDotShape(
    const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type) {
  constexpr HloOpcode kOp = HloOpcode::kDot;
  RETURN_IF_ERROR(ExpectValidArray(kOp, lhs, "lhs"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, rhs, "rhs"));
  ASSIGN_OR_RETURN(
      const PrimitiveType type,
      PreferredResultType(
          kOp, HigherPrecisionType(lhs.element_type(), rhs.element_type()),
          preferred_element_type, [&] {
            return absl::StrCat(" for ", lhs.ToString(), " <dot> ",
                                rhs.ToString(), ".");
          }));
  RETURN_IF_ERROR(CheckDotDimensionNumbers(dnums.lhs_batch,
                                           dnums.lhs_contracting, lhs.rank()));
  RETURN_IF_ERROR(CheckDotDimensionNumbers(dnums.rhs_batch,
                                           dnums.rhs_contracting, rhs.rank()));
  RETURN_IF_ERROR(CheckDotSizes(lhs, rhs, dnums));
  // Batch dimensions, then lhs's free ones, then rhs's.
  std::vector<int64_t> dims;
  for (int64_t d : dnums.lhs_batch) dims.push_back(lhs.dimensions(d));
  for (int64_t d :
       DotFreeDimensions(lhs.rank(), dnums.lhs_batch, dnums.lhs_contracting)) {
    dims.push_back(lhs.dimensions(d));
  }
  for (int64_t d :
       DotFreeDimensions(rhs.rank(), dnums.rhs_batch, dnums.rhs_contracting)) {
    dims.push_back(rhs.dimensions(d));
  }
  return ShapeUtil::MakeShape(type, dims);
}

namespace {

// The start indices of dynamic-slice and dynamic-update-slice (`what`:
// "Dynamic slice", "Dynamic update slice"): one integral scalar per
// operand dimension, all of one type, or XLA's older form, one integral
// vector holding them all.
absl::Status CheckStartIndices(HloOpcode op, absl::string_view what,
                               const Shape& operand,
                               absl::Span<const Shape* const> start_indices) {
  const bool vector_form = start_indices.size() == 1 &&
                           start_indices[0]->IsArray() &&
                           start_indices[0]->rank() == 1;
  if (vector_form) {
    const Shape& vector = *start_indices[0];
    if (vector.dimensions(0) != operand.rank() ||
        !primitive_util::IsIntegralType(vector.element_type())) {
      return OpError(op, what, " start indices ", vector.ToString(),
                     " must be integral with one element per dimension of ",
                     operand.ToString(), ".");
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(start_indices.size()) != operand.rank()) {
    return OpError(op, what, " start number of dimensions ",
                   start_indices.size(), " must match rank ", operand.rank(),
                   " of slice input (", operand.ToString(), ").");
  }
  for (size_t i = 0; i < start_indices.size(); ++i) {
    const Shape& start = *start_indices[i];
    if (!start.IsArray() || !start.IsScalar() ||
        !primitive_util::IsIntegralType(start.element_type())) {
      return OpError(op, what,
                     " start indices must be integral scalars: start index ",
                     i, " is ", start.ToString(), ".");
    }
    if (start.element_type() != start_indices[0]->element_type()) {
      return OpError(op, what, " start indices must all have the same type: ",
                     start_indices[0]->ToString(), " and ", start.ToString(),
                     ".");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferPadShape(
    const Shape& operand, const Shape& padding_value,
    const PaddingConfig& config) {
  constexpr HloOpcode kOp = HloOpcode::kPad;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, padding_value, "padding value"));
  if (!padding_value.IsScalar()) {
    return OpError(kOp, "Pad operation does not support non-scalar padding "
                   "values: ", padding_value.ToString(), ".");
  }
  if (static_cast<int64_t>(config.size()) != operand.rank()) {
    return OpError(kOp, "The rank of the operand and the padding "
                   "configuration do not match: ", operand.ToString(), " vs ",
                   config.size(), " padding dimensions.");
  }
  if (operand.element_type() != padding_value.element_type()) {
    return OpError(kOp, "The element types of the operands to Pad do not "
                   "match: ", operand.ToString(), " and ",
                   padding_value.ToString(), ".");
  }
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (config[d].interior < 0) {
      return OpError(kOp, "Interior padding cannot be negative: ",
                     config[d].interior, " in dimension ", d, ".");
    }
    const int64_t size = PaddedSize(operand.dimensions(d), config[d]);
    if (size < 0) {
      return OpError(kOp, "Padding result in negative size for dimension ", d,
                     ": ", size, ".");
    }
    dims.push_back(size);
  }
  return ShapeUtil::MakeShape(operand.element_type(), dims);
}

absl::StatusOr<Shape> ShapeInference::InferCustomCallShape(
    absl::string_view target, absl::Span<const Shape* const> operands,
    const Shape& declared) {
  constexpr HloOpcode kOp = HloOpcode::kCustomCall;
  const auto& identities = kIdentityCustomCallTargets;
  if (std::find(std::begin(identities), std::end(identities), target) ==
      std::end(identities)) {
    return OpError(kOp, "custom_call_target \"", target,
                   "\" is not supported by mxla (it runs only the targets "
                   "that are identities on one CPU device: ",
                   absl::StrJoin(identities, ", "), ").");
  }
  if (operands.size() != 1 || !operands[0]->IsArray()) {
    return OpError(kOp, "custom_call_target \"", target,
                   "\" takes one array operand, got ", operands.size(),
                   " operands.");
  }
  if (declared.IsArray() && declared != *operands[0]) {
    return OpError(kOp, "custom_call_target \"", target, "\" changes the shape ",
                   operands[0]->ToString(), " to ", declared.ToString(),
                   ": that needs several partitions, but ", kOneDevice, ".");
  }
  return *operands[0];
}

absl::StatusOr<Shape> ShapeInference::InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update,
    absl::Span<const Shape* const> start_indices) {
  constexpr HloOpcode kOp = HloOpcode::kDynamicUpdateSlice;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, update, "update"));
  RETURN_IF_ERROR(
      CheckStartIndices(kOp, "Dynamic update slice", operand, start_indices));
  if (update.rank() != operand.rank()) {
    return OpError(kOp,
                   "Dynamic update slice update rank does not match argument "
                   "rank: ", update.rank(), " vs ", operand.rank(), ".");
  }
  if (update.element_type() != operand.element_type()) {
    return OpError(kOp,
                   "Dynamic update slice update element type does not match "
                   "argument. operand.element_type: ",
                   primitive_util::UppercaseName(operand.element_type()),
                   " vs update.element_type: ",
                   primitive_util::UppercaseName(update.element_type()), ".");
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (update.dimensions(d) > operand.dimensions(d)) {
      return OpError(kOp, "Slice dim size ", update.dimensions(d),
                     " greater than dynamic update slice dimension: ",
                     operand.dimensions(d), ".");
    }
  }
  return operand;
}

absl::StatusOr<Shape> ShapeInference::InferDynamicSliceShape(
    const Shape& operand, absl::Span<const Shape* const> start_indices,
    absl::Span<const int64_t> slice_sizes) {
  constexpr HloOpcode kOp = HloOpcode::kDynamicSlice;
  RETURN_IF_ERROR(ExpectValidArray(kOp, operand, "operand"));
  RETURN_IF_ERROR(
      CheckStartIndices(kOp, "Dynamic slice", operand, start_indices));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return OpError(kOp, "Dynamic slice index count does not match argument "
                   "rank: ", slice_sizes.size(), " vs ", operand.rank(), ".");
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (slice_sizes[d] < 0) {
      return OpError(kOp, "Negative size index to dynamic slice: ",
                     slice_sizes[d], ".");
    }
    if (slice_sizes[d] > operand.dimensions(d)) {
      return OpError(kOp, "Slice dim size ", slice_sizes[d],
                     " greater than dynamic slice dimension: ",
                     operand.dimensions(d), ".");
    }
  }
  return ShapeUtil::MakeShape(operand.element_type(), slice_sizes);
}

absl::StatusOr<Shape> ShapeInference::InferWhileShape(
    const ProgramShape& condition, const ProgramShape& body,
    const Shape& init) {
  constexpr HloOpcode kOp = HloOpcode::kWhile;
  if (condition.parameters.size() != 1) {
    return OpError(kOp, "Condition must take 1 arguments; got ",
                   condition.parameters.size(), ".");
  }
  if (body.parameters.size() != 1) {
    return OpError(kOp, "Body must take 1 arguments; got ",
                   body.parameters.size(), ".");
  }
  if (condition.result != ShapeUtil::MakeShape(PRED, {})) {
    return OpError(kOp, "Condition must return a boolean; got ",
                   condition.result.ToString(), ".");
  }
  if (body.result != condition.parameters[0] ||
      body.result != body.parameters[0] || body.result != init) {
    return OpError(kOp,
                   "The parameter of condition and body, the result of the "
                   "body, and init must all have the same shape; got "
                   "Condition: ", condition.ToString(), "; body: ",
                   body.ToString(), "; init: ", init.ToString(), ".");
  }
  return init;
}

absl::StatusOr<Shape> ShapeInference::InferMapShape(
    absl::Span<const Shape* const> operands, const ProgramShape& to_apply,
    const std::optional<std::vector<int64_t>>& dimensions) {
  constexpr HloOpcode kOp = HloOpcode::kMap;
  if (operands.empty()) {
    return OpError(kOp, "Map expects at least one argument.");
  }
  for (const Shape* operand : operands) {
    RETURN_IF_ERROR(ExpectValidArray(kOp, *operand, "operand"));
    if (!ShapeUtil::SameDimensions(*operand, *operands[0])) {
      return OpError(kOp,
                     "Map operation requires all operands to have the same "
                     "shape; got: ",
                     operands[0]->ToString(), " and ", operand->ToString(),
                     ".");
    }
  }
  if (dimensions.has_value()) {
    bool all = static_cast<int64_t>(dimensions->size()) == operands[0]->rank();
    for (size_t i = 0; all && i < dimensions->size(); ++i) {
      all = (*dimensions)[i] == static_cast<int64_t>(i);
    }
    if (!all) {
      return OpError(kOp, "Map dimensions must be all the operand's, in "
                          "order; got ", DimsString(*dimensions), " for ",
                     operands[0]->ToString(), ".");
    }
  }
  if (to_apply.parameters.size() != operands.size()) {
    return OpError(kOp,
                   "Map applied function arity must match number of "
                   "arguments (",
                   to_apply.parameters.size(), " != ", operands.size(), ").");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape scalar = ShapeUtil::MakeShape(operands[i]->element_type(), {});
    if (to_apply.parameters[i] != scalar) {
      return OpError(kOp, "Mapped function's parameter ", i, " must be ",
                     scalar.ToString(), "; got ",
                     to_apply.parameters[i].ToString(), ".");
    }
  }
  if (!to_apply.result.IsArray() || !to_apply.result.IsScalar()) {
    return OpError(kOp, "Mapped computation's result has to be a scalar; got ",
                   to_apply.result.ToString(), ".");
  }
  return ShapeUtil::ChangeElementType(*operands[0],
                                      to_apply.result.element_type());
}

absl::StatusOr<Shape> ShapeInference::InferSortShape(
    absl::Span<const Shape* const> operands, int64_t dimension,
    const ProgramShape& comparator) {
  constexpr HloOpcode kOp = HloOpcode::kSort;
  if (operands.empty()) return OpError(kOp, "expects at least one operand.");
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(ExpectValidArray(kOp, *operands[i], "operand"));
    if (!ShapeUtil::SameDimensions(*operands[i], *operands[0])) {
      return OpError(kOp,
                     "Expected sort operands to have the same dimensions; "
                     "got ",
                     operands[0]->ToString(), " and ",
                     operands[i]->ToString(), ".");
    }
  }
  if (dimension < 0 || dimension >= operands[0]->rank()) {
    return OpError(kOp, "dimension ", dimension, " is out of range for ",
                   operands[0]->ToString(), ".");
  }
  if (comparator.parameters.size() != 2 * operands.size()) {
    return OpError(kOp, "The comparator takes ", comparator.parameters.size(),
                   " parameters, but sort has ", operands.size(),
                   " operands: it needs 2 per operand.");
  }
  for (size_t i = 0; i < comparator.parameters.size(); ++i) {
    const Shape scalar =
        ShapeUtil::MakeShape(operands[i / 2]->element_type(), {});
    if (comparator.parameters[i] != scalar) {
      return OpError(kOp, "comparator parameter ", i, " must be ",
                     scalar.ToString(), " (an element of operand ", i / 2,
                     "); got ", comparator.parameters[i].ToString(), ".");
    }
  }
  if (comparator.result != ShapeUtil::MakeShape(PRED, {})) {
    return OpError(kOp, "The comparator must return pred[]; got ",
                   comparator.result.ToString(), ".");
  }
  if (operands.size() == 1) return *operands[0];
  std::vector<Shape> elements;
  for (const Shape* operand : operands) elements.push_back(*operand);
  return ShapeUtil::MakeTupleShape(elements);
}

absl::StatusOr<Shape> ShapeInference::InferConditionalShape(
    const Shape& branch_index, absl::Span<const ProgramShape> branches,
    absl::Span<const Shape* const> branch_operands) {
  constexpr HloOpcode kOp = HloOpcode::kConditional;
  if (branches.empty()) {
    return OpError(kOp, "branch_computations is empty.");
  }
  if (!branch_index.IsArray() || !branch_index.IsScalar() ||
      (branch_index.element_type() != PRED &&
       branch_index.element_type() != S32)) {
    return OpError(kOp, "branch_index must be a scalar bool or int32_t; got ",
                   branch_index.ToString(), ".");
  }
  if (branch_index.element_type() == PRED && branches.size() != 2) {
    return OpError(kOp,
                   "In kConditional, when the predicate is PRED, there must "
                   "be exactly 2 branch_computations, got ",
                   branches.size(), ".");
  }
  if (branch_operands.size() != branches.size()) {
    return OpError(kOp, "expected one operand per branch after the index: ",
                   branches.size(), " branches but ", branch_operands.size(),
                   " branch operands.");
  }
  for (size_t j = 0; j < branches.size(); ++j) {
    if (branches[j].parameters.size() != 1) {
      return OpError(kOp, "branch computation ", j,
                     " must take 1 argument; got ",
                     branches[j].parameters.size(), ".");
    }
    if (branches[j].parameters[0] != *branch_operands[j]) {
      return OpError(kOp, "branch operand ", j,
                     " must match the shape of the only parameter of branch "
                     "computation ",
                     j, ": got ", branch_operands[j]->ToString(),
                     " for branch operand and ",
                     branches[j].parameters[0].ToString(),
                     " for branch computation parameter.");
    }
    if (branches[j].result != branches[0].result) {
      return OpError(kOp,
                     "the result of branch 0 computation and branch ", j,
                     " computation must have the same shape: got ",
                     branches[0].result.ToString(), " and ",
                     branches[j].result.ToString(), ".");
    }
  }
  return branches[0].result;
}

absl::StatusOr<Shape> ShapeInference::InferCallShape(
    absl::Span<const Shape* const> arguments, const ProgramShape& to_apply) {
  constexpr HloOpcode kOp = HloOpcode::kCall;
  if (arguments.size() != to_apply.parameters.size()) {
    std::vector<std::string> shapes;
    for (const Shape* shape : arguments) shapes.push_back(shape->ToString());
    return OpError(kOp,
                   "Call applied function arity must match number of "
                   "arguments; got: arity: ",
                   to_apply.parameters.size(), ", arguments: ",
                   arguments.size(), "; computation signature: ",
                   to_apply.ToString(), "; argument shapes: [",
                   absl::StrJoin(shapes, ", "), "].");
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (*arguments[i] != to_apply.parameters[i]) {
      return OpError(kOp, "Call parameter must match argument; got parameter ",
                     i, " shape: ", to_apply.parameters[i].ToString(),
                     ", argument shape: ", arguments[i]->ToString(), ".");
    }
  }
  return to_apply.result;
}

absl::StatusOr<Shape> ShapeInference::InferTupleShape(
    absl::Span<const Shape* const> elements) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i] == nullptr) {
      return OpError(HloOpcode::kTuple, "element ", i, " has no shape");
    }
    absl::Status valid = ShapeUtil::ValidateShape(*elements[i]);
    if (!valid.ok()) {
      return OpError(HloOpcode::kTuple, "element ", i, " (",
                     elements[i]->ToString(), "): ", valid.message());
    }
    shapes.push_back(*elements[i]);
  }
  return ShapeUtil::MakeTupleShape(std::move(shapes));
}

absl::StatusOr<Shape> ShapeInference::InferGetTupleElementShape(
    const Shape& tuple, int64_t index) {
  constexpr HloOpcode kOp = HloOpcode::kGetTupleElement;
  if (!tuple.IsTuple()) {
    return OpError(kOp,
                   "Cannot infer shape: attempting to index into non-tuple: ",
                   tuple.ToString(), ".");
  }
  int64_t size = static_cast<int64_t>(tuple.tuple_shapes().size());
  if (index < 0 || index >= size) {
    return OpError(kOp,
                   "Cannot infer shape: attempt to index out of tuple "
                   "bounds: ",
                   index, " >= ", size, " in shape ", tuple.ToString(), ".");
  }
  return tuple.tuple_shapes(index);
}

absl::Status ShapeInference::CheckIota(const Shape& shape,
                                       int64_t iota_dimension) {
  constexpr HloOpcode kOp = HloOpcode::kIota;
  RETURN_IF_ERROR(ExpectValidArray(kOp, shape, "shape"));
  if (shape.rank() == 0) {
    return OpError(kOp, "Iota does not support scalars; shape is ",
                   shape.ToString(), ".");
  }
  if (iota_dimension < 0 || iota_dimension >= shape.rank()) {
    return OpError(kOp,
                   "The iota dimension cannot go beyond the operation rank "
                   "or be negative; iota_dimension=",
                   iota_dimension, ", shape is ", shape.ToString(), ".");
  }
  return absl::OkStatus();
}

}  // namespace mxla
