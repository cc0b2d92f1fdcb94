// Seeded random computations for differential tests: the evaluator before
// and after lower-broadcasts / simplify, and later the JIT, run the same
// graph on the same arguments and must agree.
//
// Contract of GenerateRandomGraph(seed, options):
//   * deterministic: the same seed and options give the same HLO text and
//     argument bytes on every platform (own PRNG, no std distributions);
//   * the graph is a DAG built with the real XlaBuilder API; Build() succeeds
//     and VerifyModule(kBuilder) holds. A failure of either is a generator
//     bug and comes back as an Internal error naming the seed;
//   * binary ops carry random legal broadcast_dimensions covering every case
//     of XLA's rules (equal shapes, scalar on either side, in-dim mapping of
//     the lower-rank operand on either side, size-1 stretching of lhs, rhs,
//     both, and of the higher-rank operand);
//   * with allow_index_ops, slices (strided), concatenates, pads (negative
//     and interior), dynamic slices and updates (constant start indices of
//     s32/s64/u32, sometimes out of range), dots, reverses, gathers of
//     rows (start indices sometimes out of range), 1-d convolutions (any
//     label order, padding, dilations, reversal, feature groups),
//     reduce-windows (sum or max, padded and dilated, non-identity
//     inits), scatters of rows (adding; rows sometimes out of range) and
//     select-and-scatters (max-pool gradients) appear too;
//   * with allow_element_ops, clamps (scalar or full bounds), is-finite,
//     reduce-precision, bitcast-converts between signed and unsigned
//     integers of one width, maps of add/maximum/minimum, ascending
//     sorts, rng_uniform and stochastic-converts to s32 appear too (the
//     shifts, popcnt and
//     count-leading-zeros are among the integer binary and unary ops);
//   * with allow_host_feed, infeeds (their data drawn like an argument, in
//     RandomGraph::infeed) and outfeeds of any value appear, chained by
//     one token;
//   * at most `max_instructions` entry instructions besides the parameters
//     (BroadcastInDim counts as the 1 or 3 instructions it emits), exactly
//     that many two times in three; the root is the last op, or sometimes a
//     tuple of 2-3 values. Dead ends are merged in as the budget runs out,
//     so most values and parameters reach the root;
//   * values stay in tame ranges: arguments are f32/f64 in [-2, 2) (never
//     0), integers in [-8, 8), pred random. Integer values stay within
//     2^30 (s32) / 2^50 (s64) and float-to-integer converts never see
//     out-of-range values; float NaN/inf may appear, rarely (log of 0, a
//     divisor that may be 0, -inf as a max-reduce init over 0 elements);
//   * parameters, iota, constants of non-pred type and convert targets use
//     `element_types`; pred values also come from compares (and flow into
//     select, and/or/xor/not, convert and the other pred-typed ops);
//   * on several devices (replicas x partitions > 1) the graph also draws
//     collectives: all-reduce and reduce-scatter (add, multiply, max, min
//     or a + (b + b), which is not symmetric), all-gather, all-to-all
//     (array and tuple forms), collective-permute (some devices may receive nothing,
//     hence zeros), collective-broadcast, and replica-id / partition-id
//     converted to an element type. Their groups are empty, contiguous,
//     strided or random (of unequal sizes for all-reduce sometimes), in
//     every mode the counts allow: cross-replica, and with partitions > 1
//     cross-partition, cross-replica-and-partition and flattened ids
//     (ir/collective_groups.h); gathered, scattered and split dimensions
//     fit the group size. The module then carries the counts
//     (replica_count, num_partitions), and each device has its own
//     arguments (RandomGraph::device_arguments, device 0's being
//     `arguments`), drawn by the same rules from a stream of (seed,
//     device), so that a collective mixing up its members shows. One
//     device (the default) draws exactly the graphs it drew before.
#ifndef MXLA_TESTS_TESTLIB_RANDOM_GRAPH_H_
#define MXLA_TESTS_TESTLIB_RANDOM_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "ir/host_feed.h"
#include "ir/literal.h"

namespace mxla {

struct RandomGraphOptions {
  int64_t max_instructions = 12;  // ops added after the parameters
  int64_t max_rank = 4;
  int64_t max_dimension_size = 5;  // sizes 0..max (0 rarely), 1 often
  std::vector<PrimitiveType> element_types = {F32};  // which types to use
  // Off means the op never appears. allow_reshape off also keeps
  // BroadcastInDim from stretching (XLA's builder emits a reshape for that);
  // allow_scalars off leaves only the scalar init constants of reduces.
  bool allow_reduce = true, allow_transpose = true, allow_reshape = true,
       allow_select = true, allow_convert = true, allow_scalars = true,
       allow_zero_sizes = true;
  // slice, concatenate, pad, dynamic-slice, dynamic-update-slice, dot,
  // reverse, gather, convolution, reduce-window, scatter and
  // select-and-scatter.
  bool allow_index_ops = true;
  // clamp, is-finite, reduce-precision, bitcast-convert, map, sort, rng
  // (uniform) and stochastic-convert.
  bool allow_element_ops = true;
  // exp/log/tanh/logistic/rsqrt and float power (inexact across backends;
  // sqrt is correctly rounded and stays).
  bool allow_transcendental = true;
  // infeed and outfeed, chained by one token: the infeed values are in
  // RandomGraph::infeed. Off by default: a run needs a host feed.
  bool allow_host_feed = false;
  int64_t max_parameters = 3;
  // The scale tier: when set, each parameter has these dimensions (the first
  // one exactly; later ones with sizes replaced by 1 or leading dimensions
  // dropped, so that binary ops broadcast them), making kernels large enough
  // to be split, threaded, streamed and row-fused. Other new shapes still
  // draw sizes up to max_dimension_size, and no value may have more
  // elements than the parameters'. Rank at most max_rank, sizes >= 1.
  std::vector<int64_t> parameter_dimensions;
  // With 2 or more parameters, all but the first are packed into one tuple
  // parameter (number 1, "t1") that the graph reads by get-tuple-element;
  // its argument is a tuple literal. Shapes and argument values are those
  // the seed gives without packing.
  bool tuple_parameter = false;
  // The devices the graph runs on (see the contract): both 1 draws no
  // collective. Several devices and allow_host_feed are exclusive.
  int64_t replicas = 1;
  int64_t partitions = 1;
};

struct RandomGraph {
  XlaComputation computation;
  std::vector<Literal> arguments;  // one per parameter (a tuple for "t1")
  // On several devices, one argument list per device id, as
  // Executable::RunReplicated takes them (device 0's equal `arguments`);
  // empty on one device.
  std::vector<std::vector<Literal>> device_arguments;
  std::vector<Literal> infeed;     // what the infeeds read, in order
  std::string description;         // seed + a one-line summary

  // A host feed holding copies of `infeed`, for one run.
  std::unique_ptr<HostFeedQueue> MakeFeed() const;
};

// Invalid options (no element types, max_dimension_size < 1, rank 0 without
// scalars, nothing to build, device counts below 1, host feeds on several
// devices) are InvalidArgument.
absl::StatusOr<RandomGraph> GenerateRandomGraph(
    uint64_t seed, const RandomGraphOptions& options);

}  // namespace mxla

#endif  // MXLA_TESTS_TESTLIB_RANDOM_GRAPH_H_
