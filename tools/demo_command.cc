// `mxla demo [--example NAME] [--list]`: walks the built-in examples through
// the whole pipeline: the builder call, the recorded HLO with its implicit
// broadcasts, the lowered and the fused HLO, the JIT's result (checked
// against the interpreter and against the value the document promises) and
// the compile and run times.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include <chrono>

#include "ir/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "runtime/compile.h"
#include "tools/commands.h"
#include "tools/demo_examples.h"

namespace mxla::tools {
namespace {

struct DemoOptions {
  std::string example;
  bool list = false;
};

std::string Indent(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out.substr(0, out.find_last_not_of(' ') + 1);
}

absl::Status ShowExample(const DemoExample& example) {
  std::cout << "=== " << example.name << ": " << example.title << "\n\n";
  std::cout << "  builder:\n    " << example.code << "\n\n";
  absl::StatusOr<XlaComputation> computation = example.build();
  if (!computation.ok()) return computation.status();
  std::vector<std::string> inputs;
  for (const Literal& input : example.inputs) inputs.push_back(input.ToString());
  std::cout << "  inputs:\n    " << absl::StrJoin(inputs, "\n    ") << "\n\n";
  absl::Status verified =
      VerifyModule(computation->module(), VerifierMode::kBuilder);
  if (!verified.ok()) return verified;
  std::cout << "  HLO as recorded by the builder (implicit broadcasts):\n"
            << Indent(computation->ToString()) << "\n";
  CompileOptions interpreter_options;
  interpreter_options.backend = Backend::kInterpreter;
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> lowered,
                   OptimizeForBackend(computation->module(), interpreter_options));
  std::cout << "  after lower-broadcasts, simplify, cse, dce:\n"
            << Indent(lowered->ToString()) << "\n";

  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(computation->module()));
  double compile_ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  std::cout << "  fused (one LLVM kernel per fusion):\n"
            << Indent(executable->module().ToString()) << "\n";

  std::vector<const Literal*> arguments;
  for (const Literal& input : example.inputs) arguments.push_back(&input);
  start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(Literal result, executable->Run(arguments));
  double run_us = std::chrono::duration<double, std::micro>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  ASSIGN_OR_RETURN(Literal oracle,
                   EvaluateModule(computation->module(), arguments));
  std::cout << "  result (jit, compiled in " << absl::StrFormat("%.1f", compile_ms)
            << " ms, ran in " << absl::StrFormat("%.1f", run_us) << " us):\n    "
            << result.ToString() << "\n";
  if (result != oracle) {
    return absl::InternalError(absl::StrCat(
        "the jit disagrees with the interpreter: ", oracle.ToString()));
  }
  std::cout << "  interpreter agrees bit for bit";
  if (example.expected.has_value()) {
    if (result != *example.expected) {
      return absl::InternalError(absl::StrCat(
          "the result differs from broadcasting.md's ",
          example.expected->ToString()));
    }
    std::cout << "; matches broadcasting.md";
  }
  std::cout << "\n\n";
  return absl::OkStatus();
}

int RunDemo(const DemoOptions& options) {
  const std::vector<DemoExample>& examples = DemoExamples();
  if (options.list) {
    for (const DemoExample& example : examples) {
      std::cout << example.name << "\t" << example.title << "\n";
    }
    return 0;
  }
  bool found = false;
  for (const DemoExample& example : examples) {
    if (!options.example.empty() && example.name != options.example) continue;
    found = true;
    absl::Status status = ShowExample(example);
    if (!status.ok()) {
      return ReportError(absl::StrCat(example.name, ": ", status.message()));
    }
  }
  if (!found) {
    return ReportError(absl::StrCat("no example named '", options.example,
                                    "' (see 'mxla demo --list')"));
  }
  return 0;
}

}  // namespace

CommandRunner RegisterDemoCommand(CLI::App& app) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* demo = app.add_subcommand(
      "demo", "Walk the built-in broadcasting examples through the pipeline");
  demo->add_option("--example", options->example, "Show only this example");
  demo->add_flag("--list", options->list, "List the examples and exit");
  return [options] { return RunDemo(*options); };
}

}  // namespace mxla::tools
