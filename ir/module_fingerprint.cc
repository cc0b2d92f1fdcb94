#include "ir/module_fingerprint.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace mxla {
namespace {

// Where each computation and instruction sits (instructions within their
// computation), so that references compare across modules.
class Positions {
 public:
  explicit Positions(const std::vector<HloComputation*>& computations) {
    for (size_t c = 0; c < computations.size(); ++c) {
      computation_[computations[c]] = c;
    }
  }
  // Numbers the instructions of `computation` in the order given.
  void Number(const std::vector<HloInstruction*>& instructions) {
    instruction_.clear();
    instruction_.reserve(instructions.size());
    for (size_t i = 0; i < instructions.size(); ++i) {
      instruction_[instructions[i]] = i;
    }
  }
  int64_t Of(const HloInstruction* instruction) const {
    auto it = instruction_.find(instruction);
    return it == instruction_.end() ? -1 : it->second;
  }
  int64_t Of(const HloComputation* computation) const {
    auto it = computation_.find(computation);
    return it == computation_.end() ? -1 : it->second;
  }

 private:
  absl::flat_hash_map<const HloComputation*, int64_t> computation_;
  absl::flat_hash_map<const HloInstruction*, int64_t> instruction_;
};

// Whether `a` (numbered by `pa`) and `b` (by `pb`) have the same name,
// attributes, operands and callees.
bool SameInstruction(const HloInstruction& a, const Positions& pa,
                     const HloInstruction& b, const Positions& pb) {
  if (a.name() != b.name() || a.operand_count() != b.operand_count() ||
      a.called_computations().size() != b.called_computations().size() ||
      !a.IdenticalAttributes(b)) {
    return false;
  }
  for (int64_t i = 0; i < a.operand_count(); ++i) {
    if (pa.Of(a.operand(i)) != pb.Of(b.operand(i))) return false;
  }
  for (size_t i = 0; i < a.called_computations().size(); ++i) {
    if (pa.Of(a.called_computations()[i]) != pb.Of(b.called_computations()[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace

uint64_t FingerprintModule(const HloModule& module) {
  const std::vector<HloComputation*> computations = module.computations();
  Positions positions(computations);
  size_t hash = absl::HashOf(module.name(), computations.size(),
                             positions.Of(module.entry_computation()));
  for (const HloComputation* computation : computations) {
    const std::vector<HloInstruction*> instructions =
        computation->instructions();
    positions.Number(instructions);
    hash = absl::HashOf(hash, computation->name(), instructions.size(),
                        positions.Of(computation->root_instruction()));
    for (const HloInstruction* instruction : instructions) {
      hash = absl::HashOf(hash, instruction->name(),
                          instruction->AttributeHash(),
                          instruction->operand_count());
      for (const HloInstruction* operand : instruction->operands()) {
        hash = absl::HashOf(hash, positions.Of(operand));
      }
      for (const HloComputation* callee : instruction->called_computations()) {
        hash = absl::HashOf(hash, ~positions.Of(callee));
      }
    }
  }
  return hash;
}

bool IdenticalModules(const HloModule& a, const HloModule& b) {
  const std::vector<HloComputation*> ca = a.computations();
  const std::vector<HloComputation*> cb = b.computations();
  if (a.name() != b.name() || ca.size() != cb.size()) return false;
  Positions pa(ca), pb(cb);
  if (pa.Of(a.entry_computation()) != pb.Of(b.entry_computation())) {
    return false;
  }
  for (size_t c = 0; c < ca.size(); ++c) {
    const std::vector<HloInstruction*> ia = ca[c]->instructions();
    const std::vector<HloInstruction*> ib = cb[c]->instructions();
    if (ca[c]->name() != cb[c]->name() || ia.size() != ib.size()) return false;
    pa.Number(ia);
    pb.Number(ib);
    if (pa.Of(ca[c]->root_instruction()) != pb.Of(cb[c]->root_instruction())) {
      return false;
    }
    for (size_t i = 0; i < ia.size(); ++i) {
      if (!SameInstruction(*ia[i], pa, *ib[i], pb)) return false;
    }
  }
  return true;
}

}  // namespace mxla
