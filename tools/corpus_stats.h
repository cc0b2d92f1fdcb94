// `mxla stats`: how much of a directory of HLO modules mxla accepts. Each
// module goes through the stages a user's module does (parse, verify,
// compile with the JIT, run on generated arguments against the
// interpreter; a module that names several devices, or whose collectives
// need them, runs on that many: tools/corpus_devices.h) and stops at its
// first failure, whose message, with the
// places, names and numbers that vary taken out, is its reason. Reasons are
// then counted across the modules, so one line says e.g. how many modules
// first fail on `unknown opcode 'dot'`.
#ifndef MXLA_TOOLS_CORPUS_STATS_H_
#define MXLA_TOOLS_CORPUS_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"


namespace mxla::tools {

// How far a module got, in pipeline order.
enum class CorpusStage {
  kParse,    // did not parse
  kVerify,   // parsed, failed the verifier
  kDevices,  // parsed, refused: a collective needs several devices
  kCompile,  // verified, the JIT could not compile it
  kRun,      // compiled, running failed or the JIT and interpreter differ
  kRefused,  // compiled; both backends refuse the generated arguments alike
  kEndless,  // compiled; a while loop passed the trip limit in both backends
  kTooLarge, // compiled; not run: too many elements or too much work
  kPassed,   // ran, and the JIT matched the interpreter
};

struct CorpusOptions {
  // Modules whose arguments and results hold more elements are compiled
  // but not run (the interpreter would take minutes). 64 M: a bf16
  // all-reduce of [2,4096,4096] on 8 devices checks in about 10 s.
  int64_t max_run_elements = int64_t{1} << 26;
  // Nor are modules whose instructions, once each, take more element
  // steps than this (EstimatedWork: a windowed op's taps per result, a
  // reduce's inputs, a dot's products): the interpreter's dot takes about
  // 7 G products a second, its windowed ops far fewer.
  int64_t max_run_work = int64_t{1} << 32;
  // Relative and absolute tolerance of the JIT against the interpreter.
  double tolerance = 1e-4;
  // A while loop that goes through its body more often fails the module
  // (on generated arguments, a loop may never end). A loop whose trips
  // would take more than max_run_work element steps in all is stopped
  // sooner and counts as too costly to run.
  int64_t max_loop_trips = 100000;
  // A run's memory, per element of its arguments and results on all
  // devices, for both backends together (the interpreter keeps every
  // intermediate value): a run whose elements times this pass the
  // machine's physical memory is too large. This corpus took up to about
  // 30 bytes an element; at 128 M elements a device the stats run was
  // killed for memory on this 23 GB machine.
  int64_t run_bytes_per_element = 32;
  // On several devices the limits above apply to each device (each runs
  // its own program, at once with the others), and all devices together
  // may take this many times them: this machine's two cores run them all,
  // and 16 devices of 64 M f32 elements would be 4 GB for each backend.
  int64_t all_devices_factor = 8;
};

struct ModuleOutcome {
  std::string path;
  CorpusStage stage = CorpusStage::kPassed;
  std::string reason;  // empty when passed
  // How many devices it ran on: 1, or the count the module names (else the
  // smallest its collectives need) when that is more.
  int64_t devices = 1;
};

// "parse", "verify", "devices", "compile", "run", "endless", "too large",
// "passed".
const char* CorpusStageName(CorpusStage stage);

// Whether a run of `elements` (arguments and results, on all its devices)
// fits this machine's physical memory at options.run_bytes_per_element.
bool RunFitsMemory(int64_t elements, const CorpusOptions& options);

// "passed", "too large on 4 devices", "compile: <reason>": one module's
// outcome on one line (mxla stats --verbose).
std::string DescribeOutcome(const ModuleOutcome& outcome);

// Whether both backends failed a run alike: the same code (not a loop
// limit), and the interpreter's message, which names the instruction it
// was evaluating, ends with the JIT's, numbers and names aside
// (NormalizeReason: on several devices, which device reports first is a
// race), each without a leading "device N: ". Arguments drawn at random
// can be invalid for an op that checks them at run time (ragged-all-to-all
// offsets that are not parameters: tools/ragged_arguments.h): the module
// is then accepted, apart, when both refuse them with the same error.
bool RefusedAlike(const absl::Status& interpreter, const absl::Status& jit);

// One module's outcome.
ModuleOutcome EvaluateModuleFile(const std::string& path,
                                 const CorpusOptions& options);

// `message` without what varies between modules: a leading
// "path:line:column: ", quoted names ('x' -> '_') and numbers (-> N), except
// the first quoted token of a message about a missing feature or syntax
// ("unknown opcode 'dot'", "unsupported ...", "unexpected character '%'",
// "expected '}' ...", "missing attribute ...").
std::string NormalizeReason(const std::string& message);

// The report: counts per stage, then the reasons by count.
std::string FormatCorpusReport(const std::vector<ModuleOutcome>& outcomes,
                               int64_t most_reasons);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_CORPUS_STATS_H_
