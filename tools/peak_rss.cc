#include "tools/peak_rss.h"

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace mxla::tools {
namespace {

// Reads a "Vm...:  N kB" line of /proc/self/status, in bytes (0 if absent).
int64_t ProcStatusBytes(absl::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (absl::StartsWith(line, field)) {
      int64_t kib = 0;
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::StripSuffix(
                               line.substr(field.size()), "kB")),
                           &kib)) {
        return kib * 1024;
      }
    }
  }
  return 0;
}

}  // namespace

// Writing 5 to clear_refs resets the peak (VmHWM) to the current size.
int64_t PeakRssGrowth(const std::function<void()>& run) {
  { std::ofstream("/proc/self/clear_refs") << "5"; }
  const int64_t before = ProcStatusBytes("VmRSS:");
  run();
  return ProcStatusBytes("VmHWM:") - before;
}

}  // namespace mxla::tools
