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

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferScatterShape(
    absl::Span<const Shape* const> operands,
    const ScatterDimensionNumbers& dnums, const ProgramShape& to_apply) {
  if (operands.size() < 3 || operands.size() % 2 != 1) {
    return OpError(kOp,
                   "Expected N operands, the scatter indices and N updates "
                   "(an odd number, at least 3), but got ",
                   operands.size(), " operands.");
  }
  const size_t n = operands.size() / 2;
  absl::Span<const Shape* const> inputs = operands.subspan(0, n);
  const Shape& indices = *operands[n];
  absl::Span<const Shape* const> updates = operands.subspan(n + 1);
  for (size_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(
        ExpectValidArray(kOp, *inputs[i], absl::StrCat("operand ", i)));
    RETURN_IF_ERROR(
        ExpectValidArray(kOp, *updates[i], absl::StrCat("updates ", i)));
    if (!ShapeUtil::SameDimensions(*inputs[i], *inputs[0]) ||
        !ShapeUtil::SameDimensions(*updates[i], *updates[0])) {
      return OpError(kOp,
                     "All operands and all updates of a variadic scatter "
                     "must have the same dimensions: operand ",
                     i, " is ", inputs[i]->ToString(), ", updates ", i,
                     " are ", updates[i]->ToString(), ".");
    }
  }
  RETURN_IF_ERROR(ExpectValidArray(kOp, indices, "scatter indices"));
  if (!primitive_util::IsIntegralType(indices.element_type())) {
    return OpError(kOp, "Scatter indices parameter must be an integral "
                        "tensor; got ",
                   indices.ToString(), ".");
  }
  const Shape& operand = *inputs[0];
  const Shape& update = *updates[0];
  const int64_t ivd = dnums.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return OpError(kOp,
                   "Scatter index leaf dimension must be within [0, "
                   "rank(scatter_indices) + 1). rank(scatter_indices) is ",
                   indices.rank(), " and scatter index leaf dimension is ",
                   ivd, ".");
  }
  // The indices' dimensions with a size-1 index vector made explicit.
  std::vector<int64_t> expanded(indices.dimensions().begin(),
                                indices.dimensions().end());
  if (ivd == indices.rank()) expanded.push_back(1);
  const int64_t expected_rank =
      static_cast<int64_t>(expanded.size()) - 1 +
      static_cast<int64_t>(dnums.update_window_dims.size());
  if (update.rank() != expected_rank) {
    return OpError(kOp, "Updates tensor must be of rank ", expected_rank,
                   "; got ", update.rank(), " (", update.ToString(), ").");
  }
  RETURN_IF_ERROR(CheckDims(dnums.update_window_dims, update.rank(),
                            "update_window_dims", true));
  RETURN_IF_ERROR(CheckDims(dnums.inserted_window_dims, operand.rank(),
                            "inserted_window_dims", true));
  RETURN_IF_ERROR(CheckDims(dnums.input_batching_dims, operand.rank(),
                            "input_batching_dims", true));
  RETURN_IF_ERROR(CheckDims(dnums.scatter_indices_batching_dims,
                            indices.rank(), "scatter_indices_batching_dims",
                            false));
  if (dnums.input_batching_dims.size() !=
      dnums.scatter_indices_batching_dims.size()) {
    return OpError(kOp, "input_batching_dims ",
                   DimsString(dnums.input_batching_dims),
                   " and scatter_indices_batching_dims ",
                   DimsString(dnums.scatter_indices_batching_dims),
                   " must have the same size.");
  }
  for (int64_t d : dnums.scatter_indices_batching_dims) {
    if (d == ivd) {
      return OpError(kOp, "scatter_indices_batching_dims ",
                     DimsString(dnums.scatter_indices_batching_dims),
                     " must not contain index_vector_dim ", ivd, ".");
    }
  }
  for (int64_t d : dnums.inserted_window_dims) {
    if (Contains(dnums.input_batching_dims, d)) {
      return OpError(kOp, "inserted_window_dims and input_batching_dims "
                          "must not share dimension ",
                     d, ".");
    }
  }
  const int64_t window_size = dnums.update_window_dims.size() +
                              dnums.inserted_window_dims.size() +
                              dnums.input_batching_dims.size();
  if (operand.rank() != window_size) {
    return OpError(kOp, "Scatter op has window of size ", window_size,
                   "; doesn't match operand of rank ", operand.rank(), " (",
                   operand.ToString(), ").");
  }
  const int64_t vector_size = expanded[ivd];
  if (static_cast<int64_t>(dnums.scatter_dims_to_operand_dims.size()) !=
      vector_size) {
    return OpError(kOp, "Scatter op has ",
                   dnums.scatter_dims_to_operand_dims.size(),
                   " elements in scatter_dims_to_operand_dims and the bound "
                   "of dimension index_vector_dim=",
                   ivd, " of scatter_indices is ", vector_size,
                   ". These two numbers must be equal.");
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
  RETURN_IF_ERROR(CheckDims(dnums.scatter_dims_to_operand_dims,
                            operand.rank(), "scatter_dims_to_operand_dims",
                            false));
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
    if (seen == ivd) ++seen;
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
  std::vector<Shape> init_shapes, update_elements;
  std::vector<const Shape*> inits, elements;
  for (size_t i = 0; i < n; ++i) {
    init_shapes.push_back(
        ShapeUtil::MakeShape(inputs[i]->element_type(), {}));
    update_elements.push_back(
        ShapeUtil::MakeShape(updates[i]->element_type(), {}));
  }
  for (size_t i = 0; i < n; ++i) {
    inits.push_back(&init_shapes[i]);
    elements.push_back(&update_elements[i]);
  }
  RETURN_IF_ERROR(CheckReducer(kOp, to_apply, elements, inits).status());
  if (n == 1) return operand;
  std::vector<Shape> results;
  for (const Shape* input : inputs) results.push_back(*input);
  return ShapeUtil::MakeTupleShape(std::move(results));
}

}  // namespace mxla
