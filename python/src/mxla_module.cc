// The _mxla extension module that the mxla package re-exports.
#include <pybind11/pybind11.h>

#include "python/src/py_bindings.h"
#include "python/src/py_status.h"

PYBIND11_MODULE(_mxla, m) {
  m.doc() = "mxla: an XLA-style compiler for the CPU (C++ core)";
  mxla::python::RegisterErrors(m);
  mxla::python::DefineBuilderBindings(m);
  mxla::python::DefineStructuredOpBindings(m);
  mxla::python::DefineWindowGatherBindings(m);
  mxla::python::DefineSystemOpBindings(m);
  mxla::python::DefineTransformBindings(m);
  mxla::python::DefineExecutableBindings(m);
}
