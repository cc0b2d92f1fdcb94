#include "passes/batched_matrix_builder.h"

#include <utility>

#include "ir/dot_dimension_numbers.h"
#include "ir/shape_util.h"
#include "semantics/scalar_semantics.h"

namespace mxla::expansion {

Shape BatchedMatrixBuilder::Batched(PrimitiveType type,
                                    absl::Span<const int64_t> dims) const {
  std::vector<int64_t> all = dims_;
  all.insert(all.end(), dims.begin(), dims.end());
  return ShapeUtil::MakeShape(type, all);
}

HloInstruction* BatchedMatrixBuilder::Fill(const Literal& value,
                                           const Shape& shape) {
  HloInstruction* scalar = Add(HloInstruction::CreateConstant(
      semantics::ApplyConvert(value, shape.element_type()).value()));
  return Add(HloInstruction::CreateBroadcast(shape, scalar, {}));
}

HloInstruction* BatchedMatrixBuilder::Spread(HloInstruction* x,
                                             const Shape& shape) {
  return Add(HloInstruction::CreateBroadcast(
      ShapeUtil::ChangeElementType(shape, x->shape().element_type()), x,
      Iota(0, x->shape().rank())));
}

HloInstruction* BatchedMatrixBuilder::Index(int64_t value) {
  return Constant<int64_t>(value);
}

std::vector<HloInstruction*> BatchedMatrixBuilder::Starts(
    std::vector<HloInstruction*> minor) {
  std::vector<HloInstruction*> starts;
  for (int64_t d = 0; d < batch_rank(); ++d) starts.push_back(Index(0));
  starts.insert(starts.end(), minor.begin(), minor.end());
  return starts;
}

HloInstruction* BatchedMatrixBuilder::Slice(
    HloInstruction* x, std::vector<HloInstruction*> minor_starts,
    std::vector<int64_t> minor_sizes) {
  std::vector<HloInstruction*> operands = {x};
  for (HloInstruction* start : Starts(std::move(minor_starts))) {
    operands.push_back(start);
  }
  std::vector<int64_t> sizes = dims_;
  sizes.insert(sizes.end(), minor_sizes.begin(), minor_sizes.end());
  HloInstruction* slice = Add(HloInstruction::CreateGeneric(
      HloOpcode::kDynamicSlice,
      ShapeUtil::MakeShape(x->shape().element_type(), sizes), operands));
  slice->set_dynamic_slice_sizes(sizes);
  return slice;
}

HloInstruction* BatchedMatrixBuilder::Update(
    HloInstruction* x, HloInstruction* update,
    std::vector<HloInstruction*> minor_starts) {
  std::vector<HloInstruction*> operands = {x, update};
  for (HloInstruction* start : Starts(std::move(minor_starts))) {
    operands.push_back(start);
  }
  return Add(HloInstruction::CreateGeneric(HloOpcode::kDynamicUpdateSlice,
                                           x->shape(), operands));
}

HloInstruction* BatchedMatrixBuilder::Row(HloInstruction* matrix,
                                          HloInstruction* i) {
  const int64_t columns = matrix->shape().dimensions(batch_rank() + 1);
  return Reshaped(computation_, Slice(matrix, {i, Index(0)}, {1, columns}),
                  Concat(dims_, std::vector<int64_t>{columns}));
}

HloInstruction* BatchedMatrixBuilder::Column(HloInstruction* matrix,
                                             HloInstruction* j) {
  const int64_t rows = matrix->shape().dimensions(batch_rank());
  return Reshaped(computation_, Slice(matrix, {Index(0), j}, {rows, 1}),
                  Concat(dims_, std::vector<int64_t>{rows}));
}

HloInstruction* BatchedMatrixBuilder::Entry(HloInstruction* vector,
                                            HloInstruction* i) {
  return Reshaped(computation_, Slice(vector, {i}, {1}), dims_);
}

HloInstruction* BatchedMatrixBuilder::WithRow(HloInstruction* matrix,
                                              HloInstruction* row,
                                              HloInstruction* i) {
  const int64_t columns = matrix->shape().dimensions(batch_rank() + 1);
  return Update(matrix,
                Reshaped(computation_, row,
                         Concat(dims_, std::vector<int64_t>{1, columns})),
                {i, Index(0)});
}

HloInstruction* BatchedMatrixBuilder::WithColumn(HloInstruction* matrix,
                                                 HloInstruction* column,
                                                 HloInstruction* j) {
  const int64_t rows = matrix->shape().dimensions(batch_rank());
  return Update(matrix,
                Reshaped(computation_, column,
                         Concat(dims_, std::vector<int64_t>{rows, 1})),
                {Index(0), j});
}

HloInstruction* BatchedMatrixBuilder::Dot(HloInstruction* lhs,
                                          HloInstruction* rhs,
                                          int64_t lhs_contracting,
                                          int64_t rhs_contracting,
                                          const Shape& shape) {
  DotDimensionNumbers dnums;
  dnums.lhs_batch = dnums.rhs_batch = Iota(0, batch_rank());
  dnums.lhs_contracting = {lhs_contracting};
  dnums.rhs_contracting = {rhs_contracting};
  HloInstruction* dot =
      Add(HloInstruction::CreateGeneric(HloOpcode::kDot, shape, {lhs, rhs}));
  dot->set_dot_dimension_numbers(dnums);
  return dot;
}

HloInstruction* BatchedMatrixBuilder::MatrixVector(HloInstruction* m,
                                                   HloInstruction* v) {
  const int64_t rows = m->shape().dimensions(batch_rank());
  return Dot(m, v, batch_rank() + 1, batch_rank(),
             Batched(m->shape().element_type(), {rows}));
}

HloInstruction* BatchedMatrixBuilder::VectorMatrix(HloInstruction* v,
                                                   HloInstruction* m) {
  const int64_t columns = m->shape().dimensions(batch_rank() + 1);
  return Dot(v, m, batch_rank(), batch_rank(),
             Batched(m->shape().element_type(), {columns}));
}

HloInstruction* BatchedMatrixBuilder::TransposeMinor(HloInstruction* matrix) {
  return Transposed(
      computation_, matrix,
      Concat(Iota(0, batch_rank()),
             std::vector<int64_t>{batch_rank() + 1, batch_rank()}));
}

HloInstruction* BatchedMatrixBuilder::Positions(int64_t n,
                                                ComparisonDirection direction,
                                                HloInstruction* i) {
  const Shape shape = Batched(S64, {n});
  HloInstruction* positions =
      Add(HloInstruction::CreateIota(shape, batch_rank()));
  return Compare(positions, Add(HloInstruction::CreateBroadcast(shape, i, {})),
                 direction);
}

HloInstruction* BatchedMatrixBuilder::Triangle(int64_t n,
                                               ComparisonDirection direction) {
  const Shape shape = Batched(S64, {n, n});
  HloInstruction* rows = Add(HloInstruction::CreateIota(shape, batch_rank()));
  HloInstruction* columns =
      Add(HloInstruction::CreateIota(shape, batch_rank() + 1));
  return Compare(columns, rows, direction);
}

}  // namespace mxla::expansion
