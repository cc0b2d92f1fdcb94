#include "ir/module_fingerprint.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace mxla {
namespace {

// Where each computation and instruction sits (instructions within their
// computation), so that references compare across modules. Instructions are
// looked up by unique id in a flat table (a hash map costs most of a cache
// hit); ids that are missing or shared within a computation fall back to
// the map, so the answer is exact either way.
class Positions {
 public:
  explicit Positions(const std::vector<HloComputation*>& computations) {
    for (size_t c = 0; c < computations.size(); ++c) {
      computation_[computations[c]] = c;
    }
  }
  // Numbers the instructions of one computation in the order given,
  // forgetting the previous computation's.
  void Number(const std::vector<HloInstruction*>& instructions) {
    for (int64_t id : numbered_ids_) by_id_[id] = -1;
    numbered_ids_.clear();
    by_pointer_.clear();
    numbered_ = &instructions;
    use_ids_ = true;
    for (size_t i = 0; i < instructions.size() && use_ids_; ++i) {
      const int64_t id = instructions[i]->unique_id();
      if (id < 0) {
        use_ids_ = false;
        break;
      }
      if (id >= static_cast<int64_t>(by_id_.size())) {
        by_id_.resize(std::max<int64_t>(id + 1, 2 * by_id_.size()), -1);
      }
      if (by_id_[id] != -1) use_ids_ = false;  // a shared id
      by_id_[id] = i;
      numbered_ids_.push_back(id);
    }
    if (use_ids_) return;
    by_pointer_.reserve(instructions.size());
    for (size_t i = 0; i < instructions.size(); ++i) {
      by_pointer_[instructions[i]] = i;
    }
  }
  int64_t Of(const HloInstruction* instruction) const {
    if (use_ids_) {
      // The identity check keeps an instruction of another computation
      // that shares an id from passing for a numbered one.
      const int64_t id = instruction->unique_id();
      if (id < 0 || id >= static_cast<int64_t>(by_id_.size())) return -1;
      const int64_t position = by_id_[id];
      return position >= 0 && (*numbered_)[position] == instruction ? position
                                                                     : -1;
    }
    auto it = by_pointer_.find(instruction);
    return it == by_pointer_.end() ? -1 : it->second;
  }
  int64_t Of(const HloComputation* computation) const {
    auto it = computation_.find(computation);
    return it == computation_.end() ? -1 : it->second;
  }

 private:
  absl::flat_hash_map<const HloComputation*, int64_t> computation_;
  const std::vector<HloInstruction*>* numbered_ = nullptr;  // the caller's
  bool use_ids_ = true;
  std::vector<int64_t> by_id_;  // -1 where no numbered instruction has the id
  std::vector<int64_t> numbered_ids_;
  absl::flat_hash_map<const HloInstruction*, int64_t> by_pointer_;
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
                             positions.Of(module.entry_computation()),
                             module.replica_count(), module.num_partitions());
  for (const HloInputOutputAlias& alias : module.input_output_aliases()) {
    hash = absl::HashOf(hash, alias.output_index, alias.parameter_number,
                        alias.parameter_index, alias.must_alias);
  }
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
  if (a.name() != b.name() || ca.size() != cb.size() ||
      a.input_output_aliases() != b.input_output_aliases() ||
      a.replica_count() != b.replica_count() ||
      a.num_partitions() != b.num_partitions()) {
    return false;
  }
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
