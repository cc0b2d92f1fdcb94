// mxla: the command-line driver. `mxla --help` lists the subcommands.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "tools/commands.h"

namespace mxla::tools {

int ReportError(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

// CLI11 2.1 reads `--name=` as a missing value (and then takes the next
// argument), but `--passes=` means "no passes". Splitting it into `--name`
// and an explicit empty argument keeps the empty value.
std::vector<std::string> SplitEmptyAssignments(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = argc - 1; i > 0; --i) {  // CLI11 wants them reversed.
    std::string arg = argv[i];
    if (arg.size() > 3 && arg.starts_with("--") && arg.ends_with("=") &&
        arg.find('=') == arg.size() - 1) {
      args.push_back("");
      arg.pop_back();
    }
    args.push_back(std::move(arg));
  }
  return args;
}

}  // namespace mxla::tools

int main(int argc, char** argv) {
  CLI::App app{
      "mxla: an XLA-style compiler for the CPU. Builds HLO with XLA's "
      "broadcasting semantics, lowers, and runs it.",
      "mxla"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mxla " MXLA_VERSION
                                    " (LLVM " MXLA_LLVM_VERSION ")");
  app.footer(
      "Examples:\n"
      "  mxla demo --example softmax          one example, every stage\n"
      "  mxla opt model.hlo --emit=fused      the module the JIT compiles\n"
      "  mxla run model.hlo -i 0=x.npy -i 1=v.npy --compare\n"
      "  mxla run model.hlo -i x=x.npy --dump-dir=dump\n"
      "  mxla stats ../shared/real-hlo/modules    what a corpus parses and runs\n"
      "  mxla compile model.hlo -o model      model.o + model.h, no JIT\n"
      "Run 'mxla SUBCOMMAND --help' for a subcommand's options. Exit status: "
      "0 on success, 1 with 'error: ...' on stderr for any user error.");
  std::map<std::string, mxla::tools::CommandRunner> runners;
  runners["opt"] = mxla::tools::RegisterOptCommand(app);
  runners["run"] = mxla::tools::RegisterRunCommand(app);
  runners["demo"] = mxla::tools::RegisterDemoCommand(app);
  runners["bench"] = mxla::tools::RegisterBenchCommand(app);
  runners["stats"] = mxla::tools::RegisterStatsCommand(app);
  runners["compile"] = mxla::tools::RegisterCompileCommand(app);
  try {
    app.parse(mxla::tools::SplitEmptyAssignments(argc, argv));
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 uses many exit codes; mxla promises 1 for every user error.
    // Point at the help of the subcommand the user was typing, if any.
    std::string help = "mxla --help";
    for (CLI::App* subcommand : app.get_subcommands()) {
      help = "mxla " + subcommand->get_name() + " --help";
    }
    return mxla::tools::ReportError(std::string(e.what()) + " (run '" + help +
                                    "' for usage)");
  }
  for (CLI::App* subcommand : app.get_subcommands()) {
    return runners.at(subcommand->get_name())();
  }
  return mxla::tools::ReportError("no subcommand given");
}
