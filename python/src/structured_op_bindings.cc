// The op functions beyond elementwise, shape and reduction ops: ops that
// take computations (Map, Sort, While, Conditional, Call), index operands
// (Pad, DynamicSlice, DynamicUpdateSlice), random numbers, linear algebra,
// batch normalization and element-bit ops. Same conventions as
// builder_bindings.cc: XLA's names and arguments, mxla.Error on failure.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/xla_builder.h"
#include "ir/linear_algebra.h"
#include "ir/shape_util.h"
#include "python/src/py_bindings.h"
#include "python/src/py_op.h"
#include "python/src/py_status.h"
#include "python/src/py_types.h"

namespace mxla::python {

namespace py = pybind11;

namespace {

void DefineComputationOps(py::module_& m) {
  m.def(
      "Map",
      [](const std::vector<PyOp>& operands, const XlaComputation& computation,
         const Ints& dimensions) {
        const std::shared_ptr<XlaBuilder>& b = BuilderOf(operands);
        return Checked(b, [&] {
          return Map(b.get(), Ops(operands), computation, dimensions,
                     BindingSite());
        });
      },
      py::arg("operands"), py::arg("computation"), py::arg("dimensions"));
  m.def(
      "Sort",
      [](const std::vector<PyOp>& operands, const XlaComputation& comparator,
         int64_t dimension, bool is_stable) {
        const std::shared_ptr<XlaBuilder>& b = BuilderOf(operands);
        return Checked(b, [&] {
          return Sort(Ops(operands), comparator, dimension, is_stable,
                      BindingSite());
        });
      },
      py::arg("operands"), py::arg("comparator"), py::arg("dimension") = -1,
      py::arg("is_stable") = false);
  m.def(
      "While",
      [](const XlaComputation& condition, const XlaComputation& body,
         const PyOp& init) {
        return Checked(init.builder, [&] {
          return While(condition, body, init.op, BindingSite());
        });
      },
      py::arg("condition"), py::arg("body"), py::arg("init"));
  m.def(
      "Conditional",
      [](const PyOp& predicate, const PyOp& true_operand,
         const XlaComputation& true_computation, const PyOp& false_operand,
         const XlaComputation& false_computation) {
        return Checked(predicate.builder, [&] {
          return Conditional(predicate.op, true_operand.op, true_computation,
                             false_operand.op, false_computation,
                             BindingSite());
        });
      },
      py::arg("predicate"), py::arg("true_operand"),
      py::arg("true_computation"), py::arg("false_operand"),
      py::arg("false_computation"));
  m.def(
      "Call",
      [](const std::shared_ptr<XlaBuilder>& b,
         const XlaComputation& computation, const std::vector<PyOp>& operands) {
        return Checked(b, [&] {
          return Call(b.get(), computation, Ops(operands), BindingSite());
        });
      },
      py::arg("builder"), py::arg("computation"), py::arg("operands"));
}

void DefineIndexOps(py::module_& m) {
  m.def(
      "Pad",
      [](const PyOp& x, const py::object& padding_value, const Ints& low,
         const Ints& high, std::optional<Ints> interior) {
        const Shape shape = ShapeOf(x);
        if (low.size() != static_cast<size_t>(shape.rank()) ||
            high.size() != low.size() ||
            (interior && interior->size() != low.size())) {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "Pad(", shape.ToString(), ") at ", PythonCallSite(),
              ": low, high and interior need one entry per dimension (",
              shape.rank(), ")")));
        }
        PaddingConfig config;
        for (size_t d = 0; d < low.size(); ++d) {
          config.push_back({low[d], high[d], interior ? (*interior)[d] : 0});
        }
        return Checked(x.builder, [&] {
          return Pad(x.op, Operand(padding_value, x).op, config, BindingSite());
        });
      },
      py::arg("operand"), py::arg("padding_value"), py::arg("low"),
      py::arg("high"), py::arg("interior") = py::none());
  m.def(
      "DynamicSlice",
      [](const PyOp& x, const std::vector<PyOp>& start_indices,
         const Ints& slice_sizes) {
        return Checked(x.builder, [&] {
          return DynamicSlice(x.op, Ops(start_indices), slice_sizes,
                              BindingSite());
        });
      },
      py::arg("operand"), py::arg("start_indices"), py::arg("slice_sizes"));
  m.def(
      "DynamicUpdateSlice",
      [](const PyOp& x, const PyOp& update,
         const std::vector<PyOp>& start_indices) {
        return Checked(x.builder, [&] {
          return DynamicUpdateSlice(x.op, update.op, Ops(start_indices),
                                    BindingSite());
        });
      },
      py::arg("operand"), py::arg("update"), py::arg("start_indices"));
}

void DefineNumericOps(py::module_& m) {
  m.def(
      "IsFinite",
      [](const PyOp& x) {
        return Checked(x.builder,
                       [&] { return IsFinite(x.op, BindingSite()); });
      },
      py::arg("operand"));
  m.def(
      "ReducePrecision",
      [](const PyOp& x, int exponent_bits, int mantissa_bits) {
        return Checked(x.builder, [&] {
          return ReducePrecision(x.op, exponent_bits, mantissa_bits,
                                 BindingSite());
        });
      },
      py::arg("operand"), py::arg("exponent_bits"), py::arg("mantissa_bits"));
  m.def(
      "BitcastConvertType",
      [](const PyOp& x, const py::object& dtype) {
        return Checked(x.builder, [&] {
          return BitcastConvertType(x.op, ElementTypeOf(ToDtype(dtype)),
                                    BindingSite());
        });
      },
      py::arg("operand"), py::arg("dtype"));
  m.def(
      "RngUniform",
      [](const PyOp& a, const py::object& b, const Ints& dims) {
        const Shape shape = ShapeOf(a);
        return Checked(a.builder, [&] {
          return RngUniform(a.op, Operand(b, a).op,
                            ShapeUtil::MakeShape(shape.element_type(), dims),
                            BindingSite());
        });
      },
      py::arg("a"), py::arg("b"), py::arg("dims"),
      "Numbers in [a, b) of a's element type (mxla's documented sequence).");
  m.def(
      "RngNormal",
      [](const PyOp& mu, const py::object& sigma, const Ints& dims) {
        const Shape shape = ShapeOf(mu);
        return Checked(mu.builder, [&] {
          return RngNormal(mu.op, Operand(sigma, mu).op,
                           ShapeUtil::MakeShape(shape.element_type(), dims),
                           BindingSite());
        });
      },
      py::arg("mu"), py::arg("sigma"), py::arg("dims"));
  m.def(
      "Cholesky",
      [](const PyOp& a, bool lower) {
        return Checked(a.builder,
                       [&] { return Cholesky(a.op, lower, BindingSite()); });
      },
      py::arg("a"), py::arg("lower") = true);
  m.def(
      "TriangularSolve",
      [](const PyOp& a, const PyOp& b, bool left_side, bool lower,
         bool unit_diagonal, const std::string& transpose_a) {
        TriangularSolveTranspose transpose;
        if (transpose_a == "NO_TRANSPOSE") {
          transpose = TriangularSolveTranspose::kNoTranspose;
        } else if (transpose_a == "TRANSPOSE") {
          transpose = TriangularSolveTranspose::kTranspose;
        } else if (transpose_a == "ADJOINT") {
          transpose = TriangularSolveTranspose::kAdjoint;
        } else {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "TriangularSolve at ", PythonCallSite(), ": transpose_a '",
              transpose_a, "' is not NO_TRANSPOSE, TRANSPOSE or ADJOINT")));
        }
        return Checked(a.builder, [&] {
          return TriangularSolve(a.op, b.op, left_side, lower, unit_diagonal,
                                 transpose, BindingSite());
        });
      },
      py::arg("a"), py::arg("b"), py::arg("left_side"), py::arg("lower"),
      py::arg("unit_diagonal") = false,
      py::arg("transpose_a") = "NO_TRANSPOSE");
  m.def(
      "BatchNormGrad",
      [](const PyOp& x, const PyOp& scale, const PyOp& mean,
         const PyOp& variance, const PyOp& grad_output, float epsilon,
         int64_t feature_index) {
        return Checked(x.builder, [&] {
          return BatchNormGrad(x.op, scale.op, mean.op, variance.op,
                               grad_output.op, epsilon, feature_index,
                               BindingSite());
        });
      },
      py::arg("operand"), py::arg("scale"), py::arg("batch_mean"),
      py::arg("batch_var"), py::arg("grad_output"), py::arg("epsilon"),
      py::arg("feature_index"));
  m.def(
      "BatchNormInference",
      [](const PyOp& x, const PyOp& scale, const PyOp& offset, const PyOp& mean,
         const PyOp& variance, float epsilon, int64_t feature_index) {
        return Checked(x.builder, [&] {
          return BatchNormInference(x.op, scale.op, offset.op, mean.op,
                                    variance.op, epsilon, feature_index,
                                    BindingSite());
        });
      },
      py::arg("operand"), py::arg("scale"), py::arg("offset"), py::arg("mean"),
      py::arg("variance"), py::arg("epsilon"), py::arg("feature_index"));
  m.def(
      "BatchNormTraining",
      [](const PyOp& x, const PyOp& scale, const PyOp& offset, float epsilon,
         int64_t feature_index) {
        return Checked(x.builder, [&] {
          return BatchNormTraining(x.op, scale.op, offset.op, epsilon,
                                   feature_index, BindingSite());
        });
      },
      py::arg("operand"), py::arg("scale"), py::arg("offset"),
      py::arg("epsilon"), py::arg("feature_index"));
}

}  // namespace

void DefineStructuredOpBindings(py::module_& m) {
  DefineComputationOps(m);
  DefineIndexOps(m);
  DefineNumericOps(m);
}

}  // namespace mxla::python
