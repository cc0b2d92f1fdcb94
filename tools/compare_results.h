// What `mxla run --compare` reports about the results of two backends.
#ifndef MXLA_TOOLS_COMPARE_RESULTS_H_
#define MXLA_TOOLS_COMPARE_RESULTS_H_

#include "absl/status/status.h"
#include "ir/literal.h"

namespace mxla::tools {

// The largest absolute difference between two literals of one shape (tuples
// element by element). Equal values, the same infinity included, and NaN
// against NaN differ by 0; NaN against a number, or an infinity against
// anything else, by infinity.
double LargestDifference(const Literal& a, const Literal& b);

// OK if `first` and `second` agree within `tolerance` (absolute and
// relative, LiteralUtil::Near: an infinity only matches itself, NaN only
// NaN); else InvalidArgument "--compare: jit and interpreter differ beyond
// tolerance T: " and the first differing element.
absl::Status CompareResults(const Literal& first, const Literal& second,
                            double tolerance);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_COMPARE_RESULTS_H_
