// RunAndCompare, after XLA's HloTestBase: run HLO text with mxla's Compile
// (the jit unless the options say otherwise) and with the reference
// evaluator, the oracle, on the same arguments, and compare the results.
//
//   EXPECT_TRUE(RunAndCompare(fixtures::Softmax(7, 13)));      // bit-exact
//   RunAndCompareOptions options;
//   options.error = ErrorSpec{1e-5, 1e-6};                    // within
//   options.compile.codegen.reassociate_reductions = true;
//   EXPECT_TRUE(RunAndCompare(text, options));
//   EXPECT_TRUE(RunAndCompare(text, Pointers(arguments), options));
//
// The text is parsed and verified (builder form: implicit broadcasts are
// allowed), the evaluator runs the module as written, and Compile runs it
// through the backend's pipeline, with the constants that pipeline would
// fold fed as parameters instead (tests/testlib/feed_constants.h), so the
// backend computes every op itself. Without arguments, each entry parameter
// gets a seeded value (MakeSeededArguments). The result is an
// AssertionResult: on failure its message says what failed; a mismatch
// names the comparison, the result shape, the first differing index and
// both values (the interpreter's as "expected").
#ifndef MXLA_TESTS_TESTLIB_HLO_TEST_BASE_H_
#define MXLA_TESTS_TESTLIB_HLO_TEST_BASE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"
#include "runtime/executable.h"

namespace mxla::testing {

// Floating-point results agree if |actual - expected| <= abs + rel *
// |expected|; NaN matches NaN, an infinity only itself, and integers and
// pred must be equal (LiteralUtil::Near).
struct ErrorSpec {
  double abs = 0;
  double rel = 0;
};

struct RunAndCompareOptions {
  CompileOptions compile;  // the backend under test and its options
  RunOptions run;
  // Unset: bit-exact (the same bytes, so -0 differs from +0 and NaN
  // encodings must match).
  std::optional<ErrorSpec> error;
  uint64_t seed = 0;  // for the generated arguments
  // What the module's infeeds read, in order, in each backend; their
  // outfeed values must then agree too. (run.host_feed, if set, is
  // replaced by this feed.)
  std::vector<const Literal*> infeed;
};

// Parses `hlo_text` and verifies it in builder mode; the error says which
// step failed.
absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerifyModule(
    absl::string_view hlo_text);

// The status of parsing `hlo_text` and verifying it in builder mode, as
// the parser or the verifier returns it: what tests of error messages
// check.
absl::Status VerifyHloText(absl::string_view hlo_text);

// One value per entry parameter, deterministic per seed: floats in [-2, 2)
// (never 0), integers in [-8, 8), pred random, as the random graphs draw
// their arguments; tuple parameters element by element.
std::vector<Literal> MakeSeededArguments(const HloModule& module,
                                         uint64_t seed);

// `executable`'s results on `arguments` at each of `thread_counts`, run on
// one pool as large as the largest count: what determinism tests compare.
absl::StatusOr<std::vector<Literal>> RunAtThreadCounts(
    const Executable& executable, absl::Span<const Literal* const> arguments,
    absl::Span<const int> thread_counts);

// Compiles `module` with the default options, runs it at each of
// `thread_counts` and checks every result against the interpreter's,
// bit-exact (or within `error`): what the native kernels' tests assert.
::testing::AssertionResult MatchesInterpreterAtThreadCounts(
    const HloModule& module, absl::Span<const Literal* const> arguments,
    absl::Span<const int> thread_counts,
    const std::optional<ErrorSpec>& error = std::nullopt);

// `actual` against `expected`, bit-exact or within `error`.
::testing::AssertionResult CompareLiterals(
    const Literal& expected, const Literal& actual,
    const std::optional<ErrorSpec>& error);

::testing::AssertionResult RunAndCompare(
    absl::string_view hlo_text, const RunAndCompareOptions& options = {});
::testing::AssertionResult RunAndCompare(
    absl::string_view hlo_text, absl::Span<const Literal* const> arguments,
    const RunAndCompareOptions& options = {});
::testing::AssertionResult RunAndCompare(
    const HloModule& module, absl::Span<const Literal* const> arguments,
    const RunAndCompareOptions& options = {});

// For tests that pin values: parses and verifies `hlo_text`, checks with
// RunAndCompare that Compile agrees with the evaluator, and returns the
// evaluator's result. Each failure is recorded as a test failure; the
// result is then an empty Literal.
Literal EvaluateAndCompare(absl::string_view hlo_text,
                           absl::Span<const Literal* const> arguments = {},
                           const RunAndCompareOptions& options = {});

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_HLO_TEST_BASE_H_
