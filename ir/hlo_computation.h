// HloComputation: a DAG of instructions with one root, owned by an HloModule.
// Instructions are kept in insertion order; MakeInstructionPostOrder gives
// an order where every operand comes before its users (iterative, so deep
// graphs do not overflow the stack).
//
// Owns its instructions: their pointers stay valid until they are removed or
// the computation is destroyed. Nothing here checks shapes; run the
// verifier after editing. Not thread-safe for mutation.
#ifndef MXLA_IR_HLO_COMPUTATION_H_
#define MXLA_IR_HLO_COMPUTATION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_printer.h"

namespace mxla {

class HloModule;

class HloComputation {
 public:
  explicit HloComputation(std::string name) : name_(std::move(name)) {}
  // Frees every instruction; their edges to each other are dropped first.
  ~HloComputation();
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  // Keeps `name` exactly: the parser's names are valid (ir/hlo_name.h);
  // other callers name computations through HloModule::AddComputation.
  void set_name(std::string name) { name_ = std::move(name); }
  // The owning module (set by HloModule::AddComputation), or null.
  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* parent) { parent_ = parent; }

  // Takes ownership and returns the instruction. With a parent module, its
  // name (or, if empty, its opcode) is sanitized (ir/hlo_name.h) and made
  // unique in the module and it gets a unique id; without one the name is
  // only sanitized. Parameters are also recorded
  // as parameters. Operands must already be in this computation (unchecked).
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);

  // Null until set; `root` must be in this computation (unchecked).
  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  // Parameters in the order they were added (not necessarily by number).
  const std::vector<HloInstruction*>& parameter_instructions() const {
    return parameters_;
  }
  int64_t num_parameters() const { return parameters_.size(); }
  // The parameter with number `number`, or nullptr: one look when the
  // parameters were added in number order (as parsed and built), else a
  // linear search.
  HloInstruction* parameter_instruction(int64_t number) const;

  int64_t instruction_count() const { return instructions_.size(); }
  // Insertion order.
  std::vector<HloInstruction*> instructions() const;
  // Operands before users; every instruction appears once.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;

  // `old_instruction`'s users (and the root, if it was the root) now use
  // `replacement`. `old_instruction` stays in the computation until removed.
  // Shapes are not checked, and `replacement` must not depend on
  // `old_instruction` (that would make a cycle).
  void ReplaceInstruction(HloInstruction* old_instruction,
                          HloInstruction* replacement);
  // Deletes an instruction that has no users and is not the root; Internal
  // error (nothing deleted) if it has users, is the root, or is not in this
  // computation. Its name becomes free again.
  absl::Status RemoveInstruction(HloInstruction* instruction);
  // Deletes a set of instructions at once (linear time); every user of each
  // one must be in the set too, and the root must not be. All conditions
  // are checked first: an Internal error deletes nothing.
  absl::Status RemoveInstructions(
      const absl::flat_hash_set<HloInstruction*>& dead);

  // HLO text (HloPrinter::ComputationToString).
  std::string ToString(const HloPrintOptions& options = {}) const;

 private:
  std::string name_;
  HloModule* parent_ = nullptr;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
};

}  // namespace mxla

#endif  // MXLA_IR_HLO_COMPUTATION_H_
