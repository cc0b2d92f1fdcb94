// Builds HLO on batches of matrices [B..., rows, columns] and vectors
// [B..., n] that share their leading batch dimensions B...: rows, columns
// and entries at a run-time index, matrix-vector products, triangle masks.
// What the loops of expand-choleskys and expand-triangular-solves are
// made of.
#ifndef MXLA_PASSES_BATCHED_MATRIX_BUILDER_H_
#define MXLA_PASSES_BATCHED_MATRIX_BUILDER_H_

#include <cstdint>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/literal.h"
#include "passes/expansion_util.h"

namespace mxla::expansion {

class BatchedMatrixBuilder : public ElementwiseBuilder {
 public:
  BatchedMatrixBuilder(HloComputation& computation,
                       absl::Span<const int64_t> batch)
      : ElementwiseBuilder(computation, batch) {}

  // [B..., dims...] of `type`.
  Shape Batched(PrimitiveType type, absl::Span<const int64_t> dims) const;
  // `value` (converted to `shape`'s type as the interpreter converts)
  // everywhere in `shape`.
  HloInstruction* Fill(const Literal& value, const Shape& shape);
  // `x` [B..., d...] repeated along the dimensions `shape` adds after it.
  HloInstruction* Spread(HloInstruction* x, const Shape& shape);

  // Row i [B..., columns] and column j [B..., rows] of a matrix; entry i
  // [B...] of a vector; i and j are s64 scalars.
  HloInstruction* Row(HloInstruction* matrix, HloInstruction* i);
  HloInstruction* Column(HloInstruction* matrix, HloInstruction* j);
  HloInstruction* Entry(HloInstruction* vector, HloInstruction* i);
  // `matrix` with row i (column j) replaced.
  HloInstruction* WithRow(HloInstruction* matrix, HloInstruction* row,
                          HloInstruction* i);
  HloInstruction* WithColumn(HloInstruction* matrix, HloInstruction* column,
                             HloInstruction* j);

  // sum_k m[..., r, k] v[..., k]: [B..., rows].
  HloInstruction* MatrixVector(HloInstruction* m, HloInstruction* v);
  // sum_k v[..., k] m[..., k, c]: [B..., columns].
  HloInstruction* VectorMatrix(HloInstruction* v, HloInstruction* m);
  // Each matrix transposed.
  HloInstruction* TransposeMinor(HloInstruction* matrix);

  // pred [B..., n]: position p `direction` i, for p along the vector.
  HloInstruction* Positions(int64_t n, ComparisonDirection direction,
                            HloInstruction* i);
  // pred [B..., n, n]: column `direction` row (kLt: strictly lower).
  HloInstruction* Triangle(int64_t n, ComparisonDirection direction);

 private:
  int64_t batch_rank() const { return static_cast<int64_t>(dims_.size()); }
  HloInstruction* Index(int64_t value);
  // Start indices: 0 for the batch dimensions, then `minor`.
  std::vector<HloInstruction*> Starts(std::vector<HloInstruction*> minor);
  HloInstruction* Slice(HloInstruction* x,
                        std::vector<HloInstruction*> minor_starts,
                        std::vector<int64_t> minor_sizes);
  HloInstruction* Update(HloInstruction* x, HloInstruction* update,
                         std::vector<HloInstruction*> minor_starts);
  HloInstruction* Dot(HloInstruction* lhs, HloInstruction* rhs,
                      int64_t lhs_contracting, int64_t rhs_contracting,
                      const Shape& shape);
};

}  // namespace mxla::expansion

#endif  // MXLA_PASSES_BATCHED_MATRIX_BUILDER_H_
