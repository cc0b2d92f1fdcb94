// ragged-dot in the interpreter (shape_inference/ragged_dot.h), as one dot
// per group: the non-contracting mode takes each row from its group's dot
// (0 for a row in no group), the contracting mode zeroes both operands
// outside the group's part of the contracted dimension, the batch mode is
// a dot.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/index_walk.h"
#include "semantics/scalar_semantics.h"
#include "shape_inference/ragged_dot.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// Where each group starts and ends, per index of group_sizes' lead
// dimensions: group i covers [sum of the sizes before it, + size i).
class GroupBounds {
 public:
  explicit GroupBounds(const Literal& sizes_s64)
      : groups_(sizes_s64.shape().dimensions(sizes_s64.shape().rank() - 1)) {
    absl::Span<const int64_t> sizes = sizes_s64.data<int64_t>();
    const std::vector<int64_t> dims(sizes_s64.shape().dimensions().begin(),
                                    sizes_s64.shape().dimensions().end() - 1);
    lead_strides_ = semantics::RowMajorStrides(dims);
    const int64_t leads =
        groups_ == 0 ? 0 : static_cast<int64_t>(sizes.size()) / groups_;
    starts_.resize(leads * (groups_ + 1));
    for (int64_t lead = 0; lead < leads; ++lead) {
      int64_t start = 0;
      for (int64_t i = 0; i < groups_; ++i) {
        starts_[lead * (groups_ + 1) + i] = start;
        start += sizes[lead * groups_ + i];
      }
      starts_[lead * (groups_ + 1) + groups_] = start;
    }
  }

  // The row-major lead index of `index`, an index of an array whose
  // dimensions `lead_dims` the lead dimensions run along.
  int64_t Lead(const std::vector<int64_t>& index,
               const std::vector<int64_t>& lead_dims) const {
    int64_t lead = 0;
    for (size_t j = 0; j < lead_dims.size(); ++j) {
      lead += index[lead_dims[j]] * lead_strides_[j];
    }
    return lead;
  }
  bool Contains(int64_t lead, int64_t group, int64_t position) const {
    const int64_t* bounds = &starts_[lead * (groups_ + 1) + group];
    return bounds[0] <= position && position < bounds[1];
  }
  // The first group holding `position`, or -1.
  int64_t GroupOf(int64_t lead, int64_t position) const {
    for (int64_t i = 0; i < groups_; ++i) {
      if (Contains(lead, i, position)) return i;
    }
    return -1;
  }

 private:
  int64_t groups_;
  std::vector<int64_t> lead_strides_;
  std::vector<int64_t> starts_;
};

// `x` with the elements whose `ragged` position is outside `group` zeroed.
Literal MaskedToGroup(const Literal& x, const GroupBounds& bounds,
                      const std::vector<int64_t>& lead_dims, int64_t ragged,
                      int64_t group) {
  Literal masked(x);
  const auto& dims = x.shape().dimensions();
  primitive_util::ArrayTypeSwitch(x.shape().element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    absl::Span<T> data = masked.data<T>();
    std::vector<int64_t> index(dims.size(), 0);
    for (size_t k = 0; k < data.size(); ++k) {
      if (!bounds.Contains(bounds.Lead(index, lead_dims), group,
                           index[ragged])) {
        data[k] = semantics::Convert<T>(int32_t{0});
      }
      semantics::NextIndex(dims, index);
    }
  });
  return masked;
}

absl::StatusOr<Literal> NonContracting(const Literal& lhs, const Literal& rhs,
                                       const GroupBounds& bounds,
                                       const RaggedDotPlan& plan,
                                       const DotDimensionNumbers& dot,
                                       const Shape& shape) {
  // Result dimension of each lhs batch and free dimension.
  std::vector<int64_t> result_dim_of(lhs.shape().rank(), -1);
  for (size_t j = 0; j < dot.lhs_batch.size(); ++j) {
    result_dim_of[dot.lhs_batch[j]] = j;
  }
  const std::vector<int64_t> free = DotFreeDimensions(
      lhs.shape().rank(), dot.lhs_batch, dot.lhs_contracting);
  for (size_t p = 0; p < free.size(); ++p) {
    result_dim_of[free[p]] = dot.lhs_batch.size() + p;
  }
  std::vector<int64_t> lead_dims;
  for (int64_t d : plan.lead_lhs_dims) lead_dims.push_back(result_dim_of[d]);
  const int64_t row_dim = result_dim_of[plan.lhs_ragged_dim];

  std::vector<Literal> per_group;
  const Shape& rhs_shape = rhs.shape();
  for (int64_t i = 0; i < plan.num_groups; ++i) {
    std::vector<int64_t> starts(rhs_shape.rank(), 0);
    std::vector<int64_t> limits(rhs_shape.dimensions().begin(),
                                rhs_shape.dimensions().end());
    starts[plan.rhs_group_dim] = i;
    limits[plan.rhs_group_dim] = i + 1;
    ASSIGN_OR_RETURN(Literal slice,
                     EvaluateSlice(rhs, starts, limits,
                                   std::vector<int64_t>(rhs_shape.rank(), 1)));
    ASSIGN_OR_RETURN(
        Literal group_rhs,
        EvaluateReshape(slice, ShapeUtil::DeleteDimension(rhs_shape,
                                                          plan.rhs_group_dim)));
    ASSIGN_OR_RETURN(Literal product,
                     EvaluateDot(lhs, group_rhs, plan.group_dot, shape));
    per_group.push_back(std::move(product));
  }
  Literal result(shape);
  const auto& dims = shape.dimensions();
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    absl::Span<T> out = result.data<T>();
    std::vector<int64_t> index(dims.size(), 0);
    for (size_t k = 0; k < out.size(); ++k) {
      const int64_t group =
          bounds.GroupOf(bounds.Lead(index, lead_dims), index[row_dim]);
      out[k] = group < 0 ? semantics::Convert<T>(int32_t{0})
                         : per_group[group].data<T>()[k];
      semantics::NextIndex(dims, index);
    }
  });
  return result;
}

absl::StatusOr<Literal> Contracting(const Literal& lhs, const Literal& rhs,
                                    const GroupBounds& bounds,
                                    const RaggedDotPlan& plan,
                                    const Shape& shape) {
  const Shape group_shape = ShapeUtil::DeleteDimension(shape, 0);
  const int64_t group_elements = ShapeUtil::ElementsIn(group_shape);
  Literal result(shape);
  for (int64_t i = 0; i < plan.num_groups; ++i) {
    ASSIGN_OR_RETURN(
        Literal product,
        EvaluateDot(MaskedToGroup(lhs, bounds, plan.lead_lhs_dims,
                                  plan.lhs_ragged_dim, i),
                    MaskedToGroup(rhs, bounds, plan.lead_rhs_dims,
                                  plan.rhs_ragged_dim, i),
                    plan.group_dot, group_shape));
    primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      absl::Span<const T> from = product.data<T>();
      std::copy(from.begin(), from.end(),
                result.data<T>().begin() + i * group_elements);
    });
  }
  return result;
}

}  // namespace

absl::StatusOr<Literal> EvaluateRaggedDot(const Literal& lhs, const Literal& rhs,
                                          const Literal& group_sizes,
                                          const RaggedDotDimensionNumbers& dnums,
                                          const Shape& shape) {
  ASSIGN_OR_RETURN(RaggedDotPlan plan,
                   PlanRaggedDot(lhs.shape(), rhs.shape(), group_sizes.shape(),
                                 dnums));
  if (plan.mode == RaggedDotMode::kBatch) {
    return EvaluateDot(lhs, rhs, dnums.dot, shape);
  }
  ASSIGN_OR_RETURN(Literal sizes, semantics::ApplyConvert(group_sizes, S64));
  const GroupBounds bounds(sizes);
  if (plan.mode == RaggedDotMode::kNonContracting) {
    return NonContracting(lhs, rhs, bounds, plan, dnums.dot, shape);
  }
  return Contracting(lhs, rhs, bounds, plan, shape);
}

}  // namespace mxla::hlo_evaluator_internal
