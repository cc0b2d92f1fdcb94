#include "tools/corpus_stats.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "driver/compile.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/device_assignment.h"
#include "ir/hlo_verifier.h"
#include "ir/host_feed.h"
#include "ir/literal.h"
#include "ir/memory_budget.h"
#include "ir/shape_util.h"
#include "shape_inference/shape_inference.h"
#include "tools/compare_results.h"
#include "tools/corpus_arguments.h"
#include "tools/corpus_devices.h"
#include "tools/file_util.h"
#include "tools/ragged_arguments.h"

namespace mxla::tools {
namespace {

// Infeed values drawn like the arguments, the same sequence for each
// backend; the outfeed values kept to compare.
class SeededHostFeed : public HostFeed {
 public:
  absl::StatusOr<Literal> Infeed(const Shape& shape) override {
    Literal value(shape);
    FillDeterministic(value, state_);
    return value;
  }
  absl::Status Outfeed(Literal value) override {
    written_.push_back(std::move(value));
    return absl::OkStatus();
  }
  const std::vector<Literal>& written() const { return written_; }

 private:
  uint64_t state_ = 7;
  std::vector<Literal> written_;
};

ModuleOutcome Failed(const std::string& path, CorpusStage stage,
                     const absl::Status& status) {
  return {path, stage, NormalizeReason(std::string(status.message()))};
}

// Whether the JIT's result and outfeeds match the interpreter's within
// `tolerance`.
bool SameRuns(const Literal& actual, const SeededHostFeed& jit_feed,
              const Literal& expected, const SeededHostFeed& interpreter_feed,
              double tolerance) {
  absl::Status same = CompareResults(actual, expected, tolerance);
  const std::vector<Literal>& wrote = jit_feed.written();
  const std::vector<Literal>& expected_writes = interpreter_feed.written();
  same.Update(wrote.size() == expected_writes.size()
                  ? absl::OkStatus()
                  : absl::InternalError("outfeed counts differ"));
  for (size_t i = 0; same.ok() && i < wrote.size(); ++i) {
    same = CompareResults(wrote[i], expected_writes[i], tolerance);
  }
  return same.ok();
}

// `message` without a leading "device N: " (RunReplicated's).
absl::string_view WithoutDevice(absl::string_view message) {
  if (!absl::StartsWith(message, "device ")) return message;
  const size_t colon = message.find(": ");
  return colon == absl::string_view::npos ? message
                                          : message.substr(colon + 2);
}

}  // namespace

bool RefusedAlike(const absl::Status& interpreter, const absl::Status& jit) {
  if (interpreter.ok() || jit.ok() || absl::IsResourceExhausted(jit) ||
      interpreter.code() != jit.code()) {
    return false;
  }
  // Numbers aside: on several devices, which device reports first (and so
  // which ids and sizes the message names) is a race.
  const std::string jit_text =
      NormalizeReason(std::string(WithoutDevice(jit.message())));
  return !jit_text.empty() &&
         absl::EndsWith(
             NormalizeReason(std::string(WithoutDevice(interpreter.message()))),
             jit_text);
}

bool RunFitsMemory(int64_t elements, const CorpusOptions& options) {
  const int64_t per_element = std::max<int64_t>(options.run_bytes_per_element, 1);
  return elements <= PhysicalMemoryBytes() / per_element;
}

namespace {

ModuleOutcome RunAndCompare(const std::string& path, const HloModule& module,
                            const Executable& jit,
                            const CorpusOptions& options) {
  const HloComputation& entry = *module.entry_computation();
  int64_t elements = ElementsOf(entry.root_instruction()->shape());
  std::vector<std::vector<Literal>> device_arguments = {
      ArgumentsWithin(entry, options.max_run_elements, elements)};
  const int64_t work = EstimatedWork(module);
  if (elements > options.max_run_elements || work > options.max_run_work ||
      !RunFitsMemory(elements, options)) {
    return {path, CorpusStage::kTooLarge, ""};
  }
  // A ragged-all-to-all whose groups are this one device.
  FillRaggedAllToAllArguments(entry, DeviceAssignment::Default(1, 1),
                              device_arguments);
  const std::vector<Literal>& arguments = device_arguments[0];
  // A loop's trips multiply its body's work: a million trips over a
  // million-element body is hours of interpreting, so the trip limit also
  // keeps the whole run within max_run_work.
  const int64_t work_trips = options.max_run_work / std::max<int64_t>(work, 1);
  const int64_t trips = std::min(options.max_loop_trips, work_trips);
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments) pointers.push_back(&argument);
  SeededHostFeed interpreter_feed, jit_feed;
  absl::StatusOr<Literal> expected = EvaluateModule(
      module, pointers,
      {.max_loop_trips = trips, .host_feed = &interpreter_feed});
  if (absl::IsResourceExhausted(expected.status()) &&
      trips < options.max_loop_trips) {
    return {path, CorpusStage::kTooLarge, ""};
  }
  RunOptions run;
  run.max_loop_trips = trips;
  run.host_feed = &jit_feed;
  if (absl::IsResourceExhausted(expected.status())) {
    // A loop that does not end on these arguments (XLA's tests have
    // `condition` computations that are constant true): the module is
    // accepted when the JIT stops at the same limit.
    absl::StatusOr<Literal> actual = jit.Run(pointers, run);
    if (absl::IsResourceExhausted(actual.status())) {
      return {path, CorpusStage::kEndless, ""};
    }
    return {path, CorpusStage::kRun,
            "the interpreter stopped at the loop-trip limit, the JIT did not"};
  }
  absl::StatusOr<Literal> actual = jit.Run(pointers, run);
  if (!expected.ok()) {
    if (RefusedAlike(expected.status(), actual.status())) {
      return {path, CorpusStage::kRefused, ""};
    }
    return Failed(path, CorpusStage::kRun,
                  absl::InternalError(absl::StrCat(
                      "interpreter: ", expected.status().message())));
  }
  if (!actual.ok()) return Failed(path, CorpusStage::kRun, actual.status());
  if (!SameRuns(*actual, jit_feed, *expected, interpreter_feed,
                options.tolerance)) {
    return {path, CorpusStage::kRun,
            "the JIT and the interpreter differ beyond the tolerance"};
  }
  return {path, CorpusStage::kPassed, ""};
}

bool IsNumberStart(const std::string& text, size_t i) {
  return std::isdigit(static_cast<unsigned char>(text[i])) &&
         (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])));
}

// "path:12:34: rest" -> "rest".
std::string WithoutLocation(const std::string& message) {
  size_t colon = message.find(": ");
  while (colon != std::string::npos) {
    size_t digits = colon;
    int numbers = 0;
    while (numbers < 2 && digits > 0) {
      size_t start = digits;
      while (start > 0 &&
             std::isdigit(static_cast<unsigned char>(message[start - 1]))) {
        --start;
      }
      if (start == digits || start == 0 || message[start - 1] != ':') break;
      digits = start - 1;
      ++numbers;
    }
    if (numbers == 2) return message.substr(colon + 2);
    colon = message.find(": ", colon + 1);
  }
  return message;
}

}  // namespace

const char* CorpusStageName(CorpusStage stage) {
  switch (stage) {
    case CorpusStage::kParse: return "parse";
    case CorpusStage::kVerify: return "verify";
    case CorpusStage::kDevices: return "devices";
    case CorpusStage::kCompile: return "compile";
    case CorpusStage::kRun: return "run";
    case CorpusStage::kRefused: return "refused alike";
    case CorpusStage::kEndless: return "endless";
    case CorpusStage::kTooLarge: return "too large";
    case CorpusStage::kPassed: return "passed";
  }
  return "?";
}

std::string DescribeOutcome(const ModuleOutcome& outcome) {
  std::string text = CorpusStageName(outcome.stage);
  if (outcome.devices > 1) {
    absl::StrAppend(&text, " on ", outcome.devices, " devices");
  }
  if (!outcome.reason.empty()) absl::StrAppend(&text, ": ", outcome.reason);
  return text;
}

namespace {

// A send or recv between devices (not over a host channel).
bool HasDeviceTransfer(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kSend &&
          instruction->opcode() != HloOpcode::kRecv) {
        continue;
      }
      const auto* host =
          instruction->attributes().Get<std::string>(AttrId::kIsHostTransfer);
      if (host == nullptr || *host != "true") return true;
    }
  }
  return false;
}

// After parsing, on one device.
ModuleOutcome EvaluateOnOneDevice(const std::string& path,
                                  const HloModule& module,
                                  const CorpusOptions& options) {
  absl::Status verified = VerifyModule(module, VerifierMode::kBuilder);
  if (!verified.ok()) {
    const bool devices = absl::StrContains(verified.message(),
                                           ShapeInference::kOneDevice);
    return Failed(path, devices ? CorpusStage::kDevices : CorpusStage::kVerify,
                  verified);
  }
  CompileOptions compile;
  compile.backend = Backend::kJit;
  absl::StatusOr<std::unique_ptr<Executable>> jit = Compile(module, compile);
  if (IsOverMemoryBudget(jit.status())) {
    // Its buffers do not fit this machine's memory: accepted when the JIT
    // compiles it without a budget.
    compile.memory_limit_bytes = std::numeric_limits<int64_t>::max();
    jit = Compile(module, compile);
    if (jit.ok()) return {path, CorpusStage::kTooLarge, ""};
  }
  if (!jit.ok()) {
    // Collectives whose groups name more devices than the one it compiles
    // for (lower-collectives says so).
    const bool devices = absl::StrContains(jit.status().message(),
                                           "compiled for one device");
    return Failed(path, devices ? CorpusStage::kDevices : CorpusStage::kCompile,
                  jit.status());
  }
  return RunAndCompare(path, module, **jit, options);
}

}  // namespace

ModuleOutcome EvaluateModuleFile(const std::string& path,
                                 const CorpusOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ReadHloModule(path);
  if (!module.ok()) return Failed(path, CorpusStage::kParse, module.status());
  const DeviceCountsNeeded counts = SmallestDeviceCounts(**module);
  if (counts.devices() > 1) {
    return RunOnDevicesAndCompare(path, **module, counts, options);
  }
  ModuleOutcome outcome = EvaluateOnOneDevice(path, **module, options);
  // A send or recv between devices that names no peers (or cannot be
  // paired) is a multi-device module whose devices cannot be told.
  if (HasDeviceTransfer(**module) && outcome.stage != CorpusStage::kPassed &&
      outcome.stage != CorpusStage::kTooLarge &&
      outcome.stage != CorpusStage::kEndless &&
      outcome.stage != CorpusStage::kRefused) {
    outcome.stage = CorpusStage::kDevices;
  }
  return outcome;
}

std::string NormalizeReason(const std::string& message) {
  const std::string text = WithoutLocation(message);
  std::string out;
  size_t i = 0;
  // The first quoted token of "unknown opcode 'dot'" (and of the other
  // messages about a missing feature or syntax) is the reason itself.
  bool keep_next_quote = false;
  for (const char* prefix : {"unknown ", "unsupported ", "unexpected ",
                             "expected ", "missing attribute "}) {
    keep_next_quote = keep_next_quote || text.starts_with(prefix);
  }
  while (i < text.size()) {
    if (text[i] == '\'') {
      const size_t close = text.find('\'', i + 1);
      if (close == std::string::npos) {
        out += text.substr(i);
        break;
      }
      out += keep_next_quote ? text.substr(i, close - i + 1) : "'_'";
      keep_next_quote = false;
      i = close + 1;
    } else if (IsNumberStart(text, i)) {
      while (i < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[i]))) {
        ++i;
      }
      out += 'N';
    } else {
      out += text[i++];
    }
  }
  return out;
}

namespace {

bool IsAccepted(const ModuleOutcome& o) {
  return o.stage == CorpusStage::kEndless || o.stage == CorpusStage::kRefused ||
         o.stage == CorpusStage::kTooLarge ||
         o.stage == CorpusStage::kPassed;
}

// Whether the module needs several devices: it ran on them, or it needs
// devices it does not say how to count.
bool NeedsDevices(const ModuleOutcome& o) {
  return o.devices > 1 || o.stage == CorpusStage::kDevices;
}

// "accepted: A of the N modules that ..." over the outcomes `in` holds.
template <typename Predicate>
void AppendAccepted(const std::vector<ModuleOutcome>& outcomes, Predicate in,
                    const char* which, std::string& report) {
  int64_t count = 0, accepted = 0, passed = 0;
  for (const ModuleOutcome& o : outcomes) {
    if (!in(o)) continue;
    ++count;
    accepted += IsAccepted(o);
    passed += o.stage == CorpusStage::kPassed;
  }
  absl::StrAppendFormat(&report,
                        "accepted: %d of the %d modules that %s (%.1f%%); "
                        "%d ran and matched (%.1f%%)\n",
                        accepted, count, which,
                        100.0 * accepted / std::max<int64_t>(count, 1), passed,
                        100.0 * passed / std::max<int64_t>(count, 1));
}

// The count and share of modules at each stage (and how many of them ran
// on several devices), then how many were accepted, on one device and on
// several.
void AppendStageCounts(const std::vector<ModuleOutcome>& outcomes,
                       std::string& report) {
  static constexpr std::pair<CorpusStage, const char*> kStages[] = {
      {CorpusStage::kParse, "did not parse"},
      {CorpusStage::kVerify, "parsed, failed verification"},
      {CorpusStage::kDevices,
       "parsed, needs devices it does not name (refused)"},
      {CorpusStage::kCompile, "verified, failed to compile (JIT)"},
      {CorpusStage::kRun, "compiled, failed to run or to match"},
      {CorpusStage::kRefused,
       "compiled, both backends refuse the generated arguments alike"},
      {CorpusStage::kEndless,
       "compiled, a loop passed the trip limit in both backends"},
      {CorpusStage::kTooLarge, "compiled, too large or costly to run"},
      {CorpusStage::kPassed, "ran and matched the interpreter"},
  };
  const double total = std::max<size_t>(outcomes.size(), 1);
  absl::StrAppend(&report, "   count  share  on several devices\n");
  for (const auto& [stage, label] : kStages) {
    int64_t count = 0, several = 0;
    for (const ModuleOutcome& o : outcomes) {
      if (o.stage != stage) continue;
      ++count;
      several += o.devices > 1;
    }
    absl::StrAppendFormat(&report, "  %6d  %5.1f%%  %6d  %s\n", count,
                          100.0 * count / total, several, label);
  }
  AppendAccepted(
      outcomes, [](const ModuleOutcome& o) { return !NeedsDevices(o); },
      "need one device", report);
  AppendAccepted(outcomes, NeedsDevices, "need several devices", report);
}

// The `most_reasons` most common failure reasons, with a count and an
// example module each.
void AppendReasons(const std::vector<ModuleOutcome>& outcomes,
                   int64_t most_reasons, std::string& report) {
  std::map<std::string, std::pair<int64_t, std::string>> reasons;
  for (const ModuleOutcome& outcome : outcomes) {
    if (outcome.reason.empty()) continue;
    auto& [count, example] = reasons[outcome.reason];
    if (count++ == 0) {
      example = std::filesystem::path(outcome.path).filename().string();
    }
  }
  std::vector<std::pair<std::string, std::pair<int64_t, std::string>>> sorted(
      reasons.begin(), reasons.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.first > b.second.first;
  });
  absl::StrAppend(&report, "first failure of each module, most common first "
                           "(count, reason, an example):\n");
  for (int64_t i = 0; i < static_cast<int64_t>(sorted.size()) && i < most_reasons;
       ++i) {
    const auto& [reason, counted] = sorted[i];
    absl::StrAppendFormat(&report, "  %6d  %s  [%s]\n", counted.first, reason,
                          counted.second);
  }
  if (static_cast<int64_t>(sorted.size()) > most_reasons) {
    absl::StrAppendFormat(&report, "  (%d more reasons)\n",
                          static_cast<int64_t>(sorted.size()) - most_reasons);
  }
}

}  // namespace

std::string FormatCorpusReport(const std::vector<ModuleOutcome>& outcomes,
                               int64_t most_reasons) {
  std::string report =
      absl::StrFormat("%d modules\n", static_cast<int64_t>(outcomes.size()));
  AppendStageCounts(outcomes, report);
  AppendReasons(outcomes, most_reasons, report);
  return report;
}

}  // namespace mxla::tools
