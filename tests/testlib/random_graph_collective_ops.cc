// The random-graph steps for collectives, drawn only when the graph runs
// on several devices (RandomGraphOptions::replicas × partitions > 1):
// all-reduce and reduce-scatter (add, multiply, max, min, or a reducer of
// two ops), all-gather, all-to-all (array and tuple forms),
// collective-permute (some devices may receive nothing: zeros),
// collective-broadcast, and replica-id / partition-id converted to an
// element type. Their groups are drawn in every mode the device counts
// allow (ir/collective_groups.h): empty, contiguous (XLA's iota form
// [n/g,g]<=[n]), strided (its transposed form) or random, and for
// all-reduce sometimes of unequal sizes. Ranges hold on every device,
// since every device's arguments obey the same bounds. Also the graph's
// device counts and each device's arguments.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "ir/collective_groups.h"
#include "ir/hlo_module.h"
#include "ir/primitive_type.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla::random_graph_internal {
namespace {

using O = HloOpcode;

// The reducers a collective draws: XLA's four, and a + (b + b), which is
// neither one op nor symmetric, so that the members' order shows.
enum class Reducer { kAdd, kMultiply, kMaximum, kMinimum, kAddTwice };

Reducer RandomReducer(Rng& rng) {
  return static_cast<Reducer>(rng.Uniform(5));
}

absl::StatusOr<XlaComputation> ReducerComputation(Reducer reducer,
                                                  PrimitiveType type,
                                                  XlaBuilder* builder) {
  switch (reducer) {
    case Reducer::kAdd:
      return CreateScalarAddComputation(type, builder);
    case Reducer::kMultiply:
      return CreateScalarMulComputation(type, builder);
    case Reducer::kMaximum:
      return CreateScalarMaxComputation(type, builder);
    case Reducer::kMinimum:
      return CreateScalarMinComputation(type, builder);
    case Reducer::kAddTwice:
      break;
  }
  XlaBuilder twice(absl::StrCat(builder->name(), "_add_twice"));
  XlaOp a = Parameter(&twice, 0, Shape(type, {}), "a");
  XlaOp b = Parameter(&twice, 1, Shape(type, {}), "b");
  return twice.Build(Add(a, Add(b, b)));
}

// The range of `count` values of `operand` folded by `reducer` (first the
// first member's value, then each other's in rank order).
Range CollectiveReduceRange(Reducer reducer, PrimitiveType type,
                            const Range& operand, int64_t count) {
  switch (reducer) {
    case Reducer::kAdd:
      return ReduceRange(O::kAdd, type, operand, operand, count - 1);
    case Reducer::kMultiply:
      return ReduceRange(O::kMultiply, type, operand, operand, count - 1);
    case Reducer::kMaximum:
      return ReduceRange(O::kMaximum, type, operand, operand, count - 1);
    case Reducer::kMinimum:
      return ReduceRange(O::kMinimum, type, operand, operand, count - 1);
    case Reducer::kAddTwice:
      break;
  }
  // x0 + 2·(x1 + ... + x(n-1)): positive weights summing to 2n - 1.
  if (!operand.Finite()) return Range::Unknown();
  const double weight = 2.0 * static_cast<double>(count) - 1;
  Range range = Range::Of(weight * operand.lo, weight * operand.hi);
  range.nan = operand.nan;
  return range;
}

// Ids 0..n-1 in groups of `size` (which divides n): in order, strided, or
// shuffled.
IdGroups EqualGroups(Rng& rng, int64_t n, int64_t size) {
  const int64_t count = n / size;
  const int64_t form = rng.Uniform(3);
  std::vector<int64_t> order =
      form == 2 ? rng.Permutation(n) : std::vector<int64_t>();
  IdGroups groups(count);
  for (int64_t i = 0; i < n; ++i) {
    if (form == 0) groups[i / size].push_back(i);       // [count,size]<=[n]
    if (form == 1) groups[i % count].push_back(i);      // ...T(1,0)
    if (form == 2) groups[i / size].push_back(order[i]);
  }
  return groups;
}

// A shuffle of ids 0..n-1 cut at random places: groups of unequal sizes.
IdGroups UnevenGroups(Rng& rng, int64_t n) {
  IdGroups groups(1);
  for (int64_t id : rng.Permutation(n)) {
    if (!groups.back().empty() && rng.OneIn(3)) groups.emplace_back();
    groups.back().push_back(id);
  }
  return groups;
}

// The dimensions of `shape` whose size `size` divides, non-empty ones first
// when there are any.
std::vector<int64_t> DivisibleDimensions(const Shape& shape, int64_t size) {
  std::vector<int64_t> nonzero, zero;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const int64_t n = shape.dimensions(d);
    if (n % size != 0) continue;
    (n == 0 ? zero : nonzero).push_back(d);
  }
  return nonzero.empty() ? zero : nonzero;
}

}  // namespace

XlaComputation Generator::WithDeviceCounts(XlaComputation computation) const {
  if (options_.replicas * options_.partitions == 1) return computation;
  std::unique_ptr<HloModule> module = computation.CloneModule();
  module->set_replica_count(options_.replicas);
  module->set_num_partitions(options_.partitions);
  return XlaComputation(std::move(module));
}

std::vector<std::vector<Literal>> Generator::DeviceArguments(
    const std::vector<Literal>& arguments) const {
  const int64_t devices = options_.replicas * options_.partitions;
  if (devices == 1) return {};
  std::vector<std::vector<Literal>> per_device(1);
  for (const Literal& argument : arguments) {
    per_device[0].push_back(Literal(argument));
  }
  for (int64_t d = 1; d < devices; ++d) {
    // A stream of (seed, d): device d's values depend on the seed and the
    // parameters' shapes, not on the device count or the others' draws.
    Rng mix(seed_ ^ (0x9E3779B97F4A7C15u * static_cast<uint64_t>(d)));
    Rng device_rng(mix.Next());
    per_device.push_back(DrawArguments(device_rng));
  }
  return per_device;
}

CollectiveGroups Generator::RandomGroups(bool global_modes, bool uniform) {
  using Mode = CollectiveGroupMode;
  const int64_t replicas = options_.replicas;
  const int64_t partitions = options_.partitions;
  std::vector<Mode> modes;
  if (replicas > 1 || partitions == 1) modes.push_back(Mode::kCrossReplica);
  if (partitions > 1 && global_modes) {
    // The ops with use_global_device_ids (a bool in XLA) cannot be
    // cross-partition: a channel_id makes them one of these.
    modes.push_back(Mode::kCrossReplicaAndPartition);
    modes.push_back(Mode::kFlattenedId);
  } else if (partitions > 1) {
    modes.push_back(Mode::kCrossPartition);
  }
  const Mode mode = rng_.Pick(modes);
  CollectiveGroups result;
  if (mode != Mode::kCrossReplica) result.channel_id = next_channel_id_++;
  // XLA prints use_global_device_ids only when true: false is mostly
  // left out, as in its text, and now and then written.
  if (mode == Mode::kCrossReplicaAndPartition && rng_.OneIn(3)) {
    result.use_global_device_ids = false;
  }
  if (mode == Mode::kFlattenedId) result.use_global_device_ids = true;
  const int64_t ids = mode == Mode::kCrossPartition ? partitions
                      : mode == Mode::kFlattenedId  ? replicas * partitions
                                                    : replicas;
  const int64_t form = rng_.Uniform(4);
  if (form == 0 && mode != Mode::kFlattenedId) {
    result.size = ids;  // no groups: every id
  } else if (form == 1 && !uniform) {
    result.groups = UnevenGroups(rng_, ids);
    for (const std::vector<int64_t>& group : result.groups) {
      result.size = std::max<int64_t>(result.size, group.size());
    }
  } else {
    std::vector<int64_t> sizes;
    for (int64_t size = 1; size <= ids; ++size) {
      if (ids % size == 0) sizes.push_back(size);
    }
    // Groups of one device now and then; mostly several.
    if (sizes.size() > 1 && !rng_.OneIn(6)) sizes.erase(sizes.begin());
    result.size = rng_.Pick(sizes);
    result.groups = EqualGroups(rng_, ids, result.size);
  }
  if (mode == Mode::kCrossReplicaAndPartition) result.size *= partitions;
  return result;
}

bool Generator::TryAllReduce(int64_t budget) {
  const int64_t a = PickValue(
      [](const Value& v) { return v.shape.element_type() != PRED; });
  if (a < 0 || budget < 1) return false;
  const PrimitiveType type = values_[a].shape.element_type();
  const CollectiveGroups groups = RandomGroups(true, /*uniform=*/false);
  const Reducer reducer = RandomReducer(rng_);
  const Range range =
      CollectiveReduceRange(reducer, type, values_[a].range, groups.size);
  if (!Accept(range, type)) return false;
  absl::StatusOr<XlaComputation> computation =
      ReducerComputation(reducer, type, &builder_);
  if (!computation.ok()) return false;
  XlaOp op = Emit(ValueSource(a, type));
  Record(AllReduce(op, *computation, groups.groups, groups.channel_id,
                   groups.use_global_device_ids),
         range);
  return true;
}

bool Generator::TryReduceScatter(int64_t budget) {
  const CollectiveGroups groups = RandomGroups(true, /*uniform=*/true);
  const int64_t a = PickValue([&](const Value& v) {
    return v.shape.element_type() != PRED &&
           !DivisibleDimensions(v.shape, groups.size).empty();
  });
  if (a < 0 || budget < 1) return false;
  const PrimitiveType type = values_[a].shape.element_type();
  const int64_t dimension =
      rng_.Pick(DivisibleDimensions(values_[a].shape, groups.size));
  const Reducer reducer = RandomReducer(rng_);
  const Range range =
      CollectiveReduceRange(reducer, type, values_[a].range, groups.size);
  if (!Accept(range, type)) return false;
  absl::StatusOr<XlaComputation> computation =
      ReducerComputation(reducer, type, &builder_);
  if (!computation.ok()) return false;
  XlaOp op = Emit(ValueSource(a, type));
  Record(ReduceScatter(op, *computation, dimension, groups.size,
                       groups.groups, groups.channel_id,
                       groups.use_global_device_ids),
         range);
  return true;
}

bool Generator::TryAllGather(int64_t budget) {
  const int64_t a =
      PickValue([](const Value& v) { return v.shape.rank() >= 1; });
  if (a < 0 || budget < 1) return false;
  const CollectiveGroups groups = RandomGroups(true, /*uniform=*/true);
  const Shape& shape = values_[a].shape;
  const int64_t dimension = rng_.Uniform(shape.rank());
  std::vector<int64_t> dims(shape.dimensions().begin(),
                            shape.dimensions().end());
  dims[dimension] *= groups.size;
  if (!FitsLimits(dims)) return false;
  const Range range = values_[a].range;
  XlaOp op = Emit(ValueSource(a, shape.element_type()));
  Record(AllGather(op, dimension, groups.size, groups.groups,
                   groups.channel_id, groups.use_global_device_ids),
         range);
  return true;
}

bool Generator::TryAllToAll(int64_t budget) {
  // No use_global_device_ids (XLA's all-to-all has none): cross-replica,
  // or with a channel_id cross-partition.
  const CollectiveGroups groups = RandomGroups(false, /*uniform=*/true);
  const int64_t a = PickValue([&](const Value& v) {
    return !DivisibleDimensions(v.shape, groups.size).empty();
  });
  if (a < 0 || budget < 1) return false;
  const int64_t dimension =
      rng_.Pick(DivisibleDimensions(values_[a].shape, groups.size));
  const Range range = values_[a].range;
  XlaOp op = Emit(ValueSource(a, values_[a].shape.element_type()));
  Record(AllToAll(op, dimension, dimension, groups.size, groups.groups,
                  groups.channel_id),
         range);
  return true;
}

// The tuple form: one operand of one shape per member (the value, others
// of its shape, or constants), every element of the result taken out.
bool Generator::TryAllToAllTuple(int64_t budget) {
  CollectiveGroups groups = RandomGroups(false, /*uniform=*/true);
  // The builder checks the operand count against listed groups only.
  if (groups.groups.empty()) {
    groups.groups.emplace_back();
    for (int64_t id = 0; id < groups.size; ++id) {
      groups.groups[0].push_back(id);
    }
  }
  const int64_t members = groups.size;
  const int64_t a = PickValue([](const Value&) { return true; });
  if (a < 0 || 1 + members > budget) return false;
  const Shape shape = values_[a].shape;
  std::vector<Source> sources = {ValueSource(a, shape.element_type())};
  int64_t cost = 1 + members;
  Range range = values_[a].range;
  for (int64_t i = 1; i < members; ++i) {
    Source source;
    if (!SourceOfShape(shape, budget - cost, ValueStyle::kArgument,
                       /*allow_iota=*/true, &source)) {
      return false;
    }
    cost += source.Cost();
    range = range.Union(source.range);
    sources.push_back(std::move(source));
  }
  if (cost > budget) return false;
  std::vector<XlaOp> operands;
  for (const Source& source : sources) operands.push_back(Emit(source));
  XlaOp tuple = AllToAllTuple(operands, groups.groups, groups.channel_id);
  // Element j is rank j's operand for this device's rank: any of them.
  for (int64_t j = 0; j < members; ++j) {
    Record(GetTupleElement(tuple, j), range);
  }
  return true;
}

bool Generator::TryCollectivePermute(int64_t budget) {
  const int64_t a = PickValue([](const Value&) { return true; });
  if (a < 0 || budget < 1) return false;
  // Replica ids, or with a channel_id partition ids.
  const bool by_partition =
      options_.partitions > 1 && (options_.replicas == 1 || rng_.OneIn(2));
  const int64_t ids = by_partition ? options_.partitions : options_.replicas;
  const std::vector<int64_t> sources = rng_.Permutation(ids);
  const std::vector<int64_t> targets = rng_.Permutation(ids);
  const int64_t count = rng_.OneIn(3) ? ids : rng_.UniformIn(0, ids);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t i = 0; i < count; ++i) pairs.push_back({sources[i], targets[i]});
  Range range = values_[a].range;
  if (count < ids) range = range.Union(Range::Of(0, 0));  // zeros
  std::optional<int64_t> channel_id;
  if (by_partition) channel_id = next_channel_id_++;
  XlaOp op = Emit(ValueSource(a, values_[a].shape.element_type()));
  Record(CollectivePermute(op, pairs, channel_id), range);
  return true;
}

bool Generator::TryCollectiveBroadcast(int64_t budget) {
  const int64_t a = PickValue([](const Value&) { return true; });
  if (a < 0 || budget < 1) return false;
  const CollectiveGroups groups = RandomGroups(false, /*uniform=*/true);
  const Range range = values_[a].range;
  XlaOp op = Emit(ValueSource(a, values_[a].shape.element_type()));
  Record(CollectiveBroadcast(op, groups.groups, groups.channel_id), range);
  return true;
}

// u32 replica-id or partition-id, converted to one of the element types
// and, without scalars (or now and then), broadcast to an array.
bool Generator::TryDeviceId(int64_t budget) {
  const bool replica =
      options_.replicas > 1 && (options_.partitions == 1 || rng_.OneIn(2));
  const int64_t count = replica ? options_.replicas : options_.partitions;
  const Range range = Range::Of(0, static_cast<double>(count - 1));
  std::vector<PrimitiveType> types;
  for (PrimitiveType type : options_.element_types) {
    if (type != PRED && IsTame(range, type)) types.push_back(type);
  }
  if (types.empty()) return false;
  const PrimitiveType type = rng_.Pick(types);
  const bool broadcast =
      options_.max_rank > 0 && (!options_.allow_scalars || rng_.OneIn(2));
  std::vector<int64_t> dims;
  if (broadcast) {
    ShapeLimits limits = limits_;
    limits.allow_scalars = false;
    dims = RandomDimensions(rng_, limits, RandomRank(rng_, limits));
    if (!FitsLimits(dims)) return false;
  } else if (!options_.allow_scalars) {
    return false;
  }
  if (1 + (type != U32) + (broadcast ? 1 : 0) > budget) return false;
  XlaOp id = replica ? ReplicaId(&builder_) : PartitionId(&builder_);
  if (type != U32) id = ConvertElementType(id, type);
  if (broadcast) id = Broadcast(id, dims);
  Record(id, range);
  return true;
}

}  // namespace mxla::random_graph_internal
