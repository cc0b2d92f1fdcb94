#include "tools/bench_scaling.h"

#include <chrono>
#include <memory>

#include "builder/xla_builder.h"
#include "ir/status_macros.h"
#include "runtime/compile.h"

namespace mxla::tools {
namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

}  // namespace

absl::StatusOr<std::vector<ScalingPoint>> MeasureGraphScaling(
    absl::Span<const int64_t> chain_lengths) {
  std::vector<ScalingPoint> points;
  for (int64_t length : chain_lengths) {
    ScalingPoint point;
    Clock::time_point start = Clock::now();
    XlaBuilder b("chain");
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {1024}), "x");
    XlaOp half = ConstantR0<float>(&b, 0.5f);
    XlaOp v = x;
    for (int64_t i = 0; i < length / 2; ++i) v = Add(Mul(v, half), x);
    ASSIGN_OR_RETURN(XlaComputation computation, b.Build(v));
    point.build_ms = MillisecondsSince(start);
    point.instructions =
        computation.module().entry_computation()->instruction_count();

    CompileOptions options;
    options.use_cache = false;
    start = Clock::now();
    ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                     Compile(computation.module(), options));
    point.compile_ms = MillisecondsSince(start);
    for (const HloInstruction* instruction :
         executable->module().entry_computation()->instructions()) {
      point.kernels += instruction->opcode() == HloOpcode::kFusion;
    }
    Literal input(ShapeUtil::MakeShape(F32, {1024}));
    start = Clock::now();
    RETURN_IF_ERROR(executable->Run({&input}).status());
    point.run_ms = MillisecondsSince(start);
    points.push_back(point);
  }
  return points;
}

}  // namespace mxla::tools
