// Constant folding (the simplify pass) runs the evaluator, so an op whose
// operands are all constants reaches the backend under test as the
// evaluator's result, and comparing that backend with the evaluator then
// checks the evaluator against itself. The differential tests (RunAndCompare,
// the random-graph tests, the differential fuzzer) therefore compile a copy
// of the module whose foldable constants are parameters:
//
//   ASSIGN_OR_RETURN(FedModule fed, WithConstantsFed(module, arguments));
//   Compile(*fed.module, options) ... Run(fed.arguments)
//
// while the evaluator, the oracle, runs the module as written.
#ifndef MXLA_TESTS_TESTLIB_FEED_CONSTANTS_H_
#define MXLA_TESTS_TESTLIB_FEED_CONSTANTS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"

namespace mxla::testing {

// Turns every constant of `module`'s entry computation that a foldable op
// reads (also through other foldable ops; the ops passes/simplify.h folds)
// into a new entry parameter, numbered after the others, and returns their
// values in that order: the module then computes the same results from its
// old arguments followed by these. Constants inside called computations
// (loop bodies, comparators) stay. Errors are Internal (the module is then
// partly rewritten).
absl::StatusOr<std::vector<Literal>> FeedConstantsAsParameters(
    HloModule& module);

// A copy of a module with its foldable constants fed as parameters, and the
// arguments it takes: the original ones (borrowed), then the constants'
// values (owned here).
struct FedModule {
  std::unique_ptr<HloModule> module;
  std::vector<Literal> constants;
  std::vector<const Literal*> arguments;
  int64_t fed() const { return constants.size(); }
};

absl::StatusOr<FedModule> WithConstantsFed(
    const HloModule& module, absl::Span<const Literal* const> arguments);

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_FEED_CONSTANTS_H_
