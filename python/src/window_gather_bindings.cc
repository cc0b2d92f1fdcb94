// The ops with dimension-number structures: Gather, Scatter,
// ConvGeneralDilated (its layout as XLA's labels, "b01f_01io->b01f"),
// ReduceWindow and SelectAndScatter (padding as (low, high) pairs).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "builder/xla_builder.h"
#include "ir/convolution_dimension_numbers.h"
#include "python/src/py_bindings.h"
#include "python/src/py_op.h"
#include "python/src/py_status.h"

namespace mxla::python {

namespace py = pybind11;

namespace {

using Padding = std::vector<std::pair<int64_t, int64_t>>;

// Unset strides, dilations and padding: 1s and (0, 0)s, one per dimension.
Ints OnesOr(const std::optional<Ints>& values, size_t rank) {
  return values ? *values : Ints(rank, 1);
}
Padding ZerosOr(const std::optional<Padding>& padding, size_t rank) {
  return padding ? *padding : Padding(rank, {0, 0});
}

void DefineGatherScatter(py::module_& m) {
  m.def(
      "Gather",
      [](const PyOp& input, const PyOp& start_indices, const Ints& offset_dims,
         const Ints& collapsed_slice_dims, const Ints& start_index_map,
         int64_t index_vector_dim, const Ints& slice_sizes,
         const Ints& operand_batching_dims,
         const Ints& start_indices_batching_dims, bool indices_are_sorted) {
        GatherDimensionNumbers dims;
        dims.offset_dims = offset_dims;
        dims.collapsed_slice_dims = collapsed_slice_dims;
        dims.start_index_map = start_index_map;
        dims.index_vector_dim = index_vector_dim;
        dims.operand_batching_dims = operand_batching_dims;
        dims.start_indices_batching_dims = start_indices_batching_dims;
        return Checked(input.builder, [&] {
          return Gather(input.op, start_indices.op, dims, slice_sizes,
                        indices_are_sorted, BindingSite());
        });
      },
      py::arg("input"), py::arg("start_indices"), py::arg("offset_dims"),
      py::arg("collapsed_slice_dims"), py::arg("start_index_map"),
      py::arg("index_vector_dim"), py::arg("slice_sizes"),
      py::arg("operand_batching_dims") = Ints{},
      py::arg("start_indices_batching_dims") = Ints{},
      py::arg("indices_are_sorted") = false);
  m.def(
      "Scatter",
      [](const PyOp& input, const PyOp& scatter_indices, const PyOp& updates,
         const XlaComputation& update_computation,
         const Ints& update_window_dims, const Ints& inserted_window_dims,
         const Ints& scatter_dims_to_operand_dims, int64_t index_vector_dim,
         const Ints& input_batching_dims,
         const Ints& scatter_indices_batching_dims, bool indices_are_sorted,
         bool unique_indices) {
        ScatterDimensionNumbers dims;
        dims.update_window_dims = update_window_dims;
        dims.inserted_window_dims = inserted_window_dims;
        dims.scatter_dims_to_operand_dims = scatter_dims_to_operand_dims;
        dims.index_vector_dim = index_vector_dim;
        dims.input_batching_dims = input_batching_dims;
        dims.scatter_indices_batching_dims = scatter_indices_batching_dims;
        return Checked(input.builder, [&] {
          return Scatter(input.op, scatter_indices.op, updates.op,
                         update_computation, dims, indices_are_sorted,
                         unique_indices, BindingSite());
        });
      },
      py::arg("input"), py::arg("scatter_indices"), py::arg("updates"),
      py::arg("update_computation"), py::arg("update_window_dims"),
      py::arg("inserted_window_dims"),
      py::arg("scatter_dims_to_operand_dims"), py::arg("index_vector_dim"),
      py::arg("input_batching_dims") = Ints{},
      py::arg("scatter_indices_batching_dims") = Ints{},
      py::arg("indices_are_sorted") = false,
      py::arg("unique_indices") = false);
}

void DefineWindowOps(py::module_& m) {
  m.def(
      "ConvGeneralDilated",
      [](const PyOp& lhs, const PyOp& rhs, const std::string& dimension_labels,
         std::optional<Ints> window_strides, std::optional<Padding> padding,
         std::optional<Ints> lhs_dilation, std::optional<Ints> rhs_dilation,
         int64_t feature_group_count, int64_t batch_group_count) {
        const ConvolutionDimensionNumbers dims =
            ValueOrThrow(ParseConvolutionDimLabels(dimension_labels));
        const size_t spatial = dims.input_spatial.size();
        return Checked(lhs.builder, [&] {
          return ConvGeneralDilated(
              lhs.op, rhs.op, OnesOr(window_strides, spatial),
              ZerosOr(padding, spatial), OnesOr(lhs_dilation, spatial),
              OnesOr(rhs_dilation, spatial), dims, feature_group_count,
              batch_group_count, BindingSite());
        });
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("dimension_labels"),
      py::arg("window_strides") = py::none(), py::arg("padding") = py::none(),
      py::arg("lhs_dilation") = py::none(),
      py::arg("rhs_dilation") = py::none(),
      py::arg("feature_group_count") = 1, py::arg("batch_group_count") = 1,
      "XLA's convolution; `dimension_labels` as in HLO text, e.g. "
      "'b01f_01io->b01f'; unset strides and dilations are 1, padding 0.");
  m.def(
      "ReduceWindow",
      [](const PyOp& x, const py::object& init,
         const XlaComputation& computation, const Ints& window_dimensions,
         std::optional<Ints> window_strides, std::optional<Ints> base_dilations,
         std::optional<Ints> window_dilations, std::optional<Padding> padding) {
        const size_t rank = window_dimensions.size();
        return Checked(x.builder, [&] {
          return ReduceWindowWithGeneralPadding(
              x.op, Operand(init, x).op, computation, window_dimensions,
              OnesOr(window_strides, rank), OnesOr(base_dilations, rank),
              OnesOr(window_dilations, rank), ZerosOr(padding, rank),
              BindingSite());
        });
      },
      py::arg("operand"), py::arg("init_value"), py::arg("computation"),
      py::arg("window_dimensions"), py::arg("window_strides") = py::none(),
      py::arg("base_dilations") = py::none(),
      py::arg("window_dilations") = py::none(),
      py::arg("padding") = py::none());
  m.def(
      "SelectAndScatter",
      [](const PyOp& x, const XlaComputation& select,
         const Ints& window_dimensions, std::optional<Ints> window_strides,
         std::optional<Padding> padding, const PyOp& source,
         const py::object& init, const XlaComputation& scatter) {
        const size_t rank = window_dimensions.size();
        return Checked(x.builder, [&] {
          return SelectAndScatterWithGeneralPadding(
              x.op, select, window_dimensions, OnesOr(window_strides, rank),
              ZerosOr(padding, rank), source.op, Operand(init, x).op, scatter,
              BindingSite());
        });
      },
      py::arg("operand"), py::arg("select"), py::arg("window_dimensions"),
      py::arg("window_strides"), py::arg("padding"), py::arg("source"),
      py::arg("init_value"), py::arg("scatter"));
}

}  // namespace

void DefineWindowGatherBindings(py::module_& m) {
  DefineGatherScatter(m);
  DefineWindowOps(m);
}

}  // namespace mxla::python
