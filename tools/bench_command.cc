// `mxla bench [--threads N] [--filter W1,W5] [--runs R] [--json PATH]`:
// times each workload (tools/bench_workloads.h) through the JIT next to its
// hand-written -O3 -march=native loop and the machine's STREAM bandwidth,
// all measured in this one run. Each timed run starts with the last-level
// cache flushed (128 MiB touched). Also compile latency with its phase split
// and the per-call overhead of both Run APIs on a tiny graph (W7). M runs
// XLA's CPU benchmark modules whole (tools/bench_modules.h); X the
// all-reduce across devices (tools/bench_collectives.h and, with gloo,
// tools/gloo_allreduce_bench.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "driver/client.h"
#include "ir/status_macros.h"
#include "runtime/host_buffer.h"
#include "runtime/jit_executable.h"
#include "runtime/thread_pool.h"
#include "tools/bench_collectives.h"
#include "tools/bench_modules.h"
#include "tools/bench_reference.h"
#include "tools/bench_scaling.h"
#include "tools/bench_workloads.h"
#include "tools/commands.h"
#ifdef MXLA_HAVE_GLOO
#include "tools/gloo_allreduce_bench.h"
#endif
#include "tools/model_stack.h"
#include "tools/peak_rss.h"

namespace mxla::tools {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  std::optional<int> threads;  // unset: the default pool's size
  int threads_flag = 0;        // --threads, when given
  std::string filter;
  int runs = 10;
  std::string json;
  // --streaming-min-bytes: the workloads compile with it (A/B of streaming
  // stores); unset: CodegenOptions' default.
  std::optional<int64_t> streaming_min_bytes;
  // --opt-level: LLVM's level for every compile (A/B of pipelines).
  int opt_level = CodegenOptions().optimization_level;
  // --cache-probe: compile the model stack at this many layers through
  // --cache-dir and print the milliseconds (BenchStack's child process).
  std::optional<int64_t> cache_probe_layers;
  std::string cache_dir;
  // M: XLA's CPU benchmark modules (tools/bench_modules.h).
  std::string modules_dir;
  double module_budget = 120;
  std::string module_probe;  // the child process of one module
  bool profile = false;        // M: each module's profile
  int64_t profile_rows = 0;    // the child's
  // X: the all-reduce's buffer; the largest size across processes.
  int64_t collective_bytes = int64_t{64} << 20;
  // X: a device's copy of the all-reduce across processes (its rank, the
  // launcher's store directory and the sizes it measures).
  int64_t gloo_rank = -1;
  std::string gloo_directory;
  int64_t gloo_min_bytes = 0;
};

struct Stats {
  double median = 0, min = 0;  // seconds
};

Stats Summarize(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times.front()};
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Evicts the last-level cache so each timed run starts from memory.
void FlushCache() {
  static std::vector<char>* junk = new std::vector<char>(128 << 20);
  static char round = 0;
  ++round;
  for (size_t i = 0; i < junk->size(); i += 64) (*junk)[i] = round;
}

Stats Time(const std::function<void()>& fn, int runs) {
  fn();  // warm-up: page faults, lazy set-up
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    FlushCache();
    Clock::time_point start = Clock::now();
    fn();
    times.push_back(Seconds(start));
  }
  return Summarize(times);
}

// The pool the JIT runs on (RunBench checked that it exists), so that the
// reference loops use as many threads.
ThreadPool& BenchPool() { return ThreadPool::Default(); }

void ParallelRows(int64_t rows, const std::function<void(int64_t, int64_t)>& fn) {
  BenchPool().ParallelFor(rows, BenchPool().threads(), fn);
}

struct Report {
  std::vector<std::string> json;
  void Add(const std::string& record) { json.push_back(record); }
};

double Gbps(int64_t bytes, double seconds) { return bytes / seconds / 1e9; }

// STREAM-style bandwidth over 64M floats; returns triad GB/s.
double MeasureStream(int runs, Report& report) {
  constexpr int64_t n = 64 << 20;
  auto allocate = [] {
    return std::unique_ptr<float, decltype(&std::free)>(
        static_cast<float*>(std::aligned_alloc(64, n * sizeof(float))),
        &std::free);
  };
  auto a = allocate(), b = allocate(), c = allocate();
  ParallelRows(n, [&](int64_t begin, int64_t end) {
    bench::StreamFill(a.get(), 1, begin, end);
    bench::StreamFill(b.get(), 2, begin, end);
    bench::StreamFill(c.get(), 3, begin, end);
  });
  struct Kernel {
    const char* name;
    int64_t bytes;
    std::function<void(int64_t, int64_t)> body;
  };
  const int64_t f = sizeof(float);
  std::vector<Kernel> kernels = {
      {"copy", 2 * f * n,
       [&](int64_t s, int64_t e) { bench::StreamCopy(a.get(), c.get(), s, e); }},
      {"triad", 3 * f * n,
       [&](int64_t s, int64_t e) {
         bench::StreamTriad(b.get(), c.get(), a.get(), 3, s, e);
       }},
      {"fill", f * n,
       [&](int64_t s, int64_t e) { bench::StreamFill(a.get(), 5, s, e); }},
      {"triad_nt", 3 * f * n,
       [&](int64_t s, int64_t e) {
         bench::StreamTriadNonTemporal(b.get(), c.get(), a.get(), 3, s, e);
       }},
      {"fill_nt", f * n,
       [&](int64_t s, int64_t e) {
         bench::StreamFillNonTemporal(a.get(), 7, s, e);
       }},
  };
  double triad = 0;
  std::cout << "bandwidth (64M floats, " << BenchPool().threads()
            << " threads, median of " << runs << "):\n";
  for (const Kernel& kernel : kernels) {
    Stats stats = Time([&] { ParallelRows(n, kernel.body); }, runs);
    double gbps = Gbps(kernel.bytes, stats.median);
    if (std::string(kernel.name) == "triad") triad = gbps;
    std::cout << absl::StrFormat("  %-9s %7.1f GB/s\n", kernel.name, gbps);
    report.Add(absl::StrFormat(
        R"({"kind":"stream","name":"%s","gbps":%.3f,"median_ms":%.4f})",
        kernel.name, gbps, stats.median * 1e3));
  }
  return triad;
}

absl::StatusOr<double> CompileSeconds(const XlaComputation& computation,
                                      CompileOptions options, bool use_cache) {
  options.use_cache = use_cache;
  Clock::time_point start = Clock::now();
  RETURN_IF_ERROR(Compile(computation, options).status());
  return Seconds(start);
}

struct MemoryLine {
  std::string id;
  double literal_ms = 0;   // Run(Literal): output allocated by the runtime
  int64_t peak_growth = 0;  // of the first such run
  int64_t output_bytes = 0;
  int64_t arena_bytes = 0;
};

// A workload's compile times: the first compile (it fills the cache),
// compiles that bypass the cache, and cache hits.
struct CompileLine {
  double first_seconds = 0;
  Stats compile, hit;
};

absl::StatusOr<CompileLine> TimeCompiles(const bench::Workload& w,
                                         const CompileOptions& options) {
  CompileLine line;
  std::vector<double> compiles, hits;
  for (int i = 0; i < 5; ++i) {
    ASSIGN_OR_RETURN(double seconds, CompileSeconds(w.computation, options, false));
    compiles.push_back(seconds);
  }
  for (int i = 0; i < 21; ++i) {
    ASSIGN_OR_RETURN(double seconds, CompileSeconds(w.computation, options, true));
    hits.push_back(seconds);
  }
  line.compile = Summarize(compiles);
  line.hit = Summarize(hits);
  return line;
}

// The jit's RunBuffers against the hand-written loop on the same inputs.
struct RunLine {
  Stats jit, hand;
  absl::Status same;  // whether their results agree
  int64_t output_bytes = 0;
};

absl::StatusOr<RunLine> TimeRuns(const bench::Workload& w,
                                 const Executable& executable, int runs) {
  const Shape& shape =
      executable.module().entry_computation()->root_instruction()->shape();
  Literal jit_out(shape, PooledHostAllocator()),
      hand_out(shape, PooledHostAllocator());
  std::vector<const void*> arguments;
  for (const Literal& input : w.inputs) arguments.push_back(input.untyped_data());
  void* results[] = {jit_out.untyped_data()};
  absl::Status run_status;
  RunLine line;
  line.jit = Time(
      [&] { run_status.Update(executable.RunBuffers(arguments, results)); },
      runs);
  RETURN_IF_ERROR(run_status);
  bench::RowRange hand_loop = w.reference(w.inputs, hand_out.data<float>().data());
  line.hand = Time([&] { ParallelRows(w.rows, hand_loop); }, runs);
  line.same = LiteralUtil::Near(hand_out, jit_out, 1e-5, 1e-4);
  line.output_bytes = jit_out.size_bytes();
  return line;
}

// Run(Literal) allocates its output: a fresh buffer each call, so page
// faults are part of the time (huge pages keep them few).
absl::StatusOr<MemoryLine> TimeLiteralRuns(const bench::Workload& w,
                                           const JitExecutable& executable,
                                           int runs, int64_t output_bytes) {
  std::vector<const Literal*> literals;
  for (const Literal& input : w.inputs) literals.push_back(&input);
  absl::Status run_status;
  MemoryLine line{w.id};
  line.peak_growth = PeakRssGrowth(
      [&] { run_status.Update(executable.Run(literals).status()); });
  Stats literal_run = Time(
      [&] { run_status.Update(executable.Run(literals).status()); }, runs);
  RETURN_IF_ERROR(run_status);
  line.literal_ms = literal_run.median * 1e3;
  line.output_bytes = output_bytes;
  line.arena_bytes = executable.buffers().arena_bytes;
  return line;
}

absl::Status BenchWorkload(const bench::Workload& w,
                           const CompileOptions& options, double triad,
                           int runs, bool first, Report& report,
                           std::vector<MemoryLine>& memory) {
  Clock::time_point start = Clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> compiled,
                   Compile(w.computation, options));
  const double first_compile = Seconds(start);
  const auto& executable = static_cast<const JitExecutable&>(*compiled);
  ASSIGN_OR_RETURN(CompileLine compile, TimeCompiles(w, options));
  // The stage times of the first compile (driver/compile_pipeline.h).
  const CompileReport& stages = executable.program()->report;
  ASSIGN_OR_RETURN(RunLine run, TimeRuns(w, executable, runs));
  ASSIGN_OR_RETURN(MemoryLine line,
                   TimeLiteralRuns(w, executable, runs, run.output_bytes));
  memory.push_back(line);

  const Stats& jit = run.jit;
  const Stats& hand = run.hand;
  double jit_gbps = Gbps(w.bytes, jit.median), hand_gbps = Gbps(w.bytes, hand.median);
  // A compute-bound workload (G) shows GFLOP/s where the others show GB/s,
  // and no share of the triad.
  const bool compute = w.flops > 0;
  auto rate = [&](double seconds) {
    return compute ? w.flops / seconds / 1e9 : Gbps(w.bytes, seconds);
  };
  auto share = [&](double seconds) {
    return compute ? std::string("  flop")
                   : absl::StrFormat("%6.0f%%", 100 * rate(seconds) / triad);
  };
  std::cout << absl::StrFormat(
      "  %-3s %-16s %8.2f %8.2f %7.1f %s | %8.2f %7.1f %s |  %5.2f | "
      "%6.1f %6.1f %6.1f  %s\n",
      w.id, w.name, jit.median * 1e3, jit.min * 1e3, rate(jit.median),
      share(jit.median), hand.median * 1e3, rate(hand.median),
      share(hand.median), jit_gbps / hand_gbps,
      compile.compile.median * 1e3,
      (first ? first_compile : compile.compile.min) * 1e3,
      compile.hit.median * 1e6,
      run.same.ok() ? "ok" : std::string(run.same.message()));
  report.Add(absl::StrFormat(
      R"({"kind":"workload","id":"%s","name":"%s","jit_median_ms":%.4f,)"
      R"("jit_min_ms":%.4f,"jit_gbps":%.3f,"jit_pct_triad":%.1f,)"
      R"("hand_median_ms":%.4f,"hand_gbps":%.3f,"hand_pct_triad":%.1f,)"
      R"("jit_over_hand":%.3f,"compile_first_ms":%.3f,"compile_median_ms":%.3f,)"
      R"("compile_hit_us":%.2f,"passes_ms":%.3f,)"
      R"("codegen_emit_ms":%.3f,"llvm_opt_ms":%.3f,"jit_link_ms":%.3f,)"
      R"("run_literal_ms":%.4f,"peak_rss_growth_mib":%.1f,"output_mib":%.1f,)"
      R"("arena_mib":%.1f,"matches_hand_loop":%s})",
      w.id, w.name, jit.median * 1e3, jit.min * 1e3, jit_gbps,
      100 * jit_gbps / triad, hand.median * 1e3, hand_gbps,
      100 * hand_gbps / triad, jit_gbps / hand_gbps, first_compile * 1e3,
      compile.compile.median * 1e3, compile.hit.median * 1e6,
      stages.Milliseconds("hlo-passes"), stages.Milliseconds("emit"),
      stages.Milliseconds("optimize"), stages.Milliseconds("link"),
      line.literal_ms, line.peak_growth / 1048576.0,
      line.output_bytes / 1048576.0, line.arena_bytes / 1048576.0,
      run.same.ok() ? "true" : "false"));
  return absl::OkStatus();
}

// The per-call cost of both Run APIs on a tiny workload: W7, an 8x8 bias
// add; G4, an [8,8] @ [8,8] dot.
absl::Status BenchDispatch(const bench::Workload& w, const char* label,
                           Report& report) {
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable, Compile(w.computation));
  Literal out(ShapeUtil::MakeShape(F32, {8, 8}));
  const void* arguments[] = {w.inputs[0].untyped_data(), w.inputs[1].untyped_data()};
  void* results[] = {out.untyped_data()};
  const Literal* literals[] = {&w.inputs[0], &w.inputs[1]};
  auto per_call = [](const std::function<void()>& call, int calls) {
    std::vector<double> batches;
    for (int batch = 0; batch < 15; ++batch) {
      Clock::time_point start = Clock::now();
      for (int i = 0; i < calls; ++i) call();
      batches.push_back(Seconds(start) / calls);
    }
    return Summarize(batches);
  };
  Stats raw = per_call([&] { (void)executable->RunBuffers(arguments, results); },
                       20000);
  Stats literal = per_call([&] { (void)executable->Run(literals); }, 5000);
  std::cout << absl::StrFormat(
      "%s %s (%s): RunBuffers %.3f us/call, Run(Literal) %.3f us/call "
      "(medians)\n",
      w.id, w.name, label, raw.median * 1e6, literal.median * 1e6);
  report.Add(absl::StrFormat(
      R"({"kind":"dispatch","id":"%s","run_buffers_us":%.4f,"run_literal_us":%.4f})",
      w.id, raw.median * 1e6, literal.median * 1e6));
  return absl::OkStatus();
}

// The model stack compiled once through the persistent compile cache at
// `directory`, in this process: prints the milliseconds of Compile().
absl::Status RunCacheProbe(int64_t layers, const std::string& directory) {
  examples::StackShape shape;
  shape.layers = layers;
  ASSIGN_OR_RETURN(XlaComputation computation, examples::BuildModelStack(shape));
  CompileOptions options;
  options.cache_dir = directory;
  Clock::time_point start = Clock::now();
  RETURN_IF_ERROR(Compile(computation.module(), options).status());
  std::cout << absl::StrFormat("%.3f\n", Seconds(start) * 1e3);
  return absl::OkStatus();
}

// Compiles the 24-layer stack in new processes (this binary with
// --cache-probe) through a fresh cache directory: the first stores, the
// others load. Returns the first's and the median of the others' ms.
absl::StatusOr<std::pair<double, double>> TimeCacheInNewProcesses(
    int64_t layers) {
  char pattern[] = "/tmp/mxla-bench-cache-XXXXXX";
  if (mkdtemp(pattern) == nullptr) {
    return absl::InternalError("cannot create a temporary cache directory");
  }
  const std::string directory = pattern;
  auto probe = [&]() -> absl::StatusOr<double> {
    // Resolved here: in popen's shell, /proc/self/exe is the shell.
    std::error_code link_error;
    const std::string self =
        std::filesystem::read_symlink("/proc/self/exe", link_error).string();
    const std::string command = absl::StrCat(
        self, " bench --cache-probe ", layers, " --cache-dir ", directory);
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return absl::InternalError("cannot run " + command);
    char line[64] = {0};
    const bool read = fgets(line, sizeof(line), pipe) != nullptr;
    const int status = pclose(pipe);
    double ms = 0;
    if (!read || status != 0 || !absl::SimpleAtod(absl::StripAsciiWhitespace(line), &ms)) {
      return absl::InternalError(absl::StrCat("'", command, "' failed"));
    }
    return ms;
  };
  absl::StatusOr<double> cold = probe();
  std::vector<double> warm;
  for (int i = 0; i < 7 && cold.ok(); ++i) {
    absl::StatusOr<double> ms = probe();
    if (!ms.ok()) {
      cold = ms.status();
      break;
    }
    warm.push_back(*ms);
  }
  std::error_code error;
  std::filesystem::remove_all(directory, error);
  RETURN_IF_ERROR(cold.status());
  return std::make_pair(*cold, Summarize(warm).median);
}

// The model stack's cold compiles by layer count, split into the compile
// pipeline's stages.
absl::Status BenchStack(const CodegenOptions& codegen, Report& report) {
  ASSIGN_OR_RETURN(std::vector<StackPoint> points,
                   MeasureStackCompiles(codegen));
  std::cout << "\nmodel stack (tools/model_stack.h: layer norm, matmul, GELU, "
               "matmul on f32[64,256]; median of 3 cold compiles, "
               "on " << BenchPool().threads() << " threads, with its stages in ms):\n"
               "  layers  instructions  fusions  kernels  compile ms |  verify  passes  "
               "assign    emit  optimize    link |  run ms\n";
  for (const StackPoint& p : points) {
    std::cout << absl::StrFormat(
        "  %6d %13d %8d %8d %11.1f | %7.1f %7.1f %7.1f %7.1f %9.1f %7.1f | %7.3f\n",
        p.layers, p.instructions, p.fusions, p.kernels, p.compile_ms, p.verify_ms,
        p.passes_ms, p.assign_ms, p.emit_ms, p.optimize_ms, p.link_ms,
        p.run_ms);
    report.Add(absl::StrFormat(
        R"({"kind":"stack","layers":%d,"instructions":%d,"fusions":%d,"kernels":%d,)"
        R"("compile_ms":%.3f,"verify_ms":%.3f,"passes_ms":%.3f,)"
        R"("assign_ms":%.3f,"emit_ms":%.3f,"optimize_ms":%.3f,"link_ms":%.3f,)"
        R"("run_ms":%.4f})",
        p.layers, p.instructions, p.fusions, p.kernels, p.compile_ms,
        p.verify_ms, p.passes_ms, p.assign_ms, p.emit_ms, p.optimize_ms,
        p.link_ms, p.run_ms));
  }
  constexpr int64_t kCachedLayers = 24;
  ASSIGN_OR_RETURN(auto cached, TimeCacheInNewProcesses(kCachedLayers));
  std::cout << absl::StrFormat(
      "  persistent cache, %d layers, each compile in a new process: %.1f ms "
      "storing, %.1f ms loading (median of 7)\n",
      kCachedLayers, cached.first, cached.second);
  report.Add(absl::StrFormat(
      R"({"kind":"stack_cache","layers":%d,"store_ms":%.3f,"load_ms":%.3f})",
      kCachedLayers, cached.first, cached.second));
  return absl::OkStatus();
}

absl::Status BenchScaling(const CodegenOptions& codegen, Report& report) {
  ASSIGN_OR_RETURN(std::vector<ScalingPoint> points, MeasureGraphScaling());
  std::cout << "\ngraph size (tools/bench_scaling.h: chain = v * 0.5 + x on "
               "f32[1024]; 16,384 distinct constants added to an f32[] "
               "(constants) or broadcast onto an f32[1024] (broadcasts); one "
               "compile each through an empty cache, then cache hits):\n"
               "  graph       instructions  build ms  compile ms  "
               "us/instruction  kernels  run ms   hit us\n";
  for (const ScalingPoint& point : points) {
    double per_instruction =
        1000 * (point.build_ms + point.compile_ms) / point.instructions;
    std::cout << absl::StrFormat(
        "  %-10s %13d %9.1f %11.1f %15.2f %8d %7.3f %8.1f\n", point.graph,
        point.instructions, point.build_ms, point.compile_ms, per_instruction,
        point.kernels, point.run_ms, point.hit_us);
    report.Add(absl::StrFormat(
        R"({"kind":"scaling","graph":"%s","instructions":%d,"build_ms":%.3f,)"
        R"("compile_ms":%.3f,"us_per_instruction":%.3f,"kernels":%d,)"
        R"("run_ms":%.4f,"compile_hit_us":%.2f})",
        point.graph, point.instructions, point.build_ms, point.compile_ms,
        per_instruction, point.kernels, point.run_ms, point.hit_us));
  }
  return BenchStack(codegen, report);
}

// Sizes the default pool (the JIT's and the reference loops') from
// --threads, which must be valid; then the pool must exist (MXLA_THREADS
// may be invalid).
absl::Status CheckBenchThreads(const BenchOptions& options) {
  if (options.threads.has_value()) {
    RETURN_IF_ERROR(CheckThreadCount(*options.threads, "--threads"));
    // Must precede the pool's first use.
    setenv("MXLA_THREADS", std::to_string(*options.threads).c_str(), 1);
  }
  return ThreadPool::DefaultStatus();
}

// --filter's ids, each a known workload (W1 to W10, G1 to G3), W7, G4, S,
// X, M or M:TEXT.
absl::StatusOr<std::vector<std::string>> ParseFilter(const std::string& text) {
  std::vector<std::string> filter =
      absl::StrSplit(text, ',', absl::SkipEmpty());
  for (const std::string& id : filter) {
    bool known = id == "W7" || id == "G4" || id == "S" || id == "X" ||
                 id == "M" ||
                 (absl::StartsWith(id, "M:") && id.size() > 2);
    for (const auto& factory : bench::Workloads()) known |= id == factory.id;
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--filter: unknown workload '", id,
          "' (W1 to W10, G1 to G4, S, X, M, M:TEXT)"));
    }
  }
  return filter;
}

void PrintMemoryTable(const std::vector<MemoryLine>& memory) {
  std::cout << "\nmemory (Run(Literal) allocates the output each call; "
               "peak RSS growth of one such run):\n"
               "  id  Run(Literal) ms  peak growth MiB  output MiB  "
               "temporaries MiB\n";
  for (const MemoryLine& line : memory) {
    std::cout << absl::StrFormat("  %-3s %15.2f %16.1f %11.1f %16.1f\n",
                                 line.id, line.literal_ms,
                                 line.peak_growth / 1048576.0,
                                 line.output_bytes / 1048576.0,
                                 line.arena_bytes / 1048576.0);
  }
}

// The selected workloads of bench::Workloads(), after STREAM's triad.
absl::Status BenchWorkloads(const BenchOptions& options,
                            const std::function<bool(const std::string&)>& selected,
                            Report& report) {
  bool any_workload = false;
  for (const auto& factory : bench::Workloads()) {
    any_workload |= selected(factory.id);
  }
  if (!any_workload) return absl::OkStatus();
  double triad = MeasureStream(options.runs, report);
  std::cout << "\nworkloads (f32; ms are median and min of " << options.runs
            << " cache-flushed runs; GB/s from bytes that must move; "
               "speedup = hand ms / jit ms):\n"
            << "  id  workload          jit ms   min ms    GB/s  %triad |  "
               "hand ms    GB/s %triad | speedup | compile ms (median, "
               "first), hit us\n";
  CompileOptions compile;
  if (options.streaming_min_bytes.has_value()) {
    compile.codegen.streaming_store_min_bytes = *options.streaming_min_bytes;
  }
  compile.codegen.optimization_level = options.opt_level;
  std::vector<MemoryLine> memory;
  bool first = true;
  for (const auto& factory : bench::Workloads()) {
    if (!selected(factory.id)) continue;
    RETURN_IF_ERROR(BenchWorkload(factory.make(), compile, triad, options.runs,
                                  first, report, memory));
    first = false;
  }
  PrintMemoryTable(memory);
  return absl::OkStatus();
}

// XLA's benchmark modules the filter names (M: all of them, M:TEXT: those
// whose name contains TEXT); only when asked for (minutes).
absl::Status BenchNamedModules(const BenchOptions& options,
                               const std::vector<std::string>& filter,
                               Report& report) {
  ModuleBenchOptions modules;
  bool any_module = false;
  for (const std::string& id : filter) {
    if (id == "M") any_module = true;
    if (absl::StartsWith(id, "M:")) {
      any_module = true;
      modules.patterns.push_back(id.substr(2));
    }
  }
  if (!any_module) return absl::OkStatus();
  if (std::find(filter.begin(), filter.end(), "M") != filter.end()) {
    modules.patterns.clear();  // every module
  }
  modules.directory = options.modules_dir;
  modules.runs = options.runs;
  modules.budget_seconds = options.module_budget;
  modules.profile_rows = options.profile ? 20 : 0;
  modules.opt_level = options.opt_level;
  return BenchModules(modules, report.json);
}

// X across processes: 2 processes, from collective_bytes / 256 (rounded
// down to f32) up to collective_bytes by factors of 4.
#ifdef MXLA_HAVE_GLOO
GlooBenchFlags GlooFlagsOf(const BenchOptions& options) {
  GlooBenchFlags flags;
  flags.repeat = options.runs;
  flags.max_bytes = options.collective_bytes;
  flags.min_bytes = options.gloo_min_bytes > 0
                        ? options.gloo_min_bytes
                        : std::max<int64_t>(4, flags.max_bytes / 256 / 4 * 4);
  flags.rank = options.gloo_rank;
  flags.directory = options.gloo_directory;
  return flags;
}

// The OSU-style comparison, in copies of this binary (`mxla bench
// --gloo-rank d ...`); device 0 prints its table.
absl::Status BenchAcrossProcesses(const BenchOptions& options) {
  const GlooBenchFlags flags = GlooFlagsOf(options);
  std::cout << "\nall-reduce across " << flags.processes
            << " processes (gloo over loopback TCP), OSU-style:\n"
            << std::flush;  // before the copies write to the same stdout
  return LaunchGlooAllReduceBench(
      flags, "/proc/self/exe", [&](int64_t rank, const std::string& directory) {
        return std::vector<std::string>{
            "bench", "--runs", absl::StrCat(flags.repeat),
            "--collective-bytes", absl::StrCat(flags.max_bytes),
            "--gloo-min-bytes", absl::StrCat(flags.min_bytes),
            "--gloo-rank", absl::StrCat(rank),
            "--gloo-directory", directory};
      });
}
#else
absl::Status BenchAcrossProcesses(const BenchOptions&) {
  std::cout << "\nall-reduce across processes: not measured, this mxla was "
               "built without gloo (Debian: libgloo-dev)\n";
  return absl::OkStatus();
}
#endif

// X: the in-process all-reduce against memcpy, then across processes.
absl::Status BenchCollectives(const BenchOptions& options, Report& report) {
  CollectiveBenchOptions in_process;
  in_process.bytes = options.collective_bytes;
  in_process.runs = options.runs;
  in_process.before_each = FlushCache;
  RETURN_IF_ERROR(BenchInProcessAllReduce(in_process, report.json));
  return BenchAcrossProcesses(options);
}

// --json: the report's records as one JSON array.
absl::Status WriteJson(const std::string& path, const Report& report) {
  std::ofstream out(path);
  out << "[\n  " << absl::StrJoin(report.json, ",\n  ") << "\n]\n";
  if (!out) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

absl::Status RunBench(const BenchOptions& options) {
  if (options.runs < 1) return absl::InvalidArgumentError("--runs must be >= 1");
  if (options.streaming_min_bytes.value_or(0) < 0) {
    return absl::InvalidArgumentError("--streaming-min-bytes must be >= 0");
  }
  ASSIGN_OR_RETURN(std::vector<std::string> filter, ParseFilter(options.filter));
  // Only M and M:TEXT name module benchmarks: alone, they run nothing else.
  const bool only_modules =
      !filter.empty() &&
      std::all_of(filter.begin(), filter.end(), [](const std::string& id) {
        return id == "M" || absl::StartsWith(id, "M:");
      });
  auto selected = [&](const std::string& id) {
    if (only_modules) return false;
    return filter.empty() ||
           std::find(filter.begin(), filter.end(), id) != filter.end();
  };
  Report report;
  RETURN_IF_ERROR(BenchWorkloads(options, selected, report));
  if (selected("W7")) {
    bench::Workload w = bench::MakeBiasAdd(8, 8);
    w.id = "W7";
    w.name = "small_dispatch";
    RETURN_IF_ERROR(BenchDispatch(w, "8x8 + 8", report));
  }
  if (selected("G4")) {
    RETURN_IF_ERROR(BenchDispatch(bench::MakeSmallDot(), "[8,8] @ [8,8]",
                                  report));
  }
  RETURN_IF_ERROR(BenchNamedModules(options, filter, report));
  // Seconds of LLVM at 100,000 instructions: only when asked for.
  if (std::find(filter.begin(), filter.end(), "S") != filter.end()) {
    CodegenOptions codegen;
    codegen.optimization_level = options.opt_level;
    RETURN_IF_ERROR(BenchScaling(codegen, report));
  }
  if (std::find(filter.begin(), filter.end(), "X") != filter.end()) {
    RETURN_IF_ERROR(BenchCollectives(options, report));
  }
  if (!options.json.empty()) RETURN_IF_ERROR(WriteJson(options.json, report));
  return absl::OkStatus();
}

// `mxla bench`, or one of its child processes (--cache-probe,
// --module-probe); --threads counts when given.
absl::Status RunBenchCommand(BenchOptions& options, bool threads_given) {
  if (options.cache_probe_layers.has_value()) {
    return RunCacheProbe(*options.cache_probe_layers, options.cache_dir);
  }
  if (!options.module_probe.empty()) {
    ModuleBenchOptions probe;
    probe.runs = options.runs;
    probe.budget_seconds = options.module_budget;
    probe.profile_rows = options.profile_rows;
    probe.opt_level = options.opt_level;
    return ProbeModule(options.module_probe, probe);
  }
#ifdef MXLA_HAVE_GLOO
  if (options.gloo_rank >= 0) {
    const int exit_code = RunGlooAllReduceDevice(GlooFlagsOf(options));
    if (exit_code == 0) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("all-reduce device ", options.gloo_rank, " failed"));
  }
#endif
  if (threads_given) options.threads = options.threads_flag;
  RETURN_IF_ERROR(CheckBenchThreads(options));
  return RunBench(options);
}

// The flags `mxla bench` passes to copies of itself, hidden from --help.
void AddChildProcessOptions(CLI::App& bench, BenchOptions& options) {
  // The child process of S's persistent-cache measurement.
  bench.add_option("--cache-probe", options.cache_probe_layers)->group("");
  bench.add_option("--cache-dir", options.cache_dir)->group("");
  // The child process of one M module.
  bench.add_option("--module-probe", options.module_probe)->group("");
  bench.add_option("--profile-rows", options.profile_rows)->group("");
  // A device's copy of X's all-reduce across processes.
  bench.add_option("--gloo-rank", options.gloo_rank)->group("");
  bench.add_option("--gloo-directory", options.gloo_directory)->group("");
  bench.add_option("--gloo-min-bytes", options.gloo_min_bytes)->group("");
}

}  // namespace

CommandRunner RegisterBenchCommand(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Time the performance workloads against hand-written loops and the "
      "machine's memory bandwidth");
  CLI::Option* threads = bench->add_option(
      "--threads", options->threads_flag,
      "Threads for the JIT and the reference loops, 1 to 1024 (default: "
      "MXLA_THREADS, else all hardware threads)");
  bench->add_option("--filter", options->filter,
                    "Comma-separated workload ids: W1..W10, G1 to G3 (GFLOP/s, shown as 'flop'), G4 (an 8x8 dot's per-call time), and S for "
                    "compile-time scaling (chains up to 100,000 "
                    "instructions, 16,384 constants, 16,384 broadcasts; "
                    "only run when named); M for XLA's CPU benchmark "
                    "modules of ../shared/real-hlo (compile ms, run ms, "
                    "GFLOP/s, GB/s, share of the machine's limit; only run "
                    "when named), M:TEXT for those whose name contains TEXT; "
                    "X for the all-reduce of --collective-bytes across 2 "
                    "devices: in-process (communicator alone and a compiled "
                    "module through RunReplicated) against memcpy at 1 and "
                    "2 threads, and, when built with gloo, across 2 "
                    "processes against gloo's own all-reduce (only run when "
                    "named)");
  bench->add_option("--collective-bytes", options->collective_bytes,
                    "X: bytes of the all-reduced f32 buffer, a multiple of 8 "
                    "(across processes: the largest of 5 sizes, each 4x the "
                    "last)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench->add_option("--modules-dir", options->modules_dir,
                    "M: the real-HLO directory (SOURCES.md and modules/; "
                    "default: the first shared/real-hlo beside the working "
                    "directory or the mxla binary or a parent of theirs)");
  bench->add_option("--module-budget", options->module_budget,
                    "M: seconds per module for its compile, arguments and "
                    "runs; a module still running then is stopped")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench->add_option("--runs", options->runs, "Timed runs per measurement")
      ->capture_default_str();
  bench->add_option("--json", options->json, "Also write the results here");
  bench->add_option("--opt-level", options->opt_level,
                    "LLVM optimization level of every compile, 0 to 3")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  bench->add_option("--streaming-min-bytes", options->streaming_min_bytes,
                    "Compile the workloads with streaming stores from this "
                    "many result bytes on (0: none; default 8 MiB)");
  AddChildProcessOptions(*bench, *options);
  bench->add_flag("--profile", options->profile,
                  "M: below each module's line, the profile of its first run "
                  "(mxla run --profile's table, its 20 slowest rows)");
  return [options, threads] {
    absl::Status status = RunBenchCommand(*options, threads->count() > 0);
    return status.ok() ? 0 : ReportError(std::string(status.message()));
  };
}

}  // namespace mxla::tools
