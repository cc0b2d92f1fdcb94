#include "semantics/batch_norm.h"

#include <cmath>
#include <vector>

#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::semantics {
namespace {

// One operand's values in C, and which feature each element belongs to.
template <typename C>
struct Operands {
  std::vector<std::vector<C>> values;
  int64_t features = 0;
  int64_t inner = 1;  // elements per step of the feature dimension
  int64_t Feature(int64_t k) const { return (k / inner) % features; }
};

template <typename C>
std::vector<C> PerFeatureSum(const std::vector<C>& x, const Operands<C>& in) {
  std::vector<C> sum(in.features, C{0});
  for (size_t k = 0; k < x.size(); ++k) sum[in.Feature(k)] += x[k];
  return sum;
}

template <typename C>
absl::StatusOr<Literal> FromValues(const std::vector<C>& values,
                                   absl::Span<const int64_t> dims,
                                   PrimitiveType type) {
  Literal wide(ShapeUtil::MakeShape(primitive_util::kNativeToPrimitive<C>,
                                    dims));
  std::copy(values.begin(), values.end(), wide.data<C>().begin());
  return ApplyConvert(wide, type);
}

template <typename C>
absl::StatusOr<Literal> Compute(HloOpcode opcode, const Operands<C>& in,
                                C epsilon, const Shape& operand_shape) {
  const std::vector<C>& x = in.values[0];
  const std::vector<C>& scale = in.values[1];
  const PrimitiveType type = operand_shape.element_type();
  const absl::Span<const int64_t> dims = operand_shape.dimensions();
  const std::vector<int64_t> per_feature = {in.features};
  const C m = static_cast<C>(in.features == 0 ? 0 : x.size() / in.features);
  std::vector<C> mean, var;
  if (opcode == HloOpcode::kBatchNormTraining) {
    mean = PerFeatureSum(x, in);
    for (C& v : mean) v = v / m;
  } else {
    mean = in.values[opcode == HloOpcode::kBatchNormInference ? 3 : 2];
    var = in.values[opcode == HloOpcode::kBatchNormInference ? 4 : 3];
  }
  std::vector<C> centered(x.size());
  for (size_t k = 0; k < x.size(); ++k) centered[k] = x[k] - mean[in.Feature(k)];
  if (opcode == HloOpcode::kBatchNormTraining) {
    std::vector<C> squares(x.size());
    for (size_t k = 0; k < x.size(); ++k) squares[k] = centered[k] * centered[k];
    var = PerFeatureSum(squares, in);
    for (C& v : var) v = v / m;
  }
  std::vector<C> deviation(in.features);
  for (int64_t f = 0; f < in.features; ++f) deviation[f] = std::sqrt(var[f] + epsilon);

  if (opcode != HloOpcode::kBatchNormGrad) {
    const std::vector<C>& offset = in.values[2];
    std::vector<C> y(x.size());
    for (size_t k = 0; k < x.size(); ++k) {
      const int64_t f = in.Feature(k);
      y[k] = centered[k] / deviation[f] * scale[f] + offset[f];
    }
    ASSIGN_OR_RETURN(Literal out, FromValues(y, dims, type));
    if (opcode == HloOpcode::kBatchNormInference) return out;
    ASSIGN_OR_RETURN(Literal mean_out, FromValues(mean, per_feature, type));
    ASSIGN_OR_RETURN(Literal var_out, FromValues(var, per_feature, type));
    std::vector<Literal> parts;
    parts.push_back(std::move(out));
    parts.push_back(std::move(mean_out));
    parts.push_back(std::move(var_out));
    return LiteralUtil::MakeTuple(std::move(parts));
  }
  const std::vector<C>& dy = in.values[4];
  const std::vector<C> grad_offset = PerFeatureSum(dy, in);
  std::vector<C> scaled(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    scaled[k] = dy[k] * centered[k] / deviation[in.Feature(k)];
  }
  const std::vector<C> grad_scale = PerFeatureSum(scaled, in);
  std::vector<C> dx(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    const int64_t f = in.Feature(k);
    dx[k] = scale[f] / deviation[f] *
            ((dy[k] - grad_offset[f] / m) -
             centered[k] * (grad_scale[f] / (m * deviation[f])));
  }
  ASSIGN_OR_RETURN(Literal dx_out, FromValues(dx, dims, type));
  ASSIGN_OR_RETURN(Literal scale_out, FromValues(grad_scale, per_feature, type));
  ASSIGN_OR_RETURN(Literal offset_out,
                   FromValues(grad_offset, per_feature, type));
  std::vector<Literal> parts;
  parts.push_back(std::move(dx_out));
  parts.push_back(std::move(scale_out));
  parts.push_back(std::move(offset_out));
  return LiteralUtil::MakeTuple(std::move(parts));
}

template <typename C>
absl::StatusOr<Literal> EvaluateIn(HloOpcode opcode,
                                   absl::Span<const Literal* const> operands,
                                   double epsilon, int64_t feature_index) {
  const Shape& shape = operands[0]->shape();
  Operands<C> in;
  in.features = shape.dimensions(feature_index);
  for (int64_t d = feature_index + 1; d < shape.rank(); ++d) {
    in.inner *= shape.dimensions(d);
  }
  for (const Literal* operand : operands) {
    ASSIGN_OR_RETURN(Literal wide,
                     ApplyConvert(*operand, primitive_util::kNativeToPrimitive<C>));
    absl::Span<const C> data = wide.data<C>();
    in.values.emplace_back(data.begin(), data.end());
  }
  return Compute<C>(opcode, in,
                    static_cast<C>(static_cast<float>(epsilon)), shape);
}

}  // namespace

absl::StatusOr<Literal> EvaluateBatchNorm(
    HloOpcode opcode, absl::Span<const Literal* const> operands,
    double epsilon, int64_t feature_index, const Shape& shape) {
  RET_CHECK(!operands.empty() && feature_index >= 0 &&
                feature_index < operands[0]->shape().rank(),
            HloOpcodeString(opcode), " of ", shape.ToString());
  if (primitive_util::ComputeType(operands[0]->shape().element_type()) == F64) {
    return EvaluateIn<double>(opcode, operands, epsilon, feature_index);
  }
  return EvaluateIn<float>(opcode, operands, epsilon, feature_index);
}

}  // namespace mxla::semantics
