// PassPipeline: runs passes in order. After each pass that changed the
// module or moved its form it verifies the module (naming the pass on
// failure; a pass that changed nothing cannot have broken it), times the
// pass and, when asked, dumps the module. Passes can be disabled by name. A fixed-point group repeats its
// passes until none of them changes the module.
//
// Verification checks the module against its own form (HloModule::form()),
// which the passes move forward: builder, then lowered, then fused.
//
// Dumps: DIR/00-input.hlo, then DIR/NN-<pass>.hlo after each pass run that
// changed the module, and DIR/passes.txt listing every pass run, in order,
// with "changed", "unchanged" or "disabled" and its time (written only when
// Run succeeds).
//
// A pipeline owns its passes. It is not thread-safe: Run mutates its records,
// so use one pipeline per thread.
#ifndef MXLA_PASSES_PASS_PIPELINE_H_
#define MXLA_PASSES_PASS_PIPELINE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "passes/hlo_pass.h"

namespace mxla {

struct PipelineOptions {
  std::string dump_dir;                              // empty: no dumps
  absl::flat_hash_set<std::string> disabled_passes;  // by HloPass::name()
  bool verify = true;  // after each pass that changes the module or form
  // Inside a fixed-point group the module is verified once, after the
  // group settles (if a pass in it changed the module), as XLA's CPU
  // pipeline verifies its simplification loop only in debug builds: the
  // group's passes change a large module many times over (gemma's compile
  // spent 30 ms verifying inside it). True verifies after each of them
  // too, to find which pass broke a module (`mxla opt --verify-each-pass`).
  bool verify_each_pass_in_groups = false;
};

struct PassRecord {
  std::string name;
  enum class Outcome { kChanged, kUnchanged, kDisabled, kFailed } outcome;
  double milliseconds = 0;
};

class PassPipeline {
 public:
  explicit PassPipeline(PipelineOptions options = {})
      : options_(std::move(options)) {}

  // Appends a step running the non-null `pass` once.
  void AddPass(std::unique_ptr<HloPass> pass);
  // Runs `passes` in order, again and again, until a round changes nothing;
  // more than `max_rounds` rounds is an Internal error.
  void AddFixedPoint(std::string name,
                     std::vector<std::unique_ptr<HloPass>> passes,
                     int64_t max_rounds = 32);

  // Runs every step; true if any pass changed the module. The input itself is
  // not verified. Errors: a failing pass's own code, prefixed "pass '<name>'
  // failed: "; Internal "pass '<name>' produced an invalid module: ..." if
  // verification fails after it, or "fixed-point group '<name>' produced an
  // invalid module ..." after a group; Internal for a fixed-point group that
  // does not settle; InvalidArgument if the dump directory or a dump file
  // cannot be written. The module may be partly rewritten after an error.
  absl::StatusOr<bool> Run(HloModule& module);

  // The pass names in order (a fixed-point group's passes listed once).
  std::vector<std::string> PassNames() const;
  // Every pass run by the last Run(), in order (disabled ones included; a
  // pass whose own Run fails is not recorded).
  const std::vector<PassRecord>& records() const { return records_; }
  // PassTimingReport(records()).
  std::string TimingReport() const;

 private:
  struct Step {
    std::string name;                              // for fixed-point groups
    std::vector<std::unique_ptr<HloPass>> passes;
    bool fixed_point = false;
    int64_t max_rounds = 1;
  };

  absl::StatusOr<bool> RunStep(Step& step, HloModule& module);
  // Runs `pass`; verifies after it when `verify` and it changed the module
  // or its form.
  absl::StatusOr<bool> RunPass(HloPass& pass, HloModule& module, bool verify);
  absl::Status Dump(const HloModule& module, const std::string& name);
  absl::Status WriteLog() const;

  PipelineOptions options_;
  std::vector<Step> steps_;
  std::vector<PassRecord> records_;
  int64_t dump_counter_ = 0;
};

// One line per pass name: runs, changes, total milliseconds; and a total.
std::string PassTimingReport(absl::Span<const PassRecord> records);

}  // namespace mxla

#endif  // MXLA_PASSES_PASS_PIPELINE_H_
