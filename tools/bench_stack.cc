// Compile time of the model stack (tools/model_stack.h) by layer count,
// stage by stage: the measurement issue 19's compile-time work starts from.
#include <algorithm>
#include <chrono>

#include "absl/container/flat_hash_set.h"
#include "driver/compile.h"
#include "ir/status_macros.h"
#include "runtime/jit_executable.h"
#include "tools/bench_scaling.h"
#include "tools/model_stack.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

absl::StatusOr<StackPoint> MeasureStack(int64_t layers,
                                        const CodegenOptions& codegen) {
  examples::StackShape shape;
  shape.layers = layers;
  ASSIGN_OR_RETURN(XlaComputation computation,
                   examples::BuildModelStack(shape));
  StackPoint point;
  point.layers = layers;
  point.instructions =
      computation.module().entry_computation()->instruction_count();
  CompileOptions options;
  options.codegen = codegen;
  options.use_cache = false;  // every compile cold
  struct Sample {
    double ms;
    std::unique_ptr<Executable> executable;
  };
  std::vector<Sample> samples;
  for (int i = 0; i < 3; ++i) {
    Clock::time_point start = Clock::now();
    ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                     Compile(computation.module(), options));
    samples.push_back({MillisecondsSince(start), std::move(executable)});
  }
  std::sort(samples.begin(), samples.end(),
            [](const Sample& a, const Sample& b) { return a.ms < b.ms; });
  const Sample& median = samples[samples.size() / 2];
  point.compile_ms = median.ms;
  const auto& jit = static_cast<const JitExecutable&>(*median.executable);
  const CompileReport& report = jit.program()->report;
  point.verify_ms = report.Milliseconds("verify");
  point.passes_ms = report.Milliseconds("hlo-passes");
  point.assign_ms = report.Milliseconds("assign-buffers");
  point.emit_ms = report.Milliseconds("emit");
  point.optimize_ms = report.Milliseconds("optimize");
  point.link_ms = report.Milliseconds("link");
  point.fusions = static_cast<int64_t>(jit.kernels().kernels().size());
  absl::flat_hash_set<std::string> symbols;
  for (const KernelInfo& kernel : jit.kernels().kernels()) {
    symbols.insert(kernel.symbol);
  }
  point.kernels = static_cast<int64_t>(symbols.size());
  std::vector<Literal> arguments = examples::ModelStackArguments(shape);
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments) pointers.push_back(&argument);
  RETURN_IF_ERROR(jit.Run(pointers).status());
  Clock::time_point start = Clock::now();
  RETURN_IF_ERROR(jit.Run(pointers).status());
  point.run_ms = MillisecondsSince(start);
  return point;
}

}  // namespace

absl::StatusOr<std::vector<StackPoint>> MeasureStackCompiles(
    const CodegenOptions& codegen) {
  std::vector<StackPoint> points;
  for (int64_t layers : {1, 4, 12, 24}) {
    ASSIGN_OR_RETURN(StackPoint point, MeasureStack(layers, codegen));
    points.push_back(point);
  }
  return points;
}

}  // namespace mxla::tools
