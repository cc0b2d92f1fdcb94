#include "runtime/profile.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/memory_budget.h"
#include "ir/shape_util.h"
#include "runtime/machine_limits.h"

namespace mxla {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NanosecondsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                              start)
      .count();
}

double Elements(const Shape& shape) {
  return shape.IsArray() ? static_cast<double>(ShapeUtil::ElementsIn(shape))
                         : 0;
}

// Whether `value` is a product, seen through the ops an expanded dot or
// convolution puts between its multiply and its reduce.
bool IsProduct(const HloInstruction* value) {
  while (true) {
    switch (value->opcode()) {
      case HloOpcode::kMultiply:
        return true;
      case HloOpcode::kConvert:
      case HloOpcode::kBitcast:
      case HloOpcode::kReshape:
      case HloOpcode::kTranspose:
        value = value->operand(0);
        break;
      case HloOpcode::kSelect:
        // The masked taps of an expanded convolution: select(mask, x*w, 0).
        if (value->operand(1)->opcode() == HloOpcode::kMultiply ||
            value->operand(2)->opcode() == HloOpcode::kMultiply) {
          return true;
        }
        return false;
      default:
        return false;
    }
  }
}

double InstructionFlops(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kDot: {
      double k = 1;
      for (int64_t d : instruction.dot_dimension_numbers().lhs_contracting) {
        k *= instruction.operand(0)->shape().dimensions(d);
      }
      return 2 * Elements(instruction.shape()) * k;
    }
    case HloOpcode::kConvolution: {
      double taps = 1;
      for (const WindowDimension& d : instruction.window()) taps *= d.size;
      absl::StatusOr<ConvolutionDimensionNumbers> dnums =
          instruction.convolution_dimension_numbers();
      if (!dnums.ok()) return 0;
      const double features =
          instruction.operand(1)->shape().dimensions(dnums->kernel_input_feature);
      return 2 * Elements(instruction.shape()) * taps * features;
    }
    case HloOpcode::kReduce:
      if (instruction.operand_count() == 2 &&
          IsProduct(instruction.operand(0))) {
        return 2 * Elements(instruction.operand(0)->shape());
      }
      return 0;
    default:
      return 0;
  }
}

// Ops that move or name values without work of their own.
bool IsTrivial(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kIota:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return true;
    default:
      return false;
  }
}

// A name, and its opcode when the name does not start with it.
std::string NameAndOpcode(const HloInstruction& instruction) {
  const absl::string_view opcode = HloOpcodeString(instruction.opcode());
  if (absl::StartsWith(instruction.name(), opcode)) return instruction.name();
  return absl::StrCat(instruction.name(), ":", opcode);
}

// What a runtime step (not a kernel) does, for its row.
std::string RuntimeStepText(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kWhile:
      return "loop control: conditions and state copies (the body's kernels "
             "have rows)";
    case HloOpcode::kConditional:
      return "branch selection (the branch's kernels have rows)";
    case HloOpcode::kSort:
      return "runtime sort: native, or the comparator called per comparison";
    case HloOpcode::kScatter:
      return "runtime scatter, the combiner called per element";
    case HloOpcode::kSelectAndScatter:
      return "runtime select-and-scatter, per window element";
    default:
      return "host feed";
  }
}

std::string FormatMs(int64_t nanoseconds) {
  return absl::StrFormat("%.3f ms", nanoseconds / 1e6);
}

}  // namespace

Rates RateAgainst(const MachineLimits& limits, double flops, double bytes,
                  double seconds) {
  Rates rates;
  if (!(seconds > 0)) return rates;
  if (flops > 0) rates.flops = absl::StrFormat("%.1f", flops / seconds / 1e9);
  if (bytes > 0) rates.bytes = absl::StrFormat("%.1f", bytes / seconds / 1e9);
  const double flop_time = limits.flops_per_second > 0
                               ? flops / limits.flops_per_second
                               : 0;
  const double byte_time = limits.bytes_per_second > 0
                               ? bytes / limits.bytes_per_second
                               : 0;
  // The roofline: the bound is the longer of the two.
  const double bound = std::max(flop_time, byte_time);
  if (bound > 0) {
    rates.limit = absl::StrFormat("%.1f%%", 100 * bound / seconds);
    rates.compute_bound = flop_time >= byte_time;
  }
  return rates;
}

double StepFlops(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kFusion) {
    return InstructionFlops(instruction);
  }
  double flops = 0;
  for (const HloComputation* computation :
       instruction.called_computations()) {
    for (const HloInstruction* fused : computation->instructions()) {
      flops += InstructionFlops(*fused);
    }
  }
  return flops;
}

double StepBytes(const HloInstruction& instruction) {
  double bytes = static_cast<double>(TotalArrayBytes(instruction.shape()));
  for (const HloInstruction* operand : instruction.operands()) {
    bytes += static_cast<double>(TotalArrayBytes(operand->shape()));
  }
  return bytes;
}

std::string StepInstructions(const HloInstruction& instruction,
                             int64_t max_chars) {
  if (instruction.opcode() != HloOpcode::kFusion ||
      instruction.called_computations().empty()) {
    return RuntimeStepText(instruction.opcode());
  }
  const HloComputation& fused = *instruction.called_computations()[0];
  std::vector<HloInstruction*> order = fused.MakeInstructionPostOrder();
  std::vector<std::string> names;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!IsTrivial((*it)->opcode())) names.push_back(NameAndOpcode(**it));
  }
  if (names.empty()) names.push_back(NameAndOpcode(*fused.root_instruction()));
  std::string text;
  size_t shown = 0;
  for (; shown < names.size(); ++shown) {
    const std::string more =
        absl::StrCat(" ... (+", names.size() - shown, ")");
    const int64_t after = text.size() + (shown > 0 ? 2 : 0) +
                          names[shown].size();
    const bool last = shown + 1 == names.size();
    if (shown > 0 &&
        after + (last ? 0 : static_cast<int64_t>(more.size())) > max_chars) {
      absl::StrAppend(&text, more);
      break;
    }
    absl::StrAppend(&text, shown > 0 ? ", " : "", names[shown]);
  }
  return text;
}

void RunProfile::Add(const HloInstruction& instruction, int64_t nanoseconds) {
  auto [it, inserted] = entries_.try_emplace(&instruction);
  Entry& entry = it->second;
  if (inserted) {
    entry.order = static_cast<int64_t>(entries_.size());
    entry.row.name = instruction.name();
    const FusionPlan* plan = instruction.opcode() == HloOpcode::kFusion
                                 ? instruction.fusion_plan()
                                 : nullptr;
    entry.row.kind = plan != nullptr
                         ? std::string(plan->kind_name())
                         : std::string(HloOpcodeString(instruction.opcode()));
    entry.row.instructions = StepInstructions(instruction);
    entry.row.flops = StepFlops(instruction);
    entry.row.bytes = StepBytes(instruction);
  }
  ++entry.row.calls;
  entry.row.nanoseconds += nanoseconds;
}

std::vector<RunProfile::Row> RunProfile::Rows() const {
  std::vector<const Entry*> sorted;
  for (const auto& [instruction, entry] : entries_) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
    if (a->row.nanoseconds != b->row.nanoseconds) {
      return a->row.nanoseconds > b->row.nanoseconds;
    }
    return a->order < b->order;
  });
  std::vector<Row> rows;
  for (const Entry* entry : sorted) rows.push_back(entry->row);
  return rows;
}

std::string RunProfile::Format(const MachineLimits& limits,
                               int64_t max_rows) const {
  const int64_t total =
      run_nanoseconds_ > 0 ? run_nanoseconds_ : step_nanoseconds_;
  auto share = [&](int64_t nanoseconds) {
    return total > 0 ? 100.0 * nanoseconds / total : 0.0;
  };
  std::string text = absl::StrFormat(
      "profile: %d run%s, %s wall, %d thread%s; limits %.1f GFLOP/s, %.1f "
      "GB/s (%s)\n",
      runs_, runs_ == 1 ? "" : "s", FormatMs(run_nanoseconds_), threads_,
      threads_ == 1 ? "" : "s", limits.flops_per_second / 1e9,
      limits.bytes_per_second / 1e9, limits.source);
  absl::StrAppend(&text, absl::StrFormat("%12s %7s %8s %9s %9s %7s  %-28s %s\n",
                                         "time", "share", "calls", "GFLOP/s",
                                         "GB/s", "limit", "kernel",
                                         "instructions"));
  const std::vector<Row> rows = Rows();
  int64_t shown = 0, rest_nanoseconds = 0, rest_calls = 0;
  for (const Row& row : rows) {
    if (max_rows > 0 && shown == max_rows) {
      rest_nanoseconds += row.nanoseconds;
      rest_calls += row.calls;
      continue;
    }
    ++shown;
    const Rates rates = RateAgainst(limits, row.flops * row.calls,
                                    row.bytes * row.calls,
                                    row.nanoseconds / 1e9);
    absl::StrAppend(
        &text, absl::StrFormat("%12s %6.1f%% %8d %9s %9s %7s  %-28s %s\n",
                               FormatMs(row.nanoseconds),
                               share(row.nanoseconds), row.calls, rates.flops,
                               rates.bytes, rates.limit,
                               absl::StrCat(row.name, " [", row.kind, "]"),
                               row.instructions));
  }
  if (shown < static_cast<int64_t>(rows.size())) {
    absl::StrAppend(
        &text,
        absl::StrFormat("%12s %6.1f%% %8d %9s %9s %7s  %-28s %s\n",
                        FormatMs(rest_nanoseconds), share(rest_nanoseconds),
                        rest_calls, "-", "-", "-",
                        absl::StrCat("(", rows.size() - shown, " more)"),
                        "the other kernels and runtime steps"));
  }
  if (entries_.empty()) {
    absl::StrAppend(&text, "  no kernel ran (the interpreter backend runs "
                           "none: profile the jit)\n");
  }
  const int64_t outside = std::max<int64_t>(0, total - step_nanoseconds_);
  absl::StrAppend(
      &text, absl::StrFormat("%12s %6.1f%% %8s %9s %9s %7s  %-28s %s\n",
                             FormatMs(outside), share(outside), "-", "-", "-",
                             "-",
                             "(outside kernels)",
                             "argument checks, result allocation and copies"));
  return text;
}

RunProfile::RunScope::RunScope(RunProfile& profile, int threads)
    : profile_(profile) {
  if (profile_.depth_++ == 0) {
    profile_.threads_ = threads;
    start_ = Clock::now();
  }
}

RunProfile::RunScope::~RunScope() {
  if (--profile_.depth_ == 0) {
    profile_.run_nanoseconds_ += NanosecondsSince(start_);
    ++profile_.runs_;
  }
}

void RunProfile::StepScope::Start() {
  recorded_before_ = profile_->step_nanoseconds_;
  start_ = Clock::now();
}

void RunProfile::StepScope::Stop() {
  const int64_t elapsed = NanosecondsSince(start_);
  const int64_t nested = profile_->step_nanoseconds_ - recorded_before_;
  const int64_t own = std::max<int64_t>(0, elapsed - nested);
  profile_->Add(*instruction_, own);
  profile_->step_nanoseconds_ = recorded_before_ + nested + own;
}

}  // namespace mxla
