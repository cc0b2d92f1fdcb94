#include "ir/hlo_instruction.h"

#include <algorithm>
#include <utility>

#include "absl/hash/hash.h"
#include "ir/hlo_printer.h"

namespace mxla {

HloInstruction::HloInstruction(HloOpcode opcode, const Shape& shape)
    : opcode_(opcode), shape_(shape) {}

HloInstruction::~HloInstruction() = default;

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

void HloInstruction::set_literal(Literal literal) {
  literal_ = std::make_unique<Literal>(std::move(literal));
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGeneric(
    HloOpcode opcode, const Shape& shape,
    absl::Span<HloInstruction* const> operands) {
  auto instruction =
      std::unique_ptr<HloInstruction>(new HloInstruction(opcode, shape));
  for (HloInstruction* operand : operands) instruction->AppendOperand(operand);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(
    int64_t parameter_number, const Shape& shape, std::string name) {
  auto instruction = CreateGeneric(HloOpcode::kParameter, shape, {});
  instruction->parameter_number_ = parameter_number;
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
  instruction->iota_dimension_ = iota_dimension;
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
  instruction->broadcast_dimensions_ = std::move(broadcast_dimensions);
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateCompare(
    const Shape& shape, HloInstruction* lhs, HloInstruction* rhs,
    ComparisonDirection direction,
    std::optional<std::vector<int64_t>> broadcast_dimensions) {
  auto instruction = CreateBinary(shape, HloOpcode::kCompare, lhs, rhs,
                                  std::move(broadcast_dimensions));
  instruction->direction_ = direction;
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
  instruction->dimensions_.assign(dimensions.begin(), dimensions.end());
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
  instruction->dimensions_.assign(dimensions.begin(), dimensions.end());
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateReduce(
    const Shape& shape, absl::Span<HloInstruction* const> operands,
    absl::Span<const int64_t> dimensions, HloComputation* to_apply) {
  auto instruction = CreateGeneric(HloOpcode::kReduce, shape, operands);
  instruction->dimensions_.assign(dimensions.begin(), dimensions.end());
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
  instruction->tuple_index_ = index;
  return instruction;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateFusion(
    const Shape& shape, FusionKind kind,
    absl::Span<HloInstruction* const> operands,
    HloComputation* fused_computation) {
  auto instruction = CreateGeneric(HloOpcode::kFusion, shape, operands);
  instruction->fusion_kind_ = kind;
  instruction->called_computations_ = {fused_computation};
  return instruction;
}

void HloInstruction::CopyAttributesFrom(const HloInstruction& other) {
  dimensions_ = other.dimensions_;
  broadcast_dimensions_ = other.broadcast_dimensions_;
  direction_ = other.direction_;
  if (other.literal_ != nullptr) set_literal(*other.literal_);
  parameter_number_ = other.parameter_number_;
  iota_dimension_ = other.iota_dimension_;
  tuple_index_ = other.tuple_index_;
  called_computations_ = other.called_computations_;
  fusion_kind_ = other.fusion_kind_;
  fusion_plan_ = other.fusion_plan_;
  metadata_ = other.metadata_;
}

bool HloInstruction::IdenticalIgnoringName(const HloInstruction& other) const {
  return operands_ == other.operands_ &&
         called_computations_ == other.called_computations_ &&
         IdenticalAttributes(other);
}

bool HloInstruction::IdenticalAttributes(const HloInstruction& other) const {
  if (opcode_ != other.opcode_ || shape_ != other.shape_ ||
      dimensions_ != other.dimensions_ ||
      broadcast_dimensions_ != other.broadcast_dimensions_) {
    return false;
  }
  switch (opcode_) {
    case HloOpcode::kParameter:
      return parameter_number_ == other.parameter_number_;
    case HloOpcode::kConstant:
      return *literal_ == *other.literal_;
    case HloOpcode::kIota:
      return iota_dimension_ == other.iota_dimension_;
    case HloOpcode::kCompare:
      return direction_ == other.direction_;
    case HloOpcode::kGetTupleElement:
      return tuple_index_ == other.tuple_index_;
    case HloOpcode::kFusion:
      return fusion_kind_ == other.fusion_kind_ &&
             fusion_plan_ == other.fusion_plan_;
    default:
      return true;
  }
}

size_t HloInstruction::AttributeHash() const {
  // (This Abseil cannot hash std::optional.)
  size_t hash = absl::HashOf(static_cast<int>(opcode_), shape_, dimensions_,
                             broadcast_dimensions_.has_value());
  if (broadcast_dimensions_.has_value()) {
    hash = absl::HashOf(hash, *broadcast_dimensions_);
  }
  switch (opcode_) {
    case HloOpcode::kParameter:
      return absl::HashOf(hash, parameter_number_);
    case HloOpcode::kConstant:
      return literal_ == nullptr ? hash : absl::HashOf(hash, *literal_);
    case HloOpcode::kIota:
      return absl::HashOf(hash, iota_dimension_);
    case HloOpcode::kCompare:
      return absl::HashOf(hash, static_cast<int>(direction_));
    case HloOpcode::kGetTupleElement:
      return absl::HashOf(hash, tuple_index_);
    case HloOpcode::kFusion:
      return absl::HashOf(hash, static_cast<int>(fusion_kind_),
                          fusion_plan_.has_value()
                              ? fusion_plan_->ToString()
                              : std::string());
    default:
      return hash;
  }
}

std::string HloInstruction::ToString() const {
  return HloPrinter::InstructionToString(*this);
}

}  // namespace mxla
