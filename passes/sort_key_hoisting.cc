#include "passes/sort_key_hoisting.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_module.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// Ops whose result is a function of their operands' bits alone and that
// make no NaN of their own: g computed by a fused kernel then has the very
// bits the comparator computes (a NaN's sign would matter to TOTALORDER).
bool IsExactKeyOp(const HloInstruction& node) {
  switch (node.opcode()) {
    case HloOpcode::kConstant:
    case HloOpcode::kCompare:
    case HloOpcode::kSelect:
    case HloOpcode::kConvert:
    case HloOpcode::kNegate:
    case HloOpcode::kAbs:
    case HloOpcode::kNot:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      break;
    case HloOpcode::kBitcastConvert:  // same width: no added dimension
      if (primitive_util::ByteWidth(node.shape().element_type()) !=
          primitive_util::ByteWidth(node.operand(0)->shape().element_type())) {
        return false;
      }
      break;
    default:
      return false;
  }
  return node.shape().IsArray() && node.shape().rank() == 0 &&
         !node.broadcast_dimensions().has_value();
}

// Whether `lhs`, reading only parameter `a`, and `rhs`, reading only `b`,
// are the same function node by node. `budget` bounds the walk over a
// shared DAG (comparators are a few ops).
bool Mirrored(const HloInstruction& lhs, const HloInstruction& rhs, int64_t a,
              int64_t b, int& budget) {
  if (--budget < 0) return false;
  if (lhs.opcode() == HloOpcode::kParameter) {
    return lhs.parameter_number() == a &&
           rhs.opcode() == HloOpcode::kParameter &&
           rhs.parameter_number() == b;
  }
  if (!IsExactKeyOp(lhs) || !lhs.IdenticalAttributes(rhs) ||
      lhs.operand_count() != rhs.operand_count()) {
    return false;
  }
  for (int64_t i = 0; i < lhs.operand_count(); ++i) {
    if (!Mirrored(*lhs.operand(i), *rhs.operand(i), a, b, budget)) {
      return false;
    }
  }
  return true;
}

// The first parameter `node` reads, or null.
const HloInstruction* FirstParameter(const HloInstruction& node) {
  if (node.opcode() == HloOpcode::kParameter) return &node;
  for (const HloInstruction* operand : node.operands()) {
    if (const HloInstruction* found = FirstParameter(*operand)) return found;
  }
  return nullptr;
}

// A hoistable comparator: its root compare and the operand g reads.
struct KeyFunction {
  const HloInstruction* compare;
  int64_t operand;
};

std::optional<KeyFunction> MatchKeyFunction(const HloComputation& comparator) {
  const HloInstruction* root = comparator.root_instruction();
  if (root->opcode() != HloOpcode::kCompare ||
      root->broadcast_dimensions().has_value()) {
    return std::nullopt;
  }
  const HloInstruction& lhs = *root->operand(0);
  const HloInstruction& rhs = *root->operand(1);
  if (lhs.opcode() == HloOpcode::kParameter) return std::nullopt;  // trivial
  const HloInstruction* parameter = FirstParameter(lhs);
  if (parameter == nullptr || parameter->parameter_number() % 2 != 0) {
    return std::nullopt;
  }
  const int64_t a = parameter->parameter_number();
  int budget = 256;
  if (!Mirrored(lhs, rhs, a, a + 1, budget)) return std::nullopt;
  return KeyFunction{root, a / 2};
}

// g applied to every element of `x`: each node cloned at x's dimensions,
// the parameter replaced by x and each constant broadcast.
HloInstruction* BuildKey(const HloInstruction& node, HloInstruction* x,
                         HloComputation& computation,
                         absl::flat_hash_map<const HloInstruction*,
                                             HloInstruction*>& built) {
  if (auto it = built.find(&node); it != built.end()) return it->second;
  const Shape shape =
      ShapeUtil::ChangeElementType(x->shape(), node.shape().element_type());
  HloInstruction* result = nullptr;
  if (node.opcode() == HloOpcode::kParameter) {
    result = x;
  } else if (node.opcode() == HloOpcode::kConstant) {
    HloInstruction* scalar = computation.AddInstruction(
        HloInstruction::CreateConstant(Literal(node.literal())));
    result = computation.AddInstruction(
        HloInstruction::CreateBroadcast(shape, scalar, {}));
  } else {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : node.operands()) {
      operands.push_back(BuildKey(*operand, x, computation, built));
    }
    result = computation.AddInstruction(
        node.CloneWithNewOperands(shape, operands));
  }
  built[&node] = result;
  return result;
}

// compare(p0, p1) on the key type, then two parameters per sort operand.
HloComputation* TrivialComparator(HloModule& module,
                                  const HloComputation& original,
                                  const HloInstruction& compare,
                                  const HloInstruction& sort) {
  HloComputation* comparator =
      module.AddComputation(absl::StrCat(original.name(), "_key"), false);
  const Shape key =
      ShapeUtil::MakeScalarShape(compare.operand(0)->shape().element_type());
  HloInstruction* lhs = comparator->AddInstruction(
      HloInstruction::CreateParameter(0, key, "key.lhs"));
  HloInstruction* rhs = comparator->AddInstruction(
      HloInstruction::CreateParameter(1, key, "key.rhs"));
  for (int64_t i = 0; i < sort.operand_count(); ++i) {
    const Shape element =
        ShapeUtil::MakeScalarShape(sort.operand(i)->shape().element_type());
    for (int64_t side = 0; side < 2; ++side) {
      comparator->AddInstruction(HloInstruction::CreateParameter(
          2 + 2 * i + side, element,
          original.parameter_instruction(2 * i + side)->name()));
    }
  }
  comparator->set_root_instruction(comparator->AddInstruction(
      compare.CloneWithNewOperands(compare.shape(), {lhs, rhs})));
  return comparator;
}

absl::Status Hoist(HloModule& module, HloComputation& computation,
                   HloInstruction* sort, const KeyFunction& key) {
  HloInstruction* x = sort->mutable_operand(key.operand);
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> built;
  HloInstruction* keys =
      BuildKey(*key.compare->operand(0), x, computation, built);
  std::vector<HloInstruction*> operands = {keys};
  std::vector<Shape> shapes = {keys->shape()};
  for (HloInstruction* operand : sort->operands()) {
    operands.push_back(operand);
    shapes.push_back(operand->shape());
  }
  HloInstruction* keyed = computation.AddInstruction(
      HloInstruction::CreateGeneric(
          HloOpcode::kSort, ShapeUtil::MakeTupleShape(shapes), operands));
  keyed->CopyAttributesFrom(*sort);
  keyed->set_called_computations({TrivialComparator(
      module, *sort->to_apply(), *key.compare, *sort)});
  std::vector<HloInstruction*> results;
  for (size_t i = 1; i < shapes.size(); ++i) {
    results.push_back(computation.AddInstruction(
        HloInstruction::CreateGetTupleElement(shapes[i], keyed, i)));
  }
  HloInstruction* result =
      sort->shape().IsTuple()
          ? computation.AddInstruction(HloInstruction::CreateTuple(results))
          : results[0];
  computation.ReplaceInstruction(sort, result);
  return computation.RemoveInstruction(sort);
}

}  // namespace

std::optional<TrivialSortComparator> MatchTrivialSortComparator(
    const HloComputation& comparator) {
  const HloInstruction* root = comparator.root_instruction();
  if (root->opcode() != HloOpcode::kCompare ||
      root->broadcast_dimensions().has_value()) {
    return std::nullopt;
  }
  const HloInstruction& lhs = *root->operand(0);
  const HloInstruction& rhs = *root->operand(1);
  if (lhs.opcode() != HloOpcode::kParameter ||
      rhs.opcode() != HloOpcode::kParameter ||
      lhs.parameter_number() % 2 != 0 ||
      rhs.parameter_number() != lhs.parameter_number() + 1) {
    return std::nullopt;
  }
  const ComparisonDirection direction = root->comparison_direction();
  if (direction != ComparisonDirection::kLt &&
      direction != ComparisonDirection::kGt) {
    return std::nullopt;
  }
  TrivialSortComparator trivial;
  trivial.operand = lhs.parameter_number() / 2;
  trivial.type = lhs.shape().element_type();
  trivial.descending = direction == ComparisonDirection::kGt;
  trivial.total_order = root->total_order_comparison();
  return trivial;
}

absl::StatusOr<bool> SortKeyHoistingPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kSort ||
          instruction->to_apply() == nullptr) {
        continue;
      }
      std::optional<KeyFunction> key =
          MatchKeyFunction(*instruction->to_apply());
      if (!key.has_value()) continue;
      RETURN_IF_ERROR(Hoist(module, *computation, instruction, *key));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
