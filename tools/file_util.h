// Reading the tools' input files.
#ifndef MXLA_TOOLS_FILE_UTIL_H_
#define MXLA_TOOLS_FILE_UTIL_H_

#include <string>

#include "absl/status/statusor.h"

namespace mxla::tools {

// The whole file, or standard input for "-". Errors name the path.
absl::StatusOr<std::string> ReadFileOrStdin(const std::string& path);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_FILE_UTIL_H_
