// GenerateRandomGraph: the driver (parameters, a budget of random steps, the
// root, the arguments) and the pool of values the steps draw operands from.
// The steps themselves are in random_graph_steps.cc and random_graph_ops.cc.
#include "tests/testlib/random_graph.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_verifier.h"
#include "ir/shape_util.h"
#include "ir/primitive_type.h"
#include "tests/testlib/random_graph_internal.h"

namespace mxla {
namespace random_graph_internal {
namespace {

absl::Status ValidateOptions(const RandomGraphOptions& options) {
  if (options.element_types.empty()) {
    return absl::InvalidArgumentError("element_types is empty");
  }
  for (PrimitiveType type : options.element_types) {
    if (!primitive_util::IsArrayType(type)) {
      return absl::InvalidArgumentError(
          absl::StrCat("element type ", primitive_util::LowercaseName(type),
                       " is not an array type"));
    }
  }
  if (options.max_dimension_size < 1 || options.max_rank < 0 ||
      options.max_instructions < 0 || options.max_parameters < 0) {
    return absl::InvalidArgumentError(
        "max_dimension_size must be >= 1; max_rank, max_instructions and "
        "max_parameters >= 0");
  }
  if (options.max_rank == 0 && !options.allow_scalars) {
    return absl::InvalidArgumentError("max_rank 0 needs allow_scalars");
  }
  if (static_cast<int64_t>(options.parameter_dimensions.size()) >
          options.max_rank ||
      std::any_of(options.parameter_dimensions.begin(),
                  options.parameter_dimensions.end(),
                  [](int64_t size) { return size < 1; })) {
    return absl::InvalidArgumentError(absl::StrCat(
        "parameter_dimensions [",
        absl::StrJoin(options.parameter_dimensions, ","),
        "] must have rank <= max_rank (", options.max_rank,
        ") and sizes >= 1"));
  }
  if (options.replicas < 1 || options.partitions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("replicas (", options.replicas, ") and partitions (",
                     options.partitions, ") must be >= 1"));
  }
  if (options.replicas * options.partitions > 1 && options.allow_host_feed) {
    return absl::InvalidArgumentError(
        "allow_host_feed needs one device: the devices would share one "
        "host feed");
  }
  if (options.max_parameters == 0 && options.max_instructions == 0) {
    return absl::InvalidArgumentError(
        "no parameters and no instructions: nothing to build");
  }
  return absl::OkStatus();
}

// Every shape rank <= max_rank with sizes <= max fits (capped for speed);
// in the scale tier, shapes up to the parameters' size.
int64_t MaxElements(const RandomGraphOptions& options) {
  if (!options.parameter_dimensions.empty()) {
    int64_t elements = 1;
    for (int64_t size : options.parameter_dimensions) elements *= size;
    return elements;
  }
  int64_t max_elements = 1;
  for (int64_t i = 0; i < options.max_rank && max_elements < (1 << 20); ++i) {
    max_elements *= options.max_dimension_size;
  }
  return std::min<int64_t>(max_elements, 1 << 20);
}

Range ArgumentRange(PrimitiveType type) {
  if (type == PRED) return Range::Bool();
  if (primitive_util::IsIntegralType(type)) return Range::Of(-8, 7);
  Range range = Range::Of(-2, 2);
  range.maybe_zero = false;  // see RandomLiteral
  return range;
}

// Parameter `index`'s dimensions: random, or in the scale tier the given
// ones, whole for parameter 0 and else with sizes set to 1 (one in three)
// and, one time in four, leading dimensions dropped.
std::vector<int64_t> ParameterDimensions(Rng& rng,
                                         const RandomGraphOptions& options,
                                         const ShapeLimits& limits,
                                         int64_t index) {
  if (options.parameter_dimensions.empty()) {
    return RandomDimensions(rng, limits, RandomRank(rng, limits));
  }
  std::vector<int64_t> dims = options.parameter_dimensions;
  if (index == 0) return dims;
  if (dims.size() > 1 && rng.OneIn(4)) {
    dims.erase(dims.begin(), dims.begin() + rng.UniformIn(1, dims.size() - 1));
  }
  for (int64_t& size : dims) {
    if (rng.OneIn(3)) size = 1;
  }
  return dims;
}

// ConstantR0 of a scalar literal's value (the API users write).
XlaOp ConstantScalar(XlaBuilder* builder, const Literal& literal) {
  return primitive_util::ArrayTypeSwitch(
      literal.shape().element_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        return ConstantR0<T>(builder, literal.data<T>()[0]);
      });
}

}  // namespace

Generator::Generator(uint64_t seed, const RandomGraphOptions& options)
    : rng_(seed),
      seed_(seed),
      options_(options),
      limits_{options.max_rank, options.max_dimension_size,
              options.allow_zero_sizes, options.allow_scalars},
      max_elements_(MaxElements(options)),
      builder_(absl::StrCat("random_", seed)) {}

absl::StatusOr<RandomGraph> Generator::Generate() {
  AddParameters();
  const int64_t max = options_.max_instructions;
  const int64_t target =
      max == 0 ? 0 : (rng_.OneIn(3) ? rng_.UniformIn(1, max) : max);
  const bool tuple_root = target >= 3 && rng_.OneIn(6);
  const int64_t body = target - (tuple_root ? 1 : 0);
  for (int64_t attempt = 0; Emitted() < body && attempt < 50 * body + 50 &&
                            builder_.first_error().ok();
       ++attempt) {
    const int64_t remaining = body - Emitted();
    // Without parameters every step but these needs a value to start from.
    if (values_.empty()) {
      if (!TryConstant(remaining)) TryIota(remaining);
      continue;
    }
    // Merge dead ends in, mostly once the budget runs low.
    const int64_t dead = static_cast<int64_t>(DeadValues(-1).size()) - 1;
    if (dead > 0 && (remaining <= 2 * dead + 1 || rng_.OneIn(6)) &&
        TryMerge(remaining)) {
      continue;
    }
    RunStep(remaining);
  }
  if (values_.empty()) {
    return absl::InternalError(
        absl::StrCat("random graph seed ", seed_, ": no op could be added"));
  }
  XlaOp root = MakeRoot(tuple_root);
  absl::StatusOr<XlaComputation> computation = builder_.Build(root);
  auto internal = [&](absl::string_view what, const absl::Status& status) {
    return absl::InternalError(absl::StrCat("random graph seed ", seed_, ": ",
                                            what, ": ", status.ToString()));
  };
  if (!computation.ok()) return internal("Build failed", computation.status());
  computation = WithDeviceCounts(*std::move(computation));
  absl::Status verified =
      VerifyModule(computation->module(), VerifierMode::kBuilder);
  if (!verified.ok()) return internal("verifier failed", verified);

  RandomGraph graph{*std::move(computation), {}, {}, std::move(infeed_), ""};
  graph.arguments = DrawArguments(rng_);
  graph.device_arguments = DeviceArguments(graph.arguments);
  graph.description = Describe(graph.computation);
  return graph;
}

std::vector<Literal> Generator::DrawArguments(Rng& rng) const {
  std::vector<Literal> leaves;
  for (int64_t i = 0; i < parameter_values_; ++i) {
    leaves.push_back(
        RandomLiteral(rng, values_[i].shape, ValueStyle::kArgument));
  }
  if (preamble_instructions_ == num_parameters_) return leaves;
  // "t1" holds every leaf after the first.
  std::vector<Literal> arguments;
  arguments.push_back(std::move(leaves[0]));
  leaves.erase(leaves.begin());
  arguments.push_back(LiteralUtil::MakeTuple(std::move(leaves)));
  return arguments;
}

void Generator::AddParameters() {
  const int64_t count = options_.max_parameters == 0
                            ? 0
                            : rng_.UniformIn(1, options_.max_parameters);
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < count; ++i) {
    // One draw after the other: as sibling arguments, their order would be
    // the compiler's, and a seed would give gcc and clang different graphs.
    std::vector<int64_t> dimensions =
        ParameterDimensions(rng_, options_, limits_, i);
    shapes.emplace_back(rng_.Pick(options_.element_types),
                        std::move(dimensions));
  }
  const bool pack = options_.tuple_parameter && count >= 2;
  const int64_t arrays = pack ? 1 : count;
  for (int64_t i = 0; i < arrays; ++i) {
    XlaOp op = Parameter(&builder_, i, shapes[i], absl::StrCat("p", i));
    Record(op, ArgumentRange(shapes[i].element_type()));
  }
  num_parameters_ = arrays;
  preamble_instructions_ = arrays;
  if (pack) {
    XlaOp tuple = Parameter(
        &builder_, 1,
        ShapeUtil::MakeTupleShape({shapes.begin() + 1, shapes.end()}), "t1");
    for (int64_t i = 1; i < count; ++i) {
      Record(GetTupleElement(tuple, i - 1),
             ArgumentRange(shapes[i].element_type()));
    }
    num_parameters_ = 2;
    preamble_instructions_ = count + 1;
  }
  parameter_values_ = count;
}

bool Generator::RunStep(int64_t budget) {
  struct Step {
    bool (Generator::*run)(int64_t);
    int64_t weight;
    bool enabled;
  };
  const bool index_ops = options_.allow_index_ops && options_.max_rank > 0;
  const bool collectives = options_.replicas * options_.partitions > 1;
  const Step steps[] = {
      {&Generator::TryBinary, 30, true},
      {&Generator::TryUnary, 14, true},
      {&Generator::TrySelect, 7, options_.allow_select},
      {&Generator::TryConvert, 6, options_.allow_convert},
      {&Generator::TryBroadcast, 4, true},
      {&Generator::TryBroadcastInDim, 5, true},
      {&Generator::TryReshape, 6, options_.allow_reshape},
      {&Generator::TryTranspose, 5, options_.allow_transpose},
      {&Generator::TryReduce, 7, options_.allow_reduce},
      {&Generator::TryRowReduction, 6,
       options_.allow_reduce && !options_.parameter_dimensions.empty()},
      {&Generator::TryIota, 2, true},
      {&Generator::TryConstant, 2, true},
      // Index ops need arrays: none in a scalars-only graph.
      {&Generator::TrySlice, 3, index_ops},
      {&Generator::TryConcatenate, 2, index_ops},
      {&Generator::TryPad, 2, index_ops},
      {&Generator::TryDynamicSlice, 2, index_ops},
      {&Generator::TryDynamicUpdateSlice, 2, index_ops},
      {&Generator::TryDot, 2, index_ops},
      {&Generator::TryDotLayer, 6, index_ops},
      {&Generator::TryReverse, 2, index_ops},
      {&Generator::TryGather, 2, index_ops},
      // Windowed reductions are reductions too.
      {&Generator::TryConvolution, 2, index_ops && options_.allow_reduce},
      {&Generator::TryReduceWindow, 2, index_ops && options_.allow_reduce},
      {&Generator::TryScatter, 1, index_ops},
      {&Generator::TrySelectAndScatter, 1, index_ops},
      {&Generator::TryClamp, 2, options_.allow_element_ops},
      {&Generator::TryFloatBits, 2, options_.allow_element_ops},
      {&Generator::TryBitcastConvert, 2, options_.allow_element_ops},
      {&Generator::TryMap, 1, options_.allow_element_ops},
      {&Generator::TrySort, 1, options_.allow_element_ops},
      {&Generator::TryRng, 1, options_.allow_element_ops},
      {&Generator::TryRngBitGenerator, 1, options_.allow_element_ops},
      {&Generator::TryStochasticConvert, 1, options_.allow_element_ops},
      // Their matrices are built with dots.
      {&Generator::TryTriangularSolve, 1, index_ops},
      {&Generator::TryCholesky, 1, index_ops},
      {&Generator::TryScaledDot, 1, index_ops},
      // Several devices only: one device draws the graphs it always drew.
      {&Generator::TryAllReduce, 4, collectives},
      {&Generator::TryAllGather, 3, collectives && options_.max_rank > 0},
      {&Generator::TryReduceScatter, 3, collectives && options_.max_rank > 0},
      {&Generator::TryAllToAll, 3, collectives && options_.max_rank > 0},
      {&Generator::TryAllToAllTuple, 2, collectives},
      {&Generator::TryCollectivePermute, 3, collectives},
      {&Generator::TryCollectiveBroadcast, 2, collectives},
      {&Generator::TryDeviceId, 2, collectives},
      {&Generator::TryInfeed, 1, options_.allow_host_feed},
      {&Generator::TryOutfeed, 1, options_.allow_host_feed},
  };
  int64_t total = 0;
  for (const Step& step : steps) total += step.enabled ? step.weight : 0;
  int64_t r = rng_.Uniform(total);
  for (const Step& step : steps) {
    if (!step.enabled) continue;
    if (r < step.weight) return (this->*step.run)(budget);
    r -= step.weight;
  }
  return false;
}

// The last op, or a tuple of it and one or two other values (unused ones
// first, so fewer values are dead).
XlaOp Generator::MakeRoot(bool tuple) {
  const int64_t last = static_cast<int64_t>(values_.size()) - 1;
  if (!tuple || last < 1) return values_.back().op;
  std::vector<XlaOp> elements = {values_[last].op};
  std::vector<int64_t> others;
  for (int64_t i = 0; i < last; ++i) {
    if (values_[i].uses == 0) others.push_back(i);
  }
  if (others.empty()) {
    for (int64_t i = 0; i < last; ++i) others.push_back(i);
  }
  const int64_t count = std::min<int64_t>(others.size(), rng_.UniformIn(1, 2));
  for (int64_t i = 0; i < count; ++i) {
    int64_t pick = rng_.Uniform(others.size());
    elements.push_back(values_[others[pick]].op);
    others.erase(others.begin() + pick);
  }
  return Tuple(&builder_, elements);
}

// "seed 7: (f32[2,3], s32[]) -> f32[3] via 5 ops: add,reduce,..."
std::string Generator::Describe(const XlaComputation& computation) const {
  const HloComputation* entry = computation.module().entry_computation();
  std::vector<std::string> parameters;
  std::vector<std::string> ops;
  for (const HloInstruction* instruction : entry->instructions()) {
    if (instruction->opcode() == HloOpcode::kParameter) {
      parameters.push_back(instruction->shape().ToString());
    } else {
      ops.push_back(std::string(HloOpcodeString(instruction->opcode())));
    }
  }
  std::string devices;
  if (options_.replicas * options_.partitions > 1) {
    devices = absl::StrCat(" on ", options_.replicas, "x", options_.partitions,
                           " devices");
  }
  return absl::StrCat("seed ", seed_, devices, ": (",
                      absl::StrJoin(parameters, ", "), ") -> ",
                      entry->root_instruction()->shape().ToString(), " via ",
                      ops.size(), " ops: ", absl::StrJoin(ops, ","));
}

int64_t Generator::Emitted() const {
  return builder_.computation()->instruction_count() - preamble_instructions_;
}

int64_t Generator::PickValue(absl::FunctionRef<bool(const Value&)> accept) {
  std::vector<int64_t> candidates;
  std::vector<int64_t> non_leaves;
  std::vector<int64_t> unused;
  for (int64_t i = 0; i < static_cast<int64_t>(values_.size()); ++i) {
    const Value& value = values_[i];
    if (!accept(value)) continue;
    candidates.push_back(i);
    if (value.leaf) continue;
    non_leaves.push_back(i);
    if (value.uses == 0) unused.push_back(i);
  }
  if (candidates.empty()) return -1;
  const int64_t r = rng_.Uniform(10);
  if (r < 6 && !unused.empty()) return rng_.Pick(unused);
  if (r < 9 && !non_leaves.empty()) return non_leaves.back();
  return rng_.Pick(candidates);
}

Source Generator::ValueSource(int64_t index, PrimitiveType type) {
  const Value& value = values_[index];
  Source source;
  source.index = index;
  source.shape = value.shape;
  source.range = value.range;
  const PrimitiveType from = value.shape.element_type();
  if (type != from) {
    source.convert_to = type;
    source.shape.set_element_type(type);
    source.range = ConvertRange(value.range, from, type);
  }
  return source;
}

Source Generator::ConstantSource(const Shape& shape, ValueStyle style) {
  Source source;
  source.kind = Source::Kind::kConstant;
  source.shape = shape;
  source.literal = RandomLiteral(rng_, shape, style);
  source.range = LiteralRange(source.literal);
  return source;
}

Source Generator::IotaSource(const Shape& shape) {
  Source source;
  source.kind = Source::Kind::kIota;
  source.shape = shape;
  source.iota_dimension = rng_.Uniform(shape.rank());
  int64_t size = shape.dimensions(source.iota_dimension);
  source.range =
      Range::Of(0, static_cast<double>(std::max<int64_t>(size - 1, 0)));
  return source;
}

bool Generator::SourceOfShape(const Shape& shape, int64_t budget,
                              ValueStyle style, bool allow_iota,
                              Source* source) {
  if (budget < 1 || rng_.OneIn(3)) {
    int64_t index = PickValue([&](const Value& v) { return v.shape == shape; });
    if (index >= 0) {
      *source = ValueSource(index, shape.element_type());
      return true;
    }
    if (budget < 1) return false;
  }
  const bool iota = allow_iota && shape.rank() > 0 &&
                    shape.element_type() != PRED && rng_.OneIn(4);
  *source = iota ? IotaSource(shape) : ConstantSource(shape, style);
  return true;
}

XlaOp Generator::Emit(const Source& source, bool is_result) {
  XlaOp op;
  switch (source.kind) {
    case Source::Kind::kValue:
      ++values_[source.index].uses;
      if (source.convert_to == PRIMITIVE_TYPE_INVALID) {
        return values_[source.index].op;
      }
      op = ConvertElementType(values_[source.index].op, source.convert_to);
      break;
    case Source::Kind::kConstant:
      op = source.shape.IsScalar() ? ConstantScalar(&builder_, source.literal)
                                   : ConstantLiteral(&builder_, source.literal);
      break;
    case Source::Kind::kIota:
      op = Iota(&builder_, source.shape, source.iota_dimension);
      break;
  }
  Record(op, source.range, /*consumed=*/!is_result,
         /*leaf=*/!is_result && source.kind != Source::Kind::kValue);
  return op;
}

void Generator::Record(XlaOp op, const Range& range, bool consumed, bool leaf) {
  absl::StatusOr<Shape> shape = builder_.GetShape(op);
  if (!shape.ok()) return;  // the builder keeps the error for Build()
  // Scalars made for reduce inits must not leak into the pool.
  if (shape->IsScalar() && !options_.allow_scalars) return;
  Value value{op, *shape, range, consumed ? 1 : 0, leaf};
  if (shape->element_type() == PRED) value.range = Range::Bool();
  values_.push_back(std::move(value));
}

bool Generator::Accept(const Range& range, PrimitiveType type) {
  if (IsTame(range, type)) return true;
  return primitive_util::IsFloatingPointType(type) && rng_.OneIn(8);
}

bool Generator::FitsLimits(absl::Span<const int64_t> dims) const {
  if (static_cast<int64_t>(dims.size()) > options_.max_rank) return false;
  if (dims.empty() && !options_.allow_scalars) return false;
  int64_t elements = 1;
  for (int64_t size : dims) {
    if (size == 0 && !options_.allow_zero_sizes) return false;
    elements *= size;
  }
  return elements <= max_elements_;
}

bool Generator::IsAllowedType(PrimitiveType type) const {
  return std::find(options_.element_types.begin(), options_.element_types.end(),
                   type) != options_.element_types.end();
}

bool Generator::Convertible(int64_t index, PrimitiveType type) const {
  const Value& value = values_[index];
  if (value.shape.element_type() == type) return true;
  if (!options_.allow_convert || !IsAllowedType(type)) return false;
  return !primitive_util::IsIntegralType(type) || IsTame(value.range, type);
}

}  // namespace random_graph_internal

std::unique_ptr<HostFeedQueue> RandomGraph::MakeFeed() const {
  auto feed = std::make_unique<HostFeedQueue>();
  for (const Literal& value : infeed) feed->PushInfeed(Literal(value));
  return feed;
}

absl::StatusOr<RandomGraph> GenerateRandomGraph(
    uint64_t seed, const RandomGraphOptions& options) {
  absl::Status valid = random_graph_internal::ValidateOptions(options);
  if (!valid.ok()) return valid;
  random_graph_internal::Generator generator(seed, options);
  return generator.Generate();
}

}  // namespace mxla
