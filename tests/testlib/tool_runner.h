// Runs the built `mxla` command in tests and captures what it does.
#ifndef MXLA_TESTS_TESTLIB_TOOL_RUNNER_H_
#define MXLA_TESTS_TESTLIB_TOOL_RUNNER_H_

#include <string>
#include <vector>

#include "tests/testlib/read_file.h"

namespace mxla::testing {

struct ToolResult {
  int exit_code;    // -1 if the process did not exit normally (a crash)
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `mxla <args>` through the shell with `stdin_text` as standard input.
// `environment` ("NAME=value ...") is set for this run only.
ToolResult RunMxla(const std::string& args, const std::string& stdin_text = "",
                   const std::string& environment = "");

// Runs `copies` processes of `mxla <args>` at once (started together in one
// shell, which waits for all of them) and returns what each did.
std::vector<ToolResult> RunMxlaConcurrently(const std::string& args,
                                            int copies);

// Writes `contents` to a file named `name` in the test's temporary
// directory and returns its path.
std::string WriteTempFile(const std::string& name, const std::string& contents);
std::string TempPath(const std::string& name);

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_TOOL_RUNNER_H_
