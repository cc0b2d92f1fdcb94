#include "ir/hlo_opcode.h"

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/op_spec.h"

namespace mxla {

absl::string_view HloOpcodeString(HloOpcode opcode) {
  return GetOpSpec(opcode).text;
}

namespace {

// XLA ops mxla does not run, with what they need; any other unknown name
// is "unknown opcode".
absl::string_view UnsupportedReason(absl::string_view text) {
  static const auto* const kReasons = [] {
    constexpr absl::string_view kNotYet = "not in mxla yet";
    auto* map = new absl::flat_hash_map<std::string, absl::string_view>{
        {"create-token", "XLA's old name of after-all with no operands; "
                         "write after-all()"},
        {"rng-get-and-update-state",
         "mxla's rng keeps no generator state: its numbers are a function "
         "of the instruction"},
        {"fft", "complex types are not in mxla yet"},
        {"real", "complex types are not in mxla yet"},
        {"imag", "complex types are not in mxla yet"},
        {"complex", "complex types are not in mxla yet"},
        {"set-dimension-size",
         "dynamic shapes; mxla's shapes are static"},
        {"dynamic-reshape", "dynamic shapes; mxla's shapes are static"},
    };
    return map;
  }();
  auto it = kReasons->find(std::string(text));
  return it == kReasons->end() ? absl::string_view() : it->second;
}

}  // namespace

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
    const absl::string_view reason = UnsupportedReason(text);
    if (!reason.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unsupported XLA op '", text, "': ", reason));
    }
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
         opcode == HloOpcode::kSelectAndScatter ||
         opcode == HloOpcode::kInfeed || opcode == HloOpcode::kOutfeed ||
         IsDeviceStepOp(opcode);
}

bool DependsOnDevice(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kCallStart:
      return true;
    default:
      return IsDeviceStepOp(opcode);
  }
}

bool IsDeviceStepOp(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return true;
    default:
      return false;
  }
}

bool HasSideEffect(HloOpcode opcode) {
  return opcode == HloOpcode::kInfeed || opcode == HloOpcode::kOutfeed;
}

bool IsCodelessEntryOp(HloOpcode opcode) {
  return opcode == HloOpcode::kParameter || opcode == HloOpcode::kConstant ||
         opcode == HloOpcode::kTuple || opcode == HloOpcode::kGetTupleElement ||
         opcode == HloOpcode::kAfterAll;
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

absl::string_view RandomDistributionString(RandomDistribution distribution) {
  return distribution == RandomDistribution::kUniform ? "rng_uniform"
                                                      : "rng_normal";
}

absl::StatusOr<RandomDistribution> StringToRandomDistribution(
    absl::string_view text) {
  for (RandomDistribution d :
       {RandomDistribution::kUniform, RandomDistribution::kNormal}) {
    if (RandomDistributionString(d) == text) return d;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown distribution '", text, "' (expected rng_uniform or rng_normal)"));
}

absl::string_view RandomAlgorithmString(RandomAlgorithm algorithm) {
  switch (algorithm) {
    case RandomAlgorithm::kDefault:
      return "rng_default";
    case RandomAlgorithm::kThreeFry:
      return "rng_three_fry";
    case RandomAlgorithm::kPhilox:
      return "rng_philox";
  }
  return "rng_default";
}

absl::StatusOr<RandomAlgorithm> StringToRandomAlgorithm(absl::string_view text) {
  for (RandomAlgorithm a : {RandomAlgorithm::kDefault, RandomAlgorithm::kThreeFry,
                            RandomAlgorithm::kPhilox}) {
    if (RandomAlgorithmString(a) == text) return a;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown algorithm '", text,
                   "' (expected rng_default, rng_three_fry or rng_philox)"));
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
