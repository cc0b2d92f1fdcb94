#include "tests/testlib/hlo_test_base.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/host_feed.h"
#include "ir/literal_text.h"
#include "tests/testlib/feed_constants.h"
#include "tests/testlib/literal_pointers.h"
#include "runtime/thread_pool.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::testing {
namespace {

using ::mxla::random_graph_internal::RandomLiteral;
using ::mxla::random_graph_internal::Rng;
using ::mxla::random_graph_internal::ValueStyle;

Literal SeededLiteral(Rng& rng, const Shape& shape) {
  if (!shape.IsTuple()) return RandomLiteral(rng, shape, ValueStyle::kArgument);
  std::vector<Literal> elements;
  for (const Shape& element : shape.tuple_shapes()) {
    elements.push_back(SeededLiteral(rng, element));
  }
  return LiteralUtil::MakeTuple(std::move(elements));
}

// "{i,j,...}" of a row-major linear index (shape has that element).
std::string IndexString(const Shape& shape, int64_t linear_index) {
  std::vector<int64_t> index;
  int64_t stride = ShapeUtil::ElementsIn(shape);
  for (int64_t size : shape.dimensions()) {
    stride /= size;
    index.push_back(linear_index / stride % size);
  }
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::string ElementBits(const Literal& literal, int64_t i) {
  const int64_t width =
      primitive_util::ByteWidth(literal.shape().element_type());
  uint64_t bits = 0;
  std::memcpy(&bits,
              static_cast<const uint8_t*>(literal.untyped_data()) + i * width,
              width);
  return absl::StrCat(FormatLiteralElement(literal, i, false), " (bits 0x",
                      absl::Hex(bits, absl::PadSpec(2 * width)), ")");
}

// The first element whose bytes differ, as LiteralUtil::Near words it, with
// the bits (which is all that tells two NaNs or two zeros apart); "" if
// every byte is equal. Shapes are equal.
std::string FirstBitDifference(const Literal& expected, const Literal& actual) {
  if (expected.shape().IsTuple()) {
    for (int64_t i = 0; i < expected.tuple_size(); ++i) {
      std::string difference = FirstBitDifference(expected.tuple_element(i),
                                                  actual.tuple_element(i));
      if (!difference.empty()) {
        return absl::StrCat("tuple element ", i, ": ", difference);
      }
    }
    return "";
  }
  const int64_t width =
      primitive_util::ByteWidth(expected.shape().element_type());
  const auto* e = static_cast<const uint8_t*>(expected.untyped_data());
  const auto* a = static_cast<const uint8_t*>(actual.untyped_data());
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    if (std::memcmp(e + i * width, a + i * width, width) == 0) continue;
    return absl::StrCat("value mismatch at index ",
                        IndexString(expected.shape(), i), ": expected ",
                        ElementBits(expected, i), ", actual ",
                        ElementBits(actual, i));
  }
  return "";
}

std::string Describe(const std::optional<ErrorSpec>& error) {
  if (!error.has_value()) return "bit-exact";
  return absl::StrCat("within abs ", error->abs, " + rel ", error->rel);
}

}  // namespace

absl::Status VerifyHloText(absl::string_view hlo_text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo_text);
  if (!module.ok()) return module.status();
  return VerifyModule(**module, VerifierMode::kBuilder);
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerifyModule(
    absl::string_view hlo_text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo_text);
  if (!module.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("parsing the HLO text: ", module.status().message()));
  }
  absl::Status verified = VerifyModule(**module, VerifierMode::kBuilder);
  if (!verified.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("verifying the module: ", verified.message()));
  }
  return module;
}

namespace {

// `compare` on the module `hlo_text` holds, or a failure naming the parse or
// verifier error.
template <typename Compare>
::testing::AssertionResult OnParsedModule(absl::string_view hlo_text,
                                          const Compare& compare) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerifyModule(hlo_text);
  if (!module.ok()) {
    return ::testing::AssertionFailure()
           << "RunAndCompare: " << module.status().message();
  }
  return compare(**module);
}

}  // namespace

std::vector<Literal> MakeSeededArguments(const HloModule& module,
                                         uint64_t seed) {
  Rng rng(seed);
  std::vector<Literal> arguments;
  const HloComputation& entry = *module.entry_computation();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    arguments.push_back(
        SeededLiteral(rng, entry.parameter_instruction(i)->shape()));
  }
  return arguments;
}

::testing::AssertionResult CompareLiterals(
    const Literal& expected, const Literal& actual,
    const std::optional<ErrorSpec>& error) {
  std::string difference;
  if (expected.shape() != actual.shape()) {
    difference =
        absl::StrCat("shape mismatch: expected ", expected.shape().ToString(),
                     ", actual ", actual.shape().ToString());
  } else if (error.has_value()) {
    absl::Status near =
        LiteralUtil::Near(expected, actual, error->abs, error->rel);
    if (!near.ok()) difference = std::string(near.message());
  } else {
    difference = FirstBitDifference(expected, actual);
  }
  if (difference.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "results differ (" << Describe(error) << ") in "
         << expected.shape().ToString() << ": " << difference;
}

::testing::AssertionResult RunAndCompare(absl::string_view hlo_text,
                                         const RunAndCompareOptions& options) {
  return OnParsedModule(hlo_text, [&](const HloModule& module) {
    std::vector<Literal> arguments = MakeSeededArguments(module, options.seed);
    return RunAndCompare(module, Pointers(arguments), options);
  });
}

::testing::AssertionResult RunAndCompare(
    absl::string_view hlo_text, absl::Span<const Literal* const> arguments,
    const RunAndCompareOptions& options) {
  return OnParsedModule(hlo_text, [&](const HloModule& module) {
    return RunAndCompare(module, arguments, options);
  });
}

::testing::AssertionResult RunAndCompare(
    const HloModule& module, absl::Span<const Literal* const> arguments,
    const RunAndCompareOptions& options) {
  const HloComputation& entry = *module.entry_computation();
  if (static_cast<int64_t>(arguments.size()) != entry.num_parameters()) {
    return ::testing::AssertionFailure()
           << "RunAndCompare: " << arguments.size() << " arguments for module '"
           << module.name() << "', whose entry '" << entry.name() << "' has "
           << entry.num_parameters() << " parameters";
  }
  HostFeedQueue expected_feed, actual_feed;
  for (const Literal* value : options.infeed) {
    expected_feed.PushInfeed(Literal(*value));
    actual_feed.PushInfeed(Literal(*value));
  }
  absl::StatusOr<Literal> expected =
      EvaluateModule(module, arguments, {.host_feed = &expected_feed});
  if (!expected.ok()) {
    return ::testing::AssertionFailure()
           << "RunAndCompare: the interpreter failed: " << expected.status();
  }
  const absl::string_view backend = BackendName(options.compile.backend);
  // The backend computes what folding would have taken from the evaluator.
  absl::StatusOr<FedModule> fed = WithConstantsFed(module, arguments);
  if (!fed.ok()) {
    return ::testing::AssertionFailure()
           << "RunAndCompare: feeding constants as parameters failed: "
           << fed.status();
  }
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(*fed->module, options.compile);
  if (!executable.ok()) {
    return ::testing::AssertionFailure()
           << "RunAndCompare: " << backend
           << " compile failed: " << executable.status();
  }
  RunOptions run = options.run;
  run.host_feed = &actual_feed;
  absl::StatusOr<Literal> actual = (*executable)->Run(fed->arguments, run);
  if (!actual.ok()) {
    return ::testing::AssertionFailure() << "RunAndCompare: " << backend
                                         << " run failed: " << actual.status();
  }
  ::testing::AssertionResult same =
      CompareLiterals(*expected, *actual, options.error);
  const std::vector<Literal> expected_out = expected_feed.TakeOutfeed();
  const std::vector<Literal> actual_out = actual_feed.TakeOutfeed();
  if (same && expected_out.size() != actual_out.size()) {
    same = ::testing::AssertionFailure()
           << expected_out.size() << " outfeed values against "
           << actual_out.size();
  }
  for (size_t i = 0; same && i < expected_out.size(); ++i) {
    same = CompareLiterals(expected_out[i], actual_out[i], options.error);
    if (!same) same << " (outfeed value " << i << ")";
  }
  if (same) return same;
  return ::testing::AssertionFailure()
         << "RunAndCompare of module '" << module.name() << "': " << backend
         << " against the interpreter: " << same.message();
}

Literal EvaluateAndCompare(absl::string_view hlo_text,
                           absl::Span<const Literal* const> arguments,
                           const RunAndCompareOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerifyModule(hlo_text);
  if (!module.ok()) {
    ADD_FAILURE() << module.status();
    return Literal();
  }
  absl::StatusOr<Literal> result = EvaluateModule(**module, arguments);
  if (!result.ok()) {
    ADD_FAILURE() << "the evaluator failed: " << result.status();
    return Literal();
  }
  EXPECT_TRUE(RunAndCompare(**module, arguments, options));
  return *std::move(result);
}

absl::StatusOr<std::vector<Literal>> RunAtThreadCounts(
    const Executable& executable, absl::Span<const Literal* const> arguments,
    absl::Span<const int> thread_counts) {
  int largest = 1;
  for (int threads : thread_counts) largest = std::max(largest, threads);
  ThreadPool pool(largest);
  std::vector<Literal> results;
  for (int threads : thread_counts) {
    RunOptions options;
    options.thread_pool = &pool;
    options.threads = threads;
    absl::StatusOr<Literal> result = executable.Run(arguments, options);
    if (!result.ok()) return result.status();
    results.push_back(*std::move(result));
  }
  return results;
}

::testing::AssertionResult MatchesInterpreterAtThreadCounts(
    const HloModule& module, absl::Span<const Literal* const> arguments,
    absl::Span<const int> thread_counts,
    const std::optional<ErrorSpec>& error) {
  absl::StatusOr<Literal> expected = EvaluateModule(module, arguments);
  if (!expected.ok()) {
    return ::testing::AssertionFailure()
           << "interpreter: " << expected.status().ToString();
  }
  absl::StatusOr<std::unique_ptr<Executable>> executable = Compile(module, {});
  if (!executable.ok()) {
    return ::testing::AssertionFailure()
           << "compile: " << executable.status().ToString();
  }
  absl::StatusOr<std::vector<Literal>> results =
      RunAtThreadCounts(**executable, arguments, thread_counts);
  if (!results.ok()) {
    return ::testing::AssertionFailure()
           << "run: " << results.status().ToString();
  }
  for (size_t i = 0; i < results->size(); ++i) {
    ::testing::AssertionResult same =
        CompareLiterals(*expected, (*results)[i], error);
    if (!same) return same << " (at " << thread_counts[i] << " threads)";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace mxla::testing
