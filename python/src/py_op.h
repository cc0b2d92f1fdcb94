// The Python side of an XlaOp: the op with the builder that owns it (kept
// alive by it), and the helpers every op binding uses.
#ifndef MXLA_PYTHON_SRC_PY_OP_H_
#define MXLA_PYTHON_SRC_PY_OP_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "builder/xla_builder.h"

namespace mxla::python {

using Ints = std::vector<int64_t>;

struct PyOp {
  std::shared_ptr<XlaBuilder> builder;
  XlaOp op;
};

// One op made from Python, between a checkpoint of its builder and either
// Finish or a rollback: an op that fails, or a binding that throws while
// making it, leaves the builder as it was (XlaBuilder::RollBack), so that
// a caught mxla.Error does not poison the builder.
class OpAttempt {
 public:
  explicit OpAttempt(const std::shared_ptr<XlaBuilder>& builder);
  OpAttempt(const OpAttempt&) = delete;
  OpAttempt& operator=(const OpAttempt&) = delete;
  // Rolls back unless Finish succeeded.
  ~OpAttempt();
  // `op` as a PyOp; if the attempt recorded an error or `op` is invalid,
  // rolls back and raises mxla.Error with the op's error.
  PyOp Finish(XlaOp op);
  // The same for a binding that makes no op (a reducer computation).
  void Finish();

 private:
  // Rolls back and raises if `error` is not OK.
  void FinishWith(const absl::Status& error);

  std::shared_ptr<XlaBuilder> builder_;
  XlaBuilder::Checkpoint checkpoint_;
  bool finished_ = false;
};

// The op `make` adds to `builder` (with any constant it makes for an
// operand), as a PyOp; mxla.Error if it fails, with the builder as before.
template <typename Make>
PyOp Checked(const std::shared_ptr<XlaBuilder>& builder, Make&& make) {
  OpAttempt attempt(builder);
  return attempt.Finish(make());
}

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
