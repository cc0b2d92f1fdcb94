#include "driver/compile_options.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mxla {

absl::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kJit:
      return "jit";
    case Backend::kInterpreter:
      return "interpreter";
  }
  return "?";
}

absl::StatusOr<Backend> ParseBackend(absl::string_view name) {
  if (name == "jit") return Backend::kJit;
  if (name == "interpreter") return Backend::kInterpreter;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown backend '", name, "' (available backends: jit, interpreter)"));
}

std::string DumpDirectory(const CompileOptions& options) {
  if (!options.pipeline.dump_dir.empty()) return options.pipeline.dump_dir;
  const char* dir = std::getenv("MXLA_DUMP_DIR");
  return dir == nullptr ? "" : dir;
}

std::string CompileOptionsKey(const CompileOptions& options) {
  std::vector<std::string> disabled(options.pipeline.disabled_passes.begin(),
                                    options.pipeline.disabled_passes.end());
  std::sort(disabled.begin(), disabled.end());
  return absl::StrCat(
      "backend=", BackendName(options.backend), " passes=",
      options.passes.has_value()
          ? absl::StrCat("[", absl::StrJoin(*options.passes, ","), "]")
          : "default",
      " disabled=[", absl::StrJoin(disabled, ","),
      "] verify=", options.pipeline.verify,
      options.pipeline.verify_each_pass_in_groups ? "/each" : "",
      " reassociate=", options.codegen.reassociate_reductions,
      " streaming=", options.codegen.streaming_store_min_bytes,
      " opt=", options.codegen.optimization_level,
      " native_loops=", options.native_loops, " replicas=",
      options.replicas.value_or(0), " partitions=",
      options.partitions.value_or(0));
}

absl::StatusOr<std::pair<int64_t, int64_t>> DeviceCounts(
    const HloModule& module, const CompileOptions& options) {
  const int64_t replicas = options.replicas.value_or(module.replica_count());
  const int64_t partitions =
      options.partitions.value_or(module.num_partitions());
  if (replicas < 1 || partitions < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        replicas < 1 ? "CompileOptions::replicas" : "CompileOptions::partitions",
        " must be at least 1; got ", replicas < 1 ? replicas : partitions));
  }
  return std::make_pair(replicas, partitions);
}

}  // namespace mxla
