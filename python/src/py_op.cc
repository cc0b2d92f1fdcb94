#include "python/src/py_op.h"

#include <pybind11/numpy.h>

#include "absl/strings/str_cat.h"
#include "python/src/py_status.h"
#include "python/src/py_types.h"

namespace mxla::python {

namespace py = pybind11;

OpAttempt::OpAttempt(const std::shared_ptr<XlaBuilder>& builder)
    : builder_(builder), checkpoint_(builder->MakeCheckpoint()) {}

OpAttempt::~OpAttempt() {
  // Only an mxla bug makes RollBack fail, and a destructor cannot raise.
  if (!finished_) (void)builder_->RollBack(checkpoint_);
}

void OpAttempt::Finish() { FinishWith(builder_->first_error()); }

PyOp OpAttempt::Finish(XlaOp op) {
  absl::Status error = builder_->first_error();
  if (error.ok() && !op.valid()) {
    error = absl::InvalidArgumentError("the op's operands are invalid");
  }
  FinishWith(error);
  return PyOp{builder_, op};
}

void OpAttempt::FinishWith(const absl::Status& error) {
  finished_ = true;
  if (error.ok()) return;
  if (checkpoint_.had_error) {
    // Not this op's error: the current Python line is not its call site.
    throw StatusException(
        absl::StatusCodeToString(error.code()),
        absl::StrCat("builder '", builder_->name(),
                     "' has an error from an earlier op: ", error.message()));
  }
  ThrowIfError(builder_->RollBack(checkpoint_));
  ThrowStatus(error);
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
  return Checked(like.builder, [&] {
    return ConstantLiteral(like.builder.get(),
                           LiteralFromArray(array.cast<py::array>()),
                           BindingSite());
  });
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
