// Internal to the evaluator (hlo_evaluator*.cc): the ops that only move
// elements, all expressed as one strided gather, plus the index arithmetic
// that reduce shares with them. Not a public API.
#ifndef MXLA_INTERPRETER_HLO_EVALUATOR_INDEX_OPS_H_
#define MXLA_INTERPRETER_HLO_EVALUATOR_INDEX_OPS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/collective_groups.h"
#include "ir/communicator.h"
#include "ir/convolution_dimension_numbers.h"
#include "ir/dot_dimension_numbers.h"
#include "ir/gather_dimension_numbers.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_opcode.h"
#include "ir/literal.h"
#include "ir/padding_config.h"
#include "ir/shape.h"
#include "ir/window.h"

namespace mxla::hlo_evaluator_internal {

// Returns the array of dimensions `result_dims` (and `source`'s element
// type) whose element at index i is source's element at linear offset
// base + sum_d i[d] * strides[d]. A stride of 0 repeats the source along that
// dimension. The caller guarantees every offset is inside `source`.
Literal StridedGather(const Literal& source,
                      absl::Span<const int64_t> result_dims,
                      absl::Span<const int64_t> strides, int64_t base = 0);

// The offsets sum_d i[d] * strides[d] for every index i of `dims`, in
// row-major order.
std::vector<int64_t> StridedOffsets(absl::Span<const int64_t> dims,
                                    absl::Span<const int64_t> strides);

// HLO broadcast: operand dimension i becomes result dimension
// dimensions[i] (exact sizes; `dimensions` need not be sorted).
absl::StatusOr<Literal> EvaluateBroadcast(const Literal& operand,
                                          const Shape& shape,
                                          absl::Span<const int64_t> dimensions);
// Result dimension i is operand dimension permutation[i].
absl::StatusOr<Literal> EvaluateTranspose(
    const Literal& operand, absl::Span<const int64_t> permutation);
// HLO reverse: the operand with `dimensions` (distinct) in reverse order.
absl::StatusOr<Literal> EvaluateReverse(const Literal& operand,
                                        absl::Span<const int64_t> dimensions);
// HLO slice: result element i is operand element starts + i * strides.
absl::StatusOr<Literal> EvaluateSlice(const Literal& operand,
                                      absl::Span<const int64_t> starts,
                                      absl::Span<const int64_t> limits,
                                      absl::Span<const int64_t> strides);
// HLO dynamic-slice: a slice of `sizes` whose start in each dimension is
// that start index's value clamped into [0, dimension - size].
absl::StatusOr<Literal> EvaluateDynamicSlice(
    absl::Span<const Literal* const> operands, absl::Span<const int64_t> sizes);
// HLO dynamic-update-slice: the operand with `update` written at the start
// indices, each clamped into [0, dimension - update size].
absl::StatusOr<Literal> EvaluateDynamicUpdateSlice(
    absl::Span<const Literal* const> operands);
// HLO pad into `shape` (checked by the caller): the padding value
// everywhere, then operand element i at low + i * (interior + 1) in each
// dimension where that is inside the result.
absl::StatusOr<Literal> EvaluatePad(const Literal& operand,
                                    const Literal& padding_value,
                                    const PaddingConfig& config,
                                    const Shape& shape);
// HLO concatenate along `dimension` into `shape` (checked by the caller).
absl::StatusOr<Literal> EvaluateConcatenate(
    absl::Span<const Literal* const> operands, const Shape& shape,
    int64_t dimension);
// HLO dot into `shape` (checked by the caller; hlo_evaluator_dot.cc).
absl::StatusOr<Literal> EvaluateDot(const Literal& lhs, const Literal& rhs,
                                    const DotDimensionNumbers& dnums,
                                    const Shape& shape);
// Element `linear` of the integer array `indices`, clamped into [0, max];
// exact for every integer type.
int64_t ClampedIndexAt(const Literal& indices, int64_t linear, int64_t max);
// HLO gather into `shape` (checked by the caller; hlo_evaluator_gather.cc):
// output element i reads the operand at its slice's start (the start
// indices at i's batch position, each clamped so the slice fits; batching
// dimensions take i's batch index) plus i's offset in the slice.
absl::StatusOr<Literal> EvaluateGather(const Literal& operand,
                                       const Literal& indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes,
                                       const Shape& shape);
// HLO convolution into `shape` (verified; hlo_evaluator_convolution.cc).
absl::StatusOr<Literal> EvaluateConvolution(
    const Literal& lhs, const Literal& rhs, const Window& window,
    const ConvolutionDimensionNumbers& dnums, int64_t feature_group_count,
    int64_t batch_group_count, const Shape& shape);
// Whether a dot or convolution of `lhs` and `rhs` into `shape` computes in
// another type than all three share (mixed types, f16 or bf16).
bool NeedsAccumulationType(const Literal& lhs, const Literal& rhs,
                           const Shape& shape);
// Computes `compute(lhs, rhs, shape)` (a dot or a convolution) in the
// accumulation type of the three element types (DotAccumulationType):
// the operands converted to it first, the result converted back.
absl::StatusOr<Literal> InAccumulationType(
    const Literal& lhs, const Literal& rhs, const Shape& shape,
    absl::FunctionRef<absl::StatusOr<Literal>(const Literal&, const Literal&,
                                              const Shape&)>
        compute);
// A verified collective (all-reduce, all-gather, reduce-scatter,
// all-to-all, collective-broadcast, collective-permute and the -start/-done
// forms) as this run's device computes it (options.device: its group's
// members contribute through its communicator; none: device 0 of one),
// hlo_evaluator_collectives.cc.
absl::StatusOr<Literal> EvaluateCollective(
    const HloInstruction& op, absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options);
// ragged-all-to-all for the member at `rank` of the group `devices` (global
// ids in rank order): members[j] is member j's (input, input_offsets,
// send_sizes, output_offsets, recv_sizes), `output` this device's output
// operand. InvalidArgument naming the op, the devices and the numbers for
// metadata out of range or disagreeing between peers
// (hlo_evaluator_ragged_all_to_all.cc).
absl::StatusOr<Literal> EvaluateRaggedAllToAll(
    const HloInstruction& op, absl::Span<const int64_t> devices, int64_t rank,
    const std::vector<std::vector<Literal>>& members, const Literal& output);
// XLA's in-place collective-permute (four operands, slice_sizes; verified)
// for this device: `peers` its source and targets, `communicator` null on
// one device (the source, if any, is itself). The output with the
// source's slice written in, or as it is without a source
// (hlo_evaluator_inplace_permute.cc).
absl::StatusOr<Literal> EvaluateInPlacePermute(
    const HloInstruction& op, const PermutePeers& peers,
    Communicator* communicator, absl::Span<const Literal* const> operands);
// replica-id or partition-id: the device's replica or partition, as u32.
absl::StatusOr<Literal> EvaluateDeviceId(const HloInstruction& op,
                                         const EvaluatorOptions& options);
// Row-major reinterpretation with the same element count.
// HLO topk: (the k largest or smallest along the last dimension, their s32
// indices), stable, floats in their total order.
// HLO ragged-dot into `shape` (verified; hlo_evaluator_ragged_dot.cc).
absl::StatusOr<Literal> EvaluateRaggedDot(const Literal& lhs, const Literal& rhs,
                                          const Literal& group_sizes,
                                          const RaggedDotDimensionNumbers& dnums,
                                          const Shape& shape);
// HLO scaled-dot into `shape` (verified; shape_inference/scaled_dot.h).
absl::StatusOr<Literal> EvaluateScaledDot(const Literal& lhs, const Literal& rhs,
                                          const Literal& lhs_scale,
                                          const Literal& rhs_scale,
                                          const DotDimensionNumbers& dnums,
                                          const Shape& shape);
absl::StatusOr<Literal> EvaluateTopK(const Literal& operand, int64_t k,
                                     bool largest);
// HLO scan (verified): runs its computation once per slice.
absl::StatusOr<Literal> EvaluateScan(const HloInstruction& scan,
                                     absl::Span<const Literal* const> operands,
                                     const EvaluatorOptions& options);
absl::StatusOr<Literal> EvaluateReshape(const Literal& operand,
                                        const Shape& shape);
absl::StatusOr<Literal> EvaluateIota(const Shape& shape,
                                     int64_t iota_dimension);

// One operand of a builder-form binary op (or a scalar select operand)
// read at every index of `result_dims` (XLA's implicit broadcast): a scalar
// is used everywhere; with rank r < rank(result), operand dimension i is
// result dimension broadcast_dimensions[i]; with equal ranks dimension i is
// dimension i; a size-1 operand dimension always reads index 0.
absl::StatusOr<Literal> ImplicitBroadcast(
    const Literal& operand, absl::Span<const int64_t> result_dims,
    const std::optional<std::vector<int64_t>>& broadcast_dimensions);

}  // namespace mxla::hlo_evaluator_internal

#endif  // MXLA_INTERPRETER_HLO_EVALUATOR_INDEX_OPS_H_
