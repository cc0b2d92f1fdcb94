// mxla's column in the anchors harness's matrix-product tables
// (../shared/anchors, `run.sh --only gemm`): G1 sgemm, G2 mlp_layer, G3
// attention_scores and G4 small_dot, built with the builder as a user would,
// compiled once (a COMPILE line each), run with Executable::RunBuffers on
// the harness's buffers (its inputs, LLC flush, timing and check against its
// double-precision reference: gemm_common.h), printing its RESULT lines.
//
// Threads: mxla's pool reads MXLA_THREADS once; this program takes
// `--threads N`, else OMP_NUM_THREADS (set by run.sh), else 1, and sets
// MXLA_THREADS before the first mxla call.
// Build and run: tools/anchors/README.md.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "gemm_common.h"
#include "runtime/thread_pool.h"

namespace {

const char* kSystem = "mxla";
int threads = 1;

mxla::Shape F32(std::vector<int64_t> dims) {
  return mxla::ShapeUtil::MakeShape(mxla::F32, dims);
}

// Compiles `computation`, printing its compile time; exits on any error.
std::unique_ptr<mxla::Executable> CompileOrExit(
    const absl::StatusOr<mxla::XlaComputation>& computation, const char* name) {
  if (!computation.ok()) {
    fprintf(stderr, "mxla: building %s failed: %s\n", name,
            computation.status().ToString().c_str());
    exit(1);
  }
  const double start = anch::now_ms();
  absl::StatusOr<std::unique_ptr<mxla::Executable>> executable =
      mxla::Compile(*computation);
  const double ms = anch::now_ms() - start;
  if (!executable.ok()) {
    fprintf(stderr, "mxla: compiling %s failed: %s\n", name,
            executable.status().ToString().c_str());
    exit(1);
  }
  printf("COMPILE\t%s\t%d\t%s\t%.1f\n", kSystem, threads, name, ms);
  fflush(stdout);
  return std::move(*executable);
}

// One zero-copy run; the first error is kept and reported after timing.
struct Runner {
  const mxla::Executable* executable;
  std::vector<const void*> arguments;
  std::vector<void*> results;
  absl::Status status;
  void operator()() {
    absl::Status run = executable->RunBuffers(arguments, results);
    if (!run.ok() && status.ok()) status = run;
  }
  void CheckOrExit(const char* name) const {
    if (status.ok()) return;
    fprintf(stderr, "mxla: running %s failed: %s\n", name,
            status.ToString().c_str());
    exit(1);
  }
};

absl::StatusOr<mxla::XlaComputation> Matmul(int64_t m, int64_t k, int64_t n) {
  mxla::XlaBuilder b("sgemm");
  Dot(Parameter(&b, 0, F32({m, k}), "A"), Parameter(&b, 1, F32({k, n}), "B"));
  return b.Build();
}

// relu(X @ W + b), b broadcast over rows.
absl::StatusOr<mxla::XlaComputation> MlpLayer(int64_t m, int64_t k,
                                              int64_t n) {
  mxla::XlaBuilder b("mlp_layer");
  mxla::XlaOp product = Dot(Parameter(&b, 0, F32({m, k}), "X"),
                            Parameter(&b, 1, F32({k, n}), "W"));
  Max(Add(product, Parameter(&b, 2, F32({n}), "b"), {1}),
      mxla::ConstantR0<float>(&b, 0.0f));
  return b.Build();
}

// softmax_rows(Q[h] @ K[h]^T * scale) for each head h.
absl::StatusOr<mxla::XlaComputation> AttentionScores(int64_t heads, int64_t s,
                                                     int64_t d, float scale) {
  mxla::XlaBuilder b("attention_scores");
  mxla::XlaOp q = Parameter(&b, 0, F32({heads, s, d}), "Q");
  mxla::XlaOp k = Parameter(&b, 1, F32({heads, s, d}), "K");
  mxla::DotDimensionNumbers dims;
  dims.lhs_batch = {0};
  dims.rhs_batch = {0};
  dims.lhs_contracting = {2};
  dims.rhs_contracting = {2};
  mxla::XlaOp x = Mul(DotGeneral(q, k, dims), mxla::ConstantR0<float>(&b, scale));
  mxla::XlaOp max = Reduce(x, mxla::ConstantR0<float>(&b, -INFINITY),
                           mxla::CreateScalarMaxComputation(mxla::F32, &b), {2});
  mxla::XlaOp e = Exp(Sub(x, max, {0, 1}));
  mxla::XlaOp sum = Reduce(e, mxla::ConstantR0<float>(&b, 0.0f),
                           mxla::CreateScalarAddComputation(mxla::F32, &b), {2});
  Div(e, sum, {0, 1});
  return b.Build();
}

// Compiles workload `g`, times it on the harness's buffers (G4 per call)
// and prints its RESULT line; whether it matched the reference.
template <typename Data>
bool Measure(int g, const absl::StatusOr<mxla::XlaComputation>& computation,
             std::vector<const void*> arguments, Data& data) {
  std::unique_ptr<mxla::Executable> executable =
      CompileOrExit(computation, anch::g_name(g));
  Runner run{executable.get(), std::move(arguments), {data.out.p}, {}};
  const anch::Stats stats =
      g == 4 ? anch::time_g_per_call(run, anch::g4_iters()) : anch::time_g(run);
  run.CheckOrExit(anch::g_name(g));
  return anch::report_g(kSystem, threads, g, stats, data.out.p, data.ref,
                        data.bound);
}

int TakeThreads(int& argc, char** argv) {
  int t = 0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      t = atoi(argv[++i]);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (t <= 0) t = anch::env_int("OMP_NUM_THREADS", 0);
  return t > 0 ? t : 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace anch;
  threads = TakeThreads(argc, argv);
  setenv("MXLA_THREADS", std::to_string(threads).c_str(), 1);
  if (mxla::ThreadPool::Default().threads() != threads) {
    fprintf(stderr, "mxla: the pool has %d threads, wanted %d\n",
            mxla::ThreadPool::Default().threads(), threads);
    return 1;
  }
  int fails = 0;
  for (int g : g_workloads_from_args(argc, argv)) {
    switch (g) {
      case 1: {
        G1Data d;
        fails += !Measure(g, Matmul(d.M, d.K, d.N), {d.A.p, d.B.p}, d);
        break;
      }
      case 2: {
        G2Data d;
        fails += !Measure(g, MlpLayer(d.M, d.K, d.N), {d.X.p, d.W.p, d.b.p}, d);
        break;
      }
      case 3: {
        G3Data d;
        fails += !Measure(g, AttentionScores(d.H, d.S, d.D, G3Data::scale),
                          {d.Q.p, d.K.p}, d);
        break;
      }
      case 4: {
        G4Data d;
        fails += !Measure(g, Matmul(d.N, d.N, d.N), {d.A.p, d.B.p}, d);
        break;
      }
    }
  }
  return fails ? 1 : 0;
}
