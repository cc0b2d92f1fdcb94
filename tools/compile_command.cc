// `mxla compile FILE.hlo -o PATH [--function NAME] [--target-cpu CPU]
//  [--target-features LIST]`: ahead-of-time compilation
// (driver/aot_compile.h). Writes PATH.o, the module's kernels and a driver
// needing only libc and libm, and PATH.h, its C declarations; the function
// is named after PATH's file name unless --function names it.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "driver/aot_compile.h"
#include "ir/status_macros.h"
#include "tools/commands.h"
#include "tools/file_util.h"

namespace mxla::tools {
namespace {

struct CompileCommandOptions {
  std::string input;
  std::string output;
  std::string function;
  std::string target_cpu;
  std::string target_features;
};

absl::Status WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), bytes.size());
  out.close();
  if (!out) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-o: cannot write '", path, "' (", std::strerror(errno),
        "); -o names PATH.o and PATH.h in a directory that exists"));
  }
  return absl::OkStatus();
}

// The function name's check, with the flag that names it and a name that
// would do: --function, or -o's file name when --function is not given.
absl::Status CheckFunctionName(const CompileCommandOptions& options,
                               const std::string& function) {
  const absl::Status status = CheckAotFunctionName(function);
  if (status.ok()) return status;
  const std::string identifier = AotIdentifierFrom(function);
  const std::string example =
      identifier == function ? function + "_fn" : identifier;
  if (options.function.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-o ", options.output, ": the C function is named after the file "
        "name, and ", status.message(), "; name it with --function (e.g. "
        "--function ", example, ")"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--function: ", status.message(), "; choose another name (e.g. "
      "--function ", example, ")"));
}

absl::Status RunCompile(const CompileCommandOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   ReadHloModule(options.input));
  AotOptions aot;
  aot.function = options.function.empty()
                     ? std::filesystem::path(options.output).filename().string()
                     : options.function;
  aot.target.cpu = options.target_cpu;
  aot.target.features = options.target_features;
  aot.source = std::filesystem::path(options.input).filename().string();
  RETURN_IF_ERROR(CheckFunctionName(options, aot.function));
  ASSIGN_OR_RETURN(AotArtifacts artifacts, CompileAheadOfTime(*module, aot));
  const std::string object = options.output + ".o";
  const std::string header = options.output + ".h";
  RETURN_IF_ERROR(WriteBytes(object, artifacts.object));
  RETURN_IF_ERROR(WriteBytes(header, artifacts.header));
  std::cout << "wrote " << object << " (" << artifacts.object.size()
            << " bytes) and " << header << ": void " << aot.function
            << "(const void* const* args, void* const* results, void* "
               "temp)\n";
  return absl::OkStatus();
}

}  // namespace

CommandRunner RegisterCompileCommand(CLI::App& app) {
  auto options = std::make_shared<CompileCommandOptions>();
  CLI::App* compile = app.add_subcommand(
      "compile",
      "Compile an HLO module ahead of time into an object file and a C "
      "header that need neither mxla nor LLVM to link");
  compile->add_option("file", options->input, "HLO text file ('-' for stdin)")
      ->required();
  compile->add_option("--output,-o", options->output,
                      "Write PATH.o and PATH.h; the function is named after "
                      "PATH's file name")
      ->required();
  compile->add_option("--function", options->function,
                      "The C function's name (default: PATH's file name)");
  compile->add_option("--target-cpu", options->target_cpu,
                      "The CPU to compile for, as LLVM names it (x86-64, "
                      "x86-64-v3, skylake-avx512, ...; default: this host's)");
  compile->add_option("--target-features", options->target_features,
                      "Feature changes on top of the CPU's: +name/-name, "
                      "comma-separated (e.g. -avx512f)");
  return [options] {
    absl::Status status = RunCompile(*options);
    return status.ok() ? 0 : ReportError(std::string(status.message()));
  };
}

}  // namespace mxla::tools
