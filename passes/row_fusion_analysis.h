// Row fusions: a fused computation with reductions inside it (not only at
// its root) that can still run as one pass per row. Softmax is the model:
//   m = reduce-max(x) over the last dimension; e = exp(x - broadcast(m));
//   s = reduce-sum(e); out = e / broadcast(s)
// For each row r, the kernel runs one loop along the row per reduce (in
// order) and a last one for the output; every value that depends on a
// reduce is needed only at row r, so the reduce results are registers and
// x's row stays in the L1 cache between the loops.
//
// The computation qualifies when:
//   * every reduce has one operand, of one common shape S = R ++ C, and
//     reduces exactly the trailing dimensions C (R has rank >= 1);
//   * the values that depend on a reduce ("row-dependent") all have shape
//     R or S (any element type), the root among them, and each is read
//     only by an elementwise op of its own shape, by a broadcast from R
//     that keeps R as the leading dimensions, or as the operand of a reduce;
//   * at least one reduce is not the root (else it is a plain reduction).
// Values that do not depend on a reduce (parameters, constants, iota and
// their index maps) may be read at any index.
//
// Used by the row-fusion pass (may two fusions merge?) and by fusion
// planning (the row plan: passes/fusion_planning.h).
#ifndef MXLA_PASSES_ROW_FUSION_ANALYSIS_H_
#define MXLA_PASSES_ROW_FUSION_ANALYSIS_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"

namespace mxla {

struct RowFusion {
  std::vector<int64_t> row_dimensions;     // R
  std::vector<int64_t> column_dimensions;  // C
  // The reduces in post order: loop p computes reduces[p] for the row.
  std::vector<const HloInstruction*> reduces;
  // Row-dependent full-row expensive values (IsExpensiveProducer) that
  // several loops compute, each with the loop that first computes it (an
  // index into `reduces`, or reduces.size() for the output loop).
  absl::flat_hash_map<const HloInstruction*, int64_t> bufferable;
  // Those of them kept in a row buffer, first come first served within
  // kRowBufferBudgetBytes (passes/fusion_cost_model.h): written by their
  // first loop and loaded by later ones.
  absl::flat_hash_map<const HloInstruction*, int64_t> buffered;
};

// The row structure of `computation`, or InvalidArgument saying which
// condition fails (so a pass can ask and tests can check why not).
absl::StatusOr<RowFusion> AnalyzeRowFusion(const HloComputation& computation);

}  // namespace mxla

#endif  // MXLA_PASSES_ROW_FUSION_ANALYSIS_H_
