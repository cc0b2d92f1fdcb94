#include "tools/bench_scaling.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "driver/compile_cache.h"
#include "ir/status_macros.h"
#include "runtime/host_buffer.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

// Builds a graph on `b` from its one parameter; returns the root.
using GraphMaker = std::function<XlaOp(XlaBuilder&, XlaOp)>;

struct Graph {
  const char* name;
  Shape parameter;
  GraphMaker make;
};

XlaOp Chain(XlaBuilder& b, XlaOp x, int64_t length) {
  XlaOp half = ConstantR0<float>(&b, 0.5f);
  XlaOp v = x;
  for (int64_t i = 0; i < length / 2; ++i) v = Add(Mul(v, half), x);
  return v;
}

// s + c_0 + c_1 + ...: on a scalar no broadcasts; on an array each constant
// is implicitly broadcast.
XlaOp ConstantSum(XlaBuilder& b, XlaOp x, int64_t count) {
  XlaOp v = x;
  for (int64_t i = 0; i < count; ++i) {
    v = Add(v, ConstantR0<float>(&b, static_cast<float>(i) * 0.25f));
  }
  return v;
}

absl::StatusOr<ScalingPoint> Measure(const Graph& graph) {
  ScalingPoint point;
  point.graph = graph.name;
  Clock::time_point start = Clock::now();
  XlaBuilder b(graph.name);
  XlaOp root = graph.make(b, Parameter(&b, 0, graph.parameter, "x"));
  ASSIGN_OR_RETURN(XlaComputation computation, b.Build(root));
  point.build_ms = MillisecondsSince(start);
  point.instructions =
      computation.module().entry_computation()->instruction_count();

  CompileCache::Default().Clear();
  start = Clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(computation.module()));
  point.compile_ms = MillisecondsSince(start);
  std::vector<double> hits;
  for (int i = 0; i < 11; ++i) {
    start = Clock::now();
    RETURN_IF_ERROR(Compile(computation.module()).status());
    hits.push_back(MillisecondsSince(start) * 1000);
  }
  std::sort(hits.begin(), hits.end());
  point.hit_us = hits[hits.size() / 2];
  for (const HloInstruction* instruction :
       executable->module().entry_computation()->instructions()) {
    point.kernels += instruction->opcode() == HloOpcode::kFusion;
  }
  Literal input(graph.parameter, PooledHostAllocator());
  start = Clock::now();
  RETURN_IF_ERROR(executable->Run({&input}).status());
  point.run_ms = MillisecondsSince(start);
  return point;
}

}  // namespace

absl::StatusOr<std::vector<ScalingPoint>> MeasureGraphScaling() {
  const Shape vector = ShapeUtil::MakeShape(F32, {1024});
  const Shape scalar = ShapeUtil::MakeShape(F32, {});
  std::vector<Graph> graphs;
  for (int64_t length : {1000, 10000, 100000}) {
    graphs.push_back({"chain", vector, [length](XlaBuilder& b, XlaOp x) {
                        return Chain(b, x, length);
                      }});
  }
  graphs.push_back({"constants", scalar, [](XlaBuilder& b, XlaOp x) {
                      return ConstantSum(b, x, 16384);
                    }});
  graphs.push_back({"broadcasts", vector, [](XlaBuilder& b, XlaOp x) {
                      return ConstantSum(b, x, 16384);
                    }});
  std::vector<ScalingPoint> points;
  for (const Graph& graph : graphs) {
    ASSIGN_OR_RETURN(ScalingPoint point, Measure(graph));
    points.push_back(point);
  }
  return points;
}

}  // namespace mxla::tools
