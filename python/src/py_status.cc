#include "python/src/py_status.h"

#include <Python.h>
#include <frameobject.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace mxla::python {

namespace py = pybind11;

const SourceLocation& BindingSite() {
  static const SourceLocation site = SourceLocation::current();
  return site;
}

std::string PythonCallSite() {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  if (frame == nullptr) return "<unknown>";
  PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
  std::string file = py::reinterpret_borrow<py::str>(code->co_filename);
  Py_DECREF(code);
  return absl::StrCat(file, ":", PyFrame_GetLineNumber(frame));
}

void ThrowStatus(const absl::Status& status) {
  std::string message(status.message());
  absl::StrReplaceAll({{CallSiteString(BindingSite()), PythonCallSite()}},
                      &message);
  throw StatusException(absl::StatusCodeToString(status.code()),
                        std::move(message));
}

void RegisterErrors(py::module_& module) {
  static py::handle error_type =
      py::exception<StatusException>(module, "Error", PyExc_ValueError)
          .release();
  module.attr("Error").attr("__doc__") =
      "An mxla error: its message names the op, the shapes and the Python "
      "call site; `code` is the status code's name (INVALID_ARGUMENT, ...).";
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const StatusException& e) {
      py::object error = error_type(e.what());
      error.attr("code") = e.code();
      PyErr_SetObject(error_type.ptr(), error.ptr());
    }
  });
}

}  // namespace mxla::python
