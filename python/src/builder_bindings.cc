// mxla.XlaBuilder, mxla.XlaOp and the op functions, named as in C++ (and
// XLA): mxla.Add(x, v, broadcast_dimensions=(1,)). An op that fails raises
// mxla.Error at once, naming the Python line that called it.
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "python/src/py_bindings.h"
#include "python/src/py_op.h"
#include "python/src/py_status.h"
#include "python/src/py_types.h"

namespace mxla::python {

namespace py = pybind11;

namespace {

void DefineBuilder(py::module_& m) {
  py::class_<XlaComputation>(m, "XlaComputation",
                             "A built computation (immutable).")
      .def_property_readonly("name", &XlaComputation::name)
      .def("as_hlo_text", &XlaComputation::ToString,
           "The computation in HLO text, as the builder recorded it.")
      .def("__str__", &XlaComputation::ToString);

  py::class_<XlaBuilder, std::shared_ptr<XlaBuilder>>(
      m, "XlaBuilder", "Records a computation, op by op.")
      .def(py::init<std::string>(), py::arg("name"))
      .def_property_readonly("name", &XlaBuilder::name)
      .def(
          "build",
          [](XlaBuilder& builder, std::optional<PyOp> root) {
            return ValueOrThrow(root ? builder.Build(root->op, BindingSite())
                                     : builder.Build(BindingSite()));
          },
          py::arg("root") = py::none(),
          "The computation with `root` (default: the last op) as its root.")
      .def(
          "set_up_alias",
          [](XlaBuilder& builder, std::vector<int64_t> output_index,
             int64_t param_number, std::vector<int64_t> param_index) {
            builder.SetUpAlias(std::move(output_index), param_number,
                               std::move(param_index));
          },
          py::arg("output_index"), py::arg("param_number"),
          py::arg("param_index") = std::vector<int64_t>{},
          "XLA's SetUpAlias: the result element at `output_index` (a tuple "
          "path, () for an array result) may be written into parameter "
          "`param_number`'s buffer, which a call can donate "
          "(Executable.__call__(..., donate=True)). build() checks it.");

  py::class_<PyOp>(m, "XlaOp", "An op of an XlaBuilder.")
      .def_property_readonly(
          "shape",
          [](const PyOp& x) {
            const Shape shape = ShapeOf(x);
            return Ints(shape.dimensions().begin(), shape.dimensions().end());
          },
          "The op's dimensions, as a list.")
      .def_property_readonly(
          "dtype",
          [](const PyOp& x) { return DtypeOf(ShapeOf(x).element_type()); })
      .def_property_readonly("builder",
                             [](const PyOp& x) { return x.builder; })
      .def("__repr__", [](const PyOp& x) {
        return absl::StrCat("XlaOp(", ShapeOf(x).ToString(), ")");
      });
}

void DefineInputs(py::module_& m) {
  m.def(
      "Parameter",
      [](const std::shared_ptr<XlaBuilder>& b, int64_t number,
         const py::object& dtype, const Ints& dims, const std::string& name) {
        return Checked(b, [&] {
          return Parameter(b.get(), number, ArrayShape(ToDtype(dtype), dims),
                           name, BindingSite());
        });
      },
      py::arg("builder"), py::arg("parameter_number"), py::arg("dtype"),
      py::arg("dims"), py::arg("name") = "",
      "Entry parameter `parameter_number`, an array of `dtype` and `dims`.");
  m.def(
      "Constant",
      [](const std::shared_ptr<XlaBuilder>& b, const py::object& value,
         const py::object& dtype) {
        const py::object numpy = py::module_::import("numpy");
        const py::object array =
            dtype.is_none()
                ? numpy.attr("asarray")(value)
                : numpy.attr("asarray")(value, py::arg("dtype") = ToDtype(dtype));
        return Checked(b, [&] {
          return ConstantLiteral(b.get(),
                                 LiteralFromArray(array.cast<py::array>()),
                                 BindingSite());
        });
      },
      py::arg("builder"), py::arg("value"), py::arg("dtype") = py::none(),
      "A constant holding a copy of `value` (a NumPy array or anything "
      "numpy.asarray takes), converted to `dtype` if given.");
  m.def(
      "Iota",
      [](const std::shared_ptr<XlaBuilder>& b, const py::object& dtype,
         const Ints& dims, int64_t iota_dimension) {
        return Checked(b, [&] {
          return Iota(b.get(), ArrayShape(ToDtype(dtype), dims), iota_dimension,
                      BindingSite());
        });
      },
      py::arg("builder"), py::arg("dtype"), py::arg("dims"),
      py::arg("iota_dimension"));
}

// One binding per binary and unary op of the op table, and the comparisons.
void DefineElementwise(py::module_& m) {
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, text, Name, type_rule, cost)                    \
  m.def(                                                                  \
      #Name,                                                              \
      [](const PyOp& lhs, const py::object& rhs, const Ints& dims) {      \
        return Checked(lhs.builder, [&] {                                 \
          return Name(lhs.op, Operand(rhs, lhs).op, dims, BindingSite()); \
        });                                                               \
      },                                                                  \
      py::arg("lhs"), py::arg("rhs"),                                     \
      py::arg("broadcast_dimensions") = Ints{},                           \
      "XLA's " #Name                                                      \
      ": `broadcast_dimensions` maps the lower-rank "                     \
      "operand's dimensions onto the other's.");
#include "ir/hlo_ops.def"
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, text, Name, type_rule, cost)                         \
  m.def(                                                                      \
      #Name,                                                                  \
      [](const PyOp& x) {                                                     \
        return Checked(x.builder, [&] { return Name(x.op, BindingSite()); }); \
      },                                                                      \
      py::arg("operand"));
#include "ir/hlo_ops.def"
#define MXLA_BIND_COMPARE(Name)                                           \
  m.def(                                                                  \
      #Name,                                                              \
      [](const PyOp& lhs, const py::object& rhs, const Ints& dims) {      \
        return Checked(lhs.builder, [&] {                                 \
          return Name(lhs.op, Operand(rhs, lhs).op, dims, BindingSite()); \
        });                                                               \
      },                                                                  \
      py::arg("lhs"), py::arg("rhs"),                                     \
      py::arg("broadcast_dimensions") = Ints{});
  MXLA_BIND_COMPARE(Eq)
  MXLA_BIND_COMPARE(Ne)
  MXLA_BIND_COMPARE(Lt)
  MXLA_BIND_COMPARE(Le)
  MXLA_BIND_COMPARE(Gt)
  MXLA_BIND_COMPARE(Ge)
#undef MXLA_BIND_COMPARE
  m.def(
      "Select",
      [](const PyOp& pred, const py::object& on_true,
         const py::object& on_false) {
        return Checked(pred.builder, [&] {
          return Select(pred.op, Operand(on_true, pred).op,
                        Operand(on_false, pred).op, BindingSite());
        });
      },
      py::arg("pred"), py::arg("on_true"), py::arg("on_false"));
  m.def(
      "ConvertElementType",
      [](const PyOp& x, const py::object& dtype) {
        return Checked(x.builder, [&] {
          return ConvertElementType(x.op, ElementTypeOf(ToDtype(dtype)),
                                    BindingSite());
        });
      },
      py::arg("operand"), py::arg("dtype"));
  m.def(
      "Clamp",
      [](const PyOp& min, const PyOp& x, const PyOp& max) {
        return Checked(x.builder, [&] {
          return Clamp(min.op, x.op, max.op, BindingSite());
        });
      },
      py::arg("min"), py::arg("operand"), py::arg("max"));
}

// Python's operators on XlaOp: the same ops, with scalars of the op's
// element type; no implicit broadcasting beyond XLA's (equal ranks or a
// scalar).
void DefineOperators(py::module_& m) {
  py::class_<PyOp> op = m.attr("XlaOp");
  auto binary = [](auto function) {
    return [function](const PyOp& x, const py::object& y) {
      return Checked(x.builder, [&] {
        return function(x.op, Operand(y, x).op, Dims{}, BindingSite());
      });
    };
  };
  auto reflected = [](auto function) {
    return [function](const PyOp& x, const py::object& y) {
      return Checked(x.builder, [&] {
        return function(Operand(y, x).op, x.op, Dims{}, BindingSite());
      });
    };
  };
  using BinaryFn = XlaOp (*)(XlaOp, XlaOp, Dims, SourceLocation);
  const BinaryFn add = &Add, sub = &Sub, mul = &Mul, div = &Div,
                 pow = &Pow, rem = &Rem, lt = &Lt, le = &Le, gt = &Gt,
                 ge = &Ge, and_fn = &And, or_fn = &Or, xor_fn = &Xor;
  op.def("__add__", binary(add)).def("__radd__", reflected(add));
  op.def("__sub__", binary(sub)).def("__rsub__", reflected(sub));
  op.def("__mul__", binary(mul)).def("__rmul__", reflected(mul));
  op.def("__truediv__", binary(div)).def("__rtruediv__", reflected(div));
  op.def("__pow__", binary(pow)).def("__rpow__", reflected(pow));
  op.def("__mod__", binary(rem)).def("__rmod__", reflected(rem));
  op.def("__lt__", binary(lt)).def("__le__", binary(le));
  op.def("__gt__", binary(gt)).def("__ge__", binary(ge));
  op.def("__and__", binary(and_fn)).def("__or__", binary(or_fn));
  op.def("__xor__", binary(xor_fn));
  op.def("__neg__", [](const PyOp& x) {
    return Checked(x.builder, [&] { return Neg(x.op, BindingSite()); });
  });
  op.def("__abs__", [](const PyOp& x) {
    return Checked(x.builder, [&] { return Abs(x.op, BindingSite()); });
  });
  op.def("__matmul__", [](const PyOp& x, const PyOp& y) {
    return Checked(x.builder, [&] { return Dot(x.op, y.op, BindingSite()); });
  });
}

void DefineShapeOps(py::module_& m) {
  m.def(
      "Broadcast",
      [](const PyOp& x, const Ints& sizes) {
        return Checked(x.builder,
                       [&] { return Broadcast(x.op, sizes, BindingSite()); });
      },
      py::arg("operand"), py::arg("broadcast_sizes"));
  m.def(
      "BroadcastInDim",
      [](const PyOp& x, const Ints& sizes, const Ints& dims) {
        return Checked(x.builder, [&] {
          return BroadcastInDim(x.op, sizes, dims, BindingSite());
        });
      },
      py::arg("operand"), py::arg("out_dimension_sizes"),
      py::arg("broadcast_dimensions"));
  m.def(
      "Reshape",
      [](const PyOp& x, const Ints& sizes) {
        return Checked(x.builder,
                       [&] { return Reshape(x.op, sizes, BindingSite()); });
      },
      py::arg("operand"), py::arg("new_sizes"));
  m.def(
      "Transpose",
      [](const PyOp& x, const Ints& permutation) {
        return Checked(x.builder, [&] {
          return Transpose(x.op, permutation, BindingSite());
        });
      },
      py::arg("operand"), py::arg("permutation"));
  m.def(
      "Rev",
      [](const PyOp& x, const Ints& dims) {
        return Checked(x.builder,
                       [&] { return Rev(x.op, dims, BindingSite()); });
      },
      py::arg("operand"), py::arg("dimensions"));
  m.def(
      "Slice",
      [](const PyOp& x, const Ints& start, const Ints& limit,
         std::optional<Ints> strides) {
        return Checked(x.builder, [&] {
          return Slice(x.op, start, limit,
                       strides ? *strides : Ints(start.size(), 1),
                       BindingSite());
        });
      },
      py::arg("operand"), py::arg("start_indices"), py::arg("limit_indices"),
      py::arg("strides") = py::none());
  m.def(
      "ConcatInDim",
      [](const std::vector<PyOp>& operands, int64_t dimension) {
        const std::shared_ptr<XlaBuilder>& b = BuilderOf(operands);
        return Checked(b, [&] {
          return ConcatInDim(b.get(), Ops(operands), dimension, BindingSite());
        });
      },
      py::arg("operands"), py::arg("dimension"));
  m.def(
      "Tuple",
      [](const std::vector<PyOp>& elements) {
        const std::shared_ptr<XlaBuilder>& b = BuilderOf(elements);
        return Checked(
            b, [&] { return Tuple(b.get(), Ops(elements), BindingSite()); });
      },
      py::arg("elements"));
  m.def(
      "GetTupleElement",
      [](const PyOp& tuple, int64_t index) {
        return Checked(tuple.builder, [&] {
          return GetTupleElement(tuple.op, index, BindingSite());
        });
      },
      py::arg("tuple"), py::arg("index"));
}

void DefineReductionsAndDots(py::module_& m) {
  using Reducer = XlaComputation (*)(PrimitiveType, XlaBuilder*);
  struct NamedReducer {
    const char* name;
    Reducer make;
  };
  for (const NamedReducer& reducer :
       {NamedReducer{"CreateScalarAddComputation", &CreateScalarAddComputation},
        NamedReducer{"CreateScalarMulComputation", &CreateScalarMulComputation},
        NamedReducer{"CreateScalarMaxComputation", &CreateScalarMaxComputation},
        NamedReducer{"CreateScalarMinComputation",
                     &CreateScalarMinComputation}}) {
    const Reducer make = reducer.make;
    m.def(
        reducer.name,
        [make](const py::object& dtype,
               const std::shared_ptr<XlaBuilder>& builder) {
          const PrimitiveType type = ElementTypeOf(ToDtype(dtype));
          OpAttempt attempt(builder);
          XlaComputation computation = make(type, builder.get());
          attempt.Finish();
          return computation;
        },
        py::arg("dtype"), py::arg("builder"),
        "A scalar reducer computation of `dtype` for Reduce.");
  }
  m.def(
      "Reduce",
      [](const PyOp& x, const py::object& init,
         const XlaComputation& computation, const Ints& dims) {
        return Checked(x.builder, [&] {
          return Reduce(x.op, Operand(init, x).op, computation, dims,
                        BindingSite());
        });
      },
      py::arg("operand"), py::arg("init_value"), py::arg("computation"),
      py::arg("dimensions_to_reduce"));
  m.def(
      "Dot",
      [](const PyOp& lhs, const PyOp& rhs) {
        return Checked(lhs.builder,
                       [&] { return Dot(lhs.op, rhs.op, BindingSite()); });
      },
      py::arg("lhs"), py::arg("rhs"));
  m.def(
      "DotGeneral",
      [](const PyOp& lhs, const PyOp& rhs, const Ints& lhs_contracting,
         const Ints& rhs_contracting, const Ints& lhs_batch,
         const Ints& rhs_batch) {
        DotDimensionNumbers dims;
        dims.lhs_contracting = lhs_contracting;
        dims.rhs_contracting = rhs_contracting;
        dims.lhs_batch = lhs_batch;
        dims.rhs_batch = rhs_batch;
        return Checked(lhs.builder, [&] {
          return DotGeneral(lhs.op, rhs.op, dims, BindingSite());
        });
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("lhs_contracting_dims"),
      py::arg("rhs_contracting_dims"), py::arg("lhs_batch_dims") = Ints{},
      py::arg("rhs_batch_dims") = Ints{});
}

}  // namespace

void DefineBuilderBindings(py::module_& m) {
  DefineBuilder(m);
  DefineInputs(m);
  DefineElementwise(m);
  DefineOperators(m);
  DefineShapeOps(m);
  DefineReductionsAndDots(m);
}

}  // namespace mxla::python
