// `mxla demo [--example NAME] [--list]`: walks the built-in examples through
// what the pipeline has so far: the builder call, the recorded HLO with its
// implicit broadcasts (verified), and the result the document promises.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_verifier.h"
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
  if (example.expected.has_value()) {
    std::cout << "  expected result (broadcasting.md):\n    "
              << example.expected->ToString() << "\n";
  }
  std::cout << "\n";
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
