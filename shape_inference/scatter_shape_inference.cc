// ShapeInference::InferScatterShape: XLA's scatter rule, checked in XLA's
// order, each message naming the op and the offending dimension numbers.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::CheckReducer;
using shape_inference_internal::DimsString;
using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

namespace {

constexpr HloOpcode kOp = HloOpcode::kScatter;

// XLA's checks of one dimension list: sorted (where asked), distinct, in
// [0, bound).
absl::Status CheckDims(const std::vector<int64_t>& dims, int64_t bound,
                       absl::string_view name, bool sorted) {
  for (size_t i = 1; sorted && i < dims.size(); ++i) {
    if (dims[i] < dims[i - 1]) {
      return OpError(kOp, name, " in scatter op must be sorted; got ",
                     DimsString(dims), ".");
    }
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (dims[i] == dims[j]) {
        return OpError(kOp, name, " in scatter op must not repeat; got: ",
                       DimsString(dims), ".");
      }
    }
    if (dims[i] < 0 || dims[i] >= bound) {
      return OpError(kOp, "Invalid ", name,
                     " set in scatter op; valid range is [0, ", bound,
                     "); got: ", dims[i], ".");
    }
  }
  return absl::OkStatus();
}

bool Contains(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The operands split into XLA's N inputs, the indices and N updates.
struct ScatterOperands {
  absl::Span<const Shape* const> inputs;
  const Shape* indices = nullptr;
  absl::Span<const Shape* const> updates;
};

// The operand count, then each input and update (valid arrays, all of one
// shape per kind), then the indices (a valid integral array).
absl::StatusOr<ScatterOperands> SplitScatterOperands(
    absl::Span<const Shape* const> operands) {
  if (operands.size() < 3 || operands.size() % 2 != 1) {
    return OpError(kOp,
                   "Expected N operands, the scatter indices and N updates "
                   "(an odd number, at least 3), but got ",
                   operands.size(), " operands.");
  }
  const size_t n = operands.size() / 2;
  ScatterOperands split{operands.subspan(0, n), operands[n],
                        operands.subspan(n + 1)};
  for (size_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ExpectValidArray(kOp, *split.inputs[i],
                                     absl::StrCat("operand ", i)));
    RETURN_IF_ERROR(ExpectValidArray(kOp, *split.updates[i],
                                     absl::StrCat("updates ", i)));
    if (!ShapeUtil::SameDimensions(*split.inputs[i], *split.inputs[0]) ||
        !ShapeUtil::SameDimensions(*split.updates[i], *split.updates[0])) {
      return OpError(kOp,
                     "All operands and all updates of a variadic scatter "
                     "must have the same dimensions: operand ",
                     i, " is ", split.inputs[i]->ToString(), ", updates ", i,
                     " are ", split.updates[i]->ToString(), ".");
    }
  }
  RETURN_IF_ERROR(ExpectValidArray(kOp, *split.indices, "scatter indices"));
  if (!primitive_util::IsIntegralType(split.indices->element_type())) {
    return OpError(kOp, "Scatter indices parameter must be an integral "
                        "tensor; got ",
                   split.indices->ToString(), ".");
  }
  return split;
}

// index_vector_dim in range; the indices' dimensions with a size-1 index
// vector made explicit.
absl::StatusOr<std::vector<int64_t>> ExpandedIndexDims(
    const Shape& indices, int64_t index_vector_dim) {
  if (index_vector_dim < 0 || index_vector_dim > indices.rank()) {
    return OpError(kOp,
                   "Scatter index leaf dimension must be within [0, "
                   "rank(scatter_indices) + 1). rank(scatter_indices) is ",
                   indices.rank(), " and scatter index leaf dimension is ",
                   index_vector_dim, ".");
  }
  std::vector<int64_t> expanded(indices.dimensions().begin(),
                                indices.dimensions().end());
  if (index_vector_dim == indices.rank()) expanded.push_back(1);
  return expanded;
}

// The batching dimension pairs: as many on each side, none the index
// vector, none also an inserted window dimension.
absl::Status CheckBatchingDims(const ScatterDimensionNumbers& dnums) {
  if (dnums.input_batching_dims.size() !=
      dnums.scatter_indices_batching_dims.size()) {
    return OpError(kOp, "input_batching_dims ",
                   DimsString(dnums.input_batching_dims),
                   " and scatter_indices_batching_dims ",
                   DimsString(dnums.scatter_indices_batching_dims),
                   " must have the same size.");
  }
  for (int64_t d : dnums.scatter_indices_batching_dims) {
    if (d == dnums.index_vector_dim) {
      return OpError(kOp, "scatter_indices_batching_dims ",
                     DimsString(dnums.scatter_indices_batching_dims),
                     " must not contain index_vector_dim ",
                     dnums.index_vector_dim, ".");
    }
  }
  for (int64_t d : dnums.inserted_window_dims) {
    if (Contains(dnums.input_batching_dims, d)) {
      return OpError(kOp, "inserted_window_dims and input_batching_dims "
                          "must not share dimension ",
                     d, ".");
    }
  }
  return absl::OkStatus();
}

// scatter_dims_to_operand_dims: one entry per index vector element, each
// an operand dimension that is not a batching one, none repeated.
absl::Status CheckScatterDimsToOperandDims(
    const Shape& operand, const std::vector<int64_t>& expanded,
    const ScatterDimensionNumbers& dnums) {
  const int64_t vector_size = expanded[dnums.index_vector_dim];
  if (static_cast<int64_t>(dnums.scatter_dims_to_operand_dims.size()) !=
      vector_size) {
    return OpError(kOp, "Scatter op has ",
                   dnums.scatter_dims_to_operand_dims.size(),
                   " elements in scatter_dims_to_operand_dims and the bound "
                   "of dimension index_vector_dim=",
                   dnums.index_vector_dim, " of scatter_indices is ",
                   vector_size, ". These two numbers must be equal.");
  }
  for (size_t i = 0; i < dnums.scatter_dims_to_operand_dims.size(); ++i) {
    const int64_t d = dnums.scatter_dims_to_operand_dims[i];
    if (d < 0 || d >= operand.rank()) {
      return OpError(kOp,
                     "Invalid scatter_dims_to_operand_dims mapping; domain "
                     "is [0, ",
                     operand.rank(), "), got: ", i, "->", d, ".");
    }
    if (Contains(dnums.input_batching_dims, d)) {
      return OpError(kOp, "scatter_dims_to_operand_dims must not contain "
                          "input batching dimension ",
                     d, ".");
    }
  }
  return CheckDims(dnums.scatter_dims_to_operand_dims, operand.rank(),
                   "scatter_dims_to_operand_dims", false);
}

// XLA's ValidateScatterDimensionNumbers: each list, the batching pairs,
// the window's size against the operand, and the index vector's mapping.
absl::Status ValidateScatterDimensionNumbers(
    const Shape& operand, const std::vector<int64_t>& expanded,
    const Shape& indices, const Shape& update,
    const ScatterDimensionNumbers& dnums) {
  RETURN_IF_ERROR(CheckDims(dnums.update_window_dims, update.rank(),
                            "update_window_dims", true));
  RETURN_IF_ERROR(CheckDims(dnums.inserted_window_dims, operand.rank(),
                            "inserted_window_dims", true));
  RETURN_IF_ERROR(CheckDims(dnums.input_batching_dims, operand.rank(),
                            "input_batching_dims", true));
  RETURN_IF_ERROR(CheckDims(dnums.scatter_indices_batching_dims,
                            indices.rank(), "scatter_indices_batching_dims",
                            false));
  RETURN_IF_ERROR(CheckBatchingDims(dnums));
  const int64_t window_size = dnums.update_window_dims.size() +
                              dnums.inserted_window_dims.size() +
                              dnums.input_batching_dims.size();
  if (operand.rank() != window_size) {
    return OpError(kOp, "Scatter op has window of size ", window_size,
                   "; doesn't match operand of rank ", operand.rank(), " (",
                   operand.ToString(), ").");
  }
  return CheckScatterDimsToOperandDims(operand, expanded, dnums);
}

// The updates' window dimensions within the operand's, their scatter
// dimensions equal to the indices', and the batching dimensions' sizes
// equal.
absl::Status CheckUpdateBounds(const Shape& operand,
                               const std::vector<int64_t>& expanded,
                               const Shape& indices, const Shape& update,
                               const ScatterDimensionNumbers& dnums) {
  std::vector<int64_t> max_window;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!Contains(dnums.inserted_window_dims, d) &&
        !Contains(dnums.input_batching_dims, d)) {
      max_window.push_back(operand.dimensions(d));
    }
  }
  for (size_t i = 0; i < dnums.update_window_dims.size(); ++i) {
    const int64_t d = dnums.update_window_dims[i];
    if (update.dimensions(d) > max_window[i]) {
      return OpError(kOp,
                     "Bounds of the window dimensions of updates must not "
                     "exceed the bounds of the corresponding dimensions of "
                     "operand. For dimension ",
                     d, ", updates bound is ", update.dimensions(d),
                     ", operand bound is ", max_window[i], ".");
    }
  }
  int64_t seen = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (Contains(dnums.update_window_dims, d)) continue;
    if (seen == dnums.index_vector_dim) ++seen;
    if (update.dimensions(d) != expanded[seen]) {
      return OpError(kOp,
                     "Bounds of the scatter dimensions of updates must be "
                     "the same as the bounds of the corresponding dimensions "
                     "of scatter indices. For scatter dimension ",
                     d, ", updates bound is ", update.dimensions(d),
                     ", scatter_indices bound is ", expanded[seen], ".");
    }
    ++seen;
  }
  for (size_t k = 0; k < dnums.input_batching_dims.size(); ++k) {
    const int64_t operand_size =
        operand.dimensions(dnums.input_batching_dims[k]);
    const int64_t indices_size =
        indices.dimensions(dnums.scatter_indices_batching_dims[k]);
    if (operand_size != indices_size) {
      return OpError(kOp, "input batching dimension ",
                     dnums.input_batching_dims[k], " has size ", operand_size,
                     " but scatter indices batching dimension ",
                     dnums.scatter_indices_batching_dims[k], " has size ",
                     indices_size, "; they must be equal.");
    }
  }
  return absl::OkStatus();
}

// to_apply combines scalars: accumulators of the inputs' types, elements
// of the updates'.
absl::Status CheckScatterReducer(const ScatterOperands& split,
                                 const ProgramShape& to_apply) {
  std::vector<Shape> init_shapes, update_elements;
  std::vector<const Shape*> inits, elements;
  for (size_t i = 0; i < split.inputs.size(); ++i) {
    init_shapes.push_back(
        ShapeUtil::MakeShape(split.inputs[i]->element_type(), {}));
    update_elements.push_back(
        ShapeUtil::MakeShape(split.updates[i]->element_type(), {}));
  }
  for (size_t i = 0; i < split.inputs.size(); ++i) {
    inits.push_back(&init_shapes[i]);
    elements.push_back(&update_elements[i]);
  }
  return CheckReducer(kOp, to_apply, elements, inits).status();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferScatterShape(
    absl::Span<const Shape* const> operands,
    const ScatterDimensionNumbers& dnums, const ProgramShape& to_apply) {
  ASSIGN_OR_RETURN(ScatterOperands split, SplitScatterOperands(operands));
  const Shape& operand = *split.inputs[0];
  const Shape& indices = *split.indices;
  const Shape& update = *split.updates[0];
  ASSIGN_OR_RETURN(std::vector<int64_t> expanded,
                   ExpandedIndexDims(indices, dnums.index_vector_dim));
  const int64_t expected_rank =
      static_cast<int64_t>(expanded.size()) - 1 +
      static_cast<int64_t>(dnums.update_window_dims.size());
  if (update.rank() != expected_rank) {
    return OpError(kOp, "Updates tensor must be of rank ", expected_rank,
                   "; got ", update.rank(), " (", update.ToString(), ").");
  }
  RETURN_IF_ERROR(ValidateScatterDimensionNumbers(operand, expanded, indices,
                                                  update, dnums));
  RETURN_IF_ERROR(
      CheckUpdateBounds(operand, expanded, indices, update, dnums));
  RETURN_IF_ERROR(CheckScatterReducer(split, to_apply));
  if (split.inputs.size() == 1) return operand;
  std::vector<Shape> results;
  for (const Shape* input : split.inputs) results.push_back(*input);
  return ShapeUtil::MakeTupleShape(std::move(results));
}

}  // namespace mxla
