#include "python/src/py_types.h"

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/shape_util.h"
#include "python/src/py_status.h"

namespace mxla::python {

namespace py = pybind11;

namespace {

struct TypePair {
  PrimitiveType type;
  const char* dtype;
};

constexpr TypePair kTypes[] = {
    {PRED, "bool"},     {S8, "int8"},       {S16, "int16"},
    {S32, "int32"},     {S64, "int64"},     {U8, "uint8"},
    {U16, "uint16"},    {U32, "uint32"},    {U64, "uint64"},
    {F16, "float16"},   {F32, "float32"},   {F64, "float64"},
};

}  // namespace

PrimitiveType ElementTypeOf(const py::dtype& dtype) {
  for (const TypePair& pair : kTypes) {
    if (dtype.is(py::dtype(pair.dtype)) ||
        dtype.equal(py::dtype(pair.dtype))) {
      return pair.type;
    }
  }
  ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
      "dtype ", py::str(py::handle(dtype)).cast<std::string>(),
      " has no mxla element type (bool, int8-64, uint8-64, float16, "
      "float32, float64)")));
}

py::dtype DtypeOf(PrimitiveType type) {
  for (const TypePair& pair : kTypes) {
    if (pair.type == type) return py::dtype(pair.dtype);
  }
  ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
      "element type ", primitive_util::LowercaseName(type),
      " has no NumPy dtype")));
}

py::dtype ToDtype(const py::object& object) {
  return py::dtype::from_args(object);
}

Shape ArrayShape(const py::dtype& dtype, const std::vector<int64_t>& dims) {
  const PrimitiveType type = ElementTypeOf(dtype);
  for (int64_t size : dims) {
    if (size < 0) {
      ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
          "shape dimensions must be non-negative, got ", size)));
    }
  }
  return ShapeUtil::MakeShape(type, dims);
}

Literal LiteralFromArray(const py::array& array) {
  const py::array contiguous =
      py::array::ensure(array, py::array::c_style | py::array::forcecast);
  std::vector<int64_t> dims(contiguous.shape(),
                            contiguous.shape() + contiguous.ndim());
  Literal literal(ArrayShape(contiguous.dtype(), dims));
  if (contiguous.nbytes() > 0) {
    std::memcpy(literal.untyped_data(), contiguous.data(),
                contiguous.nbytes());
  }
  return literal;
}

py::array ArrayFromLiteral(const Literal& literal) {
  const Shape& shape = literal.shape();
  std::vector<py::ssize_t> dims(shape.dimensions().begin(),
                                shape.dimensions().end());
  py::array array(DtypeOf(shape.element_type()), dims);
  if (literal.size_bytes() > 0) {
    std::memcpy(array.mutable_data(), literal.untyped_data(),
                literal.size_bytes());
  }
  return array;
}

py::object ValueFromLiteral(const Literal& literal) {
  if (!literal.shape().IsTuple()) return ArrayFromLiteral(literal);
  py::tuple elements(literal.tuple_size());
  for (int64_t i = 0; i < literal.tuple_size(); ++i) {
    elements[i] = ValueFromLiteral(literal.tuple_element(i));
  }
  return elements;
}

}  // namespace mxla::python
