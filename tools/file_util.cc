#include "tools/file_util.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_cat.h"
#include "hlo_text/hlo_parser.h"

namespace mxla::tools {

absl::StatusOr<std::string> ReadFileOrStdin(const std::string& path) {
  std::ostringstream contents;
  if (path == "-") {
    contents << std::cin.rdbuf();
    return contents.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  contents << file.rdbuf();
  if (file.bad()) {
    return absl::DataLossError(absl::StrCat("cannot read '", path, "'"));
  }
  return contents.str();
}

absl::StatusOr<std::unique_ptr<HloModule>> ReadHloModule(
    const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileOrStdin(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(*text);
  if (!module.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", module.status().message()));
  }
  return module;
}

}  // namespace mxla::tools
