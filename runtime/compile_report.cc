#include "runtime/compile_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mxla {

double CompileReport::Milliseconds(absl::string_view stage) const {
  for (const StageRecord& record : stages) {
    if (record.name == stage) return record.milliseconds;
  }
  return 0;
}

std::string CompileReport::ToString() const {
  std::string text;
  double total = 0;
  for (const StageRecord& record : stages) {
    absl::StrAppend(&text, absl::StrFormat("%-16s %10.3f ms%s\n", record.name,
                                           record.milliseconds,
                                           record.failed ? "  FAILED" : ""));
    total += record.milliseconds;
  }
  absl::StrAppend(&text, absl::StrFormat("%-16s %10.3f ms\n", "total", total));
  return text;
}

}  // namespace mxla
