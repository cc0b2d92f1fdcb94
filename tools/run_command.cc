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
};

// One `I=PATH` or `I.J.K=PATH` binding: a parameter and, for a tuple
// parameter, the tuple index path of one array element.
struct Binding {
  const HloInstruction* parameter;
  std::vector<int64_t> index;
  std::string path;
};

std::string LeafKey(const HloInstruction& parameter,
                    absl::Span<const int64_t> index) {
  std::string key = absl::StrCat(parameter.parameter_number());
  for (int64_t i : index) absl::StrAppend(&key, ".", i);
  return key;
}

// The parameter an `I` names (a number or a parameter name), or null.
const HloInstruction* FindParameter(const HloComputation& entry,
                                    absl::string_view key) {
  int64_t number;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    bool by_number = absl::SimpleAtoi(key, &number) &&
                     number == parameter->parameter_number();
    if (by_number || parameter->name() == key) return parameter;
  }
  return nullptr;
}

// Parses the `I` or `I.J.K` of a binding. Names may contain dots, so the
// longest prefix naming a parameter wins and the rest must be indices.
absl::StatusOr<Binding> ParseBinding(const HloComputation& entry,
                                     absl::string_view key,
                                     std::string path) {
  std::vector<int64_t> reversed_index;
  absl::string_view prefix = key;
  while (true) {
    if (const HloInstruction* parameter = FindParameter(entry, prefix)) {
      return Binding{parameter, {reversed_index.rbegin(),
                                 reversed_index.rend()}, std::move(path)};
    }
    size_t dot = prefix.rfind('.');
    int64_t index;
    if (dot == absl::string_view::npos ||
        !absl::SimpleAtoi(prefix.substr(dot + 1), &index) || index < 0) {
      break;
    }
    reversed_index.push_back(index);
    prefix = prefix.substr(0, dot);
  }
  std::vector<std::string> parameters;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    parameters.push_back(absl::StrCat(parameter->parameter_number(), " '",
                                      parameter->name(), "'"));
  }
  constexpr size_t kShown = 8;
  std::string listed = absl::StrJoin(
      parameters.begin(),
      parameters.begin() + std::min(parameters.size(), kShown), ", ");
  if (parameters.size() > kShown) {
    absl::StrAppend(&listed, ", ... ", parameters.size() - kShown, " more");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--input ", key, "=...: the entry computation has no parameter named "
      "or numbered '", key, "'; name one of its parameters (",
      parameters.empty() ? "it has none" : listed,
      "), and a tuple parameter's elements as I.J, e.g. 0.1"));
}

// An s8 or u8 input for a sub-byte parameter: the values, which must fit.
absl::StatusOr<Literal> NarrowedToSubByte(const Literal& bytes,
                                          PrimitiveType type,
                                          const std::string& label) {
  const int bits = primitive_util::BitWidth(type);
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1
                               : (int64_t{1} << bits) - 1;
  for (int64_t i = 0; i < bytes.element_count(); ++i) {
    const double value = bytes.GetAsDouble(i);
    if (value < lo || value > hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": element ", i, " is ", value, ", out of range for ",
          primitive_util::LowercaseName(type), " [", lo, ", ", hi, "]"));
    }
  }
  return semantics::ApplyConvert(bytes, type);
}

// bf16 and the 8-bit and smaller floats, which NumPy has no dtype for.
bool IsFloatWithoutNumpyType(PrimitiveType type) {
  return type == BF16 || primitive_util::SmallFloatFormatOf(type) != nullptr;
}

// How to make a .npy file of `type` with NumPy (or ml_dtypes).
std::string HowToMake(PrimitiveType type) {
  const std::string name(primitive_util::LowercaseName(type));
  if (IsFloatWithoutNumpyType(type)) {
    // ml_dtypes spells f8e4m3fn float8_e4m3fn, bf16 bfloat16.
    const std::string ml_name =
        type == BF16 ? "bfloat16"
                     : absl::StrCat("float", name.substr(1, 1), "_",
                                    name.substr(2));
    const bool two_bytes = type == BF16;
    return absl::StrCat(
        "pass float16, float32 or float64 values (converted as HLO's convert "
        "does, rounding to nearest even) or the ",
        name, " bits as ", two_bytes ? "<u2" : "|u1", " (a.astype(ml_dtypes.",
        ml_name, ").view(numpy.", two_bytes ? "uint16" : "uint8", "))");
  }
  if (primitive_util::IsSubByteIntType(type)) {
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    return absl::StrCat("pass ", is_signed ? "int8" : "uint8",
                        " values that fit ", name, " (a.astype(numpy.",
                        is_signed ? "int8" : "uint8", "))");
  }
  std::string dtype;
  if (type == PRED) {
    dtype = "bool_";
  } else if (primitive_util::IsFloatingPointType(type)) {
    dtype = absl::StrCat("float", primitive_util::BitWidth(type));
  } else {
    dtype = absl::StrCat(primitive_util::IsSignedIntegralType(type) ? "int"
                                                                    : "uint",
                         primitive_util::BitWidth(type));
  }
  return absl::StrCat("convert the array (a.astype(numpy.", dtype, "))");
}

// A value read from a file (`label`: "--input 0=x.npy", "--infeed x.npy")
// as the array of `shape` it stands for (`what`: "parameter 0 ('x')"):
//   * bf16 comes as its raw bits in a <u2 file, the 8-bit floats in a |u1
//     file, or either as float16/32/64 values, converted as HLO's convert
//     does (round to nearest even);
//   * s2..u4 as |i1 or |u1 values, which must fit;
//   * anything else must match: a file of another element type is an
//     error that says how to make the right one.
absl::StatusOr<Literal> AsArrayOf(Literal literal, const Shape& shape,
                                  const std::string& label,
                                  const std::string& what) {
  const PrimitiveType type = shape.element_type();
  const PrimitiveType file_type = literal.shape().element_type();
  if (!shape.IsArray() || literal.shape() == shape ||
      !ShapeUtil::SameDimensions(literal.shape(), shape)) {
    return literal;  // equal, or the run reports the different shapes
  }
  const bool bits_file =
      (type == BF16 && file_type == U16) ||
      (primitive_util::SmallFloatFormatOf(type) != nullptr && file_type == U8);
  if (bits_file) {
    Literal bits(shape);
    std::memcpy(bits.untyped_data(), literal.untyped_data(),
                literal.size_bytes());
    return bits;
  }
  if (IsFloatWithoutNumpyType(type) &&
      (file_type == F16 || file_type == F32 || file_type == F64)) {
    return semantics::ApplyConvert(literal, type);
  }
  const PrimitiveType byte_type =
      primitive_util::IsSignedIntegralType(type) ? S8 : U8;
  if (primitive_util::IsSubByteIntType(type) && file_type == byte_type) {
    return NarrowedToSubByte(literal, type, label);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      label, ": the file holds ", literal.shape().ToString(), ", and ", what,
      " is ", shape.ToString(), ": ", HowToMake(type)));
}

// The .npz files read so far, each read and unzipped once however many of
// its arrays the inputs name (a model's hundreds of parameters in one
// archive).
using NpzArchives = absl::flat_hash_map<std::string, NpzArchive>;

// The array in PATH.npy, or in PATH.npz:NAME (NAME may be left out when
// the archive holds one array).
absl::StatusOr<Literal> ReadInputFile(const std::string& path,
                                      NpzArchives& archives) {
  const size_t npz = path.rfind(".npz");
  if (npz != std::string::npos &&
      (npz + 4 == path.size() || path[npz + 4] == ':')) {
    const std::string file = path.substr(0, npz + 4);
    auto archive = archives.find(file);
    if (archive == archives.end()) {
      ASSIGN_OR_RETURN(NpzArchive opened, NpzArchive::Open(file));
      archive = archives.emplace(file, std::move(opened)).first;
    }
    return archive->second.Member(
        npz + 4 == path.size() ? "" : path.substr(npz + 5));
  }
  return ReadNpyFile(path);
}

// The --infeed files, one per infeed in the order they run; the outfeed
// values kept to print.
class FileHostFeed : public HostFeed {
 public:
  explicit FileHostFeed(const std::vector<std::string>& paths)
      : paths_(paths) {}

  absl::StatusOr<Literal> Infeed(const Shape& shape) override {
    if (next_ == paths_.size()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "infeed of ", ShapeSummary(shape), ": no --infeed file left (",
          paths_.size(), " given): pass one --infeed per infeed the module "
          "runs, in order"));
    }
    const std::string& path = paths_[next_++];
    if (!shape.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--infeed ", path, ": the infeed reads the tuple ",
          ShapeSummary(shape),
          ", and an --infeed file holds one array"));
    }
    ASSIGN_OR_RETURN(Literal literal, ReadInputFile(path, archives_));
    return AsArrayOf(std::move(literal), shape, "--infeed " + path,
                     "the infeed's data");
  }
  absl::Status Outfeed(Literal value) override {
    written_.push_back(std::move(value));
    return absl::OkStatus();
  }
  const std::vector<Literal>& written() const { return written_; }
  // Before each run: only the last run's outfeeds are printed.
  void ClearOutfeeds() { written_.clear(); }
  bool has_infeed_files() const { return !paths_.empty(); }

 private:
  std::vector<std::string> paths_;
  size_t next_ = 0;
  NpzArchives archives_;
  std::vector<Literal> written_;
};

// An --input value and its flag ("--input 0=x.npy"), for messages.
struct Input {
  Literal literal;
  std::string label;
};

// The literal of `shape` (the part of `parameter` at `index`) from the
// bindings, which are consumed.
absl::StatusOr<Literal> AssembleInput(const HloInstruction& parameter,
                                      const Shape& shape,
                                      std::vector<int64_t>& index,
                                      std::map<std::string, Input>& leaves) {
  if (!shape.IsTuple()) {
    auto it = leaves.find(LeafKey(parameter, index));
    if (it == leaves.end()) {
      std::string what = absl::StrCat("parameter ",
                                      parameter.parameter_number(), " ('",
                                      parameter.name(), "', ");
      if (!index.empty()) {
        absl::StrAppend(&what, "tuple element {", absl::StrJoin(index, ","),
                        "} ");
      }
      return absl::InvalidArgumentError(
          absl::StrCat("missing input for ", what, ShapeSummary(shape),
                       "): pass --input ", LeafKey(parameter, index),
                       "=PATH.npy"));
    }
    Input input = std::move(it->second);
    leaves.erase(it);
    std::string what = absl::StrCat("parameter ", parameter.parameter_number(),
                                    " ('", parameter.name(), "')");
    if (!index.empty()) {
      absl::StrAppend(&what, " tuple element {", absl::StrJoin(index, ","),
                      "}");
    }
    return AsArrayOf(std::move(input.literal), shape, input.label, what);
  }
  std::vector<Literal> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size());
       ++i) {
    index.push_back(i);
    absl::StatusOr<Literal> element =
        AssembleInput(parameter, shape.tuple_shapes(i), index, leaves);
    index.pop_back();
    if (!element.ok()) return element.status();
    elements.push_back(*std::move(element));
  }
  return LiteralUtil::MakeTuple(std::move(elements));
}

// One literal per parameter, in parameter order, from the --input flags:
// one per array parameter, one per array element of a tuple parameter.
absl::StatusOr<std::vector<Literal>> LoadInputs(
    const HloComputation& entry, const std::vector<std::string>& bindings) {
  std::map<std::string, Input> leaves;  // by LeafKey
  NpzArchives archives;
  for (const std::string& text : bindings) {
    std::vector<std::string> parts = absl::StrSplit(text, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input expects I=PATH.npy (I a parameter number or name, I.J "
          "for element J of a tuple parameter), got '", text, "'"));
    }
    ASSIGN_OR_RETURN(Binding binding, ParseBinding(entry, parts[0], parts[1]));
    const HloInstruction& parameter = *binding.parameter;
    std::string key = LeafKey(parameter, binding.index);
    std::string what = absl::StrCat("parameter ", key, " ('",
                                    parameter.name(), "'");
    if (leaves.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ") is given twice: pass one --input for it"));
    }
    const Shape* shape = &parameter.shape();
    for (int64_t i : binding.index) {
      if (!shape->IsTuple() ||
          i >= static_cast<int64_t>(shape->tuple_shapes().size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input ", parts[0], "=...: parameter ",
            parameter.parameter_number(), " ('", parameter.name(),
            "') of shape ", ShapeSummary(parameter.shape()),
            " has no tuple element {", absl::StrJoin(binding.index, ","),
            "}"));
      }
      shape = &shape->tuple_shapes(i);
    }
    if (shape->IsTuple()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input ", parts[0], "=...: ", what, ") is the tuple ",
          ShapeSummary(*shape),
          ": pass one .npy per array element, as --input ",
          key, ".0=PATH.npy ..."));
    }
    ASSIGN_OR_RETURN(Literal literal, ReadInputFile(binding.path, archives));
    leaves.emplace(key, Input{std::move(literal), "--input " + text});
  }
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction& parameter = *entry.parameter_instruction(i);
    std::vector<int64_t> index;
    ASSIGN_OR_RETURN(Literal input, AssembleInput(parameter, parameter.shape(),
                                                  index, leaves));
    inputs.push_back(std::move(input));
  }
  return inputs;
}

// Writes the result to `path`: PATH.npz holds one array per leaf, DIR/ (or
// an existing directory) one .npy per leaf, both named by index path
// (runtime/npz.h); any other path is one .npy, for an array.
absl::Status WriteResult(const std::string& path, const Literal& result) {
  std::error_code error;
  if (absl::EndsWith(path, "/") || std::filesystem::is_directory(path, error)) {
    return WriteNpyDirectory(path, result);
  }
  if (absl::EndsWith(path, ".npz")) return WriteNpzFile(path, result);
  if (!result.shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-o ", path, ": the result is ", ShapeSummary(result.shape()),
        ", and a .npy file holds one array: write -o PATH.npz (one array "
        "per element, named by its index path: 0, 1, 1.0, ...) or -o DIR/ "
        "(one .npy per element)"));
  }
  return WriteNpyFile(path, result);
}

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
  return compile_options;
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
                  ".npz");
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
