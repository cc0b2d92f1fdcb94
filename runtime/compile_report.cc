#include "runtime/compile_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mxla {
namespace {

std::string SlowestKernels(const std::vector<KernelCompileRecord>& kernels,
                           int count) {
  std::vector<const KernelCompileRecord*> order;
  double all = 0;
  for (const KernelCompileRecord& kernel : kernels) {
    order.push_back(&kernel);
    all += kernel.optimize_ms + kernel.codegen_ms;
  }
  auto total = [](const KernelCompileRecord* kernel) {
    return kernel->optimize_ms + kernel->codegen_ms;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const KernelCompileRecord* a,
                       const KernelCompileRecord* b) {
                     return total(a) > total(b);
                   });
  if (static_cast<int>(order.size()) > count) order.resize(count);
  std::string text = absl::StrFormat(
      "%d distinct kernels, %.3f ms of LLVM time over all threads; the "
      "slowest:\n%-32s %7s %12s %12s %6s\n",
      kernels.size(), all, "kernel", "fusions", "optimize ms", "codegen ms",
      "share");
  for (const KernelCompileRecord* kernel : order) {
    absl::StrAppend(
        &text, absl::StrFormat("%-32s %7d %12.3f %12.3f %5.1f%%\n",
                               kernel->kernel, kernel->fusions,
                               kernel->optimize_ms, kernel->codegen_ms,
                               all > 0 ? 100 * total(kernel) / all : 0.0));
  }
  return text;
}

}  // namespace

double CompileReport::Milliseconds(absl::string_view stage) const {
  for (const StageRecord& record : stages) {
    if (record.name == stage) return record.milliseconds;
  }
  return 0;
}

std::string CompileReport::ToString(int slowest_kernels) const {
  std::string text;
  double total = 0;
  for (const StageRecord& record : stages) {
    absl::StrAppend(&text, absl::StrFormat("%-16s %10.3f ms%s\n", record.name,
                                           record.milliseconds,
                                           record.failed ? "  FAILED" : ""));
    total += record.milliseconds;
  }
  absl::StrAppend(&text, absl::StrFormat("%-16s %10.3f ms\n", "total", total));
  if (!kernels.empty() && slowest_kernels > 0) {
    absl::StrAppend(&text, SlowestKernels(kernels, slowest_kernels));
  }
  return text;
}

}  // namespace mxla
