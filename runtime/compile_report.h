// What a compile reports about itself: every stage of the compile pipeline
// (driver/compile_pipeline.h) with its wall time, and every HLO pass run
// inside the "hlo-passes" stage.
#ifndef MXLA_RUNTIME_COMPILE_REPORT_H_
#define MXLA_RUNTIME_COMPILE_REPORT_H_

#include <string>
#include <vector>

#include "passes/pass_pipeline.h"

namespace mxla {

struct StageRecord {
  std::string name;
  double milliseconds = 0;
  bool failed = false;
};

struct CompileReport {
  std::vector<StageRecord> stages;  // in order, up to the one that failed
  std::vector<PassRecord> passes;   // the hlo-passes stage's pass runs

  // The stage's milliseconds, 0 if it did not run.
  double Milliseconds(absl::string_view stage) const;
  // One line per stage: name, time, "FAILED" for the failed one; and a
  // total. The format of the dump's stages.txt.
  std::string ToString() const;
};

}  // namespace mxla

#endif  // MXLA_RUNTIME_COMPILE_REPORT_H_
