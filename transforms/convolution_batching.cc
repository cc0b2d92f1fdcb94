// The batching rule of convolution, as JAX's conv_general_dilated batch
// rule: the batch folds into a dimension the convolution already has, in
// a grouping that keeps the examples apart, the convolution runs once and
// the result's dimension unfolds again.
//
//   input batched          the batch joins the input's batch dimension
//                          (each example's rows together); with batch
//                          groups, inside each group
//   kernel batched         the batch joins the kernel's output features,
//                          inside each feature or batch group
//   both batched           every example is one more group: the batch
//                          joins the input's features (its batch, for
//                          batch groups) and the kernel's output features,
//                          and the group count is multiplied by it
//
// In each the batch is the major part of the dimension it joins.
#include <vector>

#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

std::vector<int64_t> DimsOf(const XlaOp& x) {
  absl::StatusOr<Shape> shape = x.builder()->GetShape(x);
  if (!shape.ok()) return {};
  return {shape->dimensions().begin(), shape->dimensions().end()};
}

// JAX's _reshape_axis_into: `x` with its axis `src` merged into axis
// `dst` (numbered without `src`), `src` the major part.
XlaOp ReshapeAxisInto(XlaOp x, int64_t src, int64_t dst) {
  std::vector<int64_t> dims = DimsOf(x);
  if (dims.empty()) return x;  // the builder holds the error
  std::vector<int64_t> permutation;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != src) permutation.push_back(d);
  }
  permutation.insert(permutation.begin() + dst, src);
  const int64_t size = dims[src];
  dims.erase(dims.begin() + src);
  dims[dst] *= size;
  return Reshape(Transpose(x, permutation), dims);
}

// JAX's _reshape_axis_out_of: `x` with its axis `src` split into
// (`size`, the rest), `size` the major part.
XlaOp ReshapeAxisOutOf(XlaOp x, int64_t src, int64_t size) {
  std::vector<int64_t> dims = DimsOf(x);
  if (dims.empty()) return x;
  dims[src] /= size;
  dims.insert(dims.begin() + src, size);
  return Reshape(x, dims);
}

// `value` with dimension `from` moved to the front.
XlaOp ToFront(XlaOp value, int64_t from) {
  const int64_t rank = DimsOf(value).size();
  if (from == 0 || rank == 0) return value;
  std::vector<int64_t> permutation = {from};
  for (int64_t d = 0; d < rank; ++d) {
    if (d != from) permutation.push_back(d);
  }
  return Transpose(value, permutation);
}

// A batched operand's batch (its dimension 0) folded into its dimension
// `dim` (numbered as in the unbatched operand) inside each of `groups`
// groups, so each group keeps its own slice of every example:
// [B, ..., G * K, ...] -> [..., G * B * K, ...].
XlaOp FoldInsideGroups(XlaOp batched, int64_t dim, int64_t groups) {
  if (groups == 1) return ReshapeAxisInto(batched, 0, dim);
  XlaOp split =
      ReshapeAxisOutOf(batched, dim + 1, groups);    // [B, .., G, K, ..]
  XlaOp inner = ReshapeAxisInto(split, 0, dim + 1);  // [.., G, B*K, ..]
  return ReshapeAxisInto(inner, dim, dim);
}

// The convolution copied with new operands and group counts, its shape
// inferred.
absl::StatusOr<XlaOp> Convolve(const BatchContext& context, XlaOp lhs,
                               XlaOp rhs, int64_t feature_groups,
                               int64_t batch_groups) {
  const HloInstruction& conv = context.instruction;
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers numbers,
                   conv.convolution_dimension_numbers());
  ASSIGN_OR_RETURN(Shape lhs_shape, context.builder.GetShape(lhs));
  ASSIGN_OR_RETURN(Shape rhs_shape, context.builder.GetShape(rhs));
  ASSIGN_OR_RETURN(Shape shape,
                   ShapeInference::InferConvolveShape(
                       lhs_shape, rhs_shape, feature_groups, batch_groups,
                       conv.window(), numbers, conv.shape().element_type()));
  return EmitCopyOf(context.builder, conv, shape, {lhs, rhs}, context.callees,
                    [&](HloInstruction& copy) {
                      copy.mutable_attributes().Set(AttrId::kFeatureGroupCount,
                                                    feature_groups);
                      copy.mutable_attributes().Set(AttrId::kBatchGroupCount,
                                                    batch_groups);
                    });
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kConvolution>,
                             const BatchContext& context) {
  const HloInstruction& conv = context.instruction;
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers n,
                   conv.convolution_dimension_numbers());
  const int64_t b = context.batch_size;
  const int64_t feature_groups = conv.feature_group_count();
  const int64_t batch_groups = conv.batch_group_count();
  const XlaOp lhs = context.operands[0], rhs = context.operands[1];
  if (context.batched[0] && context.batched[1]) {
    const bool by_batch = batch_groups > 1;
    ASSIGN_OR_RETURN(
        XlaOp value,
        Convolve(
            context,
            ReshapeAxisInto(lhs, 0, by_batch ? n.input_batch : n.input_feature),
            ReshapeAxisInto(rhs, 0, n.kernel_output_feature),
            by_batch ? feature_groups : feature_groups * b,
            by_batch ? batch_groups * b : batch_groups));
    return ToFront(ReshapeAxisOutOf(value, n.output_feature, b),
                   n.output_feature);
  }
  if (context.batched[0]) {
    ASSIGN_OR_RETURN(
        XlaOp value,
        Convolve(context, FoldInsideGroups(lhs, n.input_batch, batch_groups),
                 rhs, feature_groups, batch_groups));
    return ToFront(ReshapeAxisOutOf(value, n.output_batch, b), n.output_batch);
  }
  // Only the kernel: its output features are cut into groups (feature or
  // batch groups: at most one count is above 1), each example's inside
  // each group; the result's features come out as [G, B, K].
  const int64_t groups = feature_groups > 1 ? feature_groups : batch_groups;
  ASSIGN_OR_RETURN(
      XlaOp value,
      Convolve(context, lhs,
               FoldInsideGroups(rhs, n.kernel_output_feature, groups),
               feature_groups, batch_groups));
  const int64_t f = n.output_feature;
  if (groups == 1) return ToFront(ReshapeAxisOutOf(value, f, b), f);
  XlaOp split = ReshapeAxisOutOf(ReshapeAxisOutOf(value, f, groups), f + 1, b);
  return ToFront(ReshapeAxisInto(split, f, f + 1), f);
}

}  // namespace mxla::batching_rules
