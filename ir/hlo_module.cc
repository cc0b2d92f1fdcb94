#include "ir/hlo_module.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_name.h"
#include "ir/hlo_printer.h"

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
  return clone;
}

std::string HloModule::ToString(const HloPrintOptions& options) const {
  return HloPrinter::ModuleToString(*this, options);
}

}  // namespace mxla
