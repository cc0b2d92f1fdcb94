// The parts of the _mxla extension module, each defined in its own file
// and called by the module's init (mxla_module.cc).
#ifndef MXLA_PYTHON_SRC_PY_BINDINGS_H_
#define MXLA_PYTHON_SRC_PY_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace mxla::python {

// XlaBuilder, XlaOp, XlaComputation and the op functions.
void DefineBuilderBindings(pybind11::module_& m);
// Computation-taking, index, random, linear-algebra and bit ops.
void DefineStructuredOpBindings(pybind11::module_& m);
// Gather, Scatter, ConvGeneralDilated, ReduceWindow, SelectAndScatter.
void DefineWindowGatherBindings(pybind11::module_& m);
// Variadic reduce, random bits, scaled dot, custom calls, tokens and
// feeds, the one-device collectives.
void DefineSystemOpBindings(pybind11::module_& m);
// Gradient, Vjp, EmitVjp and CallInline over built computations.
void DefineTransformBindings(pybind11::module_& m);
// compile and Executable.
void DefineExecutableBindings(pybind11::module_& m);

}  // namespace mxla::python

#endif  // MXLA_PYTHON_SRC_PY_BINDINGS_H_
