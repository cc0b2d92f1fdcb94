// Transformations of built computations from Python: reverse-mode
// gradients (transforms/autodiff.h), batching (transforms/batching.h) and
// inlining a computation into another builder
// (builder/inline_computation.h), which mxla.grad, mxla.vjp, mxla.vmap
// and a jitted call inside another are made of; loops and conditionals
// whose bodies are such computations (mxla.lax's fori_loop, while_loop
// and cond).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "builder/inline_computation.h"
#include "builder/xla_builder.h"
#include "python/src/py_bindings.h"
#include "python/src/py_op.h"
#include "python/src/py_status.h"
#include "transforms/autodiff.h"
#include "transforms/batching.h"

namespace mxla::python {

namespace py = pybind11;

namespace {

using Builder = std::shared_ptr<XlaBuilder>;

// (value, [cotangent of wrt[0], ...]) as ops of `builder`, or mxla.Error
// with the builder as it was.
template <typename Emit>
std::pair<PyOp, std::vector<PyOp>> EmitChecked(const Builder& builder,
                                               Emit&& emit) {
  OpAttempt attempt(builder);
  absl::StatusOr<VjpOps> ops = emit();
  if (!ops.ok()) ThrowStatus(ops.status());
  attempt.Finish();
  std::vector<PyOp> cotangents;
  for (XlaOp op : ops->cotangents) cotangents.push_back(PyOp{builder, op});
  return {PyOp{builder, ops->value}, std::move(cotangents)};
}

void DefineComputationTransforms(py::module_& m) {
  m.def(
      "Gradient",
      [](const XlaComputation& f, const Ints& wrt) {
        return ValueOrThrow(Gradient(f, wrt));
      },
      py::arg("computation"), py::arg("wrt"),
      "For a computation returning a float scalar: the computation of its "
      "parameters returning the tuple of its gradients with respect to the "
      "parameters numbered in `wrt`.");
  m.def(
      "ValueAndGradient",
      [](const XlaComputation& f, const Ints& wrt) {
        return ValueOrThrow(ValueAndGradient(f, wrt));
      },
      py::arg("computation"), py::arg("wrt"),
      "As Gradient, with the value first: (f(x), df/dx[wrt[0]], ...).");
  m.def(
      "Vjp",
      [](const XlaComputation& f, const Ints& wrt) {
        return ValueOrThrow(Vjp(f, wrt));
      },
      py::arg("computation"), py::arg("wrt"),
      "The computation of f's parameters and then the result's cotangent "
      "(one per element of a tuple result) returning (f(x), cotangent of "
      "wrt[0], ...).");
}

void DefineInBuilderTransforms(py::module_& m) {
  m.def(
      "EmitVjp",
      [](const Builder& builder, const XlaComputation& f,
         const std::vector<PyOp>& arguments, const PyOp& cotangent,
         const Ints& wrt) {
        return EmitChecked(builder, [&] {
          return EmitVjp(*builder, f, Ops(arguments), cotangent.op, wrt);
        });
      },
      py::arg("builder"), py::arg("computation"), py::arg("arguments"),
      py::arg("cotangent"), py::arg("wrt"),
      "In `builder`: (f(arguments), [cotangent of arguments[wrt[0]], ...]) "
      "given the result's cotangent.");
  m.def(
      "EmitTupleVjp",
      [](const Builder& builder, const XlaComputation& f,
         const std::vector<PyOp>& arguments,
         const std::vector<std::optional<PyOp>>& cotangents, const Ints& wrt) {
        std::vector<XlaOp> seeds;
        for (const std::optional<PyOp>& c : cotangents) {
          seeds.push_back(c ? c->op : XlaOp());
        }
        return EmitChecked(builder, [&] {
          return EmitTupleVjp(*builder, f, Ops(arguments), seeds, wrt);
        });
      },
      py::arg("builder"), py::arg("computation"), py::arg("arguments"),
      py::arg("cotangents"), py::arg("wrt"),
      "EmitVjp for a tuple result: one cotangent per element, None for an "
      "element that gets none; the value is the whole tuple.");
  m.def(
      "EmitBatched",
      [](const Builder& builder, const XlaComputation& f,
         const std::vector<PyOp>& arguments,
         const std::vector<std::optional<int64_t>>& in_dims,
         int64_t batch_size) {
        OpAttempt attempt(builder);
        std::vector<bool> reached;
        absl::StatusOr<std::vector<XlaOp>> results = EmitBatched(
            *builder, f, Ops(arguments), in_dims, batch_size, &reached);
        if (!results.ok()) ThrowStatus(results.status());
        attempt.Finish();
        std::vector<PyOp> ops;
        for (XlaOp op : *results) ops.push_back(PyOp{builder, op});
        return std::make_pair(ops, reached);
      },
      py::arg("builder"), py::arg("computation"), py::arg("arguments"),
      py::arg("in_dims"), py::arg("batch_size"),
      "In `builder`: `computation` over each batch element of `arguments` "
      "(argument i batched along in_dims[i], or None for unbatched): one op "
      "per result, each with the batch at dimension 0, and for each whether "
      "a batched argument reaches it (if not, it is broadcast).");
  m.def(
      "CallInline",
      [](const Builder& builder, const XlaComputation& f,
         const std::vector<PyOp>& arguments) {
        OpAttempt attempt(builder);
        absl::StatusOr<XlaOp> root = CallInline(*builder, f, Ops(arguments));
        if (!root.ok()) ThrowStatus(root.status());
        return attempt.Finish(*root);
      },
      py::arg("builder"), py::arg("computation"), py::arg("arguments"),
      "`computation`'s instructions added to `builder` with `arguments` in "
      "place of its parameters; returns the op holding its result.");
}

// `f`, a computation of one parameter per element of `elements`, as a
// computation of one tuple parameter (what a while loop's condition and
// body take).
absl::StatusOr<XlaComputation> OnTuple(const XlaComputation& f,
                                       const std::vector<Shape>& elements) {
  XlaBuilder builder(absl::StrCat(f.name(), ".on_tuple"));
  const XlaOp state = Parameter(&builder, 0, Shape(elements), "state");
  std::vector<XlaOp> arguments;
  for (size_t i = 0; i < elements.size(); ++i) {
    arguments.push_back(GetTupleElement(state, i));
  }
  absl::StatusOr<XlaOp> root = CallInline(builder, f, arguments);
  if (!root.ok()) return root.status();
  return builder.Build(*root);
}

void DefineLoops(py::module_& m) {
  m.def(
      "WhileOfElements",
      [](const XlaComputation& condition, const XlaComputation& body,
         const std::vector<PyOp>& init) {
        const Builder& builder = BuilderOf(init);
        std::vector<Shape> elements;
        for (const PyOp& value : init) elements.push_back(ShapeOf(value));
        const XlaComputation on_condition =
            ValueOrThrow(OnTuple(condition, elements));
        const XlaComputation on_body = ValueOrThrow(OnTuple(body, elements));
        return Checked(builder, [&] {
          return While(on_condition, on_body,
                       Tuple(builder.get(), Ops(init), BindingSite()),
                       BindingSite());
        });
      },
      py::arg("condition"), py::arg("body"), py::arg("init"),
      "XLA's While over a state of arrays, with a condition and a body "
      "written as computations of one parameter per element (the body "
      "returning the tuple of the next elements); the result is the "
      "final state's tuple.");
}

void DefineConditionals(py::module_& m) {
  m.def(
      "ConditionalOfElements",
      [](const PyOp& index, const std::vector<XlaComputation>& branches,
         const std::vector<std::vector<PyOp>>& operands) {
        if (branches.size() != operands.size()) {
          throw py::value_error("ConditionalOfElements: one operand list per "
                                "branch");
        }
        std::vector<XlaComputation> on_tuples;
        for (size_t i = 0; i < branches.size(); ++i) {
          std::vector<Shape> elements;
          for (const PyOp& value : operands[i]) {
            elements.push_back(ShapeOf(value));
          }
          on_tuples.push_back(ValueOrThrow(OnTuple(branches[i], elements)));
        }
        std::vector<const XlaComputation*> pointers;
        for (const XlaComputation& branch : on_tuples) {
          pointers.push_back(&branch);
        }
        return Checked(index.builder, [&] {
          std::vector<XlaOp> tuples;
          for (const std::vector<PyOp>& values : operands) {
            tuples.push_back(
                Tuple(index.builder.get(), Ops(values), BindingSite()));
          }
          return Conditional(index.op, pointers, tuples, BindingSite());
        });
      },
      py::arg("index"), py::arg("branches"), py::arg("operands"),
      "XLA's Conditional on a pred (two branches: true, false) or an s32 "
      "index, with each branch written as a computation of one parameter "
      "per element of its operands (operands[i], a list of arrays).");
}

}  // namespace

void DefineTransformBindings(py::module_& m) {
  DefineComputationTransforms(m);
  DefineInBuilderTransforms(m);
  DefineLoops(m);
  DefineConditionals(m);
}

}  // namespace mxla::python
