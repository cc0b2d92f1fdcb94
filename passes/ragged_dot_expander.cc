#include "passes/ragged_dot_expander.h"

#include <cstdint>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "shape_inference/ragged_dot.h"

namespace mxla {
namespace {

std::vector<int64_t> DimsOf(const Shape& shape) {
  return std::vector<int64_t>(shape.dimensions().begin(),
                              shape.dimensions().end());
}

class Expander {
 public:
  Expander(HloComputation& computation, HloInstruction* ragged,
           RaggedDotPlan plan)
      : computation_(computation), ragged_(ragged), plan_(std::move(plan)) {}

  absl::StatusOr<HloInstruction*> Expand();

 private:
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    return computation_.AddInstruction(std::move(instruction));
  }
  HloInstruction* Splat(HloInstruction* scalar, const Shape& shape) {
    return Add(HloInstruction::CreateBroadcast(
        ShapeUtil::ChangeElementType(shape, scalar->shape().element_type()),
        scalar, {}));
  }
  HloInstruction* Dot(HloInstruction* lhs, HloInstruction* rhs,
                      const DotDimensionNumbers& dnums, const Shape& shape) {
    HloInstruction* dot = Add(
        HloInstruction::CreateGeneric(HloOpcode::kDot, shape, {lhs, rhs}));
    dot->set_dot_dimension_numbers(dnums);
    return dot;
  }
  // Group i's slice of rhs, without the group dimension.
  HloInstruction* GroupOfRhs(int64_t i);
  // bounds_[i] = where group i starts (s64, group_sizes' lead dimensions);
  // bounds_[num_groups] = where the last ends.
  void MakeBounds();
  // pred of `shape`: position along `position_dim` in group i, the lead
  // dimensions of group_sizes running along `lead_dims`.
  HloInstruction* InGroup(int64_t i, const Shape& shape,
                          const std::vector<int64_t>& lead_dims,
                          int64_t position_dim);
  HloInstruction* NonContracting();
  HloInstruction* Contracting();

  HloComputation& computation_;
  HloInstruction* ragged_;
  RaggedDotPlan plan_;
  std::vector<HloInstruction*> bounds_;
};

HloInstruction* Expander::GroupOfRhs(int64_t i) {
  HloInstruction* rhs = ragged_->mutable_operand(1);
  const Shape& shape = rhs->shape();
  std::vector<int64_t> starts(shape.rank(), 0);
  std::vector<int64_t> limits = DimsOf(shape);
  starts[plan_.rhs_group_dim] = i;
  limits[plan_.rhs_group_dim] = i + 1;
  std::vector<int64_t> dims = limits;
  dims[plan_.rhs_group_dim] = 1;
  HloInstruction* slice = Add(HloInstruction::CreateGeneric(
      HloOpcode::kSlice, ShapeUtil::MakeShape(shape.element_type(), dims),
      {rhs}));
  slice->set_slice(starts, limits, std::vector<int64_t>(shape.rank(), 1));
  return Add(HloInstruction::CreateReshape(
      ShapeUtil::DeleteDimension(shape, plan_.rhs_group_dim), slice));
}

void Expander::MakeBounds() {
  HloInstruction* sizes = ragged_->mutable_operand(2);
  const Shape& shape = sizes->shape();
  if (shape.element_type() != S64) {
    sizes = Add(HloInstruction::CreateConvert(
        ShapeUtil::ChangeElementType(shape, S64), sizes));
  }
  const int64_t last = shape.rank() - 1;
  std::vector<int64_t> lead(shape.dimensions().begin(),
                            shape.dimensions().end() - 1);
  const Shape lead_shape = ShapeUtil::MakeShape(S64, lead);
  bounds_ = {Splat(expansion::Zero(computation_, S64), lead_shape)};
  for (int64_t i = 0; i < plan_.num_groups; ++i) {
    std::vector<int64_t> starts(shape.rank(), 0);
    std::vector<int64_t> limits = DimsOf(shape);
    starts[last] = i;
    limits[last] = i + 1;
    std::vector<int64_t> dims = limits;
    dims[last] = 1;
    HloInstruction* slice = Add(HloInstruction::CreateGeneric(
        HloOpcode::kSlice, ShapeUtil::MakeShape(S64, dims), {sizes}));
    slice->set_slice(starts, limits, std::vector<int64_t>(shape.rank(), 1));
    HloInstruction* size = Add(HloInstruction::CreateReshape(lead_shape, slice));
    bounds_.push_back(Add(HloInstruction::CreateBinary(
        lead_shape, HloOpcode::kAdd, bounds_.back(), size)));
  }
}

HloInstruction* Expander::InGroup(int64_t i, const Shape& shape,
                                  const std::vector<int64_t>& lead_dims,
                                  int64_t position_dim) {
  const Shape positions_shape = ShapeUtil::MakeShape(S64, DimsOf(shape));
  const Shape pred_shape = ShapeUtil::MakeShape(PRED, DimsOf(shape));
  HloInstruction* position =
      Add(HloInstruction::CreateIota(positions_shape, position_dim));
  auto spread = [&](HloInstruction* bound) {
    return Add(
        HloInstruction::CreateBroadcast(positions_shape, bound, lead_dims));
  };
  HloInstruction* after_start =
      Add(HloInstruction::CreateCompare(pred_shape, spread(bounds_[i]),
                                        position, ComparisonDirection::kLe));
  HloInstruction* before_end =
      Add(HloInstruction::CreateCompare(pred_shape, position,
                                        spread(bounds_[i + 1]),
                                        ComparisonDirection::kLt));
  return Add(HloInstruction::CreateBinary(pred_shape, HloOpcode::kAnd,
                                          after_start, before_end));
}

HloInstruction* Expander::NonContracting() {
  const DotDimensionNumbers& dot = plan_.group_dot;
  const Shape shape = ShapeUtil::MakeShape(ragged_->shape().element_type(),
                                           DimsOf(ragged_->shape()));
  HloInstruction* lhs = ragged_->mutable_operand(0);
  // The result dimension of each lhs batch and free dimension.
  std::vector<int64_t> result_dim_of(lhs->shape().rank(), -1);
  for (size_t j = 0; j < dot.lhs_batch.size(); ++j) {
    result_dim_of[dot.lhs_batch[j]] = j;
  }
  const std::vector<int64_t> free = DotFreeDimensions(
      lhs->shape().rank(), dot.lhs_batch, dot.lhs_contracting);
  for (size_t p = 0; p < free.size(); ++p) {
    result_dim_of[free[p]] = dot.lhs_batch.size() + p;
  }
  std::vector<int64_t> lead_dims;
  for (int64_t d : plan_.lead_lhs_dims) lead_dims.push_back(result_dim_of[d]);
  // The first group that holds a row wins: select from the last group out.
  HloInstruction* result =
      Splat(expansion::Zero(computation_, shape.element_type()), shape);
  for (int64_t i = plan_.num_groups - 1; i >= 0; --i) {
    HloInstruction* product = Dot(lhs, GroupOfRhs(i), dot, shape);
    result = Add(HloInstruction::CreateSelect(
        shape,
        InGroup(i, shape, lead_dims, result_dim_of[plan_.lhs_ragged_dim]),
        product, result));
  }
  return result;
}

HloInstruction* Expander::Contracting() {
  const Shape shape = ShapeUtil::MakeShape(ragged_->shape().element_type(),
                                           DimsOf(ragged_->shape()));
  if (plan_.num_groups == 0) {
    return Splat(expansion::Zero(computation_, shape.element_type()), shape);
  }
  const Shape group_shape = ShapeUtil::DeleteDimension(shape, 0);
  std::vector<int64_t> one_group_dims = DimsOf(shape);
  one_group_dims[0] = 1;
  const Shape one_group = ShapeUtil::MakeShape(shape.element_type(),
                                               one_group_dims);
  auto masked = [&](HloInstruction* x, const std::vector<int64_t>& lead_dims,
                    int64_t ragged_dim, int64_t i) {
    return Add(HloInstruction::CreateSelect(
        x->shape(), InGroup(i, x->shape(), lead_dims, ragged_dim), x,
        Splat(expansion::Zero(computation_, x->shape().element_type()),
              x->shape())));
  };
  std::vector<HloInstruction*> groups;
  for (int64_t i = 0; i < plan_.num_groups; ++i) {
    HloInstruction* product =
        Dot(masked(ragged_->mutable_operand(0), plan_.lead_lhs_dims,
                   plan_.lhs_ragged_dim, i),
            masked(ragged_->mutable_operand(1), plan_.lead_rhs_dims,
                   plan_.rhs_ragged_dim, i),
            plan_.group_dot, group_shape);
    groups.push_back(Add(HloInstruction::CreateReshape(one_group, product)));
  }
  if (groups.size() == 1) return groups[0];
  HloInstruction* concatenated = Add(
      HloInstruction::CreateGeneric(HloOpcode::kConcatenate, shape, groups));
  concatenated->set_dimensions({0});
  return concatenated;
}

absl::StatusOr<HloInstruction*> Expander::Expand() {
  if (plan_.mode == RaggedDotMode::kBatch) {
    return Dot(ragged_->mutable_operand(0), ragged_->mutable_operand(1),
               ragged_->ragged_dot_dimension_numbers().dot,
               ShapeUtil::MakeShape(ragged_->shape().element_type(),
                                    DimsOf(ragged_->shape())));
  }
  MakeBounds();
  return plan_.mode == RaggedDotMode::kNonContracting ? NonContracting()
                                                      : Contracting();
}

absl::StatusOr<HloInstruction*> Expand(HloComputation& computation,
                                       HloInstruction* ragged) {
  ASSIGN_OR_RETURN(
      RaggedDotPlan plan,
      PlanRaggedDot(ragged->operand(0)->shape(), ragged->operand(1)->shape(),
                    ragged->operand(2)->shape(),
                    ragged->ragged_dot_dimension_numbers()));
  return Expander(computation, ragged, std::move(plan)).Expand();
}

}  // namespace

absl::StatusOr<bool> RaggedDotExpanderPass::Run(HloModule& module) {
  return expansion::ExpandEach(module, {HloOpcode::kRaggedDot}, Expand);
}

}  // namespace mxla
