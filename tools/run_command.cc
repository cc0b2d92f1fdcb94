// `mxla run FILE.hlo [--input I=PATH.npy ...] [--output PATH.npy|.npz|DIR/]
//  [--backend=jit|interpreter] [--compare] [--passes=...] [--profile]`: parse, verify,
// compile, run on .npy inputs, print the result (HLO literal syntax) or write
// it as .npy (an array), .npz or a directory of .npy (one per tuple leaf). --compare also runs the interpreter and fails when the two
// differ by more than the tolerance.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "driver/compile.h"
#include "hlo_text/hlo_parser.h"
#include "ir/host_feed.h"
#include "ir/shape_summary.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"
#include "runtime/jit_executable.h"
#include "runtime/npy.h"
#include "runtime/npz.h"
#include "semantics/scalar_semantics.h"
#include "tools/commands.h"
#include "tools/compare_results.h"
#include "tools/file_util.h"
#include "tools/run_devices.h"
#include "tools/run_inputs.h"
#include "tools/run_local_copies.h"
#include "tools/run_processes.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

struct RunOptions {
  std::string input;
  std::vector<std::string> bindings;  // "I=PATH"
  std::vector<std::string> infeeds;   // PATH.npy, in order
  std::string output;
  std::string backend = "jit";
  bool compare = false;
  double tolerance = 1e-5;
  std::optional<std::string> passes;
  std::string dump_dir;
  std::string cache_dir;
  std::optional<int> repeat;  // runs to time (prints compile and run times)
  bool print_full = false;    // every element, not NumPy's summary
  bool profile = false;       // print one run's kernel profile to stderr
  bool donate = false;        // honour input_output_alias (--donate)
  std::optional<int64_t> replicas;    // --replicas: else the module's
  std::optional<int64_t> partitions;  // --partitions: else the module's
  ProcessFlags process;               // --processes and its company
};


// A timed sample lasts at least this long: shorter calls are timed in
// batches, since a clock read costs tens of nanoseconds.
constexpr double kMinSampleSeconds = 100e-6;
constexpr int64_t kMaxBatch = int64_t{1} << 24;

// What --repeat measured: per-call seconds of each sample, sorted, and the
// calls per sample.
struct RunTimes {
  std::vector<double> per_call;
  int64_t batch = 1;
};

// Runs `run` for `samples` timed samples: single calls while they take
// kMinSampleSeconds (so a long module runs no more often than asked), and
// from the first shorter call on (if `batchable`; not for --infeed runs),
// batches of calls that take that long, the batch found by doubling.
absl::StatusOr<RunTimes> TimeRuns(const std::function<absl::Status()>& run,
                                  int samples, bool batchable) {
  auto time_calls = [&](int64_t calls) -> absl::StatusOr<double> {
    const Clock::time_point start = Clock::now();
    for (int64_t i = 0; i < calls; ++i) RETURN_IF_ERROR(run());
    return SecondsSince(start);
  };
  RunTimes times;
  ASSIGN_OR_RETURN(double elapsed, time_calls(1));
  while (elapsed >= kMinSampleSeconds || !batchable) {
    times.per_call.push_back(elapsed);
    if (static_cast<int>(times.per_call.size()) == samples) break;
    ASSIGN_OR_RETURN(elapsed, time_calls(1));
  }
  if (static_cast<int>(times.per_call.size()) < samples) {
    // Single calls are too short to time: the samples so far (a cold
    // first call, say) are dropped, and batches timed from here.
    times.per_call.clear();
    while (elapsed < kMinSampleSeconds && times.batch < kMaxBatch) {
      times.batch *= 2;
      ASSIGN_OR_RETURN(elapsed, time_calls(times.batch));
    }
    times.per_call.push_back(elapsed / static_cast<double>(times.batch));
    while (static_cast<int>(times.per_call.size()) < samples) {
      ASSIGN_OR_RETURN(elapsed, time_calls(times.batch));
      times.per_call.push_back(elapsed / static_cast<double>(times.batch));
    }
  }
  std::sort(times.per_call.begin(), times.per_call.end());
  return times;
}

// The buffers of a donating run (--donate): every argument leaf's, and
// every result leaf's, where an aliased result leaf's is its argument's.
struct DonatedBuffers {
  std::vector<const void*> arguments;
  std::vector<int64_t> argument_sizes;
  std::vector<void*> results;
  std::vector<int64_t> result_sizes;
  std::vector<std::pair<Literal*, const Literal*>> aliased;  // result, arg
};

absl::StatusOr<DonatedBuffers> DonateArguments(const HloModule& module,
                                               std::vector<Literal>& inputs,
                                               Literal& result) {
  ASSIGN_OR_RETURN(std::vector<AliasedLeaf> aliases,
                   ResolveInputOutputAliases(module));
  std::vector<Literal*> argument_leaves, result_leaves;
  for (Literal& input : inputs) CollectArrayLeaves(input, argument_leaves);
  CollectArrayLeaves(result, result_leaves);
  DonatedBuffers buffers;
  for (Literal* leaf : argument_leaves) {
    buffers.arguments.push_back(leaf->untyped_data());
    buffers.argument_sizes.push_back(leaf->size_bytes());
  }
  for (Literal* leaf : result_leaves) {
    buffers.results.push_back(leaf->untyped_data());
    buffers.result_sizes.push_back(leaf->size_bytes());
  }
  for (const AliasedLeaf& alias : aliases) {
    buffers.results[alias.result_leaf] =
        argument_leaves[alias.argument_leaf]->untyped_data();
    buffers.aliased.emplace_back(result_leaves[alias.result_leaf],
                                 argument_leaves[alias.argument_leaf]);
  }
  return buffers;
}

// Prints the compile time and the runs' per-call median and minimum to
// stderr.
void ReportTimes(const Executable& executable, Backend backend,
                 double compile_seconds, const RunTimes& times) {
  // A program the persistent compile cache loaded has that one stage.
  const auto* jit = dynamic_cast<const JitExecutable*>(&executable);
  const bool loaded =
      jit != nullptr && jit->program()->report.Milliseconds("load-cached") > 0;
  const size_t samples = times.per_call.size();
  std::cerr << absl::StrFormat(
      "%s: compile %s%s, run median %s (min %s)%s\n", BackendName(backend),
      FormatDuration(compile_seconds),
      loaded ? " (loaded from the compile cache)" : "",
      FormatDuration(times.per_call[samples / 2]),
      FormatDuration(times.per_call.front()),
      times.batch == 1
          ? absl::StrFormat(" over %d run%s", samples, samples == 1 ? "" : "s")
          : absl::StrFormat(" per call, over %d sample%s of %d calls", samples,
                            samples == 1 ? "" : "s", times.batch));
}

// Compiles `module` and runs it on `inputs`, returning the (last) result
// and leaving the last run's outfeeds in `feed`. With `repeat`, times the
// runs (TimeRuns: `repeat` samples) and prints the compile time and the
// per-call median and minimum to stderr. With `donate`, each run donates
// the aliased inputs (input_output_alias) as XLA does: their buffers are
// their results', written in place, so each run starts from the previous
// one's results; the aliased results are copied out once, at the end.
absl::StatusOr<Literal> CompileAndRun(const HloModule& module,
                                      const CompileOptions& options,
                                      std::vector<Literal>& inputs,
                                      FileHostFeed& feed,
                                      std::optional<int> repeat = std::nullopt,
                                      bool profile = false,
                                      bool donate = false) {
  const Clock::time_point compile_start = Clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   Compile(module, options));
  const double compile_seconds = SecondsSince(compile_start);
  std::vector<const Literal*> arguments;
  for (const Literal& input : inputs) arguments.push_back(&input);
  Literal result;
  std::optional<DonatedBuffers> donated;
  if (donate) {
    ASSIGN_OR_RETURN(result,
                     Literal::CreateForOverwrite(
                         module.entry_computation()->root_instruction()->shape()));
    ASSIGN_OR_RETURN(donated, DonateArguments(module, inputs, result));
  }
  ::mxla::RunOptions run_options;
  run_options.host_feed = &feed;
  auto run = [&]() -> absl::Status {
    feed.ClearOutfeeds();
    if (donated.has_value()) {
      return executable->RunBuffers(donated->arguments,
                                    donated->argument_sizes, donated->results,
                                    donated->result_sizes, run_options);
    }
    ASSIGN_OR_RETURN(result, executable->Run(arguments, run_options));
    return absl::OkStatus();
  };
  auto finish = [&]() -> Literal {
    if (donated.has_value()) {
      for (auto [to, from] : donated->aliased) {
        std::memcpy(to->untyped_data(), from->untyped_data(),
                    from->size_bytes());
      }
    }
    return std::move(result);
  };
  if (!repeat.has_value()) {
    run_options.profile = profile;
    RETURN_IF_ERROR(run());
    return finish();
  }
  // Each run reads the next --infeed values: those runs are not batched.
  ASSIGN_OR_RETURN(RunTimes times,
                   TimeRuns(run, *repeat, !feed.has_infeed_files()));
  ReportTimes(*executable, options.backend, compile_seconds, times);
  if (profile) {
    // One more run, warm, profiled.
    run_options.profile = true;
    RETURN_IF_ERROR(run());
  }
  return finish();
}

// The compile options the run's flags ask for.
absl::StatusOr<CompileOptions> CompileOptionsOf(const RunOptions& options) {
  CompileOptions compile_options;
  ASSIGN_OR_RETURN(compile_options.backend, ParseBackend(options.backend));
  if (options.passes.has_value()) {
    compile_options.passes =
        absl::StrSplit(*options.passes, ',', absl::SkipEmpty());
  }
  compile_options.pipeline.dump_dir = options.dump_dir;
  compile_options.cache_dir = options.cache_dir;
  compile_options.replicas = options.replicas;
  compile_options.partitions = options.partitions;
  return compile_options;
}

// A run on several devices (or with inputs that name one): the flags that
// assume one run of one device are refused by name.
absl::Status RunReplicatedFlags(const HloModule& module,
                                CompileOptions compile_options,
                                const RunOptions& options) {
  ASSIGN_OR_RETURN(const auto counts, DeviceCounts(module, compile_options));
  compile_options.replicas = counts.first;
  compile_options.partitions = counts.second;
  const std::pair<bool, const char*> refused[] = {
      {options.repeat.has_value(), "--repeat"},
      {options.profile, "--profile"},
      {options.donate, "--donate"},
      {!options.infeeds.empty(), "--infeed"}};
  for (const auto& [given, flag] : refused) {
    if (given) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " runs one device; this run has ", counts.first,
          " replicas x ", counts.second, " partitions"));
    }
  }
  const DeviceRunFlags flags{options.bindings, options.output,
                             options.compare, options.tolerance,
                             options.print_full};
  ASSIGN_OR_RETURN(const ProcessFlags process,
                   WithLauncherEnvironment(options.process));
  RETURN_IF_ERROR(CheckProcessFlags(process, counts.first * counts.second,
                                    options.compare));
  if (process.local_processes.has_value()) {
    return RunLocalCopies(*process.local_processes);
  }
  if (process.any()) {
    return RunProcessShare(module, compile_options, flags, process);
  }
  return RunOnDevices(module, compile_options, flags);
}

// --repeat with the flags that make repeated runs differ: --infeed, and
// --donate with --compare.
absl::Status CheckRepeat(const RunOptions& options) {
  const bool repeats = options.repeat.has_value() && *options.repeat > 1;
  if (repeats && !options.infeeds.empty()) {
    return absl::InvalidArgumentError(
        "--repeat: a module given --infeed values runs once (each run would "
        "read the next values): drop --repeat, or time it without --infeed");
  }
  if (options.donate && options.compare && repeats) {
    return absl::InvalidArgumentError(
        "--donate with --repeat: each run starts from the previous run's "
        "results, which --compare's single run of the other backend does "
        "not: drop --compare or --repeat");
  }
  return absl::OkStatus();
}

// --compare: runs `module` on the other backend and fails when its result
// differs from `result` by more than the tolerance.
absl::Status CompareWithOtherBackend(const HloModule& module,
                                     CompileOptions compile_options,
                                     std::vector<Literal>& inputs,
                                     const RunOptions& options,
                                     const Literal& result) {
  compile_options.backend = compile_options.backend == Backend::kJit
                                ? Backend::kInterpreter
                                : Backend::kJit;
  compile_options.pipeline.dump_dir.clear();
  FileHostFeed other_feed(options.infeeds);
  ASSIGN_OR_RETURN(Literal other,
                   CompileAndRun(module, compile_options, inputs, other_feed));
  std::cerr << "compare: largest difference between jit and interpreter: "
            << LargestDifference(result, other) << "\n";
  return CompareResults(result, other, options.tolerance);
}

absl::Status Run(const RunOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ReadHloModule(options.input);
  if (!module.ok()) return module.status();
  ASSIGN_OR_RETURN(const CompileOptions compile_options,
                   CompileOptionsOf(options));
  ASSIGN_OR_RETURN(const auto counts, DeviceCounts(**module, compile_options));
  if (counts.first * counts.second > 1 || options.process.any() ||
      std::any_of(options.bindings.begin(), options.bindings.end(),
                  NamesDevice)) {
    return RunReplicatedFlags(**module, compile_options, options);
  }
  ASSIGN_OR_RETURN(
      std::vector<Literal> inputs,
      LoadInputs(*(*module)->entry_computation(), options.bindings));
  RETURN_IF_ERROR(CheckRepeat(options));
  // --compare's run starts from the inputs a donating run overwrites.
  std::vector<Literal> compare_inputs;
  if (options.donate && options.compare) {
    for (const Literal& input : inputs) compare_inputs.push_back(Literal(input));
  }
  FileHostFeed feed(options.infeeds);
  ASSIGN_OR_RETURN(Literal result,
                   CompileAndRun(**module, compile_options, inputs, feed,
                                 options.repeat, options.profile,
                                 options.donate));
  for (size_t i = 0; i < feed.written().size(); ++i) {
    std::cout << "outfeed " << i << ": " << feed.written()[i].ToString()
              << "\n";
  }
  if (options.compare) {
    RETURN_IF_ERROR(CompareWithOtherBackend(
        **module, compile_options, options.donate ? compare_inputs : inputs,
        options, result));
  }
  if (options.output.empty()) {
    std::cout << (options.print_full ? result.ToFullString()
                                     : result.ToString())
              << "\n";
    return absl::OkStatus();
  }
  return WriteResult(options.output, result);
}

}  // namespace

CommandRunner RegisterRunCommand(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "Compile an HLO text file and run it on .npy inputs");
  run->add_option("file", options->input, "HLO text file ('-' for stdin)")
      ->required();
  run->add_option("--input,-i", options->bindings,
                  "I=PATH.npy: the value of parameter I (a number or a "
                  "parameter name); one per parameter, and for a tuple "
                  "parameter one per array element, as I.J (I.J.K for "
                  "nested tuples). I=PATH.npz:NAME reads array NAME of an "
                  ".npz. On several devices (--replicas, --partitions) "
                  "D:I=PATH is device D's own input");
  run->add_option("--infeed", options->infeeds,
                  "PATH.npy or PATH.npz:NAME: the value of the next infeed (repeat, in the "
                  "order the infeeds run); outfeed values are printed as "
                  "'outfeed N: ...'");
  run->add_option("--output,-o", options->output,
                  "Write the result instead of printing it: PATH.npy (an "
                  "array), PATH.npz (one array per tuple element, named by "
                  "index path: 0, 1.0, ...) or DIR/ (one .npy per element)");
  run->add_option("--backend", options->backend,
                  "Backend: jit (LLVM, the default) or interpreter (the "
                  "reference evaluator)")
      ->capture_default_str();
  run->add_flag("--compare", options->compare,
                "Also run the other backend; print the largest difference "
                "and fail when it exceeds --tolerance");
  run->add_option("--tolerance", options->tolerance,
                  "Absolute and relative tolerance of --compare")
      ->capture_default_str();
  run->add_option("--passes", options->passes,
                  "Comma-separated passes instead of the default pipeline");
  run->add_flag("--print-full", options->print_full,
                "Print every element of the result (by default an array of "
                "more than 1000 elements is summarized as NumPy does)");
  run->add_option("--repeat", options->repeat,
                  "Time N runs (1 to 100000) and print the compile time and "
                  "the median and minimum run time to stderr; calls under "
                  "100 us are timed in batches that take 100 us, and the "
                  "times are per call")
      ->check(CLI::Range(1, 100000));
  run->add_flag("--profile", options->profile,
                "Print to stderr where the run's time goes: each kernel's "
                "time, share, calls, GFLOP/s, GB/s and share of the machine's "
                "limit (measured once; MXLA_MACHINE_LIMITS=GFLOPS,GBPS sets "
                "it), slowest first, with the HLO instructions it holds; "
                "with --repeat, of one more run after the timed ones");
  run->add_flag("--donate", options->donate,
                "Honour the module's input_output_alias as XLA does: each "
                "aliased parameter's buffer is donated and the run writes its "
                "result there in place (no copy in or out); with --repeat "
                "each run starts from the previous run's results. Without "
                "it, aliased parameters are copied into their results first "
                "(as Executable::Run does)");
  run->add_option("--dump-dir", options->dump_dir,
                  "Write the module after every pass that changes it, "
                  "passes.txt (per-pass timings), and for the jit fused.hlo, "
                  "llvm.ll, llvm-opt.ll and kernels.s into this directory "
                  "(library users: MXLA_DUMP_DIR)");
  run->add_option("--replicas", options->replicas,
                  "Run on this many replicas (default: the module's "
                  "replica_count); with --partitions, one device per "
                  "replica x partition, all at once in this process (or "
                  "spread over processes: --processes). "
                  "--input D:I=PATH gives device D its own input")
      ->check(CLI::Range(1, 4096));
  run->add_option("--partitions", options->partitions,
                  "Run on this many partitions (default: the module's "
                  "num_partitions)")
      ->check(CLI::Range(1, 4096));
  AddProcessFlags(*run, options->process);
  run->add_option("--cache-dir", options->cache_dir,
                  "Persistent compile cache: load the compiled program from "
                  "this directory, or store it there for the next run "
                  "(library users: CompileOptions::cache_dir, "
                  "MXLA_CACHE_DIR)");
  return [options] {
    absl::Status status = Run(*options);
    return status.ok() ? 0 : ReportError(std::string(status.message()));
  };
}

}  // namespace mxla::tools
