#include "python/src/py_status.h"

#include <Python.h>
#include <frameobject.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace mxla::python {

namespace py = pybind11;

const SourceLocation& BindingSite() {
  static const SourceLocation site = SourceLocation::current();
  return site;
}

namespace {

// True for a frame of the mxla package's own Python code (mxla.numpy,
// mxla._jit, ...), which is never where the user's mistake is.
bool IsMxlaFrame(const py::handle frame) {
  const py::object name = frame.attr("f_globals").attr("get")("__name__");
  if (!py::isinstance<py::str>(name)) return false;
  const std::string module = name.cast<std::string>();
  return module == "mxla" || module.rfind("mxla.", 0) == 0;
}

}  // namespace

std::string PythonCallSite() {
  PyFrameObject* innermost = PyEval_GetFrame();  // borrowed
  if (innermost == nullptr) return "<unknown>";
  py::object frame = py::reinterpret_borrow<py::object>(
      reinterpret_cast<PyObject*>(innermost));
  // The user's line: the innermost frame outside mxla's package (under
  // @mxla.jit, the line that called mxla.numpy), else the innermost.
  for (py::object f = frame; !f.is_none(); f = f.attr("f_back")) {
    if (!IsMxlaFrame(f)) {
      frame = f;
      break;
    }
  }
  const std::string file = py::str(frame.attr("f_code").attr("co_filename"));
  return absl::StrCat(file, ":", frame.attr("f_lineno").cast<int>());
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
