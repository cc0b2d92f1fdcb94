// `mxla run FILE.hlo [--input I=PATH.npy ...] [--output PATH.npy]
//  [--backend=jit|interpreter] [--compare] [--passes=...]`: parse, verify,
// compile, run on .npy inputs, print the result (HLO literal syntax) or write
// it as .npy. --compare also runs the interpreter and fails when the two
// differ by more than the tolerance.
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/hlo_parser.h"
#include "ir/status_macros.h"
#include "runtime/compile.h"
#include "runtime/npy.h"
#include "tools/commands.h"
#include "tools/file_util.h"

namespace mxla::tools {
namespace {

struct RunOptions {
  std::string input;
  std::vector<std::string> bindings;  // "I=PATH"
  std::string output;
  std::string backend = "jit";
  bool compare = false;
  double tolerance = 1e-5;
  std::optional<std::string> passes;
  std::string dump_dir;
};

// The parameter an `I` of `I=PATH` names: a number or a parameter name.
absl::StatusOr<const HloInstruction*> FindParameter(
    const HloComputation& entry, absl::string_view key) {
  int64_t number;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    bool by_number = absl::SimpleAtoi(key, &number) &&
                     number == parameter->parameter_number();
    if (by_number || parameter->name() == key) return parameter;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--input ", key, "=...: the entry computation has no parameter named "
      "or numbered '", key, "'"));
}

// One literal per parameter, in parameter order, from the --input flags.
absl::StatusOr<std::vector<Literal>> LoadInputs(
    const HloComputation& entry, const std::vector<std::string>& bindings) {
  std::map<int64_t, Literal> by_number;
  for (const std::string& binding : bindings) {
    std::vector<std::string> parts = absl::StrSplit(binding, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input expects I=PATH.npy (I a parameter number or name), got '",
          binding, "'"));
    }
    ASSIGN_OR_RETURN(const HloInstruction* parameter,
                     FindParameter(entry, parts[0]));
    if (by_number.contains(parameter->parameter_number())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter ", parameter->parameter_number(), " ('",
          parameter->name(), "') is given twice"));
    }
    ASSIGN_OR_RETURN(Literal literal, ReadNpyFile(parts[1]));
    by_number.emplace(parameter->parameter_number(), std::move(literal));
  }
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    auto it = by_number.find(i);
    if (it == by_number.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "missing input for parameter ", i, " ('",
          entry.parameter_instruction(i)->name(), "', ",
          entry.parameter_instruction(i)->shape().ToString(),
          "): pass --input ", i, "=PATH.npy"));
    }
    inputs.push_back(std::move(it->second));
  }
  return inputs;
}

absl::StatusOr<Literal> CompileAndRun(
    const HloModule& module, const CompileOptions& options,
    absl::Span<const Literal* const> arguments) {
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(module, options));
  return executable->Run(arguments);
}

// --compare: prints the largest difference to stderr; beyond the tolerance
// (absolute and relative) it is an error naming the first bad element.
absl::Status CompareResults(const Literal& first, const Literal& second,
                            double tolerance) {
  std::vector<std::pair<const Literal*, const Literal*>> pairs;
  if (first.shape().IsTuple()) {
    for (int64_t i = 0; i < first.tuple_size(); ++i) {
      pairs.push_back({&first.tuple_element(i), &second.tuple_element(i)});
    }
  } else {
    pairs.push_back({&first, &second});
  }
  double largest = 0;
  for (const auto& [a, b] : pairs) {
    for (int64_t i = 0; i < a->element_count(); ++i) {
      double x = a->GetAsDouble(i), y = b->GetAsDouble(i);
      if (std::isnan(x) && std::isnan(y)) continue;
      double difference = std::fabs(x - y);
      if (std::isnan(difference)) difference = INFINITY;
      largest = std::max(largest, difference);
    }
  }
  std::cerr << "compare: largest difference between jit and interpreter: "
            << largest << "\n";
  for (const auto& [a, b] : pairs) {
    absl::Status near = LiteralUtil::Near(*b, *a, tolerance, tolerance);
    if (!near.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--compare: jit and interpreter differ beyond tolerance ", tolerance,
          ": ", near.message()));
    }
  }
  return absl::OkStatus();
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
  ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                   LoadInputs(*(*module)->entry_computation(), options.bindings));
  std::vector<const Literal*> arguments;
  for (const Literal& input : inputs) arguments.push_back(&input);
  ASSIGN_OR_RETURN(Literal result,
                   CompileAndRun(**module, compile_options, arguments));
  if (options.compare) {
    compile_options.backend = compile_options.backend == Backend::kJit
                                  ? Backend::kInterpreter
                                  : Backend::kJit;
    compile_options.pipeline.dump_dir.clear();
    ASSIGN_OR_RETURN(Literal other,
                     CompileAndRun(**module, compile_options, arguments));
    RETURN_IF_ERROR(CompareResults(result, other, options.tolerance));
  }
  if (options.output.empty()) {
    std::cout << result.ToString() << "\n";
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
                  "parameter name); one per parameter");
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
  run->add_option("--dump-dir", options->dump_dir,
                  "Write the module after every pass that changes it, "
                  "passes.txt (per-pass timings), and for the jit fused.hlo, "
                  "llvm.ll, llvm-opt.ll and kernels.s into this directory "
                  "(library users: MXLA_DUMP_DIR)");
  return [options] {
    absl::Status status = Run(*options);
    return status.ok() ? 0 : ReportError(std::string(status.message()));
  };
}

}  // namespace mxla::tools
