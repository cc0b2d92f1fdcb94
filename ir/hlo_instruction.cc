#include "ir/hlo_instruction.h"

#include <algorithm>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/hlo_printer.h"
#include "ir/status_macros.h"

namespace mxla {

HloInstruction::HloInstruction(HloOpcode opcode, const Shape& shape)
    : opcode_(opcode), shape_(shape) {}

HloInstruction::~HloInstruction() { DetachFromOperands(); }

void HloInstruction::ForgetEdges() {
  operands_.clear();
  users_.clear();
  user_positions_.clear();
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

void HloInstruction::AddUser(HloInstruction* user) {
  if (user_positions_.try_emplace(user, users_.size()).second) {
    users_.push_back(user);
  }
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  auto it = user_positions_.find(user);
  if (it == user_positions_.end()) return;
  const int64_t position = it->second;
  user_positions_.erase(it);
  if (position != static_cast<int64_t>(users_.size()) - 1) {
    users_[position] = users_.back();
    user_positions_[users_[position]] = position;
  }
  users_.pop_back();
}

void HloInstruction::ReplaceOperandWith(int64_t i,
                                        HloInstruction* new_operand) {
  HloInstruction* old_operand = operands_[i];
  if (old_operand == new_operand) return;
  operands_[i] = new_operand;
  new_operand->AddUser(this);
  // The old operand keeps this user only if another operand slot uses it.
  if (std::find(operands_.begin(), operands_.end(), old_operand) ==
      operands_.end()) {
    old_operand->RemoveUser(this);
  }
}

void HloInstruction::ReplaceAllUsesWith(HloInstruction* replacement) {
  if (replacement == this) return;
  std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operands_[i] == this) user->ReplaceOperandWith(i, replacement);
    }
  }
}

void HloInstruction::DetachFromOperands() {
  for (HloInstruction* operand : operands_) operand->RemoveUser(this);
  operands_.clear();
}

namespace {

const std::vector<int64_t>& EmptyDims() {
  static const auto* const kEmpty = new std::vector<int64_t>();
  return *kEmpty;
}

}  // namespace

const std::vector<int64_t>& HloInstruction::dimensions() const {
  const auto* dims = attributes_.Get<std::vector<int64_t>>(AttrId::kDimensions);
  return dims == nullptr ? EmptyDims() : *dims;
}

PaddingConfig HloInstruction::padding_config() const {
  const auto* triples = attributes_.Get<std::vector<int64_t>>(AttrId::kPadding);
  PaddingConfig config;
  if (triples == nullptr) return config;
  for (size_t i = 0; i + 2 < triples->size(); i += 3) {
    config.push_back({(*triples)[i], (*triples)[i + 1], (*triples)[i + 2]});
  }
  return config;
}

void HloInstruction::set_padding_config(const PaddingConfig& config) {
  std::vector<int64_t> triples;
  for (const PaddingDimension& d : config) {
    triples.insert(triples.end(), {d.low, d.high, d.interior});
  }
  attributes_.Set(AttrId::kPadding, std::move(triples));
}

const std::string& HloInstruction::custom_call_target() const {
  static const std::string* const kNone = new std::string();
  const auto* target = attributes_.Get<std::string>(AttrId::kCustomCallTarget);
  return target == nullptr ? *kNone : *target;
}

void HloInstruction::set_custom_call_target(std::string target) {
  attributes_.Set(AttrId::kCustomCallTarget, std::move(target));
}

const std::vector<int64_t>& HloInstruction::dynamic_slice_sizes() const {
  const auto* sizes =
      attributes_.Get<std::vector<int64_t>>(AttrId::kDynamicSliceSizes);
  return sizes == nullptr ? EmptyDims() : *sizes;
}

void HloInstruction::set_dynamic_slice_sizes(std::vector<int64_t> sizes) {
  attributes_.Set(AttrId::kDynamicSliceSizes, std::move(sizes));
}

void HloInstruction::set_dimensions(std::vector<int64_t> dims) {
  attributes_.Set(AttrId::kDimensions, std::move(dims));
}

std::optional<std::vector<int64_t>> HloInstruction::broadcast_dimensions()
    const {
  const auto* dims =
      attributes_.Get<std::vector<int64_t>>(AttrId::kBroadcastDimensions);
  if (dims == nullptr) return std::nullopt;
  return *dims;
}

void HloInstruction::set_broadcast_dimensions(
    std::optional<std::vector<int64_t>> dims) {
  if (dims.has_value()) {
    attributes_.Set(AttrId::kBroadcastDimensions, *std::move(dims));
  } else {
    attributes_.Erase(AttrId::kBroadcastDimensions);
  }
}

ComparisonDirection HloInstruction::comparison_direction() const {
  const auto* direction =
      attributes_.Get<ComparisonDirection>(AttrId::kDirection);
  return direction == nullptr ? ComparisonDirection::kEq : *direction;
}

void HloInstruction::set_comparison_direction(ComparisonDirection d) {
  attributes_.Set(AttrId::kDirection, d);
}

const Literal& HloInstruction::literal() const {
  return **attributes_.Get<std::shared_ptr<const Literal>>(AttrId::kLiteral);
}

bool HloInstruction::has_literal() const {
  const auto* literal =
      attributes_.Get<std::shared_ptr<const Literal>>(AttrId::kLiteral);
  return literal != nullptr && *literal != nullptr;
}

void HloInstruction::set_literal(Literal literal) {
  attributes_.Set(AttrId::kLiteral,
                  std::make_shared<const Literal>(std::move(literal)));
}

namespace {

int64_t IntOr(const HloAttributes& attributes, AttrId id, int64_t fallback) {
  const int64_t* value = attributes.Get<int64_t>(id);
  return value == nullptr ? fallback : *value;
}

}  // namespace

int64_t HloInstruction::parameter_number() const {
  return IntOr(attributes_, AttrId::kParameterNumber, -1);
}

void HloInstruction::set_parameter_number(int64_t n) {
  attributes_.Set(AttrId::kParameterNumber, n);
}

int64_t HloInstruction::iota_dimension() const {
  return IntOr(attributes_, AttrId::kIotaDimension, 0);
}

void HloInstruction::set_iota_dimension(int64_t d) {
  attributes_.Set(AttrId::kIotaDimension, d);
}

bool HloInstruction::total_order_comparison() const {
  const auto* type = attributes_.Get<std::string>(AttrId::kComparisonType);
  return type != nullptr && *type == "TOTALORDER";
}

void HloInstruction::set_total_order_comparison(bool total_order) {
  if (total_order) {
    attributes_.Set(AttrId::kComparisonType, std::string("TOTALORDER"));
  } else {
    attributes_.Erase(AttrId::kComparisonType);
  }
}

GatherDimensionNumbers HloInstruction::gather_dimension_numbers() const {
  auto list = [&](AttrId id) {
    const auto* dims = attributes_.Get<std::vector<int64_t>>(id);
    return dims == nullptr ? std::vector<int64_t>{} : *dims;
  };
  GatherDimensionNumbers dnums;
  dnums.offset_dims = list(AttrId::kOffsetDims);
  dnums.collapsed_slice_dims = list(AttrId::kCollapsedSliceDims);
  dnums.start_index_map = list(AttrId::kStartIndexMap);
  dnums.operand_batching_dims = list(AttrId::kOperandBatchingDims);
  dnums.start_indices_batching_dims = list(AttrId::kStartIndicesBatchingDims);
  dnums.index_vector_dim = IntOr(attributes_, AttrId::kIndexVectorDim, 0);
  return dnums;
}

void HloInstruction::set_gather_dimension_numbers(
    const GatherDimensionNumbers& dnums) {
  attributes_.Set(AttrId::kOffsetDims, dnums.offset_dims);
  attributes_.Set(AttrId::kCollapsedSliceDims, dnums.collapsed_slice_dims);
  attributes_.Set(AttrId::kStartIndexMap, dnums.start_index_map);
  if (!dnums.operand_batching_dims.empty()) {
    attributes_.Set(AttrId::kOperandBatchingDims, dnums.operand_batching_dims);
    attributes_.Set(AttrId::kStartIndicesBatchingDims,
                    dnums.start_indices_batching_dims);
  }
  attributes_.Set(AttrId::kIndexVectorDim, dnums.index_vector_dim);
}

std::vector<int64_t> HloInstruction::gather_slice_sizes() const {
  const auto* sizes = attributes_.Get<std::vector<int64_t>>(AttrId::kSliceSizes);
  return sizes == nullptr ? std::vector<int64_t>{} : *sizes;
}

ScatterDimensionNumbers HloInstruction::scatter_dimension_numbers() const {
  auto list = [&](AttrId id) {
    const auto* dims = attributes_.Get<std::vector<int64_t>>(id);
    return dims == nullptr ? std::vector<int64_t>{} : *dims;
  };
  ScatterDimensionNumbers dnums;
  dnums.update_window_dims = list(AttrId::kUpdateWindowDims);
  dnums.inserted_window_dims = list(AttrId::kInsertedWindowDims);
  dnums.scatter_dims_to_operand_dims = list(AttrId::kScatterDimsToOperandDims);
  dnums.input_batching_dims = list(AttrId::kInputBatchingDims);
  dnums.scatter_indices_batching_dims =
      list(AttrId::kScatterIndicesBatchingDims);
  dnums.index_vector_dim = IntOr(attributes_, AttrId::kIndexVectorDim, 0);
  return dnums;
}

void HloInstruction::set_scatter_dimension_numbers(
    const ScatterDimensionNumbers& dnums) {
  attributes_.Set(AttrId::kUpdateWindowDims, dnums.update_window_dims);
  attributes_.Set(AttrId::kInsertedWindowDims, dnums.inserted_window_dims);
  attributes_.Set(AttrId::kScatterDimsToOperandDims,
                  dnums.scatter_dims_to_operand_dims);
  if (!dnums.input_batching_dims.empty()) {
    attributes_.Set(AttrId::kInputBatchingDims, dnums.input_batching_dims);
    attributes_.Set(AttrId::kScatterIndicesBatchingDims,
                    dnums.scatter_indices_batching_dims);
  }
  attributes_.Set(AttrId::kIndexVectorDim, dnums.index_vector_dim);
}

Window HloInstruction::window() const {
  const auto* flat = attributes_.Get<std::vector<int64_t>>(AttrId::kWindow);
  return flat == nullptr ? Window{} : DecodeWindow(*flat);
}

void HloInstruction::set_window(const Window& window) {
  attributes_.Set(AttrId::kWindow, EncodeWindow(window));
}

absl::StatusOr<ConvolutionDimensionNumbers>
HloInstruction::convolution_dimension_numbers() const {
  const auto* labels = attributes_.Get<std::string>(AttrId::kDimLabels);
  if (labels == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": convolution needs dim_labels"));
  }
  return ParseConvolutionDimLabels(*labels);
}

void HloInstruction::set_convolution_dimension_numbers(
    const ConvolutionDimensionNumbers& dnums) {
  attributes_.Set(AttrId::kDimLabels, ConvolutionDimLabelsToString(dnums));
}

int64_t HloInstruction::num_carries() const {
  return IntOr(attributes_, AttrId::kNumCarries, -1);
}

int64_t HloInstruction::topk_k() const {
  return IntOr(attributes_, AttrId::kK, -1);
}

bool HloInstruction::topk_largest() const {
  const auto* largest = attributes_.Get<std::string>(AttrId::kLargest);
  return largest == nullptr || *largest != "false";
}

double HloInstruction::epsilon() const {
  const auto* text = attributes_.Get<std::string>(AttrId::kEpsilon);
  double value = 0;
  if (text == nullptr || !absl::SimpleAtod(*text, &value)) return 0;
  return value;
}

int64_t HloInstruction::feature_index() const {
  return IntOr(attributes_, AttrId::kFeatureIndex, -1);
}

void HloInstruction::set_batch_norm_attributes(float epsilon,
                                               int64_t feature_index) {
  // Nine significant digits give the float back exactly.
  attributes_.Set(AttrId::kEpsilon, absl::StrFormat("%.9g", epsilon));
  attributes_.Set(AttrId::kFeatureIndex, feature_index);
}

namespace {

// A flag attribute: `fallback` when absent, an error unless true or false.
absl::StatusOr<bool> FlagOr(const HloInstruction& instruction, AttrId id,
                            bool fallback) {
  const auto* text = instruction.attributes().Get<std::string>(id);
  if (text == nullptr) return fallback;
  if (*text != "true" && *text != "false") {
    return absl::InvalidArgumentError(
        absl::StrCat(HloOpcodeString(instruction.opcode()), ": ",
                     GetAttrInfo(id).name, " must be true or false; got ",
                     *text));
  }
  return *text == "true";
}

// The enum a name attribute spells (`parse` reads it); errors name the op,
// and a missing attribute's lists the spellings in `choices`.
template <typename Enum>
absl::StatusOr<Enum> NamedEnum(
    const HloInstruction& instruction, AttrId id,
    absl::StatusOr<Enum> (*parse)(absl::string_view),
    absl::string_view choices = "") {
  const absl::string_view op = HloOpcodeString(instruction.opcode());
  const auto* text = instruction.attributes().Get<std::string>(id);
  if (text == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": missing attribute ", GetAttrInfo(id).name,
                     choices.empty() ? "" : " (", choices,
                     choices.empty() ? "" : ")"));
  }
  absl::StatusOr<Enum> value = parse(*text);
  if (!value.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": ", value.status().message()));
  }
  return value;
}

}  // namespace

absl::StatusOr<bool> HloInstruction::cholesky_lower() const {
  return FlagOr(*this, AttrId::kLower, false);
}

// XLA prints a flag only when it is true.
void HloInstruction::set_cholesky_lower(bool lower) {
  if (lower) attributes_.Set(AttrId::kLower, std::string("true"));
}

absl::StatusOr<TriangularSolveOptions>
HloInstruction::triangular_solve_options() const {
  TriangularSolveOptions options;
  ASSIGN_OR_RETURN(options.left_side, FlagOr(*this, AttrId::kLeftSide, false));
  ASSIGN_OR_RETURN(options.lower, FlagOr(*this, AttrId::kLower, false));
  ASSIGN_OR_RETURN(options.unit_diagonal,
                   FlagOr(*this, AttrId::kUnitDiagonal, false));
  ASSIGN_OR_RETURN(options.transpose_a,
                   NamedEnum(*this, AttrId::kTransposeA,
                             &StringToTriangularSolveTranspose,
                             "NO_TRANSPOSE, TRANSPOSE or ADJOINT"));
  return options;
}

void HloInstruction::set_triangular_solve_options(
    const TriangularSolveOptions& options) {
  const std::pair<AttrId, bool> flags[] = {
      {AttrId::kLeftSide, options.left_side},
      {AttrId::kLower, options.lower},
      {AttrId::kUnitDiagonal, options.unit_diagonal}};
  for (const auto& [id, value] : flags) {
    if (value) attributes_.Set(id, std::string("true"));
  }
  attributes_.Set(AttrId::kTransposeA,
                  std::string(TriangularSolveTransposeString(options.transpose_a)));
}

absl::StatusOr<RandomDistribution> HloInstruction::rng_distribution() const {
  return NamedEnum(*this, AttrId::kDistribution, &StringToRandomDistribution);
}

void HloInstruction::set_rng_distribution(RandomDistribution distribution) {
  attributes_.Set(AttrId::kDistribution,
                  std::string(RandomDistributionString(distribution)));
}

absl::StatusOr<RandomAlgorithm> HloInstruction::rng_algorithm() const {
  return NamedEnum(*this, AttrId::kAlgorithm, &StringToRandomAlgorithm);
}

void HloInstruction::set_rng_algorithm(RandomAlgorithm algorithm) {
  attributes_.Set(AttrId::kAlgorithm,
                  std::string(RandomAlgorithmString(algorithm)));
}

bool HloInstruction::is_reverse() const {
  const auto* reverse = attributes_.Get<std::string>(AttrId::kIsReverse);
  return reverse != nullptr && *reverse == "true";
}

int64_t HloInstruction::feature_group_count() const {
  return IntOr(attributes_, AttrId::kFeatureGroupCount, 1);
}

int64_t HloInstruction::batch_group_count() const {
  return IntOr(attributes_, AttrId::kBatchGroupCount, 1);
}

int64_t HloInstruction::exponent_bits() const {
  return IntOr(attributes_, AttrId::kExponentBits, 0);
}

int64_t HloInstruction::mantissa_bits() const {
  return IntOr(attributes_, AttrId::kMantissaBits, 0);
}

void HloInstruction::set_reduce_precision_bits(int64_t exponent_bits,
                                               int64_t mantissa_bits) {
  attributes_.Set(AttrId::kExponentBits, exponent_bits);
  attributes_.Set(AttrId::kMantissaBits, mantissa_bits);
}

DotDimensionNumbers HloInstruction::dot_dimension_numbers() const {
  auto list = [&](AttrId id) {
    const auto* dims = attributes_.Get<std::vector<int64_t>>(id);
    return dims == nullptr ? std::vector<int64_t>() : *dims;
  };
  return {list(AttrId::kLhsBatchDims), list(AttrId::kLhsContractingDims),
          list(AttrId::kRhsBatchDims), list(AttrId::kRhsContractingDims)};
}

RaggedDotDimensionNumbers HloInstruction::ragged_dot_dimension_numbers()
    const {
  const auto* ragged =
      attributes_.Get<std::vector<int64_t>>(AttrId::kLhsRaggedDims);
  const auto* group =
      attributes_.Get<std::vector<int64_t>>(AttrId::kRhsGroupDims);
  return {dot_dimension_numbers(),
          ragged == nullptr ? std::vector<int64_t>() : *ragged,
          group == nullptr ? std::vector<int64_t>() : *group};
}

void HloInstruction::set_dot_dimension_numbers(
    const DotDimensionNumbers& dnums) {
  auto set = [&](AttrId id, const std::vector<int64_t>& dims) {
    if (dims.empty()) {
      attributes_.Erase(id);
    } else {
      attributes_.Set(id, dims);
    }
  };
  set(AttrId::kLhsBatchDims, dnums.lhs_batch);
  set(AttrId::kLhsContractingDims, dnums.lhs_contracting);
  set(AttrId::kRhsBatchDims, dnums.rhs_batch);
  set(AttrId::kRhsContractingDims, dnums.rhs_contracting);
}

std::vector<int64_t> HloInstruction::SliceColumn(int64_t column) const {
  const auto* triples = attributes_.Get<std::vector<int64_t>>(AttrId::kSlice);
  std::vector<int64_t> values;
  if (triples == nullptr) return values;
  for (size_t i = column; i < triples->size(); i += 3) {
    values.push_back((*triples)[i]);
  }
  return values;
}

void HloInstruction::set_slice(absl::Span<const int64_t> starts,
                               absl::Span<const int64_t> limits,
                               absl::Span<const int64_t> strides) {
  std::vector<int64_t> triples;
  for (size_t i = 0; i < starts.size(); ++i) {
    triples.push_back(starts[i]);
    triples.push_back(i < limits.size() ? limits[i] : 0);
    triples.push_back(i < strides.size() ? strides[i] : 1);
  }
  attributes_.Set(AttrId::kSlice, std::move(triples));
}

int64_t HloInstruction::tuple_index() const {
  return IntOr(attributes_, AttrId::kTupleIndex, 0);
}

void HloInstruction::set_tuple_index(int64_t i) {
  attributes_.Set(AttrId::kTupleIndex, i);
}

FusionKind HloInstruction::fusion_kind() const {
  const auto* kind = attributes_.Get<FusionKind>(AttrId::kFusionKind);
  return kind == nullptr ? FusionKind::kLoop : *kind;
}

void HloInstruction::set_fusion_kind(FusionKind kind) {
  attributes_.Set(AttrId::kFusionKind, kind);
}

const FusionPlan* HloInstruction::fusion_plan() const {
  const auto* plan =
      attributes_.Get<std::shared_ptr<const FusionPlan>>(AttrId::kPlan);
  return plan == nullptr ? nullptr : plan->get();
}

void HloInstruction::set_fusion_plan(std::optional<FusionPlan> plan) {
  if (plan.has_value()) {
    attributes_.Set(AttrId::kPlan,
                    std::make_shared<const FusionPlan>(*std::move(plan)));
  } else {
    attributes_.Erase(AttrId::kPlan);
  }
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGeneric(
    HloOpcode opcode, const Shape& shape,
    absl::Span<HloInstruction* const> operands) {
  auto instruction =
      std::unique_ptr<HloInstruction>(new HloInstruction(opcode, shape));
  for (HloInstruction* operand : operands) instruction->AppendOperand(operand);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, absl::Span<HloInstruction* const> new_operands) const {
  auto clone = CreateGeneric(opcode_, shape, new_operands);
  clone->CopyAttributesFrom(*this);
  clone->name_ = name_;
  return clone;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(
    int64_t parameter_number, const Shape& shape, std::string name) {
  auto instruction = CreateGeneric(HloOpcode::kParameter, shape, {});
  instruction->set_parameter_number(parameter_number);
  instruction->name_ = std::move(name);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConstant(
    Literal literal) {
  auto instruction =
      CreateGeneric(HloOpcode::kConstant, literal.shape(), {});
  instruction->set_literal(std::move(literal));
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateIota(
    const Shape& shape, int64_t iota_dimension) {
  auto instruction = CreateGeneric(HloOpcode::kIota, shape, {});
  instruction->set_iota_dimension(iota_dimension);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateUnary(
    const Shape& shape, HloOpcode opcode, HloInstruction* operand) {
  return CreateGeneric(opcode, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBinary(
    const Shape& shape, HloOpcode opcode, HloInstruction* lhs,
    HloInstruction* rhs,
    std::optional<std::vector<int64_t>> broadcast_dimensions) {
  auto instruction = CreateGeneric(opcode, shape, {lhs, rhs});
  instruction->set_broadcast_dimensions(std::move(broadcast_dimensions));
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateCompare(
    const Shape& shape, HloInstruction* lhs, HloInstruction* rhs,
    ComparisonDirection direction,
    std::optional<std::vector<int64_t>> broadcast_dimensions) {
  auto instruction = CreateBinary(shape, HloOpcode::kCompare, lhs, rhs,
                                  std::move(broadcast_dimensions));
  instruction->set_comparison_direction(direction);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateSelect(
    const Shape& shape, HloInstruction* pred, HloInstruction* on_true,
    HloInstruction* on_false) {
  return CreateGeneric(HloOpcode::kSelect, shape, {pred, on_true, on_false});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConvert(
    const Shape& shape, HloInstruction* operand) {
  return CreateGeneric(HloOpcode::kConvert, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBroadcast(
    const Shape& shape, HloInstruction* operand,
    absl::Span<const int64_t> dimensions) {
  auto instruction = CreateGeneric(HloOpcode::kBroadcast, shape, {operand});
  instruction->set_dimensions({dimensions.begin(), dimensions.end()});
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateReshape(
    const Shape& shape, HloInstruction* operand) {
  return CreateGeneric(HloOpcode::kReshape, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTranspose(
    const Shape& shape, HloInstruction* operand,
    absl::Span<const int64_t> dimensions) {
  auto instruction = CreateGeneric(HloOpcode::kTranspose, shape, {operand});
  instruction->set_dimensions({dimensions.begin(), dimensions.end()});
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateReduce(
    const Shape& shape, absl::Span<HloInstruction* const> operands,
    absl::Span<const int64_t> dimensions, HloComputation* to_apply) {
  auto instruction = CreateGeneric(HloOpcode::kReduce, shape, operands);
  instruction->set_dimensions({dimensions.begin(), dimensions.end()});
  instruction->called_computations_ = {to_apply};
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTuple(
    absl::Span<HloInstruction* const> elements) {
  std::vector<Shape> shapes;
  for (const HloInstruction* element : elements) {
    shapes.push_back(element->shape());
  }
  return CreateGeneric(HloOpcode::kTuple, Shape(std::move(shapes)), elements);
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGetTupleElement(
    const Shape& shape, HloInstruction* operand, int64_t index) {
  auto instruction =
      CreateGeneric(HloOpcode::kGetTupleElement, shape, {operand});
  instruction->set_tuple_index(index);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateFusion(
    const Shape& shape, FusionKind kind,
    absl::Span<HloInstruction* const> operands,
    HloComputation* fused_computation) {
  auto instruction = CreateGeneric(HloOpcode::kFusion, shape, operands);
  instruction->set_fusion_kind(kind);
  instruction->called_computations_ = {fused_computation};
  return instruction;
}

void HloInstruction::CopyAttributesFrom(const HloInstruction& other) {
  attributes_ = other.attributes_;
  called_computations_ = other.called_computations_;
  metadata_ = other.metadata_;
}

bool HloInstruction::IdenticalIgnoringName(const HloInstruction& other) const {
  return operands_ == other.operands_ &&
         called_computations_ == other.called_computations_ &&
         IdenticalAttributes(other);
}

bool HloInstruction::IdenticalAttributes(const HloInstruction& other) const {
  return opcode_ == other.opcode_ && shape_ == other.shape_ &&
         attributes_ == other.attributes_;
}

size_t HloInstruction::AttributeHash() const {
  return absl::HashOf(static_cast<int>(opcode_), shape_, attributes_.Hash());
}

std::string HloInstruction::ToString() const {
  return HloPrinter::InstructionToString(*this);
}

}  // namespace mxla
