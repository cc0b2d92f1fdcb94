// hoist-sort-keys: a sort whose comparator is `compare(g(a_i), g(b_i))`,
// where a_i and b_i are parameters 2i and 2i+1 (the two elements of operand
// i) and g is the same scalar function of that one parameter on both sides,
// built from exact elementwise ops (compare, select, convert,
// same-width bitcast-convert, negate, abs, not, and, or, xor, constants),
// becomes sort(g(x_i), x_0, ..., x_n-1) with the comparator
// `compare(p0, p1)` (same direction and comparison type) and the key's
// result dropped. g then runs once per element as a fused elementwise
// kernel instead of twice per comparison, and the JIT's runtime sorts the
// trivial comparator natively (runtime/native_sort.h). The comparator's
// answers are unchanged, so the permutation is the same. JAX's float
// comparators (NaN and -0 canonicalized before a TOTALORDER compare) have
// this form. A comparator reading anything else (two operands, a tie-break)
// or already trivial is left alone.
#ifndef MXLA_PASSES_SORT_KEY_HOISTING_H_
#define MXLA_PASSES_SORT_KEY_HOISTING_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"
#include "ir/primitive_type.h"
#include "passes/hlo_pass.h"

namespace mxla {

class SortKeyHoistingPass : public HloPass {
 public:
  absl::string_view name() const override { return "hoist-sort-keys"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// A trivial comparator: compare(p[2*operand], p[2*operand + 1]) with
// direction LT or GT, reading no other parameter.
struct TrivialSortComparator {
  int64_t operand = 0;
  PrimitiveType type = PRED;
  bool descending = false;   // GT
  bool total_order = false;  // type=TOTALORDER (floats)
};
std::optional<TrivialSortComparator> MatchTrivialSortComparator(
    const HloComputation& comparator);

}  // namespace mxla

#endif  // MXLA_PASSES_SORT_KEY_HOISTING_H_
