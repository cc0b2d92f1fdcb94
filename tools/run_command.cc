// `mxla run FILE.hlo [--input I=PATH.npy ...] [--output PATH.npy]
//  [--backend=jit|interpreter] [--compare] [--passes=...]`: parse, verify,
// compile, run on .npy inputs, print the result (HLO literal syntax) or write
// it as .npy. --compare also runs the interpreter and fails when the two
// differ by more than the tolerance.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "hlo_text/hlo_parser.h"
#include "ir/host_feed.h"
#include "ir/status_macros.h"
#include "runtime/compile.h"
#include "runtime/jit_executable.h"
#include "runtime/npy.h"
#include "semantics/scalar_semantics.h"
#include "tools/commands.h"
#include "tools/compare_results.h"
#include "tools/file_util.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

struct RunOptions {
  std::string input;
  std::vector<std::string> bindings;  // "I=PATH"
  std::vector<std::string> infeeds;   // PATH.npy, in order
  std::string output;
  std::string backend = "jit";
  bool compare = false;
  double tolerance = 1e-5;
  std::optional<std::string> passes;
  std::string dump_dir;
  std::string cache_dir;
  std::optional<int> repeat;  // runs to time (prints compile and run times)
  bool print_full = false;    // every element, not NumPy's summary
};

// One `I=PATH` or `I.J.K=PATH` binding: a parameter and, for a tuple
// parameter, the tuple index path of one array element.
struct Binding {
  const HloInstruction* parameter;
  std::vector<int64_t> index;
  std::string path;
};

std::string LeafKey(const HloInstruction& parameter,
                    absl::Span<const int64_t> index) {
  std::string key = absl::StrCat(parameter.parameter_number());
  for (int64_t i : index) absl::StrAppend(&key, ".", i);
  return key;
}

// The parameter an `I` names (a number or a parameter name), or null.
const HloInstruction* FindParameter(const HloComputation& entry,
                                    absl::string_view key) {
  int64_t number;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    bool by_number = absl::SimpleAtoi(key, &number) &&
                     number == parameter->parameter_number();
    if (by_number || parameter->name() == key) return parameter;
  }
  return nullptr;
}

// Parses the `I` or `I.J.K` of a binding. Names may contain dots, so the
// longest prefix naming a parameter wins and the rest must be indices.
absl::StatusOr<Binding> ParseBinding(const HloComputation& entry,
                                     absl::string_view key,
                                     std::string path) {
  std::vector<int64_t> reversed_index;
  absl::string_view prefix = key;
  while (true) {
    if (const HloInstruction* parameter = FindParameter(entry, prefix)) {
      return Binding{parameter, {reversed_index.rbegin(),
                                 reversed_index.rend()}, std::move(path)};
    }
    size_t dot = prefix.rfind('.');
    int64_t index;
    if (dot == absl::string_view::npos ||
        !absl::SimpleAtoi(prefix.substr(dot + 1), &index) || index < 0) {
      break;
    }
    reversed_index.push_back(index);
    prefix = prefix.substr(0, dot);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--input ", key, "=...: the entry computation has no parameter named "
      "or numbered '", key, "' (a tuple parameter's elements are I.J, e.g. "
      "0.1)"));
}

// An s8 or u8 input for a sub-byte parameter: the values, which must fit.
absl::StatusOr<Literal> NarrowedToSubByte(const Literal& bytes,
                                          PrimitiveType type,
                                          const std::string& key) {
  const int bits = primitive_util::BitWidth(type);
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1
                               : (int64_t{1} << bits) - 1;
  for (int64_t i = 0; i < bytes.element_count(); ++i) {
    const double value = bytes.GetAsDouble(i);
    if (value < lo || value > hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input ", key, "=...: element ", i, " is ", value,
          ", out of range for ", primitive_util::LowercaseName(type), " [", lo,
          ", ", hi, "]"));
    }
  }
  return semantics::ApplyConvert(bytes, type);
}

// A value read from .npy as the array of `shape` it stands for: bf16
// travels as its raw bits in a <u2 file, the 8-bit floats in a |u1 file,
// s2..u4 as |i1 or |u1 values (runtime/npy.h); anything else is itself.
absl::StatusOr<Literal> AsArrayOf(Literal literal, const Shape& shape,
                                  const std::string& what) {
  const bool bits_file =
      (shape.element_type() == BF16 &&
       literal.shape() == ShapeUtil::ChangeElementType(shape, U16)) ||
      (primitive_util::SmallFloatFormatOf(shape.element_type()) != nullptr &&
       literal.shape() == ShapeUtil::ChangeElementType(shape, U8));
  if (bits_file) {
    Literal bits(shape);
    std::memcpy(bits.untyped_data(), literal.untyped_data(),
                literal.size_bytes());
    return bits;
  }
  const PrimitiveType type = shape.element_type();
  const PrimitiveType byte_type =
      primitive_util::IsSignedIntegralType(type) ? S8 : U8;
  if (primitive_util::IsSubByteIntType(type) &&
      literal.shape() == ShapeUtil::ChangeElementType(shape, byte_type)) {
    return NarrowedToSubByte(literal, type, what);
  }
  return literal;
}

// The --infeed files, one per infeed in the order they run; the outfeed
// values kept to print.
class FileHostFeed : public HostFeed {
 public:
  explicit FileHostFeed(const std::vector<std::string>& paths)
      : paths_(paths) {}

  absl::StatusOr<Literal> Infeed(const Shape& shape) override {
    if (next_ == paths_.size()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "infeed of ", shape.ToString(), ": no --infeed file left (",
          paths_.size(), " given)"));
    }
    const std::string& path = paths_[next_++];
    if (!shape.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--infeed ", path, ": the infeed reads the tuple ", shape.ToString(),
          ", and an --infeed file holds one array"));
    }
    ASSIGN_OR_RETURN(Literal literal, ReadNpyFile(path));
    return AsArrayOf(std::move(literal), shape, "--infeed " + path);
  }
  absl::Status Outfeed(Literal value) override {
    written_.push_back(std::move(value));
    return absl::OkStatus();
  }
  const std::vector<Literal>& written() const { return written_; }

 private:
  std::vector<std::string> paths_;
  size_t next_ = 0;
  std::vector<Literal> written_;
};

// The literal of `shape` (the part of `parameter` at `index`) from the
// bindings, which are consumed.
absl::StatusOr<Literal> AssembleInput(const HloInstruction& parameter,
                                      const Shape& shape,
                                      std::vector<int64_t>& index,
                                      std::map<std::string, Literal>& leaves) {
  if (!shape.IsTuple()) {
    auto it = leaves.find(LeafKey(parameter, index));
    if (it == leaves.end()) {
      std::string what = absl::StrCat("parameter ",
                                      parameter.parameter_number(), " ('",
                                      parameter.name(), "', ");
      if (!index.empty()) {
        absl::StrAppend(&what, "tuple element {", absl::StrJoin(index, ","),
                        "} ");
      }
      return absl::InvalidArgumentError(
          absl::StrCat("missing input for ", what, shape.ToString(),
                       "): pass --input ", LeafKey(parameter, index),
                       "=PATH.npy"));
    }
    Literal literal = std::move(it->second);
    leaves.erase(it);
    return AsArrayOf(std::move(literal), shape, LeafKey(parameter, index));
  }
  std::vector<Literal> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size());
       ++i) {
    index.push_back(i);
    absl::StatusOr<Literal> element =
        AssembleInput(parameter, shape.tuple_shapes(i), index, leaves);
    index.pop_back();
    if (!element.ok()) return element.status();
    elements.push_back(*std::move(element));
  }
  return LiteralUtil::MakeTuple(std::move(elements));
}

// One literal per parameter, in parameter order, from the --input flags:
// one per array parameter, one per array element of a tuple parameter.
absl::StatusOr<std::vector<Literal>> LoadInputs(
    const HloComputation& entry, const std::vector<std::string>& bindings) {
  std::map<std::string, Literal> leaves;  // by LeafKey
  for (const std::string& text : bindings) {
    std::vector<std::string> parts = absl::StrSplit(text, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input expects I=PATH.npy (I a parameter number or name, I.J "
          "for element J of a tuple parameter), got '", text, "'"));
    }
    ASSIGN_OR_RETURN(Binding binding, ParseBinding(entry, parts[0], parts[1]));
    const HloInstruction& parameter = *binding.parameter;
    std::string key = LeafKey(parameter, binding.index);
    std::string what = absl::StrCat("parameter ", key, " ('",
                                    parameter.name(), "'");
    if (leaves.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ") is given twice"));
    }
    const Shape* shape = &parameter.shape();
    for (int64_t i : binding.index) {
      if (!shape->IsTuple() ||
          i >= static_cast<int64_t>(shape->tuple_shapes().size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input ", parts[0], "=...: parameter ",
            parameter.parameter_number(), " ('", parameter.name(),
            "') of shape ", parameter.shape().ToString(),
            " has no tuple element {", absl::StrJoin(binding.index, ","),
            "}"));
      }
      shape = &shape->tuple_shapes(i);
    }
    if (shape->IsTuple()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input ", parts[0], "=...: ", what, ") is the tuple ",
          shape->ToString(), ": pass one .npy per array element, as --input ",
          key, ".0=PATH.npy ..."));
    }
    ASSIGN_OR_RETURN(Literal literal, ReadNpyFile(binding.path));
    leaves.emplace(key, std::move(literal));
  }
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction& parameter = *entry.parameter_instruction(i);
    std::vector<int64_t> index;
    ASSIGN_OR_RETURN(Literal input, AssembleInput(parameter, parameter.shape(),
                                                  index, leaves));
    inputs.push_back(std::move(input));
  }
  return inputs;
}

// Compiles `module` and runs it `repeat` times (at least once), returning
// the last result; with `timing`, prints the compile time and the run
// times' median and minimum to stderr.
absl::StatusOr<Literal> CompileAndRun(
    const HloModule& module, const CompileOptions& options,
    absl::Span<const Literal* const> arguments, HostFeed& feed,
    int repeat = 1, bool timing = false) {
  const auto compile_start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(module, options));
  const double compile_ms = MillisecondsSince(compile_start);
  std::vector<double> run_ms;
  Literal result;
  for (int i = 0; i < std::max(repeat, 1); ++i) {
    const auto run_start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(result, executable->Run(arguments, {.host_feed = &feed}));
    run_ms.push_back(MillisecondsSince(run_start));
  }
  if (timing) {
    std::sort(run_ms.begin(), run_ms.end());
    // A program the persistent compile cache loaded has that one stage.
    const auto* jit = dynamic_cast<const JitExecutable*>(executable.get());
    const bool loaded =
        jit != nullptr &&
        jit->program()->report.Milliseconds("load-cached") > 0;
    std::cerr << absl::StrFormat(
        "%s: compile %.3f ms%s, run median %.3f ms (min %.3f ms) over %d "
        "run%s\n",
        BackendName(options.backend), compile_ms,
        loaded ? " (loaded from the compile cache)" : "",
        run_ms[run_ms.size() / 2], run_ms.front(), run_ms.size(),
        run_ms.size() == 1 ? "" : "s");
  }
  return result;
}

absl::Status Run(const RunOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ReadHloModule(options.input);
  if (!module.ok()) return module.status();
  CompileOptions compile_options;
  ASSIGN_OR_RETURN(compile_options.backend, ParseBackend(options.backend));
  if (options.passes.has_value()) {
    compile_options.passes =
        absl::StrSplit(*options.passes, ',', absl::SkipEmpty());
  }
  compile_options.pipeline.dump_dir = options.dump_dir;
  compile_options.cache_dir = options.cache_dir;
  ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                   LoadInputs(*(*module)->entry_computation(), options.bindings));
  std::vector<const Literal*> arguments;
  for (const Literal& input : inputs) arguments.push_back(&input);
  if (options.repeat.has_value() && *options.repeat > 1 &&
      !options.infeeds.empty()) {
    return absl::InvalidArgumentError(
        "--repeat: a module given --infeed values runs once (each run would "
        "read the next values)");
  }
  FileHostFeed feed(options.infeeds);
  ASSIGN_OR_RETURN(Literal result,
                   CompileAndRun(**module, compile_options, arguments, feed,
                                 options.repeat.value_or(1),
                                 options.repeat.has_value()));
  for (size_t i = 0; i < feed.written().size(); ++i) {
    std::cout << "outfeed " << i << ": " << feed.written()[i].ToString()
              << "\n";
  }
  if (options.compare) {
    compile_options.backend = compile_options.backend == Backend::kJit
                                  ? Backend::kInterpreter
                                  : Backend::kJit;
    compile_options.pipeline.dump_dir.clear();
    FileHostFeed other_feed(options.infeeds);
    ASSIGN_OR_RETURN(Literal other, CompileAndRun(**module, compile_options,
                                                  arguments, other_feed));
    std::cerr << "compare: largest difference between jit and interpreter: "
              << LargestDifference(result, other) << "\n";
    RETURN_IF_ERROR(CompareResults(result, other, options.tolerance));
  }
  if (options.output.empty()) {
    std::cout << (options.print_full ? result.ToFullString()
                                     : result.ToString())
              << "\n";
    return absl::OkStatus();
  }
  return WriteNpyFile(options.output, result);
}

}  // namespace

CommandRunner RegisterRunCommand(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "Compile an HLO text file and run it on .npy inputs");
  run->add_option("file", options->input, "HLO text file ('-' for stdin)")
      ->required();
  run->add_option("--input,-i", options->bindings,
                  "I=PATH.npy: the value of parameter I (a number or a "
                  "parameter name); one per parameter, and for a tuple "
                  "parameter one per array element, as I.J (I.J.K for "
                  "nested tuples)");
  run->add_option("--infeed", options->infeeds,
                  "PATH.npy: the value of the next infeed (repeat, in the "
                  "order the infeeds run); outfeed values are printed as "
                  "'outfeed N: ...'");
  run->add_option("--output,-o", options->output,
                  "Write the result to this .npy file instead of printing it");
  run->add_option("--backend", options->backend,
                  "Backend: jit (LLVM, the default) or interpreter (the "
                  "reference evaluator)")
      ->capture_default_str();
  run->add_flag("--compare", options->compare,
                "Also run the other backend; print the largest difference "
                "and fail when it exceeds --tolerance");
  run->add_option("--tolerance", options->tolerance,
                  "Absolute and relative tolerance of --compare")
      ->capture_default_str();
  run->add_option("--passes", options->passes,
                  "Comma-separated passes instead of the default pipeline");
  run->add_flag("--print-full", options->print_full,
                "Print every element of the result (by default an array of "
                "more than 1000 elements is summarized as NumPy does)");
  run->add_option("--repeat", options->repeat,
                  "Run N times (1 to 100000) and print the compile time and "
                  "the median and minimum run time to stderr")
      ->check(CLI::Range(1, 100000));
  run->add_option("--dump-dir", options->dump_dir,
                  "Write the module after every pass that changes it, "
                  "passes.txt (per-pass timings), and for the jit fused.hlo, "
                  "llvm.ll, llvm-opt.ll and kernels.s into this directory "
                  "(library users: MXLA_DUMP_DIR)");
  run->add_option("--cache-dir", options->cache_dir,
                  "Persistent compile cache: load the compiled program from "
                  "this directory, or store it there for the next run "
                  "(library users: CompileOptions::cache_dir, "
                  "MXLA_CACHE_DIR)");
  return [options] {
    absl::Status status = Run(*options);
    return status.ok() ? 0 : ReportError(std::string(status.message()));
  };
}

}  // namespace mxla::tools
