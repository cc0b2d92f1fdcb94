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
//
// Several devices: compile(..., replicas=R, partitions=P) makes an
// executable for R x P in-process devices, run with run_devices (one
// argument list per device, or shared ones) through
// Executable::RunReplicatedBuffers: arguments are taken and results made
// as a one-device call takes and makes them (shared arrays are read by
// every device; a result forwarded from an aliased parameter is the
// argument's array only when no other device reads it), and the GIL is
// released while the devices run.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "hlo_text/hlo_parser.h"
#include "ir/device_assignment.h"
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
  // `devices`: the (replicas, partitions) it was compiled for.
  PyExecutable(std::unique_ptr<Executable> executable,
               ProgramShape program_shape,
               std::pair<int64_t, int64_t> devices)
      : executable_(std::move(executable)),
        program_shape_(std::move(program_shape)),
        replicas_(devices.first),
        partitions_(devices.second),
        aliases_(
            ValueOrThrow(ResolveInputOutputAliases(executable_->module()))),
        passed_through_(PassedThroughParameters(executable_->module())),
        only_alias_(OnlyAliases(aliases_, passed_through_.size())),
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

  int64_t replicas() const { return replicas_; }
  int64_t partitions() const { return partitions_; }

  // One run of the program on each of its devices at once (the default
  // assignment: device p*R + r is replica r of partition p), with
  // `per_device[d]` device d's arguments, or else `shared` every device's;
  // one result per device, in device order.
  py::list RunDevices(const py::object& per_device,
                      const py::object& shared) const {
    const int64_t devices = replicas_ * partitions_;
    if (per_device.is_none() == shared.is_none()) {
      ThrowStatus(absl::InvalidArgumentError(
          "run_devices: give either one argument list per device or "
          "shared=(arguments of every device), not both or neither"));
    }
    std::vector<Buffers> calls;
    if (!shared.is_none()) {
      // One set of arrays read by every device; each gets its results.
      const Buffers arguments =
          Inputs(shared, "run_devices: shared arguments");
      for (int64_t d = 0; d < devices; ++d) calls.push_back(arguments);
    } else {
      const py::sequence lists = ArgumentSequence(per_device, "run_devices");
      if (static_cast<int64_t>(lists.size()) != devices) {
        ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
            "run_devices: ", lists.size(), " argument lists for ", devices,
            devices == 1 ? " device (" : " devices (", DeviceCountText(),
            "); mxla.compile(..., "
            "replicas=R, partitions=P) compiles for R x P devices")));
      }
      for (int64_t d = 0; d < devices; ++d) {
        calls.push_back(Inputs(lists[d], absl::StrCat("device ", d)));
      }
    }
    // A result the entry returns unchanged from an aliased parameter is
    // the argument's own array, as in a one-device call, unless another
    // device reads that array too.
    std::map<const void*, int> readers;
    for (const Buffers& call : calls) {
      for (const void* data : call.argument_data) ++readers[data];
    }
    std::vector<Executable::DeviceBuffers> buffers;
    for (Buffers& call : calls) {
      std::vector<bool> forwardable;
      for (size_t i = 0; i < call.inputs.size(); ++i) {
        forwardable.push_back(readers[call.argument_data[i]] == 1);
      }
      AddOutputs(call, NoDonors(), forwardable);
      buffers.push_back({call.argument_data, call.argument_sizes,
                         call.result_data, call.result_sizes});
    }
    const DeviceAssignment assignment =
        DeviceAssignment::Default(replicas_, partitions_);
    absl::Status status;
    {
      py::gil_scoped_release release;
      status = executable_->RunReplicatedBuffers(buffers, assignment);
    }
    ThrowIfError(status);
    py::list values;
    for (Buffers& call : calls) {
      size_t next = 0;
      values.append(Nest(program_shape_.result, call.outputs, next));
    }
    return values;
  }

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
    if (replicas_ * partitions_ > 1) {
      ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
          "this executable is compiled for ", replicas_ * partitions_,
          " devices (", DeviceCountText(), "); run it with run_devices, "
          "one argument list per device")));
    }
    const std::vector<Shape>& parameters = program_shape_.parameters;
    if (args.size() != parameters.size()) {
      ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
          "expected ", parameters.size(),
          " arguments (one per parameter), got ", args.size())));
    }
    Buffers call;
    for (size_t i = 0; i < parameters.size(); ++i) {
      call.Add(Argument(args[i], i));
    }
    // Parameters are arrays here: argument leaf a is parameter a.
    std::vector<int64_t> donor = NoDonors();
    if (donate) {
      for (const AliasedLeaf& alias : aliases_) {
        py::array& input = call.inputs[alias.argument_leaf];
        if (!input.is(args[alias.argument_leaf])) continue;  // a copy
        if (!input.writeable()) {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "argument ", alias.argument_leaf,
              " is donated (donate=True) but its array is read-only")));
        }
        donor[alias.result_leaf] = alias.argument_leaf;
      }
    }
    AddOutputs(call, donor, std::vector<bool>(call.inputs.size(), true));
    absl::Status status;
    {
      py::gil_scoped_release release;
      status = executable_->RunBuffers(call.argument_data, call.argument_sizes,
                                       call.result_data, call.result_sizes,
                                       options);
    }
    ThrowIfError(status);
    size_t next = 0;
    return Nest(program_shape_.result, call.outputs, next);
  }

  // One device's arrays and the buffers the run reads and writes.
  struct Buffers {
    std::vector<py::array> inputs;
    std::vector<const void*> argument_data;
    std::vector<int64_t> argument_sizes;
    std::vector<py::array> outputs;
    std::vector<void*> result_data;
    std::vector<int64_t> result_sizes;

    void Add(py::array input) {
      argument_data.push_back(input.data());
      argument_sizes.push_back(input.nbytes());
      inputs.push_back(std::move(input));
    }
  };

  std::vector<int64_t> NoDonors() const {
    return std::vector<int64_t>(CountArrayLeaves(program_shape_.result), -1);
  }

  // The result arrays of `call`: result leaf r written into argument
  // donor[r]'s array (donated in this call), else, when the entry returns
  // an aliased parameter there unchanged and `forwardable` says its array
  // may be, that argument's own array: no copy, no allocation (XLA's
  // ResNet-50 module returns its 320 state arrays so; JAX forwards such
  // results too; the run takes it as a donation that writes nothing). Not
  // for an argument donated in this call (its array then holds a new
  // value), nor for a read-only one. Else a new array the kernels write.
  void AddOutputs(Buffers& call, const std::vector<int64_t>& donor,
                  const std::vector<bool>& forwardable) const {
    std::vector<bool> donated_argument(call.inputs.size(), false);
    for (int64_t from : donor) {
      if (from >= 0) donated_argument[from] = true;
    }
    int64_t leaf_number = 0;
    ForEachArrayLeaf(program_shape_.result, [&](const Shape& leaf) {
      const int64_t passed = passed_through_[leaf_number];
      int64_t from = donor[leaf_number++];
      if (from < 0 && passed >= 0 && forwardable[passed] &&
          !donated_argument[passed] && call.inputs[passed].writeable() &&
          AliasedOnlyTo(passed, leaf_number - 1)) {
        from = passed;
      }
      if (from >= 0) {
        py::array& input = call.inputs[from];
        call.result_data.push_back(input.mutable_data());
        call.result_sizes.push_back(input.nbytes());
        call.outputs.push_back(input);
        return;
      }
      py::array output(result_dtypes_[leaf_number - 1],
                       std::vector<py::ssize_t>(leaf.dimensions().begin(),
                                                leaf.dimensions().end()));
      call.result_data.push_back(output.mutable_data());
      call.result_sizes.push_back(output.nbytes());
      call.outputs.push_back(std::move(output));
    });
  }

  // Argument `i` as an array the kernels can read: its own buffer when it
  // has the parameter's dtype and shape and is C-contiguous and aligned,
  // else a contiguous copy. A wrong dtype or shape is an mxla.Error.
  // `where` ("device 1") prefixes the message.
  py::array Argument(const py::handle& value, size_t i,
                     const std::string& where = "") const {
    const std::string prefix = where.empty() ? "" : absl::StrCat(where, ": ");
    const Shape& parameter = program_shape_.parameters[i];
    if (!parameter.IsArray()) {
      ThrowStatus(absl::UnimplementedError(absl::StrCat(
          prefix, "parameter ", i, " has tuple shape ", parameter.ToString(),
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
      ThrowStatus(absl::InvalidArgumentError(
          absl::StrCat(prefix, "argument ", i, ": expected ",
                       parameter.ToString(), ", got ", got)));
    }
    const int flags = py::array::c_style | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
    if ((array.flags() & flags) == flags) return array;
    return Numpy().attr("require")(array, py::arg("requirements") = "CA");
  }

  // `arguments` (a sequence, one per parameter) checked as a call checks
  // them, as arrays the kernels read; `where` names them in errors.
  Buffers Inputs(const py::handle& arguments, const std::string& where) const {
    const py::sequence values = ArgumentSequence(arguments, where);
    const size_t count = program_shape_.parameters.size();
    if (values.size() != count) {
      ThrowStatus(absl::InvalidArgumentError(
          absl::StrCat(where, ": expected ", count,
                       " arguments (one per parameter), got ", values.size())));
    }
    Buffers call;
    for (size_t i = 0; i < count; ++i) {
      call.Add(Argument(values[i], i, where));
    }
    return call;
  }

  static py::sequence ArgumentSequence(const py::handle& value,
                                       const std::string& where) {
    // Not any sequence: an array given where its list belongs would be
    // taken row by row.
    if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) {
      ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
          where, ": expected a list or tuple, got ",
          py::str(py::type::handle_of(value).attr("__name__"))
              .cast<std::string>())));
    }
    return py::reinterpret_borrow<py::sequence>(value);
  }

  std::string DeviceCountText() const {
    return absl::StrCat(replicas_, replicas_ == 1 ? " replica" : " replicas",
                        " x ", partitions_,
                        partitions_ == 1 ? " partition" : " partitions");
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
    auto it = only_alias_.find(argument);
    return it != only_alias_.end() && it->second == result;
  }

  // Per aliased argument leaf, the one result leaf it is aliased to, or -1
  // when there are several: looked up per result leaf on every call.
  static absl::flat_hash_map<int64_t, int64_t> OnlyAliases(
      const std::vector<AliasedLeaf>& aliases, size_t result_leaves) {
    absl::flat_hash_map<int64_t, int64_t> only;
    only.reserve(std::min(aliases.size(), result_leaves));
    for (const AliasedLeaf& alias : aliases) {
      auto [it, inserted] = only.try_emplace(alias.argument_leaf,
                                             alias.result_leaf);
      if (!inserted && it->second != alias.result_leaf) it->second = -1;
    }
    return only;
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
  int64_t replicas_;
  int64_t partitions_;
  std::vector<AliasedLeaf> aliases_;
  std::vector<int64_t> passed_through_;
  absl::flat_hash_map<int64_t, int64_t> only_alias_;
  // Per parameter and per result leaf, the NumPy dtype of its elements.
  std::vector<py::dtype> parameter_dtypes_;
  std::vector<py::dtype> result_dtypes_;
};

CompileOptions Options(const std::string& backend, const std::string& dump_dir,
                       const std::string& cache_dir,
                       std::optional<int64_t> replicas,
                       std::optional<int64_t> partitions) {
  CompileOptions options;
  options.backend = ValueOrThrow(ParseBackend(backend));
  options.pipeline.dump_dir = dump_dir;
  options.cache_dir = cache_dir;
  options.replicas = replicas;
  options.partitions = partitions;
  return options;
}

PyExecutable Compiled(const HloModule& module, const CompileOptions& options,
                      ProgramShape shape) {
  const std::pair<int64_t, int64_t> devices =
      ValueOrThrow(DeviceCounts(module, options));
  return PyExecutable(ValueOrThrow(Compile(module, options)), std::move(shape),
                      devices);
}

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
           "The module the backend runs (for the jit: fused, with plans).")
      .def_property_readonly("replicas", &PyExecutable::replicas,
                             "The replicas it was compiled for.")
      .def_property_readonly("partitions", &PyExecutable::partitions,
                             "The partitions it was compiled for.")
      .def("run_devices", &PyExecutable::RunDevices,
           py::arg("per_device") = py::none(), py::kw_only(),
           py::arg("shared") = py::none(),
           "Runs once on every device at once (replicas x partitions; "
           "device p*replicas + r is replica r of partition p): "
           "`per_device[d]` is device d's argument list, or `shared` every "
           "device's. Returns one result per device, in device order. "
           "Arguments are read where they are, as a call reads them, and "
           "results written in place; the GIL is released while the "
           "devices run.");
  m.def(
      "compile",
      [](const XlaComputation& computation, const std::string& backend,
         const std::string& dump_dir, const std::string& cache_dir,
         std::optional<int64_t> replicas, std::optional<int64_t> partitions) {
        const CompileOptions options =
            Options(backend, dump_dir, cache_dir, replicas, partitions);
        return Compiled(computation.module(), options,
                        computation.GetProgramShape());
      },
      py::arg("computation"), py::arg("backend") = "jit",
      py::arg("dump_dir") = "", py::arg("cache_dir") = "",
      py::arg("replicas") = py::none(), py::arg("partitions") = py::none(),
      "Compiles `computation` for `backend` ('jit', LLVM; or "
      "'interpreter', the reference evaluator); with `dump_dir`, writes "
      "every stage there as `mxla run --dump-dir` does; with `cache_dir` "
      "(or the MXLA_CACHE_DIR environment variable), loads the jit's "
      "program from that persistent cache or stores it there for the next "
      "process. With `replicas` and `partitions` (default: the module's, 1 "
      "and 1), for that many in-process devices: run it with run_devices.");
  m.def(
      "compile_hlo",
      [](const std::string& text, const std::string& backend,
         const std::string& dump_dir, const std::string& cache_dir,
         std::optional<int64_t> replicas, std::optional<int64_t> partitions) {
        std::unique_ptr<HloModule> module = ValueOrThrow(ParseHloModule(text));
        ProgramShape shape;
        const HloComputation& entry = *module->entry_computation();
        for (int64_t i = 0; i < entry.num_parameters(); ++i) {
          shape.parameters.push_back(entry.parameter_instruction(i)->shape());
        }
        shape.result = entry.root_instruction()->shape();
        const CompileOptions options =
            Options(backend, dump_dir, cache_dir, replicas, partitions);
        return Compiled(*module, options, std::move(shape));
      },
      py::arg("text"), py::arg("backend") = "jit", py::arg("dump_dir") = "",
      py::arg("cache_dir") = "", py::arg("replicas") = py::none(),
      py::arg("partitions") = py::none(),
      "Parses an HLO text module (as `mxla run` reads it, XLA's "
      "input_output_alias and replica_count included) and compiles it like "
      "`compile`.");
}

}  // namespace mxla::python
