// NumPy dtypes and arrays against mxla's element types, shapes and
// literals.
#ifndef MXLA_PYTHON_SRC_PY_TYPES_H_
#define MXLA_PYTHON_SRC_PY_TYPES_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "ir/literal.h"
#include "ir/primitive_type.h"
#include "ir/shape.h"

namespace mxla::python {

// The element type of `dtype`: bool, int8..int64, uint8..uint64,
// float16, float32, float64. Any other dtype is an mxla.Error naming it.
PrimitiveType ElementTypeOf(const pybind11::dtype& dtype);
// The NumPy dtype of `type`; an mxla.Error for a type NumPy lacks (bf16,
// the f8 and sub-byte types).
pybind11::dtype DtypeOf(PrimitiveType type);
// Anything numpy.dtype() accepts: np.float32, "float32", a dtype.
pybind11::dtype ToDtype(const pybind11::object& object);

// The array shape of `dtype` and `dims`.
Shape ArrayShape(const pybind11::dtype& dtype,
                 const std::vector<int64_t>& dims);

// A copy of `array` (any layout) as a literal of its dtype.
Literal LiteralFromArray(const pybind11::array& array);
// A new array holding a copy of the array literal `literal`.
pybind11::array ArrayFromLiteral(const Literal& literal);
// ArrayFromLiteral of an array literal; a tuple's as a tuple of its
// elements' values (nested as the tuple nests).
pybind11::object ValueFromLiteral(const Literal& literal);

}  // namespace mxla::python

#endif  // MXLA_PYTHON_SRC_PY_TYPES_H_
