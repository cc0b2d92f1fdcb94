#include "ir/hlo_module.h"

#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_name.h"
#include "ir/hlo_printer.h"
#include "ir/shape_util.h"

namespace mxla {

void HloModule::set_name(absl::string_view name) {
  name_ = name.empty() ? "_" : SanitizeHloName(name);
}

std::string HloModule::UniqueName(absl::string_view hint) {
  std::string base = hint.empty() ? "name" : SanitizeHloName(hint);
  if (used_names_.insert(base).second) return base;
  // A taken "add.3" continues "add"'s numbering rather than growing to
  // "add.3.1": clones of clones (fusion, row fusion) keep short names.
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot + 1 < base.size() &&
      base.find_first_not_of("0123456789", dot + 1) == std::string::npos) {
    base.resize(dot);
  }
  int64_t& suffix = next_suffix_[base];
  std::string candidate;
  do {
    candidate = absl::StrCat(base, ".", ++suffix);
  } while (!used_names_.insert(candidate).second);
  return candidate;
}

std::string HloModule::UniqueInstructionName(absl::string_view hint) {
  return UniqueName(hint);
}

void HloModule::ReleaseInstructionName(const std::string& name) {
  used_names_.erase(name);
}

HloComputation* HloModule::AddComputation(std::string name, bool is_entry) {
  auto computation = std::make_unique<HloComputation>(UniqueName(name));
  computation->set_parent(this);
  HloComputation* raw = computation.get();
  computations_.push_back(std::move(computation));
  if (is_entry && entry_ == nullptr) entry_ = raw;
  return raw;
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> result;
  for (const auto& computation : computations_) {
    result.push_back(computation.get());
  }
  return result;
}

HloComputation* HloModule::GetComputationWithName(
    absl::string_view name) const {
  for (const auto& computation : computations_) {
    if (computation->name() == name) return computation.get();
  }
  return nullptr;
}

namespace {

// Appends `root` and everything it calls, callees first.
void AppendCallPostOrder(HloComputation* root,
                         absl::flat_hash_set<HloComputation*>* visited,
                         std::vector<HloComputation*>* order) {
  std::vector<std::pair<HloComputation*, std::vector<HloComputation*>>> stack;
  auto callees = [](HloComputation* computation) {
    std::vector<HloComputation*> result;
    for (HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        result.push_back(callee);
      }
    }
    return result;
  };
  if (!visited->insert(root).second) return;
  stack.push_back({root, callees(root)});
  while (!stack.empty()) {
    auto& [computation, pending] = stack.back();
    if (!pending.empty()) {
      HloComputation* next = pending.back();
      pending.pop_back();
      if (visited->insert(next).second) stack.push_back({next, callees(next)});
      continue;
    }
    order->push_back(computation);
    stack.pop_back();
  }
}

}  // namespace

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<HloComputation*> visited;
  // Unreachable computations first (in insertion order), the entry last.
  for (const auto& computation : computations_) {
    if (computation.get() != entry_) {
      AppendCallPostOrder(computation.get(), &visited, &order);
    }
  }
  if (entry_ != nullptr) AppendCallPostOrder(entry_, &visited, &order);
  return order;
}

void HloModule::RemoveUnusedComputations() {
  if (entry_ == nullptr) return;
  absl::flat_hash_set<HloComputation*> reachable;
  std::vector<HloComputation*> order;
  AppendCallPostOrder(entry_, &reachable, &order);
  std::erase_if(computations_, [&](const auto& computation) {
    return !reachable.contains(computation.get());
  });
}

HloComputation* HloModule::CopyComputation(
    const HloComputation& from, const ComputationMap& callee_copies) {
  HloComputation* to = AddComputation(from.name(), /*is_entry=*/false);
  InstructionCloneMap map;
  CloneInstructionsInto(
      from.MakeInstructionPostOrder(), *to, map,
      [](HloInstruction*) -> HloInstruction* { return nullptr; },
      &callee_copies);
  if (from.root_instruction() != nullptr) {
    to->set_root_instruction(map.at(from.root_instruction()));
  }
  return to;
}

HloComputation* HloModule::DeepCopyComputation(const HloComputation& source) {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<HloComputation*> visited;
  AppendCallPostOrder(const_cast<HloComputation*>(&source), &visited, &order);
  ComputationMap copies;
  for (HloComputation* from : order) copies[from] = CopyComputation(*from, copies);
  return copies.at(&source);
}

std::unique_ptr<HloModule> HloModule::Clone() const {
  auto clone = std::make_unique<HloModule>(name_);
  ComputationMap copies;
  for (HloComputation* from : MakeComputationPostOrder()) {
    copies[from] = clone->CopyComputation(*from, copies);
  }
  if (entry_ != nullptr) clone->entry_ = copies.at(entry_);
  clone->next_unique_id_ = next_unique_id_;
  clone->form_ = form_;
  clone->input_output_aliases_ = input_output_aliases_;
  clone->replica_count_ = replica_count_;
  clone->num_partitions_ = num_partitions_;
  return clone;
}

namespace {

std::string IndexText(const std::vector<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

// Counts the leaves of `shape`: every non-tuple, as runtime/buffer_leaves.h
// counts them.
int64_t ArrayLeaves(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t count = 0;
  for (const Shape& element : shape.tuple_shapes()) {
    count += ArrayLeaves(element);
  }
  return count;
}

// The leaf of `shape` at `index` and its depth-first number among
// `shape`'s leaves; an error text when `index` leads nowhere or to a tuple.
absl::StatusOr<std::pair<Shape, int64_t>> LeafAt(
    const Shape& shape, const std::vector<int64_t>& index,
    const std::string& what) {
  const Shape* at = &shape;
  int64_t number = 0;
  for (int64_t i : index) {
    if (!at->IsTuple() ||
        i >= static_cast<int64_t>(at->tuple_shapes().size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " index ", IndexText(index),
                       " does not lead to an element of ", shape.ToString()));
    }
    for (int64_t j = 0; j < i; ++j) {
      number += ArrayLeaves(at->tuple_shapes(j));
    }
    at = &at->tuple_shapes(i);
  }
  if (at->IsTuple()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " index ", IndexText(index), " of ", shape.ToString(),
        " is the tuple ", at->ToString(), ", not an array"));
  }
  return std::make_pair(*at, number);
}

std::string AliasText(const HloInputOutputAlias& alias) {
  return absl::StrCat(IndexText(alias.output_index), ": (",
                      alias.parameter_number, ", ",
                      IndexText(alias.parameter_index), ")");
}

// The depth-first number of each entry parameter's first leaf among all
// parameters' leaves; the message when a parameter is missing.
absl::StatusOr<std::vector<int64_t>> FirstLeaves(const HloComputation& entry) {
  std::vector<int64_t> first_leaf;
  int64_t total = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    first_leaf.push_back(total);
    const HloInstruction* parameter = entry.parameter_instruction(i);
    if (parameter == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("no parameter ", i));
    }
    total += ArrayLeaves(parameter->shape());
  }
  return first_leaf;
}

// One alias's result and argument leaves: both indices lead to arrays of
// one byte size; the message says which does not.
absl::StatusOr<AliasedLeaf> ResolveAlias(const HloComputation& entry,
                                         const std::vector<int64_t>& first_leaf,
                                         const HloInputOutputAlias& alias) {
  auto output = LeafAt(entry.root_instruction()->shape(), alias.output_index,
                       "output");
  if (!output.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(AliasText(alias), ": ", output.status().message()));
  }
  if (alias.parameter_number >= entry.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        AliasText(alias), ": parameter ", alias.parameter_number,
        " does not exist (the entry has ", entry.num_parameters(), ")"));
  }
  const Shape& parameter_shape =
      entry.parameter_instruction(alias.parameter_number)->shape();
  auto parameter = LeafAt(parameter_shape, alias.parameter_index,
                          absl::StrCat("parameter ", alias.parameter_number));
  if (!parameter.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(AliasText(alias), ": ", parameter.status().message()));
  }
  // As in XLA, one buffer holds both: their byte sizes must agree (the
  // shapes may differ, as through a bitcast).
  const int64_t output_bytes = ShapeUtil::ByteSizeOf(output->first);
  const int64_t parameter_bytes = ShapeUtil::ByteSizeOf(parameter->first);
  if (output_bytes != parameter_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output ", IndexText(alias.output_index), " is ",
        output->first.ToString(), " (", output_bytes, " bytes) but parameter ",
        alias.parameter_number, " ", IndexText(alias.parameter_index),
        " it aliases is ", parameter->first.ToString(), " (", parameter_bytes,
        " bytes)"));
  }
  return AliasedLeaf{output->second,
                     first_leaf[alias.parameter_number] + parameter->second};
}

}  // namespace

absl::StatusOr<std::vector<AliasedLeaf>> ResolveInputOutputAliases(
    const HloModule& module) {
  std::vector<AliasedLeaf> leaves;
  const HloComputation* entry = module.entry_computation();
  if (module.input_output_aliases().empty() || entry == nullptr) {
    return leaves;
  }
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input_output_alias of module '", module.name(), "': ", message));
  };
  absl::StatusOr<std::vector<int64_t>> first_leaf = FirstLeaves(*entry);
  if (!first_leaf.ok()) return error(first_leaf.status().message());
  std::map<int64_t, const HloInputOutputAlias*> by_output, by_argument;
  for (const HloInputOutputAlias& alias : module.input_output_aliases()) {
    absl::StatusOr<AliasedLeaf> leaf = ResolveAlias(*entry, *first_leaf, alias);
    if (!leaf.ok()) return error(leaf.status().message());
    auto [at_output, new_output] = by_output.emplace(leaf->result_leaf, &alias);
    if (!new_output) {
      return error(absl::StrCat(
          "output ", IndexText(alias.output_index), " is aliased twice: ",
          AliasText(*at_output->second), " and ", AliasText(alias)));
    }
    auto [at_argument, new_argument] =
        by_argument.emplace(leaf->argument_leaf, &alias);
    if (!new_argument) {
      return error(absl::StrCat(
          "parameter ", alias.parameter_number, " ",
          IndexText(alias.parameter_index), " is donated twice: ",
          AliasText(*at_argument->second), " and ", AliasText(alias)));
    }
    leaves.push_back(*leaf);
  }
  return leaves;
}

std::string HloModule::ToString(const HloPrintOptions& options) const {
  return HloPrinter::ModuleToString(*this, options);
}

}  // namespace mxla
