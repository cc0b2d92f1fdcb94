// The Python side of an XlaOp: the op with the builder that owns it (kept
// alive by it), and the helpers every op binding uses.
#ifndef MXLA_PYTHON_SRC_PY_OP_H_
#define MXLA_PYTHON_SRC_PY_OP_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "builder/xla_builder.h"

namespace mxla::python {

using Ints = std::vector<int64_t>;

struct PyOp {
  std::shared_ptr<XlaBuilder> builder;
  XlaOp op;
};

// `op` as a PyOp of `builder`, or mxla.Error with the builder's error if
// the op failed.
PyOp Checked(const std::shared_ptr<XlaBuilder>& builder, XlaOp op);

Shape ShapeOf(const PyOp& x);

// A constant for an operand given as a Python value: a scalar takes the
// element type of `like` (x * 0.5 stays f32 next to f32 data), an array
// its own dtype; a PyOp is itself.
PyOp Operand(const pybind11::object& value, const PyOp& like);

std::vector<XlaOp> Ops(const std::vector<PyOp>& operands);

// The builder of the first operand; mxla.Error if there is none.
const std::shared_ptr<XlaBuilder>& BuilderOf(const std::vector<PyOp>& operands);

}  // namespace mxla::python

#endif  // MXLA_PYTHON_SRC_PY_OP_H_
