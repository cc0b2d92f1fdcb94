#include "ir/hlo_opcode.h"

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/op_spec.h"

namespace mxla {

absl::string_view HloOpcodeString(HloOpcode opcode) {
  return GetOpSpec(opcode).text;
}

absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view text) {
  static const auto* const kByName = [] {
    auto* map = new absl::flat_hash_map<std::string, HloOpcode>();
    for (const OpSpec& spec : AllOpSpecs()) {
      map->emplace(spec.text, spec.opcode);
    }
    return map;
  }();
  auto it = kByName->find(std::string(text));
  if (it == kByName->end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown opcode '", text, "'"));
  }
  return it->second;
}

HloOpcodeCategory GetHloOpcodeCategory(HloOpcode opcode) {
  return GetOpSpec(opcode).category;
}

int64_t HloOpcodeArity(HloOpcode opcode) { return GetOpSpec(opcode).arity; }

bool IsBinaryElementwise(HloOpcode opcode) {
  HloOpcodeCategory category = GetHloOpcodeCategory(opcode);
  return category == HloOpcodeCategory::kBinary ||
         category == HloOpcodeCategory::kCompare;
}

bool IsElementwise(HloOpcode opcode) {
  HloOpcodeCategory category = GetHloOpcodeCategory(opcode);
  return category == HloOpcodeCategory::kUnary || IsBinaryElementwise(opcode) ||
         opcode == HloOpcode::kSelect || opcode == HloOpcode::kConvert ||
         opcode == HloOpcode::kIsFinite || opcode == HloOpcode::kClamp ||
         opcode == HloOpcode::kReducePrecision;
}

bool IsSubprogramOp(HloOpcode opcode) {
  return opcode == HloOpcode::kWhile || opcode == HloOpcode::kConditional ||
         opcode == HloOpcode::kSort || opcode == HloOpcode::kScatter ||
         opcode == HloOpcode::kSelectAndScatter;
}

bool IsExpensiveElementwise(HloOpcode opcode) {
  return GetOpSpec(opcode).cost == CostClass::kExpensive;
}

absl::string_view ComparisonDirectionString(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq: return "EQ";
    case ComparisonDirection::kNe: return "NE";
    case ComparisonDirection::kLt: return "LT";
    case ComparisonDirection::kLe: return "LE";
    case ComparisonDirection::kGt: return "GT";
    case ComparisonDirection::kGe: return "GE";
  }
  return "?";
}

absl::StatusOr<ComparisonDirection> StringToComparisonDirection(
    absl::string_view text) {
  for (ComparisonDirection d :
       {ComparisonDirection::kEq, ComparisonDirection::kNe,
        ComparisonDirection::kLt, ComparisonDirection::kLe,
        ComparisonDirection::kGt, ComparisonDirection::kGe}) {
    if (ComparisonDirectionString(d) == text) return d;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown comparison direction '", text, "' (expected EQ, NE, LT, LE, GT or GE)"));
}

absl::string_view FusionKindString(FusionKind kind) {
  switch (kind) {
    case FusionKind::kLoop: return "kLoop";
    case FusionKind::kInput: return "kInput";
    case FusionKind::kOutput: return "kOutput";
    case FusionKind::kCustom: return "kCustom";
  }
  return "?";
}

absl::StatusOr<FusionKind> StringToFusionKind(absl::string_view text) {
  for (FusionKind k : {FusionKind::kLoop, FusionKind::kInput,
                       FusionKind::kOutput, FusionKind::kCustom}) {
    if (FusionKindString(k) == text) return k;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown fusion kind '", text,
                   "' (expected kLoop, kInput, kOutput or kCustom)"));
}

}  // namespace mxla
