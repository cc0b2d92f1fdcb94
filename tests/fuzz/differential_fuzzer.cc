// Fuzz target: a random valid graph (tests/testlib/random_graph.h) whose
// seed and options come from the bytes, run by the JIT and by the
// interpreter. With exact reductions the two must agree bit for bit (NaN
// encodings aside: LiteralUtil::SameValues); with
// reassociated float reductions, within 1e-4. Compile and run must succeed.
// One input in eight is in the scale tier: parameters of up to 3 * 2^20
// elements (rows up to 65536 long), so kernels are split into chunks and run
// on the process's pool (MXLA_THREADS), stream their stores or row-fuse.
// The element types are every one of the table (differential_layout.h),
// and the bytes after them switch op groups off. The last ones put one
// input in four on 2 to 8 devices (replicas x partitions): the graph then
// draws collectives and gives each device its own arguments, and both
// backends run it through Executable::RunReplicated, compared device by
// device (without the scale tier, and without host feeds, which one
// device's run alone can have), on XLA's default placement or on devices
// the bytes after shuffle. The graph's ops come from the seed's PRNG, so
// the dictionary (fuzz_dictionaries.cc) holds the type masks, the one
// choice a byte string can name.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/device_assignment.h"
#include "tests/fuzz/byte_reader.h"
#include "tests/fuzz/differential_layout.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/testlib/feed_constants.h"
#include "tests/testlib/random_graph.h"

namespace mxla {
namespace {

using ::mxla::testing::FedModule;
using ::mxla::testing::WithConstantsFed;

struct Config {
  bool exact = false;
  bool full_pipeline = false;
  bool stream_everything = false;
};

CompileOptions CompileFor(const Config& config) {
  CompileOptions compile;
  if (!config.full_pipeline) compile.passes = std::vector<std::string>{};
  compile.codegen.reassociate_reductions = !config.exact;
  if (config.stream_everything) compile.codegen.streaming_store_min_bytes = 1;
  return compile;
}

void CheckSame(const Config& config, const Literal& expected,
               const Literal& actual, const std::string& context) {
  absl::Status same =
      config.exact ? LiteralUtil::SameValues(expected, actual)
                   : LiteralUtil::Near(expected, actual, 1e-4, 1e-4);
  FUZZ_CHECK(same.ok(),
             absl::StrCat(same.message(), "\n", context, "\nexpected ",
                          expected.ToString(), "\nactual   ",
                          actual.ToString()));
}

std::string Describe(const RandomGraph& graph, const Config& config) {
  return absl::StrCat(graph.description,
                      config.exact ? " exact" : " reassociated",
                      config.full_pipeline ? ", full pipeline\n"
                                           : ", no passes\n",
                      graph.computation.module().ToString());
}

// One device: the evaluator on the module as written against the jit.
void CheckOneDevice(const RandomGraph& graph, const Config& config) {
  const HloModule& module = graph.computation.module();
  std::vector<const Literal*> arguments;
  for (const Literal& argument : graph.arguments) arguments.push_back(&argument);
  std::unique_ptr<HostFeedQueue> expected_feed = graph.MakeFeed();
  absl::StatusOr<Literal> expected =
      EvaluateModule(module, arguments, {.host_feed = expected_feed.get()});
  FUZZ_CHECK(expected.ok(), expected.status().ToString());
  // Constants the pipeline would fold (with the evaluator) are fed as
  // parameters, so the JIT computes every op itself.
  absl::StatusOr<FedModule> fed = WithConstantsFed(module, arguments);
  FUZZ_CHECK(fed.ok(), fed.status().ToString());
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(*fed->module, CompileFor(config));
  const std::string context = Describe(graph, config);
  FUZZ_CHECK(executable.ok(),
             absl::StrCat(executable.status().ToString(), "\n", context));
  std::unique_ptr<HostFeedQueue> actual_feed = graph.MakeFeed();
  RunOptions run;
  run.host_feed = actual_feed.get();
  absl::StatusOr<Literal> actual = (*executable)->Run(fed->arguments, run);
  FUZZ_CHECK(actual.ok(),
             absl::StrCat(actual.status().ToString(), "\n", context));
  // The outfeed values in order, then the result.
  std::vector<Literal> expected_values = expected_feed->TakeOutfeed();
  std::vector<Literal> actual_values = actual_feed->TakeOutfeed();
  FUZZ_CHECK(expected_values.size() == actual_values.size(),
             absl::StrCat("outfeed counts differ\n", context));
  expected_values.push_back(*std::move(expected));
  actual_values.push_back(*std::move(actual));
  for (size_t i = 0; i < expected_values.size(); ++i) {
    CheckSame(config, expected_values[i], actual_values[i], context);
  }
}

// Compiles `module` for the assignment's devices and runs it on each,
// with the fed constants after each device's arguments.
std::vector<Literal> RunOnDevices(const HloModule& module,
                                  CompileOptions compile,
                                  const RandomGraph& graph,
                                  const DeviceAssignment& assignment,
                                  const std::vector<Literal>& constants,
                                  const std::string& context) {
  compile.replicas = assignment.replica_count();
  compile.partitions = assignment.partition_count();
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(module, compile);
  FUZZ_CHECK(executable.ok(),
             absl::StrCat(executable.status().ToString(), "\n", context));
  std::vector<std::vector<const Literal*>> arguments;
  for (const std::vector<Literal>& mine : graph.device_arguments) {
    arguments.emplace_back();
    for (const Literal& argument : mine) arguments.back().push_back(&argument);
    for (const Literal& constant : constants) {
      arguments.back().push_back(&constant);
    }
  }
  absl::StatusOr<std::vector<Literal>> results =
      (*executable)->RunReplicated(arguments, assignment);
  FUZZ_CHECK(results.ok(),
             absl::StrCat(results.status().ToString(), "\n", context));
  return *std::move(results);
}

// Several devices: the interpreter on the module as written against the
// jit, device by device.
void CheckDevices(const RandomGraph& graph, const Config& config,
                  const DeviceAssignment& assignment) {
  const HloModule& module = graph.computation.module();
  const std::string context = absl::StrCat(
      "devices ", assignment.ToString(), ": ", Describe(graph, config));
  CompileOptions interpreter;
  interpreter.backend = Backend::kInterpreter;
  interpreter.passes = std::vector<std::string>{};
  const std::vector<Literal> expected =
      RunOnDevices(module, interpreter, graph, assignment, {}, context);
  std::vector<const Literal*> arguments;
  for (const Literal& argument : graph.arguments) arguments.push_back(&argument);
  absl::StatusOr<FedModule> fed = WithConstantsFed(module, arguments);
  FUZZ_CHECK(fed.ok(), fed.status().ToString());
  const std::vector<Literal> actual =
      RunOnDevices(*fed->module, CompileFor(config), graph, assignment,
                   fed->constants, context);
  FUZZ_CHECK(expected.size() == actual.size(), context);
  for (size_t d = 0; d < expected.size(); ++d) {
    CheckSame(config, expected[d], actual[d],
              absl::StrCat("device ", d, " of ", context));
  }
}

// The device counts the last bytes choose: one input in four (and none
// that ends before them) runs on 2 to 8 devices, split into replicas and
// partitions by one of the count's divisors.
void ReadDeviceCounts(fuzz::ByteReader& in, RandomGraphOptions& options) {
  if (in.Int(0, 3) != 3) return;
  const int64_t devices = in.Int(2, 8);
  std::vector<int64_t> partitions;
  for (int64_t p = 1; p <= devices; ++p) {
    if (devices % p == 0) partitions.push_back(p);
  }
  options.partitions = in.Pick(partitions);
  options.replicas = devices / options.partitions;
  // The interpreter runs every device: no scale tier; one host feed
  // cannot serve several devices.
  options.parameter_dimensions.clear();
  options.allow_host_feed = false;
}

// XLA's default placement, or (one byte, odd) the devices shuffled by the
// next bytes.
DeviceAssignment ReadAssignment(fuzz::ByteReader& in,
                                const RandomGraphOptions& options) {
  const int64_t replicas = options.replicas;
  const int64_t partitions = options.partitions;
  if (!in.Bool()) return DeviceAssignment::Default(replicas, partitions);
  std::vector<int64_t> ids(replicas * partitions);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  for (size_t i = ids.size() - 1; i > 0; --i) {
    std::swap(ids[i], ids[in.Int(0, i)]);
  }
  absl::StatusOr<DeviceAssignment> assignment =
      DeviceAssignment::Create(replicas, partitions, ids);
  FUZZ_CHECK(assignment.ok(), assignment.status().ToString());
  return *std::move(assignment);
}

}  // namespace
}  // namespace mxla

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mxla;
  fuzz::ByteReader in(data, size);
  uint64_t seed = in.U64();
  RandomGraphOptions options;
  options.max_instructions = in.Int(1, 24);
  options.max_rank = in.Int(1, 5);
  options.max_dimension_size = in.Int(1, 9);
  options.element_types.clear();
  for (PrimitiveType type : fuzz::kDifferentialFirstTypes) {
    if (in.Bool()) options.element_types.push_back(type);
  }
  Config config;
  config.exact = in.Bool();
  config.full_pipeline = in.Bool();
  config.stream_everything = in.Int(0, 7) == 0;
  if (in.Int(0, 7) == 7) {  // not 0: what inputs that end early read
    // Up to 3 * 2^20 elements (12 MiB of f32): large enough for every
    // kernel path, small enough for the evaluator to keep a run short.
    options.max_rank = std::max<int64_t>(options.max_rank, 2);
    const int64_t columns = in.Int(1, 65536);
    const int64_t rank = in.Int(2, options.max_rank);
    options.parameter_dimensions = {columns};
    int64_t elements = columns;
    for (int64_t i = 1; i < rank; ++i) {
      const int64_t size = in.Int(1, 2053);
      if (elements * size > (int64_t{3} << 20)) break;
      options.parameter_dimensions.insert(options.parameter_dimensions.begin(),
                                          size);
      elements *= size;
    }
    options.max_instructions = std::min<int64_t>(options.max_instructions, 8);
  }
  // After the scale tier; false on exhausted input, so older corpus
  // entries keep their meaning.
  options.tuple_parameter = in.Int(0, 3) == 3;
  options.allow_host_feed = in.Int(0, 3) == 3;
  // The table's other element types, then the op groups, each switched
  // off by one byte (on when the bytes have run out), so that the bytes
  // steer which ops the seed's graph draws from.
  for (PrimitiveType type : fuzz::DifferentialLaterTypes()) {
    if (in.Bool()) options.element_types.push_back(type);
  }
  if (options.element_types.empty()) options.element_types.push_back(F32);
  for (bool* allowed :
       {&options.allow_reduce, &options.allow_transpose, &options.allow_reshape,
        &options.allow_select, &options.allow_convert, &options.allow_index_ops,
        &options.allow_element_ops, &options.allow_transcendental}) {
    *allowed = in.Int(0, 3) != 3;
  }
  ReadDeviceCounts(in, options);

  absl::StatusOr<RandomGraph> graph = GenerateRandomGraph(seed, options);
  FUZZ_CHECK(graph.ok(), graph.status().ToString());
  if (graph->device_arguments.empty()) {
    CheckOneDevice(*graph, config);
  } else {
    CheckDevices(*graph, config, ReadAssignment(in, options));
  }
  return 0;
}
