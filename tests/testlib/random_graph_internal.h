// Internals of the random-graph generator (random_graph.h): the PRNG, value
// ranges, random shapes and literals, and the Generator itself. Shared by
// random_graph*.cc and pinned by random_graph_test.cc; not an API.
#ifndef MXLA_TESTS_TESTLIB_RANDOM_GRAPH_INTERNAL_H_
#define MXLA_TESTS_TESTLIB_RANDOM_GRAPH_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "builder/xla_builder.h"
#include "ir/hlo_opcode.h"
#include "ir/literal.h"
#include "ir/replica_groups.h"
#include "ir/shape.h"
#include "tests/testlib/random_graph.h"

namespace mxla::random_graph_internal {

// splitmix64: a few lines that give the same sequence everywhere, unlike the
// std distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  int64_t Uniform(int64_t n);                 // [0, n); n >= 1
  int64_t UniformIn(int64_t lo, int64_t hi);  // [lo, hi]
  bool OneIn(int64_t n) { return Uniform(n) == 0; }
  // A random strictly increasing subset of [0, n) with k elements.
  std::vector<int64_t> Subset(int64_t n, int64_t k);
  std::vector<int64_t> Permutation(int64_t n);
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Uniform(static_cast<int64_t>(items.size()))];
  }

 private:
  uint64_t state_;
};

// Conservative bounds on an array's values: every element is in [lo, hi]
// unless `nan`; an infinite bound means inf may occur. `maybe_zero` false
// promises no element is exactly 0 (what makes log/rsqrt of abs safe).
struct Range {
  double lo = 0;
  double hi = 0;
  bool nan = false;
  bool maybe_zero = true;

  static Range Of(double lo, double hi) { return Range{lo, hi, false, true}; }
  static Range Unknown();
  static Range Bool() { return Of(0, 1); }
  bool Finite() const;
  double Magnitude() const;
  bool ContainsZero() const { return nan || (lo <= 0 && hi >= 0); }
  Range Union(const Range& other) const;
};

// Ranges of op results with XLA's semantics for element type `type` (the
// operands' type; integer x/0 is -1, x%0 is x). Pred-typed results are [0,1].
Range BinaryRange(HloOpcode opcode, PrimitiveType type, const Range& a,
                  const Range& b);
Range UnaryRange(HloOpcode opcode, PrimitiveType type, const Range& a);
Range ConvertRange(const Range& a, PrimitiveType from, PrimitiveType to);
// `count` elements folded into each result element.
Range ReduceRange(HloOpcode reducer, PrimitiveType type, const Range& operand,
                  const Range& init, int64_t count);
Range PowRange(const Range& base, absl::Span<const double> exponents);
Range LiteralRange(const Literal& literal);
// Integers never near overflow; floats finite and moderate. Also the test
// for converting a float to integer type `type`.
bool IsTame(const Range& range, PrimitiveType type);

struct ShapeLimits {
  int64_t max_rank = 4;
  int64_t max_dimension_size = 5;
  bool allow_zero_sizes = true;
  bool allow_scalars = true;
};

int64_t RandomDimensionSize(Rng& rng, const ShapeLimits& limits);
// Rank 0 only if scalars are allowed, and then rarely.
int64_t RandomRank(Rng& rng, const ShapeLimits& limits);
std::vector<int64_t> RandomDimensions(Rng& rng, const ShapeLimits& limits,
                                      int64_t rank);
// Same element count, rank within limits: a random factorization, or the
// same sizes with size-1 dimensions added and removed.
std::vector<int64_t> RandomReshape(Rng& rng, absl::Span<const int64_t> dims,
                                   const ShapeLimits& limits);

// A second operand for a binary op whose other operand has dimensions `a`:
// its dimensions and the broadcast_dimensions, drawn from every case of
// XLA's rules (equal, scalar, lower or higher rank with in-dim mapping,
// size-1 stretching on either or both sides).
struct Partner {
  std::vector<int64_t> dimensions;
  std::vector<int64_t> broadcast_dimensions;
};
Partner RandomPartner(Rng& rng, absl::Span<const int64_t> a,
                      const ShapeLimits& limits);
// Every broadcast_dimensions under which operands of dimensions `a` and `b`
// are legal for a binary op ({} for equal ranks or a scalar; the identity
// is left to the caller).
std::vector<std::vector<int64_t>> LegalBroadcastDimensions(
    absl::Span<const int64_t> a, absl::Span<const int64_t> b);

enum class ValueStyle {
  kArgument,  // floats in [-2, 2) without 0, integers in [-8, 8)
  kNonZero,   // divisors: magnitudes in [0.5, 2) or [1, 8], one sign
};
Literal RandomLiteral(Rng& rng, const Shape& shape, ValueStyle style);
// Pow exponents, elementwise from `choices` (converted to the type).
Literal ExponentLiteral(Rng& rng, const Shape& shape,
                        absl::Span<const double> choices);

// A value of the graph under construction, with bounds on its elements.
struct Value {
  XlaOp op;
  Shape shape;
  Range range;
  int64_t uses = 0;
  bool leaf = false;  // constant or iota: a poor first operand
};

// An operand chosen but not yet emitted, so a step can check legality and
// cost before it adds anything: an existing value (converted first if
// `convert_to` is set), or a new constant or iota.
struct Source {
  enum class Kind { kValue, kConstant, kIota };
  Kind kind = Kind::kValue;
  int64_t index = -1;
  PrimitiveType convert_to = PRIMITIVE_TYPE_INVALID;
  Shape shape;  // after any convert
  Range range;
  Literal literal;
  int64_t iota_dimension = 0;

  int64_t Cost() const {
    return kind == Kind::kValue && convert_to == PRIMITIVE_TYPE_INVALID ? 0 : 1;
  }
};

// Select's predicate: an existing pred value, or a new compare of `lhs`
// and `rhs`.
struct PredPlan {
  bool is_compare = false;
  Source pred;  // !is_compare
  Source lhs, rhs;
  ComparisonDirection direction = ComparisonDirection::kEq;

  Shape shape() const;
  int64_t Cost() const {
    return is_compare ? 1 + lhs.Cost() + rhs.Cost() : pred.Cost();
  }
};

// Which devices a collective joins (ir/collective_groups.h): the mode's
// attributes, the groups, and how many devices each group has (the
// largest group's count for all-reduce's uneven groups).
struct CollectiveGroups {
  IdGroups groups;
  std::optional<int64_t> channel_id;
  std::optional<bool> use_global_device_ids;
  int64_t size = 1;
};

class Generator {
 public:
  Generator(uint64_t seed, const RandomGraphOptions& options);
  absl::StatusOr<RandomGraph> Generate();

 private:
  // Steps (random_graph_steps.cc, random_graph_ops.cc). Each emits at most
  // `budget` entry instructions and returns true, or, when its random
  // choices do not work out, emits nothing and returns false.
  bool TryBinary(int64_t budget);
  bool TryMerge(int64_t budget);
  bool MergeThroughScalar(HloOpcode opcode, const Source& x, int64_t y,
                          bool swap, int64_t budget);
  bool TryPower(int64_t base, int64_t budget);
  bool TryUnary(int64_t budget);
  bool TrySelect(int64_t budget);
  bool TryConvert(int64_t budget);
  bool TryBroadcast(int64_t budget);
  bool TryBroadcastInDim(int64_t budget);
  bool TryReshape(int64_t budget);
  bool TryTranspose(int64_t budget);
  bool TryReduce(int64_t budget);
  bool TryRowReduction(int64_t budget);  // the scale tier only
  // Reduces value `a` over its dimensions from `kept` on and combines the
  // result with it, broadcast along the first `kept`.
  bool RowReductionOf(int64_t a, int64_t kept, int64_t budget);
  bool TryIota(int64_t budget);
  bool TryConstant(int64_t budget);
  // Index ops (random_graph_index_ops.cc).
  bool TrySlice(int64_t budget);
  bool TryConcatenate(int64_t budget);
  bool TryPad(int64_t budget);
  bool TryDynamicSlice(int64_t budget);
  bool TryDynamicUpdateSlice(int64_t budget);
  bool TryDot(int64_t budget);
  // a[..., k] x b[k, n] for value `a` (TryDot's product).
  bool DotOf(int64_t a, int64_t budget);
  bool TryDotLayer(int64_t budget);  // f32/f64: a dot and its fused forms
  bool TryGather(int64_t budget);
  // random_graph_window_ops.cc
  bool TryConvolution(int64_t budget);
  bool TryReduceWindow(int64_t budget);
  bool TryScatter(int64_t budget);
  bool TrySelectAndScatter(int64_t budget);
  // random_graph_element_ops.cc
  bool TryReverse(int64_t budget);
  bool TryClamp(int64_t budget);
  bool TryFloatBits(int64_t budget);  // is-finite or reduce-precision
  bool TryBitcastConvert(int64_t budget);
  bool TryMap(int64_t budget);
  bool TrySort(int64_t budget);
  bool TryRng(int64_t budget);                // rng_uniform
  bool TryRngBitGenerator(int64_t budget);    // masked to [0, 15]
  bool TryStochasticConvert(int64_t budget);  // to s32
  // random_graph_linear_algebra_ops.cc
  bool TryTriangularSolve(int64_t budget);
  bool TryCholesky(int64_t budget);
  bool TryScaledDot(int64_t budget);
  // random_graph_collective_ops.cc, on several devices only.
  bool TryAllReduce(int64_t budget);
  bool TryAllGather(int64_t budget);
  bool TryReduceScatter(int64_t budget);
  bool TryAllToAll(int64_t budget);
  bool TryAllToAllTuple(int64_t budget);
  bool TryCollectivePermute(int64_t budget);
  bool TryCollectiveBroadcast(int64_t budget);
  bool TryDeviceId(int64_t budget);  // replica-id or partition-id
  // A random mode and groups of it: with `global_modes` (the ops that
  // hold use_global_device_ids: all-reduce, all-gather, reduce-scatter)
  // cross-replica, cross-replica-and-partition or flattened ids; without,
  // cross-replica or cross-partition. `uniform` off allows groups of
  // unequal sizes.
  CollectiveGroups RandomGroups(bool global_modes, bool uniform);
  // On several devices, `computation` with the device counts (which its
  // groups are checked against), and each device's arguments: device 0's
  // are `arguments`, the others drawn from streams of (seed, device). On
  // one device, `computation` as it is and no device arguments.
  XlaComputation WithDeviceCounts(XlaComputation computation) const;
  std::vector<std::vector<Literal>> DeviceArguments(
      const std::vector<Literal>& arguments) const;
  // random_graph_element_ops.cc, with allow_host_feed
  bool TryInfeed(int64_t budget);
  bool TryOutfeed(int64_t budget);
  // The token the next infeed or outfeed waits for (made on first use).
  XlaOp Token();
  // Emitted constant start indices for a `window` in `shape`, of one
  // random integer type, sometimes out of range.
  std::vector<XlaOp> StartIndices(const Shape& shape,
                                  absl::Span<const int64_t> window);

  // Helpers of the binary and select steps.
  // Emits `lhs opcode rhs` unless it is illegal, too large, over budget or
  // too wild (see Accept); returns whether it did.
  bool EmitBinaryIfOk(HloOpcode opcode, const Source& lhs, const Source& rhs,
                      const std::vector<int64_t>& dims, int64_t budget);
  // Unused non-leaf values other than `newest`: the graph's dead ends.
  std::vector<int64_t> DeadValues(int64_t newest) const;
  bool PickExistingPartner(int64_t a, int64_t budget, Source* partner,
                           std::vector<int64_t>* broadcast_dimensions);
  bool PlanPred(absl::Span<const int64_t> dims, int64_t budget, PredPlan* plan);
  XlaOp EmitPred(const PredPlan& plan);
  Source ReduceInit(HloOpcode reducer, PrimitiveType type);

  // The driver and the pool (random_graph.cc).
  void AddParameters();
  // One argument per parameter (a tuple for "t1"), drawn from `rng`.
  std::vector<Literal> DrawArguments(Rng& rng) const;
  bool RunStep(int64_t budget);
  XlaOp MakeRoot(bool tuple);
  std::string Describe(const XlaComputation& computation) const;
  int64_t Emitted() const;
  // A value accepted by `accept`, or -1: mostly an unused or the newest
  // non-leaf value, so that most values (parameters first) feed the root.
  int64_t PickValue(absl::FunctionRef<bool(const Value&)> accept);
  Source ValueSource(int64_t index, PrimitiveType type);
  Source ConstantSource(const Shape& shape, ValueStyle style);
  Source IotaSource(const Shape& shape);
  // An existing value of exactly `shape`, or a new constant (or iota).
  bool SourceOfShape(const Shape& shape, int64_t budget, ValueStyle style,
                     bool allow_iota, Source* source);
  // Emits `source` for an op about to consume it; or, with `is_result`, as
  // the step's own result (an unused, non-leaf value).
  XlaOp Emit(const Source& source, bool is_result = false);
  // Adds an emitted op to the pool; `consumed` if an op about to be emitted
  // uses it.
  void Record(XlaOp op, const Range& range, bool consumed = false,
              bool leaf = false);
  // Whether a result in `range` may be used: integers must never overflow;
  // wild floats (inf, NaN, huge) are let through rarely.
  bool Accept(const Range& range, PrimitiveType type);
  bool FitsLimits(absl::Span<const int64_t> dims) const;
  // Conversions only target `element_types`: pred comes from compares.
  bool IsAllowedType(PrimitiveType type) const;
  // Whether value `index` may become `type`: the same type, or an allowed
  // conversion that cannot saturate or wrap.
  bool Convertible(int64_t index, PrimitiveType type) const;

  Rng rng_;
  const uint64_t seed_;
  const RandomGraphOptions& options_;
  ShapeLimits limits_;
  int64_t max_elements_ = 1;
  XlaBuilder builder_;
  std::vector<Value> values_;
  int64_t num_parameters_ = 0;
  int64_t parameter_values_ = 0;  // values_[0, n) are parameters or elements
  int64_t preamble_instructions_ = 0;  // parameters and get-tuple-elements
  std::optional<XlaOp> token_;         // the host feeds' chain
  std::vector<Literal> infeed_;        // what the infeeds read, in order
  int64_t next_channel_id_ = 1;        // collectives' channel_ids, unique
};

}  // namespace mxla::random_graph_internal

#endif  // MXLA_TESTS_TESTLIB_RANDOM_GRAPH_INTERNAL_H_
