#include "passes/pass_pipeline.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

absl::string_view OutcomeString(PassRecord::Outcome outcome) {
  switch (outcome) {
    case PassRecord::Outcome::kChanged: return "changed";
    case PassRecord::Outcome::kUnchanged: return "unchanged";
    case PassRecord::Outcome::kDisabled: return "disabled";
    case PassRecord::Outcome::kFailed: return "FAILED";
  }
  return "?";
}

}  // namespace

void PassPipeline::AddPass(std::unique_ptr<HloPass> pass) {
  Step step;
  step.name = std::string(pass->name());
  step.passes.push_back(std::move(pass));
  steps_.push_back(std::move(step));
}

void PassPipeline::AddFixedPoint(std::string name,
                                 std::vector<std::unique_ptr<HloPass>> passes,
                                 int64_t max_rounds) {
  Step step;
  step.name = std::move(name);
  step.passes = std::move(passes);
  step.fixed_point = true;
  step.max_rounds = max_rounds;
  steps_.push_back(std::move(step));
}

std::vector<std::string> PassPipeline::PassNames() const {
  std::vector<std::string> names;
  for (const Step& step : steps_) {
    for (const auto& pass : step.passes) names.emplace_back(pass->name());
  }
  return names;
}

absl::StatusOr<bool> PassPipeline::Run(HloModule& module) {
  records_.clear();
  dump_counter_ = 0;
  if (!options_.dump_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options_.dump_dir, error);
    if (error) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot create dump directory '", options_.dump_dir,
          "': ", error.message()));
    }
    RETURN_IF_ERROR(Dump(module, "input"));
  }
  bool changed = false;
  for (Step& step : steps_) {
    absl::StatusOr<bool> step_changed = RunStep(step, module);
    if (!step_changed.ok()) {
      // The log of what ran up to the failure is what one debugs it with;
      // the pass's error matters more than a failure to write the log.
      if (!options_.dump_dir.empty()) WriteLog().IgnoreError();
      return step_changed.status();
    }
    changed |= *step_changed;
  }
  if (!options_.dump_dir.empty()) RETURN_IF_ERROR(WriteLog());
  return changed;
}

absl::StatusOr<bool> PassPipeline::RunStep(Step& step, HloModule& module) {
  const bool verify_each_pass =
      options_.verify &&
      (!step.fixed_point || options_.verify_each_pass_in_groups);
  const HloForm form_before = module.form();
  bool changed = false;
  for (int64_t round = 0; round < step.max_rounds; ++round) {
    bool round_changed = false;
    for (auto& pass : step.passes) {
      ASSIGN_OR_RETURN(bool pass_changed,
                       RunPass(*pass, module, verify_each_pass));
      round_changed |= pass_changed;
    }
    changed |= round_changed;
    if (step.fixed_point && round_changed) continue;
    if (options_.verify && !verify_each_pass &&
        (changed || module.form() != form_before)) {
      absl::Status verified = VerifyModule(module);
      if (!verified.ok()) {
        if (!options_.dump_dir.empty()) {
          Dump(module, step.name + "-invalid").IgnoreError();
        }
        return absl::InternalError(absl::StrCat(
            "fixed-point group '", step.name,
            "' produced an invalid module (verify after each of its passes, "
            "e.g. mxla opt --verify-each-pass, to find which): ",
            verified.message()));
      }
    }
    return changed;
  }
  return absl::InternalError(absl::StrCat(
      "fixed-point group '", step.name, "' still changed the module after ",
      step.max_rounds, " rounds"));
}

absl::StatusOr<bool> PassPipeline::RunPass(HloPass& pass, HloModule& module,
                                           bool verify) {
  std::string name(pass.name());
  if (options_.disabled_passes.contains(name)) {
    records_.push_back({name, PassRecord::Outcome::kDisabled, 0});
    return false;
  }
  const HloForm form_before = module.form();
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<bool> changed = pass.Run(module);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (!changed.ok()) {
    records_.push_back({name, PassRecord::Outcome::kFailed, ms});
    return absl::Status(changed.status().code(),
                        absl::StrCat("pass '", name, "' failed: ",
                                     changed.status().message()));
  }
  records_.push_back({name,
                      *changed ? PassRecord::Outcome::kChanged
                               : PassRecord::Outcome::kUnchanged,
                      ms});
  // A pass that left the module and its form as they were cannot have
  // broken it: verify after changes only (most of a compile's pass runs
  // change nothing).
  if (verify && (*changed || module.form() != form_before)) {
    absl::Status verified = VerifyModule(module);
    if (!verified.ok()) {
      records_.back().outcome = PassRecord::Outcome::kFailed;
      if (!options_.dump_dir.empty()) {
        // The invalid module, for the pass's author to read.
        Dump(module, name + "-invalid").IgnoreError();
      }
      return absl::InternalError(absl::StrCat(
          "pass '", name, "' produced an invalid module: ",
          verified.message()));
    }
  }
  if (*changed && !options_.dump_dir.empty()) {
    RETURN_IF_ERROR(Dump(module, name));
  }
  return *changed;
}

absl::Status PassPipeline::Dump(const HloModule& module,
                                const std::string& name) {
  std::string path = absl::StrFormat("%s/%02d-%s.hlo", options_.dump_dir,
                                     dump_counter_++, name);
  std::ofstream file(path);
  file << module.ToString({.metadata = true});
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write dump file '", path, "'"));
  }
  return absl::OkStatus();
}

absl::Status PassPipeline::WriteLog() const {
  std::string path = absl::StrCat(options_.dump_dir, "/passes.txt");
  std::ofstream file(path);
  for (const PassRecord& record : records_) {
    file << absl::StrFormat("%-20s %-9s %8.3f ms\n", record.name,
                            OutcomeString(record.outcome), record.milliseconds);
  }
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

std::string PassPipeline::TimingReport() const {
  return PassTimingReport(records_);
}

std::string PassTimingReport(absl::Span<const PassRecord> records) {
  struct Totals {
    int64_t runs = 0, changes = 0;
    double milliseconds = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Totals> totals;
  double sum = 0;
  for (const PassRecord& record : records) {
    if (!totals.contains(record.name)) order.push_back(record.name);
    Totals& t = totals[record.name];
    ++t.runs;
    t.changes += record.outcome == PassRecord::Outcome::kChanged;
    t.milliseconds += record.milliseconds;
    sum += record.milliseconds;
  }
  std::string report =
      absl::StrFormat("%-20s %5s %8s %10s\n", "pass", "runs", "changed", "ms");
  for (const std::string& name : order) {
    const Totals& t = totals[name];
    absl::StrAppend(&report, absl::StrFormat("%-20s %5d %8d %10.3f\n", name,
                                             t.runs, t.changes,
                                             t.milliseconds));
  }
  absl::StrAppend(&report, absl::StrFormat("%-20s %5s %8s %10.3f\n", "total",
                                           "", "", sum));
  return report;
}

}  // namespace mxla
