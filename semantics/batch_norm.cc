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

// What every batch-norm op derives from x: per feature its mean and
// variance (computed in training, given otherwise) and sqrt(var +
// epsilon), and x less its feature's mean.
template <typename C>
struct Moments {
  std::vector<C> mean, var, deviation, centered;
  C m;  // elements per feature
};

template <typename C>
Moments<C> MomentsOf(HloOpcode opcode, const Operands<C>& in, C epsilon) {
  const std::vector<C>& x = in.values[0];
  Moments<C> s;
  s.m = static_cast<C>(in.features == 0 ? 0 : x.size() / in.features);
  if (opcode == HloOpcode::kBatchNormTraining) {
    s.mean = PerFeatureSum(x, in);
    for (C& v : s.mean) v = v / s.m;
  } else {
    s.mean = in.values[opcode == HloOpcode::kBatchNormInference ? 3 : 2];
    s.var = in.values[opcode == HloOpcode::kBatchNormInference ? 4 : 3];
  }
  s.centered.resize(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    s.centered[k] = x[k] - s.mean[in.Feature(k)];
  }
  if (opcode == HloOpcode::kBatchNormTraining) {
    std::vector<C> squares(x.size());
    for (size_t k = 0; k < x.size(); ++k) {
      squares[k] = s.centered[k] * s.centered[k];
    }
    s.var = PerFeatureSum(squares, in);
    for (C& v : s.var) v = v / s.m;
  }
  s.deviation.resize(in.features);
  for (int64_t f = 0; f < in.features; ++f) {
    s.deviation[f] = std::sqrt(s.var[f] + epsilon);
  }
  return s;
}

// The tuple of an operand-shaped array and two per-feature arrays, each
// converted to `type`.
template <typename C>
absl::StatusOr<Literal> ArrayAndPerFeature(const std::vector<C>& array,
                                           const std::vector<C>& first,
                                           const std::vector<C>& second,
                                           absl::Span<const int64_t> dims,
                                           PrimitiveType type) {
  const std::vector<int64_t> per_feature = {static_cast<int64_t>(first.size())};
  std::vector<Literal> parts(3);
  ASSIGN_OR_RETURN(parts[0], FromValues(array, dims, type));
  ASSIGN_OR_RETURN(parts[1], FromValues(first, per_feature, type));
  ASSIGN_OR_RETURN(parts[2], FromValues(second, per_feature, type));
  return LiteralUtil::MakeTuple(std::move(parts));
}

// Training and inference: y = centered / deviation * scale + offset (with
// training, the tuple of y, mean and var).
template <typename C>
absl::StatusOr<Literal> Normalize(HloOpcode opcode, const Operands<C>& in,
                                  const Moments<C>& s,
                                  const Shape& operand_shape) {
  const std::vector<C>& scale = in.values[1];
  const std::vector<C>& offset = in.values[2];
  std::vector<C> y(s.centered.size());
  for (size_t k = 0; k < y.size(); ++k) {
    const int64_t f = in.Feature(k);
    y[k] = s.centered[k] / s.deviation[f] * scale[f] + offset[f];
  }
  const PrimitiveType type = operand_shape.element_type();
  if (opcode == HloOpcode::kBatchNormInference) {
    return FromValues(y, operand_shape.dimensions(), type);
  }
  return ArrayAndPerFeature(y, s.mean, s.var, operand_shape.dimensions(), type);
}

// The gradient: the tuple of dx, grad_scale and grad_offset.
template <typename C>
absl::StatusOr<Literal> Gradient(const Operands<C>& in, const Moments<C>& s,
                                 const Shape& operand_shape) {
  const std::vector<C>& scale = in.values[1];
  const std::vector<C>& dy = in.values[4];
  const size_t size = s.centered.size();
  const C m = s.m;
  const std::vector<C> grad_offset = PerFeatureSum(dy, in);
  std::vector<C> scaled(size);
  for (size_t k = 0; k < size; ++k) {
    scaled[k] = dy[k] * s.centered[k] / s.deviation[in.Feature(k)];
  }
  const std::vector<C> grad_scale = PerFeatureSum(scaled, in);
  std::vector<C> dx(size);
  for (size_t k = 0; k < size; ++k) {
    const int64_t f = in.Feature(k);
    dx[k] = scale[f] / s.deviation[f] *
            ((dy[k] - grad_offset[f] / m) -
             s.centered[k] * (grad_scale[f] / (m * s.deviation[f])));
  }
  return ArrayAndPerFeature(dx, grad_scale, grad_offset,
                            operand_shape.dimensions(),
                            operand_shape.element_type());
}

template <typename C>
absl::StatusOr<Literal> Compute(HloOpcode opcode, const Operands<C>& in,
                                C epsilon, const Shape& operand_shape) {
  const Moments<C> s = MomentsOf(opcode, in, epsilon);
  if (opcode == HloOpcode::kBatchNormGrad) {
    return Gradient(in, s, operand_shape);
  }
  return Normalize(opcode, in, s, operand_shape);
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
