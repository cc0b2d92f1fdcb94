#include "tools/bench_modules.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "driver/compile.h"
#include "ir/hlo_computation.h"
#include "ir/memory_budget.h"
#include "ir/status_macros.h"
#include "runtime/jit_executable.h"
#include "runtime/machine_limits.h"
#include "runtime/profile.h"
#include "runtime/thread_pool.h"
#include "tools/corpus_arguments.h"
#include "tools/corpus_stats.h"
#include "tools/file_util.h"

namespace mxla::tools {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool Matches(const std::string& name, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const std::string& pattern : patterns) {
    if (absl::StrContains(name, pattern)) return true;
  }
  return false;
}

// Bytes of memory the kernel says are available (MemAvailable), or -1.
int64_t AvailableMemoryBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

std::string Gigabytes(int64_t bytes) {
  return absl::StrFormat("%.2f GB", bytes / 1e9);
}

// One line of the child's protocol on stdout.
void Say(const std::string& line) { std::cout << line << "\n" << std::flush; }

// What the child said about one module.
struct Probe {
  std::string status = "error";  // ok, skipped, error, stopped
  std::string reason;
  double compile_ms = -1;
  std::vector<double> run_ms;  // the first run profiled
  double flops = 0, bytes = 0;
  std::vector<std::string> table;  // the first run's profile
  bool filled = false;               // its arguments are made
  int opt_level = -1;                // the LLVM level it compiled at
};

void ReadProbeLine(const std::string& line, Probe& probe) {
  std::vector<std::string> words =
      absl::StrSplit(line, absl::MaxSplits(' ', 1));
  const std::string rest = words.size() > 1 ? words[1] : "";
  double value = 0;
  if (words[0] == "compiled" && absl::SimpleAtod(rest, &value)) {
    probe.compile_ms = value;
  } else if (words[0] == "ran" && absl::SimpleAtod(rest, &value)) {
    probe.run_ms.push_back(value);
  } else if (words[0] == "counted") {
    std::vector<std::string> numbers = absl::StrSplit(rest, ' ');
    if (numbers.size() == 2) {
      (void)absl::SimpleAtod(numbers[0], &probe.flops);
      (void)absl::SimpleAtod(numbers[1], &probe.bytes);
    }
  } else if (words[0] == "level") {
    (void)absl::SimpleAtoi(rest, &probe.opt_level);
  } else if (words[0] == "filled") {
    probe.filled = true;
  } else if (words[0] == "table") {
    probe.table.push_back(rest);
  } else if (words[0] == "skip") {
    probe.status = "skipped";
    probe.reason = rest;
  } else if (words[0] == "error") {
    probe.status = "error";
    probe.reason = rest;
  } else if (words[0] == "done") {
    probe.status = "ok";
  }
}

// Starts this binary's `bench --module-probe` on `path`, its standard
// output into a pipe whose read end goes to `read_fd`. Returns the child's
// pid, or -1 (and no pipe) when it cannot start.
pid_t StartProbe(const std::string& path, const ModuleBenchOptions& options,
                 int& read_fd) {
  std::error_code error;
  const std::string self = fs::read_symlink("/proc/self/exe", error).string();
  int pipe_fds[2];
  if (error || pipe(pipe_fds) != 0) return -1;
  const std::string runs_text = std::to_string(options.runs);
  const std::string budget_text = absl::StrCat(options.budget_seconds);
  const std::string rows_text = absl::StrCat(options.profile_rows);
  const std::string level_text = absl::StrCat(options.opt_level);
  const pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    const char* argv[] = {self.c_str(), "bench", "--module-probe",
                          path.c_str(), "--runs", runs_text.c_str(),
                          "--module-budget", budget_text.c_str(),
                          "--profile-rows", rows_text.c_str(),
                          "--opt-level", level_text.c_str(), nullptr};
    execv(self.c_str(), const_cast<char* const*>(argv));
    _exit(127);
  }
  close(pipe_fds[1]);
  if (child < 0) {
    close(pipe_fds[0]);
    return -1;
  }
  read_fd = pipe_fds[0];
  return child;
}

// Reads the probe's lines from `fd` into `probe` until the child closes
// it or `deadline_seconds` pass. Returns whether the deadline stopped it.
bool ReadProbeLines(int fd, double deadline_seconds, Probe& probe) {
  const Clock::time_point start = Clock::now();
  std::string pending;
  while (true) {
    const double left = deadline_seconds - SecondsSince(start);
    if (left <= 0) return true;
    pollfd poll_fd{fd, POLLIN, 0};
    const int ready = poll(&poll_fd, 1, static_cast<int>(left * 1000) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got <= 0) return false;  // the child closed its end
    pending.append(buffer, got);
    size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      ReadProbeLine(pending.substr(0, newline), probe);
      pending.erase(0, newline + 1);
    }
  }
}

// Why a probe that did not end well ended: stopped over its budget (at
// which step), killed by a signal, or an error exit that said nothing.
void ExplainEnd(bool stopped, int wait_status, double budget_seconds,
                Probe& probe) {
  if (stopped) {
    probe.status = "stopped";
    probe.reason = absl::StrFormat(
        "over its %.0f s budget %s", budget_seconds,
        probe.compile_ms < 0   ? "while compiling"
        : !probe.filled        ? "while making its arguments"
        : probe.run_ms.empty() ? "before its first run ended"
                               : "");
  } else if (WIFSIGNALED(wait_status)) {
    probe.status = "error";
    probe.reason = absl::StrCat("the child process died of signal ",
                                WTERMSIG(wait_status), " (",
                                strsignal(WTERMSIG(wait_status)), ")");
  } else if (probe.status == "error" && probe.reason.empty()) {
    probe.reason = absl::StrCat("the child process exited with status ",
                                WEXITSTATUS(wait_status));
  }
}

// Runs this binary's `bench --module-probe` on `path`, reading its lines
// until it ends or its deadline passes (then it is killed).
Probe RunProbe(const std::string& path, const ModuleBenchOptions& options) {
  Probe probe;
  int read_fd = -1;
  const pid_t child = StartProbe(path, options, read_fd);
  if (child < 0) {
    probe.reason = "cannot start a child process";
    return probe;
  }
  // The child keeps to the budget between runs; a compile or a run that
  // alone takes longer is stopped a little after it.
  const bool stopped =
      ReadProbeLines(read_fd, options.budget_seconds + 5, probe);
  close(read_fd);
  if (stopped) kill(child, SIGKILL);
  int wait_status = 0;
  waitpid(child, &wait_status, 0);
  ExplainEnd(stopped, wait_status, options.budget_seconds, probe);
  return probe;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

absl::StatusOr<std::vector<BenchmarkModule>> FindBenchmarkModules(
    const std::string& directory, const std::vector<std::string>& patterns) {
  const std::string sources = (fs::path(directory) / "SOURCES.md").string();
  std::ifstream in(sources);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot read ", sources,
        ": a real-HLO directory holds SOURCES.md and modules/"));
  }
  std::vector<BenchmarkModule> modules;
  std::string line;
  while (std::getline(in, line)) {
    // | module | repository | path | commit |
    std::vector<std::string> cells = absl::StrSplit(line, '|');
    if (cells.size() < 5) continue;
    for (std::string& cell : cells) {
      cell = std::string(absl::StripAsciiWhitespace(cell));
    }
    const std::string& file = cells[1];
    const std::string& origin = cells[3];
    if (!absl::EndsWith(file, ".hlo") ||
        !absl::StrContains(origin, kBenchmarkOrigin)) {
      continue;
    }
    BenchmarkModule module{std::string(absl::StripSuffix(file, ".hlo")),
                           (fs::path(directory) / "modules" / file).string(),
                           origin};
    if (Matches(module.name, patterns)) modules.push_back(std::move(module));
  }
  if (modules.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        sources, " lists no module from ", kBenchmarkOrigin,
        patterns.empty() ? ""
                         : absl::StrCat(" whose name contains '",
                                        absl::StrJoin(patterns, "' or '"),
                                        "'")));
  }
  return modules;
}

absl::StatusOr<std::string> FindRealHloDirectory(const std::string& given) {
  if (!given.empty()) return given;
  std::error_code error;
  std::vector<fs::path> starts = {fs::current_path(error)};
  starts.push_back(fs::read_symlink("/proc/self/exe", error).parent_path());
  for (fs::path start : starts) {
    for (fs::path at = start; !at.empty(); at = at.parent_path()) {
      const fs::path candidate = at / "shared" / "real-hlo";
      if (fs::exists(candidate / "SOURCES.md", error)) return candidate.string();
      if (at == at.parent_path()) break;
    }
  }
  return absl::NotFoundError(
      "no shared/real-hlo beside the working directory or the mxla binary "
      "or their parents: name the directory with --modules-dir");
}

// Why `executable` is not run: its arguments, result and temporaries do
// not fit the memory available. Empty when they fit.
std::string MemoryShortfall(const Executable& executable) {
  const HloComputation& entry = *executable.module().entry_computation();
  int64_t argument_bytes = 0;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    argument_bytes += TotalArrayBytes(parameter->shape());
  }
  int64_t run_bytes = TotalArrayBytes(entry.root_instruction()->shape());
  if (const auto* jit = dynamic_cast<const JitExecutable*>(&executable)) {
    run_bytes += jit->buffers().arena_bytes;
  }
  const int64_t available = AvailableMemoryBytes();
  if (available < 0 || argument_bytes + run_bytes <= available * 9 / 10) {
    return "";
  }
  return absl::StrCat("its arguments (", Gigabytes(argument_bytes),
                      ") and result and temporaries (", Gigabytes(run_bytes),
                      ") do not fit the ", Gigabytes(available),
                      " of memory available");
}

// The entry's arguments, filled deterministically in parameter-number
// order (which need not be the text's).
std::vector<Literal> DeterministicArguments(const HloComputation& entry) {
  std::vector<Literal> arguments;
  uint64_t state = 1;
  for (int64_t number = 0; number < entry.num_parameters(); ++number) {
    arguments.emplace_back(entry.parameter_instruction(number)->shape());
    FillDeterministic(arguments.back(), state);
  }
  return arguments;
}

// Says the FLOPs and bytes the profiled run counted, and the first
// `profile_rows` rows of its table.
void SayProfile(const RunProfile& profile, int64_t profile_rows) {
  double flops = 0, bytes = 0;
  for (const RunProfile::Row& row : profile.Rows()) {
    flops += row.flops * row.calls;
    bytes += row.bytes * row.calls;
  }
  Say(absl::StrCat("counted ", flops, " ", bytes));
  if (profile_rows <= 0) return;
  ThreadPool& pool = ThreadPool::Default();
  const std::string table =
      profile.Format(MachineLimitsFor(pool, pool.threads()), profile_rows);
  for (absl::string_view line :
       absl::StrSplit(table, '\n', absl::SkipEmpty())) {
    Say(absl::StrCat("table ", line));
  }
}

absl::Status ProbeModule(const std::string& path,
                         const ModuleBenchOptions& options) {
  const Clock::time_point start = Clock::now();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ReadHloModule(path);
  if (!module.ok()) {
    Say(absl::StrCat("error ", module.status().message()));
    return absl::OkStatus();
  }
  const Clock::time_point compile_start = Clock::now();
  CompileOptions compile;
  compile.codegen.optimization_level = options.opt_level;
  absl::StatusOr<std::unique_ptr<Executable>> compiled =
      Compile(**module, compile);
  if (IsOverMemoryBudget(compiled.status())) {
    Say(absl::StrCat("skip ", compiled.status().message()));
    return absl::OkStatus();
  }
  if (!compiled.ok()) {
    Say(absl::StrCat("error ", compiled.status().message()));
    return absl::OkStatus();
  }
  Say(absl::StrCat("compiled ", SecondsSince(compile_start) * 1e3));
  Say(absl::StrCat("level ", compile.codegen.optimization_level));
  const Executable& executable = **compiled;
  if (const std::string shortfall = MemoryShortfall(executable);
      !shortfall.empty()) {
    Say(absl::StrCat("skip ", shortfall));
    return absl::OkStatus();
  }
  const std::vector<Literal> arguments =
      DeterministicArguments(*executable.module().entry_computation());
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments) pointers.push_back(&argument);
  Say("filled");
  // The first run is profiled: it counts the FLOPs and bytes (loops
  // included) and warms the memory.
  RunProfile profile;
  RunOptions run_options;
  run_options.profile = true;
  run_options.profile_sink = &profile;
  for (int run = 0; run <= options.runs; ++run) {
    const Clock::time_point run_start = Clock::now();
    absl::StatusOr<Literal> result = executable.Run(pointers, run_options);
    if (!result.ok()) {
      Say(absl::StrCat("error ", result.status().message()));
      return absl::OkStatus();
    }
    Say(absl::StrCat("ran ", SecondsSince(run_start) * 1e3));
    if (run == 0) {
      SayProfile(profile, options.profile_rows);
      run_options.profile = false;
    }
    if (SecondsSince(start) > options.budget_seconds / 2) break;
  }
  Say("done");
  return absl::OkStatus();
}

// The module's probe, or why there is none (its file is missing).
Probe ProbeOrMissing(const BenchmarkModule& module,
                     const ModuleBenchOptions& options) {
  Probe probe;
  std::error_code error;
  if (!fs::exists(module.path, error)) {
    probe.reason = absl::StrCat(module.path, " is missing");
    return probe;
  }
  return RunProbe(module.path, options);
}

// Prints the module's row (and its profile table) and adds its JSON
// record to `json`.
void ReportModule(const BenchmarkModule& module, const Probe& probe,
                  const MachineLimits& limits, std::vector<std::string>& json) {
  std::string compile =
      probe.compile_ms >= 0 ? absl::StrFormat("%.1f", probe.compile_ms) : "-";
  std::string run = "-", runs = "-";
  Rates rates;
  double run_ms = 0;
  if (!probe.run_ms.empty()) {
    // The runs after the profiled first one, when there are any.
    std::vector<double> timed(
        probe.run_ms.begin() + (probe.run_ms.size() > 1 ? 1 : 0),
        probe.run_ms.end());
    run_ms = Median(timed);
    run = run_ms < 10 ? absl::StrFormat("%.3f", run_ms)
                      : absl::StrFormat("%.1f", run_ms);
    runs = absl::StrCat(timed.size());
    rates = RateAgainst(limits, probe.flops, probe.bytes, run_ms / 1e3);
  }
  std::cout << absl::StrFormat("  %-48s %10s %10s %5s %9s %9s %7s", module.name,
                               compile, run, runs, rates.flops, rates.bytes,
                               rates.limit);
  if (probe.status != "ok") {
    std::cout << "  " << probe.status << ": " << probe.reason;
  }
  std::cout << "\n";
  for (const std::string& line : probe.table)
    std::cout << "    " << line << "\n";
  std::cout << std::flush;
  json.push_back(absl::StrFormat(
      R"({"kind":"module","name":"%s","status":"%s","compile_ms":%.3f,)"
      R"("opt_level":%d,"run_ms":%.4f,"runs":%d,"flops":%.0f,"bytes":%.0f,)"
      R"("reason":"%s"})",
      module.name, probe.status, probe.compile_ms, probe.opt_level, run_ms,
      probe.run_ms.size(),
      probe.flops, probe.bytes,
      absl::StrReplaceAll(probe.reason,
                          {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", " "}})));
}

absl::Status BenchModules(const ModuleBenchOptions& options,
                          std::vector<std::string>& json) {
  ASSIGN_OR_RETURN(std::string directory,
                   FindRealHloDirectory(options.directory));
  ASSIGN_OR_RETURN(std::vector<BenchmarkModule> modules,
                   FindBenchmarkModules(directory, options.patterns));
  ThreadPool& pool = ThreadPool::Default();
  const MachineLimits limits = MachineLimitsFor(pool, pool.threads());
  // The children's profiles rate their kernels against the same limits.
  setenv("MXLA_MACHINE_LIMITS",
         absl::StrCat(limits.flops_per_second / 1e9, ",",
                      limits.bytes_per_second / 1e9)
             .c_str(),
         1);
  std::cout << absl::StrFormat(
      "XLA's CPU benchmark modules (%s, origin %s): %d module%s, %d "
      "thread%s, a budget of %.0f s each; limits %.1f GFLOP/s, %.1f GB/s "
      "(%s); run ms is the median of the runs after the first (profiled) "
      "one:\n",
      directory, kBenchmarkOrigin, modules.size(),
      modules.size() == 1 ? "" : "s", pool.threads(),
      pool.threads() == 1 ? "" : "s", options.budget_seconds,
      limits.flops_per_second / 1e9, limits.bytes_per_second / 1e9,
      limits.source);
  std::cout << absl::StrFormat("  %-48s %10s %10s %5s %9s %9s %7s\n",
                               "module", "compile ms", "run ms", "runs",
                               "GFLOP/s", "GB/s", "limit");
  for (const BenchmarkModule& module : modules) {
    ReportModule(module, ProbeOrMissing(module, options), limits, json);
  }
  return absl::OkStatus();
}

}  // namespace mxla::tools
