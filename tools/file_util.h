// Reading the tools' input files.
#ifndef MXLA_TOOLS_FILE_UTIL_H_
#define MXLA_TOOLS_FILE_UTIL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "ir/hlo_module.h"

namespace mxla::tools {

// The whole file, or standard input for "-". Errors name the path.
absl::StatusOr<std::string> ReadFileOrStdin(const std::string& path);

// The HLO module in a file (or stdin); parse errors read "PATH:LINE:COL: ...".
absl::StatusOr<std::unique_ptr<HloModule>> ReadHloModule(
    const std::string& path);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_FILE_UTIL_H_
