#include "python/src/py_op.h"

#include <pybind11/numpy.h>

#include "python/src/py_status.h"
#include "python/src/py_types.h"

namespace mxla::python {

namespace py = pybind11;

// `op` as a PyOp of `builder`, or mxla.Error with the builder's error if
// the op failed.
PyOp Checked(const std::shared_ptr<XlaBuilder>& builder, XlaOp op) {
  if (!op.valid()) {
    absl::Status error = builder->first_error();
    if (error.ok()) {
      error = absl::InvalidArgumentError("the op's operands are invalid");
    }
    ThrowStatus(error);
  }
  return PyOp{builder, op};
}

Shape ShapeOf(const PyOp& x) {
  return ValueOrThrow(x.builder->GetShape(x.op));
}

// A constant for an operand given as a Python value: a scalar takes the
// element type of `like` (x * 0.5 stays f32 next to f32 data), an array
// its own dtype.
PyOp Operand(const py::object& value, const PyOp& like) {
  if (py::isinstance<PyOp>(value)) return value.cast<PyOp>();
  const py::object numpy = py::module_::import("numpy");
  const py::object array =
      py::isinstance<py::array>(value)
          ? value
          : numpy.attr("asarray")(
                value, py::arg("dtype") = DtypeOf(ShapeOf(like).element_type()));
  return Checked(like.builder,
                 ConstantLiteral(like.builder.get(),
                                 LiteralFromArray(array.cast<py::array>()),
                                 BindingSite()));
}

std::vector<XlaOp> Ops(const std::vector<PyOp>& operands) {
  std::vector<XlaOp> ops;
  for (const PyOp& operand : operands) ops.push_back(operand.op);
  return ops;
}

const std::shared_ptr<XlaBuilder>& BuilderOf(
    const std::vector<PyOp>& operands) {
  if (operands.empty()) {
    ThrowStatus(absl::InvalidArgumentError("an op needs at least one operand"));
  }
  return operands.front().builder;
}

}  // namespace mxla::python
