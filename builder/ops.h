// The op functions of XlaBuilder, named as in XLA. Included by
// builder/xla_builder.h; include that header, not this one.
//
// Every function takes the call site as a defaulted last argument, so error
// messages point at the user's line. An op whose operands are invalid (or
// whose builder already failed) returns an invalid XlaOp.
//
// Errors go to the `builder` argument or, for ops without one, to the first
// operand that has a builder; operands from another builder are an error.
// User mistakes are InvalidArgument naming the op, its operand shapes, its
// attributes and the call site (see XlaBuilder). With no builder to report
// to (a null `builder`, or only default-constructed operands) the op
// returns an invalid XlaOp and records nothing.

// Included first, outside the guard, so that this header also compiles on
// its own: xla_builder.h declares XlaOp and XlaBuilder and then includes
// this file, whose body then sees them.
#include "builder/xla_builder.h"

#ifndef MXLA_BUILDER_OPS_H_
#define MXLA_BUILDER_OPS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "ir/literal.h"
#include "ir/replica_groups.h"

namespace mxla {

using Dims = absl::Span<const int64_t>;

// --- Inputs and constants ---------------------------------------------------

// Entry parameter `parameter_number` of `shape`, which must be a valid shape:
// an array, or a tuple read with GetTupleElement (the jit backend rejects
// nested tuples as Unimplemented at compile time). Numbers must be unique (checked here) and be
// 0..n-1 by Build(). An empty `name` becomes "parameter"; names are made
// unique in the module.
XlaOp Parameter(XlaBuilder* builder, int64_t parameter_number,
                const Shape& shape, const std::string& name,
                SourceLocation location = SourceLocation::current());
// A constant holding a copy of the array `literal` (tuples are rejected).
// The ConstantR* helpers build the literal from C++ values; T must be one of
// bool, int32_t, int64_t, float, double.
XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal,
                      SourceLocation location = SourceLocation::current());

template <typename T>
XlaOp ConstantR0(XlaBuilder* builder, T value,
                 SourceLocation location = SourceLocation::current()) {
  return ConstantLiteral(builder, LiteralUtil::CreateR0<T>(value), location);
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, absl::Span<const T> values,
                 SourceLocation location = SourceLocation::current()) {
  return ConstantLiteral(builder, LiteralUtil::CreateR1<T>(values), location);
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, std::initializer_list<T> values,
                 SourceLocation location = SourceLocation::current()) {
  return ConstantLiteral(builder, LiteralUtil::CreateR1<T>(values), location);
}
namespace builder_internal {
// Record an InvalidArgument on `builder` and return false for a negative
// length, a constant past the builder's memory_limit_bytes() or ragged
// rows: the checks the templates below make before building a literal.
bool CheckConstantR1Length(XlaBuilder* builder, int64_t length,
                           int64_t element_bytes,
                           const SourceLocation& location);
bool CheckConstantR2Rows(XlaBuilder* builder,
                         absl::Span<const int64_t> row_sizes,
                         int64_t element_bytes, const SourceLocation& location);
}  // namespace builder_internal

// `length` copies of `value`; a negative length, or one past the memory
// limit, is InvalidArgument.
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, int64_t length, T value,
                 SourceLocation location = SourceLocation::current()) {
  if (!builder_internal::CheckConstantR1Length(builder, length, sizeof(T),
                                               location)) {
    return XlaOp();
  }
  std::vector<T> values(length, value);
  return ConstantLiteral(
      builder, LiteralUtil::CreateR1<T>(absl::Span<const T>(values)),
      location);
}
// Rows of different lengths are InvalidArgument naming the first short or
// long row.
template <typename T>
XlaOp ConstantR2(XlaBuilder* builder,
                 std::initializer_list<std::initializer_list<T>> values,
                 SourceLocation location = SourceLocation::current()) {
  std::vector<int64_t> row_sizes;
  for (const auto& row : values) row_sizes.push_back(row.size());
  if (!builder_internal::CheckConstantR2Rows(builder, row_sizes, sizeof(T),
                                             location)) {
    return XlaOp();
  }
  return ConstantLiteral(builder, LiteralUtil::CreateR2<T>(values), location);
}

// An array of `shape` whose values count along `iota_dimension`. `shape`
// must be a valid array shape of rank >= 1, with iota_dimension in
// [0, rank).
XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension,
           SourceLocation location = SourceLocation::current());

// --- Binary elementwise ops -------------------------------------------------
// `broadcast_dimensions` maps the lower-rank operand's dimensions onto the
// higher-rank one's (strictly increasing); empty for equal ranks or scalars.
// Size-1 dimensions stretch as in XLA's degenerate broadcasting. Both
// operands must have the same element type (there is no implicit
// conversion). Sub, Div, Rem and Pow reject pred; And, Or and Xor need pred
// or an integer type. Eq..Ge compare and return pred.

// Add, Sub, Mul, Div, Rem, Max, Min, Pow, And, Or, Xor, Atan2, ShiftLeft,
// ShiftRightArithmetic, ShiftRightLogical: one per binary op of the op
// table (ir/hlo_ops.def). The shifts take integers (not pred); an amount
// of at least the bit width shifts every bit out.
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, text, Name, type_rule, cost)               \
  XlaOp Name(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions = {}, \
             SourceLocation location = SourceLocation::current());
#include "ir/hlo_ops.def"

// Comparisons, one per direction.
#define MXLA_DECLARE_COMPARE_OP(Name)                              \
  XlaOp Name(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions = {}, \
             SourceLocation location = SourceLocation::current());
MXLA_DECLARE_COMPARE_OP(Eq)
MXLA_DECLARE_COMPARE_OP(Ne)
MXLA_DECLARE_COMPARE_OP(Lt)
MXLA_DECLARE_COMPARE_OP(Le)
MXLA_DECLARE_COMPARE_OP(Gt)
MXLA_DECLARE_COMPARE_OP(Ge)

// The comparisons in the total order of floats (XLA's EqTotalOrder ...,
// type=TOTALORDER in text): -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
// Floating-point operands only.
MXLA_DECLARE_COMPARE_OP(EqTotalOrder)
MXLA_DECLARE_COMPARE_OP(NeTotalOrder)
MXLA_DECLARE_COMPARE_OP(LtTotalOrder)
MXLA_DECLARE_COMPARE_OP(LeTotalOrder)
MXLA_DECLARE_COMPARE_OP(GtTotalOrder)
MXLA_DECLARE_COMPARE_OP(GeTotalOrder)
#undef MXLA_DECLARE_COMPARE_OP

// Eq..Ge with the direction as an argument.
XlaOp Compare(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions,
              ComparisonDirection direction,
              SourceLocation location = SourceLocation::current());

// --- Unary elementwise ops --------------------------------------------------
// Same shape out as in. Neg, Abs and Sign reject pred; Exp, Log, Sqrt, Rsqrt,
// Tanh, Logistic, Floor, Ceil and the other transcendentals need a float
// type; Not needs pred or an integer type; PopulationCount and Clz an
// integer type.

// Neg, Abs, Exp, ..., PopulationCount, Clz: one per unary op of the op
// table (ir/hlo_ops.def).
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, text, Name, type_rule, cost) \
  XlaOp Name(XlaOp operand, SourceLocation location = SourceLocation::current());
#include "ir/hlo_ops.def"

// --- Other ops --------------------------------------------------------------
// token[]: XLA's token, joined from `tokens` (AfterAll), or a fresh one
// (CreateToken: AfterAll of none). Tokens order side effects (infeed,
// outfeed).
XlaOp AfterAll(XlaBuilder* builder, absl::Span<const XlaOp> tokens,
               SourceLocation location = SourceLocation::current());
XlaOp CreateToken(XlaBuilder* builder,
                  SourceLocation location = SourceLocation::current());
// XLA's InfeedWithToken: (the run's next host-feed value of `shape`, a
// token) after `token` (ir/host_feed.h).
XlaOp InfeedWithToken(XlaOp token, const Shape& shape,
                      SourceLocation location = SourceLocation::current());
// XLA's OutfeedWithToken: hands `operand` to the run's host feed after
// `token`; returns the token after it.
XlaOp OutfeedWithToken(XlaOp operand, XlaOp token,
                       SourceLocation location = SourceLocation::current());

// XLA's batch normalization along every dimension but `feature_index`
// (the arithmetic: semantics/batch_norm.h). BatchNormTraining gives
// (normalized, mean, variance), BatchNormInference the normalized
// operand, BatchNormGrad (grad_operand, grad_scale, grad_offset); scale,
// offset, mean and variance have one element per feature.
XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset,
                        float epsilon, int64_t feature_index,
                        SourceLocation location = SourceLocation::current());
XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean,
                         XlaOp variance, float epsilon, int64_t feature_index,
                         SourceLocation location = SourceLocation::current());
XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean,
                    XlaOp batch_var, XlaOp grad_output, float epsilon,
                    int64_t feature_index,
                    SourceLocation location = SourceLocation::current());

// XLA's Cholesky of a batch of matrices [..., n, n]: lower triangular l
// with a = l l^T from a's lower triangle (lower=false: upper u with
// a = u^T u, from the upper one); 0 in the other triangle, and every
// element NaN for a matrix that is not positive definite
// (semantics/linear_algebra.h).
XlaOp Cholesky(XlaOp a, bool lower,
               SourceLocation location = SourceLocation::current());
// XLA's TriangularSolve: x with op(a) x = b (left_side) or x op(a) = b,
// a [..., m, m] read from its lower (or upper) triangle, its diagonal
// taken as 1 when unit_diagonal; op(a) is a or a^T (transpose_a).
XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower,
                      bool unit_diagonal,
                      TriangularSolveTranspose transpose_a,
                      SourceLocation location = SourceLocation::current());

// An array of `shape` drawn uniformly from [a, b) (RngUniform; floats,
// integers or pred) or from the normal distribution of mean mu and
// standard deviation sigma (RngNormal; floats). The parameters are scalars
// of shape's element type. XLA leaves the numbers to the backend; mxla's
// are a pure function of the instruction's name and the element's index
// (the same on every run and in both backends; see docs/hlo.md).
XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape,
                 SourceLocation location = SourceLocation::current());
XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape,
                SourceLocation location = SourceLocation::current());
// The tuple (new state, bits of `shape`) of XLA's counter-based generator
// `algorithm` from `initial_state`, a u64[2] (ThreeFry: key, counter) or
// u64[2]/u64[3] (Philox: key, 128-bit counter); `shape` has an unsigned
// integer type. The same bits as XLA:CPU (semantics/bit_generators.h).
XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state,
                      const Shape& shape,
                      SourceLocation location = SourceLocation::current());

// `pred` must have element type pred, and on_true/on_false one element
// type. Scalar operands (pred included) broadcast to the others' shape;
// non-scalar operands must have equal dimensions.
XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false,
             SourceLocation location = SourceLocation::current());
// `operand` (floats) to the signed integer type `new_element_type`,
// rounding each fraction up where `random` (unsigned, of the operand's
// width and dimensions) is below it (XLA's StochasticConvertType;
// semantics/stochastic_convert.h).
XlaOp StochasticConvertType(XlaOp operand, XlaOp random,
                            PrimitiveType new_element_type,
                            SourceLocation location = SourceLocation::current());
// Elementwise conversion to the array type `new_element_type`.
XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type,
                         SourceLocation location = SourceLocation::current());
// pred of `operand`'s dimensions: true where the float element is neither
// infinite nor NaN (XLA's IsFinite).
XlaOp IsFinite(XlaOp operand,
               SourceLocation location = SourceLocation::current());
// min(max(operand, min), max) elementwise; `min` and `max` are scalars or
// of the operand's shape, all of one element type (XLA's Clamp).
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max,
            SourceLocation location = SourceLocation::current());
// The float operand rounded to a type of `exponent_bits` (>= 1) and
// `mantissa_bits` (>= 0), in its own type (semantics/bit_ops.h).
XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits,
                      SourceLocation location = SourceLocation::current());
// The operand's bits read as `new_element_type`; a narrower type adds a
// last dimension of the width ratio, a wider one removes it
// (XLA's BitcastConvertType; little-endian).
XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type,
                         SourceLocation location = SourceLocation::current());
// The operand with each of `dimensions` (distinct) reversed (XLA's Rev).
XlaOp Rev(XlaOp operand, Dims dimensions,
          SourceLocation location = SourceLocation::current());
// s32[]: the size of the operand's `dimension` (XLA's GetDimensionSize).
XlaOp GetDimensionSize(XlaOp operand, int64_t dimension,
                       SourceLocation location = SourceLocation::current());
// The operand, unchanged: XLA's scheduling fence, a no-op on one device.
XlaOp OptimizationBarrier(XlaOp operand,
                          SourceLocation location = SourceLocation::current());
// Prepends `broadcast_sizes` (each >= 0): the result is sizes ++ operand
// dimensions.
XlaOp Broadcast(XlaOp operand, Dims broadcast_sizes,
                SourceLocation location = SourceLocation::current());
// Operand dimension i goes to output dimension broadcast_dimensions[i]
// (strictly increasing, one per operand dimension); each operand size must
// be 1 (it stretches) or equal its output size.
XlaOp BroadcastInDim(XlaOp operand, Dims out_dimension_sizes,
                     Dims broadcast_dimensions,
                     SourceLocation location = SourceLocation::current());
// Row-major reinterpretation; the element counts must be equal.
XlaOp Reshape(XlaOp operand, Dims new_sizes,
              SourceLocation location = SourceLocation::current());
// Output dimension i is operand dimension permutation[i]; `permutation`
// must be a permutation of 0..rank-1.
XlaOp Transpose(XlaOp operand, Dims permutation,
                SourceLocation location = SourceLocation::current());
// Reduces `dimensions_to_reduce` (distinct, in range) of `operand` with the
// scalar `computation` (e.g. CreateScalarAddComputation), starting from the
// scalar `init_value` of the operand's element type. `computation` is
// copied into the builder, so it need not outlive the call.
XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             Dims dimensions_to_reduce,
             SourceLocation location = SourceLocation::current());
// Variadic reduce: N >= 1 operands of equal dimensions, N inits, a reducer
// of 2N scalars (accumulators, then elements) returning an N-tuple; the
// result is an N-tuple. Errors go to `builder`.
XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values,
             const XlaComputation& computation, Dims dimensions_to_reduce,
             SourceLocation location = SourceLocation::current());
// Elements start_indices + i * strides of `operand`, below limit_indices,
// per dimension (XLA's Slice).
XlaOp Slice(XlaOp operand, Dims start_indices, Dims limit_indices,
            Dims strides, SourceLocation location = SourceLocation::current());
// A `slice_sizes` window of `operand` starting at `start_indices` (one
// integral scalar per dimension, clamped at run time so the window fits;
// XLA's DynamicSlice).
XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   Dims slice_sizes,
                   SourceLocation location = SourceLocation::current());
// `operand` with `update` written at `start_indices` (as for DynamicSlice,
// clamped so the update fits; XLA's DynamicUpdateSlice).
XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update,
                         absl::Span<const XlaOp> start_indices,
                         SourceLocation location = SourceLocation::current());
// XLA's CustomCall: mxla runs only the targets that are identities on one
// device (ShapeInference::kIdentityCustomCallTargets); `shape` must be the
// operand's.
XlaOp CustomCall(XlaBuilder* builder, const std::string& call_target_name,
                 absl::Span<const XlaOp> operands, const Shape& shape,
                 SourceLocation location = SourceLocation::current());
// XLA's ReplicaId and PartitionId: u32[] 0, since mxla runs one replica of
// one partition.
XlaOp ReplicaId(XlaBuilder* builder,
                SourceLocation location = SourceLocation::current());
XlaOp PartitionId(XlaBuilder* builder,
                  SourceLocation location = SourceLocation::current());
// `operand` padded with `padding_value` (a scalar of its type) as `config`
// says per dimension: low and high (negative: cropped) and interior
// (XLA's Pad).
XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& config,
          SourceLocation location = SourceLocation::current());
// `operands` (at least one; one rank and element type, equal outside
// `dimension`) joined along `dimension` (XLA's ConcatInDim).
XlaOp ConcatInDim(XlaBuilder* builder, absl::Span<const XlaOp> operands,
                  int64_t dimension,
                  SourceLocation location = SourceLocation::current());
// XLA's DotGeneral: contracts dimension_numbers' paired contracting
// dimensions, over its paired batch dimensions; the result is the batch
// dimensions, then lhs's others, then rhs's (ShapeInference::InferDotShape).
XlaOp DotGeneral(XlaOp lhs, XlaOp rhs,
                 const DotDimensionNumbers& dimension_numbers,
                 SourceLocation location = SourceLocation::current());
// XLA's block-scaled dot (ir/scaled_dot.h), operands in the HLO op's
// order: each of lhs and rhs times its scale (a scalar, or its rank with
// dimensions dividing its own) repeated over blocks, then DotGeneral.
XlaOp ScaledDot(XlaOp lhs, XlaOp rhs, XlaOp lhs_scale, XlaOp rhs_scale,
                const DotDimensionNumbers& dimension_numbers,
                SourceLocation location = SourceLocation::current());
// XLA's Dot of vectors and matrices: lhs's last dimension against rhs's
// first.
XlaOp Dot(XlaOp lhs, XlaOp rhs,
          SourceLocation location = SourceLocation::current());
// XLA's Gather: for each position of start_indices' batch dimensions (all
// but index_vector_dim), a slice of `input` of `slice_sizes` starting at
// the start index there (mapped to input dimensions by start_index_map and
// clamped so the slice fits); offset_dims place the slice's uncollapsed
// dimensions in the result (ShapeInference::InferGatherShape).
XlaOp Gather(XlaOp input, XlaOp start_indices,
             const GatherDimensionNumbers& dimension_numbers,
             Dims slice_sizes, bool indices_are_sorted = false,
             SourceLocation location = SourceLocation::current());
// XLA's Scatter: `input` with each element of `updates` combined, by the
// scalar `update_computation` (current value, update) -> new value, into
// the element it lands on: the update's window starts at the index vector
// scatter_indices holds at the update's scatter position (mapped to input
// dimensions by scatter_dims_to_operand_dims); a window that does not fit
// is skipped (ShapeInference::InferScatterShape).
XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates,
              const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers,
              bool indices_are_sorted = false, bool unique_indices = false,
              SourceLocation location = SourceLocation::current());
// XLA's ConvGeneralDilated: `lhs` convolved with the kernel `rhs`, per
// spatial dimension with a window stride, (low, high) padding, lhs (base)
// and rhs (window) dilation (empty: 1 everywhere); the dimension numbers
// say which dimensions are batch, feature and spatial
// (ShapeInference::InferConvolveShape).
XlaOp ConvGeneralDilated(
    XlaOp lhs, XlaOp rhs, Dims window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, Dims lhs_dilation,
    Dims rhs_dilation, const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count = 1, int64_t batch_group_count = 1,
    SourceLocation location = SourceLocation::current());
// XLA's ReduceWindowWithGeneralPadding: for each window position over
// `operand` (per dimension its window size, stride, base and window
// dilation, (low, high) padding; empty dilations or padding: 1 or 0), the
// elements under the window folded with the scalar `computation` from
// `init_value`; taps in padding or holes are skipped
// (ShapeInference::InferReduceWindowShape).
XlaOp ReduceWindowWithGeneralPadding(
    XlaOp operand, XlaOp init_value, const XlaComputation& computation,
    Dims window_dimensions, Dims window_strides, Dims base_dilations,
    Dims window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    SourceLocation location = SourceLocation::current());
// Variadic reduce-window: N >= 1 operands of equal dimensions, N inits, a
// reducer of 2N scalars (accumulators, then elements) returning an N-tuple,
// folded over each window's taps in row-major order; the result is an
// N-tuple. Errors go to `builder`.
XlaOp ReduceWindowWithGeneralPadding(
    XlaBuilder* builder, absl::Span<const XlaOp> operands,
    absl::Span<const XlaOp> init_values, const XlaComputation& computation,
    Dims window_dimensions, Dims window_strides, Dims base_dilations,
    Dims window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    SourceLocation location = SourceLocation::current());
// XLA's SelectAndScatterWithGeneralPadding: for each window position over
// `operand` (window sizes, strides, (low, high) padding per dimension), the
// element `select` prefers (select(a, b) true keeps a) receives the source
// element at that position, combined by `scatter` into a result that
// starts as `init_value` everywhere
// (ShapeInference::InferSelectAndScatterShape).
XlaOp SelectAndScatterWithGeneralPadding(
    XlaOp operand, const XlaComputation& select, Dims window_dimensions,
    Dims window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
    XlaOp init_value, const XlaComputation& scatter,
    SourceLocation location = SourceLocation::current());
// XLA's Map: `computation` (one scalar parameter per operand, of its
// element type, returning a scalar) applied at every element position of
// the operands (one dimensions); `dimensions` must be all of them, in
// order. Errors go to `builder`.
XlaOp Map(XlaBuilder* builder, absl::Span<const XlaOp> operands,
          const XlaComputation& computation, Dims dimensions,
          SourceLocation location = SourceLocation::current());
// XLA's Sort: the operands (one dimensions; at least one) with every row
// along `dimension` (-1: the last) in the order `comparator` defines (2N
// scalars, lhs and rhs of each operand in turn -> pred[], true when lhs goes
// first). The result is the operand, or a tuple of them. mxla's sort is
// always stable, which is also a valid result when `is_stable` is false.
XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator,
           int64_t dimension = -1, bool is_stable = false,
           SourceLocation location = SourceLocation::current());
// XLA's collectives, checked as the verifier checks them (the groups, and
// the shard or split count against the groups' size where the groups give
// it; with no groups, against the devices the module runs on, when it
// runs). AllToAll splits and concatenates along one dimension when
// split_count is not 1.
XlaOp AllReduce(XlaOp operand, const XlaComputation& computation,
                const IdGroups& replica_groups = {},
                SourceLocation location = SourceLocation::current());
XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension,
                int64_t shard_count, const IdGroups& replica_groups = {},
                SourceLocation location = SourceLocation::current());
XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation,
                    int64_t scatter_dimension, int64_t shard_count,
                    const IdGroups& replica_groups = {},
                    SourceLocation location = SourceLocation::current());
XlaOp AllToAll(XlaOp operand, int64_t split_dimension,
               int64_t concat_dimension, int64_t split_count,
               const IdGroups& replica_groups = {},
               SourceLocation location = SourceLocation::current());
XlaOp CollectivePermute(
    XlaOp operand,
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    SourceLocation location = SourceLocation::current());
XlaOp CollectiveBroadcast(XlaOp operand, const IdGroups& replica_groups,
                          SourceLocation location = SourceLocation::current());
// The same with XLA's channel_id (ChannelHandle's handle), which with
// use_global_device_ids chooses the group mode (ir/collective_groups.h):
// none is cross-replica. With a channel_id, all-reduce, all-gather and
// reduce-scatter are cross-replica-and-partition (use_global_device_ids
// absent or false: XLA's bool defaults to false) or flattened ids (true);
// all-to-all, collective-permute and collective-broadcast, which have no
// use_global_device_ids, are cross-partition.
XlaOp AllReduce(XlaOp operand, const XlaComputation& computation,
                const IdGroups& replica_groups,
                std::optional<int64_t> channel_id,
                std::optional<bool> use_global_device_ids = std::nullopt,
                SourceLocation location = SourceLocation::current());
XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension,
                int64_t shard_count, const IdGroups& replica_groups,
                std::optional<int64_t> channel_id,
                std::optional<bool> use_global_device_ids = std::nullopt,
                SourceLocation location = SourceLocation::current());
XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation,
                    int64_t scatter_dimension, int64_t shard_count,
                    const IdGroups& replica_groups,
                    std::optional<int64_t> channel_id,
                    std::optional<bool> use_global_device_ids = std::nullopt,
                    SourceLocation location = SourceLocation::current());
XlaOp AllToAll(XlaOp operand, int64_t split_dimension,
               int64_t concat_dimension, int64_t split_count,
               const IdGroups& replica_groups,
               std::optional<int64_t> channel_id,
               SourceLocation location = SourceLocation::current());
// XLA's AllToAllTuple: one operand per member of each group (at least
// one); rank k sends operand j to rank j and gets a tuple of what each rank
// sent it, in rank order. The operands must be as many as each group's
// members: without groups, one (a builder's module runs on one device).
XlaOp AllToAllTuple(absl::Span<const XlaOp> operands,
                    const IdGroups& replica_groups = {},
                    std::optional<int64_t> channel_id = std::nullopt,
                    SourceLocation location = SourceLocation::current());
XlaOp CollectivePermute(
    XlaOp operand,
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    std::optional<int64_t> channel_id,
    SourceLocation location = SourceLocation::current());
XlaOp CollectiveBroadcast(XlaOp operand, const IdGroups& replica_groups,
                          std::optional<int64_t> channel_id,
                          SourceLocation location = SourceLocation::current());
// XLA's RaggedAllToAll, in its argument order (the instruction's operands
// are input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes): `output` with the rows each member of the group sends this
// one written in (docs/hlo.md); the result has output's shape.
XlaOp RaggedAllToAll(XlaOp input, XlaOp input_offsets, XlaOp send_sizes,
                     XlaOp output, XlaOp output_offsets, XlaOp recv_sizes,
                     const IdGroups& replica_groups = {},
                     SourceLocation location = SourceLocation::current());
// XLA's While: `init` through `body` while `condition` (init's shape ->
// pred[]) holds; body maps init's shape to itself.
XlaOp While(const XlaComputation& condition, const XlaComputation& body,
            XlaOp init, SourceLocation location = SourceLocation::current());
// XLA's Conditional: branch_computations[i] (copied into the builder) on
// branch_operands[i], where i is the s32 scalar `branch_index` (out of
// range: the last branch); every branch returns one shape, the result's.
XlaOp Conditional(XlaOp branch_index,
                  absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands,
                  SourceLocation location = SourceLocation::current());
// The pred form: true_computation on true_operand if `predicate` holds,
// else false_computation on false_operand.
XlaOp Conditional(XlaOp predicate, XlaOp true_operand,
                  const XlaComputation& true_computation, XlaOp false_operand,
                  const XlaComputation& false_computation,
                  SourceLocation location = SourceLocation::current());
// Calls `computation` (copied into the builder) on `operands`, one per
// parameter and of its shape; the result is the computation's. Errors go
// to `builder`.
XlaOp Call(XlaBuilder* builder, const XlaComputation& computation,
           absl::Span<const XlaOp> operands,
           SourceLocation location = SourceLocation::current());
// A tuple of `elements` (tuples allowed, but the jit backend rejects nested
// tuples as Unimplemented at compile time). Errors go to `builder`.
XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements,
            SourceLocation location = SourceLocation::current());
// Element `index` (in range) of a tuple-shaped op.
XlaOp GetTupleElement(XlaOp tuple, int64_t index,
                      SourceLocation location = SourceLocation::current());

}  // namespace mxla

#endif  // MXLA_BUILDER_OPS_H_
