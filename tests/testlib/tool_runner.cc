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

std::vector<ToolResult> RunMxlaConcurrently(const std::string& args,
                                            int copies) {
  std::string script;
  for (int i = 0; i < copies; ++i) {
    absl::StrAppend(&script, "(", MXLA_TOOL_PATH, " ", args, " </dev/null >",
                    TempPath(absl::StrCat("stdout.", i)), " 2>",
                    TempPath(absl::StrCat("stderr.", i)), "; echo $? >",
                    TempPath(absl::StrCat("status.", i)), ") &\n");
  }
  absl::StrAppend(&script, "wait\n");
  const std::string path = WriteTempFile("concurrent.sh", script);
  std::system(absl::StrCat("sh ", path).c_str());
  std::vector<ToolResult> results;
  for (int i = 0; i < copies; ++i) {
    const std::string status = ReadFile(TempPath(absl::StrCat("status.", i)));
    results.push_back({status.empty() ? -1 : std::atoi(status.c_str()),
                       ReadFile(TempPath(absl::StrCat("stdout.", i))),
                       ReadFile(TempPath(absl::StrCat("stderr.", i)))});
  }
  return results;
}

}  // namespace mxla::testing
