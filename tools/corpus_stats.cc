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
#include "ir/hlo_verifier.h"
#include "ir/host_feed.h"
#include "ir/literal.h"
#include "ir/shape_util.h"
#include "shape_inference/shape_inference.h"
#include "tools/compare_results.h"
#include "tools/file_util.h"

namespace mxla::tools {
namespace {

// Deterministic arguments: floats in [-1, 1), small integers, alternating
// booleans, so that every module runs the same way on every machine.
void FillArray(Literal& literal, uint64_t& state) {
  primitive_util::ArrayTypeSwitch(
      literal.shape().element_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* data = static_cast<T*>(literal.untyped_data());
        for (int64_t i = 0; i < literal.element_count(); ++i) {
          state = state * 6364136223846793005u + 1442695040888963407u;
          const uint32_t bits = static_cast<uint32_t>(state >> 33);
          if constexpr (std::is_same_v<T, bool>) {
            data[i] = (bits & 1) != 0;
          } else if constexpr (std::is_floating_point_v<T> ||
                               kIsNarrowFloat<T>) {
            data[i] = static_cast<T>(static_cast<float>(bits / 2147483648.0 - 1.0));
          } else if constexpr (std::is_unsigned_v<T>) {
            data[i] = static_cast<T>(bits % 17);
          } else {
            data[i] = static_cast<T>(static_cast<int>(bits % 17) - 8);
          }
        }
      });
}

void Fill(Literal& literal, uint64_t& state) {
  if (literal.shape().IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      Fill(literal.tuple_element(i), state);
    }
    return;
  }
  if (literal.shape().IsToken()) return;  // no data
  FillArray(literal, state);
}

int64_t ElementsOf(const Shape& shape) {
  if (!shape.IsTuple()) return ShapeUtil::ElementsIn(shape);
  int64_t total = 0;
  for (const Shape& element : shape.tuple_shapes()) total += ElementsOf(element);
  return total;
}

// Element steps an instruction takes: per result element, the window taps
// (times the input features of a convolution) or the contracted products
// of a dot; a reduce's or sort's inputs; else its result's elements.
int64_t WorkOf(const HloInstruction& instruction) {
  const int64_t results = ElementsOf(instruction.shape());
  int64_t per_result = 1;
  switch (instruction.opcode()) {
    case HloOpcode::kReduceWindow:
    case HloOpcode::kConvolution:
      for (const WindowDimension& d : instruction.window()) {
        per_result *= d.size;
      }
      if (instruction.opcode() == HloOpcode::kConvolution) {
        absl::StatusOr<ConvolutionDimensionNumbers> dnums =
            instruction.convolution_dimension_numbers();
        if (dnums.ok()) {
          per_result *= instruction.operand(1)->shape().dimensions(
              dnums->kernel_input_feature);
        }
      }
      return results * per_result;
    case HloOpcode::kDot:
      for (int64_t d : instruction.dot_dimension_numbers().lhs_contracting) {
        per_result *= instruction.operand(0)->shape().dimensions(d);
      }
      return results * per_result;
    case HloOpcode::kReduce:
    case HloOpcode::kSort: {
      int64_t inputs = 0;
      for (const HloInstruction* operand : instruction.operands()) {
        inputs += ElementsOf(operand->shape());
      }
      return inputs;
    }
    default:
      return results;
  }
}

// The element steps of running every instruction of every computation
// once (a loop body counts one trip; a reducer's scalar steps are counted
// by its reduce).
int64_t EstimatedWork(const HloModule& module) {
  int64_t total = 0;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      total += WorkOf(*instruction);
    }
  }
  return total;
}

// Infeed values drawn like the arguments, the same sequence for each
// backend; the outfeed values kept to compare.
class SeededHostFeed : public HostFeed {
 public:
  absl::StatusOr<Literal> Infeed(const Shape& shape) override {
    Literal value(shape);
    Fill(value, state_);
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

// The entry's arguments, filled in parameter-number order (which need not
// be the text's order) until `elements` (the result's to start with, then
// each argument's added) passes `max_elements`.
std::vector<Literal> ArgumentsWithin(const HloComputation& entry,
                                     int64_t max_elements, int64_t& elements) {
  std::vector<Literal> arguments;
  uint64_t state = 1;
  for (int64_t number = 0; number < entry.num_parameters(); ++number) {
    const HloInstruction* parameter = entry.parameter_instruction(number);
    elements += ElementsOf(parameter->shape());
    if (elements > max_elements) break;
    arguments.emplace_back(parameter->shape());
    Fill(arguments.back(), state);
  }
  return arguments;
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

ModuleOutcome RunAndCompare(const std::string& path, const HloModule& module,
                            const Executable& jit,
                            const CorpusOptions& options) {
  const HloComputation& entry = *module.entry_computation();
  int64_t elements = ElementsOf(entry.root_instruction()->shape());
  const std::vector<Literal> arguments =
      ArgumentsWithin(entry, options.max_run_elements, elements);
  const int64_t work = EstimatedWork(module);
  if (elements > options.max_run_elements || work > options.max_run_work) {
    return {path, CorpusStage::kTooLarge, ""};
  }
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
  if (!expected.ok()) {
    return Failed(path, CorpusStage::kRun,
                  absl::InternalError(absl::StrCat(
                      "interpreter: ", expected.status().message())));
  }
  absl::StatusOr<Literal> actual = jit.Run(pointers, run);
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

void FillDeterministic(Literal& literal, uint64_t& state) {
  Fill(literal, state);
}

ModuleOutcome EvaluateModuleFile(const std::string& path,
                                 const CorpusOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ReadHloModule(path);
  if (!module.ok()) return Failed(path, CorpusStage::kParse, module.status());
  absl::Status verified = VerifyModule(**module, VerifierMode::kBuilder);
  if (!verified.ok()) {
    const bool devices = absl::StrContains(verified.message(),
                                           ShapeInference::kOneDevice);
    return Failed(path, devices ? CorpusStage::kDevices : CorpusStage::kVerify,
                  verified);
  }
  CompileOptions compile;
  compile.backend = Backend::kJit;
  absl::StatusOr<std::unique_ptr<Executable>> jit = Compile(**module, compile);
  if (IsOverMemoryBudget(jit.status())) {
    // Its buffers do not fit this machine's memory: accepted when the JIT
    // compiles it without a budget.
    compile.memory_limit_bytes = std::numeric_limits<int64_t>::max();
    jit = Compile(**module, compile);
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
  return RunAndCompare(path, **module, **jit, options);
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

// The count and share of modules at each stage, and how many of those
// that need one device were accepted.
void AppendStageCounts(const std::vector<ModuleOutcome>& outcomes,
                       std::string& report) {
  static constexpr std::pair<CorpusStage, const char*> kStages[] = {
      {CorpusStage::kParse, "did not parse"},
      {CorpusStage::kVerify, "parsed, failed verification"},
      {CorpusStage::kDevices, "parsed, needs several devices (refused)"},
      {CorpusStage::kCompile, "verified, failed to compile (JIT)"},
      {CorpusStage::kRun, "compiled, failed to run or to match"},
      {CorpusStage::kEndless,
       "compiled, a loop passed the trip limit in both backends"},
      {CorpusStage::kTooLarge, "compiled, too large or costly to run"},
      {CorpusStage::kPassed, "ran and matched the interpreter"},
  };
  const double total = std::max<size_t>(outcomes.size(), 1);
  for (const auto& [stage, label] : kStages) {
    const int64_t count = std::count_if(
        outcomes.begin(), outcomes.end(),
        [stage = stage](const ModuleOutcome& o) { return o.stage == stage; });
    absl::StrAppendFormat(&report, "  %6d  %5.1f%%  %s\n", count,
                          100.0 * count / total, label);
  }
  // Accepted: compiled, and ran and matched or could not be run to the
  // end; out of the modules that need no other device.
  const int64_t single_device = std::count_if(
      outcomes.begin(), outcomes.end(),
      [](const ModuleOutcome& o) { return o.stage != CorpusStage::kDevices; });
  const int64_t accepted = std::count_if(
      outcomes.begin(), outcomes.end(), [](const ModuleOutcome& o) {
        return o.stage == CorpusStage::kEndless ||
               o.stage == CorpusStage::kTooLarge ||
               o.stage == CorpusStage::kPassed;
      });
  absl::StrAppendFormat(
      &report, "accepted: %d of the %d modules that need one device (%.1f%%)\n",
      accepted, single_device,
      100.0 * accepted / std::max<int64_t>(single_device, 1));
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
