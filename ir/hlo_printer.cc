#include "ir/hlo_printer.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_module.h"
#include "ir/literal_text.h"
#include "ir/op_spec.h"
#include "ir/replica_groups.h"
#include "ir/window.h"

namespace mxla {
namespace {

std::string DimsToString(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

// How names print. As they are, or with HloPrintOptions::canonical: an
// instruction as its position in its computation's post order (`%3`), an
// instruction outside the numbered computation (a printed fusion's operand)
// as its shape, and a called computation as its own canonical text.
class Naming {
 public:
  explicit Naming(const HloPrintOptions& options) : options_(options) {}

  void Number(const std::vector<HloInstruction*>& order) {
    for (size_t i = 0; i < order.size(); ++i) positions_[order[i]] = i;
  }
  std::string Of(const HloInstruction& instruction) const {
    if (!options_.canonical) return instruction.name();
    auto it = positions_.find(&instruction);
    return it != positions_.end() ? absl::StrCat("%", it->second)
                                  : instruction.shape().ToStringWithLayout();
  }
  std::string Of(const HloComputation* callee) const {
    if (callee == nullptr) return "<none>";
    if (!options_.canonical) return callee->name();
    return absl::StrCat(
        "{", HloPrinter::ComputationToString(*callee, options_), "}");
  }
  const HloPrintOptions& options() const { return options_; }

 private:
  const HloPrintOptions& options_;
  absl::flat_hash_map<const HloInstruction*, int64_t> positions_;
};

// The value of a kept attribute as HLO text.
std::string AttrValueToString(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          return absl::StrCat(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return DimsToString(v);
        } else if constexpr (std::is_same_v<T, ComparisonDirection>) {
          return std::string(ComparisonDirectionString(v));
        } else if constexpr (std::is_same_v<T, FusionKind>) {
          return std::string(FusionKindString(v));
        } else if constexpr (std::is_same_v<T,
                                            std::shared_ptr<const FusionPlan>>) {
          return v == nullptr ? "<none>" : v->ToString();
        } else if constexpr (std::is_same_v<T, std::string>) {
          return absl::StrCat("\"", absl::CEscape(v), "\"");
        } else {
          return v == nullptr ? "<none>" : LiteralValuesToString(*v);
        }
      },
      value);
}

// `{[0:2], [1:7:3]}`, as XLA prints slice bounds (a stride of 1 is left
// out).
std::string SliceRangesToString(const HloInstruction& instruction) {
  const std::vector<int64_t> starts = instruction.slice_starts();
  const std::vector<int64_t> limits = instruction.slice_limits();
  const std::vector<int64_t> strides = instruction.slice_strides();
  std::vector<std::string> ranges;
  for (size_t i = 0; i < starts.size(); ++i) {
    ranges.push_back(absl::StrCat(
        "[", starts[i], ":", limits[i],
        strides[i] == 1 ? "" : absl::StrCat(":", strides[i]), "]"));
  }
  return absl::StrCat("{", absl::StrJoin(ranges, ", "), "}");
}

// The text inside the parentheses after the opcode: the positional
// attribute (a parameter's number, a constant's value) or the operands.
std::string OperandsToString(const HloInstruction& instruction,
                             const OpSpec& spec, const Naming& naming) {
  for (const AttrSlot& slot : spec.attributes) {
    if (slot.use != AttrUse::kPositional) continue;
    const AttrValue* value = instruction.attributes().Find(slot.id);
    return value == nullptr ? "" : AttrValueToString(*value);
  }
  std::vector<std::string> names;
  for (const HloInstruction* operand : instruction.operands()) {
    names.push_back(naming.Of(*operand));
  }
  return absl::StrJoin(names, ", ");
}

std::string Quoted(const std::string& text) {
  return absl::StrCat(
      "\"", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""},
                                       {"\n", "\\n"}, {"\t", "\\t"}}),
      "\"");
}

std::string MetadataToString(const OpMetadata& metadata) {
  std::vector<std::string> entries;
  if (!metadata.op_name.empty()) {
    entries.push_back(absl::StrCat("op_name=", Quoted(metadata.op_name)));
  }
  if (!metadata.source_file.empty()) {
    entries.push_back(
        absl::StrCat("source_file=", Quoted(metadata.source_file)));
    entries.push_back(absl::StrCat("source_line=", metadata.source_line));
  }
  return absl::StrCat("metadata={", absl::StrJoin(entries, " "), "}");
}

// A conditional's branches as XLA prints them: true_computation and
// false_computation for a pred selector, else branch_computations={...}.
std::string CalleeListToString(const HloInstruction& instruction,
                               const Naming& naming) {
  const auto& callees = instruction.called_computations();
  auto name = [&](const HloComputation* callee) { return naming.Of(callee); };
  if (instruction.operand_count() > 0 &&
      instruction.operand(0)->shape().IsArray() &&
      instruction.operand(0)->shape().element_type() == PRED &&
      callees.size() == 2) {
    return absl::StrCat(", true_computation=", name(callees[0]),
                        ", false_computation=", name(callees[1]));
  }
  std::vector<std::string> names;
  for (const HloComputation* callee : callees) names.push_back(name(callee));
  return absl::StrCat(", branch_computations={", absl::StrJoin(names, ", "),
                      "}");
}

// The text after `name=` of a value attribute the instruction has.
std::string AttributeValueText(const HloInstruction& instruction, AttrId id,
                               AttrType type, const AttrValue& value) {
  switch (type) {
    case AttrType::kPaddingConfig: {
      std::vector<std::string> dims;
      for (const PaddingDimension& d : instruction.padding_config()) {
        dims.push_back(d.interior == 0
                           ? absl::StrCat(d.low, "_", d.high)
                           : absl::StrCat(d.low, "_", d.high, "_", d.interior));
      }
      return absl::StrJoin(dims, "x");
    }
    case AttrType::kWindow:
      return absl::StrCat(
          "{",
          WindowToString(DecodeWindow(
              *instruction.attributes().Get<std::vector<int64_t>>(id))),
          "}");
    case AttrType::kName:
    case AttrType::kFloat:
    case AttrType::kConvDimLabels:  // bare: type=TOTALORDER
      return *instruction.attributes().Get<std::string>(id);
    case AttrType::kIdGroups:
      return IdGroupsToString(DecodeIdGroups(
          *instruction.attributes().Get<std::vector<int64_t>>(id)));
    case AttrType::kSliceRanges:
      return SliceRangesToString(instruction);
    default:
      return AttrValueToString(value);
  }
}

// The `, attr=value` list after the operands, in the op table's order.
std::string AttributesToString(const HloInstruction& instruction,
                               const OpSpec& spec, const Naming& naming) {
  const HloPrintOptions& options = naming.options();
  std::string text;
  int64_t callee_index = 0;
  const bool has_list = spec.called_computation_count() < 0;
  for (const AttrSlot& slot : spec.attributes) {
    const AttrInfo& info = GetAttrInfo(slot.id);
    if (slot.use == AttrUse::kIgnored) continue;
    if (info.type == AttrType::kComputationList) {
      absl::StrAppend(&text, CalleeListToString(instruction, naming));
      continue;
    }
    if (info.type == AttrType::kComputation && has_list) continue;
    if (info.type == AttrType::kComputation) {
      // A malformed instruction (no called computation) still prints, for
      // the verifier's message about it.
      const auto& callees = instruction.called_computations();
      const HloComputation* callee =
          callee_index < static_cast<int64_t>(callees.size())
              ? callees[callee_index]
              : nullptr;
      ++callee_index;
      absl::StrAppend(&text, ", ", info.name, "=", naming.Of(callee));
      continue;
    }
    if (slot.use == AttrUse::kPositional) continue;
    const AttrValue* value = instruction.attributes().Find(slot.id);
    if (value == nullptr) continue;
    absl::StrAppend(&text, ", ", info.name, "=",
                    AttributeValueText(instruction, slot.id, info.type,
                                       *value));
  }
  if (options.metadata && !instruction.metadata().empty()) {
    absl::StrAppend(&text, ", ", MetadataToString(instruction.metadata()));
  }
  return text;
}

// One instruction's line, without ROOT or indentation.
std::string InstructionLine(const HloInstruction& instruction,
                            const Naming& naming) {
  const OpSpec& spec = GetOpSpec(instruction.opcode());
  return absl::StrCat(naming.Of(instruction), " = ",
                      instruction.shape().ToStringWithLayout(), " ",
                      spec.text, "(",
                      OperandsToString(instruction, spec, naming), ")",
                      AttributesToString(instruction, spec, naming));
}

}  // namespace

std::string HloPrinter::InstructionToString(const HloInstruction& instruction,
                                            const HloPrintOptions& options) {
  return InstructionLine(instruction, Naming(options));
}

std::string HloPrinter::ComputationToString(const HloComputation& computation,
                                            const HloPrintOptions& options) {
  const HloModule* module = computation.parent();
  bool is_entry =
      module != nullptr && module->entry_computation() == &computation;
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  Naming naming(options);
  naming.Number(order);
  std::string text =
      options.canonical
          ? std::string("{\n")
          : absl::StrCat(is_entry ? "ENTRY " : "", computation.name(), " {\n");
  for (const HloInstruction* instruction : order) {
    absl::StrAppend(&text, "  ",
                    instruction == computation.root_instruction() ? "ROOT " : "",
                    InstructionLine(*instruction, naming), "\n");
  }
  absl::StrAppend(&text, "}\n");
  return text;
}

std::string HloPrinter::ModuleToString(const HloModule& module,
                                       const HloPrintOptions& options) {
  std::string text = absl::StrCat("HloModule ", module.name());
  if (module.replica_count() != 1) {
    absl::StrAppend(&text, ", replica_count=", module.replica_count());
  }
  if (module.num_partitions() != 1) {
    absl::StrAppend(&text, ", num_partitions=", module.num_partitions());
  }
  if (!module.input_output_aliases().empty()) {
    // XLA's form: input_output_alias={ {1}: (0, {}, may-alias), ... }
    std::vector<std::string> entries;
    for (const HloInputOutputAlias& alias : module.input_output_aliases()) {
      entries.push_back(
          absl::StrCat("{", absl::StrJoin(alias.output_index, ","), "}: (",
                       alias.parameter_number, ", {",
                       absl::StrJoin(alias.parameter_index, ","), "}, ",
                       alias.must_alias ? "must-alias" : "may-alias", ")"));
    }
    absl::StrAppend(&text, ", input_output_alias={ ",
                    absl::StrJoin(entries, ", "), " }");
  }
  absl::StrAppend(&text, "\n");
  for (const HloComputation* computation : module.MakeComputationPostOrder()) {
    absl::StrAppend(&text, "\n", ComputationToString(*computation, options));
  }
  return text;
}

}  // namespace mxla
