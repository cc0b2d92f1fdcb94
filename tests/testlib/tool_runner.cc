#include "tests/testlib/tool_runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace mxla::testing {

std::string TempPath(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/mxla_", getpid(), "_", name);
}

std::string WriteTempFile(const std::string& name,
                          const std::string& contents) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

ToolResult RunMxla(const std::string& args, const std::string& stdin_text,
                   const std::string& environment) {
  std::string in = WriteTempFile("stdin", stdin_text);
  std::string out = TempPath("stdout"), err = TempPath("stderr");
  std::string command = absl::StrCat(environment, " ", MXLA_TOOL_PATH, " ",
                                     args, " <", in,
                                     " >", out, " 2>", err);
  int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out),
          ReadFile(err)};
}

}  // namespace mxla::testing
