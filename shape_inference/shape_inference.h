// Shape inference: the result shape of each op from its operand shapes, with
// XLA's rules, checking order and messages (xla-semantics.md §a). The
// builder, the parser and the verifier all use it, so one rule decides one
// error everywhere.
//
// Messages are XLA's (tests grep for them) with mxla's additions: every
// message names the op. Callers add context (call site, instruction name).
// Every failure is InvalidArgument.
#ifndef MXLA_SHAPE_INFERENCE_SHAPE_INFERENCE_H_
#define MXLA_SHAPE_INFERENCE_SHAPE_INFERENCE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/convolution_dimension_numbers.h"
#include "ir/dot_dimension_numbers.h"
#include "ir/gather_dimension_numbers.h"
#include "ir/hlo_opcode.h"
#include "ir/linear_algebra.h"
#include "ir/padding_config.h"
#include "ir/ragged_dot_dimension_numbers.h"
#include "ir/replica_groups.h"
#include "ir/scatter_dimension_numbers.h"
#include "ir/shape.h"
#include "ir/window.h"

namespace mxla {

// The signature of a called computation (reducers, fusion bodies).
struct ProgramShape {
  std::vector<Shape> parameters;
  Shape result;
  std::string ToString() const;  // "(f32[], f32[]) -> f32[]"
};

class ShapeInference {
 public:
  // Binary elementwise ops and compare (the result is pred for compare).
  // Implements §a.2 in order: array operands, opcode type rules, equal
  // element types, equal-rank rules (broadcast_dimensions empty or identity;
  // degenerate size-1 broadcasting), different-rank in-dim broadcasting
  // followed by degenerate broadcasting (either operand may stretch).
  static absl::StatusOr<Shape> InferBinaryOpShape(
      HloOpcode opcode, const Shape& lhs, const Shape& rhs,
      absl::Span<const int64_t> broadcast_dimensions);

  // Unary elementwise ops: negate/abs/sign need a number (not pred);
  // exponential/log/sqrt/rsqrt/tanh/logistic/floor/ceil need a float;
  // not needs pred or an integer.
  static absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode,
                                                 const Shape& operand);

  // select(pred, on_true, on_false): pred must have element type pred and
  // on_true/on_false the same shape. With `allow_scalar_broadcast` (the
  // builder form, §a.8) any operand may be a scalar that broadcasts to the
  // shape of the non-scalar ones; otherwise (lowered HLO) all three have the
  // same dimensions.
  static absl::StatusOr<Shape> InferSelectShape(const Shape& pred,
                                                const Shape& on_true,
                                                const Shape& on_false,
                                                bool allow_scalar_broadcast);

  static absl::StatusOr<Shape> InferConvertShape(const Shape& operand,
                                                 PrimitiveType new_type);

  // HLO broadcast (exact sizes): rank(operand) == len(dimensions), every
  // dimension in [0, rank(output)), distinct, and
  // output[dimensions[i]] == operand[i]. Unsorted dimensions are allowed.
  static absl::Status CheckBroadcast(const Shape& operand, const Shape& output,
                                     absl::Span<const int64_t> dimensions);

  // XlaBuilder::Broadcast: prepends `sizes` (each >= 0) to the operand.
  static absl::StatusOr<Shape> InferPrependBroadcastShape(
      const Shape& operand, absl::Span<const int64_t> sizes);

  // XlaBuilder::BroadcastInDim (§a.4): valid output sizes, one dimension per
  // operand dimension, in range, rank(operand) <= rank(output), each operand
  // size 1 or equal to its output size, dimensions strictly increasing.
  static absl::StatusOr<Shape> InferBroadcastInDimShape(
      const Shape& operand, absl::Span<const int64_t> output_sizes,
      absl::Span<const int64_t> broadcast_dimensions);

  static absl::StatusOr<Shape> InferReshapeShape(
      const Shape& operand, absl::Span<const int64_t> new_sizes);

  // Output dimension i is operand dimension permutation[i].
  static absl::StatusOr<Shape> InferTransposeShape(
      const Shape& operand, absl::Span<const int64_t> permutation);

  // reduce(inputs..., inits...): N inputs of equal dimensions, N scalar
  // inits, dimensions in range and distinct, and a reducer taking 2N scalars
  // (accumulators then elements) of the init types and returning N of them
  // (a tuple when N > 1). The result drops the reduced dimensions.
  static absl::StatusOr<Shape> InferReduceShape(
      absl::Span<const Shape* const> operands,
      absl::Span<const int64_t> dimensions, const ProgramShape& to_apply);

  // reduce-window(inputs..., inits...): reduce's operand and reducer
  // rules, and a window with one dimension per input dimension (window
  // reversal is ignored, as XLA does). Each result has the window
  // positions' shape and its init's type (a tuple when N > 1).
  static absl::StatusOr<Shape> InferReduceWindowShape(
      absl::Span<const Shape* const> operands, const Window& window,
      const ProgramShape& to_apply);

  // select-and-scatter(operand, source, init_value): `select` takes two
  // operand elements and returns pred; the window positions over the
  // operand have the source's shape; `scatter` is a reducer of init's type
  // over the source's elements. The result has the operand's shape.
  static absl::StatusOr<Shape> InferSelectAndScatterShape(
      const Shape& operand, const ProgramShape& select, const Window& window,
      const Shape& source, const Shape& init_value,
      const ProgramShape& scatter);

  // slice: per dimension 0 <= start <= limit <= size and stride >= 1; the
  // result has ceil((limit - start) / stride) elements there.
  static absl::StatusOr<Shape> InferSliceShape(
      const Shape& operand, absl::Span<const int64_t> starts,
      absl::Span<const int64_t> limits, absl::Span<const int64_t> strides);

  // concatenate: at least one array, all of one rank and element type,
  // equal outside `dimension`, which sums.
  static absl::StatusOr<Shape> InferConcatenateShape(
      absl::Span<const Shape* const> operands, int64_t dimension);

  // dot: dimension numbers in range and unique per operand, as many batch
  // and as many contracting dimensions on each side, of equal sizes. The
  // result is the batch dimensions, then lhs's other dimensions, then
  // rhs's, each in order. Its element type is `preferred_element_type` (in
  // HLO text: the declared one) unless that is narrower than an integer
  // operand type, else the higher-precision operand type (XLA accepts
  // mixed-precision dots: s8 x s16, bf16 x f32).
  static absl::StatusOr<Shape> InferDotShape(
      const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums,
      std::optional<PrimitiveType> preferred_element_type = std::nullopt);

  // ragged-dot (shape_inference/ragged_dot.h): the plan's checks, then
  // dot's rules on each group's dot; the contracting mode puts groups first.
  static absl::StatusOr<Shape> InferRaggedDotShape(
      const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
      const RaggedDotDimensionNumbers& dnums,
      std::optional<PrimitiveType> preferred_element_type = std::nullopt);

  // scaled-dot (shape_inference/scaled_dot.h): each scale a scalar or of its
  // operand's rank with dimensions that divide the operand's; then dot's
  // rules on the dequantized operands.
  static absl::StatusOr<Shape> InferScaledDotShape(
      const Shape& lhs, const Shape& rhs, const Shape& lhs_scale,
      const Shape& rhs_scale, const DotDimensionNumbers& dnums,
      std::optional<PrimitiveType> preferred_element_type = std::nullopt);

  // batch-norm-training (operand, scale, offset), batch-norm-inference
  // (operand, scale, offset, mean, variance), batch-norm-grad (operand,
  // scale, mean, variance, grad_output): a float operand of rank >= 1,
  // 0 <= feature_index < rank, the other operands of its element type,
  // rank 1 and of the feature count (grad_output: the operand's shape).
  // Training and grad give (operand's shape, [features], [features]).
  static absl::StatusOr<Shape> InferBatchNormShape(
      HloOpcode opcode, absl::Span<const Shape* const> operands,
      int64_t feature_index);

  // stochastic-convert: a float operand, random values of its dimensions
  // in the unsigned type of its width, a signed integer result type.
  static absl::StatusOr<Shape> InferStochasticConvertShape(
      const Shape& operand, const Shape& random, PrimitiveType new_type);

  // dynamic-slice(operand, start_indices...): one scalar start index per
  // operand dimension, all of one integral type (or XLA's older form: one
  // integral vector of them), and a size per dimension within it. The result has the operand's type and those sizes. (At run
  // time each start is clamped into [0, dimension - size].)
  static absl::StatusOr<Shape> InferDynamicSliceShape(
      const Shape& operand, absl::Span<const Shape* const> start_indices,
      absl::Span<const int64_t> slice_sizes);

  // dynamic-update-slice(operand, update, start_indices...): `update` has
  // the operand's rank and element type and fits inside it; the start
  // indices are as for dynamic-slice. The result is the operand's shape.
  // (At run time each start is clamped into [0, dimension - update size].)
  static absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
      const Shape& operand, const Shape& update,
      absl::Span<const Shape* const> start_indices);

  // pad(operand, padding_value): a scalar padding value of the operand's
  // element type, one padding dimension per operand dimension, interior
  // padding non-negative and no dimension padded to a negative size.
  static absl::StatusOr<Shape> InferPadShape(const Shape& operand,
                                             const Shape& padding_value,
                                             const PaddingConfig& config);

  // custom-call: mxla runs the targets that are identities on one CPU
  // device (kIdentityCustomCallTargets): one array operand, the result its
  // shape. Any other target, or one of those that changes the shape (it
  // needs several partitions), is InvalidArgument naming the target.
  static absl::StatusOr<Shape> InferCustomCallShape(
      absl::string_view target, absl::Span<const Shape* const> operands,
      const Shape& declared);
  // PinToDevice is XLA's host-offloading annotation that keeps a value in
  // device memory, beside MoveToHost and MoveToDevice.
  static constexpr absl::string_view kIdentityCustomCallTargets[] = {
      "Sharding",     "SPMDFullToShardShape",     "SPMDShardToFullShape",
      "MoveToHost",   "MoveToDevice",             "PinToDevice",
      "annotate_device_placement"};

  // while(init), condition=`condition`, body=`body`: each takes one
  // parameter; the condition returns pred[]; the condition's and body's
  // parameter, the body's result and init all have one shape, the result's.
  static absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition,
                                               const ProgramShape& body,
                                               const Shape& init);

  // The collectives, XLA's rules. The group size (XLA's shard or split
  // count) is the caller's: the verifier takes it from the declared shape
  // or from the groups and the module's replica_count/num_partitions
  // (shape_rules::Collective). Several operands give a tuple of results.
  //   all-reduce(-start): the operands' shapes; all-reduce-done: its
  //   operand's. all-gather: `dimension` times `shard_count`;
  //   all-gather-start: (operands, results), each a tuple for several
  //   operands; all-gather-done: element 1 of the start's.
  //   reduce-scatter: `dimension` divided by `shard_count` (it must divide).
  //   all-to-all, array form: `split_dimension` divided by `split_count`
  //   (it must divide) and `concat_dimension` multiplied by it; tuple form:
  //   operands of one shape, their tuple. collective-broadcast: its array
  //   operand's shape. collective-permute: its array operand's shape;
  //   collective-permute-start: (operand, result, context...);
  //   collective-permute-done: element 1 of the start's.
  static absl::StatusOr<Shape> InferAllReduceShape(
      HloOpcode opcode, absl::Span<const Shape* const> operands);
  static absl::StatusOr<Shape> InferAllGatherShape(
      HloOpcode opcode, absl::Span<const Shape* const> operands,
      int64_t dimension, int64_t shard_count);
  static absl::StatusOr<Shape> InferReduceScatterShape(
      absl::Span<const Shape* const> operands, int64_t dimension,
      int64_t shard_count);
  static absl::StatusOr<Shape> InferAllToAllShape(const Shape& operand,
                                                  int64_t split_dimension,
                                                  int64_t concat_dimension,
                                                  int64_t split_count);
  static absl::StatusOr<Shape> InferAllToAllTupleShape(
      absl::Span<const Shape* const> operands);
  static absl::StatusOr<Shape> InferCollectiveBroadcastShape(
      absl::Span<const Shape* const> operands);
  static absl::StatusOr<Shape> InferCollectivePermuteShape(
      HloOpcode opcode, absl::Span<const Shape* const> operands,
      absl::Span<const Shape> context);
  // XLA's in-place collective-permute(input, output, input_start_indices,
  // output_start_indices) and its start: input and output both arrays or
  // both tuples of as many arrays (buffers); each buffer's start indices a
  // tuple of one integer scalar per dimension (for tuple buffers, a tuple
  // of those); `slice_sizes` one list per buffer, each size within both
  // buffers' dimension, buffers of one element type. The result is the
  // output's shape; the start's (input, output, context...). XLA's
  // messages ("Buffer offset index should have the same number of
  // elements as the buffer's rank.", "Unmatching input buffers and output
  // buffers.", ...); several slices per buffer (an array buffer's start
  // indices a tuple of tuples) are refused by name.
  static absl::StatusOr<Shape> InferInPlaceCollectivePermuteShape(
      HloOpcode opcode, absl::Span<const Shape* const> operands,
      absl::Span<const std::vector<int64_t>> slice_sizes,
      absl::Span<const Shape> context);
  // ragged-all-to-all(input, output, input_offsets, send_sizes,
  // output_offsets, recv_sizes): the output's shape. input and output of
  // one element type and rank (>= 1), equal past dimension 0; the other
  // four one rank-1 or rank-2 s32 or s64 shape (rank 2 is XLA's [peers,
  // updates per peer], the rank-1 list row-major) whose element count is
  // a multiple of `group_size` (1 where the size is not known).
  static absl::StatusOr<Shape> InferRaggedAllToAllShape(
      absl::Span<const Shape* const> operands, int64_t group_size);
  // all-reduce-done, all-gather-done and collective-permute-done: the
  // result a start's value holds.
  static absl::StatusOr<Shape> InferCollectiveDoneShape(HloOpcode opcode,
                                                        const Shape& start);
  // Refusals of transfers between devices that mxla does not make (send
  // and recv to another device, custom calls that change the shape) say
  // this.
  static constexpr absl::string_view kOneDevice =
      "mxla runs one device (one replica of one partition)";

  // gather(operand, start_indices): XLA's rule. The result has the batch
  // dimensions of start_indices (all but index_vector_dim) and, at
  // offset_dims, the slice sizes of the operand dimensions neither
  // collapsed nor batching.
  static absl::StatusOr<Shape> InferGatherShape(
      const Shape& operand, const Shape& start_indices,
      const GatherDimensionNumbers& dnums,
      absl::Span<const int64_t> slice_sizes);

  // scatter(operands..., scatter_indices, updates..., to_apply): XLA's
  // rule in XLA's order (index_vector_dim, updates rank, window and scatter
  // dimension lists, bounds) and reduce's reducer rule over the operand and
  // update element types. The result is the operands' shape (a tuple when
  // there are several).
  static absl::StatusOr<Shape> InferScatterShape(
      absl::Span<const Shape* const> operands,
      const ScatterDimensionNumbers& dnums, const ProgramShape& to_apply);

  // The shape of the window positions over `base` (one per base
  // dimension): XLA's rule, positive sizes, strides and dilations. `op`
  // names the instruction in messages.
  static absl::StatusOr<Shape> InferWindowOutputShape(
      HloOpcode op, const Shape& base, const Window& window,
      PrimitiveType element_type);

  // convolution(lhs, rhs): XLA's rule, checked in XLA's order. The result
  // has the lhs batch over batch_group_count, the kernel's output features
  // and the window positions over the lhs spatial dimensions, laid out as
  // the output dim_labels say; its type is the higher of the operands' (or
  // `preferred_element_type`, never narrower for integers).
  static absl::StatusOr<Shape> InferConvolveShape(
      const Shape& lhs, const Shape& rhs, int64_t feature_group_count,
      int64_t batch_group_count, const Window& window,
      const ConvolutionDimensionNumbers& dnums,
      std::optional<PrimitiveType> preferred_element_type = std::nullopt);

  // map(operands...) of `to_apply`: arrays of one dimensions; to_apply takes
  // one scalar per operand, of its element type, and returns a scalar;
  // `dimensions`, when given, are all of them in order. The result has the
  // operands' dimensions and to_apply's element type.
  static absl::StatusOr<Shape> InferMapShape(
      absl::Span<const Shape* const> operands, const ProgramShape& to_apply,
      const std::optional<std::vector<int64_t>>& dimensions);

  // sort(operands...) along `dimension` with `comparator`: one or more
  // arrays of one dimensions; the comparator takes 2N scalars (lhs and rhs
  // of each operand in turn, of its type) and returns pred[]. The result is
  // the operand (a tuple of them for several).
  static absl::StatusOr<Shape> InferSortShape(
      absl::Span<const Shape* const> operands, int64_t dimension,
      const ProgramShape& comparator);

  // The asynchronous wrappers on one device. async-start and call-start of
  // `callee`: ((operands), callee result, any context...); async-update:
  // its operand's shape; async-done, call-done: the start's element 1;
  // copy-start: (operand, operand, any context...); copy-done: element 1.
  static absl::StatusOr<Shape> InferAsyncShape(
      HloOpcode opcode, absl::Span<const Shape* const> operands,
      const std::optional<ProgramShape>& callee, const Shape& declared);

  // conditional(branch_index, operand_0, ..., operand_n-1): a scalar pred
  // (two branches: true first) or s32 index; branch j takes operand j
  // (one parameter of its shape); every branch returns the result's shape.
  static absl::StatusOr<Shape> InferConditionalShape(
      const Shape& branch_index, absl::Span<const ProgramShape> branches,
      absl::Span<const Shape* const> branch_operands);

  // call(args...) of `to_apply`: as many arguments as it has parameters,
  // each of its parameter's shape; the result is its result.
  static absl::StatusOr<Shape> InferCallShape(
      absl::Span<const Shape* const> arguments, const ProgramShape& to_apply);

  static absl::StatusOr<Shape> InferTupleShape(
      absl::Span<const Shape* const> elements);
  static absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple,
                                                         int64_t index);
  // A compare with type=TOTALORDER: floating-point operands only.
  static absl::Status CheckTotalOrderCompare(const Shape& operand);
  // is-finite: a floating-point operand; the result is pred of its
  // dimensions.
  static absl::StatusOr<Shape> InferIsFiniteShape(const Shape& operand);
  // clamp(min, operand, max): one element type; each bound a scalar or of
  // the operand's dimensions. The result is the operand's shape.
  static absl::StatusOr<Shape> InferClampShape(const Shape& min,
                                               const Shape& operand,
                                               const Shape& max);
  // reduce-precision: a floating-point operand, exponent_bits >= 1,
  // mantissa_bits >= 0.
  static absl::StatusOr<Shape> InferReducePrecisionShape(
      const Shape& operand, int64_t exponent_bits, int64_t mantissa_bits);
  // bitcast-convert to `new_type`: equal widths keep the dimensions; to a
  // type k times narrower appends a dimension of size k; from one k times
  // narrower drops the last dimension, which must be k.
  static absl::StatusOr<Shape> InferBitcastConvertShape(
      const Shape& operand, PrimitiveType new_type);
  // reverse: distinct dimensions of the operand; the result is its shape.
  static absl::StatusOr<Shape> InferReverseShape(
      const Shape& operand, absl::Span<const int64_t> dimensions);
  // get-dimension-size: s32[], of a dimension of the operand below 2^31.
  static absl::StatusOr<Shape> InferGetDimensionSizeShape(
      const Shape& operand, int64_t dimension);
  // after-all: token[], of any number of token operands.
  static absl::StatusOr<Shape> InferAfterAllShape(
      absl::Span<const Shape> operands);
  // add-dependency: the first operand's shape; the second is a token.
  static absl::StatusOr<Shape> InferAddDependencyShape(const Shape& operand,
                                                       const Shape& token);
  // scan: the last num_carries operands are the initial carries, the others
  // inputs of equal size along `dimension`; the computation maps (input
  // slices without that dimension..., carries...) to (outputs...,
  // carries...) of the same carry shapes; the result is (each output with
  // the dimension inserted..., carries...).
  static absl::StatusOr<Shape> InferScanShape(
      absl::Span<const Shape* const> operands, int64_t dimension,
      int64_t num_carries, const ProgramShape& computation);
  // topk: (the operand with its last dimension k, the same shape in s32);
  // the operand has rank >= 1 and 0 <= k <= its last dimension.
  static absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k);
  // cholesky: a float array [..., n, n]; the result has its shape.
  static absl::StatusOr<Shape> InferCholeskyShape(const Shape& a);
  // triangular-solve(a, b): float arrays of one type and rank >= 2, a
  // [..., m, m], b [..., m, n] (left_side) or [..., n, m], with equal
  // leading dimensions; the result has b's shape.
  static absl::StatusOr<Shape> InferTriangularSolveShape(
      const Shape& a, const Shape& b, const TriangularSolveOptions& options);
  // send, recv and their -done ops over a host channel: always an error
  // that says mxla has none.
  static absl::Status RefuseChannelTransfer(HloOpcode opcode, bool to_host);
  // send, recv and their -done ops between devices (XLA's forms, the u32[]
  // being a context value): send(data, token) -> (data, u32[], token[]);
  // recv(token) -> (data, u32[], token[]) as declared, data an array;
  // send-done of a send's tuple -> token[]; recv-done of a recv's tuple ->
  // (data, token[]). `operands` are the operands' shapes.
  static absl::StatusOr<Shape> InferDeviceTransferShape(
      HloOpcode opcode, absl::Span<const Shape* const> operands,
      const Shape& declared);
  // infeed(token) -> (data, token[]): `declared` is the result as written
  // (an infeed's data shape is its own declaration), a pair of a token-free
  // value and a token.
  static absl::StatusOr<Shape> InferInfeedShape(const Shape& token,
                                                const Shape& declared);
  // outfeed(data, token) -> token[], the data holding no token.
  static absl::StatusOr<Shape> InferOutfeedShape(const Shape& data,
                                                 const Shape& token);
  // rng: scalar parameters a and b of the result's element type (a float
  // type for rng_normal).
  static absl::Status CheckRng(RandomDistribution distribution,
                               const Shape& a, const Shape& b,
                               const Shape& shape);
  // rng-bit-generator(state) -> (state, bits): a u64[n] state with the
  // algorithm's n (ThreeFry 2, Philox 2 or 3, as XLA:CPU's expansion
  // needs), returned in the shape it came in, and bits of an unsigned
  // integer type.
  static absl::Status CheckRngBitGenerator(RandomAlgorithm algorithm,
                                           const Shape& state,
                                           const Shape& shape);
  // iota: an array shape of rank >= 1 with 0 <= iota_dimension < rank.
  static absl::Status CheckIota(const Shape& shape, int64_t iota_dimension);
};

}  // namespace mxla

#endif  // MXLA_SHAPE_INFERENCE_SHAPE_INFERENCE_H_
