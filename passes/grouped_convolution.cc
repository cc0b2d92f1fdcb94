#include "passes/grouped_convolution.h"

#include "ir/hlo_attribute.h"
#include "ir/literal.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"

namespace mxla {
namespace {

using expansion::Concat;
using expansion::Reshaped;
using expansion::Transposed;

// The scalar start index `begin` read from the s32[1] constant {begin}: a
// fusion parameter, not a fused scalar, so that the groups' slices and
// updates (and the products that fuse them) print alike and share one
// kernel.
HloInstruction* StartIndex(HloComputation& computation, int64_t begin) {
  HloInstruction* constant =
      computation.AddInstruction(HloInstruction::CreateConstant(
          LiteralUtil::CreateR1<int32_t>({static_cast<int32_t>(begin)})));
  return computation.AddInstruction(HloInstruction::CreateReshape(
      ShapeUtil::MakeShape(S32, {}), constant));
}

// Start indices of `rank` dimensions: `begin` along `dimension`, 0 along
// the others.
std::vector<HloInstruction*> StartIndices(HloComputation& computation,
                                          int64_t rank, int64_t dimension,
                                          int64_t begin) {
  HloInstruction* zero = computation.AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<int32_t>(0)));
  std::vector<HloInstruction*> starts(rank, zero);
  starts[dimension] = StartIndex(computation, begin);
  return starts;
}

// `operand`'s elements [begin, begin + size) along `dimension`.
HloInstruction* SliceAlong(HloComputation& computation,
                           HloInstruction* operand, int64_t dimension,
                           int64_t begin, int64_t size) {
  const Shape& shape = operand->shape();
  std::vector<HloInstruction*> operands = {operand};
  for (HloInstruction* start :
       StartIndices(computation, shape.rank(), dimension, begin)) {
    operands.push_back(start);
  }
  std::vector<int64_t> sizes(shape.dimensions().begin(),
                             shape.dimensions().end());
  sizes[dimension] = size;
  HloInstruction* slice =
      computation.AddInstruction(HloInstruction::CreateGeneric(
          HloOpcode::kDynamicSlice,
          ShapeUtil::MakeShape(shape.element_type(), sizes), operands));
  slice->set_dynamic_slice_sizes(sizes);
  return slice;
}

// `into` with `update` written at `begin` along `dimension`.
HloInstruction* UpdateAlong(HloComputation& computation, HloInstruction* into,
                            HloInstruction* update, int64_t dimension,
                            int64_t begin) {
  std::vector<HloInstruction*> operands = {into, update};
  for (HloInstruction* start : StartIndices(
           computation, into->shape().rank(), dimension, begin)) {
    operands.push_back(start);
  }
  return computation.AddInstruction(HloInstruction::CreateGeneric(
      HloOpcode::kDynamicUpdateSlice, into->shape(), operands));
}

}  // namespace

bool IsGroupedConvolution(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution || !conv.shape().IsArray() ||
      conv.operand_count() != 2) {
    return false;
  }
  const int64_t groups = conv.feature_group_count();
  const int64_t batch_groups = conv.batch_group_count();
  return (groups > 1) != (batch_groups > 1) &&
         ShapeUtil::ElementsIn(conv.shape()) > 0 &&
         ShapeUtil::ElementsIn(conv.operand(0)->shape()) > 0 &&
         ShapeUtil::ElementsIn(conv.operand(1)->shape()) > 0 &&
         conv.convolution_dimension_numbers().ok();
}

bool IsWorthSplitting(const HloInstruction& conv) {
  absl::StatusOr<ConvolutionDimensionNumbers> dnums =
      conv.convolution_dimension_numbers();
  if (!IsGroupedConvolution(conv) || !dnums.ok()) return false;
  const Shape& kernel = conv.operand(1)->shape();
  const int64_t groups =
      conv.feature_group_count() * conv.batch_group_count();
  return kernel.dimensions(dnums->kernel_input_feature) >=
             kMinGroupProductFeatures ||
         kernel.dimensions(dnums->kernel_output_feature) / groups >=
             kMinGroupProductFeatures;
}

namespace {

// One convolution of `group_shape` per group: the input is split along its
// batch or its features, the kernel along its output features.
std::vector<HloInstruction*> OneConvolutionPerGroup(
    HloComputation& computation, HloInstruction* conv,
    const ConvolutionDimensionNumbers& dnums, const Shape& group_shape) {
  const bool by_batch = conv->batch_group_count() > 1;
  const int64_t groups =
      by_batch ? conv->batch_group_count() : conv->feature_group_count();
  HloInstruction* input = conv->mutable_operand(0);
  HloInstruction* kernel = conv->mutable_operand(1);
  const int64_t input_dimension =
      by_batch ? dnums.input_batch : dnums.input_feature;
  const int64_t input_step =
      input->shape().dimensions(input_dimension) / groups;
  const int64_t outputs = group_shape.dimensions(dnums.output_feature);
  std::vector<HloInstruction*> convolutions;
  for (int64_t g = 0; g < groups; ++g) {
    HloInstruction* input_slice = SliceAlong(
        computation, input, input_dimension, g * input_step, input_step);
    HloInstruction* kernel_slice = SliceAlong(
        computation, kernel, dnums.kernel_output_feature, g * outputs,
        outputs);
    std::unique_ptr<HloInstruction> one =
        conv->CloneWithNewOperands(group_shape, {input_slice, kernel_slice});
    one->mutable_attributes().Erase(AttrId::kFeatureGroupCount);
    one->mutable_attributes().Erase(AttrId::kBatchGroupCount);
    one->set_metadata(conv->metadata());
    convolutions.push_back(computation.AddInstruction(std::move(one)));
  }
  return convolutions;
}

// The groups' results joined into one of `shape`, the groups' output
// features side by side along `output_feature`. Group-major first: each
// group's written into its block in turn (in place: each update's operand
// is dead after it, and the kernel is shared), rather than concatenated
// (a kernel that chooses among G operands for every element), then the
// groups moved next to their output features.
HloInstruction* JoinGroups(HloComputation& computation,
                           const std::vector<HloInstruction*>& convolutions,
                           const Shape& shape, int64_t output_feature) {
  const Shape& group_shape = convolutions[0]->shape();
  const std::vector<int64_t> group_dims(group_shape.dimensions().begin(),
                                        group_shape.dimensions().end());
  const int64_t rank = group_dims.size();
  const std::vector<int64_t> stacked_dims =
      Concat(std::vector<int64_t>{static_cast<int64_t>(convolutions.size())},
             group_dims);
  HloInstruction* stacked =
      computation.AddInstruction(HloInstruction::CreateBroadcast(
          ShapeUtil::MakeShape(group_shape.element_type(), stacked_dims),
          expansion::Zero(computation, group_shape.element_type()), {}));
  for (int64_t g = 0; g < static_cast<int64_t>(convolutions.size()); ++g) {
    stacked = UpdateAlong(
        computation, stacked,
        Reshaped(computation, convolutions[g],
                 Concat(std::vector<int64_t>{1}, group_dims)),
        0, g);
  }
  std::vector<int64_t> to_output;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == output_feature) to_output.push_back(0);
    to_output.push_back(i + 1);
  }
  return Reshaped(computation, Transposed(computation, stacked, to_output),
                  std::vector<int64_t>(shape.dimensions().begin(),
                                       shape.dimensions().end()));
}

}  // namespace

absl::StatusOr<std::vector<HloInstruction*>> SplitGroupedConvolution(
    HloComputation& computation, HloInstruction* conv) {
  RET_CHECK(IsGroupedConvolution(*conv), conv->ToString());
  ASSIGN_OR_RETURN(const ConvolutionDimensionNumbers dnums,
                   conv->convolution_dimension_numbers());
  const int64_t groups = conv->batch_group_count() > 1
                             ? conv->batch_group_count()
                             : conv->feature_group_count();
  // The result is split along its features.
  std::vector<int64_t> group_dims(conv->shape().dimensions().begin(),
                                  conv->shape().dimensions().end());
  group_dims[dnums.output_feature] =
      conv->operand(1)->shape().dimensions(dnums.kernel_output_feature) /
      groups;
  const Shape group_shape =
      ShapeUtil::MakeShape(conv->shape().element_type(), group_dims);
  const std::vector<HloInstruction*> convolutions =
      OneConvolutionPerGroup(computation, conv, dnums, group_shape);
  HloInstruction* result = JoinGroups(computation, convolutions, conv->shape(),
                                      dnums.output_feature);
  RETURN_IF_ERROR(expansion::ReplaceByExpansion(computation, conv, result));
  return convolutions;
}

}  // namespace mxla
