// mxla.compile and mxla.Executable: a computation compiled once, called
// on NumPy arrays. Arguments that are C-contiguous and aligned are passed
// to the kernels as they are (no copy); others (Fortran order, strides) are
// copied first. Results are new arrays (a tuple for a tuple root), written
// in place by the kernels; the GIL is released while they run. A result
// aliased to a parameter the computation returns there unchanged is that
// argument's own array (no copy), unless the array is read-only or donated
// in the call.
//
// Donation: a parameter the computation aliases to a result element
// (XlaBuilder.set_up_alias, XLA's input_output_alias) is updated in place
// when the call passes donate=True and the argument is an array of the
// parameter's dtype and shape, C-contiguous, aligned and writeable: the
// kernels write that result element into the argument's memory, and the
// call returns the argument array itself as that element. Afterwards the
// donated array holds the result, never its old value. An argument that
// must be copied first (another dtype or layout) is not donated: the copy
// is. Without donate=True arguments are never written.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_computation.h"
#include "python/src/py_bindings.h"
#include "python/src/py_status.h"
#include "python/src/py_types.h"
#include "runtime/buffer_leaves.h"
#include "runtime/machine_limits.h"
#include "runtime/profile.h"
#include "runtime/thread_pool.h"

namespace mxla::python {

namespace py = pybind11;

namespace {

class PyExecutable {
 public:
  PyExecutable(std::unique_ptr<Executable> executable,
               ProgramShape program_shape)
      : executable_(std::move(executable)),
        program_shape_(std::move(program_shape)),
        aliases_(
            ValueOrThrow(ResolveInputOutputAliases(executable_->module()))),
        passed_through_(PassedThroughParameters(executable_->module())),
        parameter_dtypes_(ParameterDtypes(program_shape_)),
        result_dtypes_(ResultDtypes(program_shape_)) {}

  py::object Call(const py::args& args, bool donate) const {
    return Run(args, {}, donate);
  }

  // One run with RunOptions::profile: the table (runtime/profile.h).
  std::string Profile(const py::args& args) const {
    RunProfile profile;
    RunOptions options;
    options.profile = true;
    options.profile_sink = &profile;
    Run(args, options, /*donate=*/false);
    py::gil_scoped_release release;  // the first call measures the machine
    ThreadPool& pool = ThreadPool::Default();
    return profile.Format(MachineLimitsFor(pool, pool.threads()));
  }

  std::string HloText() const { return executable_->module().ToString(); }

  // (output index, parameter number, parameter index) per alias.
  py::list Aliases() const {
    py::list list;
    for (const HloInputOutputAlias& alias :
         executable_->module().input_output_aliases()) {
      list.append(py::make_tuple(py::tuple(py::cast(alias.output_index)),
                                 alias.parameter_number,
                                 py::tuple(py::cast(alias.parameter_index))));
    }
    return list;
  }

 private:
  py::object Run(const py::args& args, const RunOptions& options,
                 bool donate) const {
    const std::vector<Shape>& parameters = program_shape_.parameters;
    if (args.size() != parameters.size()) {
      ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
          "expected ", parameters.size(),
          " arguments (one per parameter), got ", args.size())));
    }
    std::vector<py::array> inputs;
    std::vector<const void*> argument_data;
    std::vector<int64_t> argument_sizes;
    for (size_t i = 0; i < parameters.size(); ++i) {
      py::array input = Argument(args[i], i);
      argument_data.push_back(input.data());
      argument_sizes.push_back(input.nbytes());
      inputs.push_back(std::move(input));
    }
    // Parameters are arrays here: argument leaf a is parameter a.
    std::vector<int64_t> donor(CountArrayLeaves(program_shape_.result), -1);
    if (donate) {
      for (const AliasedLeaf& alias : aliases_) {
        py::array& input = inputs[alias.argument_leaf];
        if (!input.is(args[alias.argument_leaf])) continue;  // a copy
        if (!input.writeable()) {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "argument ", alias.argument_leaf,
              " is donated (donate=True) but its array is read-only")));
        }
        donor[alias.result_leaf] = alias.argument_leaf;
      }
    }
    // A result aliased to a parameter that the entry returns there
    // unchanged is that argument's array: no copy, no allocation (XLA's
    // ResNet-50 module returns its 320 state arrays so; JAX forwards such
    // results too). The run takes it as a donation that writes nothing.
    // Not for an argument donated in this call (its array then holds a new
    // value), nor for a read-only one.
    std::vector<bool> donated_argument(inputs.size(), false);
    for (int64_t from : donor) {
      if (from >= 0) donated_argument[from] = true;
    }
    std::vector<py::array> outputs;
    std::vector<void*> result_data;
    std::vector<int64_t> result_sizes;
    int64_t leaf_number = 0;
    ForEachArrayLeaf(program_shape_.result, [&](const Shape& leaf) {
      const int64_t passed = passed_through_[leaf_number];
      int64_t from = donor[leaf_number++];
      if (from < 0 && passed >= 0 && !donated_argument[passed] &&
          inputs[passed].writeable() &&
          AliasedOnlyTo(passed, leaf_number - 1)) {
        from = passed;
      }
      if (from >= 0) {
        py::array& input = inputs[from];
        result_data.push_back(input.mutable_data());
        result_sizes.push_back(input.nbytes());
        outputs.push_back(input);
        return;
      }
      py::array output(result_dtypes_[leaf_number - 1],
                       std::vector<py::ssize_t>(leaf.dimensions().begin(),
                                                leaf.dimensions().end()));
      result_data.push_back(output.mutable_data());
      result_sizes.push_back(output.nbytes());
      outputs.push_back(std::move(output));
    });
    absl::Status status;
    {
      py::gil_scoped_release release;
      status = executable_->RunBuffers(argument_data, argument_sizes,
                                       result_data, result_sizes, options);
    }
    ThrowIfError(status);
    size_t next = 0;
    return Nest(program_shape_.result, outputs, next);
  }

  // Argument `i` as an array the kernels can read: its own buffer when it
  // has the parameter's dtype and shape and is C-contiguous and aligned,
  // else a contiguous copy. A wrong dtype or shape is an mxla.Error.
  py::array Argument(const py::handle& value, size_t i) const {
    const Shape& parameter = program_shape_.parameters[i];
    if (!parameter.IsArray()) {
      ThrowStatus(absl::UnimplementedError(absl::StrCat(
          "parameter ", i, " has tuple shape ", parameter.ToString(),
          "; Python calls take array parameters only")));
    }
    // An ndarray is taken as it is: numpy.asarray would return it anyway,
    // and calling it costs as much as a small kernel.
    py::array array = py::isinstance<py::array>(value)
                          ? py::reinterpret_borrow<py::array>(value)
                          : py::array(Numpy().attr("asarray")(value));
    if (!HasShapeOf(array, parameter, parameter_dtypes_[i])) {
      std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
      const bool same_type = array.dtype().equal(parameter_dtypes_[i]);
      const std::string got =
          same_type ? ArrayShape(array.dtype(), dims).ToString()
                    : absl::StrCat(py::str(py::handle(array.dtype())).cast<std::string>(), "[",
                                   absl::StrJoin(dims, ","), "]");
      ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, ": expected ", parameter.ToString(), ", got ", got)));
    }
    const int flags = py::array::c_style | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
    if ((array.flags() & flags) == flags) return array;
    return Numpy().attr("require")(array, py::arg("requirements") = "CA");
  }

  static bool HasShapeOf(const py::array& array, const Shape& parameter,
                         const py::dtype& dtype) {
    if (array.ndim() != static_cast<py::ssize_t>(parameter.dimensions().size())) {
      return false;
    }
    for (py::ssize_t d = 0; d < array.ndim(); ++d) {
      if (array.shape(d) != parameter.dimensions()[d]) return false;
    }
    return array.dtype().equal(dtype);
  }

  static const py::module_& Numpy() {
    static const py::module_* numpy =
        new py::module_(py::module_::import("numpy"));
    return *numpy;
  }

  static std::vector<py::dtype> ResultDtypes(const ProgramShape& shape) {
    std::vector<py::dtype> dtypes;
    ForEachArrayLeaf(shape.result, [&](const Shape& leaf) {
      dtypes.push_back(DtypeOf(leaf.element_type()));
    });
    return dtypes;
  }

  static std::vector<py::dtype> ParameterDtypes(const ProgramShape& shape) {
    std::vector<py::dtype> dtypes;
    for (const Shape& parameter : shape.parameters) {
      dtypes.push_back(parameter.IsArray() ? DtypeOf(parameter.element_type())
                                           : py::dtype("O"));
    }
    return dtypes;
  }

  // The result leaves `outputs` from `next` on, nested as `shape`.
  static py::object Nest(const Shape& shape, std::vector<py::array>& outputs,
                         size_t& next) {
    if (shape.IsArray()) return outputs[next++];
    const int64_t count = shape.tuple_shapes().size();
    py::tuple elements(count);
    for (int64_t i = 0; i < count; ++i) {
      elements[i] = Nest(shape.tuple_shapes(i), outputs, next);
    }
    return elements;
  }

  // Whether argument leaf `argument` is aliased to result leaf `result`
  // and to no other (which a run could update a copy of in place).
  bool AliasedOnlyTo(int64_t argument, int64_t result) const {
    bool to_result = false;
    for (const AliasedLeaf& alias : aliases_) {
      if (alias.argument_leaf != argument) continue;
      if (alias.result_leaf != result) return false;
      to_result = true;
    }
    return to_result;
  }

  // Per result leaf, the parameter the entry returns there unchanged, or -1.
  static std::vector<int64_t> PassedThroughParameters(const HloModule& module) {
    std::vector<int64_t> passed;
    std::vector<const HloInstruction*> stack = {
        module.entry_computation()->root_instruction()};
    while (!stack.empty()) {  // depth-first, leaves in order
      const HloInstruction* value = stack.back();
      stack.pop_back();
      if (value->opcode() == HloOpcode::kTuple) {
        for (int64_t i = value->operand_count() - 1; i >= 0; --i) {
          stack.push_back(value->operand(i));
        }
        continue;
      }
      if (!value->shape().IsArray()) {  // a tuple from elsewhere
        ForEachArrayLeaf(value->shape(),
                         [&](const Shape&) { passed.push_back(-1); });
        continue;
      }
      passed.push_back(value->opcode() == HloOpcode::kParameter
                           ? value->parameter_number()
                           : -1);
    }
    return passed;
  }

  std::shared_ptr<Executable> executable_;
  ProgramShape program_shape_;
  std::vector<AliasedLeaf> aliases_;
  std::vector<int64_t> passed_through_;
  // Per parameter and per result leaf, the NumPy dtype of its elements.
  std::vector<py::dtype> parameter_dtypes_;
  std::vector<py::dtype> result_dtypes_;
};

}  // namespace

void DefineExecutableBindings(py::module_& m) {
  py::class_<PyExecutable>(m, "Executable",
                           "A compiled computation; call it on arrays.")
      .def("__call__", &PyExecutable::Call, py::arg("donate") = false,
           "Runs on the arguments; with donate=True, aliased parameters' "
           "arrays are updated in place and returned (see input_output_alias).")
      .def_property_readonly(
          "input_output_alias", &PyExecutable::Aliases,
          "The donatable parameters: (output_index, param_number, "
          "param_index) per alias set up with XlaBuilder.set_up_alias.")
      .def("profile", &PyExecutable::Profile,
           "Runs once on the arguments, timing each kernel, and returns the "
           "profile: each kernel's time, share, calls, GFLOP/s, GB/s "
           "and share of the machine's limit, slowest first, with its HLO "
           "instructions (as `mxla run --profile` prints it). The results "
           "are dropped.")
      .def("as_hlo_text", &PyExecutable::HloText,
           "The module the backend runs (for the jit: fused, with plans).");
  m.def(
      "compile",
      [](const XlaComputation& computation, const std::string& backend,
         const std::string& dump_dir, const std::string& cache_dir) {
        CompileOptions options;
        options.backend = ValueOrThrow(ParseBackend(backend));
        options.pipeline.dump_dir = dump_dir;
        options.cache_dir = cache_dir;
        return PyExecutable(ValueOrThrow(Compile(computation, options)),
                            computation.GetProgramShape());
      },
      py::arg("computation"), py::arg("backend") = "jit",
      py::arg("dump_dir") = "", py::arg("cache_dir") = "",
      "Compiles `computation` for `backend` ('jit', LLVM; or "
      "'interpreter', the reference evaluator); with `dump_dir`, writes "
      "every stage there as `mxla run --dump-dir` does; with `cache_dir` "
      "(or the MXLA_CACHE_DIR environment variable), loads the jit's "
      "program from that persistent cache or stores it there for the next "
      "process.");
  m.def(
      "compile_hlo",
      [](const std::string& text, const std::string& backend,
         const std::string& dump_dir, const std::string& cache_dir) {
        std::unique_ptr<HloModule> module = ValueOrThrow(ParseHloModule(text));
        ProgramShape shape;
        const HloComputation& entry = *module->entry_computation();
        for (int64_t i = 0; i < entry.num_parameters(); ++i) {
          shape.parameters.push_back(entry.parameter_instruction(i)->shape());
        }
        shape.result = entry.root_instruction()->shape();
        CompileOptions options;
        options.backend = ValueOrThrow(ParseBackend(backend));
        options.pipeline.dump_dir = dump_dir;
        options.cache_dir = cache_dir;
        return PyExecutable(ValueOrThrow(Compile(*module, options)),
                            std::move(shape));
      },
      py::arg("text"), py::arg("backend") = "jit", py::arg("dump_dir") = "",
      py::arg("cache_dir") = "",
      "Parses an HLO text module (as `mxla run` reads it, XLA's "
      "input_output_alias included) and compiles it like `compile`.");
}

}  // namespace mxla::python
