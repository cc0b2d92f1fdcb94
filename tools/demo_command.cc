// `mxla demo [--example NAME] [--list] [--dump-dir DIR]`: walks the built-in
// examples through the whole pipeline: the builder call, the recorded HLO
// with its implicit broadcasts, the lowered and the fused HLO, an excerpt of
// the kernel's vector code, the JIT's result (checked against the
// interpreter, the documented value and the document's figures) and the
// compile and run times.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codegen/compiler.h"

#include "driver/compile.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "tools/commands.h"
#include "tools/demo_examples.h"
#include "tools/doc_figure.h"
#include "tools/ir_excerpt.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

struct DemoOptions {
  std::string example;
  bool list = false;
  std::string dump_dir;
};

std::string Indent(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out.substr(0, out.find_last_not_of(' ') + 1);
}

// The whole value when it is small; otherwise its shape and the first
// elements of its first rows (of its last dimension), which is all a reader
// can take in.
std::string Preview(const Literal& value) {
  const Shape& shape = value.shape();
  if (ShapeUtil::ElementsIn(shape) <= 32 || shape.element_type() != F32 ||
      shape.rank() < 1) {
    return value.ToString();
  }
  absl::Span<const float> data = value.data<float>();
  const int64_t columns = shape.dimensions(shape.rank() - 1);
  const int64_t rows = static_cast<int64_t>(data.size()) / columns;
  std::vector<std::string> shown;
  for (int64_t r = 0; r < std::min<int64_t>(shape.rank() == 1 ? 1 : 2, rows);
       ++r) {
    std::vector<std::string> cells;
    for (int64_t c = 0; c < std::min<int64_t>(4, columns); ++c) {
      cells.push_back(absl::StrCat(data[r * columns + c]));
    }
    shown.push_back(absl::StrCat("{", absl::StrJoin(cells, ", "), ", ...}"));
  }
  if (shape.rank() == 1) {
    return absl::StrCat(shape.ToString(), " ", shown[0]);
  }
  return absl::StrCat(shape.ToString(), " { ", absl::StrJoin(shown, ", "),
                      ", ... }", shape.rank() > 2 ? " (rows of the last "
                                                    "dimension)"
                                                  : "");
}

// The jit's result against the interpreter's: bit for bit, or within the
// example's tolerance. Returns what to tell the reader.
absl::StatusOr<std::string> CheckAgainstOracle(const DemoExample& example,
                                               const Literal& result,
                                               const Literal& oracle) {
  if (result == oracle) return std::string("interpreter agrees bit for bit");
  if (example.tolerance == 0) {
    return absl::InternalError(absl::StrCat(
        "the jit disagrees with the interpreter: ", oracle.ToString()));
  }
  absl::Status near =
      LiteralUtil::Near(oracle, result, example.tolerance, example.tolerance);
  if (!near.ok()) {
    return absl::InternalError(absl::StrCat(
        "the jit disagrees with the interpreter: ", near.message()));
  }
  return absl::StrFormat(
      "interpreter agrees within %g (the jit may reassociate float sums)",
      example.tolerance);
}

// Draws each of the document's figures from the example's values and fails
// when one differs from the document by a single character.
absl::Status ShowFigures(const DemoExample& example, const Literal& result) {
  for (const DocFigure& figure : example.figures) {
    ASSIGN_OR_RETURN(std::string drawn, figure.draw(example.inputs, result));
    std::string expected = Dedent(figure.doc_text);
    if (drawn != expected) {
      return absl::InternalError(
          absl::StrCat("a figure differs from broadcasting.md's:\n", expected,
                       "\nwas drawn as:\n", drawn));
    }
    std::cout << "  as broadcasting.md draws it (and so does mxla):\n"
              << Indent(drawn) << "\n\n";
  }
  return absl::OkStatus();
}

// The builder call and its inputs, then the HLO the builder records and
// the HLO the interpreter's passes leave. Returns the recorded computation.
absl::StatusOr<XlaComputation> ShowBuilderAndHlo(const DemoExample& example) {
  std::cout << "=== " << example.name << ": " << example.title << "\n\n";
  std::cout << "  builder:\n    " << example.code << "\n\n";
  ASSIGN_OR_RETURN(XlaComputation computation, example.build());
  std::vector<std::string> inputs;
  for (const Literal& input : example.inputs) inputs.push_back(Preview(input));
  std::cout << "  inputs:\n    " << absl::StrJoin(inputs, "\n    ") << "\n\n";
  RETURN_IF_ERROR(VerifyModule(computation.module(), VerifierMode::kBuilder));
  std::cout << "  HLO as recorded by the builder (implicit broadcasts):\n"
            << Indent(computation.ToString()) << "\n";
  CompileOptions interpreter_options;
  interpreter_options.backend = Backend::kInterpreter;
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> lowered,
                   OptimizeForBackend(computation.module(), interpreter_options));
  std::cout << "  after lower-broadcasts, simplify, cse, dce:\n"
            << Indent(lowered->ToString()) << "\n";
  return computation;
}

// The fused module and the kernel's busiest vector block.
absl::Status ShowKernel(const Executable& executable) {
  std::cout << "  fused (one LLVM kernel per fusion):\n"
            << Indent(executable.module().ToString()) << "\n";
  ASSIGN_OR_RETURN(std::string optimized_ir,
                   EmitIr(executable.module(), CodegenOptions{},
                          IrStage::kLlvmOptimized));
  std::string excerpt = VectorLoopExcerpt(optimized_ir, /*max_lines=*/12);
  if (excerpt.empty()) {
    std::cout << "  no vector instructions: the output is smaller than one "
                 "vector\n\n";
  } else {
    std::cout << "  the kernel's busiest vector block (optimized LLVM IR):\n"
              << Indent(excerpt) << "\n";
  }
  return absl::OkStatus();
}

struct TimedRun {
  Literal result;
  double median_us = 0;
};
constexpr int kTimedRuns = 15;

// The median of a few runs after a warm-up: one run on a busy machine can
// be off by 10x.
absl::StatusOr<TimedRun> RunTimed(
    Executable& executable, const std::vector<const Literal*>& arguments) {
  TimedRun run;
  ASSIGN_OR_RETURN(run.result, executable.Run(arguments));
  std::vector<double> run_us;
  for (int i = 0; i < kTimedRuns; ++i) {
    auto start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(run.result, executable.Run(arguments));
    run_us.push_back(1000 * MillisecondsSince(start));
  }
  std::nth_element(run_us.begin(), run_us.begin() + run_us.size() / 2,
                   run_us.end());
  run.median_us = run_us[run_us.size() / 2];
  return run;
}

// Holds the result to the interpreter's and to the documented one.
absl::Status ShowAgreement(const DemoExample& example, const Literal& result,
                           const Literal& oracle) {
  ASSIGN_OR_RETURN(std::string agreement,
                   CheckAgainstOracle(example, result, oracle));
  std::cout << "  " << agreement;
  if (example.expected.has_value()) {
    if (result != *example.expected) {
      return absl::InternalError(absl::StrCat(
          "the result differs from the documented ",
          example.expected->ToString()));
    }
    std::cout << "; matches the documented result";
  }
  std::cout << "\n\n";
  return absl::OkStatus();
}

// A second compile that dumps: the timed one stays free of I/O.
absl::Status DumpStages(const DemoExample& example,
                        const XlaComputation& computation,
                        const Literal& result, const std::string& dump_dir) {
  CompileOptions dumping;
  dumping.pipeline.dump_dir = absl::StrCat(dump_dir, "/", example.name);
  RETURN_IF_ERROR(Compile(computation.module(), dumping).status());
  std::ofstream file(absl::StrCat(dumping.pipeline.dump_dir, "/result.txt"));
  file << result.ToString() << "\n";
  if (!file) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot write '", dumping.pipeline.dump_dir, "/result.txt'"));
  }
  std::cout << "  every stage written to " << dumping.pipeline.dump_dir
            << "/\n\n";
  return absl::OkStatus();
}

absl::Status ShowExample(const DemoExample& example,
                         const DemoOptions& options) {
  ASSIGN_OR_RETURN(XlaComputation computation, ShowBuilderAndHlo(example));
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(computation.module()));
  double compile_ms = MillisecondsSince(start);
  RETURN_IF_ERROR(ShowKernel(*executable));

  std::vector<const Literal*> arguments;
  for (const Literal& input : example.inputs) arguments.push_back(&input);
  ASSIGN_OR_RETURN(TimedRun run, RunTimed(*executable, arguments));
  ASSIGN_OR_RETURN(Literal oracle,
                   EvaluateModule(computation.module(), arguments));
  std::cout << "  result (jit, compiled in "
            << absl::StrFormat("%.1f", compile_ms) << " ms, ran in "
            << absl::StrFormat("%.1f", run.median_us) << " us, median of "
            << kTimedRuns << "):\n    " << Preview(run.result) << "\n";
  RETURN_IF_ERROR(ShowAgreement(example, run.result, oracle));
  RETURN_IF_ERROR(ShowFigures(example, run.result));
  if (!options.dump_dir.empty()) {
    RETURN_IF_ERROR(
        DumpStages(example, computation, run.result, options.dump_dir));
  }
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
    absl::Status status = ShowExample(example, options);
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
      "demo",
      "Walk broadcasting.md's examples and a few kernels (bias + relu, "
      "softmax, layer norm) through the whole pipeline");
  demo->add_option("--example", options->example, "Show only this example");
  demo->add_flag("--list", options->list, "List the examples and exit");
  demo->add_option("--dump-dir", options->dump_dir,
                    "Also write every stage of each example into DIR/NAME/: "
                    "the module after each pass that changes it, passes.txt "
                    "(per-pass timings), fused.hlo, llvm.ll, llvm-opt.ll, "
                    "kernels.s and result.txt");
  return [options] { return RunDemo(*options); };
}

}  // namespace mxla::tools
